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
        let folders: Vec<String> = (members.iter())
            .map(|&i| names::normalize(&ws.skills[i].folder_name))
            .collect();
        let distinct: HashSet<&String> = folders.iter().collect();
        // A folder name another skill of the scope already has would clash again.
        let others: HashSet<&str> = (ws.skills.iter().enumerate())
            .filter(|(i, s)| s.scope == scope && !members.contains(i))
            .map(|(_, s)| s.name.as_str())
            .collect();
        if distinct.len() != folders.len() || folders.iter().any(|f| others.contains(f.as_str())) {
            continue; // E013 says which folders clash
        }
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
                    "`{qualified}` is declared by {} folders; they are {} skills here, named after their folders: {}",
                    folders.len(),
                    folders.len(),
                    folders.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .with_help(format!(
                "give each its own `name` (or add a workspace.yaml, which makes `{declared}` twice an error)"
            )),
        );
    }
}
