//! The studio's logic, free of Tauri: one open workspace and what the content team does with
//! it. Every path the UI sends is relative to the workspace and checked to stay inside it.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use skillc::model::Scope;
use skillc::RawFile;

mod beside;
mod bulk;
mod clients;
mod disk;
mod files;
mod preview;
mod publish;
mod routing;
mod settings;
#[cfg(test)]
mod testing;
mod toggles;
mod trash;
mod versions;

use crate::error::{edit_err, io_err};
pub use crate::error::{Diag, StudioError};
pub use beside::Beside;
pub use bulk::{BulkPlan, Selection, ToggleChange, ToggleFilter, Toggles};
pub use clients::{ClientPage, ClientVar, FlagVariant};
pub use disk::DiskWatch;
use disk::{Reader, Seen};
pub use files::{write_atomic, DraftCheck, FileState, NewSkill, Saved};
pub use preview::{BudgetMeter, BuildSummary, Preview, PreviewRequest, TestRun};
pub use publish::{Blockers, FailingCase};
pub use routing::RoutingView;
pub use settings::{PlanInfo, RoutingValue, WorkspacePage};
pub use toggles::Applied;
pub use trash::Trashed;

/// A skill in the browser list.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct SkillRow {
    /// Its SKILL.md, relative to the workspace.
    pub file: String,
    /// Selectable name.
    pub name: String,
    /// `public`, `internal` or `custom`.
    pub namespace: String,
    /// Category (empty when none).
    pub category: String,
    /// Client id, empty for global skills.
    pub client: String,
    /// Description, for the list's search and tooltip.
    pub description: String,
}

/// What the studio shows of a workspace.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Overview {
    /// The workspace folder.
    pub root: String,
    /// Its skills.
    pub skills: Vec<SkillRow>,
    /// Client ids.
    pub clients: Vec<String>,
    /// Locales the workspace builds, for the preview's choices.
    pub locales: Vec<String>,
    /// Tiers the workspace builds, the default (first) first.
    pub tiers: Vec<String>,
    /// Consumers `workspace.yaml` declares.
    pub consumers: Vec<String>,
    /// Category ids.
    pub categories: Vec<String>,
    /// Every frontmatter field the compiler knows, with its shape and what it is for (the
    /// form offers these, each edited as its shape asks).
    pub fields: &'static [skillc::model::fields::Field],
    /// The check's errors (the skill list marks their files). Warnings are counted only: the
    /// editor shows each file's own, and a large workspace has thousands (3,497 on the
    /// reference workload, 1.9 MB of the overview's JSON on every save).
    pub diagnostics: Vec<Diag>,
    /// Warnings of the check.
    pub warnings: usize,
}

/// The errors among `diagnostics`, for the UI.
fn errors_of(diagnostics: &[skillc::Diagnostic]) -> Vec<Diag> {
    diagnostics
        .iter()
        .filter(|d| d.severity == skillc::diagnostic::Severity::Error)
        .map(Diag::from)
        .collect()
}

/// sha256 hex.
fn hash(bytes: &[u8]) -> String {
    skillc::digest::hash(bytes)
}

/// One open workspace.
pub struct Session {
    root: PathBuf,
    /// Successive builds share what an edit leaves unchanged (incremental rebuilds). The
    /// compiler session of the preview's builds: it shares its check memory with `checks`'s,
    /// so that a save's check and build make the passes over catalogs once.
    builds: std::sync::Mutex<skillc::Session>,
    /// Checks (the overview, a draft as the user types) read and parse only what changed.
    checks: std::sync::Mutex<Checks>,
    /// Whether the folder changed since the last check (its watcher and our writes say so).
    disk: std::sync::Arc<DiskWatch>,
    /// What each toggle edit wrote, by the number it was given, so that undoing it puts every
    /// file back byte for byte.
    toggle_edits: std::sync::Mutex<bulk::Edits>,
}

