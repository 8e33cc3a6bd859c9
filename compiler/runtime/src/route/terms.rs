//! A card's routing terms as the build writes them (`card_route.terms`) and every runtime reads
//! them: the words of its catalog texts, weighted by where they appear, and its body's prose
//! words once each.

use std::collections::BTreeMap;

use super::{tokens, word_char};

/// How much each place a word appears in counts: the name most, then the description, then
/// each trigger example and `when_to_use` line, then the body (each distinct word once).
const NAME_WEIGHT: u32 = 6;
const DESCRIPTION_WEIGHT: u32 = 4;
pub(super) const EXAMPLE_WEIGHT: u32 = 2;
const BODY_WEIGHT: u32 = 1;

/// The distinct words of a skill body's prose, sorted and space-separated: its words outside
/// fenced code blocks, made as a message's are. What [`card_terms`] indexes
/// of a body.
pub fn prose_words(body: &str) -> String {
    let words: Vec<String> = prose_lines(body).flat_map(tokens).collect();
    distinct_sorted(words.iter().map(String::as_str))
}

/// The distinct words of a skill body's prose as written, sorted and space-separated: its
/// lowercased runs of word characters outside fenced code blocks, neither stemmed nor left
/// out as stopwords. What the built-in meaning reads of a body
/// ([`super::Meaning::vector_of_words`]).
pub fn prose_text_words(body: &str) -> String {
    // Lowercased a line at a time, as a message is; a line break parts words anyway.
    let mut lower = String::with_capacity(body.len());
    for line in prose_lines(body) {
        lower.push_str(&line.to_lowercase());
        lower.push('\n');
    }
    distinct_sorted(
        lower
            .split(|c: char| !word_char(c))
            .filter(|w| !w.is_empty()),
    )
}

/// `words` once each, sorted (by their bytes) and space-separated: sorted in place, not put
/// one by one in a tree (a body's prose was a twentieth of a 5,000-client build so).
fn distinct_sorted<'a>(words: impl Iterator<Item = &'a str>) -> String {
    let mut words: Vec<&str> = words.collect();
    words.sort_unstable();
    words.dedup();
    words.join(" ")
}

/// A body's lines outside fenced code blocks: a line opening with three backticks or tildes
/// opens one and the next such line closes it.
fn prose_lines(body: &str) -> impl Iterator<Item = &str> {
    let mut in_code = false;
    body.lines().filter(move |line| {
        let opening = line.trim_start();
        let fence = opening.starts_with("```") || opening.starts_with("~~~");
        in_code ^= fence;
        !fence && !in_code
    })
}

/// A card's indexed words and their weighted counts, as stored in `card_route.terms` (`word:count`
/// pairs sorted by word, a word counted once written alone): `body_words` are the body's
/// distinct words ([`prose_words`]).
pub fn card_terms(
    name: &str,
    description: &str,
    examples: &[String],
    when_to_use: &[String],
    body_words: &str,
) -> String {
    let mut terms: BTreeMap<String, u32> = BTreeMap::new();
    let mut add = |text: &str, weight: u32| {
        for t in tokens(text) {
            *terms.entry(t).or_default() += weight;
        }
    };
    add(name, NAME_WEIGHT);
    add(description, DESCRIPTION_WEIGHT);
    for e in examples.iter().chain(when_to_use) {
        add(e, EXAMPLE_WEIGHT);
    }
    for w in body_words.split(' ').filter(|w| !w.is_empty()) {
        *terms.entry(w.to_string()).or_default() += BODY_WEIGHT;
    }
    // Most of a body's words are counted once: alone, they take a fifth less room in a
    // collection's artifact.
    let pairs: Vec<String> = (terms.iter())
        .map(|(t, n)| match n {
            1 => t.clone(),
            n => format!("{t}:{n}"),
        })
        .collect();
    pairs.join(" ")
}

