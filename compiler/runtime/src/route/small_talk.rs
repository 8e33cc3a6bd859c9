//! Small talk: a message that is closer in meaning to chit-chat ("good morning :)", "thanks,
//! that helped", "what's 17 times 23?") than to any skill of the catalog needs a higher score
//! to reach one. The build writes the vectors of a list of such messages
//! (`compiler/meaning/small-talk.txt`) beside the built-in meaning table; a hybrid route raises
//! its bar by half of how much closer the message is to them than to its nearest skill, and
//! again as its word pieces lean to small talk rather than to requests (a weight a piece, which
//! the build learns from two lists of messages and writes beside the table; `docs/routing.md`,
//! "Small talk"). Every runtime does the same sums.

use std::sync::Arc;

use rusqlite::OptionalExtension;

use super::DenseIndex;
use crate::{corrupt, Artifact, Error};

/// The share of the small-talk margin (the closest small talk's cosine less the nearest
/// skill's) that a route's bar rises by.
pub const SMALL_TALK_SHARE: f64 = 0.5;

/// The share of a message's lean to small talk by its pieces ([`talk_words`]) above
/// [`TALK_WORDS_FROM`] that a route's bar rises by: 0.6, the middle of the shares that lost no
/// labelled request on any set at scale (docs/routing.md, "Held out for the lean").
pub const TALK_WORDS_SHARE: f64 = 0.6;
/// The lean by pieces above which the bar rises: a little on the side of requests, since a
/// message of pieces neither list holds leans nowhere and is small talk as often as not.
pub const TALK_WORDS_FROM: f64 = -0.2;

/// The name of the `meaning` row that holds model `model`'s small-talk vectors.
pub fn small_talk_row(model: &str) -> String {
    format!("{model}:small-talk")
}

/// The name of the `meaning` row that holds the weight of each of model `model`'s pieces
/// towards small talk (a signed 16-bit number a row of the table, in thousandths).
pub fn talk_words_row(model: &str) -> String {
    format!("{model}:small-talk-words")
}

/// How much a message's pieces lean to small talk: the mean of the weights (`weights`, in
/// thousandths, by row of the table) of its distinct pieces; 0 for a message without any.
/// Sums of whole numbers and one division, so every runtime gives the same number.
pub fn talk_words(weights: &[i16], pieces: &[u32]) -> f64 {
    let mut distinct = pieces.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.is_empty() {
        return 0.0;
    }
    let sum: i64 = (distinct.iter())
        .map(|&p| i64::from(weights.get(p as usize).copied().unwrap_or(0)))
        .sum();
    sum as f64 / (distinct.len() as f64 * 1000.0)
}

/// The bar of a hybrid route: `floor`, raised by [`SMALL_TALK_SHARE`] of how much closer the
/// message is to small talk (`small_talk`, its closest cosine) than to the catalog's nearest
/// skill (`nearest`), and by [`TALK_WORDS_SHARE`] of how far its pieces lean to small talk
/// beyond [`TALK_WORDS_FROM`] (`words`, [`talk_words`]; `None` for an artifact without the
/// weights); kept to 6 decimals, so that every runtime cuts at the same bar.
/// The shares are `rules`' (the artifact's).
pub fn raised_floor(
    floor: f64,
    small_talk: f64,
    nearest: f64,
    words: Option<f64>,
    rules: &super::RoutingRules,
) -> f64 {
    let lean = |w: f64| rules.talk_words_share * (w - rules.talk_words_from).max(0.0);
    let margin = rules.small_talk_share * (small_talk - nearest).max(0.0);
    super::round(floor + margin + words.map_or(0.0, lean))
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
    /// weights; `None` for an artifact without them.
    pub fn talk_lean(&self, text: &str) -> Result<Option<f64>, Error> {
        Ok(match (self.talk_words()?, self.meaning()?) {
            (Some(w), Some(m)) => Some(talk_words(&w, &m.pieces(text))),
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

    /// The weight of each piece of the built-in meaning towards small talk
    /// ([`talk_words_row`]), read once; `None` for an artifact without them.
    pub(crate) fn talk_words(&self) -> Result<Option<Arc<Vec<i16>>>, Error> {
        if let Some(w) = self.talk_words.get() {
            return Ok(w.clone());
        }
        let found = match self.embedding_model() {
            Some((model, _)) => match self.meaning_row(&talk_words_row(model))? {
                None => None,
                Some(d) if d.len() % 2 == 0 => Some(Arc::new(
                    (d.chunks_exact(2))
                        .map(|b| i16::from_le_bytes([b[0], b[1]]))
                        .collect(),
                )),
                Some(d) => {
                    return Err(Error::NotAnArtifact {
                        path: self.path.clone(),
                        why: format!(
                            "its small-talk word weights are {} bytes, not 16-bit numbers",
                            d.len()
                        ),
                    })
                }
            },
            None => None,
        };
        Ok(self.talk_words.get_or_init(|| found).clone())
    }
}
