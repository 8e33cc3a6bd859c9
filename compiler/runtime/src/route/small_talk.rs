//! Small talk: a message that is closer in meaning to chit-chat ("good morning :)", "thanks,
//! that helped", "what's 17 times 23?") than to any skill of the catalog needs a higher score
//! to reach one. The build writes the vectors of a list of such messages
//! (`compiler/meaning/small-talk.txt`) beside the built-in meaning table; a hybrid route raises
//! its bar by two fifths of how much closer the message is to them than to its nearest skill, and
//! again as its word pieces lean to small talk rather than to requests (a weight a piece and a
//! weight a pair of neighbouring pieces, which the build learns from two lists of messages and
//! writes beside the table; `docs/routing.md`, "Small talk"). Every runtime does the same sums.

use std::sync::Arc;

use rusqlite::OptionalExtension;

use super::DenseIndex;
use crate::{corrupt, Artifact, Error};

/// The share of the small-talk margin (the closest small talk's cosine less the nearest
/// skill's) that a route's bar rises by: 0.4 since the list asked about the assistant and
/// quick facts (2026-12-04; 0.5 before), whose vectors bring requests that mention memory or a
/// unit nearer small talk (docs/routing.md, "Questions about the assistant and quick facts").
pub const SMALL_TALK_SHARE: f64 = 0.4;

/// The share of a message's lean to small talk by its pieces ([`talk_words`]) above
/// [`TALK_WORDS_FROM`] that a route's bar rises by: 0.8 since 2026-12-04 (0.6 before, the middle
/// of the shares that lost no labelled request on the first sets at scale), which keeps out
/// anecdotes told in a catalog's words for six requests of 3,483 (docs/routing.md, "Questions
/// about the assistant and quick facts").
pub const TALK_WORDS_SHARE: f64 = 0.8;
/// The lean by pieces above which the bar rises: a little on the side of requests, since a
/// message of pieces neither list holds leans nowhere and is small talk as often as not. -0.15
/// since the lists learnt anecdotes and requests of the same trades (2026-12-04): from -0.2,
/// their sharper lean cost labelled requests (docs/routing.md, "Small talk of the trades");
/// -0.16 since the lean weighs how a message opens and ends ([`TALK_WORDS_ENDS`], 2026-12-06),
/// which leans anecdotes further to small talk and requests to requests.
pub const TALK_WORDS_FROM: f64 = -0.16;
/// The share of a message's lean to requests (below [`TALK_WORDS_FROM`]) that takes back what
/// the small-talk margin raised the bar by, never below the catalog's bar (0.4 took back a
/// little more and let one more message needing no skill through). A message whose words ask
/// for something ("add a note in attio") is not small talk because it is far from every
/// skill's summary, which it is in a catalog whose summaries are one template
/// (docs/routing.md, "Small talk").
pub const TALK_WORDS_LOWERS: f64 = 0.3;
/// Whether the lean weighs how a message opens and ends ([`EDGE`]): since 2026-12-06, when
/// the openings and endings of the lists' messages kept out a sixth of the anecdotes naming a
/// tool that reached a skill, and more requests found theirs (docs/routing.md, "How a message
/// opens and ends").
pub const TALK_WORDS_ENDS: bool = true;

/// The name of the `meaning` row that holds model `model`'s small-talk vectors.
pub fn small_talk_row(model: &str) -> String {
    format!("{model}:small-talk")
}

/// The name of the `meaning` row that holds the weight of each of model `model`'s pieces
/// towards small talk (a signed 16-bit number a row of the table, in thousandths).
pub fn talk_words_row(model: &str) -> String {
    format!("{model}:small-talk-words")
}

/// The name of the `meaning` row that holds the weight of each pair of neighbouring pieces
/// either list of the build holds ([`TalkWeights::pairs`]): for `n` pairs, their `n` keys
/// ([`pair_key`]) in rising order as little-endian u32s, then their `n` weights in the same
/// order as little-endian i16s (six bytes a pair).
pub fn talk_pairs_row(model: &str) -> String {
    format!("{model}:small-talk-pairs")
}

/// A pair of neighbouring pieces (rows of the table) as one number: the first row × 65,536 +
/// the second; `None` when a row is 65,536 or more (no pair is weighed then).
pub fn pair_key(first: u32, second: u32) -> Option<u32> {
    (first < 1 << 16 && second < 1 << 16).then_some(first << 16 | second)
}

/// The row past any table's end that stands for a message's edges: its pairs with the first
/// piece ([`EDGE`], first) and with the last (last, [`EDGE`]) weigh how a message opens and
/// ends ("how …", "… please" against "thanks …", "… right"), when the rules say so
/// (`talk_words_ends`; docs/routing.md, "How a message opens and ends"). The built-in table
/// is shorter (the build's test of the lean's weights says so), so no piece has its keys.
pub const EDGE: u32 = (1 << 16) - 1;

