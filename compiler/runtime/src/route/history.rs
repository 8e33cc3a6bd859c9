//! Seed 001's stage 0: a fragment of a message ("and also for the pro plan") joined to the
//! recent messages it continues before it is routed (docs/routing.md, "Fragments"). Routed
//! alone, a fragment shares few words with any skill; joined to the question it follows, it
//! reaches the skill that question reaches.
//!
//! A message is a fragment when [`MIN_SIGNALS`] or more of six signals hold; it is then joined
//! to the messages before it that came within [`WINDOW_SECONDS`] of the next one. The words and
//! thresholds below are the only copy: the Python, TypeScript and Java runtimes read files this
//! module's tests write, and assert the cases of `compiler/runtime/fragment-cases.json`, whose
//! answers are this module's.

/// A message of this many words or fewer is very short.
pub const SHORT_WORDS: usize = 3;
/// A message this many seconds or fewer after the previous one follows it closely; a fragment
/// is joined only to messages that came this close to the next.
pub const WINDOW_SECONDS: f64 = 60.0;
/// A message is a fragment when at least this many signals hold.
pub const MIN_SIGNALS: usize = 2;
/// A fragment is joined to at most this many earlier messages.
pub const MAX_CONTEXT: usize = 4;

/// Words that point back at something said before (English and French, the stopword list's
/// languages).
pub const BACK_REFERENCES: &[&str] = &[
    "it", "its", "this", "that", "these", "those", "they", "them", "their", "there", "here",
    "same", "also", "too", "above", "earlier", "former", "latter", "ça", "cela", "ceci", "cet",
    "cette", "ces", "celui", "celle", "ceux", "celles", "même", "mêmes", "aussi", "là", "lui",
    "leur", "leurs", "eux",
];

/// A message whose first word is one of these continues another.
pub const CONTINUATIONS: &[&str] = &[
    "and",
    "also",
    "but",
    "or",
    "plus",
    "then",
    "so",
    "btw",
    "additionally",
    "besides",
    "except",
    "otherwise",
    "et",
    "aussi",
    "mais",
    "ou",
    "puis",
    "ensuite",
    "sinon",
    "alors",
    "donc",
    "également",
    "egalement",
];

/// A message whose first two words are one of these continues another.
pub const CONTINUATION_PAIRS: &[&str] = &[
    "what about",
    "how about",
    "what if",
    "same for",
    "as for",
    "as well",
    "quid de",
    "qu en",
    "et si",
];

/// A message whose last word is one of these is unfinished.
pub const CONNECTORS: &[&str] = &[
    "and", "or", "but", "with", "for", "to", "of", "the", "a", "an", "about", "from", "in", "on",
    "at", "by", "than", "because", "if", "so", "plus", "then", "et", "ou", "mais", "avec", "pour",
    "de", "du", "des", "le", "la", "les", "un", "une", "à", "au", "aux", "en", "sur", "par", "que",
    "car", "donc",
];

/// A message ending with one of these (after [`CLOSERS`] and [`SPACES`]) is finished, unless it
/// ends with an ellipsis (`...` or `…`).
pub const FINAL_MARKS: &[char] = &['.', '!', '?', '。', '！', '？', '؟', '।', '‽'];
/// Closing quotes and brackets, looked through for the final mark (`(see above.)`).
pub const CLOSERS: &[char] = &[')', ']', '"', '\'', '»', '”', '’', '」', '』'];
/// What is trimmed from the ends of a message before it is read or joined.
pub const SPACES: &[char] = &[' ', '\t', '\n', '\r', '\u{a0}', '\u{3000}'];

/// The signals, in the order [`signals`] names them.
pub const SIGNALS: &[&str] = &[
    "very_short",
    "back_reference",
    "continuation",
    "lowercase_start",
    "previous_incomplete",
    "within_window",
];

/// One earlier message of the conversation: its text and when it was sent (seconds, on the
/// same clock as the message routed: Unix time for the command and every runtime's API).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Turn<'a> {
    /// What the visitor wrote.
    pub text: &'a str,
    /// When, in seconds.
    pub time: f64,
}

