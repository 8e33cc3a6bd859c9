//! Files and skills: reading, live checks of drafts, saves that never overwrite a change made
//! on disk, creating, renaming and deleting skills, packages in and out.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skillc::RawFile;

use super::disk::WritesOnDisk;
use super::{hash, io_err, Session};
use crate::error::{edit_err, Diag, StudioError};

/// A file as read, with the hash that a later save compares against.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct FileState {
    /// Relative path.
    pub file: String,
    /// The file's text as read.
    pub text: String,
    /// sha256 of the bytes on disk.
    pub hash: String,
}

/// A skill to create, as the "New skill" form asks for it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, ts_rs::TS)]
pub struct NewSkill {
    /// Its name (and folder name).
    pub name: String,
    /// The client it is for; `None` for every client (a global skill).
    pub client: Option<String>,
    /// Its category id (empty for none).
    #[serde(default)]
    pub category: String,
    /// Its description (a placeholder when empty).
    #[serde(default)]
    pub description: String,
    /// Messages that should select it.
    #[serde(default)]
    pub trigger_examples: Vec<String>,
}

/// Where a new skill goes, and whether its frontmatter must name its category: a global skill
/// in its category's folder (the one holding `CATEGORY.md`, which gives the category), else
/// beside the other global skills (`public/`); a client's skill under `clients/<id>/`, in a
/// folder named after its category as the sample's clients do, naming the category itself.
fn new_skill_folder(ws: &skillc::Workspace, new: &NewSkill, name: &str) -> (String, bool) {
    let category = new.category.trim();
    match (&new.client, ws.categories.get(category)) {
        (None, Some(c)) => {
            let parent = c.file.rsplit_once('/').map_or("", |(dir, _)| dir);
            (join(parent, name), false)
        }
        (None, None) => {
            let public = ws.skills.iter().any(|s| s.file.starts_with("public/"));
            let parent = if public { "public" } else { "" };
            (join(&join(parent, category), name), !category.is_empty())
        }
        (Some(client), _) => {
            let parent = format!("clients/{client}");
            (join(&join(&parent, category), name), !category.is_empty())
        }
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
}

/// The outcome of a save.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Saved {
    /// Written; the new hash.
    Saved {
        /// Hash of what is now on disk.
        hash: String,
    },
    /// Someone else changed the file since it was read: nothing was written.
    Conflict {
        /// What is on disk now.
        disk: FileState,
    },
}

pub(super) fn package_err(e: skillc::interop::package::Error) -> StudioError {
    match e {
        skillc::interop::package::Error::Invalid(d) => {
            StudioError::invalid("the package's skill has errors", &d)
        }
        other => StudioError::request(other.to_string()),
    }
}

/// Writes through a temporary file and a rename, so a crash never leaves half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StudioError> {
    // The compiler's one atomic writer: temporary file beside it, synced, renamed.
    skillc::edit::write_atomic(path, bytes).map_err(io_err)
}

/// A draft's check: its diagnostics, and where its skill's trigger examples go first.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct DraftCheck {
    /// The draft file's diagnostics, with the rest of the workspace as it is on disk.
    pub diagnostics: Vec<Diag>,
    /// Each trigger example of the draft's skill, routed leave-one-out in its catalog.
    pub examples: Vec<skillc::workspace_check::ExampleRoute>,
}

impl Session {
    /// The stored copy of a file of an outside repository's skill (`external:`), if `rel` is
    /// one: it is read from there, and never saved (it belongs to that repository).
    pub(super) fn outside_copy(&self, rel: &str) -> Option<PathBuf> {
        let (config, _) = skillc::workspace_config(&self.root).ok()?;
        let e = (config.external.iter()).find(|e| rel.starts_with(&format!("{}/", e.into)))?;
        let inner = &rel[e.into.len() + 1..];
        Some(skillc::model::external::store_dir(&self.root, &e.into).join(inner))
    }

    /// Refuses to change an outside repository's skill: it belongs to that repository, and a
    /// change here would be undone by the next `skillc fetch` (`doing`: what was asked).
    pub(super) fn refuse_outside(&self, rel: &str, doing: &str) -> Result<(), StudioError> {
        match self.outside_copy(rel) {
            Some(_) => Err(StudioError::request(format!(
                "`{rel}` comes from another repository (workspace.yaml `external:`): {doing} it there, then run `skillc fetch --update`"
            ))),
            None => Ok(()),
        }
    }

