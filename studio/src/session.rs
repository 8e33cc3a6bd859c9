//! The studio's logic, free of Tauri: one open workspace and what the content team does with
//! it. Every path the UI sends is relative to the workspace and checked to stay inside it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use skillc::discover::fsio::RawFile;
use skillc::model::Scope;
use skillc_runtime::{Artifact, BundleRef, Context, Format};

pub use crate::error::{Diag, StudioError};

/// A refused edit keeps its diagnostics for the UI.
fn edit_err(e: skillc::edit::Error) -> StudioError {
    match e {
        skillc::edit::Error::Refused(diags) => StudioError {
            kind: "invalid",
            message: "the edit would leave errors; nothing was written".into(),
            diagnostics: diags.iter().map(Diag::from).collect(),
        },
        skillc::edit::Error::Invalid(why) => StudioError::new("invalid", why),
        e @ skillc::edit::Error::Io { .. } => io_err(e),
    }
}

fn io_err(e: impl std::fmt::Display) -> StudioError {
    StudioError::new("io", e.to_string())
}

/// A skill in the browser list.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SkillRow {
    /// Its SKILL.md, relative to the workspace.
    pub file: String,
    /// Name.
    pub name: String,
    /// Namespace.
    pub namespace: String,
    /// Category (empty when none).
    pub category: String,
    /// Client id, empty for global skills.
    pub client: String,
    /// Description.
    pub description: String,
}

/// What the studio shows of a workspace.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Overview {
    /// The workspace folder.
    pub root: String,
    /// Its skills.
    pub skills: Vec<SkillRow>,
    /// Client ids.
    pub clients: Vec<String>,
    /// Locales.
    pub locales: Vec<String>,
    /// Tiers.
    pub tiers: Vec<String>,
    /// Consumers.
    pub consumers: Vec<String>,
    /// Category ids.
    pub categories: Vec<String>,
    /// Every frontmatter field the compiler knows (the form offers these).
    pub fields: Vec<&'static str>,
    /// The check's errors (the skill list marks their files). Warnings are counted only: the
    /// editor shows each file's own, and a large workspace has thousands (3,497 on the
    /// reference workload, 1.9 MB of the overview's JSON on every save).
    pub diagnostics: Vec<Diag>,
    /// Warnings of the check.
    pub warnings: usize,
}

/// A file as read, with the hash that a later save compares against.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FileState {
    /// Relative path.
    pub file: String,
    /// Text.
    pub text: String,
    /// sha256 of the bytes on disk.
    pub hash: String,
}

/// The outcome of a save.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Saved {
    /// Written; the new hash.
    Saved {
        /// Hash of what is now on disk.
        hash: String,
    },
    /// Someone else changed the file since it was read: nothing was written.
    Conflict {
        /// What is on disk now.
        disk: FileState,
    },
}

/// Clients × skills, compact enough for 500 clients × 1,000 skills: one character per cell.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Toggles {
    /// Client ids (rows).
    pub clients: Vec<String>,
    /// Skill names (columns).
    pub skills: Vec<String>,
    /// Each skill's category (empty when none), for filtering and bulk edits.
    pub categories: Vec<String>,
    /// One string per client, one character per skill: `T`/`t` toggled on/off in its
    /// client.yaml, `E`/`e` on/off by the skill's `default_enabled`, `D` on by default, `-` a
    /// skill of another client.
    pub cells: Vec<String>,
}

/// One toggle to set: on, off, or back to the skill's default (`None`).
#[derive(Debug, Clone, serde::Deserialize, PartialEq, Eq)]
pub struct ToggleChange {
    /// Client id.
    pub client: String,
    /// Skill name.
    pub skill: String,
    /// The new state.
    pub value: Option<bool>,
}

/// What a build did.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct BuildSummary {
    /// Whether the artifact was written.
    pub written: bool,
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// The errors that stopped the build (warnings are counted only, as in [`Overview`]).
    pub diagnostics: Vec<Diag>,
    /// Bundles built.
    pub bundles: usize,
    /// Bytes of the artifact.
    pub bytes: u64,
    /// Its release label: the workspace's commit (`-dirty` with changes), when it is in git.
    pub release: Option<String>,
}

/// The catalog as a preview answers it: whole, or without its text and skills when it is the
/// `known` one (by digest); with its digest either way.
fn catalog_answer(
    catalog: &skillc_runtime::Catalog,
    known: &str,
) -> (skillc_runtime::Catalog, String, bool) {
    let skills = serde_json::to_string(&catalog.skills).unwrap_or_default();
    let digest = skillc::digest::hash(format!("{}\0{skills}", catalog.text).as_bytes());
    if digest == known {
        let kept = skillc_runtime::Catalog {
            text: String::new(),
            skills: Vec::new(),
            ..catalog.clone()
        };
        return (kept, digest, true);
    }
    (catalog.clone(), digest, false)
}

/// A preview request.
#[derive(Debug, Clone, Default, serde::Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct PreviewRequest {
    /// Client (empty: global).
    pub client: String,
    /// Locale (empty: default).
    pub locale: String,
    /// Tier (empty: default).
    pub tier: String,
    /// Consumer (empty: none).
    pub consumer: String,
    /// Page URL (empty: none).
    pub page_url: String,
    /// Turn (empty: none).
    pub turn: String,
    /// Selected skills: names or SK ids.
    pub selected: Vec<String>,
    /// Catalog format.
    pub format: String,
    /// Other context values (`company`, `<skill>_availability`, …) as `(key, value)`.
    pub context: Vec<(String, String)>,
    /// The `catalog_digest` of the catalog the page shows (empty: none). When the catalog is
    /// still that one, its text and skills are left out of the answer: a 1,000-skill catalog
    /// is most of an 800 KB answer, and a body edit does not change it.
    pub known_catalog: String,
}

/// The workspace's test cases (`tests/*.yaml`) run against the last build.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TestRun {
    /// Each case with what did not hold (empty: it passed).
    pub outcomes: Vec<skillc::cases::Outcome>,
    /// Problems of the case files (unknown keys, clients, skills); their cases do not run.
    pub problems: Vec<Diag>,
}

/// What a client sees.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Preview {
    /// The catalog (without its text and skills when `catalog_kept`).
    pub catalog: skillc_runtime::Catalog,
    /// A digest of the catalog's text and skills, for the next request's `known_catalog`.
    pub catalog_digest: String,
    /// The catalog is the one the request named as known: its text and skills are left out.
    pub catalog_kept: bool,
    /// The prompt for the selection.
    pub prompt: skillc_runtime::Prompt,
    /// Tokens of each skill's part of the prompt, by selectable name.
    pub skill_tokens: std::collections::BTreeMap<String, u32>,
    /// The catalog against its tier's budget.
    pub budget: BudgetMeter,
}

/// A bundle's markdown catalog (the one budgets are counted on) against its tier's budget.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct BudgetMeter {
    /// Tokens of the catalog as previewed (consumer and context applied).
    pub tokens: u32,
    /// Its characters.
    pub chars: usize,
    /// The tier's `catalog_token_budget`, if it has one.
    pub budget: Option<u64>,
    /// The budget level the build cut the catalog to (`''`: nothing was cut).
    pub level: String,
    /// What the build cut to meet the budget, in words.
    pub cut: Option<String>,
}

/// The errors among `diagnostics`, for the UI.
fn errors_of(diagnostics: &[skillc::Diagnostic]) -> Vec<Diag> {
    diagnostics
        .iter()
        .filter(|d| d.severity == skillc::diagnostic::Severity::Error)
        .map(Diag::from)
        .collect()
}

/// sha256 hex.
fn hash(bytes: &[u8]) -> String {
    skillc::digest::hash(bytes)
}

/// One open workspace.
pub struct Session {
    root: PathBuf,
    /// Successive builds share what an edit leaves unchanged (incremental rebuilds).
    builds: std::sync::Mutex<skillc::pipeline::Session>,
    /// Checks (the overview, a draft as the user types) read and parse only what changed.
    checks: std::sync::Mutex<Checks>,
    /// Whether the folder changed since the last check (its watcher and our writes say so).
    disk: std::sync::Arc<DiskWatch>,
}

