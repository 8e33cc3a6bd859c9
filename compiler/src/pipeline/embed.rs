//! Vectors for dense routing (SPEC 13.1): when workspace.yaml declares
//! `routing.embedding_model`, every card gets a vector for its summary and one for each trigger
//! example, made by the embedder command of the person building (`--embedder CMD` or
//! `SKILLC_EMBEDDER`; never a command from the workspace's files). The command reads JSON lines
//! `{"text": …}` and writes one `{"model": …, "vector": […]}` line for each. Vectors are kept in
//! `.skillc/embeddings.db` by model and text digest, so an unchanged text is embedded once.
//! A workspace that declares no model gets the built-in one: its table is part of the compiler
//! and of every artifact so built, and its vectors cost microseconds (no command, no cache).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::artifact::{Data, MeaningRows};
use crate::digest;

/// The cache, inside the workspace (`.skillc/` is ignored by git and by the build).
pub(crate) const CACHE_FILE: &str = ".skillc/embeddings.db";
/// The environment variable naming the embedder when `--embedder` is not given.
pub(crate) const EMBEDDER_VARIABLE: &str = "SKILLC_EMBEDDER";
/// Texts per call of the embedder: each call's time and output stay bounded.
const PER_CALL: usize = 256;
/// How long one call (of at most [`PER_CALL`] texts) may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(300);
/// The most a call may print: [`PER_CALL`] vectors of 8,192 numbers written long.
const MAX_OUTPUT: u64 = 256 << 20;
/// The longest vector taken.
const MAX_DIMS: usize = 65_536;

use crate::meaning::{built_in, summary, with_body, BUILT_IN_DIMS, BUILT_IN_MODEL, BUILT_IN_TABLE};

/// What a session keeps of the built-in meaning between builds: each card's digests (by the card, which a session shares between builds while it is unchanged);
/// and the last build's vectors, so that a rebuild after an edit makes only the edited texts'
/// and, when no card changed, hands on the same vectors (which the writer then copies).
#[derive(Debug, Default)]
pub(crate) struct MeaningMemo {
    /// The small-talk messages' vectors, made once.
    small_talk: Option<Arc<Vec<u8>>>,
    /// The pieces' weights towards small talk as the artifact holds them, made once.
    talk_words: Option<Arc<Vec<u8>>>,
    /// The pairs of pieces' weights towards small talk as the artifact holds them, made once.
    talk_pairs: Option<Arc<Vec<u8>>>,
    cards: FxHashMap<usize, (Arc<crate::render::Card>, String)>,
    vectors: Arc<BTreeMap<String, Vec<u8>>>,
    /// The last build's summaries with their bodies mixed in (`card_route.meaning`), by the
    /// summary's digest and the body's words.
    mixed: FxHashMap<MixedKey, Option<Arc<[u8]>>>,
}

/// A summary's digest and a body's words as written: what a card's summary with its body
/// mixed in is made of.
type MixedKey = (String, Arc<str>);

/// The texts of a card's vectors: its summary, then each trigger example.
fn card_texts(c: &crate::render::Card) -> impl Iterator<Item = String> + '_ {
    std::iter::once(summary(&c.name, &c.description, &c.when_to_use))
        .chain(c.triggers.iter().cloned())
}

/// A card's texts' digests, space-separated, each text kept in `texts` by its digest.
fn card_digests(card: &crate::render::Card, texts: &mut BTreeMap<String, String>) -> String {
    let digests: Vec<String> = card_texts(card)
        .map(|text| {
            let d = digest::hash(text.as_bytes());
            texts.entry(d.clone()).or_insert(text);
            d
        })
        .collect();
    digests.join(" ")
}

