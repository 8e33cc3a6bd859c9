//! Claude Code plugins and marketplaces: `.claude-plugin/plugin.json` makes its folder a plugin,
//! `.claude-plugin/marketplace.json` lists plugins by `source` folder. Each plugin is a
//! namespace for the skills under its `skills/` folder (or the ones its marketplace entry
//! lists): they are named `<plugin>:<skill>`, as Claude Code names them, so the same skill name
//! in two plugins is two skills.

use serde_json::{Map, Value};

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::discover::fsio::RawFile;
use crate::model::Plugin;
use crate::parse::names;

use super::{text_of, Texts};

/// The plugins the manifests declare, in manifest path order (a plugin folder that both a
/// marketplace entry and its own `plugin.json` describe is one plugin: its own manifest's
/// fields first).
pub(super) fn plugins(
    manifests: &[&RawFile],
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) -> Vec<Plugin> {
    let mut found: Vec<Plugin> = Vec::new();
    let mut listed: Vec<Plugin> = Vec::new();
    for f in manifests {
        let Some(text) = text_of(f, out, texts) else {
            continue;
        };
        // `<root>/.claude-plugin/<file>`
        let root = f.rel.rsplitn(3, '/').nth(2).unwrap_or("");
        let object = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                out.push(problem(f, Pos::start(), "it is not a JSON object".into()));
                continue;
            }
            Err(e) => {
                let pos = Pos {
                    line: e.line().max(1),
                    column: e.column().max(1),
                    len: 0,
                };
                out.push(problem(f, pos, format!("it is not valid JSON: {e}")));
                continue;
            }
        };
        if f.rel.ends_with("/marketplace.json") {
            listed.extend(marketplace(f, root, &object, out));
        } else {
            found.push(own_manifest(f, root, &object, out));
        }
    }
    // A marketplace entry for a folder with its own plugin.json fills in what it lacks.
    for entry in listed {
        match found.iter_mut().find(|p| p.root == entry.root) {
            Some(own) => {
                own.version = own.version.take().or(entry.version);
                own.description = own.description.take().or(entry.description);
                own.author = own.author.take().or(entry.author);
                if entry.skill_dirs.is_some() {
                    own.skill_dirs = entry.skill_dirs;
                }
            }
            None => found.push(entry),
        }
    }
    found
}

/// The plugin a skill folder belongs to: the one whose skill folders hold it most closely
/// (the first declared on a tie).
pub(super) fn plugin_of<'p>(dir: &str, plugins: &'p [Plugin]) -> Option<&'p Plugin> {
    let mut best: Option<(usize, &Plugin)> = None;
    for p in plugins {
        let default = [join(&p.root, "skills")];
        let holders = p.skill_dirs.as_deref().unwrap_or(&default);
        for h in holders {
            let inside = dir == h.as_str() && p.skill_dirs.is_some()
                || dir
                    .strip_prefix(h.as_str())
                    .is_some_and(|r| r.starts_with('/'))
                || h.is_empty() && !dir.is_empty();
            if inside && best.is_none_or(|(len, _)| h.len() > len) {
                best = Some((h.len(), p));
            }
        }
    }
    best.map(|(_, p)| p)
}

fn join(dir: &str, name: &str) -> String {
    match (dir, name) {
        ("", n) => n.to_string(),
        (d, "") => d.to_string(),
        (d, n) => format!("{d}/{n}"),
    }
}

fn problem(f: &RawFile, pos: Pos, why: String) -> Diagnostic {
    Diagnostic::new(
        codes::PLUGIN_MANIFEST,
        &f.rel,
        pos,
        format!("this plugin manifest is not read: {why}"),
    )
    .with_help("the skills of the plugin are named without it until the manifest is fixed")
}

fn text(o: &Map<String, Value>, key: &str) -> Option<String> {
    match o.get(key)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    }
}

/// `author` is a name or `{name, email, url}`.
fn author(o: &Map<String, Value>) -> Option<String> {
    match o.get("author")? {
        Value::Object(a) => text(a, "name"),
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    }
}

