//! The vectors as an artifact stores them (`vector.data`, `card_route.meaning`): their bytes, a
//! message's vector as `--query-vector` gives it, and a bundle's vectors read into a
//! [`DenseIndex`] (every skill its catalogs can show: its summary's, each trigger example's,
//! then its summary with its body mixed in).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::dense::{DenseIndex, HEAD};
use crate::load::id_runs;
use crate::{corrupt, Artifact, Bundle, Error};

/// The vector of a message as `--query-vector` gives it: a JSON array of numbers, or one
/// line of an embedder's answer (`{"model": …, "vector": […]}`, whose model must be
/// `model`). It must have `dims` numbers.
pub fn parse_query_vector(text: &str, model: &str, dims: usize) -> Result<Vec<f32>, String> {
    let value: serde_json::Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("not JSON ({e}): give an array of numbers or an embedder's line"))?;
    let numbers = match &value {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => {
            if let Some(given) = o.get("model").and_then(|m| m.as_str()) {
                if given != model {
                    return Err(format!(
                        "the vector is from model `{given}`; this artifact's vectors are from `{model}`"
                    ));
                }
            }
            match o.get("vector") {
                Some(serde_json::Value::Array(a)) => a,
                _ => return Err("an object needs `vector`: an array of numbers".to_string()),
            }
        }
        _ => return Err("give an array of numbers or an embedder's line".to_string()),
    };
    let vector: Vec<f32> = numbers
        .iter()
        .map(|n| n.as_f64().map(|x| x as f32).filter(|x| x.is_finite()))
        .collect::<Option<_>>()
        .ok_or("every element of the vector must be a finite number")?;
    if vector.len() != dims {
        return Err(format!(
            "the vector has {} numbers; this artifact's model `{model}` gives {dims}",
            vector.len()
        ));
    }
    Ok(vector)
}