/// Checks of the workspace: what the next one may take from the earlier ones.
#[derive(Debug, Default)]
struct Checks {
    /// The compiler session of the checks: files read, skills parsed and the last passes.
    session: skillc::Session,
    /// The last check of the files as they are on disk (no drafts): served again while the
    /// watcher reports no change (a save asks for the overview, the tests and the preview's
    /// budget, each a check of the same files).
    last: Option<skillc::CheckReport>,
    /// Where the trigger examples of the skill last typed go, and what of it they were routed
    /// from (its file and routing texts): a keystroke in a body routes nothing again. Dropped
    /// with `last`, when the folder changes.
    routes: Option<(String, Vec<skillc::workspace_check::ExampleRoute>)>,
}

impl Session {
    /// Opens a workspace folder.
    pub fn open(root: &Path) -> Result<Session, StudioError> {
        let root = root.canonicalize().map_err(|e| {
            StudioError::new("io", format!("cannot open `{}`: {e}", root.display()))
        })?;
        if !root.is_dir() {
            return Err(StudioError::new(
                "io",
                format!("`{}` is not a folder", root.display()),
            ));
        }
        own_folder_is_real(&root)?;
        let checks = Checks::default();
        Ok(Session {
            root,
            builds: std::sync::Mutex::new(checks.session.sharing_checks()),
            checks: std::sync::Mutex::new(checks),
            toggle_edits: Default::default(),
            disk: std::sync::Arc::new(DiskWatch {
                watching: false.into(),
                since: std::sync::Mutex::new([Seen::Anything, Seen::Anything]),
                saved: Default::default(),
            }),
        })
    }

    /// The workspace folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the studio's artifacts live (a hidden folder the compiler skips).
    pub fn artifact(&self) -> PathBuf {
        self.root.join(".skillc").join("studio.db")
    }

