// A skillc artifact read from Java with its own SQLite driver (JDBC), as seed 001's agents are
// written: the catalog of a bundle for a consumer and a run-time context, in the xml, markdown
// or list format, byte for byte what `skillc catalog` prints (CI compares them).
//
// Everything comes from the worked queries of docs/artifact.md; the JSON columns are read with
// SQLite's own JSON functions, so the program needs no JSON library.
//
//   javac -d out -cp /usr/share/java/sqlite-jdbc.jar SkillcCatalog.java
//   java -cp out:/usr/share/java/sqlite-jdbc.jar SkillcCatalog out.db --client example.com \
//        --context page_url=/en-gb/pricing --format markdown

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

public final class SkillcCatalog {
    /** The schema version this example reads. */
    static final int SCHEMA_VERSION = 6;

    /** docs/artifact.md, "The catalog for a consumer, in a format" (kept equal by CI). */
    static final String CATALOG_SQL = """
WITH b AS (SELECT id, base, catalog_level FROM bundle
           WHERE client = :client AND locale = :locale AND tier = :tier),
own AS (SELECT be.name, be.entry FROM bundle_entry be, b WHERE be.bundle = b.id),
rows AS (
  SELECT name, entry FROM own
  UNION ALL
  SELECT be.name, be.entry FROM bundle_entry be, b
  WHERE be.bundle = b.base AND be.name NOT IN (SELECT name FROM own)
)
SELECT e.name, e.category, json_extract(e.record, '$.conditions') AS conditions,
       coalesce((SELECT f.text FROM card_fragment f, b WHERE f.card = e.card
                   AND f.format = :format AND f.level = b.catalog_level),
                (SELECT f.text FROM card_fragment f WHERE f.card = e.card
                   AND f.format = :format AND f.level = '')) AS text
FROM rows JOIN entry e ON e.id = rows.entry
WHERE e.catalog_visible = 1
  AND e.qualified_name NOT IN (SELECT qualified_name FROM consumer_hidden
                               WHERE consumer = :consumer)
ORDER BY e.sort_key;
""";

    /** One condition of a skill's record: its kind and value (JSON text for lists, objects). */
    static final String CONDITIONS_SQL =
        "SELECT c.key, c.value FROM json_each(?) AS l, json_each(l.value) AS c";

    private final Connection db;

    SkillcCatalog(String path) throws SQLException {
        Properties read = new Properties();
        read.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY
        db = DriverManager.getConnection("jdbc:sqlite:" + path, read);
        if (scalar("PRAGMA user_version") == null
                || Integer.parseInt(scalar("PRAGMA user_version")) != SCHEMA_VERSION) {
            throw new SQLException(path + " has schema version " + scalar("PRAGMA user_version")
                + "; this example reads version " + SCHEMA_VERSION);
        }
    }

    String scalar(String sql, String... params) throws SQLException {
        try (PreparedStatement st = db.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) st.setString(i + 1, params[i]);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    List<String> strings(String sql, String... params) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement st = db.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) st.setString(i + 1, params[i]);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Whether `text` starts with `prefix` at a `/` boundary, trailing slashes ignored. */
    static boolean startsAtBoundary(String text, String prefix) {
        String p = prefix.replaceAll("/+$", "");
        if (p.isEmpty()) return true;
        if (!text.startsWith(p)) return false;
        String rest = text.substring(p.length());
        return rest.isEmpty() || "/?#".indexOf(rest.charAt(0)) >= 0;
    }

    /** The path part of a URL, or the text itself when it is a path. */
    static String pathOf(String url) {
        int scheme = url.indexOf("://");
        if (scheme < 0) return url.split("[?#]", 2)[0];
        String rest = url.substring(scheme + 3);
        int i = 0;
        while (i < rest.length() && "/?#".indexOf(rest.charAt(i)) < 0) i++;
        if (i == rest.length() || rest.charAt(i) != '/') return "/";
        return rest.substring(i).split("[?#]", 2)[0];
    }

