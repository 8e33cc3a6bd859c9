package dev.skillc.runtime;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Predicate;

/**
 * Requests in other languages (docs/routing.md, "Words of other languages"): each word of a message that the
 * artifact's glossary holds, and that the catalog's index does not, read as its English gloss, for
 * the route's words and meaning alike: as route/glossary.rs does, character for character.
 */
final class Glossary {
    /** The longest word of a script written without spaces that a glossary holds, in characters. */
    static final int MAX_CHARS = 8;
    /** The most words (or unspaced characters) a message is read through the glossary for. */
    static final int MAX_READ = 256;

    private Glossary() {}

    /**
     * The gloss of {@code word} in a glossary as the artifact holds it (lines of a word, a tab and
     * its gloss, sorted by the words' bytes, each once; a line without a tab holds no word), found
     * by halving where the bytes lie, as the Rust runtime does: no map of 62,000 words is made
     * (a tenth of a second more to a first route in a cold JVM). Null when it holds none.
     */
    static String lookUp(byte[] glossary, String word) {
        byte[] key = word.getBytes(StandardCharsets.UTF_8);
        // Both ends at the start of a line.
        int low = 0;
        int high = glossary.length;
        while (low < high) {
            int middle = low + (high - low) / 2;
            int start = middle;
            while (start > low && glossary[start - 1] != '\n') start--;
            int end = middle;
            while (end < high && glossary[end] != '\n') end++;
            int tab = start;
            while (tab < end && glossary[tab] != '\t') tab++;
            int order = java.util.Arrays.compareUnsigned(glossary, start, tab, key, 0, key.length);
            if (order == 0) {
                if (tab == end) return null;
                try {
                    return StandardCharsets.UTF_8.newDecoder()
                        .decode(java.nio.ByteBuffer.wrap(glossary, tab + 1, end - tab - 1)).toString();
                } catch (java.nio.charset.CharacterCodingException e) {
                    return null;
                }
            }
            if (order < 0) low = end + 1;
            else high = start;
        }
        return null;
    }

    /**
     * {@code message} lowercased, each word {@code words} holds and {@code held} does not replaced
     * by its gloss with a space either side; null when no word is. A spaced script's word is looked
     * up whole; in a run of a script written without spaces, the longest word held at each
     * character from the first (at most {@link #MAX_CHARS}), a character no word starts at kept as
     * it is; after {@link #MAX_READ} words or characters looked up, the rest as written (lowercased).
     */
    static String gloss(byte[] glossary, String message, Predicate<String> held) {
        String lower = Router.lowercase(message);
        boolean[] glossed = {false};
        int[] read = {0};
        String text = Router.eachWord(lower, (word, out) -> {
            int at = 0;
            while (at < word.length()) {
                boolean spaced = !Router.unspaced(word.codePointAt(at));
                int end = at;
                while (end < word.length() && Router.unspaced(word.codePointAt(end)) != spaced) {
                    end += Character.charCount(word.codePointAt(end));
                }
                String run = word.substring(at, end);
                // A word the catalog holds is not looked up: its own, whatever the glossary says.
                if (spaced && read[0] == MAX_READ) out.append(run);
                else if (spaced) {
                    read[0]++;
                    put(run, held.test(run) ? null : lookUp(glossary, run), held, out, glossed);
                } else longestWords(glossary, run, held, out, glossed, read);
                at = end;
            }
        });
        return glossed[0] ? text : null;
    }

    private static void longestWords(byte[] glossary, String run, Predicate<String> held, StringBuilder out,
                                     boolean[] glossed, int[] read) {
        int[] cps = run.codePoints().toArray();
        int i = 0;
        while (i < cps.length) {
            if (read[0] == MAX_READ) {
                out.append(new String(cps, i, cps.length - i));
                break;
            }
            read[0]++;
            int n = Math.min(MAX_CHARS, cps.length - i);
            String found = null;
            for (; n > 0; n--) {
                found = lookUp(glossary, new String(cps, i, n));
                if (found != null) break;
            }
            if (n > 0) {
                put(new String(cps, i, n), found, held, out, glossed);
                i += n;
            } else {
                out.appendCodePoint(cps[i]);
                i++;
            }
        }
    }

    private static void put(String word, String found, Predicate<String> held, StringBuilder out, boolean[] glossed) {
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
        byte[] glossary = snap.glossary();
        if (glossary == null) return null;
        return gloss(glossary, message, w -> {
            List<String> found = Router.tokens(w, rules);
            return !found.isEmpty() && found.stream().allMatch(ix.ids()::containsKey);
        });
    }
}
