package dev.skillc.runtime;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The run-time context of a request: page URL, turn, {@code <skill>_availability} values and
 * any other key. Conditions stored in the artifact are evaluated against it exactly as the
 * Rust runtime does (compiler/runtime/src/condition.rs): a missing value fails closed.
 */
public final class Context {
    private static final String AVAILABILITY = "_availability";
    private static final Pattern WHOLE = Pattern.compile("[+-]?[0-9]+");

    final String pageUrl;
    final Long turn;
    final Map<String, String> availability = new HashMap<>();
    final Map<String, String> values = new HashMap<>();

    private Context(String pageUrl, Long turn) {
        this.pageUrl = pageUrl;
        this.turn = turn;
    }

    /** No context: conditions that need a value do not hold. */
    public static Context empty() {
        return new Context(null, null);
    }

    /** A context from {@code KEY=VALUE} pairs, in order (a later key wins). */
    public static Context fromPairs(List<Map.Entry<String, String>> pairs) {
        String pageUrl = null;
        Long turn = null;
        Map<String, String> availability = new HashMap<>();
        Map<String, String> values = new HashMap<>();
        for (Map.Entry<String, String> p : pairs) {
            String k = p.getKey();
            String v = p.getValue();
            if (k.equals("page_url")) {
                pageUrl = v;
            } else if (k.isEmpty()) {
                throw new ContextException("context `=" + v + "` has no key (write KEY=VALUE)");
            } else if (k.equals("turn")) {
                turn = parseTurn(v);
            } else if (k.endsWith(AVAILABILITY) && k.length() > AVAILABILITY.length()) {
                availability.put(k.substring(0, k.length() - AVAILABILITY.length()), v);
            } else {
                values.put(k, v);
            }
        }
        Context c = new Context(pageUrl, turn);
        c.availability.putAll(availability);
        c.values.putAll(values);
        return c;
    }

    /** A context from a map ({@code page_url}, {@code turn}, ...): numbers and booleans as text. */
    public static Context of(Map<String, ?> map) {
        return fromPairs(map.entrySet().stream()
            .map(e -> Map.entry(e.getKey(), String.valueOf(e.getValue())))
            .toList());
    }

    private static Long parseTurn(String v) {
        if (!WHOLE.matcher(v).matches()) {
            throw new ContextException("turn must be a whole number, not `" + v + "`");
        }
        BigInteger n = new BigInteger(v.startsWith("+") ? v.substring(1) : v);
        if (n.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0) {
            throw new ContextException("turn `" + v + "` is too large");
        }
        if (n.compareTo(BigInteger.valueOf(Long.MIN_VALUE)) < 0) {
            throw new ContextException("turn must be a whole number, not `" + v + "`");
        }
        return n.longValue();
    }

    // -- stored conditions -------------------------------------------------------------------

    /** The path part of a URL ({@code https://a.com/x?y} gives {@code /x}), or the text itself. */
    static String pathOf(String url) {
        int scheme = url.indexOf("://");
        if (scheme < 0) return url.split("[?#]", 2)[0];
        String rest = url.substring(scheme + 3);
        int i = 0;
        while (i < rest.length() && "/?#".indexOf(rest.charAt(i)) < 0) i++;
        if (i == rest.length() || rest.charAt(i) != '/') return "/";
        return rest.substring(i).split("[?#]", 2)[0];
    }

    /** Whether {@code text} starts with {@code prefix} at a {@code /} boundary, trailing slashes ignored. */
    static boolean startsAtBoundary(String text, String prefix) {
        String p = prefix.replaceAll("/+$", "");
        if (p.isEmpty()) return true;
        if (!text.startsWith(p)) return false;
        String rest = text.substring(p.length());
        return rest.isEmpty() || "/?#".indexOf(rest.charAt(0)) >= 0;
    }

    private static boolean prefixMatches(String url, String prefix) {
        return prefix.startsWith("/") ? startsAtBoundary(pathOf(url), prefix) : startsAtBoundary(url, prefix);
    }

    /**
     * A regex of the artifact. The build compiled it with Rust's regex crate, whose classes
     * ({@code \w}, {@code \d}, {@code \b}) are Unicode's: so are these. A pattern Java cannot
     * read never matches (as a tampered one never holds in the Rust runtime).
     */
    private static Pattern regex(String pattern) {
        try {
            return Pattern.compile(pattern, Pattern.UNICODE_CHARACTER_CLASS);
        } catch (PatternSyntaxException e) {
            return null;
        }
    }

    /** A stored condition (an object of one key) ready to evaluate. */
    @SuppressWarnings("unchecked")
    static Predicate<Context> compile(Map<String, Object> condition) {
        if (condition.size() != 1) return ctx -> false;
        Map.Entry<String, Object> only = condition.entrySet().iterator().next();
        String kind = only.getKey();
        Object value = only.getValue();
        switch (kind) {
            case "starts_with_any", "does_not_start_with_any" -> {
                boolean negated = kind.startsWith("does_not");
                List<Object> prefixes = value instanceof List ? (List<Object>) value : List.of();
                return ctx -> ctx.pageUrl != null
                    && prefixes.stream().anyMatch(p -> prefixMatches(ctx.pageUrl, String.valueOf(p))) != negated;
            }
            case "page_url_matches", "page_url_not_matches" -> {
                boolean negated = kind.equals("page_url_not_matches");
                Pattern re = regex(String.valueOf(value));
                if (re == null) return ctx -> false;
                return ctx -> ctx.pageUrl != null && re.matcher(ctx.pageUrl).find() != negated;
            }
            case "availability" -> {
                Map<String, Object> a = value instanceof Map ? (Map<String, Object>) value : Map.of();
                String skill = String.valueOf(a.get("skill"));
                Object want = a.get("value");
                return ctx -> want != null && want.equals(ctx.availability.get(skill));
            }
            case "turn_at_least" -> {
                long n = value instanceof Number ? ((Number) value).longValue() : Long.MAX_VALUE;
                return ctx -> ctx.turn != null && ctx.turn >= n;
            }
            case "context_has" -> {
                String key = String.valueOf(value);
                return ctx -> !ctx.values.getOrDefault(key, "").isEmpty();
            }
            default -> {
                return ctx -> true; // conversation_language: decided at build time
            }
        }
    }
}
