package dev.skillc.runtime;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * One opened version of the artifact file (schema: docs/artifact.md): the manifest,
 * categories and consumers read on open, bundles and texts loaded as requests need them.
 * The connection keeps the file open, so a file renamed over the path later does not change
 * what this snapshot reads.
 */
final class Snapshot implements AutoCloseable {
    /** A text and its token count. */
    record Text(String text, long tokens) {}

    /** A category's texts. */
    record Category(long position, Text catalogHeader, Text promptHeading, Text uncertainty) {}

    /** A row of {@code bundle}. */
    record BundleRow(long id, String client, String locale, String tier, Long base, String level) {}

    /** A source of the pool: its reference, prompt fragment and tokens. */
    record Source(Prompt.SourceRef ref, String fragment, long tokens) {}

    final String path;
    final Connection db;
    final Map<String, String> manifest = new HashMap<>();
    final Map<String, Category> categories = new HashMap<>();
    final Map<String, Set<String>> consumers = new HashMap<>();
    /**
     * How many bundles an artifact keeps loaded unless told otherwise: a process serving many
     * clients would otherwise hold every bundle it ever loaded (about 7.5 MB each with its
     * routing index on the reference workload's 1,000-skill catalogs).
     */
    static final int DEFAULT_MAX_BUNDLES = 64;
    /** How many bundles are kept loaded at most (0: none). */
    int maxBundles = DEFAULT_MAX_BUNDLES;
    /** Loaded bundles in the order of their last use, the least recent first. */
    final Map<Long, Bundle> bundles = new java.util.LinkedHashMap<>(16, 0.75f, true);
    private final Map<List<String>, BundleRow> found = new HashMap<>();
    private Map<Long, Source> sources;
    private Map<String, Object> plugins;
    /** The manifest's {@code routing_rules}, read on the first route ({@link Router.Rules#of}). */
    Router.Rules routingRules;
    private Map<String, Object> external;
    /** The meaning table of the embedding model, once read ({@link #meaning()}); read says whether it was. */
    private Meaning meaning;
    private boolean meaningRead;
    /** The pieces' and pairs' weights towards small talk ({@link #talkWords()}), once read. */
    private TalkWeights talkWords;
    private boolean talkWordsRead;
    /** The small-talk vectors beside the meaning table ({@link #smallTalk()}), once read. */
    private Dense smallTalk;
    private boolean smallTalkRead;
    /** The glossary beside the meaning table ({@link #glossary()}), once read. */
    private byte[] glossary;
    private boolean glossaryRead;

    private Snapshot(String path, Connection db) {
        this.path = path;
        this.db = db;
    }

    /** Throws {@link ArtifactException} unless {@code path} names a regular file. */
    static void requireFile(String path) {
        Path file = Path.of(path);
        if (!Files.exists(file)) throw new ArtifactException("cannot open artifact `" + path + "`: it does not exist");
        if (!Files.isRegularFile(file)) throw new ArtifactException("cannot open artifact `" + path + "`: it is not a file");
    }

    /** Opens the file at {@code path}, read-only, and reads what every answer needs. */
    static Snapshot open(String path) {
        requireFile(path);
        return open(path, path);
    }

