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
//! later requests touch no disk ([`Artifact::unload`] lets one go). The file is opened with
//! `mode=ro`, so it works on read-only files and file systems; a new artifact swapped in by
//! rename is seen by a new [`Artifact`], or by the next call of a [`LiveArtifact`], which
//! follows its path.
// The public API is the boundary: every public item is reachable and documented.
#![warn(unreachable_pub, missing_docs)]

/// The runs of `load::id_runs` (its JSON the query's `?1`) as a query's first table, `r`:
/// join a table after it `ON <id> BETWEEN r.first AND r.last` (`CROSS JOIN` keeps the runs
/// the outer loop, each a range of the table's key).
macro_rules! in_runs {
    () => {
        "(SELECT value ->> 0 AS first, value ->> 1 AS last FROM json_each(?1)) AS r CROSS JOIN"
    };
}

mod bundle;
mod catalog;
mod condition;
mod explain;
mod kept;
mod live;
mod load;
pub mod placeholder;
pub mod route;
pub mod schema;
mod select;
pub mod signature;
mod stored;

use crate::load::Reading;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use rusqlite::{Connection, OpenFlags, OptionalExtension};

pub use bundle::{
    bundle_label, Bundle, BundleRef, Catalog, CatalogSkill, Category, External, Format, Plugin,
    Skill, StoredDiagnostic,
};
use catalog::CatalogKey;
pub use condition::{Compiled, Condition, Context};
pub use explain::Explanation;
pub use kept::DEFAULT_MAX_BUNDLES;
pub use live::LiveArtifact;
pub use load::edit_distance;
use load::{read_categories, read_consumers, read_manifest, BundleInfo};
pub use select::{Prompt, PromptSkill, Removed, SourceRef};
pub use stored::{StoredBundle, StoredEntry, StoredFragment};

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
        /// What SQLite or the header check said.
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
    /// Opened with a public key, the artifact has no valid signature for it.
    #[error("`{path}` is refused: {why}")]
    Signature {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

impl Error {
    /// Whether the request, rather than the file or the system, is at fault.
    pub fn is_request_error(&self) -> bool {
        matches!(self, Error::Request(_))
    }
}

fn corrupt(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::NotAnArtifact {
        path: path.to_path_buf(),
        why: e.to_string(),
    }
}

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
    /// Bundles loaded, at most [`Artifact::max_bundles`] of them.
    loaded: kept::KeptBundles,
    catalogs: RwLock<HashMap<CatalogKey, Arc<Catalog>>>,
    /// The routing settings of the manifest, read on the first route.
    routing: std::sync::OnceLock<route::RoutingTable>,
    /// Plugin metadata by plugin name (manifest `plugins`), read on first use.
    plugins: std::sync::OnceLock<BTreeMap<String, Plugin>>,
    /// The outside repositories (manifest `external`), read on first use.
    external: std::sync::OnceLock<Vec<External>>,
    /// The built-in meaning table, read on the first route that needs it.
    meaning: std::sync::OnceLock<Option<Arc<route::Meaning>>>,
    /// The built-in meaning's small-talk vectors, read on the first hybrid route.
    small_talk: std::sync::OnceLock<Option<Arc<route::DenseIndex>>>,
    /// The built-in meaning's pieces' (and pairs') weights towards small talk, read once.
    talk_words: std::sync::OnceLock<Option<Arc<route::TalkWeights>>>,
    /// The glossary beside the built-in meaning, read on the first route.
    glossary: std::sync::OnceLock<Option<Arc<Vec<u8>>>>,
}

