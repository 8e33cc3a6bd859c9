//! The only module that touches SQLite: writes the artifact (`docs/artifact.md`) atomically.
//!
//! The tables and rows are defined once, in `skillc_runtime::schema`, which runtimes read. Rows are inserted in a fixed order from sorted data, so the same input
//! gives a byte-identical file.

use crate::model::Mode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{named_params, Connection};
use skillc_runtime::schema::{
    self, AssetRow, BundleRow, CardFragment, CategoryRow, ClientRow, ConsumerRow, EntryRow,
    SourceRow,
};

mod insert;
mod meaning_rows;
mod prefix;
mod stage;

pub(crate) use insert::vector_ids;
use insert::{
    insert_blobs, insert_bundles, insert_card_route, insert_cards, insert_entries,
    insert_small_tables, insert_tail, insert_vectors, NumberedVectors, VectorRows,
};
pub(crate) use meaning_rows::MeaningRows;
use prefix::Prefix;
pub(crate) use stage::Stage;

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

/// The entry rows, laid out as they are written.
pub(crate) type EntryRows = Box<dyn ExactSizeIterator<Item = LaidEntry> + Send>;

/// An entry's row as the writer reads it: the row rendering made (moved out of the rendered
/// entry, or read where a session's memo keeps it) with the card and sort key the layout
/// gives it.
pub(crate) struct LaidEntry {
    /// The row (its `card` and `sort_key` are not set: these are).
    pub row: RowOf,
    /// Index (0-based) of its card.
    pub card: usize,
    /// Catalog order.
    pub sort_key: String,
}

/// A rendered entry's row, owned or shared.
// Made and written one at a time, never held in bulk: boxing the owned row would cost an
// allocation per row.
#[allow(clippy::large_enum_variant)]
pub(crate) enum RowOf {
    /// Moved out of an entry nothing else holds.
    Owned(EntryRow),
    /// In an entry a session keeps for its next build (not copied).
    Kept(Arc<Rendered>),
}

impl std::ops::Deref for RowOf {
    type Target = EntryRow;

    fn deref(&self) -> &EntryRow {
        match self {
            RowOf::Owned(row) => row,
            RowOf::Kept(r) => &r.row,
        }
    }
}

/// Everything the artifact holds, as rows of [`skillc_runtime::schema`], in insertion order.
pub(crate) struct Data {
    /// Manifest keys and values.
    pub manifest: BTreeMap<String, String>,
    /// Blobs as stored, by content hash (shared with the rendered entries whose bodies they
    /// are).
    pub blobs: BTreeMap<String, Arc<Blob>>,
    /// Category rows, in catalog order.
    pub categories: Vec<CategoryRow>,
    /// Pooled sources.
    pub sources: Vec<SourceRow>,
    /// A row per client: trust, flags, locales, tiers, toggles.
    pub clients: Vec<ClientRow>,
    /// A row per consumer, with the names its catalogs hide.
    pub consumers: Vec<ConsumerRow>,
    /// Cards with their fragments.
    pub cards: Vec<CardRows>,
    /// Each card's row of `card_route`, in the cards' order: apart from the cards, which a
    /// session's next build keeps while only a body changed.
    pub card_route: Vec<CardRoute>,
    /// Entry rows, laid out as they are written.
    pub entries: EntryRows,
    /// Bundles with the tables their slots point into (shared with a session's next build,
    /// which takes them when its bundles are the same).
    pub bundles: Arc<BundleTables>,
    /// Asset rows: each file of a skill folder with its blob.
    pub assets: Vec<AssetRow>,
    /// Embedding vectors by the digest of their text, as stored (little-endian f32 or signed
    /// bytes); a session hands the same map on while no card changed.
    pub vectors: Arc<BTreeMap<String, Vec<u8>>>,
    /// The built-in meaning table when the vectors are its.
    pub meaning: Option<MeaningRows>,
}

/// A row of `card` and its `card_fragment_cut` rows: the card is the one the entries and a
/// session's memo share, read in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CardRows {
    /// The card.
    pub card: Arc<crate::render::Card>,
    /// Its catalog texts per budget level and format (shared with a session's memo).
    pub fragments: Arc<Vec<CardFragment>>,
    /// The digests of its embedded texts, space-separated (numbered as `card.vectors` when
    /// written; empty without an embedding model).
    pub vectors: String,
}