/// Checks of the workspace: what the next one may take from the earlier ones.
#[derive(Debug, Default)]
struct Checks {
    /// Files read and skills parsed.
    cache: skillc::parse::load::LoadCache,
    /// The last check of the files as they are on disk (no drafts): served again while the
    /// watcher reports no change (a save asks for the overview, the tests and the preview's
    /// budget, each a check of the same files).
    last: Option<skillc::CheckReport>,
}

/// What the studio knows of changes on disk. The folder's watcher reports every change; until
/// it runs (or when it cannot), every check and every build walks the folder.
#[derive(Debug)]
pub struct DiskWatch {
    watching: std::sync::atomic::AtomicBool,
    /// What changed since the checks, and since the builds, last looked.
    since: std::sync::Mutex<[Seen; 2]>,
    /// The files the studio saved, with the digest of what it wrote: the watcher's report of
    /// a save is not news to the page (it rebuilt already).
    saved: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

/// What changed on disk since a reader last looked.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// These files (workspace-relative; none: nothing changed).
    Files(BTreeSet<String>),
    /// Anything: the folder must be walked.
    Anything,
}

/// The readers of [`DiskWatch`].
#[derive(Debug, Clone, Copy)]
enum Reader {
    Checks = 0,
    Builds = 1,
}

/// Reports the session's own write when it is over, whichever way it ends: the files it names,
/// or (none named) anything.
struct WritesOnDisk<'a>(&'a DiskWatch, Option<&'a str>);

impl Drop for WritesOnDisk<'_> {
    fn drop(&mut self) {
        match self.1 {
            Some(file) => self.0.files_changed([file.to_string()]),
            None => self.0.changed(),
        }
    }
}

impl DiskWatch {
    /// The folder is watched from now on.
    pub fn watching(&self) {
        self.changed();
        self.watching
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Anything in the folder may have changed (events were lost, the studio moved files).
    pub fn changed(&self) {
        if let Ok(mut since) = self.since.lock() {
            *since = [Seen::Anything, Seen::Anything];
        }
    }

    /// These files changed (workspace-relative, `/`-separated).
    pub fn files_changed(&self, files: impl IntoIterator<Item = String>) {
        let files: Vec<String> = files.into_iter().collect();
        if let Ok(mut since) = self.since.lock() {
            for seen in since.iter_mut() {
                if let Seen::Files(known) = seen {
                    known.extend(files.iter().cloned());
                }
            }
        }
    }

    /// The studio saved `file` (workspace-relative) with content of this digest.
    fn saved(&self, file: &str, digest: String) {
        if let Ok(mut saved) = self.saved.lock() {
            saved.insert(file.to_string(), digest);
        }
    }

    /// Whether `file` (workspace-relative, at `path`) holds what the studio saved there last:
    /// a change the watcher reports for it is the studio's own save. Another content (someone
    /// else's edit) ends that, and so does a file gone.
    pub fn is_own_save(&self, file: &str, path: &Path) -> bool {
        let Ok(mut saved) = self.saved.lock() else {
            return false;
        };
        let Some(digest) = saved.get(file) else {
            return false;
        };
        let same = std::fs::read(path).is_ok_and(|bytes| hash(&bytes) == *digest);
        if !same {
            saved.remove(file);
        }
        same
    }

    /// What changed since `reader` last looked (everything while the folder is not watched).
    fn look(&self, reader: Reader) -> Seen {
        use std::sync::atomic::Ordering::SeqCst;
        let fresh = Seen::Files(BTreeSet::new());
        let seen = match self.since.lock() {
            Ok(mut since) => std::mem::replace(&mut since[reader as usize], fresh),
            Err(_) => Seen::Anything,
        };
        if self.watching.load(SeqCst) {
            seen
        } else {
            Seen::Anything
        }
    }
}

impl Session {
    /// Opens a workspace folder.
    pub fn open(root: &Path) -> Result<Session, StudioError> {
        let root = root.canonicalize().map_err(|e| {
            StudioError::new("io", format!("cannot open `{}`: {e}", root.display()))
        })?;
        if !root.is_dir() {
            return Err(StudioError::new(
                "io",
                format!("`{}` is not a folder", root.display()),
            ));
        }
        Ok(Session {
            root,
            builds: Default::default(),
            checks: Default::default(),
            disk: std::sync::Arc::new(DiskWatch {
                watching: false.into(),
                since: std::sync::Mutex::new([Seen::Anything, Seen::Anything]),
                saved: Default::default(),
            }),
        })
    }

    /// The workspace folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the studio's artifacts live (a hidden folder the compiler skips).
    pub fn artifact(&self) -> PathBuf {
        self.root.join(".skillc").join("studio.db")
    }

    /// `.skillc/`, created with a `.gitignore` of `*` so that git never offers the studio's
    /// artifacts and packages for a commit.
    fn cache_dir(&self) -> Result<PathBuf, StudioError> {
        let dir = self.root.join(".skillc");
        std::fs::create_dir_all(&dir).map_err(io_err)?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            write_atomic(&ignore, b"*\n")?;
        }
        Ok(dir)
    }

    fn previous(&self) -> PathBuf {
        self.root.join(".skillc").join("previous.db")
    }

    /// A path inside the workspace, or an error: no absolute paths, no `..`, and no symbolic
    /// link on the way that leads out of the workspace (the compiler's rule for links), so
    /// nothing is read or written outside through a link.
    pub fn inside(&self, rel: &str) -> Result<PathBuf, StudioError> {
        let p = Path::new(rel);
        let ok = !rel.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
        let outside = || {
            StudioError::new(
                "outside",
                format!("`{rel}` is not a path inside the workspace"),
            )
        };
        if !ok {
            return Err(outside());
        }
        let full = self.root.join(p);
        // The deepest part of the path that exists (a link counts, even a dangling one) is
        // resolved; what lies below it does not exist yet, so holds no link.
        let mut existing = full.as_path();
        while existing.symlink_metadata().is_err() {
            existing = existing.parent().ok_or_else(outside)?;
        }
        let real = existing.canonicalize().map_err(|_| outside())?;
        if !real.starts_with(&self.root) {
            return Err(StudioError::new(
                "outside",
                format!("`{rel}` leads outside the workspace through a symbolic link"),
            ));
        }
        Ok(full)
    }

    fn check(&self) -> Result<skillc::CheckReport, StudioError> {
        self.check_with(&[])
    }

    /// The watcher's view of the folder, for it to report changes to.
    pub fn disk(&self) -> std::sync::Arc<DiskWatch> {
        self.disk.clone()
    }

    fn check_with(&self, drafts: &[RawFile]) -> Result<skillc::CheckReport, StudioError> {
        let mut checks = self.checks.lock().map_err(io_err)?;
        // A check between changes on disk does not walk the folder again: it reads again only
        // the files that changed, or serves the last check when none did.
        match self.disk.look(Reader::Checks) {
            Seen::Files(files) if files.is_empty() => {
                if let (true, Some(last)) = (drafts.is_empty(), &checks.last) {
                    return Ok(last.clone());
                }
                checks.cache.assume_unchanged();
            }
            Seen::Files(files) => {
                checks.last = None;
                checks.cache.assume_changed_only(files);
            }
            Seen::Anything => checks.last = None,
        }
        let options = skillc::CheckOptions::default();
        let report =
            skillc::workspace_check::check_cached(&self.root, &options, &mut checks.cache, drafts)
                .map_err(io_err)?;
        if drafts.is_empty() {
            checks.last = Some(report.clone());
        }
        Ok(report)
    }

