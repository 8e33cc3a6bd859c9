//! History: a file's versions in git, and an earlier one's text to bring back as an unsaved
//! edit (reviewed and published as any other; undo takes it back); the workspace's releases,
//! any two compared, and rolling back to one.

use crate::history::{self, Version};
use crate::releases::{self, Release};
use skillc_runtime::Artifact;

use super::{Session, StudioError};

impl Session {
    /// The commits that changed `rel`, newest first, each with what it changed.
    pub fn file_history(&self, rel: &str) -> Result<Vec<Version>, StudioError> {
        self.inside(rel)?;
        history::history(&self.root, rel)
    }

    /// The text `rel` had at `commit`, one of its history's.
    pub fn version_text(&self, rel: &str, commit: &str) -> Result<String, StudioError> {
        self.inside(rel)?;
        history::version_text(&self.root, rel, commit)
    }
}

impl Session {
    /// The commits that changed the workspace, newest first.
    pub fn releases(&self) -> Result<Vec<Release>, StudioError> {
        releases::releases(&self.root)
    }

    /// What changed for each client, language and plan from release `old` to release `new`
    /// (each built from its own files once, then kept under `.skillc/releases/`).
    pub fn compare_releases(
        &self,
        old: &str,
        new: &str,
    ) -> Result<skillc::interop::diff::Diff, StudioError> {
        let cache = self.cache_dir()?.join("releases");
        let open = |commit: &str| {
            let path = releases::artifact_of(&self.root, commit, &cache)?;
            Artifact::open(path).map_err(|e| StudioError::request(e.to_string()))
        };
        let (before, after) = (open(old)?, open(new)?);
        skillc::interop::diff::diff(&before, &after)
            .map_err(|e| StudioError::request(e.to_string()))
    }

    /// The workspace's files put back as release `commit` has them: unpublished changes.
    pub fn roll_back(&self, commit: &str) -> Result<(), StudioError> {
        let _written = super::disk::WritesOnDisk(&self.disk, None);
        releases::roll_back(&self.root, commit)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn a_skill_s_history_names_each_commit_with_its_change_and_brings_back_an_old_text() {
        let (d, s) = sample();
        let file = "public/response_handling/pricing/SKILL.md";
        assert!(s.file_history(file).unwrap().is_empty(), "not in git yet");
        let ws = d.path().join("ws");
        git_in(&ws, &["init", "-q"]);
        git_in(&ws, &["add", "-A"]);
        git_in(&ws, &["commit", "-q", "-m", "The sample"]);
        let first = std::fs::read_to_string(ws.join(file)).unwrap();
        let edited = first.replacen("description: ", "description: Prices and plans. ", 1);
        assert_ne!(edited, first);
        std::fs::write(ws.join(file), &edited).unwrap();
        git_in(&ws, &["commit", "-q", "-am", "Pricing says what it covers"]);
        let versions = s.file_history(file).unwrap();
        assert_eq!(versions.len(), 2, "{versions:?}");
        assert_eq!(versions[0].message, "Pricing says what it covers");
        assert_eq!(versions[1].message, "The sample");
        let change = versions[0].change.as_ref().unwrap();
        assert_eq!(change.fields.len(), 1, "{change:?}");
        assert_eq!(change.fields[0].key, "description");
        assert!(change.fields[0]
            .after
            .as_deref()
            .unwrap()
            .starts_with("Prices and plans."));
        // The first version: the whole file is new.
        let created = versions[1].change.as_ref().unwrap();
        assert!(created.fields.iter().all(|f| f.before.is_none()));
        assert_eq!(s.version_text(file, &versions[1].commit).unwrap(), first);
        assert_eq!(
            s.version_text(file, &versions[0].commit[..8]).unwrap(),
            edited
        );
        assert_eq!(s.version_text(file, "0000000").unwrap_err().kind, "request");
        assert_eq!(s.file_history("../x").unwrap_err().kind, "outside");
        // The releases: both commits, any two compared, and a roll back to the first.
        let releases = s.releases().unwrap();
        assert_eq!(releases.len(), 2);
        let d = s
            .compare_releases(&releases[1].commit, &releases[0].commit)
            .unwrap();
        assert!(
            d.bundles
                .iter()
                .any(|b| b.changed.iter().any(|c| c.name == "public.pricing")),
            "{d:?}"
        );
        let same = s
            .compare_releases(&releases[0].commit, &releases[0].commit)
            .unwrap();
        assert!(same.bundles.is_empty(), "{same:?}");
        std::fs::write(ws.join("public/new-file.md"), "added since").unwrap();
        git_in(&ws, &["add", "-A"]);
        git_in(&ws, &["commit", "-q", "-m", "A file added"]);
        s.roll_back(&releases[1].commit).unwrap();
        assert_eq!(std::fs::read_to_string(ws.join(file)).unwrap(), first);
        assert!(
            !ws.join("public/new-file.md").exists(),
            "added since: removed"
        );
        let status = git_in(&ws, &["status", "--porcelain"]);
        assert!(
            status.contains(" M public/response_handling/pricing/SKILL.md"),
            "{status}"
        );
        assert!(status.contains("D public/new-file.md"), "{status}");
        let staged = git_in(&ws, &["diff", "--cached", "--name-only"]);
        assert!(staged.is_empty(), "unstaged, for Review: {staged}");
        assert_eq!(s.roll_back("abcdef0").unwrap_err().kind, "request");
    }
}
