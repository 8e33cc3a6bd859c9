// Words and thresholds of routing's stage 0 (docs/routing.md, "Fragments"), from compiler/runtime/src/route/history.rs; written by its tests, do not edit.
package dev.skillc.runtime;

import java.util.List;
import java.util.Set;

/** Words and thresholds of stage 0: see the comment above. */
final class FragmentWords {
    static final int SHORT_WORDS = 3;
    static final double WINDOW_SECONDS = 60.0;
    static final int MIN_SIGNALS = 2;
    static final int MAX_CONTEXT = 4;
    static final List<String> SIGNALS = List.of("very_short", "back_reference", "continuation", "lowercase_start", "previous_incomplete", "within_window");
    static final Set<String> BACK_REFERENCES = Set.of("it", "its", "this", "that", "these", "those", "they", "them", "their", "there", "here", "same", "also", "too", "above", "earlier", "former", "latter", "\u00e7a", "cela", "ceci", "cet", "cette", "ces", "celui", "celle", "ceux", "celles", "m\u00eame", "m\u00eames", "aussi", "l\u00e0", "lui", "leur", "leurs", "eux");
    static final Set<String> CONTINUATIONS = Set.of("and", "also", "but", "or", "plus", "then", "so", "btw", "additionally", "besides", "except", "otherwise", "et", "aussi", "mais", "ou", "puis", "ensuite", "sinon", "alors", "donc", "\u00e9galement", "egalement");
    static final Set<String> CONTINUATION_PAIRS = Set.of("what about", "how about", "what if", "same for", "as for", "as well", "quid de", "qu en", "et si");
    static final Set<String> CONNECTORS = Set.of("and", "or", "but", "with", "for", "to", "of", "the", "a", "an", "about", "from", "in", "on", "at", "by", "than", "because", "if", "so", "plus", "then", "et", "ou", "mais", "avec", "pour", "de", "du", "des", "le", "la", "les", "un", "une", "\u00e0", "au", "aux", "en", "sur", "par", "que", "car", "donc");
    static final String FINAL_MARKS = ".!?\u3002\uff01\uff1f\u061f\u0964\u203d";
    static final String CLOSERS = ")]\"'\u00bb\u201d\u2019\u300d\u300f";
    static final String SPACES = " \t\n\r\u00a0\u3000";

    private FragmentWords() {}
}
