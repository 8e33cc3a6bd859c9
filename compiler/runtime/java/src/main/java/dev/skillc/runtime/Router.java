package dev.skillc.runtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Routing a message to the skills of a catalog (docs/routing.md): the same words, scores and
 * order as the Rust runtime's {@code route} (compiler/runtime/src/route/); the parity run
 * compares them on every request.
 */
final class Router {
    private Router() {}

    /**
     * Routing's words and constants as the build wrote them (manifest {@code routing_rules},
     * docs/artifact.md): this runtime holds no copy of them. {@code num} reads a constant
     * ({@code k1}, {@code lexical_share}, ...); {@code defaults} are the settings a workspace leaves unset.
     */
    record Rules(Set<String> stopwords, List<String> suffixes, Map<String, Object> all) {
        double num(String key) {
            return number(all.get(key), 0);
        }

        /** The artifact's rules; an artifact built before the build wrote them cannot be routed. */
        @SuppressWarnings("unchecked")
        static Rules of(Snapshot snap) {
            if (snap.routingRules != null) return snap.routingRules;
            String text = snap.manifest.get("routing_rules");
            if (text == null) {
                throw new ArtifactException(snap.path + " cannot be routed: its manifest has no `routing_rules` (it "
                    + "was built by a skillc older than this runtime); build it again");
            }
            Map<String, Object> r = Json.object(text);
            if (r.get("spelling") instanceof Map<?, ?> spelling) {
                double min = number(spelling.get("min_letters"), 0);
                double max = number(spelling.get("max_letters"), 0);
                if (min < 1 || max > MAX_LETTERS) {
                    throw new ArtifactException("`" + snap.path + "` is not a readable skillc artifact: its `routing_rules` read words of "
                        + (long) min + " to " + (long) max + " letters as their neighbours (1 to " + MAX_LETTERS + ")");
                }
            }
            snap.routingRules = new Rules(Set.copyOf((List<String>) r.get("stopwords")),
                List.copyOf((List<String>) r.get("suffixes")), r);
            return snap.routingRules;
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> defaults() {
            return (Map<String, Object>) all.get("defaults");
        }

        /** The lengths of the unknown words read as their nearest known word, or null (an
         * artifact built before it reads every word as written). */
        int[] spelling() {
            if (!(all.get("spelling") instanceof Map<?, ?> s)) return null;
            return new int[] {(int) number(s.get("min_letters"), 0), (int) number(s.get("max_letters"), 0)};
        }
    }

    /** The longest word an artifact's rules may ask to read as a neighbour (Rust's {@code MAX_LETTERS}). */
    private static final int MAX_LETTERS = 64;

    /** Whether an indexed word no skill holds is read as its nearest known word: {@code spelling} letters a–z. */
    private static boolean spellingApplies(String word, int[] spelling) {
        return word.length() >= spelling[0] && word.length() <= spelling[1] && word.chars().allMatch(c -> c >= 'a' && c <= 'z');
    }

    /**
     * The known word one edit from {@code word} (a letter deleted, inserted or changed, or two
     * neighbouring letters swapped, letters a–z): of several, the one whose counts sum highest in
     * the catalog, then the one more skills hold, then the first in code-point order; null for none.
     */
    private static String nearestKnown(String word, Index ix) {
        String best = null;
        long bestWeight = 0;
        int bestSkills = 0;
        for (String candidate : oneEdit(word)) {
            Integer id = ix.ids().get(candidate);
            if (id == null) continue;
            Postings holders = ix.postings().get(id);
            long weight = holders.weight();
            int skills = holders.size;
            if (best == null || weight > bestWeight || (weight == bestWeight && (skills > bestSkills
                    || (skills == bestSkills && candidate.compareTo(best) < 0)))) {
                best = candidate;
                bestWeight = weight;
                bestSkills = skills;
            }
        }
        return best;
    }

    /**
     * Each word one edit from {@code word} (letters a–z): a letter deleted, two neighbouring
     * letters swapped, a letter changed or one inserted (Rust's {@code spelling::one_edit}).
     */
    private static List<String> oneEdit(String word) {
        List<String> edits = new ArrayList<>();
        for (int i = 0; i <= word.length(); i++) {
            String head = word.substring(0, i);
            String tail = word.substring(i);
            if (!tail.isEmpty()) {
                edits.add(head + tail.substring(1));
                if (tail.length() > 1) edits.add(head + tail.charAt(1) + tail.charAt(0) + tail.substring(2));
                for (char c = 'a'; c <= 'z'; c++) if (c != tail.charAt(0)) edits.add(head + c + tail.substring(1));
            }
            for (char c = 'a'; c <= 'z'; c++) edits.add(head + c + tail);
        }
        return edits;
    }

