package dev.skillc.runtime;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The words routing makes of a message (docs/routing.md), on the cases the Rust runtime's
 * {@code words_of_every_script_are_the_reference_of_the_other_runtimes} asserts: Java's own
 * final-sigma rule and its JDK's Unicode version must not show.
 */
public class WordsTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("../../..").normalize();
    private static Path dir;
    private static Path sample;
    private static Artifact artifact;

    @BeforeClass
    public static void build() throws Exception {
        String skillc = System.getenv().getOrDefault("SKILLC", ROOT.resolve("target/debug/skillc").toString());
        dir = Files.createTempDirectory("skillc-java-words-");
        sample = dir.resolve("sample.db");
        Process p = new ProcessBuilder(skillc, "build", ROOT.resolve("skills").toString(), "-o", sample.toString())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertEquals(0, p.waitFor());
        artifact = Artifact.open(sample);
    }

    @AfterClass
    public static void clean() throws Exception {
        artifact.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(f);
        }
    }

    /** The stopwords and suffixes are the artifact's (manifest {@code routing_rules}). */
    private static List<String> tokens(String text) {
        return artifact.routeTokens(text);
    }

    /** A copy of the sample artifact with its manifest edited by {@code sql}. */
    private static Artifact edited(String name, String sql, String... args) throws Exception {
        Path path = dir.resolve(name);
        Files.copy(sample, path);
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + path);
             PreparedStatement st = db.prepareStatement(sql)) {
            for (int k = 0; k < args.length; k++) st.setString(k + 1, args[k]);
            st.executeUpdate();
        }
        return Artifact.open(path);
    }

    @Test
    public void routingsWordsAndConstantsAreTheArtifacts() throws Exception {
        assertEquals(List.of("greet"), artifact.route(Request.global(), "greetings and hello").candidates().get(0).matched());
        Map<String, Object> rules = Json.object(Snapshot.str(artifactManifest("routing_rules")));
        @SuppressWarnings("unchecked")
        List<Object> stop = (List<Object>) rules.get("stopwords");
        stop.add("greetings");
        @SuppressWarnings("unchecked")
        Map<String, Object> defaults = (Map<String, Object>) rules.get("defaults");
        defaults.put("top_k", 0L);
        try (Artifact a = edited("rules.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", Json.compact(rules))) {
            assertEquals(List.of(), a.routeTokens("greetings there"));
            assertEquals(List.of(), a.route(Request.global(), "greetings and hello").candidates());
            for (Route.Candidate c : a.route(Request.global(), "greetings and hello", 5, null).candidates()) {
                assertTrue(c.matched().isEmpty());
            }
        }
    }

    private static Object artifactManifest(String key) throws Exception {
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + sample);
             PreparedStatement st = db.prepareStatement("SELECT value FROM manifest WHERE key = ?")) {
            st.setString(1, key);
            var rs = st.executeQuery();
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    @Test
    public void anArtifactWithoutRoutingRulesIsRefusedByRouteOnly() throws Exception {
        try (Artifact a = edited("old.db", "DELETE FROM manifest WHERE key = 'routing_rules'")) {
            assertFalse(a.catalog(Request.global()).text().isEmpty());
            ArtifactException e = assertThrows(ArtifactException.class, () -> a.route(Request.global(), "hello"));
            assertTrue(e.getMessage(), e.getMessage().matches("(?s).*no `routing_rules`.*build it again"));
        }
    }

    /** A plural of {@code y} meets its word, unless the artifact's suffixes were written before it. */
    @Test
    @SuppressWarnings("unchecked")
    public void aPluralOfYMeetsItsWordUnlessTheArtifactsSuffixesAreOlder() throws Exception {
        String plurals = "queries queried query activities activity cookies cookie";
        assertEquals(List.of("query", "query", "query", "activ", "activ", "cooky", "cooky"), tokens(plurals));
        Map<String, Object> rules = Json.object(Snapshot.str(artifactManifest("routing_rules")));
        List<Object> suffixes = new ArrayList<>((List<Object>) rules.get("suffixes"));
        suffixes.removeIf(s -> s.equals("itie") || s.equals("ie"));
        rules.put("suffixes", suffixes);
        try (Artifact a = edited("before-ie.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", Json.compact(rules))) {
            assertEquals(List.of("queri", "query", "query", "activiti", "activ", "cooki", "cooki"), a.routeTokens(plurals));
        }
    }

    /** docs/routing.md, "Misspelt words": read as the catalog's word when the artifact says so. */
    @Test
    public void aMisspeltWordIsReadAsTheCatalogsWordWhenTheArtifactSaysSo() throws Exception {
        String message = "I cant log in to my acount";
        assertEquals(List.of("log", "account"), artifact.route(Request.global(), message).candidates().get(0).matched());
        Map<String, Object> rules = Json.object(Snapshot.str(artifactManifest("routing_rules")));
        rules.remove("spelling");
        try (Artifact a = edited("no-spelling.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", Json.compact(rules))) {
            assertEquals(List.of("log"), a.route(Request.global(), message).candidates().get(0).matched());
        }
        rules.put("spelling", Json.object("{\"min_letters\": 5, \"max_letters\": 65}"));
        try (Artifact a = edited("wide-spelling.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", Json.compact(rules))) {
            ArtifactException e = assertThrows(ArtifactException.class, () -> a.route(Request.global(), message));
            assertTrue(e.getMessage(), e.getMessage().contains("5 to 65 letters"));
        }
    }

    @Test
    public void aMessageIsGlossedAsTheRustRuntimeGlossesIt() {
        // The Rust runtime's a_message_is_read_with_its_words_in_other_languages_glossed.
        List<String> lines = new java.util.ArrayList<>(List.of("factura\tinvoice", "facturas\tinvoices", "天气\tweather",
            "天气预报\tweather forecast", "明天\ttomorrow", "会議\tmeeting", "lebenslauf\tresume", "und\t"));
        lines.sort(java.util.Comparator.comparing(l -> l.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            java.util.Arrays::compareUnsigned));
        byte[] words = (String.join("\n", lines) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.util.function.Predicate<String> none = w -> false;
        assertEquals("necesito las  invoices , ya!", Glossary.gloss(words, "Necesito las FACTURAS, ya!", none));
        assertEquals("帮我查一下 tomorrow  weather forecast 吧", Glossary.gloss(words, "帮我查一下明天天气预报吧", none));
        assertEquals("pdfの meeting 録", Glossary.gloss(words, "PDFの会議録", none));
        // An empty gloss (English stopwords only, as the build writes it): read and left out.
        assertEquals(" invoice      resume ", Glossary.gloss(words, "Factura und Lebenslauf", none));
        assertEquals("  ", Glossary.gloss(words, "und", none));
        assertEquals(" resume  factura", Glossary.gloss(words, "lebenslauf factura", w -> w.equals("factura")));
        assertNull(Glossary.gloss(words, "nothing to read here", none));
        assertNull(Glossary.gloss(words, "", none));
        String long1 = Glossary.gloss(words, "Factura ".repeat(300), none);
        assertEquals(List.of(256, 44), List.of(long1.split("invoice", -1).length - 1, long1.split("factura", -1).length - 1));
        String long2 = Glossary.gloss(words, "明天" + "吧".repeat(300) + "明天", none);
        assertEquals(List.of(1, 1), List.of(long2.split("tomorrow", -1).length - 1, long2.split("明天", -1).length - 1));
        // The Rust runtime's every_word_is_found_where_it_lies_and_a_line_without_a_tab_holds_none.
        StringBuilder many = new StringBuilder();
        for (int n = 0; n < 500; n++) many.append(String.format("w%04d\t%s\n", n, "g".repeat(n % 40 + 1)));
        byte[] data = many.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int n = 0; n < 500; n++) assertEquals("g".repeat(n % 40 + 1), Glossary.lookUp(data, String.format("w%04d", n)));
        for (String absent : List.of("w", "w0500", "", "zz", "w0250\tg")) assertNull(absent, Glossary.lookUp(data, absent));
        byte[] small = "a\tx\nb\nc\ty".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(java.util.Arrays.asList("x", null, "y"),
            java.util.Arrays.asList(Glossary.lookUp(small, "a"), Glossary.lookUp(small, "b"), Glossary.lookUp(small, "c")));
        assertNull(Glossary.lookUp(new byte[0], "a"));
    }

    @Test
    public void wordsOfEveryScriptAreTheRustRuntimes() {
        assertEquals(List.of("नमस्ते", "दुनिया"), tokens("नमस्ते दुनिया"));
        assertEquals(List.of("ασ", "β", "οδος"), tokens("ΑΣ..Β ΟΔΟΣ"));
        assertEquals(List.of("x\u0363y", "ⓐⓑ", "½", "١٢٣"), tokens("x\u0363y ⓐⓑ ½ ١٢٣ 👩\u200d💻 ❤\ufe0f"));
        assertEquals(List.of("café", "e\u0301te", "i\u0307stanbul"), tokens("café e\u0301te İstanbul"));
        // English suffixes, for words of ASCII letters only.
        assertEquals(List.of("deploy", "deploy", "deploy", "run", "call", "carefully", "mp3ing", "café"), tokens("Deploying deployed deployments running called carefully mp3ing café"));
        assertEquals(List.of("much", "pric", "pric", "uk"), tokens("How much are the Prices of pricing-uk?"));
        assertEquals(List.of("going", "tun", "study", "ipv6ing", "größer", "add", "plan"), tokens("going tuned studied ipv6ing größer added planning"));
        // Scripts without spaces: pairs of characters (the Rust runtime's
        // runs_of_unspaced_scripts_become_pairs_of_characters).
        assertEquals(List.of("価格", "格表"), tokens("価格表"));
        assertEquals(List.of("pdf", "の変", "変換", "と", "pric"), tokens("PDFの変換 と Prices"));
        assertEquals(List.of("รา", "าค", "คา", "าแ", "แพ", "พ\u0e47", "\u0e47ก", "กเ", "เก", "กจ"), tokens("ราคาแพ็กเกจ"));
        assertEquals(List.of("テス", "スト", "ト駆", "駆動"), tokens("テスト駆動"));
        assertEquals(List.of("𠀋𠀌"), tokens("𠀋𠀌 x"));
    }

    @Test
    public void aRoutesFirstFewCandidatesAreThoseAFullSortGivesHoweverManyScore() {
        // Router.best keeps the first n of many candidates (the candidates after the first may
        // be hundreds a little under the bar) without sorting them all: the same as a sort.
        Comparator<double[]> order = (x, y) -> {
            int byScore = Double.compare(y[0], x[0]);
            return byScore != 0 ? byScore : Double.compare(x[1], y[1]);
        };
        java.util.Random random = new java.util.Random(7);
        for (int size : new int[] {0, 1, 3, 19, 20, 21, 80, 400}) {
            for (int n : new int[] {0, 1, 2, 5, 50}) {
                List<double[]> items = new ArrayList<>();
                // Scores of few values, so that many tie and the second number decides.
                for (int i = 0; i < size; i++) items.add(new double[] {random.nextInt(8) / 8.0, (i * 7919) % 1000});
                List<double[]> sorted = new ArrayList<>(items);
                sorted.sort(order);
                List<double[]> first = Router.best(new ArrayList<>(items), n, order);
                assertEquals(size + " items, first " + n, Math.min(n, size), first.size());
                for (int k = 0; k < first.size(); k++) {
                    assertEquals(sorted.get(k)[0], first.get(k)[0], 0.0);
                    assertEquals(sorted.get(k)[1], first.get(k)[1], 0.0);
                }
            }
        }
    }
}