/// Gives every card its digests and `data` the built-in vectors of their texts, from `memo`
/// where it has them, and leaves `memo` holding exactly this build's.
fn attach_built_in(data: &mut Data, memo: Option<&mut MeaningMemo>) {
    let mut own = MeaningMemo::default();
    let memo = memo.unwrap_or(&mut own);
    let table = built_in();
    // What is left of the last build's cards once this build's took theirs: the cards gone.
    let mut before = std::mem::take(&mut memo.cards);
    let mut cards: FxHashMap<usize, (Arc<crate::render::Card>, String)> =
        FxHashMap::with_capacity_and_hasher(data.cards.len(), Default::default());
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut made_anew = Vec::new();
    let mut gone = Vec::new();
    for rows in &mut data.cards {
        let key = Arc::as_ptr(&rows.card) as usize;
        if let Some((_, digests)) = (cards.get(&key)).filter(|(c, _)| Arc::ptr_eq(c, &rows.card)) {
            // The same card twice in this build.
            rows.vectors = digests.clone();
            continue;
        }
        match before.remove(&key) {
            Some((card, digests)) if Arc::ptr_eq(&card, &rows.card) => rows.vectors = digests,
            other => {
                // Another card at a freed card's address is that card gone and this one new.
                gone.extend(other.map(|(_, digests)| digests));
                rows.vectors = card_digests(&rows.card, &mut texts);
                made_anew.push(rows.vectors.clone());
            }
        }
        cards.insert(key, (rows.card.clone(), rows.vectors.clone()));
    }
    gone.extend(before.into_values().map(|(_, digests)| digests));
    memo.cards = cards;
    // The cards made anew name the very texts of the cards gone (an edit of a skill's body,
    // or of a field no vector reads, makes its card again): the texts are the last build's,
    // and so are the vectors, handed on as they are for the writer to copy with the table (a
    // rebuild after a body edit on the reference workload: 8,786 vectors and 8 MB not
    // written again).
    made_anew.sort_unstable();
    gone.sort_unstable();
    if made_anew != gone {
        let known = &memo.vectors;
        let wanted: Vec<&str> = (memo.cards.values())
            .flat_map(|(_, d)| d.split(' '))
            .filter(|d| !d.is_empty())
            .collect();
        let made: BTreeMap<String, Vec<u8>> = (wanted.into_par_iter())
            .map(|d| match (known.get(d), texts.get(d)) {
                (Some(v), _) => (d.to_string(), v.clone()),
                (None, text) => {
                    let v = table.vector(text.map_or("", String::as_str));
                    (d.to_string(), skillc_runtime::route::encode_whole(&v))
                }
            })
            .collect();
        memo.vectors = Arc::new(made);
    }
    data.vectors = memo.vectors.clone();
    mix_bodies(data, memo, &table);
    data.meaning = Some(meaning_rows(memo, &table));
}

/// Gives each card's `card_route` row its summary's vector with its body's words mixed in
/// (`meaning::with_body`), from `memo` where the last build mixed the same summary with the
/// same words, and leaves `memo` holding this build's.
fn mix_bodies(data: &mut Data, memo: &mut MeaningMemo, table: &skillc_runtime::route::Meaning) {
    let before = std::mem::take(&mut memo.mixed);
    let keys: Vec<MixedKey> = (data.cards.iter().zip(&data.card_route))
        .map(|(c, r)| {
            let summary = c.vectors.split(' ').next().unwrap_or_default();
            (summary.to_string(), r.body_words.clone())
        })
        .collect();
    let vectors = &data.vectors;
    let mixed: Vec<Option<Arc<[u8]>>> = (keys.par_iter())
        .map(|key| match before.get(key) {
            Some(known) => known.clone(),
            None => {
                let summary = vectors.get(&key.0)?;
                let summary = skillc_runtime::route::decode_stored(summary, table.dims());
                let v = with_body(table, &summary, &key.1)?;
                Some(skillc_runtime::route::encode_whole(&v).into())
            }
        })
        .collect();
    for (route, v) in data.card_route.iter_mut().zip(&mixed) {
        route.meaning = v.clone();
    }
    memo.mixed = keys.into_iter().zip(mixed).collect();
}

