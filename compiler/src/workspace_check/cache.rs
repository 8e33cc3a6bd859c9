//! `skillc check`'s last result, kept in `.skillc/check-cache.json` as ruff keeps its own: a
//! check of the same files, by the same skillc with the same options, prints the kept result
//! without parsing anything.
//!
//! Files are compared by content hash. A file is read and hashed again unless its stamp
//! (device, inode, size, change times) is the one it had when it was hashed and it had settled
//! by then (git's index decides the same way). A result is kept only when no input changed
//! while it was computed, so a kept result is always the result of the files it is kept for.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::CheckOptions;
use crate::diagnostic::{Diagnostic, WholeDiagnostic};
use crate::discover::fsio::{self, FileContent, RawFile, Stamp};
use crate::parse::load;

/// Where the cache lives, inside the workspace (a folder the walk skips).
pub(crate) const CACHE_FILE: &str = ".skillc/check-cache.json";

/// A check's result as `skillc check` prints it.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// Every diagnostic, sorted, with the profile applied.
    pub diagnostics: Vec<Diagnostic>,
    /// The SKILL.md of every skill loaded.
    pub skill_files: Vec<String>,
    /// The result was the kept one: nothing was parsed.
    pub cached: bool,
}

impl From<super::CheckReport> for Checked {
    /// A fresh check's result.
    fn from(report: super::CheckReport) -> Self {
        Checked {
            skill_files: report
                .workspace
                .skills
                .iter()
                .map(|s| s.file.clone())
                .collect(),
            diagnostics: report.diagnostics,
            cached: false,
        }
    }
}

/// Every input file as last hashed: relative path → (stamp, content hash).
type Hashes = BTreeMap<String, (Stamp, String)>;

/// The inputs' fingerprint and the hashes it was made from.
#[derive(Debug, PartialEq)]
struct Fingerprint {
    /// Hash of the tool, the options, every file's path and content, and the walk's findings.
    key: String,
    /// Nanoseconds since the epoch just before the files were stamped.
    at: i128,
    files: Hashes,
}

/// The cache file's content.
#[derive(Serialize, Deserialize)]
struct Stored {
    key: String,
    at: i128,
    files: Hashes,
    skill_files: Vec<String>,
    diagnostics: Vec<WholeDiagnostic>,
}

/// [`super::check`] through the cache: the kept result when every input is as it was, else
/// a fresh check, kept for next time when the workspace can be written to.
pub fn check(root: &Path, options: &CheckOptions) -> Result<Checked, fsio::Error> {
    let stored = read_stored(root);
    let previous = stored.as_ref().map(|s| (&s.files, s.at));
    let before = fingerprint(root, options, previous)?;
    if let Some(s) = stored.filter(|s| s.key == before.key) {
        let restored: Option<Vec<Diagnostic>> = s
            .diagnostics
            .into_iter()
            .map(WholeDiagnostic::restore)
            .collect();
        if let Some(diagnostics) = restored {
            return Ok(Checked {
                diagnostics,
                skill_files: s.skill_files,
                cached: true,
            });
        }
    }
    let checked = Checked::from(super::check(root, options)?);
    // Kept only if no input moved while it was checked.
    let after = fingerprint(root, options, Some((&before.files, before.at)))?;
    if after.key == before.key && after.files == before.files {
        write_stored(root, after, &checked);
    }
    Ok(checked)
}

/// The fingerprint of the files a check of `root` reads, hashing only the files `previous`
/// (hashes and when they were taken) cannot vouch for.
fn fingerprint(
    root: &Path,
    options: &CheckOptions,
    previous: Option<(&Hashes, i128)>,
) -> Result<Fingerprint, fsio::Error> {
    let at = fsio::now_ns();
    let boundary = fsio::canonical_root(root)?;
    let mut listed = fsio::list_tree(root, "", &boundary)?;
    for (prefix, dir) in roots_read_apart(root, &listed) {
        if let Ok(canonical) = dir.canonicalize() {
            if let Ok(more) = fsio::list_tree(&dir, &prefix, &canonical) {
                listed.found.extend(more.found);
                listed.diagnostics.extend(more.diagnostics);
                listed.hidden_skills.extend(more.hidden_skills);
            }
        }
    }
    let hashed: Vec<(String, Option<Stamp>, String)> = listed
        .found
        .par_iter()
        .map(|(rel, path)| {
            let stamp = Stamp::read(path);
            let known = previous.and_then(|(files, taken)| {
                let (s, h) = files.get(rel)?;
                (Some(*s) == stamp && s.settled_before(taken)).then(|| h.clone())
            });
            let read = || fsio::read_file(path, !crate::discover::fsio::large::may_have_role(rel));
            let hash = known.unwrap_or_else(|| content_hash(&read()));
            (rel.clone(), stamp, hash)
        })
        .collect();
    let mut h = Sha256::new();
    // The running program's own stamp too: a rebuilt skillc of the same version may check
    // differently.
    let program = std::env::current_exe().ok().and_then(|p| Stamp::read(&p));
    h.update(format!(
        "skillc {} {program:?} strict={}\0",
        env!("CARGO_PKG_VERSION"),
        options.strict_spec
    ));
    for (rel, _, hash) in &hashed {
        h.update(format!("{rel}\0{hash}\0"));
    }
    for d in &listed.diagnostics {
        h.update(format!("{}\0{}\0{}\0", d.code, d.file, d.message));
    }
    for folder in &listed.hidden_skills {
        h.update(format!("{folder}\0"));
    }
    // A translation's staleness may come from git history (W121), which moves with commits
    // that change no file here: the commit is part of the inputs then.
    if listed.found.iter().any(|(rel, _)| is_translation(rel)) {
        let head = crate::git::head(root).map(|h| h.commit);
        h.update(format!("git {head:?}\0"));
    }
    let files = hashed
        .into_iter()
        .filter_map(|(rel, stamp, hash)| Some((rel, (stamp?, hash))))
        .collect();
    Ok(Fingerprint {
        key: format!("{:x}", h.finalize()),
        at,
        files,
    })
}

