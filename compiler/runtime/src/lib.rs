//! skillc-runtime: answers catalog and prompt questions from a skillc artifact, read-only.
//!
//! ```no_run
//! use skillc_runtime::{Artifact, BundleRef, Context, Format};
//! let artifact = Artifact::open("out.db").unwrap();
//! let bundle = BundleRef { client: Some("example.com"), ..BundleRef::default() };
//! let ctx = Context::from_pairs([("page_url", "/en-gb/pricing")]).unwrap();
//! let catalog = artifact.catalog(&bundle, None, &ctx, Format::Markdown).unwrap();
//! let prompt = artifact.prompt(&bundle, None, &ctx, &["SK1", "pricing"]).unwrap();
//! println!("{}\n{}", catalog.text, prompt.text);
//! ```
//!
//! Everything a request needs of a bundle is loaded once, in one read transaction, and kept;
//! later requests touch no disk. The file is opened with `mode=ro`, so it works on read-only
//! files and file systems; a new artifact swapped in by rename is seen by a new [`Artifact`], or
//! by the next call of a [`LiveArtifact`], which follows its path.

mod condition;
mod explain;
mod live;
pub mod placeholder;
pub mod schema;
mod select;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde::{Deserialize, Serialize};

pub use condition::{Compiled, Condition, Context};
pub use explain::Explanation;
pub use live::LiveArtifact;
pub use select::{Prompt, PromptSkill, Removed, SourceRef};

/// The schema version this runtime reads (the one the compiler writes).
pub const SCHEMA_VERSION: i64 = schema::VERSION;

pub use schema::{is_artifact_header, Mcp, Record, APPLICATION_ID};

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The path names no file.
    #[error("cannot open artifact `{path}`: it {what}")]
    Missing {
        /// The path.
        path: PathBuf,
        /// `does not exist` or `is not a file`.
        what: &'static str,
    },
    /// The file could not be opened.
    #[error("cannot open artifact `{path}`: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: rusqlite::Error,
    },
    /// The file is not a skillc artifact, or is damaged.
    #[error("`{path}` is not a readable skillc artifact: {why}")]
    NotAnArtifact {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The artifact has another schema version.
    #[error("`{path}` has schema version {found}; this runtime reads version {SCHEMA_VERSION} (rebuild it with a matching skillc)")]
    SchemaVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: i64,
    },
    /// The request names a bundle, consumer or skill that was not built.
    #[error("{0}")]
    Request(String),
}

impl Error {
    /// Whether the request, rather than the file or the system, is at fault.
    pub fn is_request_error(&self) -> bool {
        matches!(self, Error::Request(_))
    }
}

/// Lookups of a loaded bundle: by name, by qualified name, and who augments each skill.
type SkillIndex = (
    HashMap<String, usize>,
    HashMap<String, usize>,
    Vec<Vec<usize>>,
);

/// Builds a bundle's [`SkillIndex`].
fn index_skills(skills: &[Skill]) -> SkillIndex {
    let mut by_name = HashMap::new();
    for (i, s) in skills.iter().enumerate() {
        by_name.insert(s.qualified_name.clone(), i);
    }
    for (i, s) in skills.iter().enumerate() {
        // A bare name prefers public, then internal, then custom (the build's rule).
        by_name.entry(s.name.clone()).or_insert(i);
    }
    let by_qualified: HashMap<String, usize> = skills
        .iter()
        .enumerate()
        .map(|(i, s)| (s.qualified_name.clone(), i))
        .collect();
    let mut augmented_by = vec![Vec::new(); skills.len()];
    for (j, s) in skills.iter().enumerate() {
        for q in &s.record.augments {
            if let Some(&i) = by_qualified.get(q) {
                augmented_by[i].push(j);
            }
        }
    }
    (by_name, by_qualified, augmented_by)
}

/// The stored catalog text of a bundle's skill and its tokens.
fn card_text<'t>(bundle: &Bundle, texts: &'t CardTexts, i: usize) -> (&'t str, u32) {
    texts
        .get(&bundle.skills[i].card)
        .map_or(("", 0), |(t, n)| (t.as_str(), *n))
}

/// The JSON catalog: id, name, description and triggers of each skill.
fn json_text(skills: &[CatalogSkill]) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        id: &'a str,
        name: &'a str,
        description: &'a str,
        triggers: &'a [String],
    }
    let list: Vec<Line<'_>> = skills
        .iter()
        .map(|s| Line {
            id: &s.id,
            name: &s.name,
            description: &s.description,
            triggers: &s.triggers,
        })
        .collect();
    serde_json::to_string(&list).unwrap_or_default()
}

/// The manifest's keys and values.
fn read_manifest(conn: &Connection) -> rusqlite::Result<BTreeMap<String, String>> {
    conn.prepare("SELECT key, value FROM manifest")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// Each consumer and the qualified names its catalogs leave out.
fn read_consumers(conn: &Connection) -> rusqlite::Result<BTreeMap<String, BTreeSet<String>>> {
    let mut consumers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut st = conn.prepare("SELECT name FROM consumer")?;
    for name in st.query_map([], |r| r.get::<_, String>(0))? {
        consumers.insert(name?, BTreeSet::new());
    }
    let mut st = conn.prepare("SELECT consumer, qualified_name FROM consumer_hidden")?;
    let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (c, q) = row?;
        consumers.entry(c).or_default().insert(q);
    }
    Ok(consumers)
}

