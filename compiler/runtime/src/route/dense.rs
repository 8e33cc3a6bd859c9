//! Dense routing (SPEC 13.1, optional; seed 001's embeddings). When the workspace declares
//! `routing.embedding_model`, the build stores a vector for each card's summary (name,
//! description, `when_to_use`) and for each of its trigger examples, made by the embedder the
//! person building gave (`card.vectors`, table `vector`). A route given the message's vector
//! from the same model scores each skill by its closest text and fuses that with its lexical
//! score (`docs/routing.md`); the Python and TypeScript runtimes do the same sums in the same
//! order.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::{corrupt, Artifact, Bundle, Error};

/// The lexical score's share of a hybrid score; the dense similarity has the rest.
pub const LEXICAL_SHARE: f64 = 0.5;

/// One stored vector and its norm.
#[derive(Debug)]
struct Stored {
    data: Arc<[f32]>,
    norm: f64,
}

/// The vectors of one bundle's catalog: per skill it can show, its summary's then each
/// trigger example's (in the card's order).
#[derive(Debug, Default)]
pub struct DenseIndex {
    docs: Vec<(usize, Vec<Stored>)>,
    /// The same vectors as integers, when all are whole numbers from -127 to 127 (the
    /// built-in meaning's).
    whole: Option<Whole>,
}

/// Whole-number vectors laid out for integer dot products: exact, eight at a time
/// (`pmaddwd`, which 16-bit numbers allow on any x86-64). Each vector's first [`HEAD`]
/// numbers are apart from the rest, with the rest's length: the head's dot product and the
/// rest's length bound the cosine (Cauchy–Schwarz), so a skill that cannot reach a route's cut
/// is passed over after a quarter of the work. The meaning table's coordinates come in order of
/// how much they carry, so the bound is tight.
#[derive(Debug, Default)]
struct Whole {
    head: Vec<i16>,
    tail: Vec<i16>,
    tail_norms: Vec<f64>,
}

/// The numbers of a vector's head.
const HEAD: usize = 64;

/// `v` as integers, when every number of it is a whole number from -127 to 127.
fn whole(v: &[f32]) -> Option<Vec<i16>> {
    (v.iter())
        .map(|&x| (x.fract() == 0.0 && x.abs() <= 127.0).then_some(x as i16))
        .collect()
}

