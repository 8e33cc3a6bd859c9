package dev.skillc.runtime;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs many command lines of {@link Cli} in one process for tests/parity/java_runtime_parity.py:
 * each line of standard input is a JSON array of arguments; each answer is a line
 * {@code {"status", "stdout", "stderr"}}, exactly what the command would have printed.
 * One JVM for a thousand requests, where a process each would spend minutes starting.
 */
public final class ParityDriver {
    private ParityDriver() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            List<?> argv = (List<?>) Json.parse(line);
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            int status = Cli.run(argv.stream().map(String::valueOf).toArray(String[]::new), stdout, stderr);
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("status", status);
            answer.put("stdout", stdout.toString(StandardCharsets.UTF_8));
            answer.put("stderr", stderr.toString(StandardCharsets.UTF_8));
            out.print(Json.compact(answer) + "\n");
        }
    }
}
