package dev.skillc.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Java runtime as a command, with the flags and output of {@code skillc catalog},
 * {@code skillc prompt} and {@code skillc route}, so that both can be compared request for request:
 *
 * <pre>
 * java -jar skillc-runtime.jar catalog ARTIFACT [--client ID] [--locale L] [--tier T] [--consumer C]
 *      [--context KEY=VALUE]... [--format xml|markdown|list|json]
 * java -jar skillc-runtime.jar prompt ARTIFACT [...] --select NAME[,NAME...] [--format text|json]
 * java -jar skillc-runtime.jar route ARTIFACT MESSAGE [...] [--top K] [--query-vector FILE] [--history FILE [--time T]]
 *      [--format text|json]
 * </pre>
 *
 * <p>{@code --public-key KEY} serves the artifact only if its signature verifies. Exit status as
 * skillc's: 0 success, 1 a request for something that was not built, 2 usage
 * or I/O error.
 */
public final class Cli {
    private static final String USAGE = String.join("\n",
        "usage: skillc-runtime catalog ARTIFACT [--client ID] [--locale L] [--tier T] [--consumer C] "
            + "[--context KEY=VALUE]... [--format xml|markdown|list|json]",
        "       skillc-runtime prompt  ARTIFACT [--client ID] [--locale L] [--tier T] [--consumer C] "
            + "--select NAME[,NAME...] [--context KEY=VALUE]... [--format text|json]",
        "       skillc-runtime route   ARTIFACT MESSAGE [--client ID] [--locale L] [--tier T] [--consumer C] "
            + "[--context KEY=VALUE]... [--top K] [--query-vector FILE] [--history FILE [--time T]] [--format text|json]");
    private static final Set<String> FLAGS =
        Set.of("client", "locale", "tier", "consumer", "format", "select", "context", "top", "query-vector", "history", "time",
            "public-key");
    private static final Set<String> ROUTE_FLAGS = Set.of("top", "query-vector", "history", "time");

    private Cli() {}

    /** A command line that cannot be read (exit 2). */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** A parsed command line. */
    private record Args(String command, String artifact, String message, Map<String, String> flags,
                        List<Map.Entry<String, String>> context, List<String> select) {}

    private static Args parse(String[] argv) {
        if (argv.length == 0 || !Set.of("catalog", "prompt", "route").contains(argv[0])) throw new UsageException(USAGE);
        String command = argv[0];
        List<String> positional = new ArrayList<>();
        Map<String, String> flags = new HashMap<>();
        List<Map.Entry<String, String>> context = new ArrayList<>();
        List<String> select = new ArrayList<>();
        for (int i = 1; i < argv.length; i++) {
            String arg = argv[i];
            if (!arg.startsWith("--")) {
                positional.add(arg);
                if (positional.size() > (command.equals("route") ? 2 : 1)) {
                    throw new UsageException("unexpected argument `" + arg + "`\n" + USAGE);
                }
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            boolean known = FLAGS.contains(name) && !(name.equals("select") && !command.equals("prompt"))
                && !(ROUTE_FLAGS.contains(name) && !command.equals("route"));
            if (!known) throw new UsageException("unexpected argument `--" + name + "`\n" + USAGE);
            String value;
            if (eq >= 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < argv.length) {
                value = argv[++i];
            } else {
                throw new UsageException("`--" + name + "` needs a value");
            }
            if (name.equals("context")) {
                int at = value.indexOf('=');
                if (at < 0) throw new UsageException("--context takes KEY=VALUE, not `" + value + "`");
                context.add(Map.entry(value.substring(0, at), value.substring(at + 1)));
            } else if (name.equals("select")) {
                select.addAll(List.of(value.split(",", -1)));
            } else {
                flags.put(name, value);
            }
        }
        if (positional.isEmpty() || (command.equals("route") && positional.size() < 2)) throw new UsageException(USAGE);
        if (flags.containsKey("time") && !flags.containsKey("history")) throw new UsageException("--time needs --history\n" + USAGE);
        if (command.equals("prompt") && select.isEmpty()) throw new UsageException("`--select` is required\n" + USAGE);
        List<String> formats = command.equals("catalog") ? List.of("xml", "markdown", "list", "json") : List.of("text", "json");
        String format = flags.get("format");
        if (format != null && !formats.contains(format)) {
            throw new UsageException("invalid value `" + format + "` for `--format`; possible values: "
                + String.join(", ", formats));
        }
        return new Args(command, positional.get(0), positional.size() > 1 ? positional.get(1) : "", flags, context, select);
    }

    /**
     * The message's vector in {@code file} ({@code -}: standard input): a JSON array of numbers,
     * or an embedder's line {@code {"model", "vector"}} whose model must be the artifact's; the
     * same checks and words as {@code skillc route}.
     */
    private static float[] readQueryVector(String file, Artifact artifact) {
        String model = artifact.manifest("embedding_model");
        long dims = Long.parseLong(java.util.Objects.requireNonNullElse(artifact.manifest("embedding_dims"), "0"));
        String prefix = "--query-vector `" + file + "`: ";
        if (model == null) {
            throw new RequestException(prefix + "this artifact carries no embedding vectors (its workspace sets no "
                + "`routing.embedding_model`), so it routes by words only; leave out --query-vector");
        }
        String text;
        try {
            text = file.equals("-") ? new String(System.in.readNBytes(64 << 20), StandardCharsets.UTF_8)
                : Files.readString(Path.of(file));
        } catch (IOException e) {
            throw new RequestException(prefix + e.getMessage());
        }
        Object value;
        try {
            value = Json.parse(text);
        } catch (IllegalArgumentException e) {
            throw new RequestException(prefix + "not JSON (" + e.getMessage() + "): give an array of numbers or an embedder's line");
        }
        Object numbers = value;
        if (value instanceof Map<?, ?> line) {
            if (line.get("model") instanceof String m && !m.equals(model)) {
                throw new RequestException(prefix + "the vector is from model `" + m + "`; this artifact's vectors are from `"
                    + model + "`");
            }
            if (!(line.get("vector") instanceof List)) throw new RequestException(prefix + "an object needs `vector`: an array of numbers");
            numbers = line.get("vector");
        }
        if (!(numbers instanceof List<?> list)) throw new RequestException(prefix + "give an array of numbers or an embedder's line");
        float[] vector = new float[list.size()];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = list.get(i) instanceof Number n ? (float) n.doubleValue() : Float.NaN;
            if (!Float.isFinite(vector[i])) throw new RequestException(prefix + "every element of the vector must be a finite number");
        }
        if (vector.length != dims) {
            throw new RequestException(prefix + "the vector has " + vector.length + " numbers; this artifact's model `"
                + model + "` gives " + dims);
        }
        return vector;
    }

/** {@code --time}: seconds or RFC 3339 (null: now). */
    private static Double timeOf(String time) {
        if (time == null) return null;
        try {
            return HistoryFile.timeOf(time);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--time: " + e.getMessage());
        }
    }