/// The categories with their catalog and prompt texts, by id.
fn read_categories(conn: &Connection) -> rusqlite::Result<BTreeMap<String, Category>> {
    conn.prepare(
        "SELECT id, position, catalog_header, catalog_header_tokens, prompt_heading,
                prompt_heading_tokens, uncertainty, uncertainty_tokens FROM category",
    )?
    .query_map([], |r| {
        Ok(Category {
            id: r.get(0)?,
            position: r.get(1)?,
            catalog_header: (r.get(2)?, r.get(3)?),
            prompt_heading: (r.get(4)?, r.get(5)?),
            uncertainty: (r.get(6)?, r.get(7)?),
        })
    })?
    .map(|c| c.map(|c| (c.id.clone(), c)))
    .collect()
}

fn corrupt(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::NotAnArtifact {
        path: path.to_path_buf(),
        why: e.to_string(),
    }
}

/// Which bundle: `None` fields mean the global bundle, the default locale, the default tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BundleRef<'a> {
    /// Client id.
    pub client: Option<&'a str>,
    /// Locale.
    pub locale: Option<&'a str>,
    /// Tier.
    pub tier: Option<&'a str>,
}

/// A catalog format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// skills-ref's `<available_skills>` block.
    Xml,
    /// The selector table.
    Markdown,
    /// `- **name**: description` lines.
    List,
    /// JSON.
    Json,
}

impl Format {
    /// Parses `xml`, `markdown`, `list`, `json`.
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "xml" => Format::Xml,
            "markdown" => Format::Markdown,
            "list" => Format::List,
            "json" => Format::Json,
            _ => return None,
        })
    }

    fn stored(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Markdown | Format::Json => "markdown",
            Format::List => "list",
        }
    }
}

/// A skill of a loaded bundle.
#[derive(Debug, Clone)]
pub struct Skill {
    /// Entry id.
    pub entry: i64,
    /// Selectable name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Skill whose content is used.
    pub resolved_name: String,
    /// Category id (`''` when none).
    pub category: String,
    /// Shown in catalogs.
    pub catalog_visible: bool,
    /// Injected when its conditions hold.
    pub always_on: bool,
    /// Why unavailable.
    pub unavailable: Option<String>,
    /// Code from an untrusted overlay: prompt-only.
    pub untrusted: bool,
    /// Catalog description.
    pub description: String,
    /// Catalog triggers (all).
    pub triggers: Vec<String>,
    /// The catalog card (its fragments are read per format: [`Artifact::catalog`]).
    pub card: i64,
    /// Prompt text around the body.
    pub prompt_prefix: String,
    /// Whether the body goes between prefix and suffix.
    pub prompt_body: bool,
    /// Prompt text after the body.
    pub prompt_suffix: String,
    /// Tokens of the whole prompt part.
    pub prompt_tokens: u32,
    /// The body's blob (content hash): bodies are read when a prompt or an export needs
    /// them ([`Artifact::body`]), never to show a catalog.
    pub body_hash: String,
    body: std::sync::OnceLock<Arc<str>>,
    /// Run-time fields.
    pub record: Record,
    /// Compiled conditions.
    pub conditions: Vec<Compiled>,
}

impl Skill {
    /// Whether every run-time condition holds.
    pub fn conditions_hold(&self, ctx: &Context) -> bool {
        self.conditions.iter().all(|c| c.holds(ctx))
    }
}

/// A category's texts.
#[derive(Debug, Clone)]
pub struct Category {
    /// Id.
    pub id: String,
    /// Order.
    pub position: i64,
    /// Markdown catalog header and its tokens.
    pub catalog_header: (String, u32),
    /// Prompt heading and its tokens.
    pub prompt_heading: (String, u32),
    /// Uncertainty guidance and its tokens.
    pub uncertainty: (String, u32),
}

/// A loaded bundle.
#[derive(Debug)]
pub struct Bundle {
    /// Client (`''` for global).
    pub client: String,
    /// Locale.
    pub locale: String,
    /// Tier.
    pub tier: String,
    /// Skills in catalog order.
    pub skills: Vec<Skill>,
    /// Left-out names and why.
    pub left_out: BTreeMap<String, String>,
    by_name: HashMap<String, usize>,
    /// Qualified name → index.
    by_qualified: HashMap<String, usize>,
    /// For each skill, the skills whose `augments` name it.
    augmented_by: Vec<Vec<usize>>,
    /// Where the bundle is stored, to read its catalog fragments.
    info: BundleInfo,
    /// Card fragments read so far, per stored format: card → (text, tokens).
    fragments: RwLock<HashMap<&'static str, Arc<CardTexts>>>,
}

/// Catalog text of each card in one format: card → (text, tokens).
type CardTexts = HashMap<i64, (String, u32)>;

impl Bundle {
    /// A skill by name, qualified name or `skills.ns.name`.
    pub fn find(&self, name: &str) -> Option<&Skill> {
        self.position(name).map(|i| &self.skills[i])
    }