/// `path`, when it is a file; else why it cannot be opened.
fn must_be_a_file(path: &Path) -> Result<PathBuf, Error> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    Err(Error::Missing {
        what: if path.exists() {
            "is not a file"
        } else {
            "does not exist"
        },
        path: path.to_path_buf(),
    })
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
    /// Opens an artifact whose signature (`ARTIFACT.minisig`) `key` verifies, and only then.
    /// The file is read once and its bytes are checked; the artifact answers from an in-memory
    /// database made of exactly those bytes, so whatever is written into the file later (even
    /// in place, same inode) is never served. It holds the file's size in memory.
    pub fn open_verified(
        path: impl AsRef<Path>,
        key: &signature::PublicKey,
    ) -> Result<Artifact, Error> {
        let path = must_be_a_file(path.as_ref())?;
        let conn = signature::load_verified(&path, key)?;
        Artifact::from_connection(path, conn)
    }

    /// Opens an artifact read-only and checks its schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Artifact, Error> {
        let path = must_be_a_file(path.as_ref())?;
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| Error::Open {
            path: path.clone(),
            source,
        })?;
        // Reads through a memory map rather than one system call per page: a bundle's rows are
        // spread over the file. The map is of the file that was opened, so an artifact swapped
        // in by rename does not change what this connection reads.
        conn.pragma_update(None, "mmap_size", 1i64 << 30)
            .map_err(corrupt(&path))?;
        Artifact::from_connection(path, conn)
    }

    /// Checks the schema version of the database `conn` (the file at `path`) and reads what
    /// every answer needs.
    fn from_connection(path: PathBuf, conn: Connection) -> Result<Artifact, Error> {
        let owned = path.clone();
        let bad = corrupt(&owned);
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
            loaded: kept::KeptBundles::new(),
            catalogs: RwLock::new(HashMap::new()),
            routing: std::sync::OnceLock::new(),
            plugins: std::sync::OnceLock::new(),
            external: std::sync::OnceLock::new(),
            meaning: std::sync::OnceLock::new(),
            small_talk: std::sync::OnceLock::new(),
            talk_words: std::sync::OnceLock::new(),
            glossary: std::sync::OnceLock::new(),
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

    /// The catalog token budget of `tier`, when it has one.
    pub fn catalog_budget(&self, tier: &str) -> Option<u64> {
        let budgets: BTreeMap<String, u64> =
            serde_json::from_str(self.manifest("catalog_budgets")?).ok()?;
        budgets.get(tier).copied()
    }

    /// The Claude Code plugin a skill named `<plugin>:<skill>` comes from, with its metadata
    /// (manifest `plugins`), or `None`.
    pub fn plugin_of(&self, name: &str) -> Option<Plugin> {
        let (plugin, _) = name.split_once(':')?;
        let all = self.plugins.get_or_init(|| {
            let all: BTreeMap<String, serde_json::Value> = self
                .manifest("plugins")
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or_default();
            let plugins = all.into_iter().map(|(name, about)| {
                let text = |k: &str| about.get(k).and_then(|v| v.as_str()).map(str::to_string);
                let plugin = Plugin {
                    version: text("version"),
                    description: text("description"),
                    author: text("author"),
                    name: name.clone(),
                };
                (name, plugin)
            });
            plugins.collect()
        });
        all.get(plugin).cloned()
    }

    /// The outside repository the skill whose SKILL.md is at `location` comes from (manifest
    /// `external`: the entry whose `into` folder holds it), or `None`.
    pub fn external_of(&self, location: &str) -> Option<External> {
        let all = self.external.get_or_init(|| {
            let all: BTreeMap<String, serde_json::Value> = self
                .manifest("external")
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or_default();
            let text = |v: &serde_json::Value, k: &str| {
                v.get(k)
                    .and_then(|x| x.as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            (all.iter())
                .map(|(into, v)| External {
                    into: into.clone(),
                    git: text(v, "git"),
                    rev: text(v, "rev"),
                    commit: text(v, "commit"),
                    trusted: v.get("trusted").and_then(|t| t.as_bool()).unwrap_or(false),
                })
                .collect()
        });
        (all.iter())
            .find(|e| location.starts_with(&format!("{}/", e.into)))
            .cloned()
    }

    /// `max_active_skills`, when set.
    pub fn max_active_skills(&self) -> Option<usize> {
        self.manifest("max_active_skills")
            .and_then(|v| v.parse().ok())
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

    /// The build's warnings with a code (every one for `None`), in the build's order.
    pub fn diagnostics(&self, code: Option<&str>) -> Result<Vec<StoredDiagnostic>, Error> {
        type Row = (String, String, String, u32, u32, String);
        let runs: Vec<Vec<u8>> = {
            let conn = self.conn.lock().expect("lock");
            conn.prepare_cached("SELECT data FROM diagnostic_run ORDER BY first")
                .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
                .map_err(corrupt(&self.path))?
        };
        let mut out = Vec::new();
        for data in runs {
            let rows: Vec<Row> = inflate("zlib", data)
                .and_then(|json| serde_json::from_slice(&json).map_err(|e| e.to_string()))
                .map_err(|why| Error::NotAnArtifact {
                    path: self.path.clone(),
                    why: format!("a run of its diagnostics does not read: {why}"),
                })?;
            let wanted = rows.into_iter().filter(|r| code.is_none_or(|c| r.1 == c));
            out.extend(wanted.map(|(severity, code, file, line, column, message)| {
                StoredDiagnostic {
                    severity,
                    code,
                    file,
                    line,
                    column,
                    message,
                }
            }));
        }
        Ok(out)
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
