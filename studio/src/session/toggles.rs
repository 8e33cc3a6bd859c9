//! The toggle matrix: every skill against every client, with where each value comes from,
//! and bulk edits written to each client's file once.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use skillc::model::Scope;

use super::bulk::{self, BulkPlan, Selection, ToggleChange, ToggleFilter, Toggles};
use super::disk::WritesOnDisk;
use super::{edit_err, io_err, Session};
use crate::error::StudioError;

/// A toggle edit written: how many client files changed, and the number that undoes it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Applied {
    /// Client files written.
    pub files: usize,
    /// Give it to [`Session::undo_toggles`] to put those files back as they were.
    pub undo: u64,
}

impl Session {
    /// The clients × skills matrix with the cascade: toggle > default_enabled > enabled.
    pub fn toggles(&self) -> Result<Toggles, StudioError> {
        let report = self.check()?;
        let ws = &report.workspace;
        let mut defaults: BTreeMap<String, Option<bool>> = BTreeMap::new();
        let mut categories: BTreeMap<String, String> = BTreeMap::new();
        // Which clients have each skill: `None` for global skills (every client).
        let mut owners: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
        for s in ws
            .skills
            .iter()
            .filter(|s| s.frontmatter.variant_of.is_none())
        {
            defaults
                .entry(s.name.clone())
                .or_insert(s.frontmatter.default_enabled);
            categories
                .entry(s.name.clone())
                .or_insert_with(|| s.category.clone().unwrap_or_default());
            let owner = owners.entry(s.name.clone()).or_insert(Some(Vec::new()));
            match (&s.scope, owner.as_mut()) {
                (Scope::Global, _) => *owner = None,
                (Scope::Client(c), Some(list)) => list.push(c.clone()),
                (Scope::Client(_), None) => {}
            }
        }
        let skills: Vec<String> = defaults.keys().cloned().collect();
        let clients: Vec<String> = ws.clients.keys().cloned().collect();
        let cells = clients
            .iter()
            .map(|c| {
                let client = &ws.clients[c];
                skills
                    .iter()
                    .map(|s| match (client.toggles.get(s), defaults[s]) {
                        _ if owners[s].as_ref().is_some_and(|o| !o.contains(c)) => '-',
                        (Some(t), _) => {
                            if t.enabled {
                                'T'
                            } else {
                                't'
                            }
                        }
                        (None, Some(d)) => {
                            if d {
                                'E'
                            } else {
                                'e'
                            }
                        }
                        (None, None) => 'D',
                    })
                    .collect()
            })
            .collect();
        let categories = skills
            .iter()
            .map(|n| categories.get(n).cloned().unwrap_or_default())
            .collect();
        Ok(Toggles {
            clients,
            skills,
            categories,
            cells,
        })
    }

    /// The rows and columns a filter keeps (the list of clients typed picks exactly those).
    pub fn select_toggles(&self, f: &ToggleFilter) -> Result<Selection, StudioError> {
        // The matrix's axes only, in its order (a keystroke in a filter at 500 clients ×
        // 1,000 skills needs no cells).
        let report = self.check()?;
        let ws = &report.workspace;
        let mut categories: BTreeMap<&str, &str> = BTreeMap::new();
        for s in (ws.skills.iter()).filter(|s| s.frontmatter.variant_of.is_none()) {
            categories
                .entry(&s.name)
                .or_insert_with(|| s.category.as_deref().unwrap_or_default());
        }
        let t = Toggles {
            clients: ws.clients.keys().cloned().collect(),
            skills: categories.keys().map(|k| k.to_string()).collect(),
            categories: categories.values().map(|k| k.to_string()).collect(),
            cells: Vec::new(),
        };
        Ok(bulk::select(&t, f))
    }

    /// What setting every cell a filter keeps to `value` would change, to confirm first.
    pub fn plan_toggles(
        &self,
        f: &ToggleFilter,
        value: Option<bool>,
    ) -> Result<BulkPlan, StudioError> {
        let t = self.toggles()?;
        Ok(bulk::plan(&t, &bulk::select(&t, f), value))
    }

    /// The cases the last build fails that were passing before (`before`: the names of those
    /// failing then), with what did not hold.
    pub fn cases_broken_since(
        &self,
        before: &[String],
    ) -> Result<Vec<skillc::cases::Outcome>, StudioError> {
        Ok(bulk::broken(before, &self.test_cases()?.outcomes))
    }