fn dot(a: &[i16], b: &[i16]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

fn int_norm(v: &[i16]) -> f64 {
    f64::from(dot(v, v)).sqrt()
}

impl DenseIndex {
    fn new(docs: Vec<(usize, Vec<Stored>)>) -> DenseIndex {
        let all = (docs.iter())
            .flat_map(|(_, vectors)| vectors.iter())
            .map(|v| whole(&v.data).filter(|w| w.len() > HEAD))
            .collect::<Option<Vec<Vec<i16>>>>();
        let whole = all.map(|all| {
            let mut w = Whole::default();
            for v in &all {
                w.head.extend_from_slice(&v[..HEAD]);
                w.tail.extend_from_slice(&v[HEAD..]);
                w.tail_norms.push(int_norm(&v[HEAD..]));
            }
            w
        });
        DenseIndex { docs, whole }
    }

    /// Each skill's similarity to `query`: the cosine of its closest text, 0 at worst.
    /// `leave_out` (a skill, and the position of one of its trigger examples) skips that
    /// example's vector: `eval`'s leave-one-out.
    pub fn similarities(
        &self,
        query: &[f32],
        leave_out: Option<(usize, usize)>,
    ) -> Vec<(usize, f64)> {
        self.similarities_reaching(query, leave_out, &|_| f64::NEG_INFINITY)
    }

    /// [`DenseIndex::similarities`], except that a skill whose closest text cannot reach the
    /// cosine `needed(skill)` may be given 0 instead: what a route cut at a bar needs.
    pub fn similarities_reaching(
        &self,
        query: &[f32],
        leave_out: Option<(usize, usize)>,
        needed: &dyn Fn(usize) -> f64,
    ) -> Vec<(usize, f64)> {
        let q_norm = norm(query);
        if let (Some(w), Some(q)) = (&self.whole, whole(query)) {
            if q.len() == w.head.len() / self.vectors().max(1) + HEAD - HEAD + w.tail_dims() {
                return self.whole_similarities(w, &q, q_norm, leave_out, needed);
            }
        }
        self.docs
            .iter()
            .map(|(skill, vectors)| {
                let skipped = leave_out.and_then(|(s, n)| (s == *skill).then_some(n + 1));
                let best = (vectors.iter().enumerate())
                    .filter(|(k, _)| Some(*k) != skipped)
                    .map(|(_, v)| cosine(query, q_norm, v))
                    .fold(0.0f64, f64::max);
                (*skill, best)
            })
            .collect()
    }

    fn vectors(&self) -> usize {
        self.docs.iter().map(|(_, v)| v.len()).sum()
    }
}

impl Whole {
    fn tail_dims(&self) -> usize {
        self.tail.len() / self.tail_norms.len().max(1)
    }
}

impl DenseIndex {
    /// [`DenseIndex::similarities_reaching`] by integer dot products: the same cosines,
    /// since a dot product of whole numbers is exact however it is summed.
    fn whole_similarities(
        &self,
        w: &Whole,
        q: &[i16],
        q_norm: f64,
        leave_out: Option<(usize, usize)>,
        needed: &dyn Fn(usize) -> f64,
    ) -> Vec<(usize, f64)> {
        let (q_head, q_tail) = q.split_at(HEAD);
        let q_tail_norm = int_norm(q_tail);
        let tail_dims = q_tail.len();
        let mut at = 0;
        (self.docs.iter())
            .map(|(skill, vectors)| {
                let first = at;
                at += vectors.len();
                if q_norm == 0.0 {
                    return (*skill, 0.0);
                }
                let skipped = leave_out.and_then(|(s, n)| (s == *skill).then_some(n + 1));
                let kept =
                    || (0..vectors.len()).filter(|&k| Some(k) != skipped && vectors[k].norm != 0.0);
                let head = |k: usize| {
                    let i = first + k;
                    dot(q_head, &w.head[i * HEAD..(i + 1) * HEAD])
                };
                // The largest cosine any of its texts could have; a margin keeps rounding from
                // passing over a skill that would reach the bar exactly.
                let bound = kept()
                    .map(|k| {
                        let rest = q_tail_norm * w.tail_norms[first + k];
                        (f64::from(head(k)) + rest) / (q_norm * vectors[k].norm)
                    })
                    .fold(f64::NEG_INFINITY, f64::max);
                if bound + 1e-9 < needed(*skill) {
                    return (*skill, 0.0);
                }
                let best = kept()
                    .map(|k| {
                        let i = first + k;
                        let tail = dot(q_tail, &w.tail[i * tail_dims..(i + 1) * tail_dims]);
                        f64::from(head(k) + tail) / (q_norm * vectors[k].norm)
                    })
                    .fold(0.0f64, f64::max);
                (*skill, best)
            })
            .collect()
    }
}

/// A vector's length, summed in f64 in order (as every runtime sums it).
fn norm(v: &[f32]) -> f64 {
    v.iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt()
}

/// The cosine of a query and a stored vector (0 when either is all zeros).
fn cosine(q: &[f32], q_norm: f64, v: &Stored) -> f64 {
    if q_norm == 0.0 || v.norm == 0.0 || q.len() != v.data.len() {
        return 0.0;
    }
    let dot: f64 = q
        .iter()
        .zip(v.data.iter())
        .map(|(&a, &b)| f64::from(a) * f64::from(b))
        .sum();
    dot / (q_norm * v.norm)
}

/// A hybrid score: the lexical score's share plus the similarity's, kept to 6 decimals.
pub fn fuse(lexical: f64, similarity: f64) -> f64 {
    super::round(LEXICAL_SHARE * lexical + (1.0 - LEXICAL_SHARE) * similarity)
}

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

    /// The stored vector of a text, by the SHA-256 (hex) of the text.
    pub fn vector(&self, digest: &str) -> Result<Option<Vec<f32>>, Error> {
        let conn = self.conn.lock().expect("lock");
        let mut st = conn
            .prepare_cached("SELECT data FROM vector WHERE digest = ?1")
            .map_err(corrupt(&self.path))?;
        let mut rows = st.query([digest]).map_err(corrupt(&self.path))?;
        let row = rows.next().map_err(corrupt(&self.path))?;
        let dims = self.embedding_model().map_or(0, |(_, d)| d);
        row.map(|r| r.get::<_, Vec<u8>>(0).map(|d| decode_stored(&d, dims)))
            .transpose()
            .map_err(corrupt(&self.path))
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
        let e = corrupt(&self.path);
        let dims = self.embedding_model().map_or(0, |(_, d)| d);
        let mut listed: HashMap<i64, String> = HashMap::new();
        let mut stored: HashMap<String, Arc<[f32]>> = HashMap::new();
        {
            let conn = self.conn.lock().expect("lock");
            let mut st = conn
                .prepare_cached(
                    "SELECT id, vectors FROM card WHERE id IN (SELECT value FROM json_each(?1))",
                )
                .map_err(&e)?;
            let ids = serde_json::to_string(&cards).unwrap_or_default();
            let rows = st
                .query_map([ids], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
                .map_err(&e)?;
            for row in rows {
                let (id, digests) = row.map_err(&e)?;
                listed.insert(id, digests);
            }
            let wanted: BTreeSet<&str> = listed.values().flat_map(|d| d.split(' ')).collect();
            let mut st = conn
                .prepare_cached(
                    "SELECT digest, data FROM vector \
                     WHERE digest IN (SELECT value FROM json_each(?1))",
                )
                .map_err(&e)?;
            let digests = serde_json::to_string(&wanted).unwrap_or_default();
            let rows = st
                .query_map([digests], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
                })
                .map_err(&e)?;
            for row in rows {
                let (digest, data) = row.map_err(&e)?;
                stored.insert(digest, decode_stored(&data, dims).into());
            }
        }
        let docs = shown
            .into_iter()
            .map(|(i, card)| {
                let digests = listed.get(&card).map_or("", String::as_str);
                let vectors = (digests.split(' '))
                    .filter_map(|d| stored.get(d))
                    .map(|data| Stored {
                        norm: norm(data),
                        data: data.clone(),
                    })
                    .collect();
                (i, vectors)
            })
            .collect();
        let ix = Arc::new(DenseIndex::new(docs));
        Ok(bundle.dense.get_or_init(|| ix).clone())
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
    fn a_skill_scores_by_its_closest_text_and_leaving_one_out_skips_that_example() {
        let stored = |v: &[f32]| Stored {
            norm: norm(v),
            data: v.into(),
        };
        let ix = DenseIndex::new(vec![
            (0, vec![stored(&[1.0, 0.0]), stored(&[0.0, 1.0])]),
            (1, vec![stored(&[-1.0, 0.0])]),
        ]);
        assert!(ix.whole.is_none(), "two numbers: no head to bound with");
        // A query of fractions takes the f64 path, with the same answers.
        assert_eq!(ix.similarities(&[0.0, 0.5], None), [(0, 1.0), (1, 0.0)]);
        // Whole numbers: the integer path gives exactly the f64 path's cosines.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 255) as f32 - 127.0
        };
        let mut vector = |n: usize| (0..n).map(|_| next()).collect::<Vec<f32>>();
        let docs: Vec<(usize, Vec<Stored>)> = (0..20)
            .map(|d| (d, (0..3).map(|_| stored(&vector(96))).collect()))
            .collect();
        let query = vector(96);
        let fast = DenseIndex::new(docs);
        assert!(fast.whole.is_some());
        let slow = DenseIndex {
            docs: (fast.docs.iter())
                .map(|(d, v)| (*d, v.iter().map(|s| stored(&s.data)).collect()))
                .collect(),
            whole: None,
        };
        for leave_out in [None, Some((3, 1))] {
            let exact = slow.similarities(&query, leave_out);
            assert_eq!(fast.similarities(&query, leave_out), exact);
            // With a bar, a skill is passed over (0) only when it could not reach it.
            let bar = exact.iter().map(|s| s.1).fold(0.0, f64::max) * 0.9;
            let cut = fast.similarities_reaching(&query, leave_out, &|_| bar);
            assert!(cut.iter().any(|s| s.1 == 0.0) && cut.iter().any(|s| s.1 > 0.0));
            for (got, want) in cut.iter().zip(&exact) {
                assert!(
                    got == want || (got.1 == 0.0 && want.1 < bar),
                    "{got:?} {want:?}"
                );
            }
        }
        let sims = ix.similarities(&[0.0, 2.0], None);
        assert_eq!(sims, [(0, 1.0), (1, 0.0)]);
        // Its one example left out, skill 0 is only as close as its summary.
        assert_eq!(ix.similarities(&[0.0, 2.0], Some((0, 0)))[0], (0, 0.0));
        assert_eq!(decode(&encode(&[1.5, -2.0])), [1.5, -2.0]);
        assert_eq!(decode_stored(&encode(&[1.5, -2.0]), 2), [1.5, -2.0]);
        let whole = [127.0, -127.0, 0.0, -1.0];
        assert_eq!(encode_whole(&whole).len(), 4);
        assert_eq!(decode_stored(&encode_whole(&whole), 4), whole);
        assert_eq!(fuse(0.5, 1.0), 0.75);
    }
}
