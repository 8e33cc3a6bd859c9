//! Classifying a workspace's files by path alone: skills, categories, clients,
//! templates and workspace files. Pure: the walk order of the input never matters.

use std::collections::BTreeMap;

use crate::discover::fsio::RawFile;
use crate::model::Scope;

/// The files of one skill folder.
#[derive(Debug)]
pub(crate) struct SkillDir<'a> {
    /// Global or a client's.
    pub scope: Scope,
    /// Workspace-relative folder, no trailing slash.
    pub dir: String,
    /// The prefix of the scope's root (`""`, `clients/<id>/` or a custom root's prefix).
    pub scope_base: String,
    /// Namespace when neither frontmatter nor path gives one.
    pub default_namespace: &'static str,
    /// `SKILL.md` (or `skill.md`).
    pub main: &'a RawFile,
    /// `skill.md` when `SKILL.md` also exists.
    pub shadowed: Option<&'a RawFile>,
    /// Every other file, with its path inside the skill folder.
    pub files: Vec<(String, &'a RawFile)>,
}

/// A workspace's files by role.
#[derive(Debug, Default)]
pub(crate) struct Layout<'a> {
    /// `workspace.yaml`.
    pub workspace_yaml: Option<&'a RawFile>,
    /// `variables.json`.
    pub variables_json: Option<&'a RawFile>,
    /// `templates/*`.
    pub templates: Vec<&'a RawFile>,
    /// Client ids (folders under `clients/`) and their `client.yaml` if any.
    pub clients: BTreeMap<String, Option<&'a RawFile>>,
    /// `CATEGORY.md` files: scope, folder.
    pub categories: Vec<(Scope, String, &'a RawFile)>,
    /// Skill folders.
    pub skills: Vec<SkillDir<'a>>,
    /// Claude Code plugin and marketplace manifests (`.claude-plugin/*.json`), in path order.
    pub plugin_manifests: Vec<&'a RawFile>,
}

fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(p, _)| p)
}

fn file_name(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, n)| n)
}

/// `dir/name`, or `name` for the workspace root (`""`).
pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The path of `rel` inside the folder `dir` (`""`: the workspace root).
fn inside<'r>(dir: &str, rel: &'r str) -> &'r str {
    if dir.is_empty() {
        rel
    } else {
        &rel[dir.len() + 1..]
    }
}

fn is_skill_file(name: &str) -> bool {
    name == "SKILL.md" || name == "skill.md"
}

/// The outermost skill folder among `dir` and its ancestors, if any.
fn skill_owner<'d>(dir: &'d str, skill_dirs: &rustc_hash::FxHashSet<&str>) -> Option<&'d str> {
    let outer = dir.match_indices('/').map(|(i, _)| &dir[..i]);
    outer.chain([dir]).find(|a| skill_dirs.contains(a))
}

/// The scope of `rel` and its scope root's prefix.
fn scope_of(rel: &str, base: &str) -> (Scope, String) {
    let inner = &rel[base.len()..];
    if base.is_empty() {
        if let Some(rest) = inner.strip_prefix("clients/") {
            if let Some((id, _)) = rest.split_once('/') {
                return (Scope::Client(id.to_string()), format!("clients/{id}/"));
            }
        }
    }
    (Scope::Global, base.to_string())
}

/// Classifies `files` found below a root whose paths all start with `base` (`""` for the
/// workspace itself; a custom root's prefix otherwise, where every skill is `custom`).
pub(crate) fn classify<'a>(files: &'a [RawFile], base: &str) -> Layout<'a> {
    let custom = !base.is_empty();
    let mut layout = Layout::default();
    // `templates/` is the template folder only when it holds templates; a public collection's
    // `templates/` folder of skill skeletons is an ordinary folder.
    let is_template = |rel: &str| rel.starts_with("templates/") && rel.ends_with(".tera");
    let has_templates = !custom && files.iter().any(|f| is_template(&f.rel));
    let in_templates = |rel: &str| has_templates && rel.starts_with("templates/");

    let root_skill = !custom && files.iter().any(|f| is_skill_file(&f.rel));
    let skill_dirs = skill_folders(files, base, root_skill, &in_templates);
    let mut by_dir: rustc_hash::FxHashMap<&str, Vec<&'a RawFile>> = Default::default();
    // The files of a skill folder follow each other in path order: the last owner found is
    // tried first.
    let mut last_owner: Option<&str> = None;

    for f in files {
        let rel = f.rel.as_str();
        let dir = parent(rel);
        if root_skill && rel != "workspace.yaml" && rel != "variables.json" {
            by_dir.entry("").or_default().push(f);
            continue;
        }
        let under_last = last_owner.filter(|o| is_within(dir, o));
        if let Some(owner) = under_last.or_else(|| skill_owner(dir, &skill_dirs)) {
            by_dir.entry(owner).or_default().push(f);
            last_owner = Some(owner);
            continue;
        }
        if in_templates(rel) {
            // Only `.tera` files are templates; notes beside them are not read.
            if is_template(rel) {
                layout.templates.push(f);
            }
            continue;
        }
        let (scope, scope_base) = scope_of(rel, base);
        if let Scope::Client(id) = &scope {
            let entry = layout.clients.entry(id.clone()).or_default();
            if rel == format!("{scope_base}client.yaml") {
                *entry = Some(f);
                continue;
            }
        }
        if file_name(dir) == crate::discover::fsio::PLUGIN_FOLDER {
            layout.plugin_manifests.push(f);
            continue;
        }
        match file_name(rel) {
            "CATEGORY.md" => layout.categories.push((scope, dir.to_string(), f)),
            "workspace.yaml" if !custom && rel == "workspace.yaml" => {
                layout.workspace_yaml = Some(f)
            }
            "variables.json" if !custom && rel == "variables.json" => {
                layout.variables_json = Some(f)
            }
            _ => {}
        }
    }

    // In folder order, as the skills are listed.
    let mut by_dir: Vec<(&str, Vec<&'a RawFile>)> = by_dir.into_iter().collect();
    by_dir.sort_unstable_by_key(|(dir, _)| *dir);
    for (dir, dir_files) in by_dir {
        if let Some(skill) = skill_dir(dir, dir_files, base) {
            if let Scope::Client(id) = &skill.scope {
                if !layout.clients.contains_key(id) {
                    layout.clients.insert(id.clone(), None);
                }
            }
            layout.skills.push(skill);
        }
    }
    layout
}