/// A text's words as routing splits them (lowercased, runs of letters and digits), stopwords
/// kept: `and` and `it` are what the signals look for.
fn words(text: &str) -> Vec<String> {
    (text.to_lowercase().split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether a text's first letter or digit is a lowercase letter: one that uppercasing changes
/// and lowercasing does not (a digit or a letter of a script without case is neither).
fn starts_lowercase(text: &str) -> bool {
    text.chars()
        .find(|c| c.is_alphanumeric())
        .is_some_and(|c| !c.to_uppercase().eq([c]) && c.to_lowercase().eq([c]))
}

/// Whether a message reads as unfinished: it does not end with a final mark, ends with an
/// ellipsis, or its last word is a connector.
fn incomplete(text: &str) -> bool {
    let end = text.trim_end_matches(|c| SPACES.contains(&c) || CLOSERS.contains(&c));
    let finished = end.ends_with(FINAL_MARKS) && !end.ends_with("...") && !end.ends_with('…');
    let last = words(text).pop();
    !finished || last.is_some_and(|w| CONNECTORS.contains(&w.as_str()))
}

/// Whether a message sent at `later` came within the window of one sent at `earlier` (also
/// when it is older: clocks apart). A time that is not a number is never close.
fn close(earlier: f64, later: f64) -> bool {
    later - earlier <= WINDOW_SECONDS
}

/// The signals of fragmentation that hold for `message`, sent at `time`, after `previous`
/// (the last earlier message, if any), by their names in [`SIGNALS`].
pub fn signals(message: &str, time: f64, previous: Option<&Turn<'_>>) -> Vec<&'static str> {
    let words = words(message);
    let first_two = words.get(..2).map(|w| w.join(" "));
    let held = [
        words.len() <= SHORT_WORDS,
        words.iter().any(|w| BACK_REFERENCES.contains(&w.as_str())),
        words
            .first()
            .is_some_and(|w| CONTINUATIONS.contains(&w.as_str()))
            || first_two.is_some_and(|p| CONTINUATION_PAIRS.contains(&p.as_str())),
        starts_lowercase(message),
        previous.is_some_and(|p| incomplete(p.text)),
        previous.is_some_and(|p| close(p.time, time)),
    ];
    (SIGNALS.iter().zip(held))
        .filter_map(|(name, held)| held.then_some(*name))
        .collect()
}

/// Whether `message` is a fragment of what `history` (earlier messages, oldest first) ends
/// with: it has a word, and [`MIN_SIGNALS`] signals or more hold.
fn is_fragment(message: &str, time: f64, history: &[Turn<'_>]) -> bool {
    let has_word = message.chars().any(char::is_alphanumeric);
    has_word && signals(message, time, history.last()).len() >= MIN_SIGNALS
}

/// The text to route for `message`, sent at `time` after `history` (earlier messages, oldest
/// first), when it is a fragment that joins: the messages it continues and itself, trimmed,
/// joined by a space. Its context is the previous message when that came within
/// [`WINDOW_SECONDS`], and the one before that while each taken message was a fragment itself
/// and came within the window of the next, at most [`MAX_CONTEXT`]. `None`: route it alone.
pub fn join_fragment(message: &str, time: f64, history: &[Turn<'_>]) -> Option<String> {
    if !is_fragment(message, time, history) {
        return None;
    }
    let (mut start, mut next) = (history.len(), time);
    while start > 0 && history.len() - start < MAX_CONTEXT {
        let previous = history[start - 1];
        if !close(previous.time, next) {
            break;
        }
        start -= 1;
        next = previous.time;
        if !is_fragment(previous.text, previous.time, &history[..start]) {
            break;
        }
    }
    if start == history.len() {
        return None;
    }
    let parts = history[start..].iter().map(|t| t.text).chain([message]);
    let parts: Vec<&str> = parts
        .map(|t| t.trim_matches(SPACES))
        .filter(|t| !t.is_empty())
        .collect();
    Some(parts.join(" "))
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