    /// The index of a skill by name, qualified name or `skills.ns.name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        let name = name.trim();
        let name = name.strip_prefix("skills.").unwrap_or(name);
        self.by_name.get(name).copied()
    }

    /// The index of a skill by qualified name.
    pub fn by_qualified(&self, q: &str) -> Option<usize> {
        self.by_qualified.get(q).copied()
    }

    /// The skills whose `augments` name skill `i`.
    pub fn augmented_by(&self, i: usize) -> &[usize] {
        &self.augmented_by[i]
    }

    /// The budget level of its catalog texts: `''` (full), `no-triggers`, `chars:N` (SPEC 9's
    /// tier budgets; the build's W114 warning says what was cut).
    pub fn catalog_level(&self) -> &str {
        &self.info.level
    }
}

/// A warning of the build, as the artifact keeps it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StoredDiagnostic {
    /// `warning`.
    pub severity: String,
    /// Stable code (`W114`, …).
    pub code: String,
    /// File inside the workspace.
    pub file: String,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
    /// Message.
    pub message: String,
}

/// One catalog line.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CatalogSkill {
    /// `SK1`, `SK2`, … in catalog order.
    pub id: String,
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Category.
    pub category: String,
    /// Description.
    pub description: String,
    /// The first `max_triggers` triggers.
    pub triggers: Vec<String>,
}

/// A catalog.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Catalog {
    /// Client (`null` for global).
    pub client: Option<String>,
    /// Locale.
    pub locale: String,
    /// Tier.
    pub tier: String,
    /// Consumer.
    pub consumer: Option<String>,
    /// Its skills.
    pub skills: Vec<CatalogSkill>,
    /// The rendered text.
    pub text: String,
    /// Tokens of the text (sum of the stored counts of its parts).
    pub tokens: u32,
}

/// How much of a bundle's entries a load reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Everything a prompt, a catalog or an explanation may need.
    Full,
    /// What a catalog's text needs: names, order, conditions and cards.
    CatalogText,
}

impl Reading {
    /// The entries of a bundle in catalog order, as a load reads them. A catalog's text needs
    /// names, order, conditions and cards: the other columns are read as constants (the same
    /// row shape, a fraction of the work).
    fn entry_query(self) -> &'static str {
        match self {
            Reading::Full => {
                "SELECT e.name, e.qualified_name, e.resolved_name, e.category,
                        e.catalog_visible, e.always_on, e.unavailable, e.untrusted,
                        e.prompt_prefix, e.prompt_body, e.prompt_suffix, e.prompt_tokens,
                        e.record, c.description, c.triggers, e.body, e.card, e.id
                 FROM entry e JOIN card c ON c.id = e.card
                 WHERE e.id IN (SELECT value FROM json_each(?1))
                 ORDER BY e.sort_key, e.id"
            }
            Reading::CatalogText => {
                "SELECT e.name, e.qualified_name, '', e.category,
                        e.catalog_visible, 0, NULL, 0, '', 0, '', 0,
                        e.record, '', '[]', '', e.card, e.id
                 FROM entry e
                 WHERE e.id IN (SELECT value FROM json_each(?1))
                 ORDER BY e.sort_key, e.id"
            }
        }
    }

    /// An entry's record as this reading needs it.
    fn record(self, json: &str) -> serde_json::Result<Record> {
        match self {
            Reading::Full => serde_json::from_str(json),
            Reading::CatalogText => serde_json::from_str::<Conditions>(json).map(|c| Record {
                conditions: c.conditions,
                ..Record::default()
            }),
        }
    }
}

/// The part of `entry.record` a catalog needs.
#[derive(Deserialize)]
struct Conditions {
    #[serde(default)]
    conditions: Vec<Condition>,
}

/// An entry as read, before its JSON and its body are decoded.
struct RawEntry {
    record: String,
    triggers: String,
    card: i64,
    skill: Skill,
}

#[derive(Debug, Clone)]
struct BundleInfo {
    id: i64,
    client: String,
    locale: String,
    tier: String,
    base: Option<i64>,
    level: String,
}

type CatalogKey = (i64, Option<String>, Format, Vec<bool>);

/// An opened artifact.
pub struct Artifact {
    path: PathBuf,
    conn: Mutex<Connection>,
    manifest: BTreeMap<String, String>,
    /// Every bundle, read only to list what exists (a lookup reads one row by its index).
    bundles: std::sync::OnceLock<Vec<BundleInfo>>,
    consumers: BTreeMap<String, BTreeSet<String>>,
    /// Categories by id.
    pub categories: BTreeMap<String, Category>,
    /// The sources pool, read on the first prompt that cites one.
    sources: std::sync::OnceLock<Sources>,
    /// Bundles looked up so far, by (client, locale, tier): a warm lookup runs no query.
    found: RwLock<HashMap<(String, String, String), BundleInfo>>,
    loaded: RwLock<HashMap<i64, Arc<Bundle>>>,
    catalogs: RwLock<HashMap<CatalogKey, Arc<Catalog>>>,
}

/// The sources pool: id → (reference, prompt fragment, tokens).
type Sources = BTreeMap<u32, (SourceRef, String, u32)>;

/// Inflates a blob.
fn inflate(encoding: &str, data: Vec<u8>) -> Result<Vec<u8>, String> {
    use std::io::Read;
    match encoding {
        "identity" => Ok(data),
        "zlib" => {
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(&data[..])
                .read_to_end(&mut out)
                .map_err(|e| format!("a blob does not inflate: {e}"))?;
            Ok(out)
        }
        other => Err(format!("unknown blob encoding `{other}`")),
    }
}