/// The built-in table's rows, with the small talk's vectors (made once a session) and the
/// glossary (once a process).
fn meaning_rows(memo: &mut MeaningMemo, table: &skillc_runtime::route::Meaning) -> MeaningRows {
    let small_talk = (memo.small_talk)
        .get_or_insert_with(|| Arc::new(small_talk_vectors(table)))
        .clone();
    let weights = crate::meaning::built_in_talk_words;
    let talk_words = (memo.talk_words)
        .get_or_insert_with(|| Arc::new(weights().pieces_bytes()))
        .clone();
    let talk_pairs = (memo.talk_pairs)
        .get_or_insert_with(|| Arc::new(weights().pairs_bytes()))
        .clone();
    MeaningRows {
        name: BUILT_IN_MODEL,
        table: BUILT_IN_TABLE,
        small_talk,
        talk_words,
        talk_pairs,
        glossary: crate::meaning::built_in_glossary(),
    }
}

/// The small talk's vectors (`meaning::small_talk`), a signed byte a number, one after
/// another.
fn small_talk_vectors(table: &skillc_runtime::route::Meaning) -> Vec<u8> {
    (crate::meaning::small_talk(table).iter())
        .flat_map(|v| skillc_runtime::route::encode_whole(v))
        .collect()
}

/// The embedder to use: `given`, else [`EMBEDDER_VARIABLE`] when set and not empty.
pub(crate) fn embedder_command(given: Option<&str>) -> Option<String> {
    given
        .map(str::to_string)
        .or_else(|| std::env::var(EMBEDDER_VARIABLE).ok())
        .filter(|c| !c.trim().is_empty())
}

/// Gives every card of `data` the digests of its texts and `data` their vectors, when its
/// manifest names an embedding model (else leaves it as it is).
pub(crate) fn attach(
    data: &mut Data,
    embedder: Option<&str>,
    root: &Path,
    memo: Option<&mut MeaningMemo>,
) -> Result<(), String> {
    super::progress::timing(&"laid out; the vectors next");
    let Some(model) = data.manifest.get("embedding_model").cloned() else {
        return Ok(());
    };
    let dims = if model == BUILT_IN_MODEL {
        // Whole numbers, stored a byte each.
        attach_built_in(data, memo);
        BUILT_IN_DIMS
    } else {
        let mut texts: BTreeMap<String, String> = BTreeMap::new();
        for rows in &mut data.cards {
            rows.vectors = card_digests(&rows.card, &mut texts);
        }
        let found = vectors(&model, &texts, embedder, root)?;
        let dims = found.values().next().map_or(0, Vec::len);
        data.vectors = Arc::new(
            (found.into_iter())
                .map(|(d, v)| (d, skillc_runtime::route::encode(&v)))
                .collect(),
        );
        dims
    };
    data.manifest
        .insert("embedding_dims".to_string(), dims.to_string());
    Ok(())
}

/// The vector of each text (by digest) from `model`: the cached ones, and the others from
/// the embedder (then cached). All of one length.
pub(crate) fn vectors(
    model: &str,
    texts: &BTreeMap<String, String>,
    embedder: Option<&str>,
    root: &Path,
) -> Result<BTreeMap<String, Vec<f32>>, String> {
    let cache = Cache::open(root);
    let mut found = cache
        .as_ref()
        .map(|c| c.get(model, texts))
        .unwrap_or_default();
    let missing: Vec<(&String, &String)> = texts
        .iter()
        .filter(|(d, _)| !found.contains_key(*d))
        .collect();
    if !missing.is_empty() {
        let Some(command) = embedder_command(embedder) else {
            return Err(format!(
                "workspace.yaml declares `routing.embedding_model: {model}` and {} of its texts \
                 have no vector yet: give the command that embeds them with --embedder CMD or \
                 {EMBEDDER_VARIABLE} (docs/routing.md)",
                missing.len()
            ));
        };
        for chunk in missing.chunks(PER_CALL) {
            let made = call(&command, model, chunk)?;
            if let Some(c) = &cache {
                c.put(model, &made);
            }
            found.extend(made);
        }
    }
    let mut lengths = found.values().map(Vec::len);
    if let Some(first) = lengths.next() {
        if let Some(other) = lengths.find(|&n| n != first) {
            return Err(format!(
                "the vectors of model `{model}` differ in length ({first} and {other} numbers); \
                 if the model changed, delete {CACHE_FILE}"
            ));
        }
    }
    Ok(found)
}