    /**
     * The text a message's meaning vector is made of when it is not {@code text} (Rust's
     * {@code Meaning::spelt}): {@code text} lowercased, each misspelt word read as the route's
     * words read it. A word of letters a–z that the rules' spelling applies to, that is no whole
     * piece of the table, and whose one routing word it applies to too (at most
     * {@code max_words} such words), unless the index holds it: when the catalog's nearest known
     * word of that routing word is found, the word is replaced by the whole piece one edit from
     * it read as that same word with the lowest row number. Null when no word is replaced, or
     * the artifact's rules do not ask it.
     */
    static String speltForMeaning(Meaning meaning, String text, Index ix, Rules rules) {
        int[] spelling = rules.spelling();
        if (spelling == null || !Boolean.TRUE.equals(rules.all().get("meaning_spelling"))) return null;
        int maxTried = (int) rules.num("max_words");
        int[] tried = {0};
        boolean[] replaced = {false};
        String spelt = eachWord(lowercase(text), (word, out) -> {
            String known = null;
            if (tried[0] < maxTried && spellingApplies(word, spelling) && meaning.row(word) == null) {
                List<String> found = tokens(word, rules);
                if (found.size() == 1 && spellingApplies(found.get(0), spelling)) {
                    tried[0]++;
                    String near = ix.ids().containsKey(found.get(0)) ? null : nearestKnown(found.get(0), ix);
                    int bestRow = Integer.MAX_VALUE;
                    if (near != null) {
                        for (String edit : oneEdit(word)) {
                            Integer row = meaning.row(edit);
                            if (row == null || row >= bestRow || !tokens(edit, rules).equals(List.of(near))) continue;
                            bestRow = row;
                            known = edit;
                        }
                    }
                }
            }
            replaced[0] |= known != null;
            out.append(known != null ? known : word);
        });
        return replaced[0] ? spelt : null;
    }

    /**
     * {@code lower} with each run of word characters ({@link #wordChar}) given to {@code word},
     * which appends what stands for it; what lies between the runs is copied as it is.
     */
    static String eachWord(String lower, java.util.function.BiConsumer<String, StringBuilder> word) {
        StringBuilder out = new StringBuilder(lower.length() + 16);
        int i = 0;
        while (i < lower.length()) {
            int start = i;
            while (i < lower.length() && wordChar(lower.codePointAt(i))) i += Character.charCount(lower.codePointAt(i));
            if (i == start) {
                int c = lower.codePointAt(i);
                out.appendCodePoint(c);
                i += Character.charCount(c);
                continue;
            }
            word.accept(lower.substring(start, i), out);
        }
        return out.toString();
    }

    /** The words of a bundle's shown skills: word ids, postings (document, count), documents (skill, length). */
    record Index(Map<String, Integer> ids, List<Postings> postings, List<long[]> docs, double avg) {}

    /** A word's documents and its weighted count in each, side by side: two growing arrays
     * rather than an array a posting (a catalog's bodies give it hundreds of thousands). */
    static final class Postings {
        int[] docs = new int[2];
        int[] counts = new int[2];
        int size;

        void add(int doc, int count) {
            if (size == docs.length) {
                docs = Arrays.copyOf(docs, 2 * size);
                counts = Arrays.copyOf(counts, 2 * size);
            }
            docs[size] = doc;
            counts[size++] = count;
        }

        /** Its counts summed: which of an unknown word's neighbours it is read as. */
        long weight() {
            long sum = 0;
            for (int i = 0; i < size; i++) sum += counts[i];
            return sum;
        }
    }

    /**
     * The word characters' ranges, first and last code points in order: Rust's
     * {@code char::is_alphanumeric} ({@link WordChars}), not this JDK's Unicode version (Java 17's
     * 13.0 does not count the combining Latin letters as alphabetic, Rust's 17.0 does).
     */
    private static final int[][] WORD_RANGES = ranges(WordChars.RANGES);
    /** The marks' ranges alike (General_Category Mn and Mc, less the variation selectors). */
    private static final int[][] MARK_RANGES = ranges(WordChars.MARKS);

    private static int[][] ranges(String ranges) {
        String[] items = ranges.trim().split(" ");
        int[][] out = new int[2][items.length];
        for (int k = 0; k < items.length; k++) {
            int dash = items[k].indexOf('-');
            out[0][k] = Integer.parseInt(dash < 0 ? items[k] : items[k].substring(0, dash), 16);
            out[1][k] = Integer.parseInt(items[k].substring(dash + 1), 16);
        }
        return out;
    }