    /// `.skillc/`, created with a `.gitignore` of `*` so that git never offers the studio's
    /// artifacts and packages for a commit.
    fn cache_dir(&self) -> Result<PathBuf, StudioError> {
        let dir = self.root.join(".skillc");
        std::fs::create_dir_all(&dir).map_err(io_err)?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            write_atomic(&ignore, b"*\n")?;
        }
        Ok(dir)
    }

    fn previous(&self) -> PathBuf {
        self.root.join(".skillc").join("previous.db")
    }

    /// A path inside the workspace, or an error: no absolute paths, no `..`, and no symbolic
    /// link on the way that leads out of the workspace (the compiler's rule for links), so
    /// nothing is read or written outside through a link.
    pub fn inside(&self, rel: &str) -> Result<PathBuf, StudioError> {
        let p = Path::new(rel);
        let ok = !rel.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
        let outside = || {
            StudioError::new(
                "outside",
                format!("`{rel}` is not a path inside the workspace"),
            )
        };
        if !ok {
            return Err(outside());
        }
        let full = self.root.join(p);
        // The deepest part of the path that exists (a link counts, even a dangling one) is
        // resolved; what lies below it does not exist yet, so holds no link.
        let mut existing = full.as_path();
        while existing.symlink_metadata().is_err() {
            existing = existing.parent().ok_or_else(outside)?;
        }
        let real = existing.canonicalize().map_err(|_| outside())?;
        if !real.starts_with(&self.root) {
            return Err(StudioError::new(
                "outside",
                format!("`{rel}` leads outside the workspace through a symbolic link"),
            ));
        }
        Ok(full)
    }

    fn check(&self) -> Result<skillc::CheckReport, StudioError> {
        self.check_with(&[])
    }

    /// The watcher's view of the folder, for it to report changes to.
    pub fn disk(&self) -> std::sync::Arc<DiskWatch> {
        self.disk.clone()
    }

    fn check_with(&self, drafts: &[RawFile]) -> Result<skillc::CheckReport, StudioError> {
        let mut checks = self.checks.lock().map_err(io_err)?;
        // A check between changes on disk does not walk the folder again: it reads again only
        // the files that changed, or serves the last check when none did.
        match self.disk.look(Reader::Checks) {
            Seen::Files(files) if files.is_empty() => {
                if let (true, Some(last)) = (drafts.is_empty(), &checks.last) {
                    return Ok(last.clone());
                }
                checks.session.assume_unchanged();
            }
            Seen::Files(files) => {
                (checks.last, checks.routes) = (None, None);
                checks.session.assume_changed_only(files);
            }
            Seen::Anything => (checks.last, checks.routes) = (None, None),
        }
        let options = skillc::CheckOptions::default();
        let report = skillc::workspace_check::check_cached(
            &self.root,
            &options,
            &mut checks.session,
            drafts,
        )
        .map_err(io_err)?;
        if drafts.is_empty() {
            checks.last = Some(report.clone());
        }
        Ok(report)
    }

    /// The skills, configuration and diagnostics.
    pub fn overview(&self) -> Result<Overview, StudioError> {
        let report = self.check()?;
        let ws = &report.workspace;
        Ok(Overview {
            root: self.root.display().to_string(),
            skills: ws
                .skills
                .iter()
                .map(|s| SkillRow {
                    file: s.file.clone(),
                    name: s.name.clone(),
                    namespace: s.namespace.clone(),
                    category: s.category.clone().unwrap_or_default(),
                    client: match &s.scope {
                        Scope::Client(c) => c.clone(),
                        Scope::Global => String::new(),
                    },
                    description: s.frontmatter.description.clone().unwrap_or_default(),
                })
                .collect(),
            clients: ws.clients.keys().cloned().collect(),
            locales: ws.config.locales.clone(),
            tiers: ws.config.tiers.iter().map(|t| t.name.clone()).collect(),
            consumers: ws.config.consumers.keys().cloned().collect(),
            categories: ws.categories.keys().cloned().collect(),
            fields: skillc::model::fields::FIELDS,
            diagnostics: errors_of(&report.diagnostics),
            warnings: report.warning_count(),
        })
    }

    /// The translations of the skill `rel` (its SKILL.md or a translation) belongs to.
    pub fn translations(
        &self,
        rel: &str,
    ) -> Result<crate::translations::Translations, StudioError> {
        self.inside(rel)?;
        let report = self.check()?;
        let stale = |file: &str| {
            (report.diagnostics.iter())
                .any(|d| d.code == skillc::codes::STALE_TRANSLATION && d.file == file)
        };
        crate::translations::of(&report.workspace, rel, &stale)
            .ok_or_else(|| StudioError::request(format!("`{rel}` is not a skill")))
    }

    /// Starts the `locale` translation of the skill `rel` from its default text; returns the
    /// new file.
    pub fn create_translation(&self, rel: &str, locale: &str) -> Result<String, StudioError> {
        let _written = disk::WritesOnDisk(&self.disk, None);
        self.inside(rel)?;
        self.refuse_outside(rel, "translate")?;
        let report = self.check()?;
        let (file, text) = crate::translations::starting_text(&report.workspace, rel, locale)?;
        let path = self.inside(&file)?;
        if path.exists() {
            return Err(StudioError::request(format!("`{file}` exists already")));
        }
        write_atomic(&path, text.as_bytes())?;
        Ok(file)
    }

    /// What the skill at `rel` is tied to (the relations panel).
    pub fn relations(&self, rel: &str) -> Result<crate::relations::Relations, StudioError> {
        self.inside(rel)?;
        let report = self.check()?;
        crate::relations::of(&report.workspace, rel)
            .ok_or_else(|| StudioError::request(format!("`{rel}` is not a skill")))
    }
}