/// Little-endian f32s, as `vector.data` stores them.
pub fn decode(data: &[u8]) -> Vec<f32> {
    (data.chunks_exact(4))
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Little-endian f32s, as `vector.data` stores them.
pub fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A vector of whole numbers from -127 to 127 (the built-in meaning's) as one signed byte
/// each, as `vector.data` stores them: a quarter of the f32s' size.
pub fn encode_whole(vector: &[f32]) -> Vec<u8> {
    vector.iter().map(|&x| (x as i8) as u8).collect()
}

/// A stored vector of `dims` numbers: one signed byte each when it has `dims` bytes (the
/// built-in meaning's), else little-endian f32s.
pub fn decode_stored(data: &[u8], dims: usize) -> Vec<f32> {
    if data.len() == dims {
        data.iter().map(|&b| f32::from(b as i8)).collect()
    } else {
        decode(data)
    }
}

impl Artifact {
    /// The embedding model the artifact's vectors come from and their length, if it has any.
    pub fn embedding_model(&self) -> Option<(&str, usize)> {
        let model = self.manifest("embedding_model")?;
        let dims = self.manifest("embedding_dims")?.parse().ok()?;
        Some((model, dims))
    }

    /// The vectors of a bundle's catalog: every skill a catalog can show.
    pub(crate) fn dense_index(&self, bundle: &Bundle) -> Result<Arc<DenseIndex>, Error> {
        if let Some(ix) = bundle.dense.get() {
            return Ok(ix.clone());
        }
        let shown: Vec<(usize, i64)> = (bundle.skills.iter().enumerate())
            .filter(|(_, s)| s.catalog_visible)
            .map(|(i, s)| (i, s.card))
            .collect();
        let cards: BTreeSet<i64> = shown.iter().map(|(_, c)| *c).collect();
        let dims = self.embedding_model().map_or(0, |(_, d)| d);
        let listed = self.card_vector_ids(&cards)?;
        let mut wanted: Vec<i64> = listed.values().flatten().copied().collect();
        wanted.sort_unstable();
        wanted.dedup();
        let stored = self.stored_vectors(&wanted)?;
        let texts = |card: i64| {
            (listed.get(&card).into_iter().flatten())
                .filter_map(|id| wanted.binary_search(id).ok())
                .filter_map(|k| stored.get(k))
        };
        // The built-in meaning's vectors stay whole numbers; a model's own are f32s.
        let ix = if dims > HEAD && stored.all_of_length(dims) {
            // With the built-in meaning, a card's summary with its body mixed in is a text of
            // its own, after its trigger examples (`card_route.meaning`).
            let mixed = self.card_meaning(&cards, dims)?;
            let docs = (shown.into_iter())
                .map(|(i, card)| {
                    let own = mixed.get(&card).map(Vec::as_slice);
                    (i, texts(card).chain(own).collect())
                })
                .collect();
            DenseIndex::of_bytes(docs, dims)
        } else {
            let docs = (shown.into_iter())
                .map(|(i, card)| {
                    (
                        i,
                        texts(card).map(|d| decode_stored(d, dims).into()).collect(),
                    )
                })
                .collect();
            DenseIndex::new(docs)
        };
        let ix = Arc::new(ix);
        Ok(bundle.dense.get_or_init(|| ix).clone())
    }

    /// The ids of each card's vectors (`card.vectors`), by card id.
    fn card_vector_ids(&self, cards: &BTreeSet<i64>) -> Result<HashMap<i64, Vec<i64>>, Error> {
        let e = corrupt(&self.path);
        let conn = self.conn.lock().expect("lock");
        let mut st = conn
            .prepare_cached(concat!(
                "SELECT c.id, c.vectors FROM ",
                in_runs!(),
                " card c ON c.id BETWEEN r.first AND r.last"
            ))
            .map_err(&e)?;
        let ids = id_runs(cards.iter().copied());
        let mut rows = st.query([ids]).map_err(&e)?;
        let mut listed = HashMap::with_capacity(cards.len());
        while let Some(row) = rows.next().map_err(&e)? {
            let card: i64 = row.get(0).map_err(&e)?;
            let text = row.get_ref(1).and_then(|v| Ok(v.as_str()?)).map_err(&e)?;
            let not_an_id = |id: &str| Error::NotAnArtifact {
                path: self.path.clone(),
                why: format!("card {card} lists vector `{id}`, which is not a vector id"),
            };
            let ids = (text.split(' '))
                .filter(|id| !id.is_empty())
                .map(|id| id.parse().map_err(|_| not_an_id(id)))
                .collect::<Result<_, _>>()?;
            listed.insert(card, ids);
        }
        Ok(listed)
    }

    /// Each card's summary vector with its body's words mixed in (`card_route.meaning`), by
    /// card id, for the cards that have one.
    fn card_meaning(
        &self,
        cards: &BTreeSet<i64>,
        dims: usize,
    ) -> Result<HashMap<i64, Vec<u8>>, Error> {
        let e = corrupt(&self.path);
        let conn = self.conn.lock().expect("lock");
        let mut st = conn
            .prepare_cached(concat!(
                "SELECT m.card, m.meaning FROM ",
                in_runs!(),
                " card_route m ON m.card BETWEEN r.first AND r.last WHERE m.meaning IS NOT NULL"
            ))
            .map_err(&e)?;
        let ids = id_runs(cards.iter().copied());
        let mut rows = st.query([ids]).map_err(&e)?;
        let mut mixed = HashMap::new();
        while let Some(row) = rows.next().map_err(&e)? {
            let card: i64 = row.get(0).map_err(&e)?;
            let data = row.get_ref(1).and_then(|v| Ok(v.as_blob()?)).map_err(&e)?;
            if data.len() != dims {
                return Err(Error::NotAnArtifact {
                    path: self.path.clone(),
                    why: format!(
                        "card {card}'s meaning holds {} bytes, not {dims}",
                        data.len()
                    ),
                });
            }
            mixed.insert(card, data.to_vec());
        }
        Ok(mixed)
    }

    /// The stored bytes of each of `wanted` (sorted vector ids), in its order.
    fn stored_vectors(&self, wanted: &[i64]) -> Result<StoredVectors, Error> {
        let e = corrupt(&self.path);
        let conn = self.conn.lock().expect("lock");
        let dims = self.embedding_model().map_or(0, |(_, d)| d);
        let mut stored = StoredVectors {
            bytes: Vec::with_capacity(wanted.len() * dims),
            spans: vec![None; wanted.len()],
        };
        let mut st = conn
            .prepare_cached(concat!(
                "SELECT v.id, v.data FROM ",
                in_runs!(),
                " vector v ON v.id BETWEEN r.first AND r.last"
            ))
            .map_err(&e)?;
        let ids = id_runs(wanted.iter().copied());
        let mut rows = st.query([ids]).map_err(&e)?;
        while let Some(row) = rows.next().map_err(&e)? {
            let id: i64 = row.get(0).map_err(&e)?;
            if let Ok(k) = wanted.binary_search(&id) {
                let data = row.get_ref(1).and_then(|v| Ok(v.as_blob()?)).map_err(&e)?;
                let start = stored.bytes.len();
                stored.bytes.extend_from_slice(data);
                stored.spans[k] = Some((start, stored.bytes.len()));
            }
        }
        Ok(stored)
    }
}

/// Vectors as stored, one buffer for all (a catalog's 5,000 are not 5,000 allocations).
struct StoredVectors {
    bytes: Vec<u8>,
    /// Where each wanted vector lies in `bytes`; `None` for one the artifact does not hold.
    spans: Vec<Option<(usize, usize)>>,
}

impl StoredVectors {
    /// The bytes of the `k`th wanted vector, if the artifact holds it.
    fn get(&self, k: usize) -> Option<&[u8]> {
        let (start, end) = self.spans.get(k).copied().flatten()?;
        Some(&self.bytes[start..end])
    }

    /// Whether every vector held has `dims` bytes (the built-in meaning's).
    fn all_of_length(&self, dims: usize) -> bool {
        (self.spans.iter().flatten()).all(|(start, end)| end - start == dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_vector_is_an_array_or_an_embedder_line_of_the_artifact_model() {
        assert_eq!(parse_query_vector("[1, 0.5]", "m", 2), Ok(vec![1.0, 0.5]));
        let line = r#"{"model": "m", "vector": [0, 2]}"#;
        assert_eq!(parse_query_vector(line, "m", 2), Ok(vec![0.0, 2.0]));
        let other = parse_query_vector(r#"{"model": "x", "vector": [0, 2]}"#, "m", 2);
        assert!(other.unwrap_err().contains("model `x`"));
        assert!(parse_query_vector("[1]", "m", 2)
            .unwrap_err()
            .contains("1 numbers"));
        assert!(parse_query_vector("[1, \"a\"]", "m", 2).is_err());
        assert!(parse_query_vector("nope", "m", 2).is_err());
    }

    #[test]
    fn vectors_are_stored_as_f32s_or_a_signed_byte_a_whole_number() {
        assert_eq!(decode(&encode(&[1.5, -2.0])), [1.5, -2.0]);
        assert_eq!(decode_stored(&encode(&[1.5, -2.0]), 2), [1.5, -2.0]);
        let whole = [127.0, -127.0, 0.0, -1.0];
        assert_eq!(encode_whole(&whole).len(), 4);
        assert_eq!(decode_stored(&encode_whole(&whole), 4), whole);
    }
}
