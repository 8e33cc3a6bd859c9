package dev.skillc.runtime;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The Java runtime on artifacts of the sample workspace, built by the real {@code skillc}
 * (SKILLC names the binary; build.sh's callers set it). Parity with skillc on every request is
 * tests/parity/java_runtime_parity.py; these are the runtime's own promises.
 */
public class ArtifactTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("../../..").normalize();
    private static String skillc;
    private static Path dir;
    private static Path first;
    private static Path second;

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        assertEquals(String.join(" ", command), 0, p.waitFor());
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) Files.createDirectories(target);
                else Files.copy(f, target);
            }
        }
    }

    @BeforeClass
    public static void build() throws Exception {
        skillc = System.getenv().getOrDefault("SKILLC", ROOT.resolve("target/debug/skillc").toString());
        dir = Files.createTempDirectory("skillc-java-");
        first = dir.resolve("first.db");
        second = dir.resolve("second.db");
        run(skillc, "build", ROOT.resolve("skills").toString(), "-o", first.toString(), "--release-label", "first");
        Path ws = dir.resolve("ws");
        copyTree(ROOT.resolve("skills"), ws);
        Path greeting = ws.resolve("public/assistant/greeting/SKILL.md");
        Files.writeString(greeting, Files.readString(greeting).replace("Handle greetings", "Answer greetings"));
        run(skillc, "build", ws.toString(), "-o", second.toString(), "--release-label", "second");
    }

    @AfterClass
    public static void clean() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(f);
        }
    }

    private static String list(Artifact a) {
        return a.catalog(Request.global(), Format.LIST).text();
    }

    @Test
    public void readsTheSchemaVersionSkillcWritesAndTheReleaseLabel() {
        try (Artifact a = Artifact.open(first)) {
            assertEquals(String.valueOf(Artifact.SCHEMA_VERSION), a.manifest("schema_version"));
            assertEquals("first", a.release());
            Catalog c = a.catalog(Request.global().client("hyperline.co"), Format.JSON);
            assertEquals("hyperline.co", c.client());
            for (int i = 0; i < c.skills().size(); i++) assertEquals("SK" + (i + 1), c.skills().get(i).id());
            assertTrue(c.tokens() > 0);
            assertTrue(c.toJson().contains("\"release\": \"first\""));
        }
    }

    @Test
    public void aPromptGivesReasonsForEverySkillInOrOutAndItsTokens() {
        try (Artifact a = Artifact.open(first)) {
            Request r = Request.global().client("hyperline.co").context(Map.of("page_url", "/pricing", "turn", 2));
            Prompt p = a.prompt(r, List.of("pricing", "nope"));
            assertTrue(p.skills().contains(new Prompt.PromptSkill("pricing", "pricing", "selected")));
            assertTrue(p.removed().contains(new Prompt.Removed("nope", "unknown")));
            assertEquals("no skill of that name in this bundle", p.removed().get(0).words());
            assertTrue(p.text().endsWith("\n") && p.tokens() > 0);
        }
    }

    /** At most maxBundles bundles are kept, the least recently used let go first. */
    @Test
    public void anArtifactKeepsTheMostRecentlyUsedBundlesUpToItsLimit() {
        try (Artifact a = Artifact.open(first)) {
            assertEquals(Artifact.DEFAULT_MAX_BUNDLES, a.maxBundles());
            a.setMaxBundles(2);
            Request one = Request.global().client("augment.org"), two = Request.global().client("example.com");
            Catalog kept = a.catalog(one, Format.JSON), second = a.catalog(two, Format.JSON);
            assertSame(kept, a.catalog(one, Format.JSON)); // `two` is now the least recently used
            a.catalog(Request.global().client("hyperline.co"), Format.JSON);
            assertSame("kept", kept, a.catalog(one, Format.JSON));
            Catalog again = a.catalog(two, Format.JSON);
            assertNotSame("let go", second, again);
            assertEquals(second.toJson(), again.toJson());
            a.setMaxBundles(1); // `two` was asked for last: only it stays
            assertSame(again, a.catalog(two, Format.JSON));
            assertNotSame(kept, a.catalog(one, Format.JSON));
            Route routed = a.route(one, "How much does it cost?");
            a.setMaxBundles(0);
            assertEquals(routed.toJson(), a.route(one, "How much does it cost?").toJson());
            assertNotSame(a.catalog(one, Format.JSON), a.catalog(one, Format.JSON));
            a.setMaxBundles(3);
            Catalog held = a.catalog(one, Format.JSON);
            a.unload(one);
            assertNotSame(held, a.catalog(one, Format.JSON));
            assertThrows(RequestException.class, () -> a.unload(Request.global().client("nobody.example")));
        }
    }

    /** The Rust runtime's test (compiler/runtime/src/load.rs) and its two lines. */
    @Test
    public void pastTwentyClientsAnErrorNamesTheTwentyNearest() {
        assertEquals("clients: a.example, b.example",
            Snapshot.nameClients("c", new java.util.TreeSet<>(List.of("b.example", "a.example"))));
        java.util.TreeSet<String> many = new java.util.TreeSet<>();
        for (int i = 0; i < 500; i++) many.add("client-" + i + ".example");
        assertEquals("clients (the 20 nearest of 500): client-12.example, client-142.example, client-2.example, "
            + "client-22.example, client-242.example, client-32.example, client-342.example, client-4.example, "
            + "client-40.example, client-402.example, client-41.example, client-412.example, client-42.example, "
            + "client-420.example, client-421.example, client-422.example, client-423.example, client-424.example, "
            + "client-425.example, client-426.example",
            Snapshot.nameClients("client-42.exmple", many));
    }

    @Test
    public void requestsForWhatWasNotBuiltAndBadContextValuesAreErrorsThatSaySo() {
        try (Artifact a = Artifact.open(first)) {
            RequestException client = assertThrows(RequestException.class,
                () -> a.catalog(Request.global().client("nope")));
            assertTrue(client.getMessage(), client.getMessage().contains("clients: "));
            assertThrows(RequestException.class, () -> a.catalog(Request.global().consumer("nobody")));
            assertThrows(ContextException.class, () -> a.catalog(Request.global().context(Map.of("turn", "soon"))));
            assertThrows(ContextException.class,
                () -> a.catalog(Request.global().context(Map.of("turn", "99999999999999999999"))));
        }
    }

    @Test
    public void aMissingFileOrAFileThatIsNotAnArtifactIsRefusedClearly() throws IOException {
        ArtifactException missing = assertThrows(ArtifactException.class, () -> Artifact.open(dir.resolve("missing.db")));
        assertTrue(missing.getMessage(), missing.getMessage().contains("does not exist"));
        Path junk = dir.resolve("junk.db");
        Files.writeString(junk, "not sqlite at all, not even close".repeat(40));
        ArtifactException bad = assertThrows(ArtifactException.class, () -> Artifact.open(junk));
        assertTrue(bad.getMessage(), bad.getMessage().contains("is not a readable skillc artifact"));
        assertThrows(ArtifactException.class, () -> Artifact.open(dir));
    }

    private static void swap(Path from, Path live) throws IOException {
        Path tmp = live.resolveSibling(".live.tmp");
        Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmp, live, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    public void anArtifactSwappedInByRenameIsServedFromTheNextCallAndABadOneIsRefused() throws IOException {
        Path live = dir.resolve("live.db");
        Files.copy(first, live, StandardCopyOption.REPLACE_EXISTING);
        String oldText;
        String newText;
        try (Artifact b = Artifact.open(second)) {
            newText = list(b);
        }
        try (Artifact a = Artifact.open(live)) {
            oldText = list(a);
            assertNotEquals(oldText, newText);
            swap(second, live);
            assertEquals(newText, list(a));
            assertEquals("second", a.release());
            Path junk = dir.resolve("junk-swap.db");
            Files.writeString(junk, "garbage".repeat(100));
            swap(junk, live);
            assertEquals(newText, list(a));
            assertNotNull(a.refused());
            assertTrue(a.refused(), a.refused().contains("is not a readable skillc artifact"));
            swap(first, live);
            assertEquals(oldText, list(a));
            assertNull(a.refused());
        }
    }

    private static Path signed(Path key, String name, String label) throws Exception {
        Path out = dir.resolve(name);
        run(skillc, "build", ROOT.resolve("skills").toString(), "-o", out.toString(), "--release-label", label,
            "--sign", key.toString());
        return out;
    }

    private static Path sig(Path artifact) {
        return Path.of(artifact + ".minisig");
    }

    @Test
    public void openedWithAPublicKeyOnlyArtifactsWhoseSignatureVerifiesAreServedOnOpenAndOnEverySwap() throws Exception {
        Path key = dir.resolve("skillc.key");
        run(skillc, "keygen", "-o", key.toString());
        run(skillc, "keygen", "-o", dir.resolve("other.key").toString());
        String pub = dir.resolve("skillc.pub").toString();
        Path one = signed(key, "one.db", "one");
        Path two = signed(key, "two.db", "two");
        Path live = dir.resolve("signed-live.db");
        Files.copy(sig(one), sig(live));
        swap(one, live);
        try (Artifact a = Artifact.open(live.toString(), pub)) {
            assertEquals("one", a.release());
            Files.copy(sig(two), sig(live), StandardCopyOption.REPLACE_EXISTING);
            swap(two, live);
            assertEquals("a signed swap is served", "two", a.release());
            // A tampered swap: the signature is the right one's, the bytes are not.
            byte[] bytes = Files.readAllBytes(one);
            bytes[bytes.length - 100] ^= 1;
            Path tampered = dir.resolve("tampered.db");
            Files.write(tampered, bytes);
            Files.copy(sig(one), sig(live), StandardCopyOption.REPLACE_EXISTING);
            swap(tampered, live);
            assertEquals("the previous artifact stays in service", "two", a.release());
            assertTrue(a.refused(), a.refused().contains("does not match"));
            // An unsigned swap, then its signature arrives.
            Files.delete(sig(live));
            swap(one, live);
            assertEquals("two", a.release());
            assertTrue(a.refused(), a.refused().contains("has no signature"));
            Files.copy(sig(one), sig(live));
            assertEquals("one", a.release());
            assertNull(a.refused());
        }
        SignatureException other = assertThrows(SignatureException.class,
            () -> Artifact.open(live.toString(), dir.resolve("other.pub").toString()));
        assertTrue(other.getMessage(), other.getMessage().contains("another key"));
        Files.writeString(sig(live), Files.readString(sig(one)).substring(0, 60));
        SignatureException cut = assertThrows(SignatureException.class, () -> Artifact.open(live.toString(), pub));
        assertTrue(cut.getMessage(), cut.getMessage().contains("damaged or truncated"));
        assertThrows(SignatureException.class, () -> Artifact.open(live.toString(), "not a key"));
        try (Artifact plain = Artifact.open(live)) {
            assertEquals("without a key, the same file opens as before", "one", plain.release());
        }
    }

    private static Path signKey;

    /** A key pair made once for the tests below: the secret key's path ({@code .pub} beside it). */
    private static synchronized Path signKey() throws Exception {
        if (signKey == null) {
            signKey = dir.resolve("sign.key");
            run(skillc, "keygen", "-o", signKey.toString());
        }
        return signKey;
    }

    private static String greeting(Artifact a) {
        return a.prompt(Request.global(), List.of("greeting")).text();
    }

    @Test
    public void openedWithAKeyAnInPlaceWriteIsNeverServedAndASignedSwapStillIs() throws Exception {
        Path live = signed(signKey(), "inplace.db", "one");
        Path two = signed(signKey(), "inplace-two.db", "two");
        try (Artifact a = Artifact.open(live.toString(), dir.resolve("sign.pub").toString())) {
            // The same inode, overwritten where the greeting skill's body is (read on the first prompt).
            Object inode = Files.getAttribute(live, "unix:ino");
            byte[] bytes = Files.readAllBytes(live);
            String text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(live.toFile(), "rw")) {
                for (int at = text.indexOf("a friendly assistant"); at >= 0; at = text.indexOf("a friendly assistant", at + 1)) {
                    f.seek(at);
                    f.writeBytes("a HACKED!! assistant");
                }
            }
            assertEquals(inode, Files.getAttribute(live, "unix:ino"));
            String served = greeting(a);
            assertTrue(served, served.contains("a friendly assistant") && !served.contains("HACKED"));
            assertTrue(a.refused(), a.refused().contains("does not match"));
            Files.copy(sig(two), sig(live), StandardCopyOption.REPLACE_EXISTING);
            swap(two, live);
            assertEquals("two", a.release());
            assertNull(a.refused());
            assertTrue(greeting(a).contains("a friendly assistant"));
        }
    }

    private static void mkfifo(Path path) throws Exception {
        run("mkfifo", path.toString());
    }

    @Test(timeout = 20_000)
    public void aSignatureOrKeyThatIsAPipeADeviceOrTooLargeIsRefusedAtOnce() throws Exception {
        Path live = signed(signKey(), "pipe.db", "one");
        String pub = dir.resolve("sign.pub").toString();
        byte[] good = Files.readAllBytes(sig(live));
        Files.delete(sig(live));
        mkfifo(sig(live));
        SignatureException e = assertThrows(SignatureException.class, () -> Artifact.open(live.toString(), pub));
        assertTrue(e.getMessage(), e.getMessage().contains("not a regular file"));
        Files.delete(sig(live));
        Files.createSymbolicLink(sig(live), Path.of("/dev/zero"));
        e = assertThrows(SignatureException.class, () -> Artifact.open(live.toString(), pub));
        assertTrue(e.getMessage(), e.getMessage().contains("not a regular file"));
        Files.delete(sig(live));
        byte[] big = java.util.Arrays.copyOf(good, 128 * 1024);
        java.util.Arrays.fill(big, good.length, big.length, (byte) '\n');
        Files.write(sig(live), big);
        e = assertThrows(SignatureException.class, () -> Artifact.open(live.toString(), pub));
        assertTrue(e.getMessage(), e.getMessage().contains("larger than 64 KiB"));
        // A running artifact whose signature becomes a pipe keeps answering.
        Files.write(sig(live), good);
        try (Artifact a = Artifact.open(live.toString(), pub)) {
            Files.delete(sig(live));
            mkfifo(sig(live));
            assertEquals("one", a.release());
            assertTrue(a.refused(), a.refused().contains("not a regular file"));
        }
        Path pipe = dir.resolve("pipe.pub");
        mkfifo(pipe);
        Path zero = dir.resolve("zero.pub");
        Files.createSymbolicLink(zero, Path.of("/dev/zero"));
        for (Path key : List.of(pipe, zero)) {
            e = assertThrows(SignatureException.class, () -> Artifact.open(live.toString(), key.toString()));
            assertTrue(e.getMessage(), e.getMessage().contains("not a regular file"));
        }
    }

    @Test
    public void signedBuildsNamedWithANewlineOrALineSeparatorVerify() throws Exception {
        for (String name : List.of("new\nline.db", "line\u2028sep.db", "tab\tback\\slash.db")) {
            Path out = signed(signKey(), name, "named");
            try (Artifact a = Artifact.open(out.toString(), dir.resolve("sign.pub").toString())) {
                assertEquals(name, "named", a.release());
            }
        }
    }

    @Test
    public void threadsSharingAnArtifactEachGetAWholeCatalogAcrossASwap() throws Exception {
        Path live = dir.resolve("shared.db");
        Files.copy(first, live, StandardCopyOption.REPLACE_EXISTING);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (Artifact a = Artifact.open(live)) {
            String oldText = list(a);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> errors = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < 200; i++) seen.add(list(a));
                });
                thread.setUncaughtExceptionHandler((th, e) -> errors.add(e));
                threads.add(thread);
                thread.start();
            }
            swap(second, live);
            for (Thread thread : threads) thread.join();
            assertEquals(List.of(), errors);
            seen.remove(oldText);
            seen.remove(list(a));
            assertEquals("only whole catalogs of either file", Set.of(), seen);
        }
    }

    @Test
    public void aRouteRanksTheCatalogsSkillsForAMessageAndSaysWhichWordsMatched() throws Exception {
        // Words only: the workspace turns the built-in meaning off.
        try (Artifact a = Artifact.open(sampleWithRouting("words-only", "{ embedding_model: none }"))) {
            Route r = a.route(Request.global(), "How much does the pro plan cost? pricing");
            assertEquals("lexical", r.method());
            assertEquals("pricing", r.candidates().get(0).name());
            assertTrue(r.candidates().get(0).matched().contains("pric"));
            assertTrue(r.toText().startsWith(String.format("%.4f", r.candidates().get(0).score()).substring(0, 3)));
            assertEquals(1, a.route(Request.global(), "pricing plans", 1, null).candidates().size());
            assertEquals(List.of(), a.route(Request.global(), "?!").candidates());
            RequestException vectors = assertThrows(RequestException.class,
                () -> a.route(Request.global(), "pricing", null, new float[] {1, 2}));
            assertTrue(vectors.getMessage().contains("carries no embedding vectors"));
        }
    }

    /** What {@code args} print through {@link Cli}: status, standard output, standard error. */
    private static List<String> cli(String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int status = Cli.run(args, out, err);
        return List.of(String.valueOf(status), out.toString(java.nio.charset.StandardCharsets.UTF_8),
            err.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** What {@code skillc args} prints: status, standard output, standard error. */
    private static List<String> skillcSays(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(skillc));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue("skillc route ran too long", p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        return List.of(String.valueOf(p.exitValue()), new String(out, java.nio.charset.StandardCharsets.UTF_8),
            new String(err, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    public void withoutAVectorTheBuiltInMeaningRoutesHybridAsSkillcDoes() throws Exception {
        try (Artifact a = Artifact.open(first)) {
            assertEquals("static-minilm-v1", a.manifest("embedding_model"));
            assertEquals("hybrid", a.route(Request.global(), "How much does the pro plan cost?").method());
            // A vector of the caller's is still checked against the model's length.
            RequestException wrong = assertThrows(RequestException.class,
                () -> a.route(Request.global(), "pricing", null, new float[] {1, 2}));
            assertTrue(wrong.getMessage(), wrong.getMessage().contains("the query vector has 2 numbers"));
        }
        String[] messages = {
            "Can you review my pull request?", "draw a flowchart of the login", "Mon bot Telegram ne répond plus",
            "Wie viel kostet der Pro-Plan?", "代码审查 pull request", "価格 pricing プラン", "my csv has sales trends",
            "Naïve résumé of the café's GitHub PRs", "Привет, как дела?", "ราคาแพ็กเกจ", "\ud835\udc1a\ud840\udc0b bugs",
            "I found a bug in checkout " + "and it breaks ".repeat(120),
            // Misspelt words, read for the meaning as the route's words read them.
            "can you reveiw my pull requets", "my invoce is wrnog, refnud please",
        };
        int found = 0;
        for (String m : messages) {
            for (String format : List.of("json", "text")) {
                String[] args = {"route", first.toString(), m, "--format", format};
                List<String> java = cli(args);
                assertEquals(m, skillcSays(args), java);
                if (format.equals("json")) {
                    assertTrue(m, java.get(1).contains("\"method\": \"hybrid\""));
                    if (!java.get(1).contains("\"candidates\": []")) found++;
                }
            }
        }
        assertTrue("messages with candidates: " + found, found >= 8);
        List<String> client = List.of("route", first.toString(), "How much does the pro plan cost?", "--client",
            "hyperline.co", "--format", "json");
        assertEquals(skillcSays(client.toArray(String[]::new)), cli(client.toArray(String[]::new)));
    }

    @Test
    public void aNewFileAtThePathBringsItsOwnMeaningOrNone() throws Exception {
        Path live = dir.resolve("live-meaning.db");
        Files.copy(first, live, StandardCopyOption.REPLACE_EXISTING);
        try (Artifact a = Artifact.open(live)) {
            assertEquals("hybrid", a.route(Request.global(), "pricing").method());
            swap(sampleWithRouting("swap-words-only", "{ embedding_model: none }"), live);
            assertEquals("lexical", a.route(Request.global(), "pricing").method());
            swap(first, live);
            assertEquals("hybrid", a.route(Request.global(), "pricing").method());
        }
    }

    @Test
    public void aDamagedMeaningTableIsAClearErrorOnTheRouteThatNeedsIt() throws Exception {
        Path damaged = dir.resolve("damaged-meaning.db");
        Files.copy(first, damaged, StandardCopyOption.REPLACE_EXISTING);
        try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + damaged)) {
            db.createStatement().executeUpdate("UPDATE meaning SET data = substr(data, 1, 1000)");
        }
        try (Artifact a = Artifact.open(damaged)) {
            assertEquals(list(a), list(a));
            ArtifactException e = assertThrows(ArtifactException.class, () -> a.route(Request.global(), "pricing"));
            assertEquals("`" + damaged + "` is not a readable skillc artifact: its meaning table: the meaning table is cut short",
                e.getMessage());
            String[] route = {"route", damaged.toString(), "pricing"};
            assertEquals(skillcSays(route), cli(route));
            // Not read halfway: the next route says the same.
            assertEquals(e.getMessage(), assertThrows(ArtifactException.class, () -> a.route(Request.global(), "x")).getMessage());
        }
    }

    @Test
    public void aCardsSummaryWithItsBodyOfAnotherLengthIsAClearError() throws Exception {
        Path shortened = dir.resolve("short-meaning.db");
        Files.copy(first, shortened, StandardCopyOption.REPLACE_EXISTING);
        try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + shortened)) {
            db.createStatement().executeUpdate("UPDATE card_route SET meaning = x'0102' WHERE card = 1");
        }
        try (Artifact a = Artifact.open(shortened)) {
            ArtifactException e = assertThrows(ArtifactException.class, () -> a.route(Request.global(), "pricing"));
            assertEquals("`" + shortened + "` is not a readable skillc artifact: card 1's meaning holds 2 bytes, not 256",
                e.getMessage());
            String[] route = {"route", shortened.toString(), "pricing"};
            assertEquals(skillcSays(route), cli(route));
        }
    }

    /** The sample built with {@code routing} appended to its workspace.yaml. */
    private static Path sampleWithRouting(String name, String routing) throws Exception {
        Path ws = dir.resolve(name);
        copyTree(ROOT.resolve("skills"), ws);
        Path yaml = ws.resolve("workspace.yaml");
        Files.writeString(yaml, Files.readString(yaml) + "\nrouting: " + routing + "\n");
        Path out = dir.resolve(name + ".db");
        run(skillc, "build", ws.toString(), "-o", out.toString());
        return out;
    }

    @Test
    public void aRouteKeepsOnlyTheCandidatesAtOrAboveMinScore() throws Exception {
        String[] messages = {
            "turn this into a PDF press release",
            "hello there, how are you today",
            "what does the pricing look like for a small team in the UK",
            "can you compare us with the competitors",
            "summarize this document and cite the sources please",
            "I want to write a press release about our new product launch",
        };
        int dropped = 0;
        int kept = 0;
        // By words (min_score; hybrid routes have hybrid_min_score).
        try (Artifact all = Artifact.open(sampleWithRouting("cut-all", "{ min_score: 0.0, top_k: 50, embedding_model: none }"));
             Artifact cut = Artifact.open(sampleWithRouting("cut-065", "{ min_score: 0.65, top_k: 50, embedding_model: none }"))) {
            for (String m : messages) {
                List<Route.Candidate> wide = all.route(Request.global(), m).candidates();
                List<Route.Candidate> narrow = cut.route(Request.global(), m).candidates();
                List<String> expected = wide.stream().filter(c -> c.score() >= 0.65)
                    .map(c -> c.name() + " " + c.score()).toList();
                assertEquals(m, expected, narrow.stream().map(c -> c.name() + " " + c.score()).toList());
                dropped += wide.size() - narrow.size();
                kept += narrow.size();
            }
        }
        assertTrue("dropped " + dropped + ", kept " + kept, dropped > 0 && kept > 0);
    }

    @Test
    public void aPluginSkillIsFoundByItsPlainNameWhereTheBuildStoredSoNotWhereThisRuntimeWouldDecide() throws Exception {
        // Two plugins' skills made by hand in the sample (`acme:pricing`, `beta:analyzer` alone of
        // their plain names), the slots then marked against the rule: `pricing` not found by its
        // plain name, `analyzer` found for `beta` (`[name, entry, 1]` in `slot_list.slots`).
        Path plain = dir.resolve("plain.db");
        Files.copy(ROOT.resolve("compiler/runtime/tests/data/sample.db"), plain, StandardCopyOption.REPLACE_EXISTING);
        try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + plain)) {
            var st = db.createStatement();
            st.executeUpdate("UPDATE entry SET name = 'acme:' || name WHERE name = 'pricing'");
            st.executeUpdate("UPDATE entry SET name = 'beta:analyzer' WHERE name = 'api-caller'");
            st.executeUpdate("""
                UPDATE slot_list SET slots = (SELECT json_group_array(json(CASE
                  WHEN json_extract(s.value, '$[1]') IN (SELECT id FROM entry WHERE name = 'beta:analyzer')
                  THEN json_insert(s.value, '$[#]', 1) ELSE s.value END)) FROM json_each(slot_list.slots) s)""");
        }
        try (Artifact a = Artifact.open(plain)) {
            Prompt p = a.prompt(Request.global(), List.of("analyzer", "pricing", "acme:pricing"));
            assertEquals(List.of(new Prompt.Removed("pricing", "unknown")), p.removed());
            assertEquals(List.of("acme:pricing", "beta:analyzer"), p.skills().stream()
                .filter(s -> s.reason().equals("selected")).map(Prompt.PromptSkill::name).toList());
        }
    }
}
