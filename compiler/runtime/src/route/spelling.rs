//! Misspelt words (docs/routing.md, "Misspelt words"): a word of a message that the catalog's
//! index does not hold is read as the word one edit away that the catalog weighs most, so
//! "tomorow" meets `tomorrow` and "acount" `account`. The message's meaning vector reads such a
//! word as the table's word spelling the same known word, where the table cannot read it
//! ([`super::Meaning::spelt`]).

use serde::{Deserialize, Serialize};

use super::{held_by, Part};

/// Which words a route reads as their nearest known word: those of `min_letters` to
/// `max_letters` letters a–z (as indexed: lowercased and stemmed, so "wether" is `weth`, four
/// letters) that no skill of the catalog holds. Shorter words have too many neighbours ("deck"
/// is one edit from `deco`, "tell" from `well`), above all in a small catalog, whose unknown
/// words are mostly ordinary ones it does not use; the bound above keeps a hostile message's
/// cost small. An artifact's `routing_rules` carry it; one without it (built before it) reads
/// every word as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spelling {
    /// The fewest letters of a word read as its neighbour.
    pub min_letters: usize,
    /// The most (at most [`MAX_LETTERS`]).
    pub max_letters: usize,
}

/// This crate's rule.
pub const SPELLING: Spelling = Spelling {
    min_letters: 5,
    max_letters: 24,
};

/// The longest word an artifact's rules may ask to read as a neighbour: a word of `n` letters
/// has `53n + 25` neighbours to look up.
pub const MAX_LETTERS: usize = 64;

/// Whether `spelling` reads `word` (an indexed word no skill holds) as its nearest known word.
pub(super) fn applies(word: &str, spelling: &Spelling) -> bool {
    (spelling.min_letters..=spelling.max_letters).contains(&word.len())
        && word.bytes().all(|b| b.is_ascii_lowercase())
}

/// The word one edit from `word` (a letter deleted, inserted or changed, or two neighbouring
/// letters swapped, letters a–z) that the kept skills of `parts` hold, with its id in each
/// part: of several, the one whose counts in the catalog sum highest, then the one more skills
/// hold, then the first in code-point order. `word` is one [`applies`] to.
pub(super) fn nearest_known(
    parts: &[Part<'_>],
    word: &str,
) -> Option<(String, Vec<Option<usize>>)> {
    // (summed counts, skills holding it, the word, its ids)
    let mut best: Option<(u64, usize, String, Vec<Option<usize>>)> = None;
    let mut consider = |candidate: &str| {
        if !parts.iter().any(|p| p.index.may_hold(candidate)) {
            return;
        }
        let ids: Vec<Option<usize>> = parts.iter().map(|p| p.id(candidate)).collect();
        if ids.iter().all(Option::is_none) {
            return;
        }
        let (weight, skills) =
            held_by(parts, &ids).fold((0u64, 0usize), |(w, s), hit| (w + u64::from(hit.3), s + 1));
        let better = best.as_ref().is_none_or(|(w, s, known, _)| {
            (weight, skills) > (*w, *s) || ((weight, skills) == (*w, *s) && candidate < known)
        });
        if better {
            best = Some((weight, skills, candidate.to_string(), ids));
        }
    };
    one_edit(word, &mut consider);
    best.map(|(_, _, known, ids)| (known, ids))
}

/// Which words of letters a–z an index holds, by their first two letters and their last two:
/// a word whose four no word of the index has is not in it. Most words one edit from a
/// misspelt one (hundreds a word) are found absent by this bit alone rather than by a lookup.
#[derive(Debug)]
pub(super) struct Ends(Box<[u64]>);

impl Ends {
    /// The bit of a word's ends; `None` for a word of fewer than two letters or of others
    /// than a–z.
    fn bit(word: &str) -> Option<usize> {
        let b = word.as_bytes();
        if b.len() < 2 || !b.iter().all(u8::is_ascii_lowercase) {
            return None;
        }
        // Two letters as a number below 26²: the first two, then the last two.
        let pair = |i: usize| usize::from(b[i] - b'a') * 26 + usize::from(b[i + 1] - b'a');
        Some(pair(0) * 26 * 26 + pair(b.len() - 2))
    }

    /// The ends of `words`.
    pub(super) fn of<'a>(words: impl Iterator<Item = &'a str>) -> Ends {
        let mut bits = vec![0u64; (26 * 26 * 26 * 26usize).div_ceil(64)];
        for bit in words.filter_map(Ends::bit) {
            bits[bit / 64] |= 1 << (bit % 64);
        }
        Ends(bits.into_boxed_slice())
    }

    /// Whether a word with `word`'s ends is among them (always, for a word without a bit).
    pub(super) fn may_hold(&self, word: &str) -> bool {
        Ends::bit(word).is_none_or(|bit| self.0[bit / 64] & (1 << (bit % 64)) != 0)
    }
}