/// The bundles' rows (global ones in full, client ones as differences from their global base)
/// with the `name`, `reason` and `slot_list` tables their slots point into.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BundleTables {
    /// Bundle rows.
    pub rows: Vec<BundleRow>,
    /// Every qualified name a slot holds, in order of first appearance over the bundles.
    pub names: Vec<String>,
    /// Every reason a slot gives, in order of first appearance.
    pub reasons: Vec<String>,
    /// The distinct packed lists of slots the rows point to, in the order of the first bundle
    /// holding each (a client's bundles mostly differ alike from their bases).
    pub slot_lists: Vec<String>,
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

/// One rendered entry, as its row stores it: the entry itself (some thirty fields, most of
/// them text) is dropped once its row is made, on the core that rendered it (it was a fifth of
/// the peak memory at 5,000 clients).
#[derive(Debug, Clone)]
pub(crate) struct Rendered {
    /// Its row, but for the card and the sort key: both are numbered or ordered per build
    /// (cards by first use, categories by position), and set when the rows are laid out.
    pub row: EntryRow,
    /// The card catalogs show of it, one copy shared by the entries that show the same card.
    pub card: Arc<crate::render::Card>,
    /// The body as its blob stores it (compressed), one copy shared by the entries with the
    /// same body (half of them at 5,000 clients: locales and tiers without their own text):
    /// nothing reads a body in full after its tokens are counted.
    pub body: Arc<Blob>,
    /// Its card's row of `card_route`, made once a card.
    pub route: CardRoute,
}

/// A card's row of `card_route`: what routing reads of a card beside the card itself, apart
/// from it because an edit of the skill's body changes it while the card stays (a session's
/// next build keeps the cards it wrote).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CardRoute {
    /// Its routing index (`card_route.terms`).
    pub terms: Arc<str>,
    /// Its catalog identity's body's distinct words as written
    /// (`route::prose_text_words`), which the built-in meaning reads.
    pub body_words: Arc<str>,
    /// With the built-in meaning, its summary's vector with the body's words mixed in
    /// (`card_route.meaning`, a signed byte a number; `meaning::with_body`): set by
    /// `embed::attach`; none with a model of the workspace's own, or when the body holds no
    /// piece of the table.
    pub meaning: Option<Arc<[u8]>>,
}

/// A blob as the artifact stores it: encoded once, where its content is made (bodies on every
/// core as they are rendered), so a build holds each body compressed rather than in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blob {
    /// Bytes of the content.
    pub size: usize,
    /// `identity`, or `zlib` (RFC 1950).
    pub encoding: &'static str,
    /// The bytes written (none for a large file, which is copied in chunks as it is written).
    pub stored: Vec<u8>,
    /// A large file the blob is read from when written, its encoding chosen then.
    pub file: Option<Arc<crate::model::LargeFile>>,
}

impl Blob {
    /// Compresses `data` with zlib when that saves at least a fifth (most text does; small or
    /// already-compressed files stay as they are). Level 6 is fixed, so output is
    /// deterministic.
    pub(crate) fn encode(data: Vec<u8>) -> Blob {
        use std::io::Write;
        let size = data.len();
        if size >= 64 {
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
            if z.write_all(&data).is_ok() {
                if let Ok(packed) = z.finish() {
                    if packed.len() * 5 <= size * 4 {
                        return Blob {
                            size,
                            encoding: "zlib",
                            stored: packed,
                            file: None,
                        };
                    }
                }
            }
        }
        Blob {
            size,
            encoding: "identity",
            stored: data,
            file: None,
        }
    }

    /// A blob of a large file: nothing is read until it is written (`insert_blob`).
    pub(crate) fn from_file(file: Arc<crate::model::LargeFile>) -> Blob {
        Blob {
            size: file.size as usize,
            encoding: "identity",
            stored: Vec::new(),
            file: Some(file),
        }
    }
}

