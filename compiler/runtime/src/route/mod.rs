//! Routing a message to the skills of a catalog (SPEC 13.1, seed 001's first stage): the words
//! of every card are indexed at build time (`card_route.terms`), and a message is ranked against the
//! bundle's catalog by BM25: the idf mass a skill matches, saturated into [0, 1) against what
//! one rare word of a catalog that size weighs (see [`evidence_scale`]). The Python and TypeScript runtimes implement the
//! same tokenizer and scoring (see `docs/routing.md`); the parity runs compare them.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

mod answer;
mod dense;
mod fuse;
mod glossary;
pub mod history;
mod lanes;
mod meaning;
mod settings;
mod small_talk;
mod some_words;
mod spelling;
mod stored;
mod terms;
#[cfg(test)]
mod word_chars;
mod words;

pub use answer::{Candidate, Query, Route, TAIL_BELOW, TAIL_WORDS};
pub use dense::{Asked, Closeness, DenseIndex};
pub use fuse::{fuse, fused, similarity_needed, LEXICAL_SHARE};
pub use glossary::{gloss, glossary_row, look_up, GLOSSARY_MAX_CHARS, GLOSSARY_MAX_READ};
pub use history::Turn;
pub use meaning::Meaning;
pub(crate) use settings::RoutingTable;
pub use settings::{RoutingDefaults, RoutingRules, RoutingSettings};
pub use small_talk::{
    pair_key, raised_floor, small_talk_row, talk_pairs, talk_pairs_row, talk_words, talk_words_row,
    TalkWeights, EDGE, SMALL_TALK_SHARE, TALK_WORDS_ENDS, TALK_WORDS_FROM, TALK_WORDS_LOWERS,
    TALK_WORDS_SHARE,
};
use some_words::Only;
pub use some_words::{words_a_route_reads, NEIGHBOURS_READ};
pub use spelling::{Spelling, MAX_LETTERS, SPELLING};
pub use stored::{decode, decode_stored, encode, encode_whole, parse_query_vector};
use terms::EXAMPLE_WEIGHT;
pub use terms::{card_terms, parse_terms, prose_text_words, prose_words};
pub use words::{mark, script_runs, word_char};
pub use words::{tokens, STOPWORDS, SUFFIXES, UNSPACED};

/// BM25's term-frequency saturation: 1.2, the usual value, for counts in units of a trigger
/// example's word; the weights below count a body's word as one and the others twice over.
const K1: f64 = 2.4;
/// BM25's length normalisation.
const B: f64 = 0.75;
impl RoutingRules {
    /// [`evidence_scale`] by these rules' factor.
    pub fn evidence_scale(&self, n: f64) -> f64 {
        let m = (1.0 + (n - 0.5) / 1.5).ln().max(0.0);
        self.evidence_factor * m * m
    }
}

/// The index of one bundle's catalog: each shown skill's words, and how many skills hold each.
#[derive(Debug, Default)]
pub struct RouteIndex {
    /// Every word of the catalog, by id (hashbrown's default hasher: a route looks up each
    /// word of a message, and a misspelt word's hundreds of neighbours, here).
    pub(crate) ids: hashbrown::HashMap<String, usize>,
    /// Every word's postings, word after word ([`postings`](Self::postings)): one list
    /// rather than one a word, as a catalog's bodies give it hundreds of thousands.
    postings: Vec<(u32, u32)>,
    /// Where each word's postings start in `postings`, and after the last, where they end.
    starts: Vec<u32>,
    /// Per document: the skill (index into the bundle's skills) and the sum of its counts.
    pub(crate) docs: Vec<(usize, u32)>,
    /// The sums' total.
    pub(crate) total: u64,
    /// For an index of some of the catalog's words ([`RouteIndex::of_words`]): those words.
    only: Option<Only>,
    /// Which words the index may hold by their ends, made when a misspelt word is first read
    /// ([`spelling::Ends`]).
    ends: std::sync::OnceLock<spelling::Ends>,
}