/// The pairs of a stored `card_route.terms` ([`card_terms`]): split at spaces, each at its
/// last `:` (a pair without one counts 1; one whose count is no number is left out). One pass
/// over the bytes: a catalog of long bodies stores hundreds of thousands of pairs of a few
/// bytes each, and searching each for its space and then its colon took a fifth of a process
/// that routes once.
pub fn parse_terms(stored: &str) -> impl Iterator<Item = (&str, u32)> {
    let bytes = stored.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || loop {
        if at >= bytes.len() {
            return None;
        }
        let (start, mut colon) = (at, None);
        while at < bytes.len() && bytes[at] != b' ' {
            if bytes[at] == b':' {
                colon = Some(at);
            }
            at += 1;
        }
        let end = at;
        at += 1;
        // Cut at ASCII bytes only: every slice falls on a character's boundary.
        match colon {
            _ if start == end => continue,
            Some(c) => match stored[c + 1..end].parse() {
                Ok(count) => return Some((&stored[start..c], count)),
                Err(_) => continue,
            },
            None => return Some((&stored[start..end], 1)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_terms_are_sorted_word_count_pairs() {
        let body = prose_words("Quote prices in pounds.\n```sh\necho uk-only\n```\nVAT is in GBP.");
        assert_eq!(body, "gbp pound pric quot vat");
        let stored = card_terms(
            "pricing-uk",
            "Prices in GBP.",
            &["How much?".into()],
            &[],
            &body,
        );
        assert_eq!(stored, "gbp:5 much:2 pound pric:11 quot uk:6 vat");
        let back: Vec<(&str, u32)> = parse_terms(&stored).collect();
        assert_eq!(back[..3], [("gbp", 5), ("much", 2), ("pound", 1)]);
        assert_eq!(back.len(), 7);
        assert_eq!(parse_terms("").count(), 0);
        // Pairs split at spaces (runs of them too), each at its last colon; a count that is no
        // number leaves its pair out.
        let odd: Vec<(&str, u32)> = parse_terms(" a  b:2 c:x d:e:3 é:4 価格 f: ").collect();
        assert_eq!(odd, [("a", 1), ("b", 2), ("d:e", 3), ("é", 4), ("価格", 1)]);
    }

    #[test]
    fn a_bodys_words_as_written_are_its_prose_lowercased_once_each() {
        let body = "Quote the Prices in pounds.\n~~~\necho uk-only\n~~~\nVAT is in GBP, the prices.\n```\nopen";
        // Neither stemmed nor stopwords left out; the fenced lines, fences and an unclosed
        // block are not prose.
        assert_eq!(
            prose_text_words(body),
            "gbp in is pounds prices quote the vat"
        );
        assert_eq!(prose_words(body), "gbp pound pric quot vat");
        assert_eq!(prose_text_words(""), "");
    }

    /// The words of many bodies, as a tree of them gives them: Greek's final sigma at a line's
    /// end, lines ended by CRLF, fences, words repeated in other cases.
    #[test]
    fn a_bodys_words_are_those_a_tree_of_them_gives() {
        use std::collections::BTreeSet;
        let lines = [
            "ΟΔΟΣ Οδός",
            "Prices in pounds, PRICES!",
            "```",
            "code Code",
            "~~~ x",
            "Straße STRASSE",
            "the prices\r",
            "",
            "日本語のテキスト 価格",
            "a b a",
            "İstanbul ıi",
            "quote's quotes",
        ];
        for start in 0..lines.len() {
            for len in [1, 3, 6, lines.len()] {
                let body = (lines.iter().cycle().skip(start).take(len))
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n");
                let text: BTreeSet<String> = (prose_lines(&body))
                    .flat_map(|l| {
                        let lower = l.to_lowercase();
                        (lower.split(|c: char| !word_char(c)))
                            .filter(|w| !w.is_empty())
                            .map(str::to_string)
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let index: BTreeSet<String> = prose_lines(&body).flat_map(tokens).collect();
                let joined = |set: BTreeSet<String>| set.into_iter().collect::<Vec<_>>().join(" ");
                assert_eq!(prose_text_words(&body), joined(text), "{body:?}");
                assert_eq!(prose_words(&body), joined(index), "{body:?}");
            }
        }
    }
}