/// Bytes of a large file compressed to tell whether compressing all of it is worth it: most
/// large assets (images, archives, documents) are compressed already.
const SAMPLE: usize = 256 << 10;

/// Inserts one blob with `insert` (`schema::insert("blob", …)`).
/// A large file is compressed whole only when its first [`SAMPLE`] bytes save a fifth, and
/// kept compressed when all of it does (as [`Blob::encode`] decides); otherwise it is copied
/// in chunks into a blob of its size written in place. Memory holds at most one compressed
/// file, never the assets together.
pub(super) fn insert_blob(
    conn: &Connection,
    insert: &mut rusqlite::Statement<'_>,
    hash: &str,
    blob: &Blob,
) -> Sql<()> {
    let Some(file) = &blob.file else {
        insert.execute(named_params! {":hash": schema::digest_bytes(hash), ":size": blob.size as i64, ":encoding": blob.encoding, ":data": blob.stored})?;
        return Ok(());
    };
    let failed = |e: std::io::Error| rusqlite::Error::ToSqlConversionFailure(Box::new(e));
    let head = file.head(SAMPLE).map_err(failed)?;
    if Blob::encode(head).encoding == "zlib" {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
        file.stream(|chunk| std::io::Write::write_all(&mut z, chunk))
            .map_err(failed)?;
        let packed = z.finish().map_err(failed)?;
        if packed.len() * 5 <= blob.size * 4 {
            insert.execute(named_params! {":hash": schema::digest_bytes(hash), ":size": blob.size as i64, ":encoding": "zlib", ":data": packed})?;
            return Ok(());
        }
    }
    let zeros = rusqlite::blob::ZeroBlob(blob.size as i32);
    let row = named_params! {":hash": schema::digest_bytes(hash), ":size": blob.size as i64, ":encoding": "identity", ":data": zeros};
    if insert.execute(row)? == 0 {
        return Ok(()); // staged already
    }
    let row = conn.last_insert_rowid();
    let mut cell = conn.blob_open(rusqlite::MAIN_DB, "blob", "data", row, false)?;
    file.stream(|chunk| std::io::Write::write_all(&mut cell, chunk))
        .map_err(failed)?;
    Ok(())
}

/// Assets compressed by a session's earlier builds, by content hash: a session (watch, the
/// studio) rebuilds with mostly the same assets, and a collection's scripts and images can be
/// large. (Bodies need no such cache: a session keeps its rendered entries, blobs included.)
#[derive(Debug, Default)]
pub(crate) struct EncodedAssets {
    /// Bytes held, and each blob by content hash.
    held: std::sync::Mutex<(usize, BTreeMap<String, Arc<Blob>>)>,
}

/// Bytes of compressed assets kept before the cache starts over.
const ENCODED_LIMIT: usize = 256 << 20;

impl EncodedAssets {
    /// [`Blob::encode`] of `data`, or the blob encoded before for its content `hash`.
    pub(crate) fn encode(&self, hash: &str, data: &[u8]) -> Arc<Blob> {
        if let Some(blob) = self.held.lock().ok().and_then(|c| c.1.get(hash).cloned()) {
            return blob;
        }
        let blob = Arc::new(Blob::encode(data.to_vec()));
        if let Ok(mut c) = self.held.lock() {
            if c.0 + blob.stored.len() > ENCODED_LIMIT {
                *c = (0, BTreeMap::new());
            }
            c.0 += blob.stored.len();
            c.1.insert(hash.to_string(), blob.clone());
        }
        blob
    }
}

/// The rows of the tables that an edit of a skill's body or of one client mostly leaves as
/// they were (cards, bundles and what they point to; the diagnostics are the build report's).
/// A session keeps them, and its next build copies each table whose rows are equal from the
/// artifact it wrote last instead of inserting the rows again.
#[derive(Debug, Default)]
pub(crate) struct Copyable {
    cards: Vec<CardRows>,
    /// The embedding vectors: the very same map (a session's meaning memo hands it on while
    /// no card changed) is the same rows, with the same meaning table.
    vectors: Arc<BTreeMap<String, Vec<u8>>>,
    bundles: Arc<BundleTables>,
    /// Each entry row by id (the entries a session keeps: its rows are all read in place).
    entries: Vec<WrittenEntry>,
    /// The artifact as its first transaction left it (the vectors, cards and bundles above),
    /// which the next build starts from when those are the same.
    prefix: Option<Arc<Prefix>>,
}