impl RouteIndex {
    /// Builds the index from each skill's stored terms (`card_route.terms`).
    pub fn new<'a>(docs: impl IntoIterator<Item = (usize, &'a str)>) -> RouteIndex {
        RouteIndex::build(docs.into_iter().collect(), None)
    }

    /// Whether the index may hold `word`: false only when no word of it has `word`'s first and
    /// last two letters (a–z). An index of some words ([`RouteIndex::of_words`]) may hold
    /// any: it must see every word a route asks for.
    fn may_hold(&self, word: &str) -> bool {
        self.only.is_some()
            || (self.ends)
                .get_or_init(|| spelling::Ends::of(self.ids.keys().map(String::as_str)))
                .may_hold(word)
    }

    /// The id of a word some document holds.
    fn id(&self, word: &str) -> Option<usize> {
        if let Some(only) = &self.only {
            if !only.words.contains(word) {
                only.asked_another.store(true, Ordering::Relaxed);
            }
        }
        self.ids.get(word).copied()
    }

    fn build(docs: Vec<(usize, &str)>, only: Option<Only>) -> RouteIndex {
        // Sized ahead from the stored text (a word and its count take about eight bytes; a
        // catalog's distinct words are about a tenth of its words): growing them pair by
        // pair rehashed and copied a catalog of bodies' 234,000 words over and over.
        let bytes: usize = docs.iter().map(|(_, stored)| stored.len()).sum();
        let kept = only.as_ref();
        let sized = |whole: usize| kept.map_or(whole, |o| o.words.len().min(whole));
        let mut ix = RouteIndex {
            ids: hashbrown::HashMap::with_capacity(sized(bytes / 80)),
            docs: Vec::with_capacity(docs.len()),
            ..RouteIndex::default()
        };
        let mut total = 0u64;
        // (word, document, count) in document order, and how many documents hold each word.
        let mut found: Vec<(u32, u32, u32)> = Vec::with_capacity(sized(bytes / 6));
        let mut held: Vec<u32> = Vec::with_capacity(sized(bytes / 80));
        for (skill, stored) in docs {
            let doc = ix.docs.len() as u32;
            let mut len = 0;
            for (word, count) in parse_terms(stored) {
                if kept.is_some_and(|o| !o.holds(word)) {
                    len += count;
                    continue;
                }
                // Looked up before inserting: most words are already known, and an entry
                // would allocate the word each time.
                let id = match ix.ids.get(word) {
                    Some(&id) => id,
                    None => {
                        let next = ix.ids.len();
                        ix.ids.insert(word.to_string(), next);
                        held.push(0);
                        next
                    }
                };
                held[id] += 1;
                found.push((id as u32, doc, count));
                len += count;
            }
            total += u64::from(len);
            ix.docs.push((skill, len));
        }
        // Each word's postings laid out after the previous word's, in document order.
        ix.starts = Vec::with_capacity(held.len() + 1);
        let mut at = 0u32;
        for n in &held {
            ix.starts.push(at);
            at += n;
        }
        ix.starts.push(at);
        let mut next: Vec<u32> = ix.starts[..held.len()].to_vec();
        ix.postings = vec![(0, 0); found.len()];
        for (id, doc, count) in found {
            let slot = &mut next[id as usize];
            ix.postings[*slot as usize] = (doc, count);
            *slot += 1;
        }
        ix.total = total;
        ix.only = only;
        ix
    }

    /// The documents holding a word (by id), in order, and its weighted count in each: how
    /// many skills hold a word is their number.
    pub(crate) fn postings(&self, id: usize) -> &[(u32, u32)] {
        &self.postings[self.starts[id] as usize..self.starts[id + 1] as usize]
    }

    /// Each skill's score for `message` (skills that match no word left out, in no order),
    /// by `rules` (the artifact's). At most `rules.max_words` distinct known words of the
    /// message count, the first ones.
    pub fn rank(&self, message: &str, rules: &RoutingRules) -> Ranking {
        self.rank_leaving_out(message, None, rules)
    }

    /// [`rank`](Self::rank) as if one skill's text did not hold `example` (one of its trigger
    /// examples, weight 1 a word): what `eval` scores each example by, so that an example does
    /// not find its own skill by being part of it.
    pub fn rank_leaving_out(
        &self,
        message: &str,
        leave_out: Option<(usize, &str)>,
        rules: &RoutingRules,
    ) -> Ranking {
        rank_parts(&[Part::whole(self)], message, leave_out, rules)
    }
}

