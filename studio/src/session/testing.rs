//! Helpers of the session's tests: the sample workspace copied to a temporary folder, and git.

use std::path::{Path, PathBuf};

use super::{Session, ToggleChange};

/// A skill of the sample the tests edit.
pub const DEMO: &str = "public/response_ending/demo_offer/SKILL.md";

pub fn copy_dir(from: &Path, to: &Path) {
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

pub fn sample() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("skills"),
        &dir.path().join("ws"),
    );
    let s = Session::open(&dir.path().join("ws")).unwrap();
    (dir, s)
}

/// Runs git in `dir` (with the repository's own configuration), returning stdout.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
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
pub fn committed_sample(dir: &Path) -> (PathBuf, String) {
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

/// A toggle change for a test.
pub fn change(client: &str, skill: &str, value: Option<bool>) -> ToggleChange {
    ToggleChange {
        client: client.into(),
        skill: skill.into(),
        value,
    }
}
