//! A collection written for other tools (no workspace.yaml) may hold two folders that declare
//! the same name (`brand-guidelines-anthropic/` and `brand-guidelines-community/`, both `name:
//! brand-guidelines`). They are two skills: each is named after its folder, with one warning
//! (W122) per name, never the duplicate error a workspace gets (E013).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::diagnostic::{codes, Diagnostic};
use crate::model::{Scope, Workspace};
use crate::parse::names;

/// Renames the skills of each group that declares one name in one scope after their folders,
/// when their folder names tell them apart and are no other skill's name.
pub(super) fn tell_apart_by_folder(ws: &mut Workspace, out: &mut Vec<Diagnostic>) {
    if ws.config.authored {
        return;
    }
    let mut groups: BTreeMap<(Scope, String), Vec<usize>> = BTreeMap::new();
    for (i, s) in ws.skills.iter().enumerate() {
        groups
            .entry((s.scope.clone(), s.qualified_name()))
            .or_default()
            .push(i);
    }
    for ((scope, qualified), members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
        // A folder name another skill of the scope already has would clash again.
        let others: HashSet<&str> = (ws.skills.iter().enumerate())
            .filter(|(i, s)| s.scope == scope && !members.contains(i))
            .map(|(_, s)| s.name.as_str())
            .collect();
        let places: Vec<(&str, &str)> = (members.iter())
            .map(|&i| (ws.skills[i].folder_name.as_str(), ws.skills[i].dir.as_str()))
            .collect();
        let Some((folders, depth)) = distinct_names(&places, &others) else {
            continue; // E013 says which folders clash
        };
        let first = &ws.skills[members[0]];
        let (file, pos) = (first.file.clone(), first.name_pos);
        let declared = first.name.clone();
        for (&i, folder) in members.iter().zip(&folders) {
            Arc::make_mut(&mut ws.skills[i]).name = folder.clone();
        }
        out.push(
            Diagnostic::new(
                codes::SAME_NAME_FOLDERS,
                &file,
                pos,
                format!(
                    "`{qualified}` is declared by {} folders; they are {} skills here, named after their {}: {}",
                    folders.len(),
                    folders.len(),
                    if depth == 1 { "folders" } else { "folders and the folders above them" },
                    folders.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .with_help(format!(
                "give each its own `name` (or add a workspace.yaml, which makes `{declared}` twice an error)"
            )),
        );
    }
}

/// The names that tell apart skills in these `(folder name, folder)` places: each one's folder
/// name, or, where those are the same (an aggregator's `alice/linear` and `bob/linear`, backups
/// of one plugin), its last `depth` folders joined by `-` (`alice-linear`), the fewest that
/// differ and are no name of `others`; with that depth. None when even the whole paths clash.
fn distinct_names(places: &[(&str, &str)], others: &HashSet<&str>) -> Option<(Vec<String>, usize)> {
    let parts: Vec<Vec<&str>> = (places.iter())
        .map(|(_, dir)| dir.split('/').filter(|p| !p.is_empty()).collect())
        .collect();
    let deepest = parts.iter().map(Vec::len).max().unwrap_or(0).max(1);
    (1..=deepest).find_map(|depth| {
        let names: Vec<String> = (places.iter().zip(&parts))
            .map(|((folder, _), p)| match depth {
                1 => names::normalize(folder),
                _ => names::normalize(&p[p.len().saturating_sub(depth)..].join("-")),
            })
            .collect();
        let distinct: HashSet<&String> = names.iter().collect();
        let free = names.iter().all(|n| !others.contains(n.as_str()));
        (distinct.len() == names.len() && free).then_some((names, depth))
    })
}