/// One part of a catalog's index: an index, less the documents `removed` marks (by document).
#[derive(Debug, Clone, Copy)]
pub struct Part<'a> {
    index: &'a RouteIndex,
    removed: Option<&'a [bool]>,
    /// Its documents in the catalog and the sum of their lengths.
    size: (usize, u64),
}

impl<'a> Part<'a> {
    /// All of `index`.
    pub fn whole(index: &'a RouteIndex) -> Part<'a> {
        Part {
            index,
            removed: None,
            size: (index.docs.len(), index.total),
        }
    }

    /// `index` less the documents `removed` marks (one flag per document).
    pub fn less(index: &'a RouteIndex, removed: &'a [bool]) -> Part<'a> {
        let kept = (0..index.docs.len()).filter(|&d| !removed[d]);
        let size = kept.fold((0, 0), |(n, t), d| (n + 1, t + u64::from(index.docs[d].1)));
        Part {
            index,
            removed: Some(removed),
            size,
        }
    }

    fn kept(&self, doc: usize) -> bool {
        self.removed.is_none_or(|r| !r[doc])
    }

    /// The id of a word some kept document holds.
    fn id(&self, word: &str) -> Option<usize> {
        let id = self.index.id(word)?;
        (self.removed.is_none()
            || self
                .index
                .postings(id)
                .iter()
                .any(|&(d, _)| self.kept(d as usize)))
        .then_some(id)
    }
}

