package dev.skillc.runtime;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Requests in other languages (docs/routing.md, "Other languages"): each word of a message that the
 * artifact's glossary holds, and that the catalog's index does not, read as its English gloss, for
 * the route's words and meaning alike: as route/glossary.rs does, character for character.
 */
final class Glossary {
    /** The longest word of a script written without spaces that a glossary holds, in characters. */
    static final int MAX_CHARS = 8;

    private Glossary() {}

    /** A glossary from its row: lines of a word, a tab and its gloss (a line without a tab holds no word). */
    static Map<String, String> parse(byte[] data) {
        Map<String, String> words = new HashMap<>();
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n", -1)) {
            int tab = line.indexOf('\t');
            if (tab >= 0) words.put(line.substring(0, tab), line.substring(tab + 1));
        }
        return words;
    }

    /**
     * {@code message} lowercased, each word {@code words} holds and {@code held} does not replaced
     * by its gloss with a space either side; null when no word is. A spaced script's word is looked
     * up whole; in a run of a script written without spaces, the longest word held at each
     * character from the first (at most {@link #MAX_CHARS}), a character no word starts at kept as
     * it is.
     */
    static String gloss(Map<String, String> words, String message, Predicate<String> held) {
        String lower = Router.lowercase(message);
        StringBuilder out = new StringBuilder(lower.length() + 16);
        boolean[] glossed = {false};
        int i = 0;
        while (i < lower.length()) {
            int start = i;
            while (i < lower.length() && Router.wordChar(lower.codePointAt(i))) i += Character.charCount(lower.codePointAt(i));
            if (i == start) {
                int c = lower.codePointAt(i);
                out.appendCodePoint(c);
                i += Character.charCount(c);
                continue;
            }
            String word = lower.substring(start, i);
            int at = 0;
            while (at < word.length()) {
                boolean spaced = !Router.unspaced(word.codePointAt(at));
                int end = at;
                while (end < word.length() && Router.unspaced(word.codePointAt(end)) != spaced) {
                    end += Character.charCount(word.codePointAt(end));
                }
                String run = word.substring(at, end);
                if (spaced) put(words, run, held, out, glossed);
                else longestWords(words, run, held, out, glossed);
                at = end;
            }
        }
        return glossed[0] ? out.toString() : null;
    }

    private static void longestWords(Map<String, String> words, String run, Predicate<String> held, StringBuilder out,
                                     boolean[] glossed) {
        int[] cps = run.codePoints().toArray();
        int i = 0;
        while (i < cps.length) {
            int n = Math.min(MAX_CHARS, cps.length - i);
            for (; n > 0; n--) {
                if (words.containsKey(new String(cps, i, n))) break;
            }
            if (n > 0) {
                put(words, new String(cps, i, n), held, out, glossed);
                i += n;
            } else {
                out.appendCodePoint(cps[i]);
                i++;
            }
        }
    }

    private static void put(Map<String, String> words, String word, Predicate<String> held, StringBuilder out,
                            boolean[] glossed) {
        String found = words.get(word);
        if (found != null && !held.test(word)) {
            glossed[0] = true;
            out.append(' ').append(found).append(' ');
        } else {
            out.append(word);
        }
    }

    /**
     * {@code message} as a route reads it in a catalog of index {@code ix}: its words in other
     * languages glossed (a word the index holds is the catalog's own); null when none is.
     */
    static String glossed(Snapshot snap, String message, Router.Index ix, Router.Rules rules) {
        Map<String, String> words = snap.glossary();
        if (words == null) return null;
        return gloss(words, message, w -> {
            List<String> found = Router.tokens(w, rules);
            return !found.isEmpty() && found.stream().allMatch(ix.ids()::containsKey);
        });
    }
}