    /// The skills, configuration and diagnostics.
    pub fn overview(&self) -> Result<Overview, StudioError> {
        let report = self.check()?;
        let ws = &report.workspace;
        Ok(Overview {
            root: self.root.display().to_string(),
            skills: ws
                .skills
                .iter()
                .map(|s| SkillRow {
                    file: s.file.clone(),
                    name: s.name.clone(),
                    namespace: s.namespace.clone(),
                    category: s.category.clone().unwrap_or_default(),
                    client: match &s.scope {
                        Scope::Client(c) => c.clone(),
                        Scope::Global => String::new(),
                    },
                    description: s.frontmatter.description.clone().unwrap_or_default(),
                })
                .collect(),
            clients: ws.clients.keys().cloned().collect(),
            locales: ws.config.locales.clone(),
            tiers: ws.config.tiers.iter().map(|t| t.name.clone()).collect(),
            consumers: ws.config.consumers.keys().cloned().collect(),
            categories: ws.categories.keys().cloned().collect(),
            fields: skillc::model::fields::known_names().collect(),
            diagnostics: errors_of(&report.diagnostics),
            warnings: report.warning_count(),
        })
    }

    /// What the skill at `rel` is tied to (the relations panel).
    pub fn relations(&self, rel: &str) -> Result<crate::relations::Relations, StudioError> {
        self.inside(rel)?;
        let report = self.check()?;
        crate::relations::of(&report.workspace, rel)
            .ok_or_else(|| StudioError::new("request", format!("`{rel}` is not a skill")))
    }

    /// Reads a file of the workspace.
    pub fn read(&self, rel: &str) -> Result<FileState, StudioError> {
        let path = self.inside(rel)?;
        let bytes = std::fs::read(&path).map_err(io_err)?;
        Ok(FileState {
            file: rel.to_string(),
            text: String::from_utf8_lossy(&bytes).into_owned(),
            hash: hash(&bytes),
        })
    }

    /// Diagnostics of the workspace as it would be with `text` in `rel` (not saved).
    pub fn check_draft(&self, rel: &str, text: &str) -> Result<Vec<Diag>, StudioError> {
        self.inside(rel)?;
        let report = self.check_with(&[RawFile::new(rel, text.as_bytes())])?;
        Ok(report.diagnostics.iter().map(Diag::from).collect())
    }

    /// Saves `text` to `rel` atomically, unless the file changed on disk since it was read
    /// (its hash is no longer `base`): then nothing is written and the disk's text comes back.
    /// `base` is `None` to overwrite whatever is there (the user chose to keep theirs).
    pub fn save(&self, rel: &str, text: &str, base: Option<&str>) -> Result<Saved, StudioError> {
        let _written = WritesOnDisk(&self.disk, Some(rel));
        let path = self.inside(rel)?;
        if let Some(base) = base {
            if let Ok(disk) = self.read(rel) {
                if disk.hash != base {
                    return Ok(Saved::Conflict { disk });
                }
            }
        }
        // Known before the rename: the watcher may report it before `write_atomic` returns.
        let digest = hash(text.as_bytes());
        self.disk.saved(rel, digest.clone());
        write_atomic(&path, text.as_bytes())?;
        Ok(Saved::Saved { hash: digest })
    }