/// Ranks `message` over the kept documents of `parts` exactly as one index of them would:
/// a catalog that differs from another by a few skills (a client's from the global one) is
/// ranked without building its index again. `leave_out` as in
/// [`RouteIndex::rank_leaving_out`].
pub fn rank_parts(
    parts: &[Part<'_>],
    message: &str,
    leave_out: Option<(usize, &str)>,
    rules: &RoutingRules,
) -> Ranking {
    let out = LeftOut::new(parts, leave_out, rules);
    let (words, read_as) = known_words(parts, message, &out, rules);
    if words.is_empty() {
        return Ranking {
            read_as,
            ..Ranking::default()
        };
    }
    let offsets: Vec<usize> = parts
        .iter()
        .scan(0, |at, p| {
            let here = *at;
            *at += p.index.docs.len();
            Some(here)
        })
        .collect();
    let (n, total) = parts
        .iter()
        .fold((0, 0), |(n, t), p| (n + p.size.0, t + p.size.1));
    let tf_of = |p: usize, id: usize, doc: usize, tf: u32| out.tf(p, id, doc, tf);
    let len_of = |p: usize, doc: usize| out.len(p, doc, parts[p].index.docs[doc].1);
    let avg_len = match out.at {
        Some(_) => ((total - u64::from(out.words)) as f64 / n as f64).max(1.0),
        None => (total as f64 / n.max(1) as f64).max(1.0),
    };
    let n = n as f64;
    let idf: Vec<f64> = words
        .iter()
        .map(|(_, ids)| {
            let df = held_by(parts, ids)
                .filter(|&(p, id, doc, tf)| tf_of(p, id, doc, tf) > 0)
                .count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let scale = rules.evidence_scale(n);
    // Per document: its score so far and which of the words it holds (a bit each).
    let docs =
        offsets.last().copied().unwrap_or(0) + parts.last().map_or(0, |p| p.index.docs.len());
    let mut score = vec![0.0f64; docs];
    let mut held = vec![0u64; docs];
    for (k, ((_, ids), idf)) in words.iter().zip(&idf).enumerate() {
        for (p, id, doc, tf) in held_by(parts, ids) {
            let tf = tf_of(p, id, doc, tf);
            if tf == 0 {
                continue;
            }
            let len = f64::from(len_of(p, doc));
            let norm = rules.k1 * (1.0 - rules.b + rules.b * len / avg_len);
            let tf = f64::from(tf);
            score[offsets[p] + doc] += idf * tf / (tf + norm);
            held[offsets[p] + doc] |= 1 << k;
        }
    }
    let mut scored = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        for doc in 0..part.index.docs.len() {
            let at = offsets[p] + doc;
            if held[at] != 0 {
                scored.push(Scored {
                    skill: part.index.docs[doc].0,
                    score: round(score[at] / (score[at] + scale)),
                    held: held[at],
                });
            }
        }
    }
    Ranking {
        words: words.into_iter().map(|(w, _)| w).collect(),
        scored,
        read_as,
    }
}

/// A message's known words, each with its id in each part that holds it.
type KnownWords = Vec<(String, Vec<Option<usize>>)>;

/// The first `rules.max_words` distinct known words of a message, each with its id in each
/// part that holds it. A word no part holds is read as its nearest known word when the rules
/// say so ([`spelling`]), for the first `rules.max_words` words it applies to; those words
/// with what they were read as ([`Ranking::read_as`]).
fn known_words(
    parts: &[Part<'_>],
    message: &str,
    out: &LeftOut,
    rules: &RoutingRules,
) -> (KnownWords, Vec<(String, Option<String>)>) {
    // A word only the left-out example held is unknown, as in a catalog without the example.
    let id = |p: usize, t: &str| parts[p].id(t).filter(|&id| out.holds(parts, p, id));
    let limit = rules.max_words.min(MAX_WORDS);
    let mut words: KnownWords = Vec::new();
    let mut read_as = Vec::new();
    let mut tried = 0;
    for t in rules.tokens(message) {
        if words.len() == limit {
            break;
        }
        let mut ids: Vec<Option<usize>> = (0..parts.len()).map(|p| id(p, &t)).collect();
        let mut t = t;
        if ids.iter().all(Option::is_none) {
            match rules.spelling {
                Some(s) if tried < limit && spelling::applies(&t, &s) => {
                    tried += 1;
                    let near = spelling::nearest_known(parts, &t);
                    read_as.push((t, near.as_ref().map(|(known, _)| known.clone())));
                    let Some(near) = near else {
                        continue;
                    };
                    (t, ids) = near;
                }
                _ => continue,
            }
        }
        if !words.iter().any(|(w, _)| *w == t) {
            words.push((t, ids));
        }
    }
    // Then neighbouring words written together, where the index holds them as one word.
    for t in rules.joined(message) {
        if words.len() == limit {
            break;
        }
        let ids: Vec<Option<usize>> = (0..parts.len()).map(|p| id(p, &t)).collect();
        if ids.iter().any(Option::is_some) && !words.iter().any(|(w, _)| *w == t) {
            words.push((t, ids));
        }
    }
    (words, read_as)
}

/// Whether the kept documents of `parts` hold every routing word of `word` (by `rules`), with
/// `leave_out`'s example taken out of its skill (`eval`'s leave-one-out): a word a route
/// would read in a glossary is one of these it does not hold.
pub fn holds_every_word<'a>(
    parts: &'a [Part<'a>],
    leave_out: Option<(usize, &str)>,
    rules: &'a RoutingRules,
) -> impl Fn(&str) -> bool + 'a {
    let out = LeftOut::new(parts, leave_out, rules);
    move |word| {
        let words = rules.tokens(word);
        !words.is_empty()
            && words.iter().all(|w| {
                (0..parts.len()).any(|p| parts[p].id(w).is_some_and(|id| out.holds(parts, p, id)))
            })
    }
}

