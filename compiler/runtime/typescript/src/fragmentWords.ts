// Words and thresholds of routing's stage 0 (docs/routing.md, "Fragments"), from compiler/runtime/src/route/history.rs; written by its tests, do not edit.

export const SHORT_WORDS = 3;
export const WINDOW_SECONDS = 60;
export const MIN_SIGNALS = 2;
export const MAX_CONTEXT = 4;
export const SIGNALS = ["very_short", "back_reference", "continuation", "lowercase_start", "previous_incomplete", "within_window"] as const;
export const BACK_REFERENCES: ReadonlySet<string> = new Set(["it", "its", "this", "that", "these", "those", "they", "them", "their", "there", "here", "same", "also", "too", "above", "earlier", "former", "latter", "\u00e7a", "cela", "ceci", "cet", "cette", "ces", "celui", "celle", "ceux", "celles", "m\u00eame", "m\u00eames", "aussi", "l\u00e0", "lui", "leur", "leurs", "eux"]);
export const CONTINUATIONS: ReadonlySet<string> = new Set(["and", "also", "but", "or", "plus", "then", "so", "btw", "additionally", "besides", "except", "otherwise", "et", "aussi", "mais", "ou", "puis", "ensuite", "sinon", "alors", "donc", "\u00e9galement", "egalement"]);
export const CONTINUATION_PAIRS: ReadonlySet<string> = new Set(["what about", "how about", "what if", "same for", "as for", "as well", "quid de", "qu en", "et si"]);
export const CONNECTORS: ReadonlySet<string> = new Set(["and", "or", "but", "with", "for", "to", "of", "the", "a", "an", "about", "from", "in", "on", "at", "by", "than", "because", "if", "so", "plus", "then", "et", "ou", "mais", "avec", "pour", "de", "du", "des", "le", "la", "les", "un", "une", "\u00e0", "au", "aux", "en", "sur", "par", "que", "car", "donc"]);
export const FINAL_MARKS = ".!?\u3002\uff01\uff1f\u061f\u0964\u203d";
export const CLOSERS = ")]\"'\u00bb\u201d\u2019\u300d\u300f";
export const SPACES = " \t\n\r\u00a0\u3000";
