//! Releases: every commit that changed the workspace (what Review & publish makes), the
//! artifact of any of them built from that commit's files, any two compared as the Diff tab
//! compares builds, and rolling back to one as unpublished changes that Review then shows.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

use crate::error::StudioError;
use crate::review::git;

/// Releases listed at most, newest first.
pub const MAX_RELEASES: usize = 100;

/// One commit that changed the workspace.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Release {
    /// The commit (full id).
    pub commit: String,
    /// Its author.
    pub author: String,
    /// When (the author's date, RFC 3339).
    pub date: String,
    /// The commit's first line.
    pub message: String,
}

const SEP: char = '\u{1f}';

fn io(what: &str) -> impl Fn(String) -> StudioError + '_ {
    move |e| StudioError::new("io", format!("{what}: {e}"))
}

/// The commits that changed the workspace `root`, newest first (none outside git).
pub fn releases(root: &Path) -> Result<Vec<Release>, StudioError> {
    if git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_err() {
        return Ok(Vec::new());
    }
    let format = format!("--format=%H{SEP}%an{SEP}%aI{SEP}%s");
    let limit = MAX_RELEASES.to_string();
    let log = git(root, &["log", &format, "-n", &limit, "--", "."])
        .map_err(io("cannot read the workspace's history"))?;
    Ok(String::from_utf8_lossy(&log)
        .lines()
        .filter_map(|line| {
            let parts: Vec<&str> = line.split(SEP).collect();
            let [commit, author, date, message] = parts[..] else {
                return None;
            };
            Some(Release {
                commit: commit.to_string(),
                author: author.to_string(),
                date: date.to_string(),
                message: message.to_string(),
            })
        })
        .collect())
}

/// The full id of `commit` when it is one of the workspace's releases.
fn release_id(root: &Path, commit: &str) -> Result<String, StudioError> {
    let plain = commit.len() >= 7 && commit.bytes().all(|b| b.is_ascii_hexdigit());
    (releases(root)?.into_iter())
        .find(|r| plain && r.commit.starts_with(commit))
        .map(|r| r.commit)
        .ok_or_else(|| {
            StudioError::request(format!(
                "`{commit}` is not a commit that changed the workspace"
            ))
        })
}

/// The workspace's files as they were at `commit`, written into `into`.
fn files_at(root: &Path, commit: &str, into: &Path) -> Result<(), StudioError> {
    // Run in the workspace's folder, git archives that folder alone, its paths from there.
    let tar = git(root, &["archive", "--format=tar", commit]).map_err(io("git archive"))?;
    std::fs::create_dir_all(into).map_err(|e| io("cannot make a folder")(e.to_string()))?;
    let mut untar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| io("cannot run tar")(e.to_string()))?;
    if let Some(mut stdin) = untar.stdin.take() {
        stdin
            .write_all(&tar)
            .map_err(|e| io("tar")(e.to_string()))?;
    }
    let out = untar
        .wait_with_output()
        .map_err(|e| io("tar")(e.to_string()))?;
    if !out.status.success() {
        return Err(io("tar")(String::from_utf8_lossy(&out.stderr).to_string()));
    }
    Ok(())
}

/// The artifact of release `commit`, built from its files once and kept in `cache` (the
/// studio's `.skillc/releases/`) by its commit.
pub fn artifact_of(root: &Path, commit: &str, cache: &Path) -> Result<PathBuf, StudioError> {
    let commit = release_id(root, commit)?;
    let out = cache.join(format!("{commit}.db"));
    if out.is_file() {
        return Ok(out);
    }
    std::fs::create_dir_all(cache).map_err(|e| io("cannot make a folder")(e.to_string()))?;
    // Its files beside the artifacts, removed once built (or failed).
    let ws = cache.join(format!("{commit}.files"));
    let _ = std::fs::remove_dir_all(&ws);
    let built = files_at(root, &commit, &ws).and_then(|()| {
        let options = skillc::BuildOptions {
            release: Some(commit[..12].to_string()),
            ..Default::default()
        };
        skillc::build(&ws, &out, &options).map_err(|e| {
            StudioError::request(format!(
                "release {} does not build from its own files: {e}",
                &commit[..7]
            ))
        })
    });
    let _ = std::fs::remove_dir_all(&ws);
    built.map(|_| out)
}

/// Puts the workspace's files back as release `commit` has them (files added since are
/// removed): unpublished changes, which Review shows and Publish commits as a new commit.
pub fn roll_back(root: &Path, commit: &str) -> Result<(), StudioError> {
    let commit = release_id(root, commit)?;
    let source = format!("--source={commit}");
    git(
        root,
        &["restore", &source, "--staged", "--worktree", "--", "."],
    )
    .map_err(io("rolling back failed"))?;
    // Review shows working-tree changes: the index goes back to the last commit.
    git(root, &["restore", "--staged", "--", "."]).map_err(io("rolling back failed"))?;
    Ok(())
}