/// Each kept document of `parts` holding a word (by its id in each part): (part, id,
/// document, count).
fn held_by<'a>(
    parts: &'a [Part<'a>],
    ids: &'a [Option<usize>],
) -> impl Iterator<Item = (usize, usize, usize, u32)> + 'a {
    let per_part = ids
        .iter()
        .enumerate()
        .filter_map(|(p, id)| Some((p, (*id)?)));
    per_part.flat_map(move |(p, id)| {
        let postings = parts[p].index.postings(id).iter();
        postings
            .filter(move |&&(doc, _)| parts[p].kept(doc as usize))
            .map(move |&(doc, tf)| (p, id, doc as usize, tf))
    })
}

/// One skill's trigger example taken out of the index for a rank: the part and document, the
/// counts the example's words take away from it (by the part's word ids), and their sum.
struct LeftOut {
    at: Option<(usize, usize)>,
    minus: HashMap<usize, u32>,
    words: u32,
}

impl LeftOut {
    fn new(parts: &[Part<'_>], leave_out: Option<(usize, &str)>, rules: &RoutingRules) -> LeftOut {
        let mut out = LeftOut {
            at: None,
            minus: HashMap::new(),
            words: 0,
        };
        let Some((skill, example)) = leave_out else {
            return out;
        };
        let found = parts.iter().enumerate().find_map(|(p, part)| {
            let docs = &part.index.docs;
            let doc = (0..docs.len()).find(|&d| docs[d].0 == skill && part.kept(d))?;
            Some((p, doc))
        });
        if let Some((p, _)) = found {
            for t in rules.tokens(example) {
                if let Some(id) = parts[p].index.id(&t) {
                    *out.minus.entry(id).or_default() += EXAMPLE_WEIGHT;
                    out.words += EXAMPLE_WEIGHT;
                }
            }
        }
        out.at = found;
        out
    }

    /// A word's count in a document, less what the example took.
    fn tf(&self, part: usize, id: usize, doc: usize, tf: u32) -> u32 {
        match self.at {
            Some(at) if at == (part, doc) => {
                tf.saturating_sub(self.minus.get(&id).copied().unwrap_or(0))
            }
            _ => tf,
        }
    }

    /// Whether a kept document of part `p` holds word `id` once the example is taken out.
    fn holds(&self, parts: &[Part<'_>], p: usize, id: usize) -> bool {
        match self.at {
            Some((at, _)) if at == p && self.minus.contains_key(&id) => {
                (parts[p].index).postings(id).iter().any(|&(doc, tf)| {
                    parts[p].kept(doc as usize) && self.tf(p, id, doc as usize, tf) > 0
                })
            }
            _ => true,
        }
    }

    /// A document's length, less the example's words.
    fn len(&self, part: usize, doc: usize, len: u32) -> u32 {
        match self.at {
            Some(at) if at == (part, doc) => len.saturating_sub(self.words),
            _ => len,
        }
    }
}

/// The skills a message's words reach.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranking {
    /// The message's distinct known words (indexed forms), in its order.
    pub words: Vec<String>,
    /// Each skill holding one of them, in no order.
    pub scored: Vec<Scored>,
    /// Each word no skill holds that was read as its nearest known word, with that word
    /// (`None`: none is one edit away), in the message's order: what the meaning's reading of
    /// the same words ([`super::Meaning::spelt`]) asks again, and need not look up twice.
    pub read_as: Vec<(String, Option<String>)>,
}

impl Ranking {
    /// The words of `words` a scored skill holds, in the message's order.
    pub fn matched(&self, s: &Scored) -> Vec<String> {
        (self.words.iter().enumerate())
            .filter(|(k, _)| s.held & (1 << k) != 0)
            .map(|(_, w)| w.clone())
            .collect()
    }