    /// Reads a file of the workspace.
    pub fn read(&self, rel: &str) -> Result<FileState, StudioError> {
        let path = match self.outside_copy(rel) {
            Some(stored) => {
                self.inside(rel)?;
                stored
            }
            None => self.inside(rel)?,
        };
        let bytes = std::fs::read(&path).map_err(io_err)?;
        Ok(FileState {
            file: rel.to_string(),
            text: String::from_utf8_lossy(&bytes).into_owned(),
            hash: hash(&bytes),
        })
    }

    /// Diagnostics of `rel` as they would be with `text` in it (not saved), and where the
    /// trigger examples of its skill then go.
    pub fn check_draft(&self, rel: &str, text: &str) -> Result<DraftCheck, StudioError> {
        self.inside(rel)?;
        let report = self.check_with(&[RawFile::new(rel, text.as_bytes())])?;
        // The editor shows the draft's own: the workspace's thousands of others would cross
        // to the page at every keystroke for nothing.
        let diagnostics = (report.diagnostics.iter())
            .filter(|d| d.file == rel)
            .map(Diag::from)
            .collect();
        let skill = report.workspace.skills.iter().find(|s| s.file == rel);
        let key = skill.map(|s| {
            let fm = &s.frontmatter;
            let texts = (
                &s.name,
                &fm.description,
                &fm.trigger_examples,
                &fm.when_to_use,
            );
            format!(
                "{rel}\n{}",
                serde_json::to_string(&texts).unwrap_or_default()
            )
        });
        let mut checks = self.checks.lock().map_err(io_err)?;
        let examples = match (&checks.routes, &key) {
            (Some((seen, routes)), Some(key)) if seen == key => routes.clone(),
            _ => {
                let routes = skillc::workspace_check::example_routes(&report, rel, &checks.session);
                checks.routes = key.map(|k| (k, routes.clone()));
                routes
            }
        };
        Ok(DraftCheck {
            diagnostics,
            examples,
        })
    }

    /// Saves `text` to `rel` atomically, unless the file changed on disk since it was read
    /// (its hash is no longer `base`): then nothing is written and the disk's text comes back.
    /// `base` is `None` to overwrite whatever is there (the user chose to keep theirs).
    pub fn save(&self, rel: &str, text: &str, base: Option<&str>) -> Result<Saved, StudioError> {
        self.refuse_outside(rel, "change")?;
        let _written = WritesOnDisk(&self.disk, Some(rel));
        let path = self.inside(rel)?;
        if let Some(base) = base {
            if let Ok(disk) = self.read(rel) {
                if disk.hash != base {
                    return Ok(Saved::Conflict { disk });
                }
            }
        }
        // Known before the rename: the watcher may report it before `write_atomic` returns.
        let digest = hash(text.as_bytes());
        self.disk.saved(rel, digest.clone());
        write_atomic(&path, text.as_bytes())?;
        Ok(Saved::Saved { hash: digest })
    }