/// What an entry's row was written from: the rendered entry a session keeps (held, so the
/// same address is the same row) with the card and sort key the layout gave it.
#[derive(Debug)]
struct WrittenEntry {
    rendered: Arc<Rendered>,
    card: usize,
    sort_key: String,
}

impl WrittenEntry {
    /// Whether `laid` is this row again.
    fn is(&self, laid: &LaidEntry) -> bool {
        matches!(&laid.row, RowOf::Kept(r) if Arc::ptr_eq(r, &self.rendered))
            && laid.card == self.card
            && laid.sort_key == self.sort_key
    }
}

impl Copyable {
    /// The bundle tables as written.
    pub(crate) fn bundles(&self) -> &Arc<BundleTables> {
        &self.bundles
    }
}

/// The artifact a session wrote last, with the rows of its copyable tables.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Previous<'p> {
    /// The file as that build wrote it (the caller checked its size and time).
    pub path: &'p Path,
    /// The hash of the inputs it was built from.
    pub input_hash: &'p str,
    /// Its rows.
    pub rows: &'p Copyable,
    /// Its diagnostics (its build's report).
    pub warnings: &'p [crate::Diagnostic],
}

/// What [`write`] made.
#[derive(Debug)]
pub(crate) struct Written {
    /// The size of the file.
    pub bytes: u64,
    /// Its copyable rows, for a session's next build.
    pub rows: Option<Copyable>,
}

