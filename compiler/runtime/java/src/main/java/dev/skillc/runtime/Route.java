package dev.skillc.runtime;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A route (docs/routing.md): the skills a bundle's catalog shows, ranked for a message, at or
 * above {@code min_score}, best first, at most {@code top_k}, as {@code skillc route} gives them.
 *
 * @param method    {@code lexical}, or {@code hybrid} when a query vector was given
 * @param confident whether the first candidate scores at least {@code confident}
 */
public record Route(String message, String client, String locale, String tier, String consumer, String method,
                    boolean confident, List<Candidate> candidates) {

    /** A candidate: its catalog id, names, score in [0, 1] and the message's words it holds. */
    public record Candidate(String id, String name, String qualifiedName, double score, List<String> matched) {}

    /** {@code skillc route --format json}: the fields in the Rust struct's order. */
    public String toJson() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("message", message);
        v.put("client", client);
        v.put("locale", locale);
        v.put("tier", tier);
        v.put("consumer", consumer);
        v.put("method", method);
        v.put("confident", confident);
        List<Object> list = new ArrayList<>();
        for (Candidate c : candidates) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", c.id());
            m.put("name", c.name());
            m.put("qualified_name", c.qualifiedName());
            m.put("score", c.score());
            m.put("matched", c.matched());
            list.add(m);
        }
        v.put("candidates", list);
        return Json.pretty(v) + "\n";
    }

    /** {@code skillc route}'s text: a line each, score to four decimals, id, name, matched words. */
    public String toText() {
        StringBuilder out = new StringBuilder();
        for (Candidate c : candidates) {
            // The exact value rounded half to even, as Rust's `{:.4}` rounds it.
            String score = new BigDecimal(c.score()).setScale(4, RoundingMode.HALF_EVEN).toPlainString();
            out.append(score).append(' ').append(c.id()).append(' ').append(c.name())
                .append(" (").append(String.join(", ", c.matched())).append(")\n");
        }
        return out.toString();
    }
}