/// A folder path written in a manifest (`./plugins/x`, `skills/`), relative to `base`; `None`
/// when it leaves `base` or is absolute.
fn relative(base: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = if base.is_empty() {
        Vec::new()
    } else {
        base.split('/').collect()
    };
    let floor = parts.len();
    if path.starts_with('/') {
        return None;
    }
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.len() > floor => {
                parts.pop();
            }
            ".." => return None,
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Skill folders a manifest lists (`skills`: a path or a list of them), relative to `root`.
fn skill_paths(o: &Map<String, Value>, root: &str) -> Option<Vec<String>> {
    let paths: Vec<&str> = match o.get("skills")? {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    Some(paths.iter().filter_map(|p| relative(root, p)).collect())
}

fn named(f: &RawFile, o: &Map<String, Value>, root: &str, out: &mut Vec<Diagnostic>) -> String {
    let folder = root.rsplit('/').next().unwrap_or(root);
    // A marketplace's `source` is any text, so its folder's name may hold control characters.
    let folder = match folder.is_empty() || folder.chars().any(char::is_control) {
        true => "plugin",
        false => folder,
    };
    match checked(f, o, "name", out) {
        Ok(Some(n)) => names::normalize(&n),
        Ok(None) => {
            let d = Diagnostic::new(
                codes::PLUGIN_MANIFEST,
                &f.rel,
                Pos::start(),
                format!("this plugin manifest has no `name`; the plugin is named `{folder}` after its folder"),
            );
            out.push(d.with_help("add `\"name\": \"…\"` as Claude Code requires"));
            names::normalize(folder)
        }
        Err(()) => names::normalize(folder),
    }
}

/// A text field of a manifest, refused (`Err`, reported escaped as E010) when it holds control
/// characters: printed raw, ESC or BEL would drive the terminal or CI log showing a catalog,
/// a check or `explain`, as a skill's name would.
fn checked(
    f: &RawFile,
    o: &Map<String, Value>,
    key: &str,
    out: &mut Vec<Diagnostic>,
) -> Result<Option<String>, ()> {
    let value = match key {
        "author" => author(o),
        _ => text(o, key),
    };
    match value {
        Some(v) if v.chars().any(char::is_control) => {
            let d = Diagnostic::new(
                codes::INVALID_VALUE,
                &f.rel,
                Pos::start(),
                format!(
                    "this plugin's `{key}` holds control characters: `{}`; it is not used",
                    v.escape_debug()
                ),
            );
            out.push(d.with_help(
                "names and descriptions are printed in terminals, logs and catalogs: use letters, digits and punctuation",
            ));
            Err(())
        }
        v => Ok(v),
    }
}

/// A manifest's metadata field, left out when it holds control characters.
fn meta(
    f: &RawFile,
    o: &Map<String, Value>,
    key: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<String> {
    checked(f, o, key, out).ok().flatten()
}

fn own_manifest(
    f: &RawFile,
    root: &str,
    o: &Map<String, Value>,
    out: &mut Vec<Diagnostic>,
) -> Plugin {
    // A plugin.json's `skills` paths add to its `skills/` folder.
    let skill_dirs = skill_paths(o, root).map(|mut v| {
        v.insert(0, join(root, "skills"));
        v
    });
    Plugin {
        name: named(f, o, root, out),
        version: meta(f, o, "version", out),
        description: meta(f, o, "description", out),
        author: meta(f, o, "author", out),
        root: root.to_string(),
        manifest: f.rel.clone(),
        skill_dirs,
    }
}

/// The plugins a marketplace lists with a folder of this one as `source` (a plugin fetched
/// from elsewhere, `{"source": "github", …}`, has nothing here to read).
fn marketplace(
    f: &RawFile,
    root: &str,
    o: &Map<String, Value>,
    out: &mut Vec<Diagnostic>,
) -> Vec<Plugin> {
    let Some(Value::Array(entries)) = o.get("plugins") else {
        out.push(problem(f, Pos::start(), "it has no `plugins` list".into()));
        return Vec::new();
    };
    let plugin_root = o
        .get("metadata")
        .and_then(Value::as_object)
        .and_then(|m| text(m, "pluginRoot"));
    let mut plugins = Vec::new();
    for entry in entries.iter().filter_map(Value::as_object) {
        let Some(source) = text(entry, "source") else {
            continue;
        };
        // `pluginRoot` is put before a source that is a bare folder name.
        let source = match &plugin_root {
            Some(base) if !source.starts_with("./") && !source.starts_with("../") => {
                join(base.trim_end_matches('/'), &source)
            }
            _ => source,
        };
        let Some(folder) = relative(root, &source) else {
            let d = problem(
                f,
                Pos::start(),
                format!("the source `{source}` is outside the marketplace's folder"),
            );
            out.push(d);
            continue;
        };
        plugins.push(Plugin {
            name: named(f, entry, &folder, out),
            version: meta(f, entry, "version", out),
            description: meta(f, entry, "description", out),
            author: meta(f, entry, "author", out),
            skill_dirs: skill_paths(entry, &folder),
            root: folder,
            manifest: f.rel.clone(),
        });
    }
    plugins
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(root: &str, skill_dirs: Option<Vec<&str>>) -> Plugin {
        Plugin {
            name: root.rsplit('/').next().unwrap_or("p").to_string(),
            root: root.to_string(),
            skill_dirs: skill_dirs.map(|v| v.into_iter().map(String::from).collect()),
            ..Plugin::default()
        }
    }

    #[test]
    fn a_skill_belongs_to_the_plugin_holding_it_most_closely() {
        let plugins = [
            plugin("plugins/discord", None),
            plugin("plugins/telegram", None),
            plugin("", Some(vec!["skills/xlsx", "skills/docx"])),
        ];
        let of = |d: &str| plugin_of(d, &plugins).map(|p| p.root.as_str());
        assert_eq!(of("plugins/discord/skills/access"), Some("plugins/discord"));
        assert_eq!(
            of("plugins/telegram/skills/access"),
            Some("plugins/telegram")
        );
        assert_eq!(of("plugins/discord/access"), None);
        assert_eq!(of("skills/xlsx"), Some(""));
        assert_eq!(of("skills/pdf"), None);
    }

    #[test]
    fn manifest_paths_stay_inside_their_folder() {
        assert_eq!(relative("", "./plugins/x/").as_deref(), Some("plugins/x"));
        assert_eq!(relative("m", "./").as_deref(), Some("m"));
        assert_eq!(relative("m", "a/../b").as_deref(), Some("m/b"));
        assert_eq!(relative("m", "../x"), None);
        assert_eq!(relative("", "/etc"), None);
    }
}
