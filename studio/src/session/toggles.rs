//! The toggle matrix: every skill against every client, with where each value comes from,
//! and bulk edits written to each client's file once.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use skillc::model::Scope;

use super::disk::WritesOnDisk;
use super::{edit_err, io_err, Session};
use crate::error::StudioError;

/// Clients × skills, compact enough for 500 clients × 1,000 skills: one character per cell.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Toggles {
    /// Client ids (rows).
    pub clients: Vec<String>,
    /// Skill names (columns).
    pub skills: Vec<String>,
    /// Each skill's category (empty when none), for filtering and bulk edits.
    pub categories: Vec<String>,
    /// One string per client, one character per skill: `T`/`t` toggled on/off in its
    /// client.yaml, `E`/`e` on/off by the skill's `default_enabled`, `D` on by default, `-` a
    /// skill of another client.
    pub cells: Vec<String>,
}

/// One toggle to set: on, off, or back to the skill's default (`None`).
#[derive(Debug, Clone, serde::Deserialize, PartialEq, Eq)]
pub struct ToggleChange {
    /// Client id.
    pub client: String,
    /// Skill name.
    pub skill: String,
    /// The new state.
    pub value: Option<bool>,
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

    /// Sets (or clears, with `None`) toggles in the clients' `client.yaml` files, all checked
    /// together and each file written once.
    pub fn set_toggles(&self, changes: &[ToggleChange]) -> Result<usize, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        // The compiler's lossless edit (the code behind `skillc toggle`): only the toggles'
        // lines change; comments and order stay; an unreadable client.yaml is never replaced.
        let clients: BTreeSet<&str> = changes.iter().map(|c| c.client.as_str()).collect();
        for client in clients {
            self.inside(&format!("clients/{client}/client.yaml"))?;
        }
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
        assert_eq!(s.set_toggles(&changes).unwrap(), t.clients.len());
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
