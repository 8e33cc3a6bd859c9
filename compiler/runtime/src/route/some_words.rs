//! An index of the words one route reads (docs/routing.md, "Measured"): a process that routes
//! a single message (`skillc route`) need not index a catalog's hundreds of thousands of words
//! to rank it, only the words its route can look up, which the message itself tells.

use std::sync::atomic::{AtomicBool, Ordering};

use hashbrown::HashSet;

use super::{script_runs, spelling, word_char, RouteIndex, RoutingRules};

/// The words an index of some words was made of, and whether a route looked up another (whose
/// answer the whole index may give otherwise: the route is then made again on it).
#[derive(Debug)]
pub(super) struct Only {
    pub(super) words: HashSet<String>,
    /// Per first byte, a bit per length (63 for longer) that some of `words` has: most of a
    /// catalog's words are told apart from them by it, without hashing.
    sieve: Vec<u64>,
    pub(super) asked_another: AtomicBool,
}

impl Only {
    pub(super) fn new(words: HashSet<String>) -> Only {
        let mut sieve = vec![0u64; 256];
        for w in &words {
            if let Some(&first) = w.as_bytes().first() {
                sieve[usize::from(first)] |= 1 << w.len().min(63);
            }
        }
        Only {
            words,
            sieve,
            asked_another: AtomicBool::new(false),
        }
    }

    pub(super) fn holds(&self, word: &str) -> bool {
        let Some(&first) = word.as_bytes().first() else {
            return self.words.contains(word);
        };
        self.sieve[usize::from(first)] & (1 << word.len().min(63)) != 0 && self.words.contains(word)
    }
}

impl RouteIndex {
    /// The index of `docs` as [`RouteIndex::new`] makes it, but holding only `words` of them
    /// (each document's length and the catalog's total still count every word): what one
    /// route reads, for a process that routes once. Its words rank a message as the whole
    /// index does when they hold every word the route looks up ([`words_a_route_reads`]); a
    /// lookup of another is noted ([`RouteIndex::asked_another`]).
    pub fn of_words<'a>(
        docs: impl IntoIterator<Item = (usize, &'a str)>,
        words: HashSet<String>,
    ) -> RouteIndex {
        RouteIndex::build(docs.into_iter().collect(), Some(Only::new(words)))
    }

    /// Whether a route looked up a word this index of some words was not made of (never, for
    /// a whole index): its answer may not be the whole index's.
    pub fn asked_another(&self) -> bool {
        (self.only.as_ref()).is_some_and(|o| o.asked_another.load(Ordering::Relaxed))
    }

    /// The words an index of some words was made of (`None`: a whole index).
    pub fn only_words(&self) -> Option<&HashSet<String>> {
        self.only.as_ref().map(|o| &o.words)
    }
}

/// The most neighbours of misspelt words an index of some words lists for a route
/// ([`words_a_route_reads`]): those of some twenty words of seven letters, more than most
/// messages hold; beyond it the whole catalog is indexed.
pub const NEIGHBOURS_READ: usize = 8_192;

