//! Token counts with a named, real tokenizer: OpenAI's `o200k_base` BPE (GPT-4o family).

/// The tokenizer's name, recorded in the artifact's manifest.
pub const TOKENIZER: &str = "o200k_base";

/// Tokens of `text` under [`TOKENIZER`].
pub fn count(text: &str) -> u32 {
    if text.is_empty() {
        return 0;
    }
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len() as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_with_the_real_bpe() {
        assert_eq!(super::count(""), 0);
        assert_eq!(super::count("hello world"), 2);
    }
}
