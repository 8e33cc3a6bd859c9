package dev.skillc.runtime;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Routing's stage 0 (docs/routing.md, "Fragments"): the Rust runtime's cases and answers
 * (compiler/runtime/fragment-cases.json, written by its tests), a route with history on the
 * sample workspace's artifact as {@code skillc} (SKILLC) builds it, and the command's
 * {@code --history} and {@code --time}.
 */
public class FragmentsTest {
    private static final Path RUNTIME = Path.of(System.getProperty("user.dir")).resolve("..").normalize();
    private static Path dir;
    private static String skillc;
    private static String sample;
    private static final List<Fragments.Turn> ASKED = List.of(new Fragments.Turn("how much does the basic plan cost?", 1000));
    private static final String FOLLOW_UP = "and also for the pro plan";

    @BeforeClass
    public static void build() throws Exception {
        skillc = System.getenv().getOrDefault("SKILLC", RUNTIME.resolve("../../target/debug/skillc").normalize().toString());
        dir = Files.createTempDirectory("skillc-java-fragments-");
        sample = dir.resolve("sample.db").toString();
        Process p = new ProcessBuilder(skillc, "build", RUNTIME.resolve("../../skills").normalize().toString(), "-o", sample)
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertEquals("skillc build", 0, p.waitFor());
    }

    @AfterClass
    public static void clean() throws Exception {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static double number(Object o) {
        return ((Number) o).doubleValue();
    }

    @Test
    public void everyCaseIsAnsweredAsTheRustRuntimeAnswersIt() throws Exception {
        Map<?, ?> file = (Map<?, ?>) Json.parse(Files.readString(RUNTIME.resolve("fragment-cases.json")));
        List<?> cases = (List<?>) file.get("cases");
        assertTrue(cases.size() > 20);
        for (Object o : cases) {
            Map<?, ?> c = (Map<?, ?>) o;
            List<Fragments.Turn> history = new ArrayList<>();
            for (Object t : (List<?>) c.get("history")) {
                Map<?, ?> turn = (Map<?, ?>) t;
                history.add(new Fragments.Turn((String) turn.get("text"), number(turn.get("time"))));
            }
            String message = (String) c.get("message");
            double time = number(c.get("time"));
            Fragments.Turn previous = history.isEmpty() ? null : history.get(history.size() - 1);
            assertEquals(c.toString(), c.get("signals"), Fragments.signals(message, time, previous));
            assertEquals(c.toString(), c.get("routed_text"), Fragments.join(message, time, history));
        }
    }

    @Test
    public void aFollowUpWithinAMinuteRoutesJoinedToTheQuestionItFollows() {
        try (Artifact a = Artifact.open(sample)) {
            Request global = Request.global();
            Route joined = a.route(global, FOLLOW_UP, null, null, ASKED, 1010.0);
            assertEquals(FOLLOW_UP, joined.message());
            assertEquals("how much does the basic plan cost? and also for the pro plan", joined.routedText());
            assertEquals("pricing", joined.candidates().get(0).name());
            assertTrue(joined.toJson().startsWith("{\n  \"message\": \"and also for the pro plan\",\n  \"routed_text\": "));
            for (Object[] m : new Object[][] {{FOLLOW_UP, 1300.0}, {"What does the pro plan cost per month?", 1010.0}}) {
                Route r = a.route(global, (String) m[0], null, null, ASKED, (Double) m[1]);
                assertNull(r.routedText());
                assertEquals(a.route(global, (String) m[0]), r);
                assertFalse(r.toJson().contains("routed_text"));
            }
        }
    }

    private static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Cli.run(args, out, err);
        return new String[] {String.valueOf(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    /** What {@code skillc args} prints: status, standard output. */
    private static String[] skillcSays(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(skillc));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("skillc ran too long", p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        return new String[] {String.valueOf(p.exitValue()), out};
    }

    @Test
    public void theCommandReadsHistoryAsJsonLinesOrAnArrayAndTimesAsSecondsOrRfc3339() throws Exception {
        Path dir = Files.createTempDirectory("skillc-java-history-");
        try {
            Path lines = dir.resolve("h.jsonl");
            Files.writeString(lines, "{\"text\": \"how much does the basic plan cost?\", \"time\": \"2026-05-01T10:00:00Z\"}\n");
            Path array = dir.resolve("h.json");
            Files.writeString(array, "[{\"text\": \"how much does the basic plan cost?\", \"time\": 1777629600}]");
            for (Path file : List.of(lines, array)) {
                String[] r = run("route", sample, FOLLOW_UP, "--history", file.toString(), "--time", "2026-05-01T10:00:10Z",
                    "--format", "json");
                assertEquals(r[2], "0", r[0]);
                assertTrue(r[1], r[1].contains("\"routed_text\": \"how much does the basic plan cost? and also for the pro plan\""));
                // The built-in meaning's vector is the joined text's, as skillc makes it.
                assertTrue(r[1], r[1].contains("\"method\": \"hybrid\""));
                assertEquals(List.of(skillcSays("route", sample, FOLLOW_UP, "--history", file.toString(), "--time",
                    "2026-05-01T10:00:10Z", "--format", "json")), List.of(r[0], r[1]));
            }
            assertEquals(run("route", sample, FOLLOW_UP)[1], run("route", sample, FOLLOW_UP, "--history", lines.toString(),
                "--time", "1777629900")[1]);
            Files.writeString(lines, "{\"text\": \"hello\", \"time\": 1}\n{\"text\": \"how much?\"}\n");
            String[] bad = run("route", sample, FOLLOW_UP, "--history", lines.toString());
            assertEquals("1", bad[0]);
            assertTrue(bad[2], bad[2].contains("h.jsonl`: line 2: the message has no `time`"));
            assertEquals("2", run("route", sample, FOLLOW_UP, "--history", array.toString(), "--time", "soon")[0]);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