/// A message's distinct pairs of neighbouring pieces (`pieces`, rows of the table in its
/// order) by [`pair_key`], in rising order; with `ends`, its pairs with [`EDGE`] too.
pub fn talk_pairs(pieces: &[u32], ends: bool) -> Vec<u32> {
    let mut pairs: Vec<u32> = (pieces.windows(2))
        .filter_map(|w| pair_key(w[0], w[1]))
        .collect();
    if let (true, Some(&first), Some(&last)) = (ends, pieces.first(), pieces.last()) {
        pairs.extend(pair_key(EDGE, first));
        pairs.extend(pair_key(last, EDGE));
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// How much pieces, and pairs of neighbouring pieces, lean to small talk rather than to a
/// request, in thousandths (the log-odds the build learns; `docs/routing.md`, "Small talk").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TalkWeights {
    /// By row of the table; a row past its end weighs 0.
    pub pieces: Vec<i16>,
    /// By [`pair_key`], in rising order of the keys, each once; a pair not held weighs 0.
    /// `None` for an artifact built before pairs were weighed: its lean is of the pieces alone.
    pub pairs: Option<Vec<(u32, i16)>>,
}

impl TalkWeights {
    /// The pieces' weights as the artifact holds them ([`talk_words_row`]).
    pub fn pieces_bytes(&self) -> Vec<u8> {
        self.pieces.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The pairs' weights as the artifact holds them ([`talk_pairs_row`]): the keys, then
    /// the weights; empty without.
    pub fn pairs_bytes(&self) -> Vec<u8> {
        let pairs = self.pairs.as_deref().unwrap_or(&[]);
        let keys = pairs.iter().flat_map(|(k, _)| k.to_le_bytes());
        keys.chain(pairs.iter().flat_map(|(_, w)| w.to_le_bytes()))
            .collect()
    }

    /// The weights from the artifact's two rows (`pairs` `None` when it has no such row), or
    /// why they are not weights.
    pub fn from_bytes(pieces: &[u8], pairs: Option<&[u8]>) -> Result<TalkWeights, String> {
        if !pieces.len().is_multiple_of(2) {
            return Err(format!(
                "its small-talk word weights are {} bytes, not 16-bit numbers",
                pieces.len()
            ));
        }
        let pairs = match pairs {
            None => None,
            Some(d) if !d.len().is_multiple_of(6) => {
                return Err(format!(
                    "its small-talk pair weights are {} bytes, not pairs of 6",
                    d.len()
                ))
            }
            Some(d) => {
                let (keys, weights) = d.split_at(d.len() / 6 * 4);
                let keys =
                    (keys.chunks_exact(4)).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                let weights = (weights.chunks_exact(2)).map(|b| i16::from_le_bytes([b[0], b[1]]));
                let pairs: Vec<(u32, i16)> = keys.zip(weights).collect();
                if pairs.windows(2).any(|w| w[0].0 >= w[1].0) {
                    return Err("its small-talk pair weights are not in rising order".into());
                }
                Some(pairs)
            }
        };
        let pieces = (pieces.chunks_exact(2))
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        Ok(TalkWeights { pieces, pairs })
    }
}

/// How much a message's pieces (`pieces`, rows of the table in the message's order) lean to
/// small talk: the mean of the weights (thousandths) of its distinct pieces and, when `weights`
/// has pairs, of its distinct pairs of neighbouring pieces ([`talk_pairs`], its edges' with
/// `ends`); 0 for a message without pieces. Sums of whole numbers and one division, so every
/// runtime gives the same number.
pub fn talk_words(weights: &TalkWeights, pieces: &[u32], ends: bool) -> f64 {
    let mut distinct = pieces.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let pairs = match &weights.pairs {
        Some(_) => talk_pairs(pieces, ends),
        None => Vec::new(),
    };
    let count = distinct.len() + pairs.len();
    if count == 0 {
        return 0.0;
    }
    let of_pieces: i64 = (distinct.iter())
        .map(|&p| i64::from(weights.pieces.get(p as usize).copied().unwrap_or(0)))
        .sum();
    let held = weights.pairs.as_deref().unwrap_or(&[]);
    let of_pairs: i64 = (pairs.iter())
        .filter_map(|k| held.binary_search_by_key(k, |&(key, _)| key).ok())
        .map(|at| i64::from(held[at].1))
        .sum();
    (of_pieces + of_pairs) as f64 / (count as f64 * 1000.0)
}

/// The bar of a hybrid route: `floor`, raised by [`SMALL_TALK_SHARE`] of how much closer the
/// message is to small talk (`small_talk`, its closest cosine) than to the catalog's nearest
/// skill (`nearest`), and by [`TALK_WORDS_SHARE`] of how far its pieces lean to small talk
/// beyond [`TALK_WORDS_FROM`] (`words`, [`talk_words`]; `None` for an artifact without the
/// weights), lowered by [`TALK_WORDS_LOWERS`] of how far they lean to requests below it, never
/// under `floor`; kept to 6 decimals, so that every runtime cuts at the same bar.
/// The shares are `rules`' (the artifact's).
pub fn raised_floor(
    floor: f64,
    small_talk: f64,
    nearest: f64,
    words: Option<f64>,
    rules: &super::RoutingRules,
) -> f64 {
    let lean = |w: f64| {
        let beyond = w - rules.talk_words_from;
        beyond
            * if beyond > 0.0 {
                rules.talk_words_share
            } else {
                rules.talk_words_lowers
            }
    };
    let margin = rules.small_talk_share * (small_talk - nearest).max(0.0);
    super::round(floor + (margin + words.map_or(0.0, lean)).max(0.0))
}

impl Artifact {
    /// The small-talk vectors of the artifact's built-in meaning (a document each),
    /// read once; `None` for an artifact without (a model of the workspace's own, or one
    /// built before they were written).
    pub(crate) fn small_talk(&self) -> Result<Option<Arc<DenseIndex>>, Error> {
        if let Some(ix) = self.small_talk.get() {
            return Ok(ix.clone());
        }
        let found = match (self.embedding_model(), self.meaning()?) {
            (Some((model, dims)), Some(_)) => {
                match self.meaning_row(&small_talk_row(model))? {
                    None => None,
                    Some(d)
                        if DenseIndex::whole_rows(dims) && !d.is_empty() && d.len() % dims == 0 =>
                    {
                        // A document a message: each is a "summary" of its own.
                        let each = d.chunks(dims).enumerate().map(|(k, v)| (k, vec![v]));
                        Some(Arc::new(DenseIndex::of_bytes(each.collect(), dims)))
                    }
                    Some(d) => {
                        return Err(Error::NotAnArtifact {
                            path: self.path.clone(),
                            why: format!(
                            "its small-talk vectors are {} bytes, not vectors of {dims} numbers",
                            d.len()
                        ),
                        })
                    }
                }
            }
            _ => None,
        };
        Ok(self.small_talk.get_or_init(|| found).clone())
    }
}

impl Artifact {
    /// How much `text`'s pieces lean to small talk ([`talk_words`]) by this artifact's
    /// weights and rules; `None` for an artifact without them.
    pub fn talk_lean(&self, text: &str) -> Result<Option<f64>, Error> {
        Ok(match (self.talk_words()?, self.meaning()?) {
            (Some(w), Some(m)) => {
                let ends = self.routing_rules()?.talk_words_ends;
                Some(talk_words(&w, &m.pieces(text), ends))
            }
            _ => None,
        })
    }

    /// The `meaning` table's row `name`, if the artifact has it.
    pub(crate) fn meaning_row(&self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        let conn = self.conn.lock().expect("lock");
        conn.query_row("SELECT data FROM meaning WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()
        .map_err(corrupt(&self.path))
    }

    /// The weights of the built-in meaning's pieces and pairs of pieces towards small talk
    /// ([`talk_words_row`], [`talk_pairs_row`]), read once; `None` for an artifact without them.
    pub(crate) fn talk_words(&self) -> Result<Option<Arc<TalkWeights>>, Error> {
        if let Some(w) = self.talk_words.get() {
            return Ok(w.clone());
        }
        let found = match self.embedding_model() {
            Some((model, _)) => match self.meaning_row(&talk_words_row(model))? {
                None => None,
                Some(pieces) => {
                    let pairs = self.meaning_row(&talk_pairs_row(model))?;
                    let weights = TalkWeights::from_bytes(&pieces, pairs.as_deref());
                    Some(Arc::new(weights.map_err(|why| Error::NotAnArtifact {
                        path: self.path.clone(),
                        why,
                    })?))
                }
            },
            None => None,
        };
        Ok(self.talk_words.get_or_init(|| found).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::{pair_key, TalkWeights};

    #[test]
    fn a_pair_is_keyed_only_when_both_rows_fit_in_16_bits() {
        assert_eq!(pair_key(65_535, 65_535), Some(u32::MAX));
        assert_eq!(pair_key(2, 3), Some(2 * 65_536 + 3));
        assert_eq!(pair_key(65_536, 0), None);
        assert_eq!(pair_key(0, 65_536), None);
    }

    #[test]
    fn weights_read_back_as_the_build_writes_them() {
        let weights = TalkWeights {
            pieces: vec![5, -3],
            pairs: Some(vec![(1, 7), (70_000, -9)]),
        };
        // The pairs' keys first, then their weights, little-endian.
        assert_eq!(
            weights.pairs_bytes(),
            [1, 0, 0, 0, 0x70, 0x11, 1, 0, 7, 0, 0xf7, 0xff]
        );
        assert_eq!(weights.pieces_bytes(), [5, 0, 0xfd, 0xff]);
        let back = TalkWeights::from_bytes(&weights.pieces_bytes(), Some(&weights.pairs_bytes()));
        assert_eq!(back, Ok(weights));
        let none = TalkWeights::from_bytes(&[], None).unwrap();
        assert_eq!((none.pieces.len(), none.pairs), (0, None));
    }
}
