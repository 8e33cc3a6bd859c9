//! Token counts with a named, real tokenizer: OpenAI's `o200k_base` BPE (GPT-4o family).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::RwLock;

/// The tokenizer's name, recorded in the artifact's manifest.
pub(crate) const TOKENIZER: &str = "o200k_base";

/// Entries kept before the memo starts over (about 40 MB).
const CACHE_LIMIT: usize = 1 << 20;

fn key(text: &str) -> (u64, usize) {
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    (h.finish(), text.len())
}

/// Counts already made, by a hash of the text: a build renders the same texts for many
/// clients, `watch` and the studio rebuild mostly unchanged texts, and tokenising is the
/// largest part of rendering. A session keeps one from build to build; a one-shot build has
/// its own.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    seen: RwLock<HashMap<(u64, usize), u32>>,
}

impl Counts {
    /// Tokens of `text` under [`TOKENIZER`]: a text of several lines is the sum of its lines'
    /// counts, each remembered ([`lines`]). The bodies of one skill for 500 clients differ in
    /// the line naming each client: the others are counted once.
    pub(crate) fn count(&self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        self.remembered(text, || {
            let mut parts = lines(text).peekable();
            match parts.next() {
                Some(first) if parts.peek().is_some() => std::iter::once(first)
                    .chain(parts)
                    .map(|p| self.remembered(p, || bpe_count(p) as u32))
                    .sum(),
                _ => bpe_count(text) as u32,
            }
        })
    }

    /// The remembered count of `text`, else `counted()`, remembered.
    fn remembered(&self, text: &str, counted: impl FnOnce() -> u32) -> u32 {
        let k = key(text);
        if let Some(n) = self.seen.read().ok().and_then(|m| m.get(&k).copied()) {
            return n;
        }
        let n = counted();
        if let Ok(mut m) = self.seen.write() {
            if m.len() >= CACHE_LIMIT {
                m.clear();
            }
            m.insert(k, n);
        }
        n
    }
}

/// Texts shorter than this are counted whole.
const LINES_FROM: usize = 256;

/// `text` cut after each line break that a line's text follows directly: before a character
/// that is neither white space nor `/`. The tokenizer's pieces never cross such a place
/// (`o200k_base` ends a piece after a run of line breaks, unless `/` follows a run of
/// punctuation and line breaks, and no piece starts with one; it looks ahead only across
/// white space, and never behind), and BPE runs within a piece: the lines' counts add up to
/// the text's, which the tests check on random texts.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut from = 0;
    let mut cuts = text.match_indices('\n').filter_map(move |(i, _)| {
        let at = i + 1;
        let next = text[at..].chars().next()?;
        (text.len() >= LINES_FROM && !next.is_whitespace() && next != '/').then_some(at)
    });
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        match cuts.next() {
            Some(at) => {
                let part = &text[from..at];
                from = at;
                Some(part)
            }
            None => {
                done = true;
                Some(&text[from..])
            }
        }
    })
}

/// Tokens of `text` under [`TOKENIZER`], remembering nothing: what the tests compare with.
#[cfg(test)]
pub(crate) fn count(text: &str) -> u32 {
    bpe_count(text) as u32
}

/// Tokens of `text` under [`TOKENIZER`]: o200k's own pre-tokenising pattern and BPE, as
/// GitHub's `bpe` crate computes them, which counts exactly as OpenAI's tiktoken does (the
/// tests check on random texts) in a quarter of the time and in linear time for any text
/// (tiktoken's merges are quadratic in a run without spaces: a 300 KB "word" took minutes).
fn bpe_count(text: &str) -> usize {
    bpe_openai::o200k_base().count(text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_with_the_real_bpe() {
        assert_eq!(super::count(""), 0);
        assert_eq!(super::count("hello world"), 2);
        let counts = super::Counts::default();
        assert_eq!(counts.count("hello world"), 2);
        assert_eq!(counts.count("hello world"), 2, "the remembered count");
    }

    /// Lines counted apart add up to the text counted whole, on texts made of what the
    /// tokenizer's pieces turn on: line breaks, spaces (also non-breaking), punctuation, `/`,
    /// letters of both cases, digits, contractions, accents and an unspaced script.
    #[test]
    fn lines_add_up_to_the_whole() {
        use proptest::prelude::*;
        let bits = prop::sample::select(vec![
            "\n",
            "\n\n",
            "\n\n\n",
            "\r\n",
            " ",
            "  ",
            "\u{a0}",
            "\t",
            ".",
            "-",
            "/",
            "//",
            "word",
            "Word",
            "WORD",
            "'s",
            "12",
            "12345",
            "é",
            "日本語",
            "#",
            "**",
            "`x`",
            "\n/",
        ]);
        let texts = prop::collection::vec(bits, 0..400).prop_map(|v| v.concat());
        let counts = super::Counts::default();
        proptest!(ProptestConfig::with_cases(300), |(text in texts)| {
            let whole = tiktoken(&text) as u32;
            prop_assert_eq!(counts.count(&text), whole);
            let parts: Vec<&str> = super::lines(&text).collect();
            prop_assert_eq!(parts.concat(), text);
        });
    }

    #[test]
    fn a_long_word_is_counted_whole_in_linear_time() {
        // With tiktoken's quadratic merges a 300 KB word took minutes; here a few milliseconds.
        let word = "ab".repeat(2_000);
        assert_eq!(super::bpe_count(&word), tiktoken(&word));
        let word = "a".repeat(300_000);
        assert_eq!(super::bpe_count(&word), 37_500);
    }

    /// OpenAI's own count of `text` (tiktoken), which this crate's must equal.
    fn tiktoken(text: &str) -> usize {
        tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(text)
            .len()
    }

    /// The counts are o200k's as tiktoken makes them, on texts of many scripts and of what
    /// the pre-tokenising pattern turns on (cases, contractions, digits, marks, line breaks
    /// and spaces of every kind).
    #[test]
    fn counts_are_tiktokens() {
        use proptest::prelude::*;
        let bits = prop::sample::select(vec![
            "\n",
            "\r\n",
            " ",
            "  ",
            "\u{a0}",
            "\t",
            "\u{3000}",
            "\u{200b}",
            ".",
            "-",
            "/",
            "!?",
            "'",
            "'s",
            "'LL",
            "word",
            "Word",
            "WORD",
            "ABCdef",
            "12",
            "12345",
            "x1",
            "é",
            "e\u{301}",
            "Straße",
            "Привет",
            "مرحبا",
            "שלום",
            "नमस्ते",
            "ไทย",
            "한국어",
            "日本語",
            "カタカナ",
            "😀",
            "👍🏽",
            "ǅ",
            "ﬁ",
            "Ⅻ",
            "²",
            "٣",
            "**",
            "`x`",
        ]);
        let texts = prop::collection::vec(bits, 0..300).prop_map(|v| v.concat());
        proptest!(ProptestConfig::with_cases(500), |(text in texts)| {
            prop_assert_eq!(super::bpe_count(&text), tiktoken(&text));
        });
    }
}