/// What the studio writes and removes under `.skillc/` (its artifacts, the trash): only ever in
/// real folders of the workspace. A link there, which a cloned repository can commit, would send
/// the writes and removals anywhere, so the workspace is refused until it is removed.
fn own_folder_is_real(root: &Path) -> Result<(), StudioError> {
    let own = [
        "trash",
        "releases",
        "studio.db",
        "previous.db",
        "before.db",
        ".gitignore",
    ];
    let folder = Path::new(".skillc");
    for rel in std::iter::once(folder.to_path_buf()).chain(own.iter().map(|n| folder.join(n))) {
        let linked =
            std::fs::symlink_metadata(root.join(&rel)).is_ok_and(|m| m.file_type().is_symlink());
        if linked {
            return Err(StudioError::new(
                "io",
                format!(
                    "`{}` is a symbolic link: the studio keeps its files under `.skillc/` only in real folders of the workspace; remove the link (nothing was written or removed)",
                    rel.display()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::testing::{sample, DEMO};
    use super::*;

    #[test]
    fn checks_and_builds_read_again_the_files_the_watcher_names() {
        const OTHER: &str = "public/assistant/greeting/SKILL.md";
        let (_d, s) = sample();
        s.disk().watching();
        assert!(s.build(None).unwrap().written);
        let description = |s: &Session, file: &str| {
            let report = s.check().unwrap();
            let skill = report.workspace.skills.iter().find(|k| k.file == file);
            skill.unwrap().frontmatter.description.clone().unwrap()
        };
        let other = description(&s, OTHER);
        let rewrite = |file: &str, to: &str| {
            let text = std::fs::read_to_string(s.root().join(file)).unwrap();
            let old = description(&s, file);
            std::fs::write(s.root().join(file), text.replacen(&old, to, 1)).unwrap();
        };
        rewrite(DEMO, "Named by the watcher.");
        rewrite(OTHER, "Changed behind the watcher's back.");
        // Only DEMO is reported: both readers read it again and take every other file as the
        // last look read it (a walk would have seen OTHER change too).
        s.disk().files_changed([DEMO.to_string()]);
        assert_eq!(description(&s, DEMO), "Named by the watcher.");
        assert_eq!(description(&s, OTHER), other);
        assert!(s.build(None).unwrap().written);
        let catalog = s.preview(&PreviewRequest::default()).unwrap().catalog.text;
        assert!(catalog.contains("Named by the watcher."));
        assert!(!catalog.contains("behind the watcher's back"));
        // A change it cannot name makes both walk.
        s.disk().changed();
        assert_eq!(description(&s, OTHER), "Changed behind the watcher's back.");
    }

    #[test]
    fn a_check_is_served_again_until_the_disk_changes() {
        let (_d, s) = sample();
        s.disk().watching();
        let description = |s: &Session| {
            let report = s.check().unwrap();
            let demo = report.workspace.skills.iter().find(|k| k.file == DEMO);
            demo.unwrap().frontmatter.description.clone().unwrap()
        };
        let before = description(&s);
        let text = std::fs::read_to_string(s.root().join(DEMO)).unwrap();
        let edited = text.replacen(&before, "Edited behind the watcher's back.", 1);
        std::fs::write(s.root().join(DEMO), edited).unwrap();
        // No change reported: the last check is the answer (the watcher reports every change
        // the studio does not make itself).
        assert_eq!(description(&s), before);
        // A draft is checked, and does not become the disk's answer.
        let draft = RawFile::new(DEMO, text.replacen(&before, "A draft.", 1).into_bytes());
        let drafted = s.check_with(&[draft]).unwrap();
        let demo = drafted.workspace.skills.iter().find(|k| k.file == DEMO);
        assert_eq!(
            demo.unwrap().frontmatter.description.as_deref(),
            Some("A draft.")
        );
        assert_eq!(description(&s), before);
        s.disk().changed();
        assert_eq!(description(&s), "Edited behind the watcher's back.");
    }

    #[test]
    fn checks_between_changes_skip_the_walk_yet_see_every_change_they_are_told_of() {
        let (d, s) = sample();
        let ws = d.path().join("ws");
        s.disk().watching();
        let has = |name: &str| s.overview().unwrap().skills.iter().any(|k| k.name == name);
        assert!(!has("fresh-one"));
        // A skill the watcher has not reported yet: a check in between trusts the last walk.
        std::fs::create_dir_all(ws.join("public/fresh-one")).unwrap();
        let skill = "---\nname: fresh-one\ndescription: New.\n---\nBody.\n";
        std::fs::write(ws.join("public/fresh-one/SKILL.md"), skill).unwrap();
        assert!(
            !has("fresh-one"),
            "the check walked although nothing was reported"
        );
        // Reported (what the watcher does): the next check walks and finds it.
        s.disk().changed();
        assert!(has("fresh-one"));
        // The studio's own writes need no watcher: they mark the folder changed themselves.
        let created = s
            .create_skill(&NewSkill {
                name: "made-here".into(),
                ..NewSkill::default()
            })
            .unwrap();
        assert!(has("made-here"), "{created}");
        let text = s
            .read(&created)
            .unwrap()
            .text
            .replace("made-here", "renamed-here");
        s.save(&created, &text, None).unwrap();
        assert!(has("renamed-here"));
    }

    /// A translation written before `translated_from` (the sample's `SKILL.fr.md`) is
    /// unmarked until git history shows its default changed after the translation's last
    /// commit: then the view says stale, as `check` does (W121).
    #[test]
    fn a_translation_without_translated_from_is_stale_when_history_says_so() {
        use super::testing::{committed_sample, git_in};
        let dir = tempfile::tempdir().unwrap();
        let (repo, _) = committed_sample(dir.path());
        let s = Session::open(&repo.join("skills")).unwrap();
        let fr = |s: &Session| {
            let t = s.translations(DEMO).unwrap();
            t.locales.iter().find(|l| l.locale == "fr").unwrap().state
        };
        assert_eq!(fr(&s), "unmarked");
        let file = repo.join("skills").join(DEMO);
        let text = std::fs::read_to_string(&file).unwrap();
        let edited = text.replacen("description: ", "description: Now, ", 1);
        assert_ne!(edited, text);
        std::fs::write(&file, edited).unwrap();
        git_in(&repo, &["commit", "-qam", "the default changes"]);
        let s = Session::open(&repo.join("skills")).unwrap();
        assert_eq!(fr(&s), "stale");
    }

    #[test]
    fn a_translation_is_created_from_the_default_and_goes_stale_when_the_default_changes() {
        let (_d, s) = sample();
        let t = s.translations(DEMO).unwrap();
        let states: Vec<(&str, &str)> = t
            .locales
            .iter()
            .map(|l| (l.locale.as_str(), l.state))
            .collect();
        assert_eq!(states, [("en-gb", "missing"), ("fr", "unmarked")]);
        let gb = s.create_translation(DEMO, "en-gb").unwrap();
        assert_eq!(gb, "public/response_ending/demo_offer/SKILL.en-gb.md");
        let text = s.read(&gb).unwrap().text;
        assert!(
            text.contains(&format!("translated_from: {}", t.digest)),
            "{text}"
        );
        let again = s.translations(&gb).unwrap();
        assert_eq!(again.open_locale.as_deref(), Some("en-gb"));
        let state = |t: &crate::translations::Translations| {
            t.locales
                .iter()
                .find(|l| l.locale == "en-gb")
                .unwrap()
                .state
        };
        // A copy of the default is not a translation yet, whatever it says it follows.
        assert_eq!(state(&again), "untranslated");
        let gb_locale = again.locales.iter().find(|l| l.locale == "en-gb").unwrap();
        assert_eq!(
            gb_locale.serving,
            [
                "example.com",
                "hyperline.co",
                "ibanfirst.com",
                "northwind.io"
            ],
            "augment.org serves en and fr only"
        );
        let copy = s.read(&gb).unwrap();
        let translated = crate::form::set_field(
            &copy.text,
            "description",
            Some(&serde_json::json!("Offer a demo, in British English.")),
        )
        .unwrap();
        s.save(&gb, &translated, Some(&copy.hash)).unwrap();
        assert_eq!(state(&s.translations(&gb).unwrap()), "current");
        assert!(s
            .overview()
            .unwrap()
            .diagnostics
            .iter()
            .all(|d| d.file != gb));
        // The default's description changes: the French text is now stale, and the build says so.
        let default = s.read(DEMO).unwrap();
        let edited = crate::form::set_field(
            &default.text,
            "description",
            Some(&serde_json::json!("Offer a live demo.")),
        )
        .unwrap();
        s.save(DEMO, &edited, Some(&default.hash)).unwrap();
        let t = s.translations(DEMO).unwrap();
        assert_eq!(state(&t), "stale");
        let report = s.check().unwrap();
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.code == "W121" && d.file == gb),
            "the build warns about the stale translation"
        );
        assert_eq!(
            s.create_translation(DEMO, "en-gb").unwrap_err().kind,
            "request"
        );
        assert_eq!(
            s.create_translation(DEMO, "xx").unwrap_err().kind,
            "request"
        );
    }

    #[test]
    fn reach_counts_the_clients_a_variant_takes_and_a_variant_counts_its_own() {
        let (_d, s) = sample();
        let o = s.overview().unwrap();
        let file = |name: &str| {
            (o.skills.iter())
                .find(|k| k.name == name && k.client.is_empty())
                .map(|k| k.file.clone())
                .unwrap()
        };
        let clients = |l: &[crate::relations::reach::ClientShare]| -> Vec<String> {
            l.iter().map(|c| c.client.clone()).collect()
        };
        // northwind.io has its own; augment.org always gets the aware variant, hyperline.co
        // the battlecard (standard, pro) or the aware one (fast): two clients get this text.
        let r = s.relations(&file("competitors")).unwrap().reach;
        assert_eq!((r.clients, r.getting), (5, 2), "{r:#?}");
        assert_eq!(clients(&r.instead), ["augment.org", "hyperline.co"]);
        assert!(r.partly.is_empty() && r.global);
        let hyperline: Vec<(String, bool, String)> = (r.instead[1].shares.iter())
            .map(|x| (x.text.name.clone(), x.this, x.place.clone()))
            .collect();
        assert_eq!(
            hyperline,
            [
                (
                    "competitors_battlecard".into(),
                    false,
                    "in tier standard or pro".into()
                ),
                ("competitors_aware".into(), false, "in tier fast".into())
            ]
        );
        // The aware variant: augment.org always, hyperline.co in its fast tier only.
        let r = s.relations(&file("competitors_aware")).unwrap().reach;
        assert_eq!(r.getting, 1, "{r:#?}");
        assert_eq!(clients(&r.partly), ["hyperline.co"]);
        assert_eq!(clients(&r.instead), ["example.com", "ibanfirst.com"]);
        assert!(!r.global && r.replaced_when.is_empty());
        // A skill with run-time conditions says them.
        let r = s.relations(&file("content_gating")).unwrap().reach;
        assert!(!r.conditions.is_empty(), "{r:#?}");
    }

    #[test]
    fn relations_name_variants_overrides_and_composition_both_ways() {
        let (_d, s) = sample();
        let o = s.overview().unwrap();
        let file = |name: &str, client: &str| {
            o.skills
                .iter()
                .find(|k| k.name == name && k.client == client)
                .map(|k| k.file.clone())
                .unwrap_or_else(|| panic!("no skill {name} of {client:?}"))
        };
        let competitors = s.relations(&file("competitors", "")).unwrap();
        assert!(
            competitors
                .variants
                .iter()
                .any(|v| v.link.name == "competitors_aware"
                    && v.when == ["flag competitors.names is set"]),
            "{:?}",
            competitors.variants
        );
        let aware = s.relations(&file("competitors_aware", "")).unwrap();
        assert_eq!(
            aware.variant_of.as_ref().map(|l| l.name.as_str()),
            Some("competitors")
        );
        let pricing = s.relations(&file("pricing", "")).unwrap();
        assert!(pricing
            .overridden_by
            .iter()
            .any(|l| l.client == "ibanfirst.com"));
        let theirs = s.relations(&file("pricing", "ibanfirst.com")).unwrap();
        assert_eq!(
            theirs.overrides.and_then(|l| l.file),
            Some(file("pricing", ""))
        );
        // The reach of an edit: five clients, ibanfirst.com with its own pricing.
        assert_eq!((pricing.reach.clients, pricing.reach.getting), (5, 4));
        assert!(pricing.reach.global && pricing.reach.turned_off.is_empty());
        let own: Vec<&str> = pricing
            .reach
            .own_version
            .iter()
            .map(|l| l.client.as_str())
            .collect();
        assert_eq!(own, ["ibanfirst.com"]);
        assert_eq!(
            theirs.reach.getting, 1,
            "a client's skill reaches its client only"
        );
        let demo = s.relations(&file("demo_offer", "")).unwrap();
        let toggled: Vec<&str> = demo.toggled_by.iter().map(|t| t.client.as_str()).collect();
        assert!(toggled.contains(&"example.com"), "{toggled:?}");
        assert_eq!(demo.reach.turned_off, ["example.com"]);
        assert_eq!(demo.reach.getting, 4);
        // Every link one way shows up the other way.
        let mut seen = 0;
        for k in &o.skills {
            let r = s.relations(&k.file).unwrap();
            for l in r.uses.dependencies.iter().filter_map(|l| l.file.as_ref()) {
                seen += 1;
                let back = s.relations(l).unwrap();
                assert!(back
                    .used_by
                    .dependencies
                    .iter()
                    .any(|b| b.file.as_ref() == Some(&k.file)));
            }
        }
        assert!(seen > 0, "the sample has dependencies to follow back");
        assert_eq!(s.relations("workspace.yaml").unwrap_err().kind, "request");
    }

    #[test]
    fn overview_lists_skills_by_scope_with_diagnostics() {
        let (_d, s) = sample();
        let o = s.overview().unwrap();
        assert!(o
            .skills
            .iter()
            .any(|r| r.name == "pricing-uk" && r.client == "ibanfirst.com"));
        assert!(o.clients.contains(&"hyperline.co".to_string()));
        // The sample has warnings and no errors: the count comes, the list stays empty.
        assert!(o.warnings > 0);
        assert!(o.diagnostics.is_empty());
    }

    #[test]
    fn a_skillc_folder_linked_elsewhere_is_refused_and_nothing_is_written_there() {
        let (d, _) = sample();
        let ws = d.path().join("ws");
        let elsewhere = d.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let _ = std::fs::remove_dir_all(ws.join(".skillc"));
        std::os::unix::fs::symlink(&elsewhere, ws.join(".skillc")).unwrap();
        let err = Session::open(&ws).err().expect("refused");
        assert!(
            err.message.contains("`.skillc` is a symbolic link"),
            "{}",
            err.message
        );
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        // A link further down is refused too.
        std::fs::remove_file(ws.join(".skillc")).unwrap();
        std::fs::create_dir_all(ws.join(".skillc")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, ws.join(".skillc/trash")).unwrap();
        assert!(Session::open(&ws).is_err());
    }

    #[test]
    fn paths_outside_the_workspace_are_refused() {
        let (_d, s) = sample();
        for bad in ["../x", "/etc/passwd", "a/../../b", ""] {
            assert_eq!(s.read(bad).unwrap_err().kind, "outside", "{bad}");
        }
    }
}