        private static String answer(Args args, PrintStream err) {
        Context context = Context.fromPairs(args.context());
        String publicKey = args.flags().get("public-key");
        try (Artifact artifact = publicKey == null ? Artifact.open(args.artifact()) : Artifact.open(args.artifact(), publicKey)) {
            Request request = new Request(args.flags().get("client"), args.flags().get("locale"), args.flags().get("tier"),
                args.flags().get("consumer"), context);
            String format = args.flags().get("format");
            switch (args.command()) {
                case "route" -> {
                    String top = args.flags().get("top");
                    if (top != null && !top.matches("[0-9]+")) throw new UsageException("invalid value `" + top + "` for `--top`");
                    String file = args.flags().get("query-vector");
                    float[] vector = file == null ? null : readQueryVector(file, artifact);
                    Integer k = top == null ? null
                        : new java.math.BigInteger(top).min(java.math.BigInteger.valueOf(Integer.MAX_VALUE)).intValue();
                    String history = args.flags().get("history");
                    List<Fragments.Turn> turns = history == null ? null : HistoryFile.read(history);
                    Route r = artifact.route(request, args.message(), k, vector, turns, timeOf(args.flags().get("time")));
                    return "json".equals(format) ? r.toJson() : r.toText();
                }
                case "catalog" -> {
                    Format f = format == null ? Format.MARKDOWN : Format.named(format);
                    Catalog c = artifact.catalog(request, f);
                    if (f == Format.JSON) return c.toJson();
                    return c.text().endsWith("\n") ? c.text() : c.text() + "\n";
                }
                default -> {
                    List<String> picked = args.select().stream().filter(s -> !s.isEmpty()).toList();
                    Prompt p = artifact.prompt(request, picked);
                    if ("json".equals(format)) return p.toJson();
                    for (Prompt.Removed r : p.removed()) err.print("note: `" + r.name() + "` left out: " + r.words() + "\n");
                    return p.text();
                }
            }
        }
    }

    /** Runs a command line, writing as {@code skillc} would; returns the exit status. */
    public static int run(String[] argv, OutputStream stdout, OutputStream stderr) {
        PrintStream err = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        try {
            String out = answer(parse(argv), err);
            stdout.write(out.getBytes(StandardCharsets.UTF_8));
            stdout.flush();
            return 0;
        } catch (RequestException e) {
            err.print("error: " + e.getMessage() + "\n");
            return 1;
        } catch (SkillcException | UsageException e) {
            err.print("error: " + e.getMessage() + "\n");
            return 2;
        } catch (IOException e) {
            err.print("error: " + e.getMessage() + "\n");
            return 2;
        }
    }

    public static void main(String[] argv) {
        System.exit(run(argv, System.out, System.err));
    }
}
