//! Which names a walk reads, skips or reports: hidden and tool folders, role files, the
//! manifests of a Claude Code plugin folder.

use std::path::Path;

/// The hidden folder of a Claude Code plugin or marketplace, and the manifests read from it.
pub(crate) const PLUGIN_FOLDER: &str = ".claude-plugin";
/// See [`PLUGIN_FOLDER`].
pub(crate) const PLUGIN_MANIFESTS: [&str; 2] = ["marketplace.json", "plugin.json"];

/// Whether a workspace-relative path names a Claude Code plugin manifest
/// (`…/.claude-plugin/plugin.json` or `marketplace.json`).
pub(crate) fn is_plugin_manifest(rel: &str) -> bool {
    let mut parts = rel.rsplit('/');
    let (name, folder) = (parts.next().unwrap_or(""), parts.next());
    folder == Some(PLUGIN_FOLDER) && PLUGIN_MANIFESTS.contains(&name)
}

/// Names never looked into: version control, dependencies, caches, hidden files.
pub(super) fn is_skipped(name: &str) -> bool {
    name.starts_with('.')
        || name == "node_modules"
        || name == "__pycache__"
        || name.ends_with(".pyc")
        || name.ends_with('~')
}

/// Hidden folders that are tools' own (never holding skills by intent).
pub(super) fn is_tool_folder(name: &str) -> bool {
    matches!(
        name,
        ".git" | ".hg" | ".svn" | ".skillc" | ".venv" | ".cache" | ".idea" | ".vscode"
    )
}

/// Files whose role needs a regular file: a folder with one of these names is a mistake.
pub(super) fn is_role_file(name: &str) -> bool {
    matches!(
        name,
        "SKILL.md" | "skill.md" | "CATEGORY.md" | "client.yaml" | "workspace.yaml"
    )
}

/// Whether a hidden folder holds a `SKILL.md` somewhere (a bounded look: names only).
pub(super) fn holds_skill(dir: &Path) -> bool {
    let mut pending = vec![(dir.to_path_buf(), 0)];
    let mut seen = 0usize;
    while let Some((d, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            seen += 1;
            if seen > 20_000 {
                return false;
            }
            let name = e.file_name();
            if name == "SKILL.md" || name == "skill.md" {
                return true;
            }
            let is_dir = e.file_type().is_ok_and(|k| k.is_dir());
            if is_dir && depth < 8 && name != "node_modules" && name != ".git" {
                pending.push((e.path(), depth + 1));
            }
        }
    }
    false
}
