//! Bulk toggle edits as a person makes them: a chosen set of clients (a list, not only a part of
//! a name), a plan to confirm before anything is written, the test cases the change breaks, and
//! an undo that puts each file back byte for byte. The choices are plain functions over the
//! matrix, the undo over file texts.

use serde::{Deserialize, Serialize};

/// Clients × skills, compact enough for 500 clients × 1,000 skills: one character per cell.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
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
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct ToggleChange {
    /// Client id.
    pub client: String,
    /// Skill name.
    pub skill: String,
    /// The new state.
    pub value: Option<bool>,
}

/// What the toggles view is filtered by, as typed.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, ts_rs::TS)]
pub struct ToggleFilter {
    /// Clients: ids or parts of ids, separated by commas, semicolons, spaces or new lines.
    pub clients: String,
    /// Skills, the same way.
    pub skills: String,
    /// One category, or empty for every one.
    pub category: String,
}

/// The rows and columns of the matrix a filter keeps, by index.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Selection {
    /// Client indices.
    pub clients: Vec<usize>,
    /// Skill indices.
    pub skills: Vec<usize>,
}

/// A bulk edit before it is written: the toggles that change (cells already so, and other
/// clients' own skills, are left out), per client, for the person to confirm.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct BulkPlan {
    /// The toggles to set.
    pub changes: Vec<ToggleChange>,
    /// How many of them each client gets, in the matrix's order.
    pub clients: Vec<(String, usize)>,
    /// Cells of the selection that are that way already.
    pub unchanged: usize,
}

/// The names a typed list picks, by index, in the list's order of names: each term picks the
/// name that is it (ignoring case), or else every name that holds it. Nothing typed: all.
pub fn pick(text: &str, names: &[String]) -> Vec<usize> {
    let terms: Vec<String> = text
        .split([',', ';', ' ', '\n', '\t'])
        .map(|t| t.trim().to_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    if terms.is_empty() {
        return (0..names.len()).collect();
    }
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    let mut keep = vec![false; names.len()];
    for term in &terms {
        match lower.iter().position(|n| n == term) {
            Some(i) => keep[i] = true,
            None => (lower.iter().enumerate())
                .filter(|(_, n)| n.contains(term.as_str()))
                .for_each(|(i, _)| keep[i] = true),
        }
    }
    (0..names.len()).filter(|&i| keep[i]).collect()
}

/// The rows and columns `f` keeps.
pub fn select(t: &Toggles, f: &ToggleFilter) -> Selection {
    Selection {
        clients: pick(&f.clients, &t.clients),
        skills: (pick(&f.skills, &t.skills).into_iter())
            .filter(|&i| f.category.is_empty() || t.categories[i] == f.category)
            .collect(),
    }
}

/// The toggles a bulk edit of the selection to `value` (on, off, or the skill's default)
/// changes.
pub fn plan(t: &Toggles, s: &Selection, value: Option<bool>) -> BulkPlan {
    let mut out = BulkPlan {
        changes: Vec::new(),
        clients: Vec::new(),
        unchanged: 0,
    };
    for &ci in &s.clients {
        let row = t.cells[ci].as_bytes();
        let mut n = 0;
        for &si in &s.skills {
            let already = match (row[si], value) {
                (b'-', _) => continue,
                (b'T', Some(true)) | (b't', Some(false)) => true,
                (code, None) => code != b'T' && code != b't',
                _ => false,
            };
            if already {
                out.unchanged += 1;
                continue;
            }
            n += 1;
            out.changes.push(ToggleChange {
                client: t.clients[ci].clone(),
                skill: t.skills[si].clone(),
                value,
            });
        }
        if n > 0 {
            out.clients.push((t.clients[ci].clone(), n));
        }
    }
    out
}

/// The cases failing in `outcomes` that were not failing before (`before`: their names).
pub fn broken(
    before: &[String],
    outcomes: &[skillc::cases::Outcome],
) -> Vec<skillc::cases::Outcome> {
    (outcomes.iter())
        .filter(|o| !o.passed() && !before.contains(&o.case.name))
        .cloned()
        .collect()
}

/// One file an applied edit wrote: its text before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Path inside the workspace.
    pub file: String,
    /// The text before the edit.
    pub before: String,
    /// The text the edit wrote.
    pub after: String,
}