    /** Opens {@code file} (the artifact at {@code path}, or a copy of it), read-only. */
    static Snapshot open(String file, String path) {
        Properties readOnly = new Properties();
        readOnly.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY
        Connection db;
        try {
            db = DriverManager.getConnection("jdbc:sqlite:" + file, readOnly);
        } catch (SQLException e) {
            throw new ArtifactException("cannot open artifact `" + path + "`: " + e.getMessage());
        }
        Snapshot s = new Snapshot(path, db);
        try {
            s.readHead();
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private ArtifactException bad(String why) {
        return new ArtifactException("`" + path + "` is not a readable skillc artifact: " + why);
    }

    private void readHead() {
        long version;
        Set<String> tables = new HashSet<>();
        try {
            version = ((Number) rows("PRAGMA user_version").get(0)[0]).longValue();
            for (Object[] r : rows("SELECT name FROM sqlite_schema WHERE type = 'table'")) tables.add((String) r[0]);
        } catch (RuntimeException e) {
            throw bad(e.getMessage());
        }
        if (!tables.contains("manifest")) throw bad("it has no manifest table (not built by skillc)");
        if (version != Artifact.SCHEMA_VERSION) {
            throw new ArtifactException("`" + path + "` has schema version " + version + "; this runtime reads version "
                + Artifact.SCHEMA_VERSION + " (rebuild it with a matching skillc)");
        }
        for (Object[] r : rows("SELECT key, value FROM manifest")) manifest.put(str(r[0]), str(r[1]));
        // Every answer reads these: an artifact without them is damaged, not a bad request.
        for (String key : List.of("schema_version", "default_locale", "default_tier", "locales", "tiers")) {
            if (!manifest.containsKey(key)) throw bad("its manifest has no `" + key + "` (the file is damaged)");
        }
        for (Object[] r : rows("SELECT id, position, catalog_header, catalog_header_tokens, prompt_heading, "
                + "prompt_heading_tokens, uncertainty, uncertainty_tokens FROM category")) {
            categories.put(str(r[0]), new Category(num(r[1]), new Text(str(r[2]), num(r[3])),
                new Text(str(r[4]), num(r[5])), new Text(str(r[6]), num(r[7]))));
        }
        for (Object[] r : rows("SELECT name FROM consumer")) consumers.put(str(r[0]), new HashSet<>());
        for (Object[] r : rows("SELECT consumer, qualified_name FROM consumer_hidden")) {
            consumers.computeIfAbsent(str(r[0]), k -> new HashSet<>()).add(str(r[1]));
        }
    }

    @Override
    public void close() {
        try {
            db.close();
        } catch (SQLException e) {
            // closing a read-only connection loses nothing
        }
    }

    /** The rows of a query, each as an array of column values. */
    List<Object[]> rows(String sql, Object... params) {
        try (PreparedStatement st = db.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) st.setObject(i + 1, params[i]);
            try (ResultSet rs = st.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                List<Object[]> out = new ArrayList<>();
                while (rs.next()) {
                    Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) row[i] = rs.getObject(i + 1);
                    out.add(row);
                }
                return out;
            }
        } catch (SQLException e) {
            throw bad(e.getMessage());
        }
    }

    static String str(Object v) {
        return v == null ? null : v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
    }

    static long num(Object v) {
        return v == null ? 0 : ((Number) v).longValue();
    }

    String defaultLocale() {
        return manifest.getOrDefault("default_locale", "");
    }

    String defaultTier() {
        return manifest.getOrDefault("default_tier", "");
    }

    /** The qualified names a consumer's catalogs leave out; null for no consumer. */
    Set<String> hiddenFor(String consumer) {
        if (consumer == null) return null;
        Set<String> hidden = consumers.get(consumer);
        if (hidden != null) return hidden;
        if (consumers.isEmpty()) {
            throw new RequestException("unknown consumer `" + consumer + "`: this artifact declares no consumers");
        }
        throw new RequestException("unknown consumer `" + consumer + "`; consumers: "
            + String.join(", ", new TreeSet<>(consumers.keySet())));
    }

    private static BundleRow bundleRow(Object[] r) {
        return new BundleRow(num(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4] == null ? null : num(r[4]), str(r[5]));
    }

    /** The bundle's row, or the request error naming what exists. */
    BundleRow findBundle(String client, String locale, String tier) {
        List<String> key = List.of(client, locale, tier);
        BundleRow cached = found.get(key);
        if (cached != null) return cached;
        String columns = "SELECT id, client, locale, tier, base, catalog_level FROM bundle";
        List<Object[]> hit = rows(columns + " WHERE client = ? AND locale = ? AND tier = ?", client, locale, tier);
        if (!hit.isEmpty()) {
            BundleRow row = bundleRow(hit.get(0));
            found.put(key, row);
            return row;
        }
        List<BundleRow> ofClient = new ArrayList<>();
        TreeSet<String> clients = new TreeSet<>();
        for (Object[] r : rows(columns + " ORDER BY id")) {
            BundleRow b = bundleRow(r);
            if (b.client().equals(client)) ofClient.add(b);
            if (!b.client().isEmpty()) clients.add(b.client());
        }
        if (ofClient.isEmpty()) {
            throw new RequestException("unknown client `" + client + "`; " + nameClients(client, clients));
        }
        String who = client.isEmpty() ? "the global bundle" : "client `" + client + "`";
        TreeSet<String> locales = new TreeSet<>();
        TreeSet<String> tiers = new TreeSet<>();
        for (BundleRow b : ofClient) {
            locales.add(b.locale());
            tiers.add(b.tier());
        }
        if (!locales.contains(locale)) {
            throw new RequestException("no bundle for locale `" + locale + "` of " + who + "; its locales: "
                + String.join(", ", locales));
        }
        throw new RequestException("no bundle for tier `" + tier + "` of " + who + "; its tiers: "
            + String.join(", ", tiers));
    }

