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
    /// Tokens of `text` under [`TOKENIZER`].
    pub(crate) fn count(&self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        let k = key(text);
        if let Some(n) = self.seen.read().ok().and_then(|m| m.get(&k).copied()) {
            return n;
        }
        let n = bpe_count(text) as u32;
        if let Ok(mut m) = self.seen.write() {
            if m.len() >= CACHE_LIMIT {
                m.clear();
            }
            m.insert(k, n);
        }
        n
    }
}

/// Tokens of `text` under [`TOKENIZER`], remembering nothing: what the tests compare with.
#[cfg(test)]
pub(crate) fn count(text: &str) -> u32 {
    bpe_count(text) as u32
}

/// Longest run without whitespace that is tokenised whole. BPE's merges are quadratic in the
/// length of one pre-tokenised piece: a 300 KB "word" took two minutes. A longer run is
/// counted in pieces of this size, which changes counts only of text no one writes by hand.
const LONG_RUN: usize = 400;

/// Tokens of `text`, cutting runs without whitespace longer than [`LONG_RUN`] bytes.
fn bpe_count(text: &str) -> usize {
    let bpe = tiktoken_rs::o200k_base_singleton();
    // Most texts have no such run: a pass over bytes tells (a run between ASCII spaces is at
    // least as long as one between any spaces), and they are counted whole.
    let has_long_run = text.len() > LONG_RUN
        && text
            .as_bytes()
            .split(u8::is_ascii_whitespace)
            .any(|run| run.len() > LONG_RUN);
    if !has_long_run {
        return bpe.encode_ordinary(text).len();
    }
    let mut total = 0;
    let mut from = 0;
    let mut run = 0;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            run = i + c.len_utf8();
        } else if i + c.len_utf8() - run > LONG_RUN {
            total += bpe.encode_ordinary(&text[from..i]).len();
            from = i;
            run = i;
        }
    }
    total + bpe.encode_ordinary(&text[from..]).len()
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

    #[test]
    fn a_long_word_is_counted_in_linear_time() {
        // Whole, this took minutes (BPE is quadratic in one piece); cut, it is a few ms.
        let word = "a".repeat(300_000);
        let n = super::count(&word);
        assert!(n > 300_000 / 400, "{n}");
        // Ordinary text is counted whole, as before.
        let text = "word ".repeat(1000);
        let whole = tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(&text)
            .len();
        assert_eq!(super::bpe_count(&text), whole);
    }
}