    /// Creates `<parent>/<name>/SKILL.md` with a minimal frontmatter.
    pub fn create_skill(&self, parent: &str, name: &str) -> Result<String, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let folder = if parent.is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", parent.trim_end_matches('/'))
        };
        let dir = self.inside(&folder)?;
        if dir.exists() {
            return Err(StudioError::new(
                "request",
                format!("`{folder}` already exists"),
            ));
        }
        let rel = format!("{folder}/SKILL.md");
        std::fs::create_dir_all(&dir).map_err(io_err)?;
        write_atomic(
            &dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: What this skill does and when to use it.\n---\n# Instructions\n\n").as_bytes(),
        )?;
        Ok(rel)
    }

    /// Renames a skill: its folder and its `name`.
    pub fn rename_skill(&self, rel: &str, new_name: &str) -> Result<String, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let file = self.inside(rel)?;
        let dir = file
            .parent()
            .ok_or_else(|| StudioError::new("request", "no folder"))?;
        let target = dir.with_file_name(new_name);
        let new_rel_dir = target
            .strip_prefix(&self.root)
            .map_err(io_err)?
            .to_string_lossy()
            .into_owned();
        self.inside(&new_rel_dir)?;
        if target.exists() {
            return Err(StudioError::new(
                "request",
                format!("`{new_rel_dir}` already exists"),
            ));
        }
        let text = std::fs::read_to_string(&file).map_err(io_err)?;
        let renamed = rename_in_frontmatter(&text, new_name);
        std::fs::rename(dir, &target).map_err(io_err)?;
        write_atomic(&target.join("SKILL.md"), renamed.as_bytes())?;
        Ok(format!("{new_rel_dir}/SKILL.md"))
    }

    /// Deletes a skill's folder.
    pub fn delete_skill(&self, rel: &str) -> Result<(), StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let file = self.inside(rel)?;
        if file
            .file_name()
            .is_none_or(|n| n != "SKILL.md" && n != "skill.md")
        {
            return Err(StudioError::new(
                "request",
                "only skill folders can be deleted",
            ));
        }
        let dir = file
            .parent()
            .ok_or_else(|| StudioError::new("request", "no folder"))?;
        std::fs::remove_dir_all(dir).map_err(io_err)
    }

    /// Packs a skill into `.skillc/packages/<name>.zip` inside the workspace.
    pub fn export_package(&self, rel: &str) -> Result<String, StudioError> {
        let file = self.inside(rel)?;
        let dir = file
            .parent()
            .ok_or_else(|| StudioError::new("request", "no folder"))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out_dir = self.cache_dir()?.join("packages");
        std::fs::create_dir_all(&out_dir).map_err(io_err)?;
        let out = out_dir.join(format!("{name}.zip"));
        skillc::interop::package::pack(dir, &out, false).map_err(package_err)?;
        Ok(out.display().to_string())
    }

    /// Unpacks a ZIP package into the workspace (checked before anything is written).
    pub fn import_package(&self, archive: &str) -> Result<String, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let limits = skillc::interop::package::Limits::default();
        let u = skillc::interop::package::unpack(Path::new(archive), &self.root, false, &limits)
            .map_err(package_err)?;
        let dir = u.dir.strip_prefix(&self.root).map_err(io_err)?;
        Ok(format!("{}/SKILL.md", dir.display()))
    }

    /// The clients × skills matrix with the cascade: toggle > default_enabled > enabled.
    pub fn toggles(&self) -> Result<Toggles, StudioError> {
        let report = self.check()?;
        let ws = &report.workspace;
        let mut defaults: BTreeMap<String, Option<bool>> = BTreeMap::new();
        let mut categories: BTreeMap<String, String> = BTreeMap::new();
        // Which clients have each skill: `None` for global skills (every client).
        let mut owners: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
        for s in ws
            .skills
            .iter()
            .filter(|s| s.frontmatter.variant_of.is_none())
        {
            defaults
                .entry(s.name.clone())
                .or_insert(s.frontmatter.default_enabled);
            categories
                .entry(s.name.clone())
                .or_insert_with(|| s.category.clone().unwrap_or_default());
            let owner = owners.entry(s.name.clone()).or_insert(Some(Vec::new()));
            match (&s.scope, owner.as_mut()) {
                (Scope::Global, _) => *owner = None,
                (Scope::Client(c), Some(list)) => list.push(c.clone()),
                (Scope::Client(_), None) => {}
            }
        }
        let skills: Vec<String> = defaults.keys().cloned().collect();
        let clients: Vec<String> = ws.clients.keys().cloned().collect();
        let cells = clients
            .iter()
            .map(|c| {
                let client = &ws.clients[c];
                skills
                    .iter()
                    .map(|s| match (client.toggles.get(s), defaults[s]) {
                        _ if owners[s].as_ref().is_some_and(|o| !o.contains(c)) => '-',
                        (Some(t), _) => {
                            if t.enabled {
                                'T'
                            } else {
                                't'
                            }
                        }
                        (None, Some(d)) => {
                            if d {
                                'E'
                            } else {
                                'e'
                            }
                        }
                        (None, None) => 'D',
                    })
                    .collect()
            })
            .collect();
        let categories = skills
            .iter()
            .map(|n| categories.get(n).cloned().unwrap_or_default())
            .collect();
        Ok(Toggles {
            clients,
            skills,
            categories,
            cells,
        })
    }

    /// Sets (or clears, with `None`) toggles in the clients' `client.yaml` files, all checked
    /// together and each file written once.
    pub fn set_toggles(&self, changes: &[ToggleChange]) -> Result<usize, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        // The compiler's lossless edit (the code behind `skillc toggle`): only the toggles'
        // lines change; comments and order stay; an unreadable client.yaml is never replaced.
        let clients: BTreeSet<&str> = changes.iter().map(|c| c.client.as_str()).collect();
        for client in clients {
            self.inside(&format!("clients/{client}/client.yaml"))?;
        }
        let edits: Vec<(&str, &str, skillc::edit::Toggle)> = changes
            .iter()
            .map(|c| {
                let toggle = match c.value {
                    Some(true) => skillc::edit::Toggle::On,
                    Some(false) => skillc::edit::Toggle::Off,
                    None => skillc::edit::Toggle::Default,
                };
                (c.client.as_str(), c.skill.as_str(), toggle)
            })
            .collect();
        let mut checks = self.checks.lock().map_err(io_err)?;
        skillc::edit::toggles_in_workspace_with(&self.root, &edits, &mut checks.cache)
            .map(|written| written.len())
            .map_err(edit_err)
    }

    /// Builds the artifact (keeping the previous one for [`Session::diff`]).
    pub fn build(
        &self,
        progress: Option<&skillc::pipeline::Progress>,
    ) -> Result<BuildSummary, StudioError> {
        // One build at a time, from its first step (the diff's files below) to its last: the
        // studio's other commands run meanwhile.
        // A build that panicked has left nothing half-updated worth keeping: start over.
        let mut builds = self.builds.lock().unwrap_or_else(|poisoned| {
            self.builds.clear_poison();
            let mut fresh = poisoned.into_inner();
            *fresh = Default::default();
            fresh
        });
        let out = self.artifact();
        self.cache_dir()?;
        // The artifact as it is now becomes the diff's "before" once this build replaces it.
        // A hard link keeps it (the build swaps a new file in by rename) without copying it.
        let before = self.root.join(".skillc").join("before.db");
        let _ = std::fs::remove_file(&before);
        let kept = out.exists() && std::fs::hard_link(&out, &before).is_ok();
        // Labelled as `skillc build --release-label git` would (none outside git), so the
        // studio says which commit, and whether edits on top of it, its preview shows. The
        // label's `git status` runs beside the build's first phases.
        let label = std::sync::Mutex::new(None);
        let git_label = || {
            let found = skillc::release::git_label(&self.root).ok();
            *label.lock().unwrap_or_else(|e| e.into_inner()) = found.clone();
            found
        };
        let options = skillc::pipeline::BuildOptions {
            jobs: None,
            progress,
            release: None,
            release_from: Some(&git_label),
            clients_per_batch: None,
        };
        // Between changes on disk, the build reads again only the files that changed.
        if let Seen::Files(files) = self.disk.look(Reader::Builds) {
            builds.assume_changed_only(files);
        }
        let report =
            skillc::pipeline::rebuild(&self.root, &out, &options, &mut builds).map_err(io_err)?;
        // Only a build that wrote a new artifact moves the diff on.
        if kept && report.stats.is_some() && !report.unchanged {
            std::fs::rename(&before, self.previous()).map_err(io_err)?;
        } else {
            let _ = std::fs::remove_file(&before);
        }
        let errors = report.error_count();
        Ok(BuildSummary {
            written: report.stats.is_some(),
            errors,
            warnings: report.diagnostics.len() - errors,
            diagnostics: errors_of(&report.diagnostics),
            bundles: report.stats.as_ref().map_or(0, |s| s.bundles),
            bytes: report.stats.as_ref().map_or(0, |s| s.bytes),
            release: label.into_inner().unwrap_or_else(|e| e.into_inner()),
        })
    }

    /// The catalog and the prompt a client sees, from the last build.
    pub fn preview(&self, r: &PreviewRequest) -> Result<Preview, StudioError> {
        let a = Artifact::open(self.artifact())
            .map_err(|e| StudioError::new("request", format!("build first: {e}")))?;
        let opt = |s: &str| (!s.is_empty()).then_some(s.to_string());
        let (client, locale, tier, consumer) = (
            opt(&r.client),
            opt(&r.locale),
            opt(&r.tier),
            opt(&r.consumer),
        );
        let bundle = BundleRef {
            client: client.as_deref(),
            locale: locale.as_deref(),
            tier: tier.as_deref(),
        };
        let mut pairs = Vec::new();
        if !r.page_url.is_empty() {
            pairs.push(("page_url", r.page_url.as_str()));
        }
        if !r.turn.is_empty() {
            pairs.push(("turn", r.turn.as_str()));
        }
        pairs.extend(r.context.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let ctx = Context::from_pairs(pairs).map_err(|e| StudioError::new("request", e))?;
        let format = Format::parse(&r.format).unwrap_or(Format::Markdown);
        let req = |e: skillc_runtime::Error| StudioError::new("request", e.to_string());
        let catalog = a
            .catalog(&bundle, consumer.as_deref(), &ctx, format)
            .map_err(req)?;
        let picked: Vec<&str> = r
            .selected
            .iter()
            .map(String::as_str)
            .filter(|s| !s.trim().is_empty())
            .collect();
        let prompt = a
            .prompt(&bundle, consumer.as_deref(), &ctx, &picked)
            .map_err(req)?;
        let b = a.bundle(&bundle).map_err(req)?;
        let skill_tokens = prompt
            .skills
            .iter()
            .filter_map(|s| b.find(&s.name).map(|k| (s.name.clone(), k.prompt_tokens)))
            .collect();
        let markdown = a
            .catalog(&bundle, consumer.as_deref(), &ctx, Format::Markdown)
            .map_err(req)?;
        let budget = BudgetMeter {
            tokens: markdown.tokens,
            chars: markdown.text.chars().count(),
            budget: a.catalog_budget(&markdown.tier),
            level: b.catalog_level().to_string(),
            cut: b.catalog_cut(),
        };
        let (catalog, catalog_digest, catalog_kept) = catalog_answer(&catalog, &r.known_catalog);
        Ok(Preview {
            catalog,
            catalog_digest,
            catalog_kept,
            prompt,
            skill_tokens,
            budget,
        })
    }

    /// Runs the workspace's test cases against the last build.
    pub fn test_cases(&self) -> Result<TestRun, StudioError> {
        let report = self.check()?;
        let (cases, problems) = skillc::cases::load(&self.root, &report.workspace);
        let problems: Vec<Diag> = problems.iter().map(Diag::from).collect();
        if cases.is_empty() {
            return Ok(TestRun {
                outcomes: Vec::new(),
                problems,
            });
        }
        let a = Artifact::open(self.artifact())
            .map_err(|e| StudioError::new("request", format!("build first: {e}")))?;
        Ok(TestRun {
            outcomes: cases.iter().map(|c| skillc::cases::run(&a, c)).collect(),
            problems,
        })
    }

    /// Every change since the last commit, and what it does to each bundle (the working tree
    /// is built first; HEAD's build is kept in `.skillc/review/` per commit).
    pub fn review(&self) -> Result<crate::review::Review, StudioError> {
        let built = self.build(None)?;
        let artifact = self.artifact();
        let work = built.written.then_some(artifact.as_path());
        crate::review::review(&self.root, work, &self.cache_dir()?.join("review"))
    }

    /// Commits exactly the reviewed files (see [`crate::review::publish`]).
    pub fn publish(
        &self,
        token: &str,
        files: &[String],
        message: &str,
    ) -> Result<String, StudioError> {
        let cache = self.cache_dir()?.join("review");
        crate::review::publish(&self.root, token, files, message, &cache)
    }

    /// What changed since the previous build.
    pub fn diff(&self) -> Result<skillc::interop::diff::Diff, StudioError> {
        let open = |p: PathBuf| {
            Artifact::open(p)
                .map_err(|e| StudioError::new("request", format!("build twice to compare: {e}")))
        };
        let (old, new) = (open(self.previous())?, open(self.artifact())?);
        skillc::interop::diff::diff(&old, &new)
            .map_err(|e| StudioError::new("request", e.to_string()))
    }
}