    static boolean wordChar(int c) {
        return within(WORD_RANGES, c);
    }

    /**
     * A mark that belongs to the letter before it (the Rust runtime's {@code mark}): inside a
     * word, and left out of the meaning's pieces when the table has no piece for it.
     */
    static boolean mark(int c) {
        return within(MARK_RANGES, c);
    }

    private static boolean within(int[][] ranges, int c) {
        int k = Arrays.binarySearch(ranges[0], c);
        if (k < 0) k = -k - 2;
        return k >= 0 && c <= ranges[1][k];
    }

    /** The word-break characters Unicode counts as case-ignorable besides the mark, format and modifier categories. */
    private static final String CASE_IGNORABLE_PUNCTUATION =
        "'.:\u00b7\u0387\u055f\u05f4\u2018\u2019\u2024\u2027\ufe13\ufe52\ufe55\uff07\uff0e\uff1a";

    private static boolean caseIgnorable(int c) {
        int type = Character.getType(c);
        return type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || type == Character.FORMAT
            || type == Character.MODIFIER_LETTER || type == Character.MODIFIER_SYMBOL
            || CASE_IGNORABLE_PUNCTUATION.indexOf(c) >= 0;
    }

    private static boolean cased(int c) {
        return Character.isLowerCase(c) || Character.isUpperCase(c) || Character.isTitleCase(c);
    }

    /** Whether the first character at or after {@code i} (going back when {@code step} is -1) that is not case-ignorable is cased. */
    private static boolean casedBeyondIgnorable(String text, int i, int step) {
        while (step < 0 ? i > 0 : i < text.length()) {
            int c = step < 0 ? text.codePointBefore(i) : text.codePointAt(i);
            if (!caseIgnorable(c)) return cased(c);
            i += step * Character.charCount(c);
        }
        return false;
    }

    /**
     * A text lowercased as Rust's {@code str::to_lowercase} does (the cards' words were): the root
     * locale's mappings, and a capital sigma final ({@code ς}) by Unicode's Final_Sigma rule, a cased
     * letter before it and none after, across case-ignorable characters. Java's own rule asks for a
     * word boundary instead: {@code ΑΣ..Β} would give {@code ας}, where Rust, Python and JavaScript give
     * {@code ασ}. Outside Lithuanian, Turkish and Azeri the sigma is the only mapping that looks
     * around, so the stretches between sigmas lowercase alone.
     */
    static String lowercase(String text) {
        int sigma = text.indexOf('\u03a3');
        if (sigma < 0) return text.toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(text.length());
        int from = 0;
        for (; sigma >= 0; sigma = text.indexOf('\u03a3', from)) {
            out.append(text.substring(from, sigma).toLowerCase(Locale.ROOT));
            boolean last = casedBeyondIgnorable(text, sigma, -1) && !casedBeyondIgnorable(text, sigma + 1, 1);
            out.append(last ? '\u03c2' : '\u03c3');
            from = sigma + 1;
        }
        return out.append(text.substring(from).toLowerCase(Locale.ROOT)).toString();
    }

    /**
     * A text's words as the routing index holds them: lowercased, split at every character that
     * is not a letter or a digit, stopwords and lone Latin letters out, a final {@code s} dropped
     * from words of four letters or more (not after {@code s}, {@code u} or {@code i}); a run of
     * an unspaced script becomes its pairs of characters.
     */
    static List<String> tokens(String text, Rules rules) {
        List<String> out = new ArrayList<>();
        for (String word : words(lowercase(text))) {
            int at = 0;
            while (at < word.length()) {
                boolean spaced = !unspaced(word.codePointAt(at));
                int end = at;
                while (end < word.length() && unspaced(word.codePointAt(end)) != spaced) {
                    end += Character.charCount(word.codePointAt(end));
                }
                if (spaced) spacedWord(word.substring(at, end), rules, out);
                else pairs(word.substring(at, end), out);
                at = end;
            }
        }
        return out;
    }

