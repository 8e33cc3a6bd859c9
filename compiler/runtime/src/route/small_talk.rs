//! Small talk: a message that is closer in meaning to chit-chat ("good morning :)", "thanks,
//! that helped", "what's 17 times 23?") than to any skill of the catalog needs a higher score
//! to reach one. The build writes the vectors of a list of such messages
//! (`compiler/meaning/small-talk.txt`) beside the built-in meaning table; a hybrid route raises
//! its bar by half of how much closer the message is to them than to its nearest skill
//! (`docs/routing.md`, "Small talk"). Every runtime does the same sums.

use std::sync::Arc;

use rusqlite::OptionalExtension;

use super::DenseIndex;
use crate::{corrupt, Artifact, Error};

/// The share of the small-talk margin (the closest small talk's cosine less the nearest
/// skill's) that a route's bar rises by.
pub const SMALL_TALK_SHARE: f64 = 0.5;

/// The name of the `meaning` row that holds model `model`'s small-talk vectors.
pub fn small_talk_row(model: &str) -> String {
    format!("{model}:small-talk")
}

/// The bar of a hybrid route: `floor`, raised by [`SMALL_TALK_SHARE`] of how much closer the
/// message is to small talk (`small_talk`, its closest cosine) than to the catalog's nearest
/// skill (`nearest`); kept to 6 decimals, so that every runtime cuts at the same bar.
pub fn raised_floor(floor: f64, small_talk: f64, nearest: f64) -> f64 {
    super::round(floor + SMALL_TALK_SHARE * (small_talk - nearest).max(0.0))
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
                let conn = self.conn.lock().expect("lock");
                let data: Option<Vec<u8>> = conn
                    .query_row(
                        "SELECT data FROM meaning WHERE name = ?1",
                        [small_talk_row(model)],
                        |r| r.get(0),
                    )
                    .optional()
                    .map_err(corrupt(&self.path))?;
                match data {
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