/// Whether `rel` names a translation (`SKILL.<locale>.md`), whatever its locale.
fn is_translation(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let locale = (name
        .strip_prefix("SKILL.")
        .or_else(|| name.strip_prefix("skill.")))
    .and_then(|rest| rest.strip_suffix(".md"));
    locale.is_some_and(|l| !l.is_empty())
}

/// The declared roots the walk does not read (outside the workspace or hidden) and the stored
/// copies of `external:` entries: their prefixes and folders, from `workspace.yaml` as the
/// load reads it.
fn roots_read_apart(root: &Path, listed: &fsio::Listed) -> Vec<(String, std::path::PathBuf)> {
    let Some((rel, path)) = listed.found.iter().find(|(rel, _)| rel == "workspace.yaml") else {
        return Vec::new();
    };
    let file = RawFile {
        rel: rel.clone(),
        content: fsio::read_capped(path),
    };
    let config = load::peek_config(&[file]);
    let roots = (config.roots.values())
        .map(|path| (load::root_prefix(path), root.join(path)))
        .filter(|(prefix, _)| load::read_apart(prefix));
    // The stored copies of outside repositories: a file edited there changes the result.
    let stored = (config.external.iter()).map(|e| {
        let dir = crate::model::external::store_dir(root, &e.into);
        (format!("{}/", e.into), dir)
    });
    roots.chain(stored).collect()
}

/// A file's content as the fingerprint sees it: its hash, or what kept it from being read.
fn content_hash(content: &FileContent) -> String {
    match content {
        FileContent::Bytes(bytes) => crate::digest::hash(bytes),
        FileContent::Large(large) => crate::digest::hex(&large.sha256),
        FileContent::TooLarge(size) => format!("too large: {size}"),
        FileContent::Unreadable(why) => format!("unreadable: {why}"),
        FileContent::Artifact => "artifact".to_string(),
    }
}

/// Whether the cache's path goes through a symbolic link (`.skillc` linked elsewhere, as a
/// cloned repository may commit it): such a cache is neither read nor written.
fn linked(root: &Path) -> bool {
    fsio::output::linked_part(root, Path::new(CACHE_FILE)).is_some()
}

fn read_stored(root: &Path) -> Option<Stored> {
    if linked(root) {
        return None;
    }
    let text = std::fs::read(root.join(CACHE_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Writes the cache beside a `.gitignore` of `*` (as the studio's `.skillc/`), atomically;
/// a workspace that cannot be written to is checked every time, silently.
fn write_stored(root: &Path, fingerprint: Fingerprint, checked: &Checked) {
    let dir = root.join(".skillc");
    if linked(root) || std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    fsio::output::write_new(&dir.join(".gitignore"), b"*\n");
    let stored = Stored {
        key: fingerprint.key,
        at: fingerprint.at,
        files: fingerprint.files,
        skill_files: checked.skill_files.clone(),
        diagnostics: checked
            .diagnostics
            .iter()
            .map(WholeDiagnostic::of)
            .collect(),
    };
    let Ok(json) = serde_json::to_vec(&stored) else {
        return;
    };
    let tmp = dir.join(format!(".check-cache.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, json).is_err() || std::fs::rename(&tmp, root.join(CACHE_FILE)).is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_result_is_served_until_an_input_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let skill = root.join("greet/SKILL.md");
        std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
        std::fs::write(
            &skill,
            "---\nname: greet\ndescription: Greets.\n---\nHello.\n",
        )
        .unwrap();
        let options = CheckOptions::default();
        let first = check(root, &options).unwrap();
        assert!(!first.cached);
        assert_eq!(first.skill_files, ["greet/SKILL.md"]);
        let again = check(root, &options).unwrap();
        assert!(
            again.cached,
            "the second check of the same files is the kept one"
        );
        assert_eq!(again.diagnostics, first.diagnostics);
        let strict = CheckOptions {
            strict_spec: true,
            ..CheckOptions::default()
        };
        assert!(
            !check(root, &strict).unwrap().cached,
            "other options, another result"
        );
        std::fs::write(&skill, "---\nname: greet\n---\nHello.\n").unwrap();
        let edited = check(root, &options).unwrap();
        assert!(!edited.cached);
        assert_ne!(edited.diagnostics, first.diagnostics);
    }
}