    /// Puts back every file the toggle edit `undo` wrote, byte for byte, unless one of them
    /// changed since (then nothing is written).
    pub fn undo_toggles(&self, undo: u64) -> Result<usize, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let mut edits = self.toggle_edits.lock().map_err(io_err)?;
        let Some(at) = edits.1.iter().position(|(n, _)| *n == undo) else {
            return Err(StudioError::request("that toggle edit was undone already"));
        };
        let written = &edits.1[at].1;
        let now: Vec<Option<String>> = (written.iter())
            .map(|w| std::fs::read_to_string(self.root.join(&w.file)).ok())
            .collect();
        let back = bulk::undo(written, &now).map_err(|file| {
            StudioError::request(format!(
                "`{file}` changed since this toggle edit: set the toggles again by hand"
            ))
        })?;
        for (file, text) in &back {
            super::write_atomic(&self.inside(file)?, text.as_bytes())?;
        }
        let n = back.len();
        edits.1.remove(at);
        Ok(n)
    }

    /// Sets (or clears, with `None`) toggles in the clients' `client.yaml` files, all checked
    /// together and each file written once; keeps each file's text before, for the undo.
    pub fn set_toggles(&self, changes: &[ToggleChange]) -> Result<Applied, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let files: Vec<String> = (changes.iter().map(|c| c.client.as_str()))
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .map(|client| format!("clients/{client}/client.yaml"))
            .collect();
        let mut before = Vec::new();
        for file in &files {
            before.push(std::fs::read_to_string(self.inside(file)?).ok());
        }
        let n = self.write_toggles(changes)?;
        let mut written = Vec::new();
        for (file, before) in files.into_iter().zip(before) {
            let after = std::fs::read_to_string(self.root.join(&file)).ok();
            if let (Some(before), Some(after)) = (before, after) {
                if before != after {
                    written.push(bulk::Written {
                        file,
                        before,
                        after,
                    });
                }
            }
        }
        let mut edits = self.toggle_edits.lock().map_err(io_err)?;
        edits.0 += 1;
        let undo = edits.0;
        edits.1.push((undo, written));
        // The undo list goes back a long way, not forever.
        if edits.1.len() > 200 {
            edits.1.remove(0);
        }
        Ok(Applied { files: n, undo })
    }

    /// The compiler's lossless edit (the code behind `skillc toggle`): only the toggles' lines
    /// change; comments and order stay; an unreadable client.yaml is never replaced.
    fn write_toggles(&self, changes: &[ToggleChange]) -> Result<usize, StudioError> {
        let edits: Vec<(&str, &str, skillc::edit::Toggle)> = changes
            .iter()
            .map(|c| {
                let toggle = match c.value {
                    Some(true) => skillc::edit::Toggle::On,
                    Some(false) => skillc::edit::Toggle::Off,
                    None => skillc::edit::Toggle::Default,
                };
                (c.client.as_str(), c.skill.as_str(), toggle)
            })
            .collect();
        let mut checks = self.checks.lock().map_err(io_err)?;
        skillc::edit::toggles_in_workspace_with(&self.root, &edits, &mut checks.session)
            .map(|written| written.len())
            .map_err(edit_err)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn a_bulk_toggle_writes_each_client_file_once_and_refuses_a_typo_whole() {
        let (_d, s) = sample();
        let t = s.toggles().unwrap();
        // Skills every client has (a client's own skill is unknown to the others).
        let global: Vec<&String> = t
            .skills
            .iter()
            .enumerate()
            .filter(|(i, _)| t.cells.iter().all(|row| row.as_bytes()[*i] != b'-'))
            .map(|(_, k)| k)
            .take(3)
            .collect();
        let changes: Vec<ToggleChange> = t
            .clients
            .iter()
            .flat_map(|c| global.iter().map(move |k| change(c, k, Some(false))))
            .collect();
        assert_eq!(s.set_toggles(&changes).unwrap().files, t.clients.len());
        let after = s.toggles().unwrap();
        for (ci, _) in after.clients.iter().enumerate() {
            for k in &global {
                let ki = after.skills.iter().position(|x| x == *k).unwrap();
                assert_eq!(after.cells[ci].as_bytes()[ki], b't');
            }
        }
        let mut with_typo = changes.clone();
        with_typo.iter_mut().for_each(|c| c.value = Some(true));
        with_typo.push(change(&t.clients[0], "no-such-skill", Some(true)));
        assert_eq!(s.set_toggles(&with_typo).unwrap_err().kind, "invalid");
        assert_eq!(
            s.toggles().unwrap(),
            after,
            "a refused bulk edit writes nothing"
        );
    }

    #[test]
    fn a_bulk_off_for_a_list_of_clients_names_the_cases_it_breaks_and_its_undo_changes_no_byte() {
        let (_d, s) = sample();
        s.build(None).unwrap();
        let failing = |s: &Session| -> Vec<String> {
            (s.test_cases().unwrap().outcomes.iter())
                .filter(|o| !o.passed())
                .map(|o| o.case.name.clone())
                .collect()
        };
        let before_failing = failing(&s);
        let f = ToggleFilter {
            clients: "hyperline.co, augment.org".into(),
            skills: "competitors".into(),
            category: String::new(),
        };
        let plan = s.plan_toggles(&f, Some(false)).unwrap();
        let who: Vec<&str> = plan.changes.iter().map(|c| c.client.as_str()).collect();
        assert_eq!(who, ["augment.org", "hyperline.co"]);
        let yaml =
            |c: &str| std::fs::read(s.root().join(format!("clients/{c}/client.yaml"))).unwrap();
        let (augment, hyperline) = (yaml("augment.org"), yaml("hyperline.co"));
        let applied = s.set_toggles(&plan.changes).unwrap();
        assert_eq!(applied.files, 2);
        s.build(None).unwrap();
        let broken: Vec<String> = (s.cases_broken_since(&before_failing).unwrap().iter())
            .map(|o| o.case.name.clone())
            .collect();
        assert_eq!(
            broken,
            [
                "tier 3 (roster and battlecards) answers with the battlecard variant",
                "tier 2 (a roster, no battlecards) answers with the aware variant"
            ]
        );
        // Undone: both files as they were, byte for byte; a second undo is refused.
        assert_eq!(s.undo_toggles(applied.undo).unwrap(), 2);
        assert_eq!(
            (yaml("augment.org"), yaml("hyperline.co")),
            (augment, hyperline)
        );
        assert_eq!(s.undo_toggles(applied.undo).unwrap_err().kind, "request");
        // A file changed since the edit is never overwritten by its undo.
        let applied = s.set_toggles(&plan.changes).unwrap();
        let file = s.root().join("clients/augment.org/client.yaml");
        let mine = format!("{}# mine\n", std::fs::read_to_string(&file).unwrap());
        std::fs::write(&file, &mine).unwrap();
        assert_eq!(s.undo_toggles(applied.undo).unwrap_err().kind, "request");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), mine);
    }

    #[test]
    fn the_toggle_matrix_shows_the_cascade_and_edits_client_yaml() {
        let (_d, s) = sample();
        let t = s.toggles().unwrap();
        let cell = |t: &Toggles, c: &str, k: &str| {
            let ci = t.clients.iter().position(|x| x == c).unwrap();
            let ki = t.skills.iter().position(|x| x == k).unwrap();
            t.cells[ci].as_bytes()[ki] as char
        };
        assert_eq!(cell(&t, "example.com", "demo_offer"), 't');
        assert_eq!(cell(&t, "augment.org", "content_gating"), 'e');
        assert_eq!(cell(&t, "augment.org", "pricing"), 'D');
        assert_eq!(cell(&t, "augment.org", "pricing-uk"), '-');
        let file = s.root().join("clients/augment.org/client.yaml");
        let before = std::fs::read_to_string(&file).unwrap();
        s.set_toggles(&[change("augment.org", "content_gating", Some(true))])
            .unwrap();
        // Lossless: every comment and every other line of client.yaml is still there.
        let after = std::fs::read_to_string(&file).unwrap();
        for line in before.lines().filter(|l| !l.contains("content_gating")) {
            assert!(after.contains(line), "lost {line:?}:\n{after}");
        }
        s.set_toggles(&[change("example.com", "demo_offer", None)])
            .unwrap();
        let t = s.toggles().unwrap();
        assert_eq!(cell(&t, "augment.org", "content_gating"), 'T');
        assert_eq!(cell(&t, "example.com", "demo_offer"), 'E');
        assert!(s
            .overview()
            .unwrap()
            .diagnostics
            .iter()
            .all(|d| d.severity == "warning"));
    }
}