    /** SPEC 2.3: one stored condition against the context; a missing value fails. */
    boolean holds(String kind, String value, Map<String, String> ctx) throws SQLException {
        String url = ctx.get("page_url");
        switch (kind) {
            case "starts_with_any", "does_not_start_with_any" -> {
                if (url == null) return false;
                boolean hit = false;
                for (String p : strings("SELECT value FROM json_each(?)", value)) {
                    hit |= p.startsWith("/") ? startsAtBoundary(pathOf(url), p) : startsAtBoundary(url, p);
                }
                return hit == kind.equals("starts_with_any");
            }
            case "page_url_matches", "page_url_not_matches" -> {
                if (url == null) return false;
                boolean hit = Pattern.compile(value).matcher(url).find();
                return hit == kind.equals("page_url_matches");
            }
            case "availability" -> {
                String skill = scalar("SELECT json_extract(?, '$.skill')", value);
                String want = scalar("SELECT json_extract(?, '$.value')", value);
                return want.equals(ctx.get(skill + "_availability"));
            }
            case "turn_at_least" -> {
                String turn = ctx.get("turn");
                return turn != null && Long.parseLong(turn) >= Long.parseLong(value);
            }
            case "context_has" -> {
                String v = ctx.get(value);
                return v != null && !v.isEmpty();
            }
            default -> {
                return true; // conversation_language is decided at build time
            }
        }
    }

    /** The catalog text of a bundle, as `skillc catalog --format <format>` prints it. */
    String catalog(String client, String locale, String tier, String consumer,
                   Map<String, String> ctx, String format) throws SQLException {
        if (locale == null) locale = scalar("SELECT value FROM manifest WHERE key = 'default_locale'");
        if (tier == null) tier = scalar("SELECT value FROM manifest WHERE key = 'default_tier'");
        if (scalar("SELECT id FROM bundle WHERE client = ? AND locale = ? AND tier = ?",
                   client, locale, tier) == null) {
            throw new IllegalArgumentException("no bundle for client `" + client + "`, locale `"
                + locale + "`, tier `" + tier + "`");
        }
        Map<String, String> headers = new HashMap<>();
        try (PreparedStatement st = db.prepareStatement("SELECT id, catalog_header FROM category");
             ResultSet rs = st.executeQuery()) {
            while (rs.next()) headers.put(rs.getString(1), rs.getString(2));
        }
        // JDBC has no named parameters: each `:name` becomes `?`, in order of appearance.
        List<String> names = new ArrayList<>();
        var m = Pattern.compile(":(client|locale|tier|format|consumer)\\b").matcher(CATALOG_SQL);
        while (m.find()) names.add(m.group(1));
        Map<String, String> values = Map.of("client", client, "locale", locale, "tier", tier,
            "format", format, "consumer", consumer == null ? "" : consumer);
        StringBuilder text = new StringBuilder(format.equals("xml") ? "<available_skills>\n" : "");
        String current = null;
        int n = 0;
        try (PreparedStatement st = db.prepareStatement(m.replaceAll("?"))) {
            for (int i = 0; i < names.size(); i++) st.setString(i + 1, values.get(names.get(i)));
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    String conditions = rs.getString("conditions");
                    boolean shown = true;
                    if (conditions != null) {
                        try (PreparedStatement c = db.prepareStatement(CONDITIONS_SQL)) {
                            c.setString(1, conditions);
                            try (ResultSet cs = c.executeQuery()) {
                                while (shown && cs.next()) shown = holds(cs.getString(1), cs.getString(2), ctx);
                            }
                        }
                    }
                    if (!shown) continue;
                    n++; // SK ids count the skills shown, after the conditions
                    String fragment = rs.getString("text") == null ? "" : rs.getString("text");
                    if (format.equals("markdown")) {
                        String category = rs.getString("category");
                        if (!category.equals(current)) {
                            if (current != null) text.append('\n');
                            text.append(headers.getOrDefault(category, ""));
                            current = category;
                        }
                        text.append("| SK").append(n).append(' ');
                    }
                    text.append(fragment);
                }
            }
        }
        if (format.equals("xml")) text.append("</available_skills>");
        return text.toString();
    }

    public static void main(String[] args) throws Exception {
        String client = "", locale = null, tier = null, consumer = null, format = "markdown";
        Map<String, String> ctx = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--client" -> client = v;
                case "--locale" -> locale = v;
                case "--tier" -> tier = v;
                case "--consumer" -> consumer = v;
                case "--format" -> format = v;
                case "--context" -> ctx.put(v.substring(0, v.indexOf('=')), v.substring(v.indexOf('=') + 1));
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        String text = new SkillcCatalog(args[0]).catalog(client, locale, tier, consumer, ctx, format);
        System.out.print(text.endsWith("\n") ? text : text + "\n");
    }
}