/// A SKILL.md split for the form: frontmatter fields in file order, and the body.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct Parts {
    /// `(key, value)` in file order.
    pub fields: Vec<(String, serde_json::Value)>,
    /// The text before the body: the frontmatter with its fences, byte for byte.
    pub head: String,
    /// The body after the frontmatter.
    pub body: String,
    /// Why the frontmatter could not be read (the form is then unavailable).
    pub error: Option<String>,
}

/// Splits a SKILL.md text into form fields and body.
pub fn decompose(text: &str) -> Parts {
    let fail = |e: String| Parts {
        fields: Vec::new(),
        head: String::new(),
        body: text.to_string(),
        error: Some(e),
    };
    let split = match skillc::parse::yaml::split_frontmatter("SKILL.md", text) {
        Ok(s) => s,
        Err(d) => return fail(d.message),
    };
    let map: serde_yaml::Mapping = match serde_yaml::from_str(split.yaml) {
        Ok(serde_yaml::Value::Mapping(m)) => m,
        Ok(serde_yaml::Value::Null) => serde_yaml::Mapping::new(),
        Ok(_) => return fail("the frontmatter is not a mapping".into()),
        Err(e) => return fail(e.to_string()),
    };
    let fields = map
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), serde_json::to_value(v).ok()?)))
        .collect();
    let head = text[..text.len() - split.body.len()].to_string();
    Parts {
        fields,
        head,
        body: split.body.to_string(),
        error: None,
    }
}

/// Sets (or, with `None`, removes) one frontmatter field of a SKILL.md text with the
/// compiler's lossless edit (the code of `skillc set`): only that field's lines change, so
/// comments, key order and quoting elsewhere survive a form edit.
pub fn set_field(
    text: &str,
    field: &str,
    value: Option<&serde_json::Value>,
) -> Result<String, StudioError> {
    let yaml = value
        .map(serde_yaml::to_string)
        .transpose()
        .map_err(io_err)?;
    let edit = match &yaml {
        Some(y) => skillc::edit::FieldEdit::Set(y.trim_end_matches('\n')),
        None => skillc::edit::FieldEdit::Unset,
    };
    skillc::edit::set_field(text, field, &edit).map_err(edit_err)
}

fn package_err(e: skillc::interop::package::Error) -> StudioError {
    match e {
        skillc::interop::package::Error::Invalid(d) => StudioError {
            kind: "invalid",
            message: "the package's skill has errors".into(),
            diagnostics: d.iter().map(Diag::from).collect(),
        },
        other => StudioError::new("request", other.to_string()),
    }
}

/// Writes through a temporary file and a rename, so a crash never leaves half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StudioError> {
    // The compiler's one atomic writer: temporary file beside it, synced, renamed.
    skillc::edit::write_atomic(path, bytes).map_err(io_err)
}

