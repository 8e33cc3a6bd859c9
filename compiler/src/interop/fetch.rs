//! `skillc fetch`: pins each `workspace.yaml` `external:` entry to a commit in `skillc.lock` and
//! stores its files under `.skillc/external/`, with the `git` command (the user's configuration
//! and credentials apply; no git library to disagree with it). An entry the lock already pins,
//! whose stored copy is intact, needs no network. Every entry is fetched and checked before
//! anything is replaced: on any failure the lock and the stored copies stay as they were.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::discover::fsio::{self, FileContent};
use crate::model::external::{store_dir, ExternalSource, Lock, Locked, LOCK_FILE};

/// Why a fetch failed (nothing was changed).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

/// Which pins to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// None: entries the lock pins keep their commit.
    None,
    /// Every entry's.
    All,
    /// The entry whose `into` is this.
    Only(String),
}

/// What a fetch did to one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// Its `into`.
    pub into: String,
    /// The commit pinned.
    pub commit: String,
    /// The commit pinned before, when it changed (`None`: new or unchanged).
    pub moved_from: Option<String>,
    /// Files brought in.
    pub files: usize,
    /// Whether the network was used for it.
    pub fetched: bool,
}

/// Fetches the `external:` entries of the workspace at `root` and writes `skillc.lock`.
pub fn fetch(
    root: &Path,
    sources: &[ExternalSource],
    update: &Update,
) -> Result<Vec<Fetched>, Error> {
    if let Update::Only(name) = update {
        if !sources.iter().any(|s| &s.into == name) {
            let known: Vec<&str> = sources.iter().map(|s| s.into.as_str()).collect();
            return Err(Error(format!(
                "no `external` entry has `into: {name}` (entries: {})",
                known.join(", ")
            )));
        }
    }
    let lock_path = root.join(LOCK_FILE);
    let old = match std::fs::read_to_string(&lock_path) {
        Ok(text) => Lock::parse(&text).map_err(|e| Error(format!("{LOCK_FILE}: {e}")))?,
        Err(_) => Lock::default(),
    };
    let base = root.join(".skillc").join("external");
    std::fs::create_dir_all(&base)
        .map_err(|e| Error(format!("cannot create {}: {e}", base.display())))?;
    // The stored copies and mirrors stay out of the workspace's repository (skillc.lock is
    // what is committed), as the rest of `.skillc/`.
    let ignore = root.join(".skillc").join(".gitignore");
    if !ignore.exists() {
        let _ = std::fs::write(&ignore, "*\n");
    }
    // Stage every entry first.
    let mut staged: Vec<(Locked, Option<PathBuf>, Fetched)> = Vec::new();
    let result = sources.iter().try_for_each(|source| {
        let moving = matches!(update, Update::All) || update == &Update::Only(source.into.clone());
        let pinned = old
            .entry(&source.into)
            .filter(|l| l.pins(source) && !moving);
        let staged_one = stage(root, &base, source, pinned, old.entry(&source.into))?;
        staged.push(staged_one);
        Ok(())
    });
    if let Err(e) = result {
        for (_, tmp, _) in &staged {
            if let Some(t) = tmp {
                let _ = std::fs::remove_dir_all(t);
            }
        }
        return Err(e);
    }
    // Then put each in place, and the lock last.
    let mut lock = Lock {
        version: 1,
        external: Vec::new(),
    };
    let mut report = Vec::new();
    for (locked, tmp, fetched) in staged {
        if let Some(tmp) = tmp {
            replace_dir(&tmp, &store_dir(root, &locked.into))?;
        }
        lock.external.push(locked);
        report.push(fetched);
    }
    // Entries no longer in workspace.yaml lose their stored copy.
    for gone in old
        .external
        .iter()
        .filter(|o| lock.entry(&o.into).is_none())
    {
        let _ = std::fs::remove_dir_all(store_dir(root, &gone.into));
    }
    write_atomically(&lock_path, lock.to_text().as_bytes())?;
    Ok(report)
}

/// One entry: its pin, a staged copy of its files when the stored one must be replaced, and
/// what was done.
fn stage(
    root: &Path,
    base: &Path,
    source: &ExternalSource,
    pinned: Option<&Locked>,
    before: Option<&Locked>,
) -> Result<(Locked, Option<PathBuf>, Fetched), Error> {
    let store = store_dir(root, &source.into);
    if let Some(locked) = pinned {
        if digests(&store).ok().as_ref() == Some(&locked.files) {
            let fetched = Fetched {
                into: source.into.clone(),
                commit: locked.commit.clone(),
                moved_from: None,
                files: locked.files.len(),
                fetched: false,
            };
            return Ok((locked.clone(), None, fetched));
        }
    }
    // A pinned commit the mirror already has needs no network.
    let known = mirror_dir(base, &source.git);
    let mirror = match pinned {
        Some(locked) if has_commit(&known, &locked.commit) => known,
        _ => mirror(base, &source.git)?,
    };
    let commit = match pinned {
        Some(locked) => {
            has_commit(&mirror, &locked.commit).then(|| locked.commit.clone()).ok_or_else(|| {
                Error(format!(
                    "`{}`: the commit {} that {LOCK_FILE} pins no longer exists in {}; `skillc fetch --update {}` pins what `{}` names now",
                    source.into, locked.commit, source.git, source.into, source.rev
                ))
            })?
        }
        None => resolve(&mirror, source)?,
    };
    let tmp = base.join(format!(
        ".staged-{}-{}",
        source.into.replace('/', "__"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    extract(&mirror, &commit, source, &tmp).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&tmp);
    })?;
    let files = digests(&tmp).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&tmp);
    })?;
    let fetched = Fetched {
        into: source.into.clone(),
        commit: commit.clone(),
        moved_from: before.map(|b| b.commit.clone()).filter(|c| *c != commit),
        files: files.len(),
        fetched: true,
    };
    let locked = Locked {
        into: source.into.clone(),
        git: source.git.clone(),
        rev: source.rev.clone(),
        path: source.path.clone(),
        commit,
        files,
    };
    Ok((locked, Some(tmp), fetched))
}