    /** The names a bundle's slots leave out with a {@code disabled: ...} reason (stored {@code code: words}). */
    private Set<String> disabledNames(Map<Object, List<Object>> slots) {
        Set<String> disabled = new HashSet<>();
        for (Map.Entry<Object, List<Object>> e : slots.entrySet()) {
            List<Object> slot = e.getValue();
            if (slot.isEmpty() || slot.get(0) != null || slot.size() < 2) continue;
            String text = str(rows("SELECT text FROM reason WHERE id = ?", slot.get(1)).get(0)[0]);
            if (!text.startsWith("disabled: ")) continue;
            String q = str(rows("SELECT qualified_name FROM name WHERE id = ?", e.getKey()).get(0)[0]);
            disabled.add(q);
            disabled.add(q.substring(q.lastIndexOf('.') + 1));
        }
        return disabled;
    }

    private static final String SKILLS_SQL = """
        SELECT e.name, e.qualified_name, e.resolved_name, e.category, e.sort_key,
               e.catalog_visible, e.always_on, e.unavailable, e.prompt_prefix, e.prompt_body,
               e.prompt_suffix, e.prompt_tokens, e.record, c.description, c.triggers, e.body, e.card,
               e.id
        FROM entry e JOIN card c ON c.id = e.card
        WHERE e.id IN (SELECT value FROM json_each(?))""";

    /** Lets go of the least recently used bundles beyond {@link #maxBundles}. */
    void trim() {
        var oldest = bundles.keySet().iterator();
        while (bundles.size() > Math.max(maxBundles, 0)) {
            oldest.next();
            oldest.remove();
        }
    }

    /** A bundle, loaded once while it is kept: its own slots over its base's, the entries they name. */
    @SuppressWarnings("unchecked")
    Bundle bundle(BundleRow info) {
        Bundle loaded = bundles.get(info.id()); // marks it the most recently used
        if (loaded != null) return loaded;
        Map<Object, List<Object>> slots = new HashMap<>();
        for (Long id : info.base() == null ? List.of(info.id()) : List.of(info.base(), info.id())) {
            String packed = str(rows("SELECT l.slots FROM bundle b JOIN slot_list l ON l.id = b.slots WHERE b.id = ?", id)
                .get(0)[0]);
            for (Object slot : (List<Object>) Json.parse(packed)) {
                List<Object> s = (List<Object>) slot;
                slots.put(s.get(0), s.subList(1, s.size()));
            }
        }
        List<Object> wanted = new ArrayList<>();
        // `[name, entry, 1]`: the bundle also finds the entry by its plain name (the build decided).
        Set<Long> plain = new HashSet<>();
        for (List<Object> s : slots.values()) {
            if (!s.isEmpty() && s.get(0) != null) wanted.add(s.get(0));
            if (s.size() > 1 && s.get(0) != null && num(s.get(1)) == 1) plain.add(num(s.get(0)));
        }
        Set<String> disabled = disabledNames(slots);
        List<Map.Entry<String, Entry>> sorted = new ArrayList<>();
        for (Object[] r : rows(SKILLS_SQL, Json.compact(wanted))) {
            Entry s = new Entry();
            s.name = str(r[0]);
            s.qualifiedName = str(r[1]);
            s.resolvedName = str(r[2]);
            s.category = str(r[3]);
            s.catalogVisible = num(r[5]) != 0;
            s.alwaysOn = num(r[6]) != 0;
            s.unavailable = str(r[7]);
            s.promptPrefix = str(r[8]);
            s.promptBody = num(r[9]) != 0;
            s.promptSuffix = str(r[10]);
            s.promptTokens = num(r[11]);
            s.rawRecord = str(r[12]);
            s.description = str(r[13]);
            s.triggers = new ArrayList<>();
            for (Object t : (List<Object>) Json.parse(str(r[14]))) s.triggers.add(str(t));
            s.bodyHash = r[15] instanceof byte[] hash ? hash : new byte[0];
            s.card = num(r[16]);
            s.plain = plain.contains(num(r[17]));
            sorted.add(Map.entry(str(r[4]), s));
        }
        sorted.sort((x, y) -> byCodePoints(x.getKey(), y.getKey()));
        List<Entry> list = new ArrayList<>();
        for (Map.Entry<String, Entry> e : sorted) list.add(e.getValue());
        Map<String, Integer> byQualified = new HashMap<>();
        for (int i = 0; i < list.size(); i++) byQualified.put(list.get(i).qualifiedName, i);
        Map<String, Integer> byName = new HashMap<>(byQualified);
        for (int i = 0; i < list.size(); i++) byName.putIfAbsent(list.get(i).name, i);
        for (int i = 0; i < list.size(); i++) {
            Entry s = list.get(i);
            if (s.plain) byName.put(s.name.substring(s.name.indexOf(':') + 1), i);
        }
        Bundle b = new Bundle(info, list, byName, byQualified, disabled);
        bundles.put(info.id(), b);
        trim();
        return b;
    }

