//! The only module that touches SQLite: writes the artifact (SPEC 6) atomically.
//!
//! The schema is a public contract, documented with a worked query per runtime question in
//! `docs/artifact.md`. Rows are inserted in a fixed order from sorted data, so the same input
//! gives a byte-identical file.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use rusqlite::{params, Connection};

/// Schema version, in `PRAGMA user_version` and the manifest.
pub const SCHEMA_VERSION: i64 = 1;

/// The schema.
pub const SCHEMA: &str = "
CREATE TABLE manifest (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE blob (
  hash TEXT PRIMARY KEY,            -- sha256 of the content, hex
  size INTEGER NOT NULL,            -- bytes of the content
  encoding TEXT NOT NULL,           -- 'identity', or 'zlib' (RFC 1950) when that saves a fifth
  data BLOB NOT NULL
);
CREATE TABLE category (
  id TEXT PRIMARY KEY,              -- '' holds uncategorized skills
  position INTEGER NOT NULL,        -- catalog and prompt order
  display_name TEXT NOT NULL,
  hidden INTEGER NOT NULL,
  catalog_header TEXT NOT NULL,     -- markdown catalog: heading, selector text, table head
  catalog_header_tokens INTEGER NOT NULL,
  prompt_heading TEXT NOT NULL,     -- answer prompt: heading and answer instructions
  prompt_heading_tokens INTEGER NOT NULL,
  uncertainty TEXT NOT NULL,        -- answer prompt: when several of its skills are in
  uncertainty_tokens INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE source (
  sid INTEGER PRIMARY KEY,          -- workspace-wide pool id
  url TEXT NOT NULL UNIQUE,
  title TEXT,
  text TEXT,
  extra TEXT NOT NULL,              -- JSON object of the other fields
  fragment TEXT NOT NULL,           -- line of a prompt's sources section
  tokens INTEGER NOT NULL
);
CREATE TABLE client (
  id TEXT PRIMARY KEY,
  trusted INTEGER NOT NULL,
  flags TEXT NOT NULL,              -- JSON
  locales TEXT NOT NULL,            -- JSON list
  tiers TEXT NOT NULL               -- JSON list
) WITHOUT ROWID;
CREATE TABLE consumer (
  name TEXT PRIMARY KEY,
  enabled TEXT NOT NULL,            -- JSON list of patterns
  disabled TEXT NOT NULL            -- JSON list of patterns
) WITHOUT ROWID;
CREATE TABLE consumer_hidden (      -- skills a consumer's catalog leaves out
  consumer TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  PRIMARY KEY (consumer, qualified_name)
) WITHOUT ROWID;
CREATE TABLE card (                 -- what catalogs show of a skill; shared by entries
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  category TEXT NOT NULL,           -- '' when none
  description TEXT NOT NULL,
  triggers TEXT NOT NULL,           -- JSON list (catalogs show the first max_triggers)
  when_to_use TEXT NOT NULL,        -- JSON list
  location TEXT NOT NULL            -- SKILL.md path inside the workspace
);
CREATE TABLE card_fragment (        -- catalog text of a card per format and budget level
  card INTEGER NOT NULL REFERENCES card(id),
  level TEXT NOT NULL,              -- '' full; 'no-triggers'; 'chars:N'
  format TEXT NOT NULL,             -- xml, markdown, list
  text TEXT NOT NULL,
  tokens INTEGER NOT NULL,
  PRIMARY KEY (card, level, format)
) WITHOUT ROWID;
CREATE TABLE entry (                -- a resolved skill; identical content stored once
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,               -- selectable name
  qualified_name TEXT NOT NULL,
  resolved_name TEXT NOT NULL,      -- skill whose content is used (variant, override)
  card INTEGER NOT NULL REFERENCES card(id),
  category TEXT NOT NULL,           -- '' when none
  sort_key TEXT NOT NULL,           -- catalog order: category position, then name
  catalog_visible INTEGER NOT NULL,
  always_on INTEGER NOT NULL,
  hidden INTEGER NOT NULL,
  unavailable TEXT,                 -- reason, when unavailable
  untrusted INTEGER NOT NULL,
  body TEXT NOT NULL REFERENCES blob(hash),
  body_tokens INTEGER NOT NULL,
  prompt_prefix TEXT NOT NULL,      -- the skill's part of the answer prompt is
  prompt_body INTEGER NOT NULL,     -- prefix, then the body when prompt_body = 1,
  prompt_suffix TEXT NOT NULL,      -- then suffix
  prompt_tokens INTEGER NOT NULL,   -- tokens of all three
  record TEXT NOT NULL              -- JSON: the run-time fields (composition, conditions,
                                    -- tools, mcp, requirements, sources cited, meta)
);
CREATE TABLE bundle (
  id INTEGER PRIMARY KEY,
  client TEXT NOT NULL,             -- '' for the global bundle
  locale TEXT NOT NULL,
  tier TEXT NOT NULL,
  base INTEGER REFERENCES bundle(id), -- rows of the base apply unless this bundle has its own
  catalog_level TEXT NOT NULL,      -- budget level of its card fragments
  UNIQUE (client, locale, tier)
);
CREATE TABLE name (                 -- every selectable qualified name
  id INTEGER PRIMARY KEY,
  qualified_name TEXT NOT NULL UNIQUE
);
CREATE TABLE reason (               -- why skills are left out of bundles, each text once
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
);
CREATE TABLE bundle_entry (
  bundle INTEGER NOT NULL REFERENCES bundle(id),
  name INTEGER NOT NULL REFERENCES name(id),
  entry INTEGER REFERENCES entry(id), -- NULL: left out of the bundle
  reason INTEGER REFERENCES reason(id), -- why it was left out
  PRIMARY KEY (bundle, name)
) WITHOUT ROWID;
CREATE TABLE asset (
  skill_file TEXT NOT NULL,         -- SKILL.md of the skill carrying it
  path TEXT NOT NULL,               -- path inside the skill folder
  blob TEXT NOT NULL REFERENCES blob(hash),
  PRIMARY KEY (skill_file, path)
) WITHOUT ROWID;
CREATE TABLE diagnostic (
  position INTEGER PRIMARY KEY,
  severity TEXT NOT NULL,
  code TEXT NOT NULL,
  file TEXT NOT NULL,
  line INTEGER NOT NULL,
  column INTEGER NOT NULL,
  message TEXT NOT NULL
);
";

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

/// A row of `category`.
#[derive(Debug, Clone)]
pub struct CategoryRow {
    /// Id.
    pub id: String,
    /// Position.
    pub position: i64,
    /// Display name.
    pub display_name: String,
    /// Hidden from catalogs.
    pub hidden: bool,
    /// Fragments and their tokens: catalog header, prompt heading, uncertainty.
    pub fragments: [(String, u32); 3],
}

/// A row of `card` with its fragments.
#[derive(Debug, Clone)]
pub struct CardRow {
    /// The card.
    pub card: crate::render::Card,
    /// (level, format, text, tokens).
    pub fragments: Vec<crate::build::Fragment>,
}

/// A row of `entry`.
#[derive(Debug, Clone)]
pub struct EntryRow {
    /// The resolved entry.
    pub entry: crate::render::Entry,
    /// Index (0-based) of its card.
    pub card: usize,
    /// Sort key.
    pub sort_key: String,
    /// Blob hash of the body.
    pub body_hash: String,
    /// Prompt fragment parts and the tokens of the whole.
    pub prompt: (crate::render::PromptParts, u32),
}

/// A row of `bundle` and its entries.
#[derive(Debug, Clone)]
pub struct BundleRow {
    /// Client id, `''` for global.
    pub client: String,
    /// Locale.
    pub locale: String,
    /// Tier.
    pub tier: String,
    /// Index (0-based) of the base bundle.
    pub base: Option<usize>,
    /// Catalog level.
    pub catalog_level: String,
    /// (qualified name, entry index 0-based or None, reason).
    pub rows: Vec<(String, Option<usize>, Option<String>)>,
}

/// Everything the artifact holds, in insertion order.
#[derive(Debug, Default)]
pub struct Data {
    /// Manifest key/values.
    pub manifest: Vec<(String, String)>,
    /// Blobs by hash (sorted).
    pub blobs: std::collections::BTreeMap<String, Vec<u8>>,
    /// Categories.
    pub categories: Vec<CategoryRow>,
    /// Pool sources with fragment and tokens.
    pub sources: Vec<(crate::resolve::pool::PooledSource, String, u32)>,
    /// Clients: id, trusted, flags, locales, tiers (JSON).
    pub clients: Vec<(String, bool, String, String, String)>,
    /// Consumers: name, enabled, disabled (JSON), hidden qualified names.
    pub consumers: Vec<(String, String, String, Vec<String>)>,
    /// Cards.
    pub cards: Vec<CardRow>,
    /// Entries.
    pub entries: Vec<EntryRow>,
    /// Bundles.
    pub bundles: Vec<BundleRow>,
    /// Assets: skill file, path, blob hash.
    pub assets: Vec<(String, String, String)>,
    /// Warnings of the build.
    pub diagnostics: Vec<crate::Diagnostic>,
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

/// Writes `data` to `out` atomically: a temporary file beside it, synced, then renamed over
/// it. A failure or a kill at any point leaves a previous artifact untouched.
pub fn write(out: &Path, data: &Data) -> Result<u64, Error> {
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
    let result = write_file(&tmp, data).and_then(|()| {
        let file = std::fs::File::open(&tmp).map_err(io(&tmp))?;
        file.sync_all().map_err(io(&tmp))?;
        std::fs::rename(&tmp, out).map_err(io(out))?;
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(std::fs::metadata(out).map_err(io(out))?.len())
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_file(path: &Path, d: &Data) -> Result<(), Error> {
    let e = sql(path);
    let mut conn = Connection::open(path).map_err(&e)?;
    conn.execute_batch(
        "PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;",
    )
    .map_err(&e)?;
    let tx = conn.transaction().map_err(&e)?;
    tx.execute_batch(SCHEMA).map_err(&e)?;
    {
        let mut st = tx
            .prepare("INSERT INTO manifest VALUES (?1, ?2)")
            .map_err(&e)?;
        for (k, v) in &d.manifest {
            st.execute(params![k, v]).map_err(&e)?;
        }
        let mut st = tx
            .prepare("INSERT INTO blob VALUES (?1, ?2, ?3, ?4)")
            .map_err(&e)?;
        for (hash, data) in &d.blobs {
            let (encoding, stored) = encode_cached(hash, data);
            st.execute(params![hash, data.len() as i64, encoding, stored.as_ref()])
                .map_err(&e)?;
        }
        let mut st = tx
            .prepare("INSERT INTO category VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
            .map_err(&e)?;
        for c in &d.categories {
            let [(h, ht), (p, pt), (u, ut)] = &c.fragments;
            st.execute(params![
                c.id,
                c.position,
                c.display_name,
                c.hidden,
                h,
                ht,
                p,
                pt,
                u,
                ut
            ])
            .map_err(&e)?;
        }
        let mut st = tx
            .prepare("INSERT INTO source VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .map_err(&e)?;
        for (s, fragment, tokens) in &d.sources {
            let extra = serde_json::to_string(&s.extra).unwrap_or_default();
            st.execute(params![
                s.sid, s.url, s.title, s.text, extra, fragment, tokens
            ])
            .map_err(&e)?;
        }
        let mut st = tx
            .prepare("INSERT INTO client VALUES (?1, ?2, ?3, ?4, ?5)")
            .map_err(&e)?;
        for (id, trusted, flags, locales, tiers) in &d.clients {
            st.execute(params![id, trusted, flags, locales, tiers])
                .map_err(&e)?;
        }
        let mut st = tx
            .prepare("INSERT INTO consumer VALUES (?1, ?2, ?3)")
            .map_err(&e)?;
        let mut hidden = tx
            .prepare("INSERT INTO consumer_hidden VALUES (?1, ?2)")
            .map_err(&e)?;
        for (name, enabled, disabled, hidden_names) in &d.consumers {
            st.execute(params![name, enabled, disabled]).map_err(&e)?;
            for q in hidden_names {
                hidden.execute(params![name, q]).map_err(&e)?;
            }
        }
        let mut st = tx
            .prepare("INSERT INTO card VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
            .map_err(&e)?;
        let mut frag = tx
            .prepare("INSERT INTO card_fragment VALUES (?1, ?2, ?3, ?4, ?5)")
            .map_err(&e)?;
        for (i, r) in d.cards.iter().enumerate() {
            let id = i as i64 + 1;
            let c = &r.card;
            st.execute(params![
                id,
                c.name,
                c.qualified_name,
                c.category.as_deref().unwrap_or(""),
                c.description,
                serde_json::to_string(&c.triggers).unwrap_or_default(),
                serde_json::to_string(&c.when_to_use).unwrap_or_default(),
                c.location,
            ])
            .map_err(&e)?;
            for (level, format, text, tokens) in &r.fragments {
                frag.execute(params![id, level, format, text, tokens])
                    .map_err(&e)?;
            }
        }
        let mut st = tx
            .prepare(
                "INSERT INTO entry VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
            )
            .map_err(&e)?;
        for (i, r) in d.entries.iter().enumerate() {
            let id = i as i64 + 1;
            let en = &r.entry;
            let mut record = serde_json::to_value(en).unwrap_or_default();
            if let Some(obj) = record.as_object_mut() {
                // Stored once elsewhere: the body in `blob`, the catalog fields in `card`, the
                // flags and names in this row's own columns.
                for key in [
                    "body",
                    "description",
                    "triggers",
                    "when_to_use",
                    "location",
                    "name",
                    "qualified_name",
                    "resolved_name",
                    "category",
                    "catalog_visible",
                    "hidden",
                    "always_on",
                    "untrusted",
                    "unavailable",
                    "body_tokens",
                ] {
                    obj.remove(key);
                }
            }
            st.execute(params![
                id,
                en.name,
                en.qualified_name,
                en.resolved_name,
                r.card as i64 + 1,
                en.category.as_deref().unwrap_or(""),
                r.sort_key,
                en.catalog_visible,
                en.always_on,
                en.hidden,
                en.unavailable,
                en.untrusted,
                r.body_hash,
                en.body_tokens,
                r.prompt.0.prefix,
                r.prompt.0.has_body,
                r.prompt.0.suffix,
                r.prompt.1,
                record.to_string(),
            ])
            .map_err(&e)?;
        }
        let mut st = tx
            .prepare("INSERT INTO bundle VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .map_err(&e)?;
        let names: std::collections::BTreeSet<&str> = d
            .bundles
            .iter()
            .flat_map(|b| b.rows.iter().map(|r| r.0.as_str()))
            .collect();
        let mut name_id = std::collections::BTreeMap::new();
        let mut st_name = tx.prepare("INSERT INTO name VALUES (?1, ?2)").map_err(&e)?;
        for (i, n) in names.iter().enumerate() {
            st_name.execute(params![i as i64 + 1, n]).map_err(&e)?;
            name_id.insert(*n, i as i64 + 1);
        }
        let reasons: std::collections::BTreeSet<&str> = d
            .bundles
            .iter()
            .flat_map(|b| b.rows.iter().filter_map(|r| r.2.as_deref()))
            .collect();
        let mut reason_id = std::collections::BTreeMap::new();
        let mut st_reason = tx
            .prepare("INSERT INTO reason VALUES (?1, ?2)")
            .map_err(&e)?;
        for (i, r) in reasons.iter().enumerate() {
            st_reason.execute(params![i as i64 + 1, r]).map_err(&e)?;
            reason_id.insert(*r, i as i64 + 1);
        }
        let mut rows = tx
            .prepare("INSERT INTO bundle_entry VALUES (?1, ?2, ?3, ?4)")
            .map_err(&e)?;
        for (i, b) in d.bundles.iter().enumerate() {
            let id = i as i64 + 1;
            st.execute(params![
                id,
                b.client,
                b.locale,
                b.tier,
                b.base.map(|x| x as i64 + 1),
                b.catalog_level
            ])
            .map_err(&e)?;
            for (q, entry, reason) in &b.rows {
                rows.execute(params![
                    id,
                    name_id[q.as_str()],
                    entry.map(|x| x as i64 + 1),
                    reason.as_deref().map(|r| reason_id[r])
                ])
                .map_err(&e)?;
            }
        }
        let mut st = tx
            .prepare("INSERT INTO asset VALUES (?1, ?2, ?3)")
            .map_err(&e)?;
        for (file, path, hash) in &d.assets {
            st.execute(params![file, path, hash]).map_err(&e)?;
        }
        let mut st = tx
            .prepare("INSERT INTO diagnostic VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .map_err(&e)?;
        for (i, diag) in d.diagnostics.iter().enumerate() {
            st.execute(params![
                i as i64 + 1,
                diag.severity.as_str(),
                diag.code,
                diag.file,
                diag.line as i64,
                diag.column as i64,
                diag.message
            ])
            .map_err(&e)?;
        }
    }
    tx.commit().map_err(&e)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(&e)?;
    conn.pragma_update(None, "application_id", skillc_runtime::APPLICATION_ID)
        .map_err(&e)?;
    conn.close().map_err(|(_, err)| e(err))?;
    Ok(())
}
