//! `skillc fetch`: pins each `workspace.yaml` `external:` entry to a commit in `skillc.lock` and
//! stores its files under `.skillc/external/`, with the `git` command (the user's configuration
//! and credentials apply; no git library to disagree with it). An entry the lock already pins,
//! whose stored copy is intact, needs no network. Every entry is fetched and checked before
//! anything is replaced: on any failure the lock and the stored copies stay as they were. An
//! entry the lock pins that must be fetched again (a fresh clone) must give exactly the files
//! the lock lists; only `--update` changes them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::discover::fsio::{self, FileContent};
use crate::model::external::{
    short, store_dir, store_name, ExternalSource, Lock, Locked, LOCK_FILE,
};

mod extract;
mod mirror;

use mirror::{git, has_commit, mirror, mirror_dir, ours, resolve};

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

/// Reads `skillc.lock` at the workspace's root: `None` when there is none. Only a regular
/// file of at most [`fsio::MAX_FILE_BYTES`] is read (a named pipe would be waited on forever,
/// a link to `/dev/zero` read without end); what `fetch` writes stays within that size.
pub fn read_lock(root: &Path) -> Result<Option<Lock>, Error> {
    let path = root.join(LOCK_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let bytes = match fsio::read_capped(&path) {
        FileContent::Bytes(b) => b,
        FileContent::TooLarge(size) => {
            return Err(Error(format!(
                "{LOCK_FILE} is {size} bytes, over the {} byte limit",
                fsio::MAX_FILE_BYTES
            )))
        }
        FileContent::Unreadable(why) => {
            return Err(Error(format!("{LOCK_FILE} cannot be read: {why}")))
        }
        _ => return Err(Error(format!("{LOCK_FILE} is not a lock file"))),
    };
    Lock::parse(&String::from_utf8_lossy(&bytes))
        .map(Some)
        .map_err(|e| Error(format!("{LOCK_FILE}: {e}")))
}

/// Fetches the `external:` entries of the workspace at `root` and writes `skillc.lock`.
pub fn fetch(
    root: &Path,
    sources: &[ExternalSource],
    update: &Update,
) -> Result<Vec<Fetched>, Error> {
    fetch_admitting(root, sources, update, false)
}

/// [`fetch`]; an untrusted entry whose new files have content-safety findings at
/// `REFUSED_AT` or above is refused (nothing is
/// written) unless `findings` admits them.
pub fn fetch_admitting(
    root: &Path,
    sources: &[ExternalSource],
    update: &Update,
    findings: bool,
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
    let old = read_lock(root)?.unwrap_or_default();
    refuse_links(root, sources, &old)?;
    let base = root.join(".skillc").join("external");
    std::fs::create_dir_all(&base)
        .map_err(|e| Error(format!("cannot create {}: {e}", base.display())))?;
    // The stored copies and mirrors stay out of the workspace's repository (skillc.lock is
    // what is committed), as the rest of `.skillc/`.
    fsio::output::write_new(&root.join(".skillc").join(".gitignore"), b"*\n");
    let staged = stage_all(root, &base, sources, update, &old)?;
    if !findings {
        if let Err(e) = refuse_unsafe(&staged, sources) {
            discard(&staged);
            return Err(e);
        }
    }
    let lock = Lock {
        version: 1,
        external: staged.iter().map(|(locked, _, _)| locked.clone()).collect(),
    };
    let text = lock.to_text();
    if text.len() as u64 > fsio::MAX_FILE_BYTES {
        discard(&staged);
        return Err(Error(format!(
            "{LOCK_FILE} would be {} bytes, over the {} bytes check reads: fetch fewer files (`path:`)",
            text.len(),
            fsio::MAX_FILE_BYTES
        )));
    }
    // Then put each in place, and the lock last.
    let mut report = Vec::new();
    for (locked, tmp, fetched) in staged {
        if let Some(tmp) = tmp {
            replace_dir(&tmp, &store_dir(root, &locked.into))?;
        }
        report.push(fetched);
    }
    // Entries no longer in workspace.yaml lose their stored copy, unless an entry kept has
    // the same stored folder (`into: a__b` renamed `into: a/b`): that is its new copy.
    let kept = |into: &str| (lock.external.iter()).any(|l| store_name(&l.into) == store_name(into));
    for gone in old.external.iter().filter(|o| !kept(&o.into)) {
        let _ = std::fs::remove_dir_all(store_dir(root, &gone.into));
    }
    write_atomically(&root.join(LOCK_FILE), text.as_bytes())?;
    Ok(report)
}

/// Refuses the staged copies of untrusted entries that hold content-safety findings at
/// `REFUSED_AT` or above, listing them: what a build would withhold never lands.
fn refuse_unsafe(staged: &[Staged], sources: &[ExternalSource]) -> Result<(), Error> {
    let at = crate::interop::package::REFUSED_AT;
    for (locked, tmp, _) in staged {
        let trusted = sources.iter().any(|s| s.into == locked.into && s.trust);
        let Some(dir) = tmp.as_deref().filter(|_| !trusted) else {
            continue;
        };
        let report = crate::check(dir, &crate::CheckOptions::default())
            .map_err(|e| Error(format!("cannot scan what `{}` brought: {e}", locked.into)))?;
        let found: Vec<crate::Diagnostic> = (report.diagnostics.into_iter())
            .filter(|d| d.safety.is_some_and(|l| l >= at))
            .collect();
        if !found.is_empty() {
            let shown = crate::render_text(&found, &locked.into);
            return Err(Error(format!(
                "{shown}refused `{}`: {} content-safety findings at high or critical above \
                 (an agent given these skills could be turned against its user); read them, \
                 then `fetch --accept-findings` to take them untrusted, or set `trust: true` \
                 on the entry; nothing was written",
                locked.into,
                found.len()
            )));
        }
    }
    Ok(())
}

/// Stages every entry (see [`stage`]); on a failure, removes what was staged.
fn stage_all(
    root: &Path,
    base: &Path,
    sources: &[ExternalSource],
    update: &Update,
    old: &Lock,
) -> Result<Vec<Staged>, Error> {
    let mut staged: Vec<Staged> = Vec::new();
    let result = sources.iter().try_for_each(|source| {
        let moving = matches!(update, Update::All) || update == &Update::Only(source.into.clone());
        let pinned = old
            .entry(&source.into)
            .filter(|l| l.pins(source) && !moving);
        let staged_one = stage(root, base, source, pinned, old.entry(&source.into))?;
        staged.push(staged_one);
        Ok(())
    });
    if let Err(e) = result {
        discard(&staged);
        return Err(e);
    }
    Ok(staged)
}

/// Removes the staged copies (a fetch that failed).
fn discard(staged: &[Staged]) {
    for (_, tmp, _) in staged {
        if let Some(t) = tmp {
            let _ = std::fs::remove_dir_all(t);
        }
    }
}

/// Refuses a workspace where a path fetch writes or removes goes through a symbolic link
/// (`.skillc`, `.skillc/external`, a mirror, a stored copy, `skillc.lock`): a cloned
/// repository can commit one pointing anywhere. Checked before anything is written.
fn refuse_links(root: &Path, sources: &[ExternalSource], old: &Lock) -> Result<(), Error> {
    let base = Path::new(".skillc").join("external");
    let mut paths = vec![
        base.join(".mirrors"),
        Path::new(".skillc").join(".gitignore"),
    ];
    for s in sources {
        paths.push(base.join(store_name(&s.into)));
        paths.push(mirror_dir(&base, &s.git));
    }
    paths.extend(old.external.iter().map(|o| base.join(store_name(&o.into))));
    paths.push(PathBuf::from(LOCK_FILE));
    match paths.iter().find_map(|p| fsio::output::linked_part(root, p)) {
        Some(link) => Err(Error(format!(
            "`{}` is a symbolic link: skillc writes and removes what it keeps under `.skillc/` (and {LOCK_FILE}) only in real folders of the workspace; remove the link (nothing was written or removed)",
            link.display()
        ))),
        None => Ok(()),
    }
}

/// A staged entry: its pin, its files in a new folder when the stored copy must be replaced,
/// and what was done.
type Staged = (Locked, Option<PathBuf>, Fetched);

/// One entry: its pin, a staged copy of its files when the stored one must be replaced, and
/// what was done. A pinned entry fetched again must give exactly the files the lock lists.
fn stage(
    root: &Path,
    base: &Path,
    source: &ExternalSource,
    pinned: Option<&Locked>,
    before: Option<&Locked>,
) -> Result<Staged, Error> {
    let store = store_dir(root, &source.into);
    if let Some(locked) = pinned {
        if extract::digests(&store).ok().as_ref() == Some(&locked.files) {
            let fetched = Fetched {
                into: source.into.clone(),
                commit: locked.commit.clone(),
                moved_from: None,
                files: locked.files.len(),
                fetched: false,
            };
            // Kept as pinned, with the URL as now stored: a lock written before credentials
            // were taken out of it loses them.
            let kept = Locked {
                git: source.git.clone(),
                ..locked.clone()
            };
            return Ok((kept, None, fetched));
        }
    }
    let (commit, tmp, files) = fetch_files(base, source, pinned)?;
    if let Some((name, how)) = pinned.and_then(|l| extract::first_difference(&files, &l.files)) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(Error(format!(
            "`{}`: commit {} of {} no longer gives the files {LOCK_FILE} pins: `{name}` {how} the lock; {LOCK_FILE} and the stored copy were kept. The repository changed what `git archive` gives at that commit (export attributes, for one); if you trust what it gives now, `skillc fetch --update {}` pins it",
            source.into, short(&commit, 12), source.git, source.into
        )));
    }
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

/// The commit of `source` (the pinned one, or what its rev names now), its files extracted
/// into a new folder beside the stored copies, and their digests.
fn fetch_files(
    base: &Path,
    source: &ExternalSource,
    pinned: Option<&Locked>,
) -> Result<(String, PathBuf, BTreeMap<String, String>), Error> {
    // A pinned commit the mirror already has needs no network.
    let known = mirror_dir(base, &source.git);
    let mirror = match pinned {
        Some(locked) if ours(&known, &source.git) && has_commit(&known, &locked.commit) => known,
        _ => mirror(base, source)?,
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
        store_name(&source.into),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    let files = extract(&mirror, &commit, source, &tmp).and_then(|()| {
        extract::digests(&tmp).map_err(|Error(why)| Error(format!("`{}`: {why}", source.into)))
    });
    match files {
        Ok(files) => Ok((commit, tmp, files)),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

/// Writes the files of `source.path` at `commit` into `dir` (a new folder): see
/// [`extract::unzip`].
fn extract(mirror: &Path, commit: &str, source: &ExternalSource, dir: &Path) -> Result<(), Error> {
    let m = mirror.to_string_lossy();
    let tree = match source.path.as_str() {
        "" => commit.to_string(),
        p => format!("{commit}:{p}"),
    };
    let not_a_folder = |why: String| {
        Error(format!(
            "`{}`: `{}` is not a folder of {} at {}: {why}",
            source.into, source.path, source.git, source.rev
        ))
    };
    let limits = extract::Limits::default();
    // The sizes git records, before anything is expanded: a small repository can name one
    // blob thousands of times, which `git archive` would spend hours compressing.
    let listing = git(&["-C", &m, "ls-tree", "-r", "-l", "-z", &tree]).map_err(not_a_folder)?;
    extract::precheck(&listing, &source.into, limits)?;
    let zip = git(&["-C", &m, "archive", "--format=zip", &tree]).map_err(not_a_folder)?;
    extract::unzip(zip, &source.into, dir, limits)
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