    /// Creates a skill where the workspace's layout expects it (see [`NewSkill`]); returns its
    /// SKILL.md.
    pub fn create_skill(&self, new: &NewSkill) -> Result<String, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let name = new.name.trim();
        if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\']) {
            return Err(StudioError::request(
                "a skill's name is a single word or words-joined-by-hyphens, like `pricing-faq`",
            ));
        }
        let report = self.check()?;
        let ws = &report.workspace;
        if let Some(c) = new
            .client
            .as_deref()
            .filter(|c| !ws.clients.contains_key(*c))
        {
            return Err(StudioError::request(format!("there is no client `{c}`")));
        }
        let (folder, say_category) = new_skill_folder(ws, new, name);
        let dir = self.inside(&folder)?;
        if dir.exists() {
            return Err(StudioError::request(format!("`{folder}` already exists")));
        }
        let mut text = format!("---\nname: {name}\n---\n# Instructions\n\n");
        let description = match new.description.trim() {
            "" => "What this skill does and when to use it.",
            d => d,
        };
        let triggers: Vec<&str> = new
            .trigger_examples
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
            .collect();
        let mut fields = vec![("description", serde_json::json!(description))];
        if say_category {
            fields.push(("category", serde_json::json!(new.category)));
        }
        if !triggers.is_empty() {
            fields.push(("trigger_examples", serde_json::json!(triggers)));
        }
        for (field, value) in fields {
            text = crate::form::set_field(&text, field, Some(&value))?;
        }
        std::fs::create_dir_all(&dir).map_err(io_err)?;
        write_atomic(&dir.join("SKILL.md"), text.as_bytes())?;
        Ok(format!("{folder}/SKILL.md"))
    }

    /// Renames the skill in `rel` to `new_name`, and every reference to it with it
    /// (`skillc rename`: reference fields, variants, client overrides and toggles, test cases,
    /// guidance naming it), span by span; returns where its SKILL.md now is.
    pub fn rename_skill(&self, rel: &str, new_name: &str) -> Result<String, StudioError> {
        self.refuse_outside(rel, "rename")?;
        let _written = WritesOnDisk(&self.disk, None);
        let plan = self.rename_plan(rel, new_name)?;
        skillc::edit::rename::apply(&self.root, &plan).map_err(edit_err)?;
        let moved = plan.moves.iter().find_map(|m| {
            let rest = rel.strip_prefix(&format!("{}/", m.from))?;
            Some(format!("{}/{rest}", m.to))
        });
        Ok(moved.unwrap_or_else(|| rel.to_string()))
    }

    /// What renaming the skill in `rel` to `new_name` would change, line by line, and the
    /// folders it would move (`skillc rename --dry-run`): shown before it is applied.
    pub fn rename_plan(
        &self,
        rel: &str,
        new_name: &str,
    ) -> Result<skillc::edit::rename::Rename, StudioError> {
        self.inside(rel)?;
        let report = self.check()?;
        let old = (report.workspace.skills.iter())
            .find(|s| s.file == rel)
            .map(|s| s.name.clone())
            .ok_or_else(|| StudioError::request(format!("`{rel}` is not a skill")))?;
        skillc::edit::rename::plan(&self.root, &old, new_name).map_err(edit_err)
    }

    /// Packs a skill into `.skillc/packages/<name>.zip` inside the workspace.
    pub fn export_package(&self, rel: &str) -> Result<String, StudioError> {
        let file = self.inside(rel)?;
        let dir = file
            .parent()
            .ok_or_else(|| StudioError::request("no folder"))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out_dir = self.cache_dir()?.join("packages");
        std::fs::create_dir_all(&out_dir).map_err(io_err)?;
        let out = out_dir.join(format!("{name}.zip"));
        skillc::interop::package::pack(dir, &out, false).map_err(package_err)?;
        Ok(out.display().to_string())
    }

    /// Unpacks a ZIP package into the workspace (checked before anything is written).
    pub fn import_package(&self, archive: &str) -> Result<String, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let limits = skillc::interop::package::Limits::default();
        let u = skillc::interop::package::unpack(Path::new(archive), &self.root, false, &limits)
            .map_err(package_err)?;
        let dir = u.dir.strip_prefix(&self.root).map_err(io_err)?;
        Ok(format!("{}/SKILL.md", dir.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn renaming_a_skill_renames_every_reference_and_the_workspace_stays_clean() {
        let (_d, s) = sample();
        let rel = "public/response_ending/context_gathering/SKILL.md";
        let errors_before = s.check().unwrap().error_count();
        let renamed = s.rename_skill(rel, "context_collecting").unwrap();
        assert_eq!(
            renamed,
            "public/response_ending/context_collecting/SKILL.md"
        );
        for f in [
            "public/response_ending/CATEGORY.md",
            "tests/seed-000.yaml",
            &renamed,
        ] {
            let text = std::fs::read_to_string(s.root().join(f)).unwrap();
            assert!(!text.contains("context_gathering"), "{f} still names it");
            assert!(
                text.contains("context_collecting"),
                "{f} does not name it anew"
            );
        }
        assert_eq!(s.check().unwrap().error_count(), errors_before);
    }

    #[test]
    fn a_link_out_of_the_workspace_is_neither_read_nor_written_through() {
        let (d, s) = sample();
        let elsewhere = d.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("SKILL.md"), "private\n").unwrap();
        let ws = d.path().join("ws");
        std::os::unix::fs::symlink(&elsewhere, ws.join("public/escape")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("gone"), ws.join("dangling")).unwrap();
        let err = s.read("public/escape/SKILL.md").unwrap_err();
        assert_eq!(err.kind, "outside", "{}", err.message);
        let err = s.save("public/escape/new.md", "x", None).unwrap_err();
        assert_eq!(err.kind, "outside", "{}", err.message);
        let err = s.save("dangling", "x", None).unwrap_err();
        assert_eq!(err.kind, "outside", "{}", err.message);
        assert!(!elsewhere.join("new.md").exists());
        assert!(!elsewhere.join("gone").exists());
        assert_eq!(
            std::fs::read_to_string(elsewhere.join("SKILL.md")).unwrap(),
            "private\n"
        );
        // A link that stays inside is fine.
        std::os::unix::fs::symlink(ws.join("public"), ws.join("alias")).unwrap();
        assert!(s
            .read(&format!("alias/{}", &DEMO["public/".len()..]))
            .is_ok());
    }

    #[test]
    fn an_outside_skill_is_neither_saved_renamed_nor_deleted_here() {
        let (d, s) = sample();
        let ws = d.path().join("ws");
        let yaml = std::fs::read_to_string(ws.join("workspace.yaml")).unwrap();
        let entry =
            "external:\n  - { git: 'https://example.com/acme.git', rev: v1, into: vendor/acme }\n";
        std::fs::write(ws.join("workspace.yaml"), yaml + entry).unwrap();
        let stored = ws.join(".skillc/external/vendor__acme/pdf/SKILL.md");
        std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
        let text = "---\nname: pdf\ndescription: Fills PDF forms.\n---\nFill.\n";
        std::fs::write(&stored, text).unwrap();
        let rel = "vendor/acme/pdf/SKILL.md";
        assert_eq!(s.read(rel).unwrap().text, text);
        let refusals = [
            s.save(rel, "changed", None).unwrap_err(),
            s.rename_skill(rel, "forms").unwrap_err(),
            s.delete_skill(rel).unwrap_err(),
        ];
        for (err, doing) in refusals.iter().zip(["change", "rename", "delete"]) {
            assert_eq!(err.kind, "request", "{}", err.message);
            assert!(
                err.message.contains(&format!(
                    "another repository (workspace.yaml `external:`): {doing} it there"
                )),
                "{}",
                err.message
            );
        }
        assert_eq!(std::fs::read_to_string(&stored).unwrap(), text);
        assert!(!ws.join("vendor").exists() && !ws.join(".skillc/trash").exists());
    }

    #[test]
    fn a_draft_gets_live_diagnostics_without_being_saved() {
        let (_d, s) = sample();
        let before = s.read(DEMO).unwrap();
        let draft = before
            .text
            .replace("dependencies: []", "")
            .replace("priority: 1", "priority: first");
        let diags = s.check_draft(DEMO, &draft).unwrap().diagnostics;
        let d = diags
            .iter()
            .find(|d| d.file == DEMO && d.code == "E010")
            .expect("the new error: `priority: first` is not skillc's shape (a workspace)");
        assert_eq!(d.line, 7);
        assert_eq!(s.read(DEMO).unwrap(), before);
    }

    #[test]
    fn a_draft_says_where_each_of_its_trigger_examples_goes() {
        let (_d, s) = sample();
        let before = s.read(DEMO).unwrap();
        let routes = s.check_draft(DEMO, &before.text).unwrap().examples;
        assert_eq!(routes.len(), 5);
        assert_eq!(routes[0].example, "We're a fintech company");
        assert_eq!(routes[0].line, 10);
        // Typed: an example about prices now goes to `pricing`, pulled by its words.
        let draft = before.text.replace(
            "We're a fintech company",
            "How much do plans and prices cost with billing?",
        );
        let routes = s.check_draft(DEMO, &draft).unwrap().examples;
        let typed = &routes[0];
        assert_eq!(
            typed.example,
            "How much do plans and prices cost with billing?"
        );
        assert_eq!(
            (typed.first.as_deref(), typed.own),
            (Some("pricing"), false)
        );
        assert!(typed.pulled.contains(&"bill".to_string()), "{typed:?}");
        // A body keystroke routes nothing again, and gives the same.
        let body = draft.replace("Offer a demo", "Offer a short demo");
        assert_eq!(s.check_draft(DEMO, &body).unwrap().examples, routes);
    }

    #[test]
    fn saves_are_atomic_and_never_overwrite_a_change_made_on_disk() {
        let (_d, s) = sample();
        let mine = s.read(DEMO).unwrap();
        // Someone else edits the file.
        std::fs::write(
            s.root().join(DEMO),
            mine.text.replace("Offer a demo", "Propose a demo"),
        )
        .unwrap();
        let edited = mine.text.replace("Offer a demo", "Suggest a demo");
        match s.save(DEMO, &edited, Some(&mine.hash)).unwrap() {
            Saved::Conflict { disk } => assert!(disk.text.contains("Propose a demo")),
            other => panic!("expected a conflict, got {other:?}"),
        }
        assert!(s.read(DEMO).unwrap().text.contains("Propose a demo"));
        // The user chooses to keep theirs.
        assert!(matches!(
            s.save(DEMO, &edited, None).unwrap(),
            Saved::Saved { .. }
        ));
        assert!(s.read(DEMO).unwrap().text.contains("Suggest a demo"));
        assert!(!s
            .root()
            .join("public/response_ending/demo_offer/.SKILL.md.studio.tmp")
            .exists());
    }

    fn new_skill(name: &str, client: Option<&str>, category: &str) -> NewSkill {
        NewSkill {
            name: name.into(),
            client: client.map(str::to_string),
            category: category.into(),
            ..NewSkill::default()
        }
    }

    #[test]
    fn a_new_skill_lands_where_the_layout_expects_it_for_any_client() {
        let (_d, s) = sample();
        let global = s
            .create_skill(&new_skill("refunds", None, "response_handling"))
            .unwrap();
        assert_eq!(global, "public/response_handling/refunds/SKILL.md");
        assert!(!s.read(&global).unwrap().text.contains("category:"));
        // example.com has no skills yet; its first lands in its own folder and says its category.
        let theirs = NewSkill {
            description: "Answer questions: about refunds.".into(),
            trigger_examples: vec!["Can I get my money back?".into(), " ".into()],
            ..new_skill("refunds", Some("example.com"), "response_ending")
        };
        let file = s.create_skill(&theirs).unwrap();
        assert_eq!(file, "clients/example.com/response_ending/refunds/SKILL.md");
        let rows = s.overview().unwrap();
        let row = rows.skills.iter().find(|r| r.file == file).unwrap();
        assert_eq!(
            (row.client.as_str(), row.category.as_str()),
            ("example.com", "response_ending")
        );
        assert_eq!(row.description, "Answer questions: about refunds.");
        let text = s.read(&file).unwrap().text;
        assert!(text.contains("trigger_examples:"), "{text}");
        let parts = crate::form::decompose(&text);
        let triggers = parts
            .fields
            .iter()
            .find(|(k, _)| k == "trigger_examples")
            .unwrap();
        assert_eq!(triggers.1, serde_json::json!(["Can I get my money back?"]));
        assert!(
            rows.diagnostics.iter().all(|d| d.file != file),
            "{:?}",
            rows.diagnostics
        );
        assert_eq!(
            s.create_skill(&new_skill("x", Some("nobody.com"), ""))
                .unwrap_err()
                .kind,
            "request"
        );
        assert_eq!(
            s.create_skill(&new_skill("../x", None, ""))
                .unwrap_err()
                .kind,
            "request"
        );
        assert_eq!(
            s.create_skill(&new_skill("plain", None, "")).unwrap(),
            "public/plain/SKILL.md"
        );
    }

    #[test]
    fn skills_are_created_renamed_and_deleted() {
        let (_d, s) = sample();
        let file = s
            .create_skill(&new_skill("farewell", None, "response_handling"))
            .unwrap();
        assert!(s
            .overview()
            .unwrap()
            .skills
            .iter()
            .any(|r| r.name == "farewell"));
        let renamed = s.rename_skill(&file, "goodbye").unwrap();
        assert_eq!(renamed, "public/response_handling/goodbye/SKILL.md");
        assert!(s.read(&renamed).unwrap().text.contains("name: goodbye"));
        s.delete_skill(&renamed).unwrap();
        assert!(!s
            .overview()
            .unwrap()
            .skills
            .iter()
            .any(|r| r.name == "goodbye"));
        assert_eq!(
            s.create_skill(&new_skill("pricing", None, "response_handling"))
                .unwrap_err()
                .kind,
            "request"
        );
    }

    #[test]
    fn skills_export_to_packages_and_import_back() {
        let (_d, s) = sample();
        let zip = s
            .export_package("public/tools/mermaid-diagram/SKILL.md")
            .unwrap();
        assert!(zip.ends_with(".skillc/packages/mermaid-diagram.zip"));
        s.delete_skill("public/tools/mermaid-diagram/SKILL.md")
            .unwrap();
        let file = s.import_package(&zip).unwrap();
        assert_eq!(file, "mermaid-diagram/SKILL.md");
        assert!(s
            .read("mermaid-diagram/package.yaml")
            .unwrap()
            .text
            .contains("untrusted"));
        assert_eq!(s.import_package(&zip).unwrap_err().kind, "request");
    }
}