    /** Strings in code point order, as Rust compares them. */
    static int byCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) return Integer.compare(x, y);
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    /** A bundle's catalog texts in one stored format, at its budget level (else the full text). */
    Map<Long, Text> cardTexts(Bundle b, String format) {
        Map<Long, Text> cached = b.fragments.get(format);
        if (cached != null) return cached;
        Map<Long, Text> texts = new HashMap<>();
        TreeSet<Long> cards = new TreeSet<>();
        for (Entry s : b.skills) cards.add(s.card);
        for (Object[] r : rows("SELECT f.card, f.level, f.text, f.tokens FROM card_fragment f "
                + "WHERE f.format = ? AND f.level IN ('', ?) AND f.card IN (SELECT value FROM json_each(?))",
                format, b.level, Json.compact(new ArrayList<>(cards)))) {
            long card = num(r[0]);
            if (str(r[1]).equals(b.level) || !texts.containsKey(card)) texts.put(card, new Text(str(r[2]), num(r[3])));
        }
        b.fragments.put(format, texts);
        return texts;
    }

    /** A skill's run-time fields, parsed on first use. */
    Map<String, Object> record(Entry s) {
        if (s.record == null) s.record = Json.object(s.rawRecord);
        return s.record;
    }

    /** A list of strings of a skill's record ({@code dependencies}, {@code blocks}, ...). */
    List<String> names(Entry s, String key) {
        Object v = record(s).get(key);
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            for (Object x : l) out.add(str(x));
        }
        return out;
    }

    /** Whether every run-time condition of a skill holds (records without any are not parsed). */
    @SuppressWarnings("unchecked")
    boolean conditionsHold(Entry s, Context ctx) {
        if (s.conditions == null) {
            s.conditions = new ArrayList<>();
            if (s.rawRecord.contains("\"conditions\"") && record(s).get("conditions") instanceof List<?> l) {
                for (Object c : l) {
                    s.conditions.add(c instanceof Map ? Context.compile((Map<String, Object>) c) : ctx2 -> false);
                }
            }
        }
        for (Predicate<Context> c : s.conditions) {
            if (!c.test(ctx)) return false;
        }
        return true;
    }

    /** A skill's body, read and inflated on first use. */
    String body(Entry s) {
        if (s.body != null) return s.body;
        List<Object[]> found = rows("SELECT encoding, data FROM blob WHERE hash = ?", s.bodyHash);
        if (found.isEmpty()) throw bad("the body of `" + s.name + "` is missing");
        String encoding = str(found.get(0)[0]);
        byte[] data = (byte[]) found.get(0)[1];
        if (encoding.equals("zlib")) {
            data = inflate(data);
        } else if (!encoding.equals("identity")) {
            throw bad("unknown blob encoding `" + encoding + "`");
        }
        s.body = new String(data, StandardCharsets.UTF_8);
        return s.body;
    }

    private byte[] inflate(byte[] data) {
        Inflater inflater = new Inflater();
        inflater.setInput(data);
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length * 3);
        byte[] buffer = new byte[8192];
        try {
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) throw bad("a body is cut short");
                out.write(buffer, 0, n);
            }
        } catch (DataFormatException e) {
            throw bad("a body does not inflate: " + e.getMessage());
        } finally {
            inflater.end();
        }
        return out.toByteArray();
    }

    /** The sources pool: sid to its reference, prompt fragment and tokens. */
    Map<Long, Source> sourcePool() {
        if (sources == null) {
            sources = new HashMap<>();
            for (Object[] r : rows("SELECT sid, url, title, fragment, tokens FROM source")) {
                sources.put(num(r[0]), new Source(new Prompt.SourceRef(num(r[0]), str(r[1]), str(r[2])), str(r[3]), num(r[4])));
            }
        }
        return sources;
    }

    /**
     * The meaning table of the artifact's embedding model when the artifact carries it (the
     * built-in model; a model of the workspace's own comes with the caller's query vectors
     * instead), else null. Read once, on the first route that needs it: a snapshot is one file,
     * so a new file at the path gets its own.
     */
    Meaning meaning() {
        if (meaningRead) return meaning;
        String model = manifest.get("embedding_model");
        if (model != null && !rows("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meaning'").isEmpty()) {
            List<Object[]> row = rows("SELECT data FROM meaning WHERE name = ?", model);
            if (!row.isEmpty()) {
                if (!(row.get(0)[0] instanceof byte[] data)) throw bad("its meaning table is not a blob");
                try {
                    meaning = Meaning.parse(data);
                } catch (Meaning.Malformed e) {
                    throw bad("its meaning table: " + e.getMessage());
                }
            }
        }
        meaningRead = true;
        return meaning;
    }

    /**
     * The small-talk vectors written beside the built-in meaning table (docs/routing.md, "Small
     * talk"), as one document of them all; null without them. Read once.
     */
    Dense smallTalk() {
        if (smallTalkRead) return smallTalk;
        String model = manifest.get("embedding_model");
        int dims = Integer.parseInt(manifest.getOrDefault("embedding_dims", "0"));
        if (model != null && dims > 0 && meaning() != null) {
            List<Object[]> row = rows("SELECT data FROM meaning WHERE name = ?", model + ":small-talk");
            if (!row.isEmpty() && (!(row.get(0)[0] instanceof byte[] bytes) || bytes.length == 0 || bytes.length % dims != 0)) {
                int n = row.get(0)[0] instanceof byte[] b ? b.length : 0;
                throw bad("its small-talk vectors are " + n + " bytes, not vectors of " + dims + " numbers");
            }
            if (!row.isEmpty() && row.get(0)[0] instanceof byte[] data) {
                List<double[]> vectors = new ArrayList<>();
                for (int at = 0; at < data.length; at += dims) {
                    double[] v = new double[dims];
                    for (int i = 0; i < dims; i++) v[i] = data[at + i];
                    vectors.add(v);
                }
                smallTalk = Dense.of(List.of(vectors));
            }
        }
        smallTalkRead = true;
        return smallTalk;
    }

    /**
     * The weights towards small talk (thousandths) of the meaning table's pieces and of pairs of
     * neighbouring pieces, written beside the built-in meaning table (docs/routing.md, "Small
     * talk"): a 16-bit number a piece; for n pairs, their n keys (rising, little-endian u32s) then
     * their n weights (i16s). Null without them. Read once.
     */
    TalkWeights talkWords() {
        if (talkWordsRead) return talkWords;
        String model = manifest.get("embedding_model");
        if (model != null) {
            List<Object[]> row = rows("SELECT data FROM meaning WHERE name = ?", model + ":small-talk-words");
            if (!row.isEmpty()) {
                byte[] data = row.get(0)[0] instanceof byte[] b ? b : new byte[0];
                if (data.length % 2 != 0) {
                    throw bad("its small-talk word weights are " + data.length + " bytes, not 16-bit numbers");
                }
                short[] weights = new short[data.length / 2];
                java.nio.ByteBuffer.wrap(data).order(java.nio.ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(weights);
                List<Object[]> pairRow = rows("SELECT data FROM meaning WHERE name = ?", model + ":small-talk-pairs");
                long[] keys = null;
                short[] pairWeights = null;
                if (!pairRow.isEmpty()) {
                    byte[] pairs = pairRow.get(0)[0] instanceof byte[] b ? b : new byte[0];
                    if (pairs.length % 6 != 0) {
                        throw bad("its small-talk pair weights are " + pairs.length + " bytes, not pairs of 6");
                    }
                    java.nio.ByteBuffer at = java.nio.ByteBuffer.wrap(pairs).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    keys = new long[pairs.length / 6];
                    pairWeights = new short[keys.length];
                    for (int k = 0; k < keys.length; k++) {
                        keys[k] = Integer.toUnsignedLong(at.getInt(4 * k));
                        pairWeights[k] = at.getShort(4 * keys.length + 2 * k);
                        if (k > 0 && keys[k] <= keys[k - 1]) {
                            throw bad("its small-talk pair weights are not in rising order");
                        }
                    }
                }
                talkWords = new TalkWeights(weights, keys, pairWeights);
            }
        }
        talkWordsRead = true;
        return talkWords;
    }

    /**
     * The glossary beside the built-in meaning table (its bytes, looked up where they lie:
     * {@link Glossary#lookUp}; docs/routing.md, "Words of other languages"); null without one.
     * Read once.
     */
    byte[] glossary() {
        if (glossaryRead) return glossary;
        String model = manifest.get("embedding_model");
        if (model != null && meaning() != null) {
            List<Object[]> row = rows("SELECT data FROM meaning WHERE name = ?", model + ":glossary");
            if (!row.isEmpty()) glossary = row.get(0)[0] instanceof byte[] b ? b : new byte[0];
        }
        glossaryRead = true;
        return glossary;
    }

    /** The manifest's {@code plugins} (a JSON object), read once. */
    Map<String, Object> plugins() {
        if (plugins == null) plugins = Json.object(manifest.get("plugins"));
        return plugins;
    }

    /** The manifest's {@code external} (a JSON object), read once. */
    Map<String, Object> external() {
        if (external == null) external = Json.object(manifest.get("external"));
        return external;
    }

    /** The most clients an error names (a workspace of 500 clients named them all, 10 KB). */
    static final int CLIENTS_NAMED = 20;

    /**
     * The clients an error about {@code asked} names: all of them, or past {@link #CLIENTS_NAMED}
     * the nearest to {@code asked} by edit distance (then by name), in name order, and how many
     * there are (the Rust runtime's {@code name_clients}).
     */
    static String nameClients(String asked, TreeSet<String> clients) {
        if (clients.size() <= CLIENTS_NAMED) return "clients: " + String.join(", ", clients);
        List<String> byDistance = new ArrayList<>(clients);
        Map<String, Integer> distance = new HashMap<>();
        for (String c : clients) distance.put(c, editDistance(asked, c));
        byDistance.sort((x, y) -> {
            int d = Integer.compare(distance.get(x), distance.get(y));
            return d != 0 ? d : x.compareTo(y);
        });
        TreeSet<String> nearest = new TreeSet<>(byDistance.subList(0, CLIENTS_NAMED));
        return "clients (the " + CLIENTS_NAMED + " nearest of " + clients.size() + "): " + String.join(", ", nearest);
    }

    /** Levenshtein's distance between {@code a} and {@code b}, by characters (code points). */
    static int editDistance(String a, String b) {
        int[] bs = b.codePoints().toArray();
        int[] row = new int[bs.length + 1];
        for (int j = 0; j <= bs.length; j++) row[j] = j;
        int i = 0;
        for (int ca : a.codePoints().toArray()) {
            int diagonal = row[0];
            row[0] = ++i;
            for (int j = 0; j < bs.length; j++) {
                int substituted = diagonal + (ca == bs[j] ? 0 : 1);
                diagonal = row[j + 1];
                row[j + 1] = Math.min(substituted, Math.min(row[j] + 1, diagonal + 1));
            }
        }
        return row[bs.length];
    }
}
