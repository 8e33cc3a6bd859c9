package dev.skillc.runtime;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prompt rules of SPEC 5, step for step as the Rust runtime applies them
 * (compiler/runtime/src/select.rs): pick, cap, links, exclusivity, always-on, blocks, assembly.
 */
final class Selection {
    private static final Pattern CATALOG_ID = Pattern.compile("SK\\+?([0-9]+)");

    private final Snapshot snap;
    private final Bundle b;
    private final Context ctx;
    private final List<Integer> order = new ArrayList<>();
    private final Map<Integer, String> reason = new HashMap<>();
    private final List<Prompt.Removed> removed = new ArrayList<>();

    private Selection(Snapshot snap, Bundle b, Context ctx) {
        this.snap = snap;
        this.b = b;
        this.ctx = ctx;
    }

    /** The prompt for the skills a selector picked (names, qualified names or {@code SKn} ids). */
    static Prompt prompt(Snapshot snap, Bundle b, String consumer, Context ctx, List<String> picked) {
        Set<String> hidden = snap.hiddenFor(consumer);
        List<Integer> shown = Catalog.members(snap, b, consumer, ctx);
        Long cap = Catalog.count(snap.manifest.get("max_active_skills"));
        Selection sel = new Selection(snap, b, ctx);
        sel.pick(picked, shown, hidden, cap == null ? Long.MAX_VALUE : cap);
        sel.closeOverLinks();
        sel.applyExclusivity();
        sel.addAlwaysOn();
        sel.applyBlocks();
        return sel.assemble();
    }

    private void add(int i, String why) {
        if (!reason.containsKey(i)) {
            order.add(i);
            reason.put(i, why);
        }
    }

    private void remove(int i, String why) {
        if (reason.remove(i) != null) {
            order.remove(Integer.valueOf(i));
            removed.add(new Prompt.Removed(b.skills.get(i).name, why));
        }
    }

    private void leftOut(String name, String why) {
        removed.add(new Prompt.Removed(name, why));
    }

    /** Unicode's White_Space, which Rust's {@code trim} takes off (Java's {@code strip} differs). */
    static boolean whiteSpace(int c) {
        return (c >= 0x9 && c <= 0xd) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680
            || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f
            || c == 0x3000;
    }

    static String trimEnd(String s) {
        int end = s.length();
        while (end > 0 && whiteSpace(s.codePointBefore(end))) end -= Character.charCount(s.codePointBefore(end));
        return s.substring(0, end);
    }

    static String trim(String s) {
        String t = trimEnd(s);
        int start = 0;
        while (start < t.length() && whiteSpace(t.codePointAt(start))) start += Character.charCount(t.codePointAt(start));
        return t.substring(start);
    }

    /** Whether a skill can go into a prompt: null, or why not. */
    private String usable(Entry s) {
        if (s.unavailable != null) return "unavailable";
        return snap.conditionsHold(s, ctx) ? null : "condition";
    }

    /** The index of a skill by name, qualified name or {@code skills.ns.name}. */
    private Integer position(String name) {
        String n = trim(name);
        if (n.startsWith("skills.")) n = n.substring("skills.".length());
        return b.byName.get(n);
    }

    /** 1-2. The picked names that exist, are shown and usable, up to the cap. */
    private void pick(List<String> picked, List<Integer> shown, Set<String> hidden, long cap) {
        List<Integer> ok = new ArrayList<>();
        for (String name : picked) {
            Matcher m = CATALOG_ID.matcher(name);
            Integer i;
            if (m.matches()) {
                BigInteger id = new BigInteger(m.group(1));
                boolean inRange = id.signum() > 0 && id.compareTo(BigInteger.valueOf(shown.size())) <= 0;
                i = inRange ? shown.get(id.intValue() - 1) : null;
            } else {
                i = position(name);
            }
            if (i == null) {
                // A skill the build turned off for this client is `disabled`, not unknown.
                String bare = trim(name).replaceFirst("^skills\\.", "");
                leftOut(name, b.disabled.contains(bare) ? "disabled" : "unknown");
                continue;
            }
            Entry s = b.skills.get(i);
            String why = usable(s);
            if (!s.catalogVisible || (hidden != null && hidden.contains(s.qualifiedName))) {
                leftOut(s.name, "hidden");
            } else if (why != null) {
                leftOut(s.name, why);
            } else if (!ok.contains(i)) {
                ok.add(i);
            }
        }
        for (int n = 0; n < ok.size(); n++) {
            if (n < cap) add(ok.get(n), "selected");
            else leftOut(b.skills.get(ok.get(n)).name, "max_active");
        }
    }

    private List<List<Integer>> augmentedBy() {
        if (b.augmentedBy == null) {
            List<List<Integer>> by = new ArrayList<>();
            for (int i = 0; i < b.skills.size(); i++) by.add(new ArrayList<>());
            for (int j = 0; j < b.skills.size(); j++) {
                for (String q : snap.names(b.skills.get(j), "augments")) {
                    Integer i = b.byQualified.get(q);
                    if (i != null) by.get(i).add(j);
                }
            }
            b.augmentedBy = by;
        }
        return b.augmentedBy;
    }

    /** What the included skills bring along: dependencies, augments (both ways), imports. */
    private List<Map.Entry<Integer, String>> links() {
        List<Map.Entry<Integer, String>> out = new ArrayList<>();
        List<List<Integer>> by = augmentedBy();
        for (int i : order) {
            Entry s = b.skills.get(i);
            String[][] kinds = {{"dependencies", "dependency"}, {"augments", "augments"}, {"imports", "import"}};
            for (String[] kind : kinds) {
                for (String q : snap.names(s, kind[0])) {
                    Integer j = b.byQualified.get(q);
                    if (j != null) out.add(Map.entry(j, kind[1] + ":" + s.name));
                }
            }
            for (int j : by.get(i)) out.add(Map.entry(j, "augments:" + s.name));
        }
        return out;
    }

