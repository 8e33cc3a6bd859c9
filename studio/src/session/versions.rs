//! A file's history in the editor: its versions in git, and an earlier one's text to bring
//! back as an unsaved edit (reviewed and published as any other; undo takes it back).

use crate::history::{self, Version};

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
    }
}