    /// The scored skills `keep` lets through, best first, ties broken by `name_of` each:
    /// the order of a route's candidates.
    pub fn ordered<'n>(
        &self,
        keep: impl Fn(&Scored) -> bool,
        name_of: impl Fn(usize) -> &'n str,
    ) -> Vec<&Scored> {
        let mut ranked: Vec<&Scored> = self.scored.iter().filter(|s| keep(s)).collect();
        ranked.sort_by(|a, b| before(a, b, &name_of));
        ranked
    }

    /// The first `n` of [`ordered`](Self::ordered), without ordering the rest (the candidates
    /// after the first may be hundreds of skills a little under the bar).
    pub fn best<'n>(
        &self,
        keep: impl Fn(&Scored) -> bool,
        name_of: impl Fn(usize) -> &'n str,
        n: usize,
    ) -> Vec<&Scored> {
        let mut ranked: Vec<&Scored> = self.scored.iter().filter(|s| keep(s)).collect();
        if n < ranked.len() {
            if n == 0 {
                return Vec::new();
            }
            // By score alone first: names are compared only among those tied with the n-th.
            let by_score = |a: &&Scored, b: &&Scored| b.score.total_cmp(&a.score);
            let nth = ranked.select_nth_unstable_by(n - 1, by_score).1.score;
            ranked.retain(|s| s.score >= nth);
        }
        ranked.sort_by(|a, b| before(a, b, &name_of));
        ranked.truncate(n);
        ranked
    }

    /// The first of [`ordered`](Self::ordered), without ordering the rest.
    pub fn first<'n>(
        &self,
        keep: impl Fn(&Scored) -> bool,
        name_of: impl Fn(usize) -> &'n str,
    ) -> Option<&Scored> {
        let kept = self.scored.iter().filter(|s| keep(s));
        kept.min_by(|a, b| before(a, b, &name_of))
    }
}

/// Candidates' order: the higher score first, then the name.
fn before<'n>(a: &Scored, b: &Scored, name_of: impl Fn(usize) -> &'n str) -> std::cmp::Ordering {
    (b.score.total_cmp(&a.score)).then_with(|| name_of(a.skill).cmp(name_of(b.skill)))
}

/// The matched idf mass at which a skill scores 0.5, for a catalog of `n` skills:
/// `0.125 · m²`, where `m = ln(1 + (n − 0.5) / 1.5)` is what a word only one skill holds
/// weighs. A score then does not shrink as messages grow (it is not a share of the message),
/// and the bar rises with the catalog, faster than a rare word's weight: the more words a
/// catalog holds, the likelier an everyday message meets one of them by chance. At 555 skills
/// the bar is a mass of about 4.4 (one rare word well matched, or two ordinary ones), at 32
/// about 1.2, at 10 about 0.5 (measured on the labelled sets of `tests/quality/`, see
/// docs/routing.md).
pub fn evidence_scale(n: f64) -> f64 {
    RoutingRules::built_in().evidence_scale(n)
}

/// See [`evidence_scale`].
const EVIDENCE_FACTOR: f64 = 0.125;

/// The most distinct known words of a message a route weighs (a bit each per skill: an
/// artifact's rules may say fewer, never more).
pub const MAX_WORDS: usize = 64;

/// Scores kept to 6 decimals: every runtime then gives the same figure, whatever the last bit
/// of its logarithm.
pub(crate) fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// One skill's score for a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Index into the bundle's skills.
    pub skill: usize,
    /// In [0, 1): the idf mass of the message's words the skill matches (each word's match
    /// saturating as BM25's does), `mass / (mass + evidence_scale(catalog size))`.
    pub score: f64,
    /// Which of the ranking's words it holds, a bit each.
    pub held: u64,
}

#[cfg(test)]
#[path = "route_tests.rs"]
mod tests;
