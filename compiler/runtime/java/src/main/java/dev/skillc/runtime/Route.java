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
 * @param routedText the text routed instead of the message when it was a fragment joined to its history
 *                  (docs/routing.md, "Fragments"); null otherwise
 * @param method    {@code lexical}, or {@code hybrid} when a query vector was given or the artifact's
 *                  built-in meaning made one
 * @param confident whether the first candidate scores at least {@code confident}
 */
public record Route(String message, String routedText, String client, String locale, String tier, String consumer,
                    String method, boolean confident, List<Candidate> candidates) {

    /** A route of the message itself (no {@code routedText}). */
    public Route(String message, String client, String locale, String tier, String consumer, String method,
                 boolean confident, List<Candidate> candidates) {
        this(message, null, client, locale, tier, consumer, method, confident, candidates);
    }

    /** This route of a joined text, as the answer for {@code message}. */
    Route joined(String message, String routed) {
        return new Route(message, routed, client, locale, tier, consumer, method, confident, candidates);
    }

    /** A candidate: its catalog id, names, score in [0, 1] and the message's words it holds. */
    public record Candidate(String id, String name, String qualifiedName, double score, List<String> matched) {}

    /** {@code skillc route --format json}: the fields in the Rust struct's order. */
    public String toJson() {
        List<Object> list = new ArrayList<>();
        for (Candidate c : candidates) {
            list.add(Json.fields("id", c.id(), "name", c.name(), "qualified_name", c.qualifiedName(), "score", c.score(),
                "matched", c.matched()));
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("message", message);
        // Only when the message was joined: a route without history prints as before.
        if (routedText != null) fields.put("routed_text", routedText);
        fields.putAll(Json.fields("client", client, "locale", locale, "tier", tier, "consumer", consumer, "method", method,
            "confident", confident, "candidates", list));
        return Json.pretty(fields) + "\n";
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
