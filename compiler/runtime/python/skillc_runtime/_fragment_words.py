# Words and thresholds of routing's stage 0 (docs/routing.md, "Fragments"), from compiler/runtime/src/route/history.rs; written by its tests, do not edit.

SHORT_WORDS = 3
WINDOW_SECONDS = 60.0
MIN_SIGNALS = 2
MAX_CONTEXT = 4
SIGNALS = ("very_short", "back_reference", "continuation", "lowercase_start", "previous_incomplete", "within_window",)
BACK_REFERENCES = frozenset(("it", "its", "this", "that", "these", "those", "they", "them", "their", "there", "here", "same", "also", "too", "above", "earlier", "former", "latter", "\u00e7a", "cela", "ceci", "cet", "cette", "ces", "celui", "celle", "ceux", "celles", "m\u00eame", "m\u00eames", "aussi", "l\u00e0", "lui", "leur", "leurs", "eux",))
CONTINUATIONS = frozenset(("and", "also", "but", "or", "plus", "then", "so", "btw", "additionally", "besides", "except", "otherwise", "et", "aussi", "mais", "ou", "puis", "ensuite", "sinon", "alors", "donc", "\u00e9galement", "egalement",))
CONTINUATION_PAIRS = frozenset(("what about", "how about", "what if", "same for", "as for", "as well", "quid de", "qu en", "et si",))
CONNECTORS = frozenset(("and", "or", "but", "with", "for", "to", "of", "the", "a", "an", "about", "from", "in", "on", "at", "by", "than", "because", "if", "so", "plus", "then", "et", "ou", "mais", "avec", "pour", "de", "du", "des", "le", "la", "les", "un", "une", "\u00e0", "au", "aux", "en", "sur", "par", "que", "car", "donc",))
FINAL_MARKS = ".!?\u3002\uff01\uff1f\u061f\u0964\u203d"
CLOSERS = ")]\"'\u00bb\u201d\u2019\u300d\u300f"
SPACES = " \t\n\r\u00a0\u3000"
