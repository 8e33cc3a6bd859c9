package dev.skillc.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Routing's stage 0 (docs/routing.md, "Fragments"): a fragment of a message joined to the recent
 * messages it continues before it is routed, as the Rust runtime's {@code route::history} does,
 * with its words and thresholds ({@link FragmentWords}, written by its tests) and on its cases
 * (compiler/runtime/fragment-cases.json).
 */
public final class Fragments {
    private Fragments() {}

    /** One earlier message: its text and when it was sent, in seconds (the message's clock). */
    public record Turn(String text, double time) {}

    /** A text's words as routing splits them, lowercased, stopwords kept. */
    private static List<String> words(String text) {
        String lower = Router.lowercase(text);
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < lower.length()) {
            int start = i;
            while (i < lower.length() && Router.wordChar(lower.codePointAt(i))) i += Character.charCount(lower.codePointAt(i));
            if (i == start) i += Character.charCount(lower.codePointAt(i));
            else out.add(lower.substring(start, i));
        }
        return out;
    }

    private static int firstWordChar(String text) {
        for (int i = 0; i < text.length(); i += Character.charCount(text.codePointAt(i))) {
            if (Router.wordChar(text.codePointAt(i))) return text.codePointAt(i);
        }
        return -1;
    }

    /** Whether the first letter or digit is a letter that uppercasing changes and lowercasing does not. */
    private static boolean startsLowercase(String text) {
        int c = firstWordChar(text);
        if (c < 0) return false;
        String s = new String(Character.toChars(c));
        return !s.toUpperCase(Locale.ROOT).equals(s) && s.toLowerCase(Locale.ROOT).equals(s);
    }

    private static String trim(String text, String chars, boolean start) {
        int from = 0;
        int end = text.length();
        while (start && from < end && chars.indexOf(text.charAt(from)) >= 0) from++;
        while (end > from && chars.indexOf(text.charAt(end - 1)) >= 0) end--;
        return text.substring(from, end);
    }

    private static boolean incomplete(String text) {
        String end = trim(text, FragmentWords.SPACES + FragmentWords.CLOSERS, false);
        boolean finished = !end.isEmpty() && FragmentWords.FINAL_MARKS.indexOf(end.charAt(end.length() - 1)) >= 0
            && !end.endsWith("...") && !end.endsWith("\u2026");
        List<String> ws = words(text);
        return !finished || (!ws.isEmpty() && FragmentWords.CONNECTORS.contains(ws.get(ws.size() - 1)));
    }

    private static boolean close(double earlier, double later) {
        return later - earlier <= FragmentWords.WINDOW_SECONDS;
    }

    /** The signals of fragmentation that hold for {@code message}, sent at {@code time}, after {@code previous} (or null). */
    public static List<String> signals(String message, double time, Turn previous) {
        List<String> ws = words(message);
        boolean[] held = {
            ws.size() <= FragmentWords.SHORT_WORDS,
            ws.stream().anyMatch(FragmentWords.BACK_REFERENCES::contains),
            (!ws.isEmpty() && FragmentWords.CONTINUATIONS.contains(ws.get(0)))
                || (ws.size() >= 2 && FragmentWords.CONTINUATION_PAIRS.contains(ws.get(0) + " " + ws.get(1))),
            startsLowercase(message),
            previous != null && incomplete(previous.text()),
            previous != null && close(previous.time(), time),
        };
        List<String> out = new ArrayList<>();
        for (int k = 0; k < held.length; k++) if (held[k]) out.add(FragmentWords.SIGNALS.get(k));
        return out;
    }

    private static boolean isFragment(String message, double time, List<Turn> history) {
        Turn previous = history.isEmpty() ? null : history.get(history.size() - 1);
        return firstWordChar(message) >= 0 && signals(message, time, previous).size() >= FragmentWords.MIN_SIGNALS;
    }

    /**
     * The text to route for {@code message}, sent at {@code time} after {@code history} (oldest
     * first), when it is a fragment that joins; null: route it alone.
     */
    public static String join(String message, double time, List<Turn> history) {
        if (!isFragment(message, time, history)) return null;
        int start = history.size();
        double next = time;
        while (start > 0 && history.size() - start < FragmentWords.MAX_CONTEXT) {
            Turn previous = history.get(start - 1);
            if (!close(previous.time(), next)) break;
            start--;
            next = previous.time();
            if (!isFragment(previous.text(), previous.time(), history.subList(0, start))) break;
        }
        if (start == history.size()) return null;
        List<String> parts = new ArrayList<>();
        for (Turn t : history.subList(start, history.size())) parts.add(trim(t.text(), FragmentWords.SPACES, true));
        parts.add(trim(message, FragmentWords.SPACES, true));
        parts.removeIf(String::isEmpty);
        return String.join(" ", parts);
    }
}