/// Replaces (or adds) the `name:` line of a frontmatter.
fn rename_in_frontmatter(text: &str, name: &str) -> String {
    let mut out = Vec::new();
    let mut replaced = false;
    for (i, line) in text.lines().enumerate() {
        if !replaced && i > 0 && line.starts_with("name:") {
            out.push(format!("name: {name}"));
            replaced = true;
        } else {
            out.push(line.to_string());
        }
        if i == 0 && line.trim_end() == "---" && !text.contains("\nname:") {
            out.push(format!("name: {name}"));
            replaced = true;
        }
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let t = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &t);
            } else {
                std::fs::copy(e.path(), &t).unwrap();
            }
        }
    }

    pub(super) fn sample() -> (tempfile::TempDir, Session) {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("skills"),
            &dir.path().join("ws"),
        );
        let s = Session::open(&dir.path().join("ws")).unwrap();
        (dir, s)
    }

    const DEMO: &str = "public/response_ending/demo_offer/SKILL.md";

    #[test]
    fn checks_and_builds_read_again_the_files_the_watcher_names() {
        const OTHER: &str = "public/assistant/greeting/SKILL.md";
        let (_d, s) = sample();
        s.disk().watching();
        assert!(s.build(None).unwrap().written);
        let description = |s: &Session, file: &str| {
            let report = s.check().unwrap();
            let skill = report.workspace.skills.iter().find(|k| k.file == file);
            skill.unwrap().frontmatter.description.clone().unwrap()
        };
        let other = description(&s, OTHER);
        let rewrite = |file: &str, to: &str| {
            let text = std::fs::read_to_string(s.root().join(file)).unwrap();
            let old = description(&s, file);
            std::fs::write(s.root().join(file), text.replacen(&old, to, 1)).unwrap();
        };
        rewrite(DEMO, "Named by the watcher.");
        rewrite(OTHER, "Changed behind the watcher's back.");
        // Only DEMO is reported: both readers read it again and take every other file as the
        // last look read it (a walk would have seen OTHER change too).
        s.disk().files_changed([DEMO.to_string()]);
        assert_eq!(description(&s, DEMO), "Named by the watcher.");
        assert_eq!(description(&s, OTHER), other);
        assert!(s.build(None).unwrap().written);
        let catalog = s.preview(&PreviewRequest::default()).unwrap().catalog.text;
        assert!(catalog.contains("Named by the watcher."));
        assert!(!catalog.contains("behind the watcher's back"));
        // A change it cannot name makes both walk.
        s.disk().changed();
        assert_eq!(description(&s, OTHER), "Changed behind the watcher's back.");
    }

    #[test]
    fn a_check_is_served_again_until_the_disk_changes() {
        let (_d, s) = sample();
        s.disk().watching();
        let description = |s: &Session| {
            let report = s.check().unwrap();
            let demo = report.workspace.skills.iter().find(|k| k.file == DEMO);
            demo.unwrap().frontmatter.description.clone().unwrap()
        };
        let before = description(&s);
        let text = std::fs::read_to_string(s.root().join(DEMO)).unwrap();
        let edited = text.replacen(&before, "Edited behind the watcher's back.", 1);
        std::fs::write(s.root().join(DEMO), edited).unwrap();
        // No change reported: the last check is the answer (the watcher reports every change
        // the studio does not make itself).
        assert_eq!(description(&s), before);
        // A draft is checked, and does not become the disk's answer.
        let draft = RawFile::new(DEMO, text.replacen(&before, "A draft.", 1).into_bytes());
        let drafted = s.check_with(&[draft]).unwrap();
        let demo = drafted.workspace.skills.iter().find(|k| k.file == DEMO);
        assert_eq!(
            demo.unwrap().frontmatter.description.as_deref(),
            Some("A draft.")
        );
        assert_eq!(description(&s), before);
        s.disk().changed();
        assert_eq!(description(&s), "Edited behind the watcher's back.");
    }

    #[test]
    fn a_build_is_labelled_with_the_workspace_commit_when_there_is_one() {
        let (d, s) = sample();
        assert_eq!(s.build(None).unwrap().release, None, "not in git: no label");
        let ws = d.path().join("ws");
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-C"])
                .arg(&ws)
                .args(args)
                .output()
                .unwrap();
            assert!(ok.status.success(), "{ok:?}");
            String::from_utf8_lossy(&ok.stdout).trim().to_string()
        };
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        git(&["commit", "-qm", "skills"]);
        let head = git(&["rev-parse", "--short", "HEAD"]);
        let built = s.build(None).unwrap();
        assert_eq!(built.release.as_deref(), Some(head.as_str()));
        let a = skillc_runtime::Artifact::open(s.artifact()).unwrap();
        assert_eq!(a.release(), Some(head.as_str()));
    }

    /// Runs git in `dir` (with the repository's own configuration), returning stdout.
    fn git_in(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A git repository in `dir` holding the sample under `skills/` and a file beside it,
    /// committed once; returns it and its commit.
    fn committed_sample(dir: &Path) -> (PathBuf, String) {
        let repo = dir.join("repo");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("skills"),
            &repo.join("skills"),
        );
        std::fs::write(repo.join("notes.txt"), "outside the workspace\n").unwrap();
        git_in(&repo, &["init", "-q"]);
        git_in(&repo, &["config", "user.name", "Content Team"]);
        git_in(&repo, &["config", "user.email", "content@example.com"]);
        git_in(&repo, &["add", "-A"]);
        git_in(&repo, &["commit", "-qm", "first"]);
        let first = git_in(&repo, &["rev-parse", "HEAD"]);
        (repo, first)
    }

    #[test]
    fn review_shows_files_and_impact_and_publish_commits_exactly_the_reviewed_files() {
        let dir = tempfile::tempdir().unwrap();
        let (repo, first) = committed_sample(dir.path());
        let s = Session::open(&repo.join("skills")).unwrap();
        assert!(s.review().unwrap().files.is_empty());
        // A description edit, a new file, and something else staged outside the workspace.
        let uk = "clients/ibanfirst.com/response_handling/pricing-uk/SKILL.md";
        let text = std::fs::read_to_string(s.root().join(uk)).unwrap();
        let edited = text.replacen("description: ", "description: UK only. ", 1);
        assert_ne!(edited, text);
        std::fs::write(s.root().join(uk), edited).unwrap();
        std::fs::write(s.root().join("public/README.md"), "# Public skills\n").unwrap();
        std::fs::write(repo.join("notes.txt"), "staged by hand\n").unwrap();
        git_in(&repo, &["add", "notes.txt"]);
        let r = s.review().unwrap();
        let files: Vec<(&str, &str)> = r
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.status))
            .collect();
        assert_eq!(
            files,
            [
                (
                    "clients/ibanfirst.com/response_handling/pricing-uk/SKILL.md",
                    "changed"
                ),
                ("public/README.md", "added")
            ]
        );
        assert!(
            r.files[0].diff.contains("+description: UK only."),
            "{}",
            r.files[0].diff
        );
        assert!(r.impact.problem.is_none(), "{:?}", r.impact.problem);
        let g = &r.impact.groups;
        assert!(
            g.iter()
                .any(|g| g.change.starts_with("pricing-uk's description changed")
                    && g.bundles
                        .contains(&"ibanfirst.com, en, standard".to_string())),
            "{g:#?}"
        );
        let bundles: Vec<&String> = g.iter().flat_map(|g| &g.bundles).collect();
        assert!(
            bundles.iter().all(|b| b.starts_with("ibanfirst.com")),
            "only ibanfirst.com changes: {bundles:?}"
        );
        // Refused: an empty message, a stale review, a file that was not reviewed.
        let paths: Vec<String> = r.files.iter().map(|f| f.path.clone()).collect();
        assert!(s.publish(&r.token, &paths, " ").is_err());
        assert!(s.publish("stale", &paths, "Say UK only").is_err());
        assert!(s
            .publish(&r.token, &["workspace.yaml".to_string()], "Say UK only")
            .is_err());
        assert_eq!(
            git_in(&repo, &["rev-parse", "HEAD"]),
            first,
            "nothing committed"
        );
        let commit = s.publish(&r.token, &paths, "Say UK only").unwrap();
        assert!(git_in(&repo, &["rev-parse", "HEAD"]).starts_with(&commit));
        let committed = git_in(&repo, &["show", "--name-only", "--format=%an|%s", "HEAD"]);
        assert_eq!(
            committed,
            "Content Team|Say UK only\n\nskills/clients/ibanfirst.com/response_handling/pricing-uk/SKILL.md\nskills/public/README.md"
        );
        // What the user staged by hand is still staged, and not in the commit.
        assert_eq!(
            git_in(&repo, &["diff", "--cached", "--name-only"]),
            "notes.txt"
        );
        assert!(
            s.review().unwrap().files.is_empty(),
            "the workspace is clean"
        );
    }

    #[test]
    fn the_sample_cases_pass_and_a_broken_one_fails_by_name() {
        let (_d, s) = sample();
        s.build(None).unwrap();
        let run = s.test_cases().unwrap();
        assert!(
            run.outcomes.len() >= 9 && run.problems.is_empty(),
            "{run:?}"
        );
        assert!(
            run.outcomes.iter().all(|o| o.passed()),
            "{:#?}",
            run.outcomes
        );
        std::fs::write(
            s.root().join("tests/broken.yaml"),
            "- name: Deliberately broken\n  request: {client: hyperline.co, select: [pricing]}\n  expect: {text_contains: [\"no such words\"]}\n",
        )
        .unwrap();
        s.disk().changed();
        let run = s.test_cases().unwrap();
        let failed: Vec<&skillc::cases::Outcome> =
            run.outcomes.iter().filter(|o| !o.passed()).collect();
        assert_eq!(failed.len(), 1, "{failed:#?}");
        assert_eq!(failed[0].case.name, "Deliberately broken");
        assert!(
            failed[0].failures[0].contains("no such words"),
            "{:?}",
            failed[0].failures
        );
    }

    #[test]
    fn a_workspace_outside_git_is_told_how_to_make_it_a_repository() {
        let (_d, s) = sample();
        let r = s.review().unwrap();
        assert!(r.not_a_repository.unwrap().contains("git init"));
        assert!(s.publish(&r.token, &[], "x").is_err());
    }

    #[test]
    fn checks_between_changes_skip_the_walk_yet_see_every_change_they_are_told_of() {
        let (d, s) = sample();
        let ws = d.path().join("ws");
        s.disk().watching();
        let has = |name: &str| s.overview().unwrap().skills.iter().any(|k| k.name == name);
        assert!(!has("fresh-one"));
        // A skill the watcher has not reported yet: a check in between trusts the last walk.
        std::fs::create_dir_all(ws.join("public/fresh-one")).unwrap();
        let skill = "---\nname: fresh-one\ndescription: New.\n---\nBody.\n";
        std::fs::write(ws.join("public/fresh-one/SKILL.md"), skill).unwrap();
        assert!(
            !has("fresh-one"),
            "the check walked although nothing was reported"
        );
        // Reported (what the watcher does): the next check walks and finds it.
        s.disk().changed();
        assert!(has("fresh-one"));
        // The studio's own writes need no watcher: they mark the folder changed themselves.
        let created = s.create_skill("public", "made-here").unwrap();
        assert!(has("made-here"), "{created}");
        let text = s
            .read(&created)
            .unwrap()
            .text
            .replace("made-here", "renamed-here");
        s.save(&created, &text, None).unwrap();
        assert!(has("renamed-here"));
    }

    #[test]
    fn a_secret_never_reaches_the_preview() {
        let (d, s) = sample();
        let ws = d.path().join("ws");
        let secret = "sk-live-studio-preview-7e1f";
        std::fs::create_dir_all(ws.join("public/api-key")).unwrap();
        std::fs::write(
            ws.join("public/api-key/SKILL.md"),
            "---\nname: api-key\ndescription: Calls the billing API.\nvars:\n  API_KEY: { required: true, secret: true }\n---\nAuthenticate with {{API_KEY}}.\n",
        )
        .unwrap();
        std::fs::write(
            ws.join("public/api-key/vars.json"),
            format!("{{\"API_KEY\": \"{secret}\"}}"),
        )
        .unwrap();
        s.build(None).unwrap();
        let p = s
            .preview(&PreviewRequest {
                selected: vec!["api-key".into()],
                format: "markdown".into(),
                ..PreviewRequest::default()
            })
            .unwrap();
        let shown = serde_json::to_string(&p).unwrap();
        assert!(shown.contains("Authenticate with {{API_KEY}}."), "{shown}");
        assert!(!shown.contains(secret), "the preview shows the secret");
    }

    #[test]
    fn a_link_out_of_the_workspace_is_neither_read_nor_written_through() {
        let (d, s) = sample();
        let elsewhere = d.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("SKILL.md"), "private\n").unwrap();
        let ws = d.path().join("ws");
        std::os::unix::fs::symlink(&elsewhere, ws.join("public/escape")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("gone"), ws.join("dangling")).unwrap();
        let err = s.read("public/escape/SKILL.md").unwrap_err();
        assert_eq!(err.kind, "outside", "{}", err.message);
        let err = s.save("public/escape/new.md", "x", None).unwrap_err();
        assert_eq!(err.kind, "outside", "{}", err.message);
        let err = s.save("dangling", "x", None).unwrap_err();
        assert_eq!(err.kind, "outside", "{}", err.message);
        assert!(!elsewhere.join("new.md").exists());
        assert!(!elsewhere.join("gone").exists());
        assert_eq!(
            std::fs::read_to_string(elsewhere.join("SKILL.md")).unwrap(),
            "private\n"
        );
        // A link that stays inside is fine.
        std::os::unix::fs::symlink(ws.join("public"), ws.join("alias")).unwrap();
        assert!(s
            .read(&format!("alias/{}", &DEMO["public/".len()..]))
            .is_ok());
    }

    #[test]
    fn relations_name_variants_overrides_and_composition_both_ways() {
        let (_d, s) = sample();
        let o = s.overview().unwrap();
        let file = |name: &str, client: &str| {
            o.skills
                .iter()
                .find(|k| k.name == name && k.client == client)
                .map(|k| k.file.clone())
                .unwrap_or_else(|| panic!("no skill {name} of {client:?}"))
        };
        let competitors = s.relations(&file("competitors", "")).unwrap();
        assert!(
            competitors
                .variants
                .iter()
                .any(|v| v.link.name == "competitors_aware"
                    && v.when == ["flag competitors.names is set"]),
            "{:?}",
            competitors.variants
        );
        let aware = s.relations(&file("competitors_aware", "")).unwrap();
        assert_eq!(
            aware.variant_of.as_ref().map(|l| l.name.as_str()),
            Some("competitors")
        );
        let pricing = s.relations(&file("pricing", "")).unwrap();
        assert!(pricing
            .overridden_by
            .iter()
            .any(|l| l.client == "ibanfirst.com"));
        let theirs = s.relations(&file("pricing", "ibanfirst.com")).unwrap();
        assert_eq!(
            theirs.overrides.and_then(|l| l.file),
            Some(file("pricing", ""))
        );
        let demo = s.relations(&file("demo_offer", "")).unwrap();
        let toggled: Vec<&str> = demo.toggled_by.iter().map(|t| t.client.as_str()).collect();
        assert!(toggled.contains(&"example.com"), "{toggled:?}");
        // Every link one way shows up the other way.
        let mut seen = 0;
        for k in &o.skills {
            let r = s.relations(&k.file).unwrap();
            for l in r.uses.dependencies.iter().filter_map(|l| l.file.as_ref()) {
                seen += 1;
                let back = s.relations(l).unwrap();
                assert!(back
                    .used_by
                    .dependencies
                    .iter()
                    .any(|b| b.file.as_ref() == Some(&k.file)));
            }
        }
        assert!(seen > 0, "the sample has dependencies to follow back");
        assert_eq!(s.relations("workspace.yaml").unwrap_err().kind, "request");
    }

    #[test]
    fn overview_lists_skills_by_scope_with_diagnostics() {
        let (_d, s) = sample();
        let o = s.overview().unwrap();
        assert!(o
            .skills
            .iter()
            .any(|r| r.name == "pricing-uk" && r.client == "ibanfirst.com"));
        assert!(o.clients.contains(&"hyperline.co".to_string()));
        // The sample has warnings and no errors: the count comes, the list stays empty.
        assert!(o.warnings > 0);
        assert!(o.diagnostics.is_empty());
    }

    #[test]
    fn paths_outside_the_workspace_are_refused() {
        let (_d, s) = sample();
        for bad in ["../x", "/etc/passwd", "a/../../b", ""] {
            assert_eq!(s.read(bad).unwrap_err().kind, "outside", "{bad}");
        }
    }

    #[test]
    fn a_draft_gets_live_diagnostics_without_being_saved() {
        let (_d, s) = sample();
        let before = s.read(DEMO).unwrap();
        let draft = before
            .text
            .replace("dependencies: []", "")
            .replace("priority: 1", "priority: first");
        let diags = s.check_draft(DEMO, &draft).unwrap();
        let d = diags
            .iter()
            .find(|d| d.file == DEMO && d.code == "W116")
            .expect("the new warning: `priority: first` is not skillc's shape");
        assert_eq!(d.line, 7);
        assert_eq!(s.read(DEMO).unwrap(), before);
    }

    #[test]
    fn saves_are_atomic_and_never_overwrite_a_change_made_on_disk() {
        let (_d, s) = sample();
        let mine = s.read(DEMO).unwrap();
        // Someone else edits the file.
        std::fs::write(
            s.root().join(DEMO),
            mine.text.replace("Offer a demo", "Propose a demo"),
        )
        .unwrap();
        let edited = mine.text.replace("Offer a demo", "Suggest a demo");
        match s.save(DEMO, &edited, Some(&mine.hash)).unwrap() {
            Saved::Conflict { disk } => assert!(disk.text.contains("Propose a demo")),
            other => panic!("expected a conflict, got {other:?}"),
        }
        assert!(s.read(DEMO).unwrap().text.contains("Propose a demo"));
        // The user chooses to keep theirs.
        assert!(matches!(
            s.save(DEMO, &edited, None).unwrap(),
            Saved::Saved { .. }
        ));
        assert!(s.read(DEMO).unwrap().text.contains("Suggest a demo"));
        assert!(!s
            .root()
            .join("public/response_ending/demo_offer/.SKILL.md.studio.tmp")
            .exists());
    }

    #[test]
    fn skills_are_created_renamed_and_deleted() {
        let (_d, s) = sample();
        let file = s.create_skill("public/assistant", "farewell").unwrap();
        assert!(s
            .overview()
            .unwrap()
            .skills
            .iter()
            .any(|r| r.name == "farewell"));
        let renamed = s.rename_skill(&file, "goodbye").unwrap();
        assert_eq!(renamed, "public/assistant/goodbye/SKILL.md");
        assert!(s.read(&renamed).unwrap().text.contains("name: goodbye"));
        s.delete_skill(&renamed).unwrap();
        assert!(!s
            .overview()
            .unwrap()
            .skills
            .iter()
            .any(|r| r.name == "goodbye"));
        assert_eq!(
            s.create_skill("public/assistant", "greeting")
                .unwrap_err()
                .kind,
            "request"
        );
    }

    fn change(client: &str, skill: &str, value: Option<bool>) -> ToggleChange {
        ToggleChange {
            client: client.into(),
            skill: skill.into(),
            value,
        }
    }

    #[test]
    fn a_bulk_toggle_writes_each_client_file_once_and_refuses_a_typo_whole() {
        let (_d, s) = sample();
        let t = s.toggles().unwrap();
        // Skills every client has (a client's own skill is unknown to the others).
        let global: Vec<&String> = t
            .skills
            .iter()
            .enumerate()
            .filter(|(i, _)| t.cells.iter().all(|row| row.as_bytes()[*i] != b'-'))
            .map(|(_, k)| k)
            .take(3)
            .collect();
        let changes: Vec<ToggleChange> = t
            .clients
            .iter()
            .flat_map(|c| global.iter().map(move |k| change(c, k, Some(false))))
            .collect();
        assert_eq!(s.set_toggles(&changes).unwrap(), t.clients.len());
        let after = s.toggles().unwrap();
        for (ci, _) in after.clients.iter().enumerate() {
            for k in &global {
                let ki = after.skills.iter().position(|x| x == *k).unwrap();
                assert_eq!(after.cells[ci].as_bytes()[ki], b't');
            }
        }
        let mut with_typo = changes.clone();
        with_typo.iter_mut().for_each(|c| c.value = Some(true));
        with_typo.push(change(&t.clients[0], "no-such-skill", Some(true)));
        assert_eq!(s.set_toggles(&with_typo).unwrap_err().kind, "invalid");
        assert_eq!(
            s.toggles().unwrap(),
            after,
            "a refused bulk edit writes nothing"
        );
    }

    #[test]
    fn the_toggle_matrix_shows_the_cascade_and_edits_client_yaml() {
        let (_d, s) = sample();
        let t = s.toggles().unwrap();
        let cell = |t: &Toggles, c: &str, k: &str| {
            let ci = t.clients.iter().position(|x| x == c).unwrap();
            let ki = t.skills.iter().position(|x| x == k).unwrap();
            t.cells[ci].as_bytes()[ki] as char
        };
        assert_eq!(cell(&t, "example.com", "demo_offer"), 't');
        assert_eq!(cell(&t, "augment.org", "content_gating"), 'e');
        assert_eq!(cell(&t, "augment.org", "pricing"), 'D');
        assert_eq!(cell(&t, "augment.org", "pricing-uk"), '-');
        let file = s.root().join("clients/augment.org/client.yaml");
        let before = std::fs::read_to_string(&file).unwrap();
        s.set_toggles(&[change("augment.org", "content_gating", Some(true))])
            .unwrap();
        // Lossless: every comment and every other line of client.yaml is still there.
        let after = std::fs::read_to_string(&file).unwrap();
        for line in before.lines().filter(|l| !l.contains("content_gating")) {
            assert!(after.contains(line), "lost {line:?}:\n{after}");
        }
        s.set_toggles(&[change("example.com", "demo_offer", None)])
            .unwrap();
        let t = s.toggles().unwrap();
        assert_eq!(cell(&t, "augment.org", "content_gating"), 'T');
        assert_eq!(cell(&t, "example.com", "demo_offer"), 'E');
        assert!(s
            .overview()
            .unwrap()
            .diagnostics
            .iter()
            .all(|d| d.severity == "warning"));
    }

    #[test]
    fn skills_export_to_packages_and_import_back() {
        let (_d, s) = sample();
        let zip = s
            .export_package("public/tools/mermaid-diagram/SKILL.md")
            .unwrap();
        assert!(zip.ends_with(".skillc/packages/mermaid-diagram.zip"));
        s.delete_skill("public/tools/mermaid-diagram/SKILL.md")
            .unwrap();
        let file = s.import_package(&zip).unwrap();
        assert_eq!(file, "mermaid-diagram/SKILL.md");
        assert!(s
            .read("mermaid-diagram/package.yaml")
            .unwrap()
            .text
            .contains("untrusted"));
        assert_eq!(s.import_package(&zip).unwrap_err().kind, "request");
    }

    #[test]
    fn build_preview_and_diff_show_what_a_client_sees() {
        let (_d, s) = sample();
        assert!(s.build(None).unwrap().written);
        let ignore = s.root().join(".skillc/.gitignore");
        assert_eq!(std::fs::read_to_string(ignore).unwrap(), "*\n");
        let req = PreviewRequest {
            client: "hyperline.co".into(),
            selected: vec!["competitors".into()],
            format: "markdown".into(),
            ..PreviewRequest::default()
        };
        let p = s.preview(&req).unwrap();
        assert!(p
            .prompt
            .skills
            .iter()
            .any(|k| k.name == "competitors" && k.resolved == "competitors_battlecard"));
        assert!(p.catalog.text.contains("| SK1 ") && !p.catalog_kept);
        // The page names the catalog it shows: while it is the same, it is not sent again.
        let known = PreviewRequest {
            known_catalog: p.catalog_digest.clone(),
            ..req.clone()
        };
        let again = s.preview(&known).unwrap();
        assert!(again.catalog_kept && again.catalog.text.is_empty());
        assert_eq!(
            (again.catalog_digest, again.catalog.tokens),
            (p.catalog_digest.clone(), p.catalog.tokens)
        );
        s.set_toggles(&[change("hyperline.co", "support", Some(false))])
            .unwrap();
        s.build(None).unwrap();
        let changed = s.preview(&known).unwrap();
        assert!(!changed.catalog_kept && !changed.catalog.text.is_empty());
        assert_ne!(changed.catalog_digest, p.catalog_digest);
        let d = s.diff().unwrap();
        assert!(d
            .bundles
            .iter()
            .any(|b| b.client == "hyperline.co" && b.removed == ["public.support"]));
        let p = s
            .preview(&PreviewRequest {
                selected: vec!["support".into()],
                ..req
            })
            .unwrap();
        assert_eq!(p.prompt.removed[0].reason, "unknown");
    }
}

