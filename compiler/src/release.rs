//! The release label a build can store (`--release-label git`), read from git.

use std::path::Path;

/// The label `--release-label git` stands for: the short hash of the commit the workspace's
/// git repository is at, with `-dirty` when files under the workspace differ from it.
pub fn git_label(root: &Path) -> Result<String, String> {
    let git = |args: &[&str]| -> Result<String, String> {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`{}` is not in a git repository with a commit ({})",
                root.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short", "HEAD"])?;
    // Changes to tracked files first: a tenth of the time of a full status on the reference
    // workload (10 ms against 110), and an edited workspace is told dirty by them alone.
    // Otherwise untracked files count too: a new skill is part of what gets built.
    let tracked = git(&["status", "--porcelain", "--untracked-files=no", "--", "."])?;
    let changes = match tracked.is_empty() {
        true => git(&["status", "--porcelain", "--", "."])?,
        false => tracked,
    };
    Ok(if changes.is_empty() {
        commit
    } else {
        format!("{commit}-dirty")
    })
}
