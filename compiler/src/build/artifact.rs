//! The only module that touches SQLite: writes the artifact (SPEC 6) atomically.
//!
//! The tables and rows are defined once, in `skillc_runtime::schema`, which runtimes read. Rows are inserted in a fixed order from sorted data, so the same input
//! gives a byte-identical file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{params, Connection, Transaction};
use rustc_hash::FxHashMap;
use skillc_runtime::schema::{
    self, AssetRow, BundleRow, CardRow, CategoryRow, ClientRow, ConsumerRow, EntryRow, SourceRow,
};

/// Failures writing the artifact.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite failed.
    #[error("cannot write artifact `{path}`: {source}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// Why.
        source: rusqlite::Error,
    },
    /// The file system failed.
    #[error("cannot write artifact `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Everything the artifact holds, as rows of [`skillc_runtime::schema`], in insertion order.
#[derive(Debug, Default)]
pub struct Data {
    /// Manifest keys and values.
    pub manifest: BTreeMap<String, String>,
    /// Blob contents by hash (shared with the rendered entries whose bodies they are).
    pub blobs: BTreeMap<String, Arc<Vec<u8>>>,
    /// Categories.
    pub categories: Vec<CategoryRow>,
    /// Pooled sources.
    pub sources: Vec<SourceRow>,
    /// Clients.
    pub clients: Vec<ClientRow>,
    /// Consumers.
    pub consumers: Vec<ConsumerRow>,
    /// Cards with their fragments.
    pub cards: Vec<CardRow>,
    /// Entries.
    pub entries: Vec<EntryRow>,
    /// Bundles with their slots.
    pub bundles: Vec<BundleRow>,
    /// Qualified names the slots point to (`name`).
    pub names: Vec<String>,
    /// Reasons the slots point to (`reason`).
    pub reasons: Vec<String>,
    /// Assets.
    pub assets: Vec<AssetRow>,
}

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Compresses a blob with zlib when that saves at least a fifth (most text does; small or
/// already-compressed files stay as they are). Level 6 is fixed, so output is deterministic.
pub fn encode(data: &[u8]) -> (&'static str, std::borrow::Cow<'_, [u8]>) {
    use std::io::Write;
    if data.len() >= 64 {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
        if z.write_all(data).is_ok() {
            if let Ok(packed) = z.finish() {
                if packed.len() * 5 <= data.len() * 4 {
                    return ("zlib", std::borrow::Cow::Owned(packed));
                }
            }
        }
    }
    ("identity", std::borrow::Cow::Borrowed(data))
}

/// Blobs compressed earlier in this process, by content hash (rebuilds in `watch` and the
/// studio store mostly the same blobs).
static ENCODED: std::sync::OnceLock<std::sync::Mutex<EncodedBlobs>> = std::sync::OnceLock::new();

/// Bytes held, and each blob's encoding and stored bytes by content hash.
type EncodedBlobs = (usize, BTreeMap<String, (&'static str, Vec<u8>)>);

/// Bytes of compressed blobs kept before the cache starts over.
const ENCODED_LIMIT: usize = 256 << 20;

fn encode_cached(hash: &str, data: &[u8]) -> (&'static str, std::borrow::Cow<'static, [u8]>) {
    let cache = ENCODED.get_or_init(Default::default);
    if let Ok(c) = cache.lock() {
        if let Some((enc, bytes)) = c.1.get(hash) {
            return (enc, std::borrow::Cow::Owned(bytes.clone()));
        }
    }
    let (enc, stored) = encode(data);
    let stored = stored.into_owned();
    if let Ok(mut c) = cache.lock() {
        if c.0 + stored.len() > ENCODED_LIMIT {
            *c = (0, BTreeMap::new());
        }
        c.0 += stored.len();
        c.1.insert(hash.to_string(), (enc, stored.clone()));
    }
    (enc, std::borrow::Cow::Owned(stored))
}

/// Writes `data` to `out` atomically: a temporary file beside it, then renamed over it. A
/// failure or a kill at any point leaves a previous artifact untouched. Each table's rows are
/// dropped once written, so the memory of a build falls as the file grows. With `session`
/// (watch, the studio), compressed blobs are kept for the next build, and the file is not
/// synced to the disk before the rename: a sync guards against a power cut, a session's
/// artifact is rebuilt from the files when it starts again, and the sync took 12-20 ms of
/// each rebuild of the reference workload. A one-shot build (CI's release output) syncs.
///
/// `warnings` (of the check and the build, sorted) are the build report's own list, written
/// from where it is rather than copied into `data` (26,000 of them at 5,000 clients).
pub fn write(
    out: &Path,
    data: Data,
    warnings: &[crate::Diagnostic],
    session: bool,
) -> Result<u64, Error> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "artifact.db".to_string());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = write_file(&tmp, data, warnings, session).and_then(|()| {
        if session {
            std::fs::rename(&tmp, out).map_err(io(out))?;
        } else {
            std::fs::File::open(&tmp)
                .and_then(|file| file.sync_all())
                .map_err(io(&tmp))?;
            std::fs::rename(&tmp, out).map_err(io(out))?;
            if let Ok(d) = std::fs::File::open(&dir) {
                let _ = d.sync_all();
            }
        }
        Ok(std::fs::metadata(out).map_err(io(out))?.len())
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_file(
    path: &Path,
    mut d: Data,
    warnings: &[crate::Diagnostic],
    session: bool,
) -> Result<(), Error> {
    let e = sql(path);
    let mut conn = Connection::open(path).map_err(&e)?;
    // No journal and no syncs while filling a new temporary file (the rename is the commit);
    // a page cache as large as a typical artifact keeps SQLite from spilling pages early.
    // 8 KiB pages: fewer interior pages and overflow tails than 4 KiB, and fewer reads per
    // catalog (5,000 clients: 120.5 -> 118.1 MB; 16 KiB saved 1 MB more but grew the
    // reference artifact).
    conn.execute_batch(
        "PRAGMA page_size = 8192; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -65536;",
    )
    .map_err(&e)?;
    let tx = conn.transaction().map_err(&e)?;
    tx.execute_batch(schema::DDL).map_err(&e)?;
    insert_blobs(&tx, std::mem::take(&mut d.blobs), session).map_err(&e)?;
    insert_small_tables(&tx, &d).map_err(&e)?;
    insert_cards(&tx, std::mem::take(&mut d.cards)).map_err(&e)?;
    insert_entries(&tx, std::mem::take(&mut d.entries)).map_err(&e)?;
    insert_bundles(&tx, &mut d).map_err(&e)?;
    insert_tail(&tx, &d, warnings).map_err(&e)?;
    tx.commit().map_err(&e)?;
    conn.pragma_update(None, "user_version", schema::VERSION)
        .map_err(&e)?;
    conn.pragma_update(None, "application_id", schema::APPLICATION_ID)
        .map_err(&e)?;
    conn.close().map_err(|(_, err)| e(err))?;
    Ok(())
}

type Sql<T> = Result<T, rusqlite::Error>;

/// A blob as stored: hash, size, encoding and stored bytes.
type StoredBlob = (String, usize, &'static str, Vec<u8>);

/// Blobs encoded together on all cores before they are written: enough to keep every core
/// busy, few enough that the compressed copies of a large workspace's blobs are never all
/// held at once.
const BLOB_CHUNK: usize = 512;

/// Writes the blobs in hash order, encoded a chunk at a time on all cores; each one's content
/// is dropped once encoded. In a session, through the cache of blobs compressed before.
fn insert_blobs(
    tx: &Transaction<'_>,
    blobs: BTreeMap<String, Arc<Vec<u8>>>,
    session: bool,
) -> Sql<()> {
    let mut st = tx.prepare("INSERT INTO blob VALUES (?1, ?2, ?3, ?4)")?;
    let mut blobs = blobs.into_iter();
    loop {
        let chunk: Vec<(String, Arc<Vec<u8>>)> = blobs.by_ref().take(BLOB_CHUNK).collect();
        if chunk.is_empty() {
            return Ok(());
        }
        for (hash, size, encoding, stored) in encode_all(chunk, session) {
            st.execute(params![hash, size as i64, encoding, stored])?;
        }
    }
}

fn encode_all(blobs: Vec<(String, Arc<Vec<u8>>)>, session: bool) -> Vec<StoredBlob> {
    use rayon::prelude::*;
    blobs
        .into_par_iter()
        .map(|(hash, data)| {
            let (encoding, stored) = if session {
                encode_cached(&hash, &data)
            } else {
                encode(&data)
            };
            let stored = stored.into_owned();
            (hash, data.len(), encoding, stored)
        })
        .collect()
}

/// manifest, category, source, client, consumer and consumer_hidden.
fn insert_small_tables(tx: &Transaction<'_>, d: &Data) -> Sql<()> {
    let mut st = tx.prepare("INSERT INTO manifest VALUES (?1, ?2)")?;
    for (k, v) in &d.manifest {
        st.execute(params![k, v])?;
    }
    let mut st =
        tx.prepare("INSERT INTO category VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")?;
    for c in &d.categories {
        let (h, p, u) = (&c.catalog_header, &c.prompt_heading, &c.uncertainty);
        st.execute(params![
            c.id,
            c.position,
            c.display_name,
            c.hidden,
            h.text,
            h.tokens,
            p.text,
            p.tokens,
            u.text,
            u.tokens
        ])?;
    }
    let mut st = tx.prepare("INSERT INTO source VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    for s in &d.sources {
        st.execute(params![
            s.sid,
            s.url,
            s.title,
            s.text,
            s.extra,
            s.fragment.text,
            s.fragment.tokens
        ])?;
    }
    let mut st = tx.prepare("INSERT INTO client VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
    for c in &d.clients {
        st.execute(params![
            c.id, c.trusted, c.flags, c.locales, c.tiers, c.toggles
        ])?;
    }
    let mut st = tx.prepare("INSERT INTO consumer VALUES (?1, ?2, ?3)")?;
    let mut hidden = tx.prepare("INSERT INTO consumer_hidden VALUES (?1, ?2)")?;
    for c in &d.consumers {
        st.execute(params![c.name, c.enabled, c.disabled])?;
        for q in &c.hidden {
            hidden.execute(params![c.name, q])?;
        }
    }
    Ok(())
}

fn insert_cards(tx: &Transaction<'_>, cards: Vec<CardRow>) -> Sql<()> {
    let mut st = tx.prepare("INSERT INTO card VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?;
    let mut frag = tx.prepare("INSERT INTO card_fragment VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for (id, c) in (1i64..).zip(cards) {
        st.execute(params![
            id,
            c.name,
            c.qualified_name,
            c.category,
            c.description,
            serde_json::to_string(&c.triggers).unwrap_or_default(),
            serde_json::to_string(&c.when_to_use).unwrap_or_default(),
            c.location,
        ])?;
        for f in &c.fragments {
            frag.execute(params![id, f.level, f.format, f.text.text, f.text.tokens])?;
        }
    }
    Ok(())
}

fn insert_entries(tx: &Transaction<'_>, entries: Vec<EntryRow>) -> Sql<()> {
    let mut st = tx.prepare(
        "INSERT INTO entry VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
    )?;
    for (id, en) in (1i64..).zip(entries) {
        st.execute(params![
            id,
            en.name,
            en.qualified_name,
            en.resolved_name,
            en.card as i64 + 1,
            en.category,
            en.sort_key,
            en.catalog_visible,
            en.always_on,
            en.hidden,
            en.unavailable,
            en.untrusted,
            en.body,
            en.body_tokens,
            en.prompt_prefix,
            en.prompt_body,
            en.prompt_suffix,
            en.prompt_tokens,
            serde_json::to_string(&en.record).unwrap_or_default(),
        ])?;
    }
    Ok(())
}

/// name, reason, slot_list and bundle. Each bundle's slots are packed into one JSON array of
/// `[name, entry]` and `[name, null, reason]` ids, and each distinct array is stored once, in
/// the order of the first bundle holding it.
fn insert_bundles(tx: &Transaction<'_>, d: &mut Data) -> Sql<()> {
    for (table, texts) in [("name", &d.names), ("reason", &d.reasons)] {
        let mut st = tx.prepare(&format!("INSERT INTO {table} VALUES (?1, ?2)"))?;
        for (id, text) in (1i64..).zip(texts) {
            st.execute(params![id, text])?;
        }
    }
    let mut lists = tx.prepare("INSERT INTO slot_list VALUES (?1, ?2)")?;
    let mut list_ids: FxHashMap<String, i64> = FxHashMap::default();
    let mut st = tx.prepare("INSERT INTO bundle VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    for (id, b) in (1i64..).zip(std::mem::take(&mut d.bundles)) {
        let packed = pack_slots(&b.slots);
        let list = match list_ids.get(&packed) {
            Some(&list) => list,
            None => {
                let list = list_ids.len() as i64 + 1;
                lists.execute(params![list, packed])?;
                list_ids.insert(packed, list);
                list
            }
        };
        let base = b.base.map(|x| x as i64 + 1);
        st.execute(params![
            id,
            b.client,
            b.locale,
            b.tier,
            base,
            b.catalog_level,
            list
        ])?;
    }
    Ok(())
}

/// A bundle's slots as stored: `[name, entry]`, or `[name, null, reason]` for a name left out.
fn pack_slots(slots: &[schema::BundleSlot]) -> String {
    use std::fmt::Write as _;
    let mut packed = String::from("[");
    for s in slots {
        let _ = match (s.entry, s.reason) {
            (Some(e), _) => write!(packed, "[{},{}],", s.name + 1, e + 1),
            (None, Some(r)) => write!(packed, "[{},null,{}],", s.name + 1, r + 1),
            (None, None) => write!(packed, "[{},null],", s.name + 1),
        };
    }
    if packed.ends_with(',') {
        packed.pop();
    }
    packed.push(']');
    packed
}

/// asset and diagnostic.
fn insert_tail(tx: &Transaction<'_>, d: &Data, warnings: &[crate::Diagnostic]) -> Sql<()> {
    let mut st = tx.prepare("INSERT INTO asset VALUES (?1, ?2, ?3)")?;
    for a in &d.assets {
        st.execute(params![a.skill_file, a.path, a.blob])?;
    }
    let mut st = tx.prepare("INSERT INTO diagnostic VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    for (position, diag) in (1i64..).zip(warnings) {
        st.execute(params![
            position,
            diag.severity.as_str(),
            diag.code,
            diag.file,
            diag.line as i64,
            diag.column as i64,
            diag.message
        ])?;
    }
    Ok(())
}