#[cfg(test)]
mod own_save_tests {
    use super::*;

    #[test]
    fn the_watchers_report_of_a_save_is_the_studios_own_until_someone_else_writes() {
        let (_d, s) = tests::sample();
        let rel = "public/assistant/greeting/SKILL.md";
        let path = s.root().join(rel);
        let text = std::fs::read_to_string(&path).unwrap() + "\nSaved here.\n";
        let disk = s.disk();
        assert!(!disk.is_own_save(rel, &path), "not saved by the studio yet");
        assert!(matches!(
            s.save(rel, &text, None).unwrap(),
            Saved::Saved { .. }
        ));
        assert!(disk.is_own_save(rel, &path));
        assert!(
            disk.is_own_save(rel, &path),
            "a save reported twice is still the studio's"
        );
        std::fs::write(&path, text + "Someone else.\n").unwrap();
        assert!(
            !disk.is_own_save(rel, &path),
            "another writer's change is news"
        );
    }
}

#[cfg(test)]
mod form_tests {
    use super::*;

    #[test]
    fn a_skill_round_trips_through_the_form() {
        let text = "---\nname: a\ndescription: d\ntrigger_examples:\n- one\n- two\npriority: 2\n---\nBody {{ x }}\n";
        let parts = decompose(text);
        assert_eq!(parts.error, None);
        assert_eq!(
            parts.fields[0],
            ("name".to_string(), serde_json::json!("a"))
        );
        assert_eq!(parts.fields[2].1, serde_json::json!(["one", "two"]));
        assert_eq!(format!("{}{}", parts.head, parts.body), text);
    }

