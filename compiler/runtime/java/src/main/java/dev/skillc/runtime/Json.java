package dev.skillc.runtime;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as the artifact stores it and as {@code skillc} prints it. The JDK has no JSON, and what
 * this runtime prints must be serde_json's text byte for byte (its number forms and escapes),
 * which a general library's writer does not give; reading is the small part.
 *
 * <p>Read values are {@code Map<String, Object>} (in the text's order), {@code List<Object>},
 * {@code String}, {@code Long} (whole numbers that fit), {@code Double}, {@code Boolean} and
 * {@code null}. Written maps keep their own order: callers build them in skillc's.
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** The value of a JSON text; {@link IllegalArgumentException} when it is not JSON. */
    static Object parse(String text) {
        Json p = new Json(text);
        p.space();
        Object v = p.value(0);
        p.space();
        if (p.at != text.length()) throw p.error("trailing characters");
        return v;
    }

    /** A map stored as JSON text (an object), or an empty map for null. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String text) {
        if (text == null) return new LinkedHashMap<>();
        Object v = parse(text);
        if (!(v instanceof Map)) throw new IllegalArgumentException("expected a JSON object");
        return (Map<String, Object>) v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at character " + at);
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
    }

    private Object value(int depth) {
        // Stored JSON is shallow; a deep text is damage, not data to recurse into.
        if (depth > 128) throw error("nested too deeply");
        if (at >= text.length()) throw error("unexpected end");
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Object literal(String word, Object v) {
        if (!text.startsWith(word, at)) throw error("unexpected character");
        at += word.length();
        return v;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> out = new LinkedHashMap<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return out;
        }
        while (true) {
            space();
            if (at >= text.length() || text.charAt(at) != '"') throw error("expected a key");
            String key = string();
            space();
            expect(':');
            space();
            out.put(key, value(depth + 1));
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect('}');
            return out;
        }
    }

    private List<Object> array(int depth) {
        List<Object> out = new ArrayList<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return out;
        }
        while (true) {
            space();
            out.add(value(depth + 1));
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect(']');
            return out;
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) throw error("expected `" + c + "`");
        at++;
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        at++;
        while (true) {
            if (at >= text.length()) throw error("unterminated string");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) throw error("unterminated string");
            char e = text.charAt(at++);
            switch (e) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) throw error("short \\u escape");
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException x) {
                        throw error("bad \\u escape");
                    }
                    at += 4;
                }
                case '"', '\\', '/' -> out.append(e);
                default -> throw error("bad escape");
            }
        }
    }

    private Object number() {
        int start = at;
        if (at < text.length() && text.charAt(at) == '-') at++;
        boolean whole = true;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c >= '0' && c <= '9') {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                whole = false;
                at++;
            } else {
                break;
            }
        }
        String n = text.substring(start, at);
        if (n.isEmpty() || n.equals("-")) throw error("unexpected character");
        try {
            if (whole) {
                try {
                    return Long.parseLong(n);
                } catch (NumberFormatException big) {
                    return Double.parseDouble(n);
                }
            }
            return Double.parseDouble(n);
        } catch (NumberFormatException x) {
            throw error("bad number");
        }
    }

    // -- writing, as serde_json writes ---------------------------------------------------------

    /** An object of {@code key, value, key, value, ...}, written in that order. */
    static Map<String, Object> fields(Object... keysAndValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) out.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return out;
    }

    /** {@code serde_json::to_string}. */
    static String compact(Object v) {
        StringBuilder out = new StringBuilder();
        write(out, v, -1);
        return out.toString();
    }

    /** {@code serde_json::to_string_pretty}: two spaces a level. */
    static String pretty(Object v) {
        StringBuilder out = new StringBuilder();
        write(out, v, 0);
        return out.toString();
    }

    private static void newline(StringBuilder out, int indent) {
        if (indent < 0) return;
        out.append('\n');
        out.append("  ".repeat(indent));
    }

    private static void write(StringBuilder out, Object v, int indent) {
        int inner = indent < 0 ? -1 : indent + 1;
        if (v == null) {
            out.append("null");
        } else if (v instanceof String s) {
            string(out, s);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            out.append(v);
        } else if (v instanceof Double d) {
            out.append(number(d));
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) out.append(',');
                first = false;
                newline(out, inner);
                string(out, String.valueOf(e.getKey()));
                out.append(indent < 0 ? ":" : ": ");
                write(out, e.getValue(), inner);
            }
            newline(out, indent);
            out.append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                out.append("[]");
                return;
            }
            out.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) out.append(',');
                newline(out, inner);
                write(out, l.get(i), inner);
            }
            newline(out, indent);
            out.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass() + " as JSON");
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * A double as serde_json prints it (the ryu crate): the shortest digits that read back as
     * the same double, plain from 1e-5 to below 1e16, else in exponent form ({@code 1e-6}, {@code 1e+16}); never-finite is null.
     */
    static String number(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) return "null";
        if (d == 0) return (1 / d < 0) ? "-0.0" : "0.0";
        BigDecimal exact = new BigDecimal(d);
        BigDecimal shortest = exact;
        for (int p = 1; p <= 17; p++) {
            BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == d) {
                shortest = r;
                break;
            }
        }
        shortest = shortest.stripTrailingZeros();
        String digits = shortest.unscaledValue().abs().toString();
        int length = digits.length();
        int k = -shortest.scale(); // the exponent of the last digit
        int kk = length + k; // where the decimal point goes
        StringBuilder out = new StringBuilder(d < 0 ? "-" : "");
        if (k >= 0 && kk <= 16) {
            out.append(digits).append("0".repeat(k)).append(".0");
        } else if (kk > 0 && kk <= 16) {
            out.append(digits, 0, kk).append('.').append(digits, kk, length);
        } else if (kk > -5 && kk <= 0) {
            out.append("0.").append("0".repeat(-kk)).append(digits);
        } else {
            out.append(digits, 0, 1);
            if (length > 1) out.append('.').append(digits, 1, length);
            out.append(kk - 1 > 0 ? "e+" : "e").append(kk - 1);
        }
        return out.toString();
    }
}