/// The toggle edits that can be undone: the last number given, and each edit's files by its
/// number.
pub type Edits = (u64, Vec<(u64, Vec<Written>)>);

/// What undoing an edit writes: each file's text before it, provided every file is still what
/// the edit wrote (`now`: each file's text today, in the same order); else the first file
/// changed since, and nothing is written.
pub fn undo<'a>(
    written: &'a [Written],
    now: &[Option<String>],
) -> Result<Vec<(&'a str, &'a str)>, &'a str> {
    for (w, n) in written.iter().zip(now) {
        if n.as_deref() != Some(w.after.as_str()) {
            return Err(&w.file);
        }
    }
    Ok((written.iter())
        .map(|w| (w.file.as_str(), w.before.as_str()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix() -> Toggles {
        Toggles {
            clients: ["augment.org", "hyperline.co", "hyperline.co.uk"]
                .map(String::from)
                .to_vec(),
            skills: ["competitors", "pricing", "pricing-uk"]
                .map(String::from)
                .to_vec(),
            categories: [
                "response_handling",
                "response_handling",
                "response_handling",
            ]
            .map(String::from)
            .to_vec(),
            cells: ["DtD", "TD-", "DD-"].map(String::from).to_vec(),
        }
    }

    #[test]
    fn a_list_picks_exactly_the_clients_it_names_and_a_part_still_filters() {
        let t = matrix();
        // A list of whole ids: those clients, and not hyperline.co.uk, which holds one of them.
        assert_eq!(pick("hyperline.co, augment.org", &t.clients), [0, 1]);
        assert_eq!(pick("augment.org\nhyperline.co.uk", &t.clients), [0, 2]);
        // A part of a name, as before: every client holding it.
        assert_eq!(pick("hyperline", &t.clients), [1, 2]);
        assert_eq!(pick("  ", &t.clients), [0, 1, 2]);
        assert_eq!(pick("nobody", &t.clients), Vec::<usize>::new());
    }

    #[test]
    fn a_plan_changes_only_what_differs_and_counts_it_per_client() {
        let t = matrix();
        let f = ToggleFilter {
            clients: "augment.org, hyperline.co".into(),
            skills: "competitors pricing-uk".into(),
            category: String::new(),
        };
        let s = select(&t, &f);
        assert_eq!(
            s,
            Selection {
                clients: vec![0, 1],
                skills: vec![0, 2]
            }
        );
        let off = plan(&t, &s, Some(false));
        let who: Vec<(&str, &str)> = (off.changes.iter())
            .map(|c| (c.client.as_str(), c.skill.as_str()))
            .collect();
        // hyperline.co has no pricing-uk (another client's skill): left out, not counted.
        assert_eq!(
            who,
            [
                ("augment.org", "competitors"),
                ("augment.org", "pricing-uk"),
                ("hyperline.co", "competitors")
            ]
        );
        assert_eq!(
            off.clients,
            [("augment.org".into(), 2), ("hyperline.co".into(), 1)]
        );
        // Back to the defaults: only hyperline.co's toggle is written.
        let default = plan(&t, &s, None);
        assert_eq!((default.changes.len(), default.unchanged), (1, 2));
    }

    #[test]
    fn an_undo_puts_back_the_texts_only_if_no_one_changed_them_since() {
        let w = vec![
            Written {
                file: "a.yaml".into(),
                before: "x: { enabled: true }\n".into(),
                after: "x: false\n".into(),
            },
            Written {
                file: "b.yaml".into(),
                before: "# b\n".into(),
                after: "# b\nx: false\n".into(),
            },
        ];
        let now = |a: &str, b: &str| vec![Some(a.to_string()), Some(b.to_string())];
        assert_eq!(
            undo(&w, &now("x: false\n", "# b\nx: false\n")),
            Ok(vec![
                ("a.yaml", "x: { enabled: true }\n"),
                ("b.yaml", "# b\n")
            ])
        );
        assert_eq!(
            undo(&w, &now("x: false\n", "# b\nx: true\n")),
            Err("b.yaml")
        );
        assert_eq!(undo(&w, &[Some("x: false\n".into()), None]), Err("b.yaml"));
    }
}