/// Writes `data` to `out` atomically: a temporary file beside it, then renamed over it. A
/// failure or a kill at any point leaves a previous artifact untouched. Each table's rows are
/// dropped once written, so the memory of a build falls as the file grows. In a session
/// (watch, the studio), the file is not synced to the disk before the rename: a sync guards
/// against a power cut, a session's artifact is rebuilt from the files when it starts again,
/// and the sync took 12-20 ms of each rebuild of the reference workload. A one-shot build
/// (CI's release output) syncs.
///
/// A session's build returns the rows of its copyable tables for the next build, and copies
/// each table whose rows equal those of the `previous` artifact from it.
///
/// `warnings` (of the check and the build, sorted) are the build report's own list, written
/// from where it is rather than copied into `data` (26,000 of them at 5,000 clients).
pub(crate) fn write(
    out: &Path,
    data: Data,
    warnings: &[crate::Diagnostic],
    mode: Mode,
    previous: Option<Previous<'_>>,
) -> Result<Written, Error> {
    let (dir, tmp) = beside(out, "tmp");
    let _ = std::fs::remove_file(&tmp);
    let result = write_file(&tmp, data, warnings, mode, previous).and_then(|rows| {
        put_in_place(&tmp, out, &dir, mode)?;
        if let Some(prefix) = rows.as_ref().and_then(|r| r.prefix.as_ref()) {
            prefix.make_spare(&dir);
        }
        let bytes = std::fs::metadata(out).map_err(io(out))?.len();
        Ok(Written { bytes, rows })
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A temporary file beside `out` for a file written there (`kind`: `tmp`, `stage`).
pub(super) fn beside(out: &Path, kind: &str) -> (PathBuf, PathBuf) {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "artifact.db".to_string());
    let tmp = dir.join(format!(".{name}.{}.{kind}", std::process::id()));
    (dir, tmp)
}

/// Puts the written file `tmp` at `out`: swapped in (a session's), or synced and renamed.
pub(super) fn put_in_place(tmp: &Path, out: &Path, dir: &Path, mode: Mode) -> Result<(), Error> {
    if mode.keeps() {
        stop_point("rename");
        // Replacing a file frees its pages when its last handle closes: 9 ms for the
        // reference workload's 15 MB, taken off the rebuild by closing it on another thread.
        let replaced = std::fs::File::open(out).ok();
        swap_into_place(tmp, out)?;
        super::drop_aside(replaced);
        return Ok(());
    }
    std::fs::File::open(tmp)
        .and_then(|file| file.sync_all())
        .map_err(io(tmp))?;
    stop_point("rename");
    std::fs::rename(tmp, out).map_err(io(out))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Puts the written file `tmp` at `out` atomically, as a rename does. A regular file already
/// at `out` is exchanged with it and then unlinked, rather than renamed over: ext4 writes a file
/// renamed over another one out to the disk first (its safeguard for writers that do not sync),
/// 9 ms for the reference workload's 15 MB, and a session's build does not sync (see [`write`]).
fn swap_into_place(tmp: &Path, out: &Path) -> Result<(), Error> {
    #[cfg(target_os = "linux")]
    if std::fs::symlink_metadata(out).is_ok_and(|m| m.is_file()) {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        if renameat_with(CWD, tmp, CWD, out, RenameFlags::EXCHANGE).is_ok() {
            // `tmp` now names the replaced artifact.
            let _ = std::fs::remove_file(tmp);
            return Ok(());
        }
    }
    std::fs::rename(tmp, out).map_err(io(out))
}

/// The writer's steps, in order, for the crash tests: with `SKILLC_TEST_STOP_AT=<step>` in its
/// environment a build ends its process at that step (exit status 86, no cleanup, as a kill
/// would), so that a test can stop it at every step in turn and find the previous artifact
/// untouched, instead of aiming a signal at a moment.
pub const STEPS: &[&str] = &[
    "schema",
    "vectors",
    "cards",
    "bundles",
    "prefix",
    "blobs",
    "small",
    "entries",
    "card routes",
    "tail",
    "commit",
    "rename",
];

/// Ends the process at `step` when a crash test asks; with `SKILLC_TIMING`, says when each
/// step was done (where a rebuild's writing goes).
fn stop_point(step: &str) {
    crate::pipeline::progress::timing(&format_args!("written: {step}"));
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let at = AT.get_or_init(|| std::env::var("SKILLC_TEST_STOP_AT").ok());
    if at.as_deref() == Some(step) {
        std::process::exit(86);
    }
}

fn write_file(
    path: &Path,
    mut d: Data,
    warnings: &[crate::Diagnostic],
    mode: Mode,
    previous: Option<Previous<'_>>,
) -> Result<Option<Copyable>, Error> {
    let e = sql(path);
    let mut rows = Copyable {
        cards: std::mem::take(&mut d.cards),
        vectors: d.vectors.clone(),
        bundles: std::mem::take(&mut d.bundles),
        entries: Vec::new(),
        prefix: None,
    };
    let kept = previous.and_then(|p| {
        let prefix = p.rows.prefix.as_ref()?;
        let fits = prefix.fits(p.rows, &rows, d.meaning.as_ref());
        (fits && prefix.place_at(path)).then(|| prefix.clone())
    });
    let mut conn = open_writer(path)?;
    let old = previous.and_then(|p| attach_previous(&conn, p));
    match kept {
        Some(prefix) => {
            stop_point("prefix");
            rows.prefix = Some(prefix);
        }
        None => {
            write_prefix(&mut conn, &rows, &d, old).map_err(&e)?;
            stop_point("prefix");
            if mode.keeps() {
                rows.prefix = Prefix::keep(path, d.meaning.as_ref());
            }
        }
    }
    // A one-shot build frees each table's rows once written: the entries are laid out next.
    if !mode.keeps() {
        rows = Copyable::default();
    }
    let tx = conn.transaction().map_err(&e)?;
    insert_blobs(&tx, std::mem::take(&mut d.blobs)).map_err(&e)?;
    stop_point("blobs");
    insert_small_tables(&tx, &d, false).map_err(&e)?;
    stop_point("small");
    let old_entries = old.map(|o| o.rows.entries.as_slice());
    rows.entries = insert_entries(&tx, &mut d.entries, old_entries, mode).map_err(&e)?;
    stop_point("entries");
    insert_card_route(&tx, &d.card_route).map_err(&e)?;
    stop_point("card routes");
    insert_tail(&tx, &d, warnings, old).map_err(&e)?;
    stop_point("tail");
    tx.commit().map_err(&e)?;
    stop_point("commit");
    close(conn, path)?;
    Ok(mode.keeps().then_some(rows))
}

/// The first transaction: the schema and the tables an edit of a skill's body leaves as they
/// were (vectors and meaning, cards, bundles), each copied from `old` when its rows are the
/// same.
fn write_prefix(
    conn: &mut Connection,
    rows: &Copyable,
    d: &Data,
    old: Option<Previous<'_>>,
) -> Sql<()> {
    let tx = conn.transaction()?;
    tx.execute_batch(schema::DDL)?;
    stop_point("schema");
    let numbered = NumberedVectors::of(&rows.cards);
    let cards_copied = old.is_some_and(|o| o.rows.cards == rows.cards);
    let same_vectors = |o: Previous<'_>| Arc::ptr_eq(&o.rows.vectors, &rows.vectors);
    let vectors = if cards_copied && !d.vectors.is_empty() && old.is_some_and(same_vectors) {
        VectorRows::Copied
    } else {
        VectorRows::Numbered(&numbered.digests)
    };
    insert_vectors(&tx, d, vectors)?;
    stop_point("vectors");
    insert_cards(&tx, &rows.cards, &numbered, cards_copied)?;
    stop_point("cards");
    insert_bundles(&tx, rows, old)?;
    stop_point("bundles");
    tx.commit()
}

/// A connection writing an artifact at `path`: a new file, or a prefix copied there.
fn open_writer(path: &Path) -> Result<Connection, Error> {
    let e = sql(path);
    let conn = Connection::open(path).map_err(&e)?;
    // No journal and no syncs while filling a new temporary file (the rename is the commit).
    // (The page size applies to a new file only; a copied prefix has this one already.)
    // A 16 MB page cache: pages spilled early go to the same file, and a larger cache only
    // grew the peak (5,000 clients: 680 MB with 64 MB, 662 MB with 16 or 4 MB, same time).
    // 8 KiB pages: fewer interior pages and overflow tails than 4 KiB, and fewer reads per
    // catalog (5,000 clients: 120.5 -> 118.1 MB; 16 KiB saved 1 MB more but grew the
    // reference artifact).
    // Rows are written in an order where every reference points to a row written before it,
    // and the references hold by construction (the tests run SQLite's `foreign_key_check` on
    // artifacts): enforcing them here would look each one up again (the bundled SQLite
    // enforces them by default), a fifth of the time of writing.
    conn.execute_batch(
        "PRAGMA page_size = 8192; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -16384;
         PRAGMA foreign_keys = OFF;",
    )
    .map_err(&e)?;
    Ok(conn)
}

/// Stamps the schema's version and the application id on a written file and closes it.
fn close(conn: Connection, path: &Path) -> Result<(), Error> {
    let e = sql(path);
    conn.pragma_update(None, "user_version", schema::VERSION)
        .map_err(&e)?;
    conn.pragma_update(None, "application_id", schema::APPLICATION_ID)
        .map_err(&e)?;
    conn.close().map_err(|(_, err)| e(err))?;
    reset_change_counter(path).map_err(io(path))
}

/// SQLite's header counts the transactions that changed the file (the change counter, and
/// the "version-valid-for" number that must equal it for the header's page count to hold).
/// How many there were follows the path a build took, not what it wrote: a session's
/// rebuild that starts from a copy of the file's first part commits once where a clean build
/// commits twice, and the closing stamps commit alone. Both numbers are set to 1 once the
/// file is closed, so equal contents are equal bytes.
fn reset_change_counter(path: &Path) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    const CHANGE_COUNTER: u64 = 24;
    const VERSION_VALID_FOR: u64 = 92;
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    for offset in [CHANGE_COUNTER, VERSION_VALID_FOR] {
        file.seek(SeekFrom::Start(offset))?;
        file.write_all(&1u32.to_be_bytes())?;
    }
    Ok(())
}

type Sql<T> = Result<T, rusqlite::Error>;

/// Attaches the previous artifact as `old`, if it is the one that build wrote: its size and
/// time matched, and its manifest names the same inputs (another build of other inputs may
/// have replaced it within the file system's clock tick; one of the same inputs wrote the
/// same bytes).
fn attach_previous<'p>(conn: &Connection, p: Previous<'p>) -> Option<Previous<'p>> {
    let path = p.path.to_str()?;
    conn.execute("ATTACH DATABASE ?1 AS old", [path]).ok()?;
    let inputs: Option<String> = conn
        .query_row(
            "SELECT value FROM old.manifest WHERE key = 'input_hash'",
            [],
            |r| r.get(0),
        )
        .ok();
    if inputs.as_deref() == Some(p.input_hash) {
        return Some(p);
    }
    let _ = conn.execute("DETACH DATABASE old", []);
    None
}