impl Artifact {
    /// Opens an artifact read-only and checks its schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Artifact, Error> {
        let path = path.as_ref().to_path_buf();
        if !path.is_file() {
            return Err(Error::Missing {
                what: if path.exists() {
                    "is not a file"
                } else {
                    "does not exist"
                },
                path,
            });
        }
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| Error::Open {
            path: path.clone(),
            source,
        })?;
        let owned = path.clone();
        let bad = corrupt(&owned);
        // Reads through a memory map rather than one system call per page: a bundle's rows are
        // spread over the file. The map is of the file that was opened, so an artifact swapped
        // in by rename does not change what this connection reads.
        conn.pragma_update(None, "mmap_size", 1i64 << 30)
            .map_err(&bad)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(&bad)?;
        let has_manifest: Option<String> = conn
            .query_row(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'manifest'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(&bad)?;
        if has_manifest.is_none() {
            return Err(Error::NotAnArtifact {
                path,
                why: "it has no manifest table (not built by skillc)".to_string(),
            });
        }
        if version != SCHEMA_VERSION {
            return Err(Error::SchemaVersion {
                path,
                found: version,
            });
        }
        let manifest = read_manifest(&conn).map_err(&bad)?;
        // Every answer reads these: an artifact without them is damaged, not a bad request.
        let needed = [
            "schema_version",
            "default_locale",
            "default_tier",
            "locales",
            "tiers",
        ];
        if let Some(key) = needed.iter().find(|k| !manifest.contains_key(**k)) {
            return Err(Error::NotAnArtifact {
                path,
                why: format!("its manifest has no `{key}` (the file is damaged)"),
            });
        }
        let consumers = read_consumers(&conn).map_err(&bad)?;
        let categories = read_categories(&conn).map_err(&bad)?;
        Ok(Artifact {
            path,
            conn: Mutex::new(conn),
            manifest,
            bundles: std::sync::OnceLock::new(),
            consumers,
            categories,
            sources: std::sync::OnceLock::new(),
            found: RwLock::new(HashMap::new()),
            loaded: RwLock::new(HashMap::new()),
            catalogs: RwLock::new(HashMap::new()),
        })
    }

    /// The file this artifact was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One entry read in full by its id, as a bundle's skill would be (comparisons, tools).
    pub fn skill_by_entry(&self, id: i64) -> Result<Skill, Error> {
        let bad = corrupt(&self.path);
        let mut conn = self.conn.lock().expect("lock");
        let tx = conn.transaction().map_err(&bad)?;
        let mut found = self.entries(&tx, &BTreeSet::from([id]), Reading::Full)?;
        tx.commit().map_err(&bad)?;
        found.pop().ok_or_else(|| Error::NotAnArtifact {
            path: self.path.clone(),
            why: format!("it has no entry {id}"),
        })
    }

    /// A manifest value.
    pub fn manifest(&self, key: &str) -> Option<&str> {
        self.manifest.get(key).map(String::as_str)
    }

    /// The release label the artifact was built with (`skillc build --release-label`), if any.
    pub fn release(&self) -> Option<&str> {
        self.manifest("release")
    }

    /// `max_active_skills`, when set.
    pub fn max_active_skills(&self) -> Option<usize> {
        self.manifest("max_active_skills")
            .and_then(|v| v.parse().ok())
    }

    const BUNDLE_COLUMNS: &'static str =
        "SELECT id, client, locale, tier, base, catalog_level FROM bundle";

    fn bundle_info(r: &rusqlite::Row<'_>) -> rusqlite::Result<BundleInfo> {
        Ok(BundleInfo {
            id: r.get(0)?,
            client: r.get(1)?,
            locale: r.get(2)?,
            tier: r.get(3)?,
            base: r.get(4)?,
            level: r.get(5)?,
        })
    }

    /// Every bundle (read on first need: lookups of one bundle use the table's index).
    fn all_bundles(&self) -> Result<&[BundleInfo], Error> {
        if let Some(all) = self.bundles.get() {
            return Ok(all);
        }
        let conn = self.conn.lock().expect("lock");
        let all: Vec<BundleInfo> = conn
            .prepare(&format!("{} ORDER BY id", Self::BUNDLE_COLUMNS))
            .and_then(|mut st| st.query_map([], Self::bundle_info)?.collect())
            .map_err(corrupt(&self.path))?;
        drop(conn);
        Ok(self.bundles.get_or_init(|| all))
    }

    /// The sources pool (read on first need).
    fn sources(&self) -> Result<&Sources, Error> {
        if let Some(s) = self.sources.get() {
            return Ok(s);
        }
        let conn = self.conn.lock().expect("lock");
        let pool: Sources = conn
            .prepare("SELECT sid, url, title, fragment, tokens FROM source")
            .and_then(|mut st| {
                st.query_map([], |r| {
                    let sid: u32 = r.get(0)?;
                    let reference = SourceRef {
                        sid,
                        url: r.get(1)?,
                        title: r.get(2)?,
                    };
                    Ok((sid, (reference, r.get(3)?, r.get(4)?)))
                })?
                .collect()
            })
            .map_err(corrupt(&self.path))?;
        drop(conn);
        Ok(self.sources.get_or_init(|| pool))
    }

    /// Every built bundle: (client, locale, tier), client `''` for global.
    pub fn bundle_names(&self) -> Vec<(&str, &str, &str)> {
        self.all_bundles()
            .unwrap_or_default()
            .iter()
            .map(|b| (b.client.as_str(), b.locale.as_str(), b.tier.as_str()))
            .collect()
    }

    /// The consumers the workspace declares.
    pub fn consumers(&self) -> Vec<&str> {
        self.consumers.keys().map(String::as_str).collect()
    }

    fn find_bundle(&self, r: &BundleRef<'_>) -> Result<BundleInfo, Error> {
        let client = r.client.unwrap_or("");
        let locale = r.locale.or(self.manifest("default_locale")).unwrap_or("");
        let tier = r.tier.or(self.manifest("default_tier")).unwrap_or("");
        let key = (client.to_string(), locale.to_string(), tier.to_string());
        if let Some(b) = self.found.read().expect("lock").get(&key) {
            return Ok(b.clone());
        }
        let found = {
            let conn = self.conn.lock().expect("lock");
            conn.prepare_cached(&format!(
                "{} WHERE client = ?1 AND locale = ?2 AND tier = ?3",
                Self::BUNDLE_COLUMNS
            ))
            .and_then(|mut st| {
                st.query_row([client, locale, tier], Self::bundle_info)
                    .optional()
            })
            .map_err(corrupt(&self.path))?
        };
        if let Some(b) = found {
            self.found.write().expect("lock").insert(key, b.clone());
            return Ok(b);
        }
        // Not built: say what exists.
        let all = self.all_bundles()?;
        let of_client: Vec<&BundleInfo> = all.iter().filter(|b| b.client == client).collect();
        let list = |f: &dyn Fn(&BundleInfo) -> &str| -> String {
            let set: BTreeSet<&str> = of_client.iter().map(|b| f(b)).collect();
            set.into_iter().collect::<Vec<_>>().join(", ")
        };
        let who = if client.is_empty() {
            "the global bundle".to_string()
        } else {
            format!("client `{client}`")
        };
        Err(Error::Request(if of_client.is_empty() {
            let clients: BTreeSet<&str> = all
                .iter()
                .map(|b| b.client.as_str())
                .filter(|c| !c.is_empty())
                .collect();
            format!(
                "unknown client `{client}`; clients: {}",
                clients.into_iter().collect::<Vec<_>>().join(", ")
            )
        } else if !of_client.iter().any(|b| b.locale == locale) {
            format!(
                "no bundle for locale `{locale}` of {who}; its locales: {}",
                list(&|b| &b.locale)
            )
        } else {
            format!(
                "no bundle for tier `{tier}` of {who}; its tiers: {}",
                list(&|b| &b.tier)
            )
        }))
    }

    /// Loads (once) and returns a bundle.
    pub fn bundle(&self, r: &BundleRef<'_>) -> Result<Arc<Bundle>, Error> {
        let info = self.find_bundle(r)?;
        if let Some(b) = self.loaded.read().expect("lock").get(&info.id) {
            return Ok(b.clone());
        }
        let bundle = Arc::new(self.load(&info, Reading::Full)?);
        self.loaded
            .write()
            .expect("lock")
            .insert(info.id, bundle.clone());
        Ok(bundle)
    }

    /// A bundle's names: its own slots (its `slot_list.slots`, JSON `[name, entry]` or
    /// `[name, null, reason]`) over its base's. Returns the left-out qualified names with their
    /// reasons, and the entry ids.
    fn slots(
        tx: &rusqlite::Transaction<'_>,
        info: &BundleInfo,
    ) -> rusqlite::Result<(BTreeMap<String, String>, BTreeSet<i64>)> {
        type Packed = Vec<Vec<Option<i64>>>;
        let mut slots: BTreeMap<i64, (Option<i64>, Option<i64>)> = BTreeMap::new();
        let mut st = tx.prepare_cached(
            "SELECT l.slots FROM bundle b JOIN slot_list l ON l.id = b.slots WHERE b.id = ?1",
        )?;
        for b in info.base.iter().chain(std::iter::once(&info.id)) {
            let packed: String = st.query_row([b], |r| r.get(0))?;
            let packed: Packed = serde_json::from_str(&packed).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
            })?;
            for slot in packed {
                let at = |i: usize| slot.get(i).copied().flatten();
                if let Some(name) = at(0) {
                    slots.insert(name, (at(1), at(2)));
                }
            }
        }
        let wanted = slots.values().filter_map(|(e, _)| *e).collect();
        let mut left_out = BTreeMap::new();
        let out: Vec<(i64, i64)> = slots
            .iter()
            .filter(|(_, (e, _))| e.is_none())
            .map(|(n, (_, r))| (*n, r.unwrap_or(0)))
            .collect();
        if !out.is_empty() {
            let mut names = tx.prepare_cached("SELECT qualified_name FROM name WHERE id = ?1")?;
            let mut reasons = tx.prepare_cached("SELECT text FROM reason WHERE id = ?1")?;
            for (name, reason) in out {
                let q: String = names.query_row([name], |r| r.get(0))?;
                let why: Option<String> = reasons.query_row([reason], |r| r.get(0)).optional()?;
                left_out.insert(q, why.unwrap_or_default());
            }
        }
        Ok((left_out, wanted))
    }

    /// The entries of a bundle with their cards, in one query rather than one per skill
    /// (catalog texts are read per format when a catalog asks: see `card_texts`), in catalog
    /// order. SQLite sorts the rows: a skill is large, and a sort here would move each many times.
    fn entries(
        &self,
        tx: &rusqlite::Transaction<'_>,
        wanted: &BTreeSet<i64>,
        reading: Reading,
    ) -> Result<Vec<Skill>, Error> {
        let bad = corrupt(&self.path);
        let not_artifact = |why: String| Error::NotAnArtifact {
            path: self.path.clone(),
            why,
        };
        let mut skills = Vec::with_capacity(wanted.len());
        let sql = reading.entry_query();
        let mut st = tx.prepare_cached(sql).map_err(&bad)?;
        let ids = serde_json::to_string(&wanted).unwrap_or_default();
        let it = st
            .query_map([ids], |r| {
                Ok(RawEntry {
                    record: r.get(12)?,
                    triggers: r.get(14)?,
                    card: r.get(16)?,
                    skill: Skill {
                        entry: r.get(17)?,
                        name: r.get(0)?,
                        qualified_name: r.get(1)?,
                        resolved_name: r.get(2)?,
                        category: r.get(3)?,
                        catalog_visible: r.get(4)?,
                        always_on: r.get(5)?,
                        unavailable: r.get(6)?,
                        untrusted: r.get(7)?,
                        prompt_prefix: r.get(8)?,
                        prompt_body: r.get(9)?,
                        prompt_suffix: r.get(10)?,
                        prompt_tokens: r.get(11)?,
                        description: r.get(13)?,
                        triggers: Vec::new(),
                        card: r.get(16)?,
                        body_hash: r.get(15)?,
                        body: std::sync::OnceLock::new(),
                        record: Record::default(),
                        conditions: Vec::new(),
                    },
                })
            })
            .map_err(&bad)?;
        for row in it {
            let RawEntry {
                record,
                triggers,
                card,
                mut skill,
            } = row.map_err(&bad)?;
            // The base's entry for a name this bundle overrides is not part of it.
            if !wanted.contains(&skill.entry) {
                continue;
            }
            let entry = skill.entry;
            let record: Record = reading
                .record(&record)
                .map_err(|e| not_artifact(format!("entry {entry} has a bad record: {e}")))?;
            let triggers: Vec<String> = serde_json::from_str(&triggers)
                .map_err(|e| not_artifact(format!("card {card} has bad triggers: {e}")))?;
            skill.conditions = record.conditions.iter().map(Condition::compile).collect();
            skill.record = record;
            skill.triggers = triggers;
            skills.push(skill);
        }
        Ok(skills)
    }

    fn load(&self, info: &BundleInfo, reading: Reading) -> Result<Bundle, Error> {
        let bad = corrupt(&self.path);
        let mut conn = self.conn.lock().expect("lock");
        // One read transaction: the bundle comes whole from one version of the file.
        let tx = conn.transaction().map_err(&bad)?;
        let (left_out, wanted) = Self::slots(&tx, info).map_err(&bad)?;
        let skills = self.entries(&tx, &wanted, reading)?;
        tx.commit().map_err(&bad)?;
        let (by_name, by_qualified, augmented_by) = match reading {
            Reading::Full => index_skills(&skills),
            Reading::CatalogText => Default::default(),
        };
        Ok(Bundle {
            info: info.clone(),
            fragments: RwLock::new(HashMap::new()),
            client: info.client.clone(),
            locale: info.locale.clone(),
            tier: info.tier.clone(),
            skills,
            left_out,
            by_name,
            by_qualified,
            augmented_by,
        })
    }

    /// The qualified names a consumer's catalogs leave out (`None`: no consumer), or the
    /// request error naming the consumers that exist.
    pub fn hidden_for(&self, consumer: Option<&str>) -> Result<Option<&BTreeSet<String>>, Error> {
        match consumer {
            None => Ok(None),
            Some(c) => self.consumers.get(c).map(Some).ok_or_else(|| {
                Error::Request(if self.consumers.is_empty() {
                    format!("unknown consumer `{c}`: this artifact declares no consumers")
                } else {
                    format!(
                        "unknown consumer `{c}`; consumers: {}",
                        self.consumers
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
            }),
        }
    }

    /// Indices of the skills a catalog shows, in order.
    fn catalog_members(
        &self,
        bundle: &Bundle,
        consumer: Option<&str>,
        ctx: &Context,
    ) -> Result<Vec<usize>, Error> {
        let hidden = self.hidden_for(consumer)?;
        Ok(bundle
            .skills
            .iter()
            .enumerate()
            .filter(|(_, s)| s.catalog_visible)
            .filter(|(_, s)| hidden.is_none_or(|h| !h.contains(&s.qualified_name)))
            .filter(|(_, s)| s.conditions_hold(ctx))
            .map(|(i, _)| i)
            .collect())
    }

    /// The catalog of a bundle for a consumer and context, in a format.
    pub fn catalog(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        format: Format,
    ) -> Result<Arc<Catalog>, Error> {
        let info = self.find_bundle(r)?;
        let bundle = self.bundle(r)?;
        let hidden = self.hidden_for(consumer)?;
        // Only the outcome of the conditions matters: cache by it.
        let outcome: Vec<bool> = bundle
            .skills
            .iter()
            .filter(|s| s.catalog_visible && !s.conditions.is_empty())
            .filter(|s| hidden.is_none_or(|h| !h.contains(&s.qualified_name)))
            .map(|s| s.conditions_hold(ctx))
            .collect();
        let key = (info.id, consumer.map(str::to_string), format, outcome);
        if let Some(c) = self.catalogs.read().expect("lock").get(&key) {
            return Ok(c.clone());
        }
        let members = self.catalog_members(&bundle, consumer, ctx)?;
        let texts = self.card_texts(&bundle, format.stored())?;
        let catalog = Arc::new(self.render_catalog(&bundle, consumer, &members, format, &texts));
        self.catalogs
            .write()
            .expect("lock")
            .insert(key, catalog.clone());
        Ok(catalog)
    }

    /// The text of [`Artifact::catalog`] in the xml, markdown or list format, reading only
    /// what that text shows (names, order, conditions and the cards' stored fragments) when
    /// the bundle is not loaded yet: for a process that prints one catalog and ends. The
    /// bundle read this way is not kept (a prompt needs all of it).
    pub fn catalog_text(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        format: Format,
    ) -> Result<String, Error> {
        let info = self.find_bundle(r)?;
        let loaded = self.loaded.read().expect("lock").contains_key(&info.id);
        if loaded || format == Format::Json {
            return Ok(self.catalog(r, consumer, ctx, format)?.text.clone());
        }
        let bundle = self.load(&info, Reading::CatalogText)?;
        let members = self.catalog_members(&bundle, consumer, ctx)?;
        let texts = self.card_texts(&bundle, format.stored())?;
        Ok(self.catalog_body(&bundle, &members, format, &texts, &[]).0)
    }

    /// The catalog texts of a bundle's cards in one stored format, at the bundle's budget
    /// level (falling back to the full text), read once per bundle and format.
    fn card_texts(&self, bundle: &Bundle, format: &'static str) -> Result<Arc<CardTexts>, Error> {
        if let Some(t) = bundle.fragments.read().expect("lock").get(format) {
            return Ok(t.clone());
        }
        let info = &bundle.info;
        let mut texts: CardTexts = HashMap::new();
        {
            let conn = self.conn.lock().expect("lock");
            let mut st = conn
                .prepare_cached(
                    "SELECT f.card, f.level, f.text, f.tokens FROM card_fragment f
                     WHERE f.format = ?3 AND f.level IN ('', ?2) AND f.card IN (
                       SELECT value FROM json_each(?1))",
                )
                .map_err(corrupt(&self.path))?;
            let cards: BTreeSet<i64> = bundle.skills.iter().map(|s| s.card).collect();
            let cards = serde_json::to_string(&cards).unwrap_or_default();
            let params = rusqlite::params![cards, info.level, format];
            let rows = st
                .query_map(params, |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, u32>(3)?,
                    ))
                })
                .map_err(corrupt(&self.path))?;
            for row in rows {
                let (card, level, text, tokens) = row.map_err(corrupt(&self.path))?;
                // The bundle's budget level wins over the full text.
                if level == info.level || !texts.contains_key(&card) {
                    texts.insert(card, (text, tokens));
                }
            }
        }
        let texts = Arc::new(texts);
        bundle
            .fragments
            .write()
            .expect("lock")
            .insert(format, texts.clone());
        Ok(texts)
    }

    fn render_catalog(
        &self,
        bundle: &Bundle,
        consumer: Option<&str>,
        members: &[usize],
        format: Format,
        texts: &CardTexts,
    ) -> Catalog {
        let max_triggers: usize = self
            .manifest("max_triggers")
            .and_then(|v| v.parse().ok())
            .unwrap_or(5);
        let skills: Vec<CatalogSkill> = members
            .iter()
            .enumerate()
            .map(|(n, &i)| {
                let s = &bundle.skills[i];
                CatalogSkill {
                    id: format!("SK{}", n + 1),
                    name: s.name.clone(),
                    qualified_name: s.qualified_name.clone(),
                    category: s.category.clone(),
                    description: s.description.clone(),
                    triggers: s.triggers.iter().take(max_triggers).cloned().collect(),
                }
            })
            .collect();
        let (text, tokens) = self.catalog_body(bundle, members, format, texts, &skills);
        Catalog {
            client: (!bundle.client.is_empty()).then(|| bundle.client.clone()),
            locale: bundle.locale.clone(),
            tier: bundle.tier.clone(),
            consumer: consumer.map(str::to_string),
            skills,
            text,
            tokens,
        }
    }

    /// A catalog's text and tokens (`skills`: its skills, which the json format lists).
    fn catalog_body(
        &self,
        bundle: &Bundle,
        members: &[usize],
        format: Format,
        texts: &CardTexts,
        skills: &[CatalogSkill],
    ) -> (String, u32) {
        match format {
            Format::Markdown => self.markdown_text(bundle, members, texts),
            Format::Json => (
                json_text(skills),
                members.iter().map(|&i| card_text(bundle, texts, i).1).sum(),
            ),
            Format::Xml | Format::List => {
                let mut text = String::new();
                let mut tokens = 0u32;
                let xml = format == Format::Xml;
                if xml {
                    text.push_str("<available_skills>\n");
                    tokens += 8;
                }
                for &i in members {
                    let (t, n) = card_text(bundle, texts, i);
                    text.push_str(t);
                    tokens += n;
                }
                if xml {
                    text.push_str("</available_skills>");
                }
                (text, tokens)
            }
        }
    }

    /// The markdown selector table: each category's header, then one row per skill with its
    /// `SKn` id (four tokens a row).
    fn markdown_text(
        &self,
        bundle: &Bundle,
        members: &[usize],
        texts: &CardTexts,
    ) -> (String, u32) {
        let mut text = String::new();
        let mut tokens = 0u32;
        let mut current: Option<&str> = None;
        for (n, &i) in members.iter().enumerate() {
            let s = &bundle.skills[i];
            if current != Some(s.category.as_str()) {
                if current.is_some() {
                    text.push('\n');
                }
                if let Some(c) = self.categories.get(&s.category) {
                    text.push_str(&c.catalog_header.0);
                    tokens += c.catalog_header.1;
                }
                current = Some(&s.category);
            }
            let (t, k) = card_text(bundle, texts, i);
            let _ = write!(text, "| SK{} ", n + 1);
            text.push_str(t);
            tokens += k + 4;
        }
        (text, tokens)
    }

    /// A catalog as `skillc catalog --format json` prints it: the release label, the bundle,
    /// the consumer, its skills and its text.
    pub fn catalog_json(&self, c: &Catalog) -> serde_json::Value {
        serde_json::json!({
            "release": self.release(),
            "client": c.client,
            "locale": c.locale,
            "tier": c.tier,
            "consumer": c.consumer,
            "skills": c.skills,
            "text": c.text,
        })
    }

    /// The build's warnings with a code (every one for `None`), in the build's order.
    pub fn diagnostics(&self, code: Option<&str>) -> Result<Vec<StoredDiagnostic>, Error> {
        let conn = self.conn.lock().expect("lock");
        conn.prepare_cached(
            "SELECT severity, code, file, line, column, message FROM diagnostic
             WHERE ?1 IS NULL OR code = ?1 ORDER BY position",
        )
        .and_then(|mut st| {
            st.query_map([code], |r| {
                Ok(StoredDiagnostic {
                    severity: r.get(0)?,
                    code: r.get(1)?,
                    file: r.get(2)?,
                    line: r.get(3)?,
                    column: r.get(4)?,
                    message: r.get(5)?,
                })
            })?
            .collect()
        })
        .map_err(corrupt(&self.path))
    }

    /// A source of the pool.
    pub fn source(&self, sid: u32) -> Option<&SourceRef> {
        self.sources().ok()?.get(&sid).map(|s| &s.0)
    }

    /// A skill's body, read and inflated on first use (then kept with the skill).
    pub fn body(&self, s: &Skill) -> Result<Arc<str>, Error> {
        if let Some(body) = s.body.get() {
            return Ok(body.clone());
        }
        let not_artifact = |why: String| Error::NotAnArtifact {
            path: self.path.clone(),
            why,
        };
        let (encoding, data): (String, Vec<u8>) = {
            let conn = self.conn.lock().expect("lock");
            conn.prepare_cached("SELECT encoding, data FROM blob WHERE hash = ?1")
                .and_then(|mut st| st.query_row([&s.body_hash], |r| Ok((r.get(0)?, r.get(1)?))))
                .map_err(corrupt(&self.path))?
        };
        let text = String::from_utf8(inflate(&encoding, data).map_err(&not_artifact)?)
            .map_err(|_| not_artifact(format!("the body of `{}` is not UTF-8", s.name)))?;
        Ok(s.body.get_or_init(|| text.into()).clone())
    }

    /// The paths of a skill's assets (scripts, references, assets, any other file of its
    /// folder), sorted.
    pub fn asset_paths(&self, r: &BundleRef<'_>, skill: &str) -> Result<Vec<String>, Error> {
        let bundle = self.bundle(r)?;
        let s = bundle
            .find(skill)
            .ok_or_else(|| Error::Request(format!("unknown skill `{skill}` in this bundle")))?;
        let conn = self.conn.lock().expect("lock");
        conn.prepare_cached("SELECT path FROM asset WHERE skill_file = ?1 ORDER BY path")
            .and_then(|mut st| {
                st.query_map([&s.record.resolved_file], |r| r.get(0))?
                    .collect()
            })
            .map_err(corrupt(&self.path))
    }

    /// An asset of a skill, by its path inside the skill folder (level-3 disclosure).
    pub fn asset(&self, r: &BundleRef<'_>, skill: &str, path: &str) -> Result<Vec<u8>, Error> {
        let bundle = self.bundle(r)?;
        let s = bundle
            .find(skill)
            .ok_or_else(|| Error::Request(format!("unknown skill `{skill}` in this bundle")))?;
        let conn = self.conn.lock().expect("lock");
        let row: Option<(String, Vec<u8>)> = conn
            .query_row(
                "SELECT b.encoding, b.data FROM asset a JOIN blob b ON b.hash = a.blob
                 WHERE a.skill_file = ?1 AND a.path = ?2",
                [&s.record.resolved_file, path],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(corrupt(&self.path))?;
        let (encoding, data) =
            row.ok_or_else(|| Error::Request(format!("skill `{skill}` has no asset `{path}`")))?;
        inflate(&encoding, data).map_err(|why| Error::NotAnArtifact {
            path: self.path.clone(),
            why,
        })
    }
}