/// Whether the folder `dir` is `folder` or inside it.
fn is_within(dir: &str, folder: &str) -> bool {
    dir.strip_prefix(folder)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Skill folders: any folder with SKILL.md, except inside another skill folder. A SKILL.md at
/// the workspace root makes the workspace that one skill (a single skill's folder checked or
/// built as it is); only the workspace's own config files then keep their role.
fn skill_folders<'a>(
    files: &'a [RawFile],
    base: &str,
    root_skill: bool,
    in_templates: &dyn Fn(&str) -> bool,
) -> rustc_hash::FxHashSet<&'a str> {
    let custom = !base.is_empty();
    let mut candidates: rustc_hash::FxHashSet<&str> = Default::default();
    for f in files {
        if is_skill_file(file_name(&f.rel)) && !in_templates(&f.rel) {
            let dir = parent(&f.rel);
            // A SKILL.md at a root describes the root itself, which holds the whole workspace.
            if dir.len() > base.trim_end_matches('/').len() && (custom || dir != "clients") {
                candidates.insert(dir);
            }
        }
    }
    if root_skill {
        candidates = [""].into_iter().collect();
    }
    // Not inside another candidate.
    let outermost = |d: &&str| {
        !d.match_indices('/')
            .any(|(i, _)| candidates.contains(&d[..i]))
    };
    candidates.iter().copied().filter(outermost).collect()
}

/// The skill in folder `dir` with its files (`None` when it has no SKILL.md after all).
fn skill_dir<'a>(dir: &str, dir_files: Vec<&'a RawFile>, base: &str) -> Option<SkillDir<'a>> {
    let (scope, scope_base) = scope_of(dir, base);
    let named = |name: &str| {
        let path = join(dir, name);
        dir_files.iter().find(|f| f.rel == path).copied()
    };
    let (main, shadowed) = match (named("SKILL.md"), named("skill.md")) {
        (Some(u), l) => (u, l),
        (None, Some(l)) => (l, None),
        (None, None) => return None,
    };
    let files = dir_files
        .into_iter()
        .filter(|f| !std::ptr::eq(*f, main))
        .map(|f| (inside(dir, &f.rel).to_string(), f))
        .collect();
    Some(SkillDir {
        scope,
        dir: dir.to_string(),
        scope_base,
        default_namespace: if base.is_empty() { "public" } else { "custom" },
        main,
        shadowed,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(paths: &[&str]) -> Vec<RawFile> {
        paths.iter().map(|p| RawFile::new(*p, "x")).collect()
    }

    #[test]
    fn finds_skills_at_any_depth_but_not_inside_other_skills() {
        let fs = files(&[
            "a/SKILL.md",
            "a/nested/SKILL.md",
            "deep/er/b/SKILL.md",
            "clients/acme/client.yaml",
            "clients/acme/x/c/SKILL.md",
            "templates/t/SKILL.md",
            "templates/prompt_skill.tera",
            "templates/README.md",
            "cat/CATEGORY.md",
        ]);
        let l = classify(&fs, "");
        let dirs: Vec<(&Scope, &str)> = l
            .skills
            .iter()
            .map(|s| (&s.scope, s.dir.as_str()))
            .collect();
        assert_eq!(
            dirs,
            vec![
                (&Scope::Global, "a"),
                (&Scope::Client("acme".into()), "clients/acme/x/c"),
                (&Scope::Global, "deep/er/b"),
            ]
        );
        assert_eq!(l.skills[0].files[0].0, "nested/SKILL.md");
        assert!(l.clients["acme"].is_some());
        assert_eq!(l.categories.len(), 1);
        assert_eq!(l.templates.len(), 1);
    }
}
