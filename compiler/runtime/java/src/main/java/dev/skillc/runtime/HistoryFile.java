package dev.skillc.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code route --history FILE --time T}, as {@code skillc route} reads them
 * (compiler/src/cli/history.rs): the visitor's recent messages for routing's stage 0
 * (docs/routing.md, "Fragments").
 */
final class HistoryFile {
    private static final Pattern RFC3339 =
        Pattern.compile("\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    private HistoryFile() {}

    private static double rfc3339(String s) {
        if (RFC3339.matcher(s).matches()) {
            try {
                OffsetDateTime t = OffsetDateTime.parse(s.toUpperCase(java.util.Locale.ROOT).replace(' ', 'T'));
                return t.toEpochSecond() + t.getNano() / 1e9;
            } catch (DateTimeParseException e) {
                // Said below, as for any other text.
            }
        }
        throw new IllegalArgumentException("`" + s + "` is not an RFC 3339 date and time");
    }

    /** {@code --time}'s value: seconds or RFC 3339. */
    static double timeOf(String arg) {
        if (NUMBER.matcher(arg).matches() && Double.isFinite(Double.parseDouble(arg))) return Double.parseDouble(arg);
        return rfc3339(arg);
    }

    private static double seconds(Object value) {
        if (value instanceof Number n && Double.isFinite(n.doubleValue())) return n.doubleValue();
        if (value instanceof String s) return rfc3339(s);
        throw new IllegalArgumentException("a time is seconds or an RFC 3339 date and time, not `" + Json.compact(value) + "`");
    }

    private static Fragments.Turn message(Object v) {
        if (!(v instanceof Map<?, ?> m) || !(m.get("text") instanceof String text)) {
            throw new IllegalArgumentException("each message is an object with a string `text` and a `time`");
        }
        if (!m.containsKey("time")) throw new IllegalArgumentException("the message has no `time`");
        return new Fragments.Turn(text, seconds(m.get("time")));
    }

    /** The messages of a {@code --history} file ({@code -}: standard input): a JSON array of {@code {text, time}}, or one a line. */
    static List<Fragments.Turn> read(String file) {
        String prefix = "--history `" + file + "`: ";
        String text;
        try {
            text = file.equals("-") ? new String(System.in.readNBytes(64 << 20), StandardCharsets.UTF_8)
                : Files.readString(Path.of(file));
        } catch (IOException e) {
            throw new RequestException(prefix + e.getMessage());
        }
        List<Map.Entry<String, Object>> items = new ArrayList<>();
        try {
            if (text.stripLeading().startsWith("[")) {
                if (!(Json.parse(text) instanceof List<?> all)) throw new IllegalArgumentException("not a JSON array");
                for (int n = 0; n < all.size(); n++) items.add(new java.util.AbstractMap.SimpleEntry<>("item " + (n + 1), all.get(n)));
            } else {
                String[] lines = text.split("\n", -1);
                for (int n = 0; n < lines.length; n++) {
                    if (lines[n].isBlank()) continue;
                    try {
                        items.add(new java.util.AbstractMap.SimpleEntry<>("line " + (n + 1), Json.parse(lines[n])));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("line " + (n + 1) + ": " + e.getMessage());
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            throw new RequestException(prefix + e.getMessage());
        }
        List<Fragments.Turn> out = new ArrayList<>();
        for (Map.Entry<String, Object> item : items) {
            try {
                out.add(message(item.getValue()));
            } catch (IllegalArgumentException e) {
                throw new RequestException(prefix + item.getKey() + ": " + e.getMessage());
            }
        }
        return out;
    }
}