    #[test]
    fn a_form_edit_keeps_every_other_line() {
        // Seed 000 annotates its trigger examples with comments; a form edit of another field
        // must leave them, the key order and the quoting as they are.
        let text = "---\r\nname: demo   # shown to buyers\r\ndescription: 'Offer a demo'\r\ntrigger_examples:\r\n  - \"Can I see it?\"   # the classic\r\npriority: 1\r\n---\r\nBody\r\n";
        let out = set_field(text, "priority", Some(&serde_json::json!(3))).unwrap();
        assert_eq!(out, text.replace("priority: 1", "priority: 3"));
        let out = set_field(
            text,
            "description",
            Some(&serde_json::json!("Book a demo: now")),
        )
        .unwrap();
        assert_eq!(out, text.replace("'Offer a demo'", "'Book a demo: now'"));
        let out = set_field(text, "emoji", None);
        assert!(out.is_err(), "removing an absent field is an error");
        let out = set_field(text, "priority", None).unwrap();
        assert_eq!(out, text.replace("priority: 1\r\n", ""));
    }

    #[test]
    fn an_unreadable_frontmatter_keeps_the_text() {
        let parts = decompose("no frontmatter");
        assert!(parts.error.is_some());
        assert_eq!(parts.body, "no frontmatter");
    }
}