    /** The runs of word characters of a (lowercased) text. */
    private static List<String> words(String lower) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < lower.length()) {
            int start = i;
            while (i < lower.length() && wordChar(lower.codePointAt(i))) i += Character.charCount(lower.codePointAt(i));
            if (i == start) {
                i += Character.charCount(lower.codePointAt(i));
                continue;
            }
            out.add(lower.substring(start, i));
        }
        return out;
    }

    /**
     * The words two neighbouring words of a text make written together ({@code google tasks} gives
     * {@code googletask}), where the two are of spaced scripts, of two characters or more each, and
     * together make one word ({@link #tokens}); in the text's order.
     */
    static List<String> joined(String text, Rules rules) {
        List<String> words = words(lowercase(text));
        List<String> out = new ArrayList<>();
        for (int k = 0; k + 1 < words.size(); k++) {
            String a = words.get(k), b = words.get(k + 1);
            if (a.codePointCount(0, a.length()) < 2 || b.codePointCount(0, b.length()) < 2) continue;
            if ((a + b).codePoints().anyMatch(Router::unspaced)) continue;
            List<String> one = tokens(a + b, rules);
            if (one.size() == 1) out.add(one.get(0));
        }
        return out;
    }

    /** A spaced word: stopwords and lone Latin letters out, a final {@code s} dropped. */
    private static void spacedWord(String w, Rules rules, List<String> out) {
        if ((w.length() == 1 && w.charAt(0) >= 'a' && w.charAt(0) <= 'z') || rules.stopwords().contains(w)) return;
        if (w.codePointCount(0, w.length()) >= 4 && w.endsWith("s")) {
            String rest = w.substring(0, w.length() - 1);
            if (!rest.endsWith("s") && !rest.endsWith("u") && !rest.endsWith("i")) w = rest;
        }
        out.add(suffixStem(w, rules.suffixes()));
    }

    /**
     * The first of {@code suffixes} ending a word of five ASCII letters or more, taken off when a stem of three
     * letters or more with a vowel stays; {@code ied}/{@code ies}/{@code ie} become {@code y}; a doubled final
     * consonant other than l, s, z is undoubled.
     */
    private static String suffixStem(String w, List<String> suffixes) {
        if (w.length() < 5 || !w.chars().allMatch(c -> c >= 'a' && c <= 'z')) return w;
        String suffix = null;
        for (String x : suffixes) {
            if (w.endsWith(x)) {
                suffix = x;
                break;
            }
        }
        if (suffix == null) return w;
        String rest = w.substring(0, w.length() - suffix.length());
        if (rest.length() < 3 || rest.chars().noneMatch(c -> "aeiouy".indexOf(c) >= 0)) return w;
        if (suffix.equals("ied") || suffix.equals("ies") || suffix.equals("ie")) rest += "y";
        char last = rest.charAt(rest.length() - 1);
        if (rest.length() > 3 && last == rest.charAt(rest.length() - 2) && "aeiouylsz".indexOf(last) < 0) {
            rest = rest.substring(0, rest.length() - 1);
        }
        return rest;
    }

    /** Scripts written without spaces (docs/routing.md): the Rust runtime's {@code UNSPACED}. */
    private static final int[][] UNSPACED = {
        {0x0E00, 0x0EFF}, {0x1000, 0x109F}, {0x1780, 0x17FF}, {0x3040, 0x30FF}, {0x31F0, 0x31FF},
        {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xF900, 0xFAFF}, {0xFF66, 0xFF9F}, {0x20000, 0x323AF},
    };

    static boolean unspaced(int c) {
        for (int[] r : UNSPACED) if (c >= r[0] && c <= r[1]) return true;
        return false;
    }

    /** A run of an unspaced script: its overlapping pairs of characters, a lone one itself. */
    private static void pairs(String run, List<String> out) {
        int[] cps = run.codePoints().toArray();
        if (cps.length == 1) out.add(run);
        for (int j = 0; j + 1 < cps.length; j++) out.add(new String(cps, j, 2));
    }

    private static Index indexOf(Snapshot snap, Bundle b) {
        if (b.routeIndex != null) return b.routeIndex;
        List<long[]> shown = new ArrayList<>();
        TreeSet<Long> cards = new TreeSet<>();
        for (int i = 0; i < b.skills.size(); i++) {
            Entry s = b.skills.get(i);
            if (s.catalogVisible) {
                shown.add(new long[] {i, s.card});
                cards.add(s.card);
            }
        }
        Map<Long, String> terms = new HashMap<>();
        for (Object[] r : snap.rows("SELECT card, terms FROM card_route WHERE card IN (SELECT value FROM json_each(?))",
                Json.compact(new ArrayList<>(cards)))) {
            terms.put(Snapshot.num(r[0]), Snapshot.str(r[1]));
        }
        Map<String, Integer> ids = new HashMap<>();
        List<Postings> postings = new ArrayList<>();
        List<long[]> docs = new ArrayList<>();
        long total = 0;
        for (long[] skill : shown) {
            long length = 0;
            String listed = terms.get(skill[1]);
            for (String pair : (listed == null ? "" : listed).split(" ")) {
                if (pair.isEmpty()) continue;
                // `word:count`, or a word counted once alone.
                int at = pair.lastIndexOf(':');
                String word = at < 0 ? pair : pair.substring(0, at);
                int count = at < 0 ? 1 : Integer.parseInt(pair.substring(at + 1));
                Integer id = ids.get(word);
                if (id == null) {
                    id = ids.size();
                    ids.put(word, id);
                    postings.add(new Postings());
                }
                postings.get(id).add(docs.size(), count);
                length += count;
            }
            total += length;
            docs.add(new long[] {skill[0], length});
        }
        double avg = Math.max((double) total / Math.max(docs.size(), 1), 1.0);
        b.routeIndex = new Index(ids, postings, docs, avg);
        return b.routeIndex;
    }

    /** Per document of the route index: its vectors (summary, then each trigger example). */
    private static Dense denseOf(Snapshot snap, Bundle b, Index ix) {
        if (b.dense != null) return b.dense;
        TreeSet<Long> cards = new TreeSet<>();
        for (long[] doc : ix.docs()) cards.add(b.skills.get((int) doc[0]).card);
        Map<Long, long[]> listed = new HashMap<>();
        TreeSet<Long> wanted = new TreeSet<>();
        for (Object[] r : snap.rows("SELECT id, vectors FROM card WHERE id IN (SELECT value FROM json_each(?))",
                Json.compact(new ArrayList<>(cards)))) {
            String v = Snapshot.str(r[1]);
            long[] ids = java.util.Arrays.stream((v == null ? "" : v).split(" "))
                    .filter(d -> !d.isEmpty()).mapToLong(Long::parseLong).toArray();
            listed.put(Snapshot.num(r[0]), ids);
            for (long id : ids) wanted.add(id);
        }
        Map<Long, double[]> stored = new HashMap<>();
        long dims = Long.parseLong(snap.manifest.getOrDefault("embedding_dims", "0"));
        for (Object[] r : snap.rows("SELECT id, data FROM vector WHERE id IN (SELECT value FROM json_each(?))",
                Json.compact(new ArrayList<>(wanted)))) {
            byte[] raw = (byte[]) r[1];
            double[] v;
            if (raw.length == dims) {
                // A byte a number: the built-in meaning's whole numbers.
                v = new double[raw.length];
                for (int i = 0; i < v.length; i++) v[i] = raw[i];
            } else {
                ByteBuffer data = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
                v = new double[data.remaining() / 4];
                for (int i = 0; i < v.length; i++) v[i] = data.getFloat();
            }
            stored.put(Snapshot.num(r[0]), v);
        }
        // With the built-in meaning, a card's summary with its body mixed in is a text of its
        // own, after its trigger examples (`card_route.meaning`; the build writes none with a
        // model of the workspace's own).
        Map<Long, double[]> mixed = new HashMap<>();
        if (dims > 0) {
            for (Object[] r : snap.rows("SELECT card, meaning FROM card_route WHERE meaning IS NOT NULL "
                    + "AND card IN (SELECT value FROM json_each(?))", Json.compact(new ArrayList<>(cards)))) {
                byte[] raw = (byte[]) r[1];
                if (raw.length != dims) {
                    throw new ArtifactException("`" + snap.path + "` is not a readable skillc artifact: card "
                            + Snapshot.num(r[0]) + "'s meaning holds " + raw.length + " bytes, not " + dims);
                }
                double[] v = new double[raw.length];
                for (int i = 0; i < v.length; i++) v[i] = raw[i];
                mixed.put(Snapshot.num(r[0]), v);
            }
        }
        List<List<double[]>> perDocument = new ArrayList<>();
        for (long[] doc : ix.docs()) {
            List<double[]> vectors = new ArrayList<>();
            long card = b.skills.get((int) doc[0]).card;
            for (long id : listed.getOrDefault(card, new long[0])) {
                if (stored.containsKey(id)) vectors.add(stored.get(id));
            }
            if (mixed.containsKey(card)) vectors.add(mixed.get(card));
            perDocument.add(vectors);
        }
        b.dense = Dense.of(perDocument);
        return b.dense;
    }

    /**
     * Catalog position (from 1) of each skill the catalog shows. Only the consumer and the
     * outcome of the skills' conditions change it: kept by those, as catalogs are.
     */
    private static Map<Integer, Integer> positions(Snapshot snap, Bundle b, String consumer, Context ctx) {
        List<String> key = java.util.Arrays.asList(consumer, Catalog.outcome(snap, b, consumer, ctx));
        Map<Integer, Integer> kept = b.positions.get(key);
        if (kept == null) {
            kept = new HashMap<>();
            List<Integer> members = Catalog.members(snap, b, consumer, ctx);
            for (int n = 0; n < members.size(); n++) kept.put(members.get(n), n + 1);
            b.positions.put(key, kept);
        }
        return kept;
    }

    /**
     * The matched idf mass at which a skill scores 0.5 in a catalog of {@code n} skills
     * (docs/routing.md): {@code evidence_factor} · m², m the weight of a word one skill holds.
     */
    static double evidenceScale(double n, Rules rules) {
        double m = Math.max(Math.log(1 + (n - 0.5) / 1.5), 0);
        return rules.num("evidence_factor") * m * m;
    }

    /** {@code routing:} of workspace.yaml with a client's own keys over it, the rules' defaults otherwise. */
    static Map<String, Object> settings(Snapshot snap, String client) {
        Map<String, Object> out = new LinkedHashMap<>(Rules.of(snap).defaults());
        out.putAll(Json.object(snap.manifest.get("routing")));
        if (Json.object(snap.manifest.getOrDefault("routing_clients", "{}")).get(client) instanceof Map<?, ?> own) {
            own.forEach((k, v) -> out.put(String.valueOf(k), v));
        }
        return out;
    }

    /** The hybrid cut of a catalog of {@code n} skills when the settings give none (docs/routing.md). */
    static double hybridFloor(int n, Rules rules) {
        double floor = rules.num("hybrid_floor_base") + rules.num("hybrid_floor_slope") * Math.log(Math.max(n, 1));
        return Math.floor(floor * 1e6 + 0.5) / 1e6;
    }

    /**
     * The first {@code n} items of {@code items} in {@code order}: a sort when they are few against
     * {@code n}, else each item placed among the best so far (the candidates after the first may be
     * hundreds of skills a little under the bar, of which a route lists five).
     */
    static <T> List<T> best(List<T> items, int n, java.util.Comparator<T> order) {
        if (items.size() <= 4L * n) {
            items.sort(order);
            return new ArrayList<>(items.subList(0, Math.min(n, items.size())));
        }
        List<T> kept = new ArrayList<>(n + 1);
        if (n == 0) return kept;
        for (T item : items) {
            if (kept.size() == n && order.compare(item, kept.get(n - 1)) >= 0) continue;
            int at = kept.size();
            while (at > 0 && order.compare(item, kept.get(at - 1)) < 0) at--;
            kept.add(at, item);
            if (kept.size() > n) kept.remove(n);
        }
        return kept;
    }

    /**
     * A hybrid route's bar: {@code floor}, raised by {@code small_talk_share} of how much closer the
     * message is to small talk (its closest cosine) than to the catalog's nearest skill, and by
     * {@code talk_words_share} of how far its pieces lean to small talk beyond {@code talk_words_from}
     * ({@code words}; null for an artifact without the weights), lowered by {@code talk_words_lowers}
     * (0 in an artifact built before it) of how far they lean to requests below it, never under
     * {@code floor}; kept to 6 decimals.
     */
    static double raisedFloor(double floor, double smallTalk, double nearest, Rules rules, Double words) {
        double byWords = 0;
        if (words != null) {
            double beyond = words - rules.num("talk_words_from");
            byWords = beyond * (beyond > 0 ? rules.num("talk_words_share") : rules.num("talk_words_lowers"));
        }
        double margin = rules.num("small_talk_share") * Math.max(smallTalk - nearest, 0);
        return Math.floor((floor + Math.max(margin + byWords, 0)) * 1e6 + 0.5) / 1e6;
    }

    /**
     * How much a message's pieces (rows of the meaning table, in order) lean to small talk: the
     * mean weight (thousandths) of its distinct pieces and, when the artifact weighs pairs, of its
     * distinct pairs of neighbouring pieces (with {@code ends}, the artifact's
     * {@code talk_words_ends}, its pairs with the edge too: {@link TalkWeights#talkPairs}); 0
     * without any.
     */
    static double talkWords(TalkWeights weights, int[] pieces, boolean ends) {
        int[] distinct = java.util.Arrays.stream(pieces).distinct().toArray();
        long[] pairs = weights.pairKeys() == null ? new long[0] : TalkWeights.talkPairs(pieces, ends);
        if (distinct.length + pairs.length == 0) return 0;
        long total = 0;
        for (int p : distinct) total += p < weights.pieces().length ? weights.pieces()[p] : 0;
        for (long key : pairs) {
            int at = java.util.Arrays.binarySearch(weights.pairKeys(), key);
            if (at >= 0) total += weights.pairWeights()[at];
        }
        return total / ((distinct.length + pairs.length) * 1000.0);
    }

    private static double number(Object v, double otherwise) {
        return v instanceof Number n ? n.doubleValue() : otherwise;
    }

    /** The query vector as every runtime uses it: checked against the artifact's model, rounded to 32-bit floats. */
    static double[] query(Snapshot snap, float[] vector) {
        requireDims(snap, vector.length);
        double[] q = new double[vector.length];
        for (int i = 0; i < q.length; i++) q[i] = vector[i];
        return q;
    }

    /** A query vector's length must be the artifact model's. */
    private static void requireDims(Snapshot snap, int length) {
        String model = snap.manifest.get("embedding_model");
        long dims = Long.parseLong(snap.manifest.getOrDefault("embedding_dims", "0"));
        if (model == null) {
            throw new RequestException("this artifact carries no embedding vectors (its workspace sets no "
                + "`routing.embedding_model`), so it routes by words only; give no query vector");
        }
        if (length != dims) {
            throw new RequestException("the query vector has " + length + " numbers; this artifact's model `"
                + model + "` gives " + dims);
        }
    }

    /**
     * The routed text's vector from the artifact's built-in meaning table (whole numbers, so
     * exact as doubles), or null when the artifact carries none: the route is then lexical.
     */
    static double[] ownQuery(Snapshot snap, String text) {
        Meaning meaning = snap.meaning();
        if (meaning == null) return null;
        double[] q = meaning.vector(text);
        requireDims(snap, q.length);
        return q;
    }

    /** The skills the catalog shows for this consumer and context, ranked for {@code message}. */
    static Route route(Snapshot snap, Bundle b, String consumer, Context ctx, String message, Integer top,
                       float[] queryVector) {
        Map<String, Object> settings = b.routing != null ? b.routing : (b.routing = settings(snap, b.client));
        Rules rules = Rules.of(snap);
        Map<Integer, Integer> position = positions(snap, b, consumer, ctx);
        Index ix = indexOf(snap, b);
        // Its words in other languages read in English, for its words and meaning alike.
        String glossed = Glossary.glossed(snap, message, ix, rules);
        String text = glossed != null ? glossed : message;
        // Without a vector of the caller's, the artifact's built-in meaning makes one.
        double[] query = null;
        if (queryVector != null) {
            query = query(snap, queryVector);
        } else if (snap.meaning() != null) {
            String spelt = speltForMeaning(snap.meaning(), text, ix, rules);
            query = ownQuery(snap, spelt != null ? spelt : text);
        }
        List<String> words = new ArrayList<>();
        List<Integer> wordIds = new ArrayList<>();
        int[] spelling = rules.spelling();
        int tried = 0;
        for (String t : tokens(text, rules)) {
            if (words.size() == (int) rules.num("max_words")) break;
            Integer id = ix.ids().get(t);
            if (id == null) {
                // Read as its nearest known word (docs/routing.md, "Misspelt words").
                if (spelling == null || tried == (int) rules.num("max_words") || !spellingApplies(t, spelling)) continue;
                tried++;
                t = nearestKnown(t, ix);
                if (t == null) continue;
                id = ix.ids().get(t);
            }
            if (!wordIds.contains(id)) {
                words.add(t);
                wordIds.add(id);
            }
        }
        // Then neighbouring words written together, where the index holds them as one word.
        for (String t : joined(text, rules)) {
            if (words.size() == (int) rules.num("max_words")) break;
            Integer id = ix.ids().get(t);
            if (id != null && !wordIds.contains(id)) {
                words.add(t);
                wordIds.add(id);
            }
        }
        int docs = ix.docs().size();
        double[] score = new double[docs];
        boolean[] has = new boolean[docs];
        // The message's words each document holds, for the documents holding any.
        Map<Integer, List<Integer>> held = new HashMap<>();
        if (!words.isEmpty()) {
            double n = docs;
            double[] idf = new double[words.size()];
            double scale = evidenceScale(n, rules);
            double k1 = rules.num("k1");
            double lengthShare = rules.num("b");
            for (int k = 0; k < words.size(); k++) {
                int df = ix.postings().get(wordIds.get(k)).size;
                idf[k] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
            }
            double[] raw = new double[docs];
            for (int k = 0; k < words.size(); k++) {
                Postings p = ix.postings().get(wordIds.get(k));
                for (int j = 0; j < p.size; j++) {
                    int doc = p.docs[j];
                    double tf = p.counts[j];
                    double norm = k1 * (1 - lengthShare + lengthShare * ix.docs().get(doc)[1] / ix.avg());
                    raw[doc] += idf[k] * tf / (tf + norm);
                    has[doc] = true;
                    held.computeIfAbsent(doc, d -> new ArrayList<>()).add(k);
                }
            }
            for (int doc = 0; doc < docs; doc++) {
                if (has[doc]) score[doc] = Math.floor(raw[doc] / (raw[doc] + scale) * 1e6 + 0.5) / 1e6;
            }
        }
        double minScore = query == null ? number(settings.get("min_score"), 0.5)
            : number(settings.get("hybrid_min_score"), hybridFloor(docs, rules));
        // The bar of the candidates after the first: tail_below under a hybrid route's bar when
        // the catalog's bar cuts, the bar itself otherwise.
        double tail = minScore;
        boolean[] byWords = new boolean[docs];
        if (query != null) {
            // Hybrid (docs/routing.md): the lexical share plus the closest text's cosine, every shown skill.
            double[] best = denseOf(snap, b, ix).best(query);
            Dense talk = settings.get("hybrid_min_score") instanceof Number ? null : snap.smallTalk();
            if (talk != null) {
                // Nearer small talk than any skill: the bar rises (docs/routing.md, "Small talk").
                // Measured against each skill's summary (its first vector).
                double nearest = denseOf(snap, b, ix).nearestFirst(query);
                TalkWeights weights = snap.talkWords();
                Meaning meaning = weights == null ? null : snap.meaning();
                boolean ends = Boolean.TRUE.equals(rules.all().get("talk_words_ends"));
                Double lean = meaning == null ? null : talkWords(weights, meaning.pieces(text), ends);
                minScore = raisedFloor(minScore, talk.best(query)[0], nearest, rules, lean);
            }
            double below = settings.get("hybrid_min_score") instanceof Number ? 0 : rules.num("tail_below");
            tail = Math.floor(Math.max(minScore - below, 0) * 1e6 + 0.5) / 1e6;
            if (tail < minScore) {
                // The documents that may score down to the tail: the first tail_words the
                // catalog shows by lexical score, ties by name.
                List<Integer> worded = new ArrayList<>();
                for (int doc = 0; doc < docs; doc++) {
                    if (has[doc] && score[doc] > 0 && position.containsKey((int) ix.docs().get(doc)[0])) worded.add(doc);
                }
                double[] lexical = score;
                java.util.Comparator<Integer> byScore = (x, y) -> {
                    int c = Double.compare(lexical[y], lexical[x]);
                    if (c != 0) return c;
                    return Snapshot.byCodePoints(b.skills.get((int) ix.docs().get(x)[0]).name,
                        b.skills.get((int) ix.docs().get(y)[0]).name);
                };
                for (int doc : best(worded, (int) Math.max(rules.num("tail_words"), 0), byScore)) byWords[doc] = true;
            }
            for (int doc = 0; doc < docs; doc++) {
                double share = rules.num("lexical_share");
                double fused = Math.floor((share * score[doc] + (1 - share) * best[doc]) * 1e6 + 0.5) / 1e6;
                score[doc] = fused;
                has[doc] = fused > 0;
            }
        }
        List<Integer> scored = new ArrayList<>();
        for (int doc = 0; doc < docs; doc++) {
            boolean kept = score[doc] >= minScore || (score[doc] >= tail && byWords[doc]);
            if (has[doc] && kept && position.containsKey((int) ix.docs().get(doc)[0])) scored.add(doc);
        }
        java.util.Comparator<Integer> order = (x, y) -> {
            int byScore = Double.compare(score[y], score[x]);
            if (byScore != 0) return byScore;
            return Snapshot.byCodePoints(b.skills.get((int) ix.docs().get(x)[0]).name,
                b.skills.get((int) ix.docs().get(y)[0]).name);
        };
        long limit = top != null ? top : (long) number(settings.get("top_k"), 5);
        List<Integer> first = best(scored, (int) Math.min(Math.max(limit, 0), Integer.MAX_VALUE), order);
        // Only a first candidate at the bar makes a route: the others may be under it.
        if (!first.isEmpty() && score[first.get(0)] < minScore) first.clear();
        List<Route.Candidate> candidates = new ArrayList<>();
        for (int doc : first) {
            int i = (int) ix.docs().get(doc)[0];
            List<String> matched = new ArrayList<>();
            for (int k : held.getOrDefault(doc, List.of())) matched.add(words.get(k));
            Entry s = b.skills.get(i);
            candidates.add(new Route.Candidate("SK" + position.get(i), s.name, s.qualifiedName, score[doc],
                List.copyOf(matched)));
        }
        boolean confident = !candidates.isEmpty()
            && candidates.get(0).score() >= number(settings.get("confident"), 0.95);
        return new Route(message, b.client.isEmpty() ? null : b.client, b.locale, b.tier, consumer,
            query == null ? "lexical" : "hybrid", confident, List.copyOf(candidates));
    }
}
