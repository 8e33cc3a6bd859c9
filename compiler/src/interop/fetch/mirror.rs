//! The mirrors `fetch` keeps of outside repositories (`.skillc/external/.mirrors/`), and the
//! `git` commands run in them. A mirror sits in the workspace, where a cloned repository can
//! commit one of its own with hooks (run by `git fetch`) or configuration that runs commands
//! or sends the fetch elsewhere (`core.sshCommand`, `url.*.insteadOf`, `include.path`): no
//! hook of a mirror is ever run, and a mirror is used only if it holds nothing but what
//! `git clone --mirror` writes ([`ours`]); any other is cloned again.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Error;
use crate::model::external::ExternalSource;

/// Where `git` looks for hooks: nowhere.
#[cfg(unix)]
const NO_HOOKS: &str = "/dev/null";
#[cfg(not(unix))]
const NO_HOOKS: &str = "NUL";

/// The settings `git clone --mirror` writes in a mirror's `config` (and the extensions a
/// repository may need); a mirror with any other is not one `fetch` made.
const OWN_SETTINGS: &[&str] = &[
    "core.repositoryformatversion",
    "core.filemode",
    "core.bare",
    "core.logallrefupdates",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.symlinks",
    "remote.origin.fetch",
    "remote.origin.mirror",
    "extensions.objectformat",
    "extensions.refstorage",
];

/// Whether `dir` is a mirror `fetch` made of `url`: real folders and regular files only (a
/// link would have git write elsewhere, a pipe would hang it), no attributes or alternates
/// of its own (they change what `git archive` gives), and a `config` with only the settings
/// a mirror clone writes, its origin `url`.
pub(super) fn ours(dir: &Path, url: &str) -> bool {
    if !dir.join("HEAD").is_file() || !only_files_and_folders(dir) {
        return false;
    }
    let added = ["info/attributes", "objects/info/alternates"];
    if added.iter().any(|f| dir.join(f).exists()) {
        return false;
    }
    let config = dir.join("config").to_string_lossy().into_owned();
    let Ok(list) = git(&["config", "--file", &config, "--null", "--list"]) else {
        return false;
    };
    let list = String::from_utf8_lossy(&list);
    let mut origin = false;
    for item in list.split('\0').filter(|i| !i.is_empty()) {
        let (key, value) = item.split_once('\n').unwrap_or((item, ""));
        match key {
            "remote.origin.url" if value == url && !origin => origin = true,
            k if OWN_SETTINGS.contains(&k) => {}
            _ => return false,
        }
    }
    origin
}

/// Whether every entry below `dir` is a real folder or a regular file.
fn only_files_and_folders(dir: &Path) -> bool {
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            return false;
        };
        for e in entries {
            let Ok(kind) = e.and_then(|e| e.file_type().map(|k| (k, e.path()))) else {
                return false;
            };
            match kind {
                (k, path) if k.is_dir() => pending.push(path),
                (k, _) if k.is_file() => {}
                _ => return false,
            }
        }
    }
    true
}

/// Runs `git` with `args`; its stdout, or its last words on stderr.
pub(super) fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let stall = stall_seconds();
    let out = Command::new("git")
        // No hook of a mirror is ever run: see [`ours`].
        .args(["-c", &format!("core.hooksPath={NO_HOOKS}")])
        // A remote over HTTP that stops sending is given up on rather than waited for forever:
        // under a byte a second for that long ends the transfer.
        .args(["-c", "http.lowSpeedLimit=1"])
        .args(["-c", &format!("http.lowSpeedTime={stall}")])
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

/// How long a remote may send nothing before `fetch` gives up on it: `SKILLC_FETCH_STALL_SECONDS`,
/// 60 by default.
fn stall_seconds() -> u64 {
    std::env::var("SKILLC_FETCH_STALL_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&s| s > 0)
        .unwrap_or(60)
}

/// Where the mirror of the repository at `url` is kept.
pub(super) fn mirror_dir(base: &Path, url: &str) -> PathBuf {
    base.join(".mirrors")
        .join(&crate::digest::hash(url.as_bytes())[..16])
}

/// A mirror of `source`'s repository, made or brought up to date (tags moved included). The
/// URL as written (credentials and all) is given to `git` on its command line only: the
/// mirror's own configuration names the repository without them.
pub(super) fn mirror(base: &Path, source: &ExternalSource) -> Result<PathBuf, Error> {
    let dir = mirror_dir(base, &source.git);
    let d = dir.to_string_lossy().into_owned();
    let url = source.remote.as_str();
    let refs = "+refs/*:refs/*";
    let done = if ours(&dir, &source.git) {
        git(&[
            "-C", &d, "fetch", "--quiet", "--prune", "--force", "--", url, refs,
        ])
    } else {
        let _ = std::fs::remove_dir_all(&dir);
        let cloned = git(&["clone", "--quiet", "--mirror", "--", url, &d])
            .and_then(|_| git(&["-C", &d, "remote", "set-url", "origin", &source.git]));
        if cloned.is_err() {
            // Never a mirror whose configuration still holds the credentials.
            let _ = std::fs::remove_dir_all(&dir);
        }
        cloned
    };
    // git may repeat the URL in its message: never with the credentials.
    done.map(|_| dir).map_err(|why| {
        Error(format!(
            "cannot reach {}: {}",
            source.git,
            why.replace(url, &source.git)
        ))
    })
}

pub(super) fn has_commit(mirror: &Path, commit: &str) -> bool {
    let m = mirror.to_string_lossy();
    git(&["-C", &m, "cat-file", "-e", &format!("{commit}^{{commit}}")]).is_ok()
}

/// The commit `source.rev` names in the mirror: a tag, a branch or a commit.
pub(super) fn resolve(mirror: &Path, source: &ExternalSource) -> Result<String, Error> {
    let m = mirror.to_string_lossy();
    let rev = &source.rev;
    if rev.starts_with('-') {
        // git would take it for an option.
        return Err(Error(format!(
            "`{}`: `rev: {rev}` is not a tag, branch or commit name",
            source.into
        )));
    }
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
