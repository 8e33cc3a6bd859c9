package dev.skillc.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The catalog of a bundle for a consumer and context: its skills with their {@code SKn} ids and
 * its text in one format, as {@code skillc catalog} gives them (compiler/runtime/src/catalog.rs).
 *
 * @param release the label of {@code skillc build --release-label}, or null
 * @param client  the client, or null for the global bundle
 * @param tokens  tokens of the text (the sum of the stored counts of its parts)
 */
public record Catalog(String release, String client, String locale, String tier, String consumer,
                      List<Skill> skills, String text, long tokens) {

    /** One catalog line. {@code plugin} and {@code external} are null unless the skill has one. */
    public record Skill(String id, String name, String qualifiedName, String category, String description,
                        List<String> triggers, Plugin plugin, External external) {}

    /** A Claude Code plugin's metadata (manifest {@code plugins}); absent fields are null. */
    public record Plugin(String name, String version, String description, String author) {}

    /** Where an outside skill comes from ({@code workspace.yaml} {@code external:}). */
    public record External(String into, String git, String rev, String commit, boolean trusted) {}

    /** {@code skillc catalog --format json}: serde_json's text, keys sorted. */
    public String toJson() {
        List<Object> list = new ArrayList<>();
        for (Skill s : skills) {
            Map<String, Object> m = Json.fields("category", s.category(), "description", s.description());
            External e = s.external();
            if (e != null) {
                m.put("external", Json.fields("commit", e.commit(), "git", e.git(), "into", e.into(), "rev", e.rev(),
                    "trusted", e.trusted()));
            }
            m.put("id", s.id());
            m.put("name", s.name());
            Plugin p = s.plugin();
            if (p != null) {
                m.put("plugin", Json.fields("author", p.author(), "description", p.description(), "name", p.name(),
                    "version", p.version()));
            }
            m.put("qualified_name", s.qualifiedName());
            m.put("triggers", s.triggers());
            list.add(m);
        }
        return Json.pretty(Json.fields("client", client, "consumer", consumer, "locale", locale, "release", release,
            "skills", list, "text", text, "tier", tier)) + "\n";
    }

    // -- building a catalog from a snapshot --------------------------------------------------

    /** Indices of the skills a catalog shows, in order. */
    static List<Integer> members(Snapshot snap, Bundle b, String consumer, Context ctx) {
        Set<String> hidden = snap.hiddenFor(consumer);
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < b.skills.size(); i++) {
            Entry s = b.skills.get(i);
            if (s.catalogVisible && (hidden == null || !hidden.contains(s.qualifiedName)) && snap.conditionsHold(s, ctx)) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * The catalog, kept per bundle, consumer, format and outcome of the skills' conditions (all
     * a catalog depends on): a warm lookup evaluates the conditions only.
     */
    static Catalog of(Snapshot snap, Bundle b, String consumer, Context ctx, Format format) {
        List<Object> key = java.util.Arrays.asList(consumer, format, outcome(snap, b, consumer, ctx));
        Catalog c = b.catalogs.get(key);
        if (c == null) {
            c = render(snap, b, consumer, ctx, format);
            b.catalogs.put(key, c);
        }
        return c;
    }

    /**
     * What decides which skills a consumer's catalog shows in a context, beyond the bundle: one
     * character per catalog-visible skill with run-time conditions, {@code 1} if they hold.
     */
    static String outcome(Snapshot snap, Bundle b, String consumer, Context ctx) {
        Set<String> hidden = snap.hiddenFor(consumer);
        if (b.conditional == null) {
            b.conditional = new ArrayList<>();
            for (Entry s : b.skills) {
                if (s.catalogVisible && s.rawRecord.contains("\"conditions\"")) b.conditional.add(s);
            }
        }
        StringBuilder outcome = new StringBuilder();
        for (Entry s : b.conditional) {
            if (hidden == null || !hidden.contains(s.qualifiedName)) outcome.append(snap.conditionsHold(s, ctx) ? '1' : '0');
        }
        return outcome.toString();
    }

    /** A manifest count, when it is one (as Rust's {@code parse::<usize>().ok()}). */
    static Long count(String value) {
        if (value == null || !value.matches("\\+?[0-9]+")) return null;
        try {
            return Long.parseLong(value.startsWith("+") ? value.substring(1) : value);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String string(Object v) {
        return v instanceof String s ? s : null;
    }

    @SuppressWarnings("unchecked")
    static Plugin pluginOf(Snapshot snap, String name) {
        int at = name.indexOf(':');
        if (at < 0 || !snap.manifest.containsKey("plugins")) return null;
        String plugin = name.substring(0, at);
        if (!(snap.plugins().get(plugin) instanceof Map<?, ?> about)) return null;
        Map<String, Object> a = (Map<String, Object>) about;
        return new Plugin(plugin, string(a.get("version")), string(a.get("description")), string(a.get("author")));
    }

    @SuppressWarnings("unchecked")
    static External externalOf(Snapshot snap, String location) {
        for (Map.Entry<String, Object> e : snap.external().entrySet()) {
            if (!location.startsWith(e.getKey() + "/") || !(e.getValue() instanceof Map)) continue;
            Map<String, Object> a = (Map<String, Object>) e.getValue();
            String git = string(a.get("git"));
            String rev = string(a.get("rev"));
            String commit = string(a.get("commit"));
            return new External(e.getKey(), git == null ? "" : git, rev == null ? "" : rev,
                commit == null ? "" : commit, Boolean.TRUE.equals(a.get("trusted")));
        }
        return null;
    }

    private static Catalog render(Snapshot snap, Bundle b, String consumer, Context ctx, Format format) {
        List<Integer> members = members(snap, b, consumer, ctx);
        Long max = count(snap.manifest.get("max_triggers"));
        int maxTriggers = max == null ? 5 : (int) Math.min(max, Integer.MAX_VALUE);
        List<Skill> skills = new ArrayList<>();
        for (int n = 0; n < members.size(); n++) {
            Entry s = b.skills.get(members.get(n));
            External external = null;
            if (snap.manifest.containsKey("external")) {
                Object file = snap.record(s).get("resolved_file");
                external = externalOf(snap, file instanceof String f ? f : "");
            }
            skills.add(new Skill("SK" + (n + 1), s.name, s.qualifiedName, s.category, s.description,
                List.copyOf(s.triggers.subList(0, Math.min(maxTriggers, s.triggers.size()))),
                pluginOf(snap, s.name), external));
        }
        java.util.Map<Long, Snapshot.Text> texts = snap.cardTexts(b, format == Format.JSON ? "markdown" : format.label());
        StringBuilder text = new StringBuilder();
        long tokens = 0;
        if (format == Format.MARKDOWN) {
            String current = null;
            for (int n = 0; n < members.size(); n++) {
                Entry s = b.skills.get(members.get(n));
                if (!s.category.equals(current)) {
                    if (current != null) text.append('\n');
                    Snapshot.Category c = snap.categories.get(s.category);
                    if (c != null) {
                        text.append(c.catalogHeader().text());
                        tokens += c.catalogHeader().tokens();
                    }
                    current = s.category;
                }
                Snapshot.Text t = texts.getOrDefault(s.card, new Snapshot.Text("", 0));
                text.append("| SK").append(n + 1).append(' ').append(t.text());
                tokens += t.tokens() + 4;
            }
        } else if (format == Format.JSON) {
            List<Object> list = new ArrayList<>();
            for (Skill s : skills) {
                list.add(Json.fields("id", s.id(), "name", s.name(), "description", s.description(), "triggers", s.triggers()));
            }
            text.append(Json.compact(list));
            for (int i : members) tokens += texts.getOrDefault(b.skills.get(i).card, new Snapshot.Text("", 0)).tokens();
        } else {
            if (format == Format.XML) {
                text.append("<available_skills>\n");
                tokens = 8;
            }
            for (int i : members) {
                Snapshot.Text t = texts.getOrDefault(b.skills.get(i).card, new Snapshot.Text("", 0));
                text.append(t.text());
                tokens += t.tokens();
            }
            if (format == Format.XML) text.append("</available_skills>");
        }
        return new Catalog(snap.manifest.get("release"), b.client.isEmpty() ? null : b.client, b.locale, b.tier,
            consumer, List.copyOf(skills), text.toString(), tokens);
    }
}