/// Every word a route of `message` may look up in a catalog's index, and more: its words
/// ([`RoutingRules::tokens`]), each word one edit from those that spelling may read as their
/// nearest known word ([`spelling::applies`]), and its neighbouring words written together
/// ([`RoutingRules::joined`]); and each character of its runs of scripts written without
/// spaces, which the glossary may hold alone ([`gloss`] asks the index whether it holds one).
/// An index of these words alone ([`RouteIndex::of_words`]) ranks `message` as the whole index
/// does. `None` when the words spelling could read have more than [`NEIGHBOURS_READ`]
/// neighbours between them: listing them costs more than indexing the whole catalog (a
/// hostile message of 8,000 such words has 10 million).
pub fn words_a_route_reads(message: &str, rules: &RoutingRules) -> Option<HashSet<String>> {
    let mut out: HashSet<String> = rules.tokens(message).into_iter().collect();
    let misspelt: Vec<&String> = match rules.spelling {
        Some(s) => out.iter().filter(|t| spelling::applies(t, &s)).collect(),
        None => Vec::new(),
    };
    // A word of n letters a–z has 53n + 25 neighbours one edit away.
    let neighbours: usize = misspelt.iter().map(|t| 53 * t.len() + 25).sum();
    if neighbours > NEIGHBOURS_READ {
        return None;
    }
    let mut near = HashSet::new();
    for t in misspelt {
        spelling::one_edit(t, |edit| {
            if !near.contains(edit) {
                near.insert(edit.to_string());
            }
        });
    }
    out.extend(near);
    for word in message.to_lowercase().split(|c: char| !word_char(c)) {
        for (_, run) in script_runs(word).filter(|(spaced, _)| !spaced) {
            let mut one = [0u8; 4];
            for c in run.chars() {
                out.extend(rules.tokens(c.encode_utf8(&mut one)));
            }
        }
    }
    out.extend(rules.joined(message));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::{card_terms, gloss, holds_every_word, look_up, Part, Ranking};
    use super::*;

    const RULES: fn() -> &'static RoutingRules = RoutingRules::built_in;

    /// An index of the words a route of a message reads ranks it exactly as the whole index:
    /// misspelt words read as their neighbours, words written together, scripts without
    /// spaces, words no skill holds; and it notes a route that looks up any other word.
    #[test]
    fn an_index_of_the_words_a_route_reads_ranks_as_the_whole_index() {
        let cards: &[(&str, &str, &[&str])] = &[
            (
                "invoices",
                "Create and send invoices, refunds and receipts.",
                &["bill the client"],
            ),
            (
                "google-tasks",
                "Add, list and complete tasks in googletasks.",
                &["todo list"],
            ),
            (
                "forecast",
                "Weather forecasts for any city, tomorrow included.",
                &["明天会下雨吗"],
            ),
            (
                "pricing",
                "Plans, prices and what each plan costs.",
                &["how much is pro"],
            ),
            ("translate", "Traduire un texte, übersetzen, 翻訳する.", &[]),
        ];
        let stored: Vec<String> = cards
            .iter()
            .map(|(name, description, examples)| {
                let examples: Vec<String> = examples.iter().map(|e| e.to_string()).collect();
                card_terms(
                    name,
                    description,
                    &examples,
                    &[],
                    "Open the dashboard first.",
                )
            })
            .collect();
        let docs = || stored.iter().enumerate().map(|(i, s)| (i, s.as_str()));
        let whole = RouteIndex::new(docs());
        let sorted = |mut r: Ranking| {
            r.scored.sort_by_key(|s| s.skill);
            r
        };
        for message in [
            "pls send the invoise and a refnd to acme",
            "add this to my google tasks, and the todo list",
            "明天北京会下雨吗？",
            "what will the wether be tomorow in Lisbon",
            "how much is the pro plan, per seat?",
            "übersetzen Sie bitte diesen Text, 翻訳して",
            "nothing anyone holds here",
            "",
        ] {
            let words = words_a_route_reads(message, RULES()).unwrap();
            let some = RouteIndex::of_words(docs(), words.clone());
            // It holds those of its words the catalog holds, and no other.
            assert_eq!(some.only_words(), Some(&words));
            assert_eq!(whole.only_words(), None);
            let held: HashSet<&String> = whole.ids.keys().filter(|w| words.contains(*w)).collect();
            assert_eq!(some.ids.keys().collect::<HashSet<_>>(), held, "{message:?}");
            assert_eq!(
                sorted(some.rank(message, RULES())),
                sorted(whole.rank(message, RULES())),
                "{message:?}"
            );
            assert!(!some.asked_another(), "{message:?}");
            assert!(!whole.asked_another());
            assert_eq!(
                (some.docs.clone(), some.total),
                (whole.docs.clone(), whole.total)
            );
        }
        // The glossary asks it whether the catalog holds a word it glosses, a lone character
        // of a script without spaces too: it holds those.
        let glossary = "wetter\tweather\n下雨\train\n猫\tcat\n".as_bytes();
        for message in ["我的猫明天下雨", "猫", "das wetter morgen"] {
            let some = RouteIndex::of_words(docs(), words_a_route_reads(message, RULES()).unwrap());
            let parts = [Part::whole(&some)];
            let glossed = gloss(
                message,
                |w| look_up(glossary, w),
                holds_every_word(&parts, None, RULES()),
            );
            assert!(glossed.is_some() && !some.asked_another(), "{message:?}");
        }
        // A message whose words spelling could read have more neighbours than are listed has
        // no such index: indexing the whole catalog costs less.
        let word = |i: usize| -> String {
            (0..5)
                .map(|k| b"qxzk"[(i >> (2 * k)) & 3] as char)
                .collect()
        };
        let message = |n: usize| (0..n).map(word).collect::<Vec<_>>().join(" ");
        let most = NEIGHBOURS_READ / (53 * 5 + 25);
        assert!(words_a_route_reads(&message(most), RULES()).is_some());
        assert!(words_a_route_reads(&message(most + 1), RULES()).is_none());
        // Made of too few words, it notes the route that looked up another.
        let few = RouteIndex::of_words(docs(), ["invoic".to_string()].into_iter().collect());
        assert!(!few.asked_another());
        assert_eq!(few.rank("invoices!", RULES()).words, ["invoic"]);
        assert!(!few.asked_another());
        few.rank("invoices, refunds", RULES());
        assert!(few.asked_another());
    }
}