/// Runs `git` with `args`; its stdout, or its last words on stderr.
fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .args(args)
        // A missing credential fails rather than waiting for someone to type it.
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| format!("cannot run `git` ({e}); install git to fetch outside skills"))?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message");
    Err(last.trim().to_string())
}

/// Where the mirror of the repository at `url` is kept.
fn mirror_dir(base: &Path, url: &str) -> PathBuf {
    base.join(".mirrors")
        .join(&crate::digest::hash(url.as_bytes())[..16])
}

/// A mirror of the repository at `url`, made or brought up to date (tags moved included).
fn mirror(base: &Path, url: &str) -> Result<PathBuf, Error> {
    let dir = mirror_dir(base, url);
    let d = dir.to_string_lossy().into_owned();
    let done = if dir.join("HEAD").exists() {
        git(&[
            "-C",
            &d,
            "fetch",
            "--quiet",
            "--prune",
            "--force",
            "origin",
            "+refs/*:refs/*",
        ])
    } else {
        let _ = std::fs::remove_dir_all(&dir);
        git(&["clone", "--quiet", "--mirror", "--", url, &d])
    };
    done.map(|_| dir)
        .map_err(|why| Error(format!("cannot reach {url}: {why}")))
}

fn has_commit(mirror: &Path, commit: &str) -> bool {
    let m = mirror.to_string_lossy();
    git(&["-C", &m, "cat-file", "-e", &format!("{commit}^{{commit}}")]).is_ok()
}

/// The commit `source.rev` names in the mirror: a tag, a branch or a commit.
fn resolve(mirror: &Path, source: &ExternalSource) -> Result<String, Error> {
    let m = mirror.to_string_lossy();
    let rev = &source.rev;
    let candidates = [
        format!("refs/tags/{rev}"),
        format!("refs/heads/{rev}"),
        rev.clone(),
    ];
    for c in candidates {
        if let Ok(out) = git(&[
            "-C",
            &m,
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{c}^{{commit}}"),
        ]) {
            return Ok(String::from_utf8_lossy(&out).trim().to_string());
        }
    }
    Err(Error(format!(
        "`{}`: `{rev}` names no tag, branch or commit of {}",
        source.into, source.git
    )))
}

/// Writes the files of `source.path` at `commit` into `dir` (a new folder): regular files
/// only, never a link, never a path leaving `dir`.
fn extract(mirror: &Path, commit: &str, source: &ExternalSource, dir: &Path) -> Result<(), Error> {
    let m = mirror.to_string_lossy();
    let tree = match source.path.as_str() {
        "" => commit.to_string(),
        p => format!("{commit}:{p}"),
    };
    let zip = git(&["-C", &m, "archive", "--format=zip", &tree]).map_err(|why| {
        Error(format!(
            "`{}`: `{}` is not a folder of {} at {}: {why}",
            source.into, source.path, source.git, source.rev
        ))
    })?;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(|e| {
        Error(format!(
            "`{}`: git archive gave no readable zip: {e}",
            source.into
        ))
    })?;
    std::fs::create_dir_all(dir)
        .map_err(|e| Error(format!("cannot create {}: {e}", dir.display())))?;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| Error(format!("`{}`: {e}", source.into)))?;
        let is_link = entry.unix_mode().is_some_and(|m| m & 0o170000 == 0o120000);
        let Some(rel) = entry.enclosed_name() else {
            continue;
        };
        if entry.is_dir() || is_link {
            continue;
        }
        let path = dir.join(rel);
        let write = |entry: &mut dyn std::io::Read| -> std::io::Result<()> {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let mut f = std::fs::File::create(&path)?;
            std::io::copy(entry, &mut f).map(|_| ())
        };
        write(&mut entry).map_err(|e| Error(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// The `sha256:` digest of every file of `dir` a workspace load reads (hidden files apart).
fn digests(dir: &Path) -> Result<BTreeMap<String, String>, Error> {
    let canonical = dir
        .canonicalize()
        .map_err(|e| Error(format!("{}: {e}", dir.display())))?;
    let (files, _) = fsio::read_tree(dir, "", &canonical).map_err(|e| Error(e.to_string()))?;
    let mut out = BTreeMap::new();
    for f in files {
        let digest = match &f.content {
            FileContent::Bytes(b) => crate::digest::hash(b),
            FileContent::Large(l) => crate::digest::hex(&l.sha256),
            _ => return Err(Error(format!("{}/{} cannot be read", dir.display(), f.rel))),
        };
        out.insert(f.rel, format!("sha256:{digest}"));
    }
    Ok(out)
}

/// Puts the folder `new` at `place`, the old one (if any) removed after.
fn replace_dir(new: &Path, place: &Path) -> Result<(), Error> {
    let aside = place.with_extension(format!("old-{}", std::process::id()));
    let had = place.exists();
    if had {
        std::fs::rename(place, &aside)
            .map_err(|e| Error(format!("cannot replace {}: {e}", place.display())))?;
    }
    std::fs::rename(new, place)
        .map_err(|e| Error(format!("cannot put {} in place: {e}", place.display())))?;
    if had {
        let _ = std::fs::remove_dir_all(&aside);
    }
    Ok(())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    crate::discover::fsio::output::replace(path, bytes)
        .map_err(|e| Error(format!("cannot write {}: {e}", path.display())))
}