/// The vectors of `messages` from the model of artifact `a`, in their order: from the
/// artifact's meaning table when it carries one, else from the cache or the embedder.
pub fn message_vectors(
    a: &skillc_runtime::Artifact,
    messages: &[String],
    embedder: Option<&str>,
    root: &Path,
) -> Result<Vec<Vec<f32>>, String> {
    let Some((model, _)) = a.embedding_model() else {
        return Err("this artifact carries no embedding vectors".to_string());
    };
    // The built-in meaning: a message's vector is the artifact's own arithmetic, as a
    // runtime's is.
    let mut built_in = Vec::with_capacity(messages.len());
    for m in messages {
        match a.meaning_vector(m).map_err(|e| e.to_string())? {
            Some(v) => built_in.push(v),
            None => break,
        }
    }
    if built_in.len() == messages.len() {
        return Ok(built_in);
    }
    // A model of one's own: the cached vectors (a build cached every trigger example's), the
    // others from the embedder.
    let digests: Vec<String> = messages
        .iter()
        .map(|m| digest::hash(m.as_bytes()))
        .collect();
    let texts: BTreeMap<String, String> = digests
        .iter()
        .cloned()
        .zip(messages.iter().cloned())
        .collect();
    let found = vectors(model, &texts, embedder, root)?;
    let vector_of = |d: &String| found.get(d).cloned().ok_or("a message got no vector");
    Ok(digests.iter().map(vector_of).collect::<Result<_, _>>()?)
}

/// One call of the embedder over `texts`: their vectors by digest.
fn call(
    command: &str,
    model: &str,
    texts: &[(&String, &String)],
) -> Result<HashMap<String, Vec<f32>>, String> {
    let input: String = texts
        .iter()
        .map(|(_, t)| serde_json::json!({ "text": t }).to_string() + "\n")
        .collect();
    let fail = |why: String| format!("the embedder `{}` {why}", crate::command::clip(command));
    let out = crate::command::run(command, input, CALL_TIMEOUT, MAX_OUTPUT).map_err(fail)?;
    let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() != texts.len() {
        return Err(fail(format!(
            "answered {} lines for {} texts (one `{{\"model\", \"vector\"}}` line per text)",
            lines.len(),
            texts.len()
        )));
    }
    let mut made = HashMap::new();
    for (n, (line, (digest, _))) in lines.iter().zip(texts).enumerate() {
        let vector =
            parse_line(line, model).map_err(|why| fail(format!("line {}: {why}", n + 1)))?;
        made.insert((*digest).clone(), vector);
    }
    Ok(made)
}

/// A line of the embedder's answer: its vector, if its model is `model`.
fn parse_line(line: &str, model: &str) -> Result<Vec<f32>, String> {
    #[derive(serde::Deserialize)]
    struct Line {
        model: String,
        vector: Vec<f64>,
    }
    let parsed: Line = serde_json::from_str(line)
        .map_err(|e| format!("is not `{{\"model\": …, \"vector\": [numbers]}}` ({e})"))?;
    if parsed.model != model {
        return Err(format!(
            "is from model `{}`; workspace.yaml declares `{model}`",
            parsed.model
        ));
    }
    if parsed.vector.is_empty() || parsed.vector.len() > MAX_DIMS {
        return Err(format!(
            "has {} numbers (from 1 to {MAX_DIMS})",
            parsed.vector.len()
        ));
    }
    let vector: Vec<f32> = parsed.vector.iter().map(|&x| x as f32).collect();
    if vector.iter().any(|x| !x.is_finite()) {
        return Err("holds a number too large for a 32-bit float".to_string());
    }
    Ok(vector)
}