#[cfg(test)]
mod tests {
    use super::Blob;
    use std::io::Read;

    #[test]
    fn a_previous_artifact_is_copied_from_only_if_built_from_the_same_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let skill = ws.join("public/greet/SKILL.md");
        std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
        std::fs::write(
            &skill,
            "---\nname: greet\ndescription: Greets.\n---\nHello.\n",
        )
        .unwrap();
        let out = dir.path().join("out.db");
        crate::pipeline::build(&ws, &out, &crate::pipeline::BuildOptions::default()).unwrap();
        let built = rusqlite::Connection::open(&out).unwrap();
        let hash: String = built
            .query_row(
                "SELECT value FROM manifest WHERE key = 'input_hash'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        drop(built);
        let rows = super::Copyable::default();
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let other = super::Previous {
            path: &out,
            input_hash: "another",
            rows: &rows,
            warnings: &[],
        };
        assert!(super::attach_previous(&conn, other).is_none());
        // Detached again: the right one can be attached under the same name.
        let same = super::Previous {
            path: &out,
            input_hash: &hash,
            rows: &rows,
            warnings: &[],
        };
        assert!(super::attach_previous(&conn, same).is_some());
    }

    #[test]
    fn a_file_is_swapped_into_place_and_a_reader_of_the_old_one_keeps_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let (tmp, out) = (dir.path().join(".out.tmp"), dir.path().join("out.db"));
        std::fs::write(&out, "old").unwrap();
        let mut reader = std::fs::File::open(&out).unwrap();
        std::fs::write(&tmp, "new").unwrap();
        super::swap_into_place(&tmp, &out).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        let mut old = String::new();
        reader.read_to_string(&mut old).unwrap();
        assert_eq!(old, "old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.db"], "the replaced file is gone");
        // Nothing there yet: renamed.
        std::fs::write(&tmp, "first").unwrap();
        let fresh = dir.path().join("fresh.db");
        super::swap_into_place(&tmp, &fresh).unwrap();
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "first");
        assert!(!tmp.exists());
        // A folder in the way is never swapped out: the rename fails and the folder stays.
        let folder = dir.path().join("folder.db");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("keep"), "x").unwrap();
        std::fs::write(&tmp, "new").unwrap();
        assert!(super::swap_into_place(&tmp, &folder).is_err());
        assert_eq!(std::fs::read_to_string(folder.join("keep")).unwrap(), "x");
    }

    #[test]
    fn text_is_stored_compressed_and_reads_back_the_same() {
        let text = "Answer the visitor's pricing question. "
            .repeat(40)
            .into_bytes();
        let blob = Blob::encode(text.clone());
        assert_eq!((blob.encoding, blob.size), ("zlib", text.len()));
        assert!(blob.stored.len() * 5 <= text.len());
        let mut back = Vec::new();
        flate2::read::ZlibDecoder::new(blob.stored.as_slice())
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, text);
    }

    #[test]
    fn short_or_incompressible_content_is_stored_as_it_is() {
        let short = b"tiny".to_vec();
        assert_eq!(Blob::encode(short.clone()).stored, short);
        // Hash output does not repeat: zlib would save nothing.
        use sha2::Digest;
        let noise: Vec<u8> = (0u32..128)
            .flat_map(|i| sha2::Sha256::digest(i.to_le_bytes()))
            .collect();
        let blob = Blob::encode(noise.clone());
        assert_eq!((blob.encoding, blob.stored), ("identity", noise));
    }
}
