package dev.skillc.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * An assembled prompt: the skills in it and why, the ones left out and why, the sources cited,
 * the text and its tokens, as {@code skillc prompt} gives them.
 */
public record Prompt(List<PromptSkill> skills, List<Removed> removed, List<SourceRef> sources, String text,
                     long tokens) {

    /** A skill in the prompt, its resolved file's name and why it is in ({@code selected}, {@code dependency:x}, ...). */
    public record PromptSkill(String name, String resolved, String reason) {}

    /** A skill left out and why ({@code unknown}, {@code hidden}, {@code blocked:x}, ...). */
    public record Removed(String name, String reason) {
        /** The reason in words, as {@code skillc prompt} prints it. */
        public String words() {
            int at = reason.indexOf(':');
            if (at >= 0) {
                String kind = reason.substring(0, at);
                String by = reason.substring(at + 1);
                if (kind.equals("blocked")) return "blocked by `" + by + "`";
                if (kind.equals("excluded")) return "excluded by `" + by + "` (same category, stronger priority)";
            }
            return switch (reason) {
                case "unknown" -> "no skill of that name in this bundle";
                case "hidden" -> "hidden from selection";
                case "disabled" -> "turned off for this client (a toggle or default_enabled: false)";
                case "condition" -> "its conditions do not hold for this context";
                case "max_active" -> "over the workspace's max_active_skills";
                case "unavailable" -> "unavailable in this bundle (requirements or variables)";
                default -> reason;
            };
        }
    }

    /** A source the prompt cites. */
    public record SourceRef(long sid, String url, String title) {}

    /** {@code skillc prompt --format json}: the fields in the Rust struct's order. */
    public String toJson() {
        List<Object> in = new ArrayList<>();
        for (PromptSkill s : skills) in.add(Json.fields("name", s.name(), "resolved", s.resolved(), "reason", s.reason()));
        List<Object> out = new ArrayList<>();
        for (Removed r : removed) out.add(Json.fields("name", r.name(), "reason", r.reason()));
        List<Object> cited = new ArrayList<>();
        for (SourceRef s : sources) cited.add(Json.fields("sid", s.sid(), "url", s.url(), "title", s.title()));
        return Json.pretty(Json.fields("skills", in, "removed", out, "sources", cited, "text", text, "tokens", tokens))
            + "\n";
    }
}