/// Vectors kept between builds, by model and text digest. A cache that cannot be opened or
/// written is done without: the vectors are then made again.
struct Cache {
    conn: rusqlite::Connection,
}

impl Cache {
    fn open(root: &Path) -> Option<Cache> {
        let path: PathBuf = root.join(CACHE_FILE);
        let dir = path.parent()?;
        std::fs::create_dir_all(dir).ok()?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            let _ = std::fs::write(&ignore, "*\n");
        }
        let conn = rusqlite::Connection::open(&path).ok()?;
        conn.execute_batch(
            "PRAGMA busy_timeout = 5000;
             CREATE TABLE IF NOT EXISTS embedding (
               model TEXT NOT NULL, digest TEXT NOT NULL, data BLOB NOT NULL,
               PRIMARY KEY (model, digest)) WITHOUT ROWID;",
        )
        .ok()?;
        Some(Cache { conn })
    }

    fn get(&self, model: &str, texts: &BTreeMap<String, String>) -> BTreeMap<String, Vec<f32>> {
        let mut found = BTreeMap::new();
        let Ok(mut st) = self
            .conn
            .prepare("SELECT data FROM embedding WHERE model = ?1 AND digest = ?2")
        else {
            return found;
        };
        for digest in texts.keys() {
            let data: Option<Vec<u8>> = st.query_row([model, digest.as_str()], |r| r.get(0)).ok();
            if let Some(data) = data {
                found.insert(digest.clone(), skillc_runtime::route::decode(&data));
            }
        }
        found
    }

    fn put(&self, model: &str, made: &HashMap<String, Vec<f32>>) {
        let Ok(tx) = self.conn.unchecked_transaction() else {
            return;
        };
        if let Ok(mut st) =
            tx.prepare("INSERT OR REPLACE INTO embedding (model, digest, data) VALUES (?1, ?2, ?3)")
        {
            for (digest, vector) in made {
                let data = skillc_runtime::route::encode(vector);
                let _ = st.execute(rusqlite::params![model, digest, data]);
            }
        }
        let _ = tx.commit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (A session's rebuilds reuse the memo: `incremental::a_rebuild_after_any_edits_equals_a_clean_build`
    /// checks that they write the clean build's bytes.)
    #[test]
    fn the_built_in_table_parses_to_its_length() {
        assert_eq!(built_in().dims(), BUILT_IN_DIMS);
        let v = built_in().vector("refund a payment");
        assert!(
            v.iter().all(|x| x.fract() == 0.0 && x.abs() <= 127.0) && v.contains(&127.0)
                || v.contains(&-127.0)
        );
    }

    #[test]
    fn an_embedder_line_must_be_of_the_declared_model_and_finite() {
        assert_eq!(
            parse_line(r#"{"model": "m", "vector": [1, -0.5]}"#, "m"),
            Ok(vec![1.0, -0.5])
        );
        assert!(parse_line(r#"{"model": "x", "vector": [1]}"#, "m")
            .unwrap_err()
            .contains("model `x`"));
        assert!(parse_line(r#"{"model": "m", "vector": []}"#, "m").is_err());
        assert!(parse_line(r#"{"model": "m", "vector": [1e300]}"#, "m").is_err());
        assert!(parse_line("garbage", "m").is_err());
    }

    #[test]
    fn a_summary_reads_as_words() {
        let s = summary("pricing-uk_plans", "Prices.", &["When asked.".to_string()]);
        assert_eq!(s, "pricing uk plans: Prices.\nWhen asked.");
    }
}
