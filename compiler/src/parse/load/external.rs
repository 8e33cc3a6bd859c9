//! The skills of `workspace.yaml` `external:` entries, read from the copies `skillc fetch`
//! stored under `.skillc/external/` (never from the network) and checked against the digests
//! of `skillc.lock`: each appears under its `into` folder as if it were part of the workspace.
//! An entry that was not fetched, or whose stored copy no longer matches, is E028 and none of
//! its files is read; a lock that pins another rev than `workspace.yaml` asks for is W125 (the
//! locked copy is used; `--locked` refuses it).

use std::path::Path;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::discover::fsio::{self, FileContent, RawFile};
use crate::model::external::{
    store_dir, without_userinfo, ExternalSource, Lock, Locked, LOCK_FILE,
};
use crate::model::WorkspaceConfig;

/// What the locked copies gave: their files (named under each `into` folder), the problems
/// found, and the commit of each entry read (by `into`).
pub(super) type Read = (Vec<RawFile>, Vec<Diagnostic>, Vec<(String, String)>);

/// The stored files of every entry that is fetched and intact, named under its `into`
/// folder, and the problems found.
pub(super) fn read_locked(root: &Path, config: &WorkspaceConfig, files: &[RawFile]) -> Read {
    let mut out: Read = (Vec::new(), Vec::new(), Vec::new());
    if config.external.is_empty() {
        return out;
    }
    let lock = match files.iter().find(|f| f.rel == LOCK_FILE) {
        None => Lock::default(),
        Some(f) => match lock_of(f) {
            Ok(lock) => lock,
            Err(why) => {
                out.1.push(
                    Diagnostic::new(
                        codes::EXTERNAL_NOT_USABLE,
                        LOCK_FILE,
                        Pos::start(),
                        format!("{LOCK_FILE} cannot be read: {why}"),
                    )
                    .with_help("run `skillc fetch` to write it again"),
                );
                return out;
            }
        },
    };
    for source in &config.external {
        let taken = files
            .iter()
            .find(|f| f.rel.starts_with(&format!("{}/", source.into)));
        if let Some(f) = taken {
            out.1.push(problem(
                source,
                format!(
                    "the workspace already has files in `{}/` ({}); outside skills get a folder of their own",
                    source.into, f.rel
                ),
                "choose another `into`",
            ));
            continue;
        }
        let Some(locked) = lock.entry(&source.into) else {
            out.1.push(problem(
                source,
                format!(
                    "`{}` ({} at {}) has not been fetched",
                    source.into, source.git, source.rev
                ),
                "run `skillc fetch`: it pins the commit in skillc.lock and stores the files",
            ));
            continue;
        };
        if !locked.pins(source) {
            out.1.push(
                Diagnostic::new(
                    codes::LOCK_OUT_OF_DATE,
                    "workspace.yaml",
                    source.pos,
                    format!(
                        "skillc.lock pins `{}` to {} at {} (commit {}); workspace.yaml asks for {} at {}: the locked copy is used",
                        source.into, without_userinfo(&locked.git), locked.rev, short(&locked.commit), source.git, source.rev
                    ),
                )
                .with_help("run `skillc fetch` to pin what workspace.yaml asks for (`--locked` refuses a lock out of date)"),
            );
        }
        match stored(root, source, locked) {
            Ok(read) => {
                out.0.extend(read);
                out.2.push((source.into.clone(), locked.commit.clone()));
            }
            Err(d) => out.1.push(d),
        }
    }
    out
}

/// The lock in `f`: a lock of an outside repository with thousands of files is over the size
/// above which a file without a role is read in passing, so it is read again whole (the walk
/// capped it at [`fsio::MAX_FILE_BYTES`], the most `fetch` writes).
fn lock_of(f: &RawFile) -> Result<Lock, String> {
    match fsio::contents_of(f) {
        Ok(bytes) => Lock::parse(&String::from_utf8_lossy(&bytes)),
        Err(d) => Err(d.message),
    }
}

fn short(commit: &str) -> &str {
    crate::model::external::short(commit, 12)
}

fn problem(source: &ExternalSource, message: String, help: &str) -> Diagnostic {
    Diagnostic::new(
        codes::EXTERNAL_NOT_USABLE,
        "workspace.yaml",
        source.pos,
        message,
    )
    .with_help(help)
}

/// The stored files of one entry, each matching its digest in the lock, with every file the
/// lock lists and no other; else the E028 that names the first file that does not.
fn stored(
    root: &Path,
    source: &ExternalSource,
    locked: &Locked,
) -> Result<Vec<RawFile>, Diagnostic> {
    let dir = store_dir(root, &source.into);
    let shown = |name: &str| {
        let stored = dir.strip_prefix(root).unwrap_or(&dir);
        format!("{}/{name}", stored.display())
    };
    let fetch_again = "run `skillc fetch` to store it again from the pinned commit";
    let rel = dir.strip_prefix(root).unwrap_or(&dir);
    if let Some(link) = fsio::output::linked_part(root, rel) {
        // fetch refuses to write through it; its copy is not read through it either.
        return Err(problem(
            source,
            format!(
                "the stored copy of `{}` is reached through a symbolic link, `{}`",
                source.into,
                link.display()
            ),
            "remove the link and run `skillc fetch`: what skillc keeps under .skillc/ is in real folders of the workspace",
        ));
    }
    let canonical = dir.canonicalize().map_err(|_| {
        problem(
            source,
            format!(
                "the stored copy of `{}` ({}) is missing",
                source.into,
                shown("")
            ),
            fetch_again,
        )
    })?;
    let prefix = format!("{}/", source.into);
    let (files, _) = fsio::read_tree(&dir, &prefix, &canonical).map_err(|e| {
        problem(
            source,
            format!("the stored copy of `{}` cannot be read: {e}", source.into),
            fetch_again,
        )
    })?;
    let changed = |name: &str, what: &str| {
        problem(
            source,
            format!(
                "`{}` of `{}` {what} since it was fetched at commit {}",
                shown(name),
                source.into,
                short(&locked.commit)
            ),
            fetch_again,
        )
    };
    for f in &files {
        let name = &f.rel[prefix.len()..];
        let Some(want) = locked.files.get(name) else {
            return Err(changed(name, "was added"));
        };
        let got = match &f.content {
            FileContent::Bytes(b) => format!("sha256:{}", crate::digest::hash(b)),
            FileContent::Large(l) => format!("sha256:{}", crate::digest::hex(&l.sha256)),
            _ => String::new(),
        };
        if &got != want {
            return Err(changed(name, "has changed"));
        }
    }
    if let Some(missing) =
        (locked.files.keys()).find(|n| !files.iter().any(|f| f.rel[prefix.len()..] == ***n))
    {
        return Err(changed(missing, "was removed"));
    }
    Ok(files)
}