    /** 3. Links, transitively, until nothing changes. */
    private void closeOverLinks() {
        Set<Map.Entry<Integer, String>> tried = new HashSet<>();
        while (true) {
            boolean changed = false;
            for (Map.Entry<Integer, String> link : links()) {
                int j = link.getKey();
                if (reason.containsKey(j) || !tried.add(link)) continue;
                Entry s = b.skills.get(j);
                String err = usable(s);
                if (err == null) {
                    add(j, link.getValue());
                    changed = true;
                } else if (removed.stream().noneMatch(r -> r.name().equals(s.name))) {
                    leftOut(s.name, err);
                }
            }
            if (!changed) return;
        }
    }

    private Double priority(int i) {
        return snap.record(b.skills.get(i)).get("priority") instanceof Number n ? n.doubleValue() : null;
    }

    /** 4. Category priority and exclusivity, strongest first. */
    private void applyExclusivity() {
        List<Integer> exclusive = new ArrayList<>();
        for (int i : order) {
            if (Boolean.TRUE.equals(snap.record(b.skills.get(i)).get("exclusive")) && priority(i) != null) exclusive.add(i);
        }
        exclusive.sort(Comparator.<Integer, Double>comparing(this::priority).thenComparing(i -> i));
        for (int x : exclusive) {
            if (!reason.containsKey(x)) continue;
            String cat = b.skills.get(x).category;
            double p = priority(x);
            List<Integer> weaker = new ArrayList<>();
            for (int i : order) {
                Double q = priority(i);
                if (i != x && b.skills.get(i).category.equals(cat) && q != null && q > p) weaker.add(i);
            }
            for (int i : weaker) remove(i, "excluded:" + b.skills.get(x).name);
        }
    }

    /** 5. Always-on skills whose conditions hold. */
    private void addAlwaysOn() {
        for (int i = 0; i < b.skills.size(); i++) {
            Entry s = b.skills.get(i);
            if (s.alwaysOn && s.unavailable == null && snap.conditionsHold(s, ctx)) add(i, "always_on");
        }
    }

    /** 6. Blocks, last, over everything. */
    private void applyBlocks() {
        List<Map.Entry<Integer, String>> blocked = new ArrayList<>();
        for (int i : order) {
            for (String q : snap.names(b.skills.get(i), "blocks")) {
                Integer j = b.byQualified.get(q);
                if (j != null) blocked.add(Map.entry(j, b.skills.get(i).name));
            }
        }
        for (Map.Entry<Integer, String> e : blocked) remove(e.getKey(), "blocked:" + e.getValue());
    }

    private long categoryPosition(int i) {
        Snapshot.Category c = snap.categories.get(b.skills.get(i).category);
        return c == null ? Long.MAX_VALUE : c.position();
    }

    /** 7. Categories in order, skills in catalog order, then the cited sources. */
    private Prompt assemble() {
        List<Integer> included = new ArrayList<>(order);
        included.sort(Comparator.<Integer>comparingLong(this::categoryPosition).thenComparing(i -> i));
        StringBuilder text = new StringBuilder();
        long tokens = 0;
        TreeSet<Long> cited = new TreeSet<>();
        for (int k = 0; k < included.size(); ) {
            String cat = b.skills.get(included.get(k)).category;
            int end = k;
            while (end < included.size() && b.skills.get(included.get(end)).category.equals(cat)) end++;
            Snapshot.Category c = snap.categories.get(cat);
            if (c != null) {
                text.append(c.promptHeading().text());
                tokens += c.promptHeading().tokens();
                if (end - k > 1) {
                    text.append(c.uncertainty().text());
                    tokens += c.uncertainty().tokens();
                }
            }
            for (int i : included.subList(k, end)) {
                Entry s = b.skills.get(i);
                text.append(s.promptPrefix).append(s.promptBody ? snap.body(s) : "").append(s.promptSuffix);
                tokens += s.promptTokens;
                if (snap.record(s).get("cited") instanceof List<?> sids) {
                    for (Object sid : sids) {
                        if (sid instanceof Number n) cited.add(n.longValue());
                    }
                }
            }
            k = end;
        }
        List<Prompt.SourceRef> sources = new ArrayList<>();
        if (!cited.isEmpty()) {
            text.append("## Sources\n\n");
            tokens += 3;
            Map<Long, Snapshot.Source> pool = snap.sourcePool();
            for (long sid : cited) {
                Snapshot.Source source = pool.get(sid);
                if (source != null) {
                    text.append(source.fragment());
                    tokens += source.tokens();
                    sources.add(source.ref());
                }
            }
        }
        List<Prompt.PromptSkill> skills = new ArrayList<>();
        Set<String> in = new HashSet<>();
        for (int i : included) {
            Entry s = b.skills.get(i);
            skills.add(new Prompt.PromptSkill(s.name, s.resolvedName, reason.get(i)));
            in.add(s.name);
        }
        // Each skill's final state, once: in if it was brought back, else its first removal.
        List<Prompt.Removed> out = new ArrayList<>();
        Set<String> told = new HashSet<>();
        for (Prompt.Removed r : removed) {
            if (!in.contains(r.name()) && told.add(r.name())) out.add(r);
        }
        return new Prompt(List.copyOf(skills), List.copyOf(out), List.copyOf(sources),
            trimEnd(text.toString()) + "\n", tokens);
    }
}
