//! A workspace file's history in git: each commit that changed it (who, when, the commit's
//! message) with what it changed, read as Review reads a change (fields and paragraphs), and a
//! version of an earlier commit brought back as an ordinary edit.

use std::path::Path;

use serde::Serialize;

use crate::docdiff::{document_change, DocChange};
use crate::error::StudioError;
use crate::review::git;

/// Versions shown at most, newest first.
pub const MAX_VERSIONS: usize = 50;

/// One commit that changed the file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Version {
    /// The commit (full id).
    pub commit: String,
    /// Its author.
    pub author: String,
    /// When (the author's date, RFC 3339).
    pub date: String,
    /// The commit's first line.
    pub message: String,
    /// The file's path in the repository at that commit (it may have been renamed since).
    pub path: String,
    /// What the commit changed in it, as a document (`None`: not a readable SKILL.md on one
    /// side).
    pub change: Option<DocChange>,
}

/// The field separator of the log format: it never appears in a name or a subject line.
const SEP: char = '\u{1f}';

fn io(what: &str) -> impl Fn(String) -> StudioError + '_ {
    move |e| StudioError::new("io", format!("{what}: {e}"))
}

/// The text of `path` (from the repository's top) at `commit`, `None` if it was not there.
fn text_at(root: &Path, commit: &str, path: &str) -> Option<String> {
    let bytes = git(root, &["show", &format!("{commit}:{path}")]).ok()?;
    String::from_utf8(bytes).ok()
}

/// The commits that changed `file` (relative to the workspace `root`), newest first, following
/// renames; empty when the workspace is not in git or the file was never committed.
pub fn history(root: &Path, file: &str) -> Result<Vec<Version>, StudioError> {
    if git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_err() {
        return Ok(Vec::new());
    }
    let format = format!("--format=%x1e%H{SEP}%an{SEP}%aI{SEP}%s");
    let limit = (MAX_VERSIONS + 1).to_string();
    let literal = format!(":(literal){file}");
    let log = git(
        root,
        &[
            "log",
            "--follow",
            "--name-only",
            &format,
            "-n",
            &limit,
            "--",
            &literal,
        ],
    )
    .map_err(io("cannot read the file's history"))?;
    let log = String::from_utf8_lossy(&log);
    let mut found: Vec<(String, String, String, String, String)> = Vec::new();
    for record in log.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
        let mut lines = record.lines();
        let head: Vec<&str> = lines.next().unwrap_or_default().split(SEP).collect();
        let path = lines.find(|l| !l.trim().is_empty()).unwrap_or_default();
        if let [commit, author, date, message] = head[..] {
            let fields = [commit, author, date, message, path].map(str::to_string);
            let [c, a, d, m, p] = fields;
            found.push((c, a, d, m, p));
        }
    }
    let mut versions = Vec::with_capacity(found.len().min(MAX_VERSIONS));
    for (k, (commit, author, date, message, path)) in found.iter().enumerate() {
        if k == MAX_VERSIONS {
            break;
        }
        let after = text_at(root, commit, path);
        // The version before: the next older commit of the file, under its name then.
        let before = found.get(k + 1).and_then(|o| text_at(root, &o.0, &o.4));
        versions.push(Version {
            commit: commit.clone(),
            author: author.clone(),
            date: date.clone(),
            message: message.clone(),
            path: path.clone(),
            change: document_change(before.as_deref(), after.as_deref()),
        });
    }
    Ok(versions)
}

/// The text `file` had at `commit` (one of its [`history`]), to write back as an edit.
pub fn version_text(root: &Path, file: &str, commit: &str) -> Result<String, StudioError> {
    let plain = commit.len() >= 7 && commit.bytes().all(|b| b.is_ascii_hexdigit());
    let version = (history(root, file)?.into_iter())
        .find(|v| plain && v.commit.starts_with(commit))
        .ok_or_else(|| {
            StudioError::request(format!("`{commit}` is not a commit of `{file}`'s history"))
        })?;
    text_at(root, &version.commit, &version.path).ok_or_else(|| {
        StudioError::request(format!(
            "`{file}` was removed in commit {}: there is no text to bring back",
            &version.commit[..7]
        ))
    })
}
