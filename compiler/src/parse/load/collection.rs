//! A collection written for other tools (no workspace.yaml) may hold two folders that declare
//! the same name (`brand-guidelines-anthropic/` and `brand-guidelines-community/`, both `name:
//! brand-guidelines`). They are two skills: each is named after its folder, with one warning
//! (W122) per name, never the duplicate error a workspace gets (E013). It may also list
//! packages to install under `dependencies`, as other tools read the field: set aside (W116).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::diagnostic::{codes, Diagnostic};
use crate::model::{Scope, SkillRef, Workspace};
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

/// Sets aside, in a collection, the `dependencies` that list packages to install (Anthropic's
/// first skill format: "software packages required by your Skill") rather than skills: a list
/// holding an entry no skill name could be (`crewai>=1.2.0`, `npm or yarn`,
/// `claude-flow@alpha`), or every list of a collection that writes such lists in five skills or
/// more (davila7/claude-code-templates: 34 lists with versions, and `[torch, transformers]` in
/// 62 others, `transformers` being a skill of it too, which the list does not mean). One W116
/// each, the list kept under `metadata`. Elsewhere a list of plain names is skillc's, and a
/// name that is no skill stays the error it is in a workspace (E012).
pub(super) fn set_aside_package_lists(ws: &mut Workspace, out: &mut Vec<Diagnostic>) {
    if ws.config.authored {
        return;
    }
    let lists = package_lists(ws);
    for i in lists {
        let skill = Arc::make_mut(&mut ws.skills[i]);
        let deps = std::mem::take(&mut skill.frontmatter.dependencies);
        let texts: Vec<&str> = deps.iter().map(|r| r.text.as_str()).collect();
        let shown: Vec<String> = texts.iter().take(3).map(|t| format!("`{t}`")).collect();
        out.push(
            Diagnostic::new(
                codes::FOREIGN_FIELD,
                &skill.file,
                deps[0].pos,
                format!(
                    "`dependencies` here lists packages ({}{}), not skills; it is ignored \
                     (another tool's field?)",
                    shown.join(", "),
                    if texts.len() > 3 { ", …" } else { "" }
                ),
            )
            .with_help(
                "the list is kept under `metadata` on export; a workspace.yaml reads it as \
                 skill names",
            ),
        );
        let text = serde_json::to_string(&texts).unwrap_or_default();
        skill
            .frontmatter
            .metadata
            .entry("dependencies".into())
            .or_insert(text);
    }
}

/// The skills (by index) whose `dependencies` list packages (see above).
fn package_lists(ws: &Workspace) -> Vec<usize> {
    let lists_packages = |i: &usize| {
        ws.skills[*i]
            .frontmatter
            .dependencies
            .iter()
            .any(is_package)
    };
    let declaring: Vec<usize> = (0..ws.skills.len())
        .filter(|&i| !ws.skills[i].frontmatter.dependencies.is_empty())
        .collect();
    let dialect = declaring.iter().filter(|i| lists_packages(i)).count() >= 5;
    (declaring.into_iter())
        .filter(|i| dialect || lists_packages(i))
        .collect()
}

/// An entry no skill name could be: a version (`1.2`), a space, or a package manager's mark.
fn is_package(r: &SkillRef) -> bool {
    let digit = |b: &u8| b.is_ascii_digit();
    let bytes = r.text.as_bytes();
    let version = (bytes.windows(3)).any(|w| digit(&w[0]) && w[1] == b'.' && digit(&w[2]));
    version
        || r.text
            .contains(|c: char| c.is_whitespace() || "<>=@/()~^!,".contains(c))
}