/// Each word one edit from `word` (letters a–z): a letter deleted, two neighbouring letters
/// swapped, a letter changed or one inserted, in that order at each position (a word may come
/// more than once). What [`nearest_known`] considers, and what a route that reads only some of
/// a catalog's words asks its index for ([`super::words_a_route_reads`]).
pub(super) fn one_edit(word: &str, each: impl FnMut(&str)) {
    // Every edit starts with nothing: none is passed over.
    one_edit_starting(word, "", each);
}

/// The words of [`one_edit`] of `word` that start with `start`, made without the others (the
/// Python runtime's `one_edit_starting`): the letters before an edit are the word's own, so
/// none is made past a position where `word` leaves `start`, and an edit inside `start` can
/// only write `start`'s letter there (one word instead of 26). What a misspelt word's reading
/// for the meaning looks up ([`super::Meaning::spelt`]): its edits that a known word's stem
/// starts.
pub(super) fn one_edit_starting(word: &str, start: &str, mut each: impl FnMut(&str)) {
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyz";
    // Of letters a–z (ASCII: every byte starts a character, so every slice below is one).
    if !word.is_ascii() || !start.is_ascii() {
        return;
    }
    let mut edit = String::with_capacity(word.len() + 1);
    // With no start every edit is one (a misspelt word's lookups, hundreds a word): comparing
    // nothing still called memcmp for each, a quarter of a route with three misspelt words.
    let every = start.is_empty();
    let mut write = |pieces: &[&str]| {
        edit.clear();
        for p in pieces {
            edit.push_str(p);
        }
        if every || edit.starts_with(start) {
            each(&edit);
        }
    };
    for i in 0..=word.len() {
        let (head, tail) = word.split_at(i);
        let agrees = if i <= start.len() {
            start.starts_with(head)
        } else {
            head.starts_with(start)
        };
        if !agrees {
            break;
        }
        let written = if i < start.len() {
            &start[i..=i]
        } else {
            LETTERS
        };
        let letters = (0..written.len()).map(|c| &written[c..=c]);
        if !tail.is_empty() {
            let (first, rest) = tail.split_at(1);
            write(&[head, rest]);
            if !rest.is_empty() {
                let (second, after) = rest.split_at(1);
                write(&[head, second, first, after]);
            }
            for letter in letters.clone().filter(|&l| l != first) {
                write(&[head, letter, rest]);
            }
        }
        for letter in letters {
            write(&[head, letter, tail]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{card_terms, RouteIndex, RoutingRules};
    use super::{one_edit, one_edit_starting};

    fn index(cards: &[(&str, &str)]) -> RouteIndex {
        let stored: Vec<String> = cards
            .iter()
            .map(|(name, description)| card_terms(name, description, &[], &[], ""))
            .collect();
        RouteIndex::new(stored.iter().enumerate().map(|(i, s)| (i, s.as_str())))
    }

    fn words(ix: &RouteIndex, message: &str, rules: &RoutingRules) -> Vec<String> {
        ix.rank(message, rules).words
    }

    /// A word no skill holds, one edit from one that a skill holds (a letter deleted, inserted,
    /// changed, two swapped), is read as that word; a word of fewer letters than the rule's,
    /// or of other letters than a–z, is not.
    #[test]
    fn a_misspelt_word_is_read_as_the_known_word_one_edit_away() {
        let ix = index(&[
            (
                "forecast",
                "Weather forecasts for any city, tomorrow included.",
            ),
            ("git-push", "Commit and push changes with a message."),
            ("lights", "Turn the living room lights on and off."),
        ]);
        let rules = RoutingRules::built_in();
        assert_eq!(words(&ix, "tomorow", rules), ["tomorrow"]);
        // What each word tried was read as, for the meaning's reading not to look it up again.
        assert_eq!(
            ix.rank("tomorow forecast xqzvbn", rules).read_as,
            [
                ("tomorow".to_string(), Some("tomorrow".to_string())),
                ("xqzvbn".to_string(), None)
            ]
        );
        let nothing_known = ix.rank("xqzvbn", rules);
        assert!(nothing_known.words.is_empty());
        assert_eq!(nothing_known.read_as, [("xqzvbn".to_string(), None)]);
        // The index's own sieve: its words' ends, and none other.
        assert!(ix.may_hold("tomorrow") && ix.may_hold("toxxow") && ix.may_hold("lizzht"));
        assert!(!ix.may_hold("tomorrox") && !ix.may_hold("zzzzz"));
        assert_eq!(words(&ix, "forcast", rules), ["forecast"]);
        assert_eq!(words(&ix, "comit chagnes", rules), ["commit", "chang"]);
        assert_eq!(words(&ix, "lihgts", rules), ["light"]);
        assert_eq!(ix.rank("lihgts", rules).scored[0].skill, 2);
        assert_eq!(words(&ix, "ppush cmmit", rules), ["push", "commit"]);
        // Four letters have too many neighbours ("psuh" stays unread); a word of other letters
        // is left as it is.
        assert!(words(&ix, "psuh", rules).is_empty());
        assert!(words(&ix, "tomorów", rules).is_empty());
        // An artifact without the rule (built before it) reads words as written.
        let mut as_written = rules.clone();
        as_written.spelling = None;
        assert!(words(&ix, "tomorow", &as_written).is_empty());
    }

    /// Of several known words one edit away, the one the catalog counts most is read, then the
    /// one more skills hold, then the first in code-point order; the same word twice counts once.
    #[test]
    fn of_several_neighbours_the_one_the_catalog_weighs_most_is_read() {
        let rules = RoutingRules::built_in();
        // "xables" is one edit from `cable`, `table` and `gable`; `table` is named and said
        // twice (6 + 2 · 4), the others named and said once (6 + 4).
        let ix = index(&[
            ("cable", "Cable modems."),
            ("table", "Tables for a table booking."),
            ("gable", "Gable roofs."),
        ]);
        assert_eq!(words(&ix, "xables", rules), ["table"]);
        assert_eq!(words(&ix, "xables tables", rules), ["table"]);
        // Counted and held alike: the first in code-point order.
        let ix = index(&[("gable", "Gable roofs."), ("cable", "Cable modems.")]);
        assert_eq!(words(&ix, "xables", rules), ["cable"]);
        // Whatever order the edits meet them in: "lable" meets `table` (its first letter
        // changed) before `label` (two letters swapped).
        let ix = index(&[("table", "Tables, a table."), ("label", "Labels.")]);
        assert_eq!(words(&ix, "lable", rules), ["table"]);
        let ix = index(&[("table", "Tables."), ("label", "Labels.")]);
        assert_eq!(words(&ix, "lable", rules), ["label"]);
        // Counted alike (twice 4), held by two skills against one.
        let ix = index(&[
            ("one", "Zebra notes."),
            ("two", "Zebra files."),
            ("three", "Xebra, xebra again."),
        ]);
        assert_eq!(words(&ix, "yebra", rules), ["zebra"]);
    }

    /// Every edit of a word, made plainly here: the letters deleted, the neighbours swapped,
    /// the letters changed, the letters inserted.
    fn edits_of(word: &str) -> std::collections::BTreeSet<String> {
        let b = word.as_bytes();
        let mut out = std::collections::BTreeSet::new();
        let text = |v: Vec<u8>| String::from_utf8(v).unwrap();
        for i in 0..=b.len() {
            for c in b'a'..=b'z' {
                out.insert(text([&b[..i], &[c], &b[i..]].concat()));
                if i < b.len() && c != b[i] {
                    out.insert(text([&b[..i], &[c], &b[i + 1..]].concat()));
                }
            }
            if i < b.len() {
                out.insert(text([&b[..i], &b[i + 1..]].concat()));
            }
            if i + 1 < b.len() {
                out.insert(text([&b[..i], &[b[i + 1], b[i]], &b[i + 2..]].concat()));
            }
        }
        out
    }

    /// The edits made are every edit of the word, and those made starting with a start
    /// exactly the ones that do: for every word of up to five letters of a small alphabet and
    /// every start of up to four (inside the word, past it, agreeing or not); none of a word
    /// or start of other letters.
    #[test]
    fn the_edits_starting_with_a_start_are_all_edits_that_do() {
        use std::collections::BTreeSet;
        let words_of = |n: usize| -> Vec<String> {
            (0..n).fold(vec![String::new()], |words, _| {
                let longer = words
                    .iter()
                    .flat_map(|w| ["a", "b", "z"].map(|c| format!("{w}{c}")));
                words
                    .iter()
                    .cloned()
                    .chain(longer)
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect()
            })
        };
        let (words, starts) = (words_of(5), words_of(4));
        let mut made = 0;
        for word in &words {
            let all = edits_of(word);
            let mut got = BTreeSet::new();
            one_edit(word, |e| {
                got.insert(e.to_string());
            });
            assert_eq!(got, all, "{word}");
            for start in &starts {
                let want: BTreeSet<&String> = all
                    .iter()
                    .filter(|e| e.starts_with(start.as_str()))
                    .collect();
                let mut got = BTreeSet::new();
                one_edit_starting(word, start, |e| {
                    assert!(e.starts_with(start.as_str()), "{word} {start} {e}");
                    got.insert(e.to_string());
                });
                assert_eq!(got.iter().collect::<BTreeSet<_>>(), want, "{word} {start}");
                made += got.len();
            }
        }
        assert!(made > 10_000, "{made}");
        let mut none = true;
        one_edit("café", |_| none = false);
        one_edit_starting("café", "ca", |_| none = false);
        one_edit_starting("cafe", "ça", |_| none = false);
        assert!(none);
    }

    /// The ends' bits never leave out a word the index holds, and leave out a word whose first
    /// two and last two letters no word of it has; a word of other letters is never left out.
    #[test]
    fn the_ends_of_an_indexs_words_leave_out_only_words_it_cannot_hold() {
        let ends = super::Ends::of(["table", "cable", "go", "naïve"].into_iter());
        for held in ["table", "cable", "go", "tazzle", "gogo", "cale"] {
            assert!(ends.may_hold(held), "{held}");
        }
        for absent in ["tabla", "fable", "gone", "tables", "og", "naive"] {
            assert!(!ends.may_hold(absent), "{absent}");
        }
        for unread in ["naïve", "x", "", "Table"] {
            assert!(ends.may_hold(unread), "{unread}");
        }
        // Every four ends have a bit of their own: of all words of four letters, whose ends
        // are the word, only that of `table`'s ends passes a sieve of `table` alone.
        let table = super::Ends::of(["table"].into_iter());
        let four_letters = (0..26usize.pow(4)).map(|n| {
            let letter = |k: u32| char::from(b'a' + (n / 26usize.pow(3 - k) % 26) as u8);
            (0..4).map(letter).collect::<String>()
        });
        let passing: Vec<String> = four_letters.filter(|w| table.may_hold(w)).collect();
        assert_eq!(passing, ["tale"]);
    }

    /// At most `max_words` unknown words of a message are tried: a message of a thousand
    /// unknown words costs a route no more than a message of sixty-four.
    #[test]
    fn a_route_tries_at_most_max_words_unknown_words() {
        let ix = index(&[("planner", "Plan the week ahead.")]);
        let rules = RoutingRules::built_in();
        let unknown = |n: usize| -> String {
            (0..n)
                .map(|i| {
                    format!(
                        "wxyz{}{}q ",
                        (b'a' + (i % 26) as u8) as char,
                        (b'a' + (i / 26) as u8) as char
                    )
                })
                .collect()
        };
        assert_eq!(
            words(&ix, &(unknown(63) + "plann"), rules),
            ["plann"[..4].to_string()]
        );
        assert!(words(&ix, &(unknown(64) + "plann"), rules).is_empty());
        assert_eq!(words(&ix, &(unknown(64) + "plan"), rules), ["plan"]);
    }
}
