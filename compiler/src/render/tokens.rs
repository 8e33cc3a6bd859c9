//! Token counts with a named, real tokenizer: OpenAI's `o200k_base` BPE (GPT-4o family).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{OnceLock, RwLock};

/// The tokenizer's name, recorded in the artifact's manifest.
pub const TOKENIZER: &str = "o200k_base";

/// Counts already made in this process, by a hash of the text: `watch` and the studio rebuild
/// mostly unchanged texts, and tokenising is the largest part of rendering.
static SEEN: OnceLock<RwLock<HashMap<(u64, usize), u32>>> = OnceLock::new();

/// Entries kept before the cache starts over (about 40 MB).
const CACHE_LIMIT: usize = 1 << 20;

fn key(text: &str) -> (u64, usize) {
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    (h.finish(), text.len())
}

/// Tokens of `text` under [`TOKENIZER`].
pub fn count(text: &str) -> u32 {
    if text.is_empty() {
        return 0;
    }
    let seen = SEEN.get_or_init(Default::default);
    let k = key(text);
    if let Some(n) = seen.read().ok().and_then(|m| m.get(&k).copied()) {
        return n;
    }
    let n = tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len() as u32;
    if let Ok(mut m) = seen.write() {
        if m.len() >= CACHE_LIMIT {
            m.clear();
        }
        m.insert(k, n);
    }
    n
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_with_the_real_bpe() {
        assert_eq!(super::count(""), 0);
        assert_eq!(super::count("hello world"), 2);
    }
}
