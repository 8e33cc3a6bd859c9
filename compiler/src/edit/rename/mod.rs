//! Renaming a skill everywhere (`skillc rename`, the studio's rename): its `name`, its folder
//! when the folder bears the name, and every reference to it: the reference fields of every
//! SKILL.md (`dependencies`, `augments`, `blocks`, `distinct_from`, `variant_of`, `next_skill`,
//! `imports`, `conditional_next_skills`, and `<skill>_availability` condition keys), client
//! overrides and translations (their `name`), clients' toggles, workspace.yaml's consumer
//! lists, test cases (`select`, `routes_to`, …, `removed` and its reasons, context keys) and the
//! workspace's markdown (CATEGORY.md, README.md, skill bodies) where it names the skill as a
//! whole word. Only those bytes change. [`plan`] lists every change without writing; [`apply`]
//! writes them.

use std::ops::Range;
use std::path::Path;

use serde::Serialize;

mod scalars;

use scalars::{name_span, refers_to, scalars, words, Scalar};

use super::Error;

/// One line a rename changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Change {
    /// The file, relative to the workspace, with `/`.
    pub file: String,
    /// The line (1-based).
    pub line: usize,
    /// The line as it is (without its line ending).
    pub old: String,
    /// The line as the rename leaves it.
    pub new: String,
}

/// A folder a rename moves (a skill's folder named as the skill).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Move {
    /// The folder, relative to the workspace.
    pub from: String,
    /// Where it goes.
    pub to: String,
}

/// Everything a rename changes, to show before it is applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RenamePlan"))]
pub struct Rename {
    /// The skill's name.
    pub old: String,
    /// Its new name.
    pub new: String,
    /// Every changed line, by file then line.
    pub changes: Vec<Change>,
    /// Every folder moved.
    pub moves: Vec<Move>,
    /// The edited files' new texts.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    texts: Vec<(String, String)>,
}

/// The frontmatter fields whose values are skill names.
const REFERENCE_FIELDS: &[&str] = &[
    "dependencies",
    "augments",
    "blocks",
    "distinct_from",
    "variant_of",
    "next_skill",
    "import",
    "imports",
    "conditional_next_skills",
];

/// The test case fields that list skill names.
const CASE_FIELDS: &[&str] = &[
    "select",
    "routes_to",
    "routes_not_to",
    "catalog_includes",
    "catalog_excludes",
    "prompt_includes",
    "prompt_excludes",
];

/// Plans renaming the skill `old` of the workspace `root` to `new`: nothing is written.
pub fn plan(root: &Path, old: &str, new: &str) -> Result<Rename, Error> {
    let loaded = crate::parse::load::load_dir(root, None, &[]).map_err(|e| io(root, e))?;
    let ws = &loaded.workspace;
    let valid = !new.is_empty()
        && new
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(Error::Invalid(format!(
            "`{new}` is not a skill name (letters, digits, `-` and `_`)"
        )));
    }
    if old == new || ws.skills.iter().any(|s| s.name == new) {
        return Err(Error::Invalid(format!(
            "a skill `{new}` is already in `{}`",
            root.display()
        )));
    }
    // Every text file of the folder: test cases and guidance are not part of the model.
    let boundary = crate::discover::fsio::canonical_root(root).map_err(|e| io(root, e))?;
    let (files, _) =
        crate::discover::fsio::read_tree(root, "", &boundary).map_err(|e| io(root, e))?;
    let own: std::collections::HashSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let named: Vec<_> = ws.skills.iter().filter(|s| s.name == old).collect();
    if named.is_empty() {
        let hint =
            crate::parse::names::did_you_mean(old, ws.skills.iter().map(|s| s.name.as_str()))
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
        return Err(Error::Invalid(format!(
            "no skill `{old}` in `{}`{hint}",
            root.display()
        )));
    }
    if !named.iter().any(|s| own.contains(s.file.as_str())) {
        return Err(Error::Invalid(format!(
            "`{old}` is not written in `{}` (it comes from an external repository or a root \
             outside it): rename it where it is written",
            root.display()
        )));
    }
    let mut rename = Rename {
        old: old.to_string(),
        new: new.to_string(),
        changes: Vec::new(),
        moves: Vec::new(),
        texts: Vec::new(),
    };
    for file in &files {
        let Ok(bytes) = crate::discover::fsio::contents_of(file) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue; // not text: nothing to rename in it
        };
        let spans = spans_in(&file.rel, text, old);
        if !spans.is_empty() {
            rename.edit(&file.rel, text, &spans);
        }
    }
    let dirs = named
        .iter()
        .filter(|s| s.folder_name == old && !s.dir.is_empty() && own.contains(s.file.as_str()))
        .map(|s| s.dir.as_str());
    rename.moves = moves(root, dirs, new)?;
    Ok(rename)
}

/// The folders named as the skill, each moved to a sibling named `new` (which must not exist).
fn moves<'a>(
    root: &Path,
    dirs: impl Iterator<Item = &'a str>,
    new: &str,
) -> Result<Vec<Move>, Error> {
    let mut out = Vec::new();
    for dir in dirs {
        let to = match dir.rsplit_once('/') {
            Some((parent, _)) => format!("{parent}/{new}"),
            None => new.to_string(),
        };
        if root.join(&to).exists() {
            return Err(Error::Invalid(format!(
                "cannot move `{dir}` to `{to}`: it exists"
            )));
        }
        out.push(Move {
            from: dir.to_string(),
            to,
        });
    }
    out.sort_by(|a, b| a.from.cmp(&b.from));
    out.dedup();
    Ok(out)
}

/// Writes a planned rename: every edited file (each replaced whole, atomically), then the
/// folder moves.
pub fn apply(root: &Path, rename: &Rename) -> Result<(), Error> {
    for (file, text) in &rename.texts {
        super::write_atomic(&root.join(file), text.as_bytes())?;
    }
    for m in &rename.moves {
        let (from, to) = (root.join(&m.from), root.join(&m.to));
        std::fs::rename(&from, &to).map_err(|source| Error::Io { path: from, source })?;
    }
    Ok(())
}

fn io(root: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: root.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    }
}

impl Rename {
    /// Records the edit of `file` whose `spans` (sorted, apart) hold the old name.
    fn edit(&mut self, file: &str, text: &str, spans: &[Range<usize>]) {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for s in spans {
            out.push_str(&text[at..s.start]);
            out.push_str(&self.new);
            at = s.end;
        }
        out.push_str(&text[at..]);
        let (old_lines, new_lines) = (super::lines(text), super::lines(&out));
        let mut changed: Vec<usize> = spans
            .iter()
            .map(|s| text[..s.start].matches('\n').count())
            .collect();
        changed.dedup();
        let bare = |l: &str| l.trim_end_matches(['\n', '\r']).to_string();
        for i in changed {
            self.changes.push(Change {
                file: file.to_string(),
                line: i + 1,
                old: bare(old_lines[i]),
                new: bare(new_lines[i]),
            });
        }
        self.texts.push((file.to_string(), out));
    }
}

/// Where the file `file` (workspace-relative) with `text` names the skill `old`, sorted.
fn spans_in(file: &str, text: &str, old: &str) -> Vec<Range<usize>> {
    let name = file.rsplit('/').next().unwrap_or(file);
    let mut spans = if name.starts_with("SKILL") && name.ends_with(".md") {
        skill_spans(text, old)
    } else if name.ends_with(".md") {
        prose_spans(text, 0, old)
    } else if name == "client.yaml" {
        yaml_spans(text, 0, old, |s| {
            s.key && s.path == ["toggles"] && s.value == old
        })
    } else if name == "workspace.yaml" {
        yaml_spans(text, 0, old, |s| {
            !s.key
                && s.path.len() == 4
                && s.path[0] == "consumers"
                && ["enabled", "disabled"].contains(&s.path[2].as_str())
                && refers_to(&s.value, old)
        })
    } else if file.starts_with("tests/") && (name.ends_with(".yaml") || name.ends_with(".yml")) {
        yaml_spans(text, 0, old, |s| in_case(s, old))
    } else {
        Vec::new()
    };
    spans.sort_by_key(|s| s.start);
    spans.dedup();
    spans
}

/// A test case's scalar that names the skill: in a list of names, a key or reason of
/// `removed`, a context key `<skill>_availability`.
fn in_case(s: &Scalar, old: &str) -> bool {
    let under = |field: &str| s.path.iter().any(|p| p == field);
    let listed = CASE_FIELDS.iter().any(|f| under(f)) && !s.key && refers_to(&s.value, old);
    let removed = under("removed")
        && (s.key && refers_to(&s.value, old) || !s.key && !words(&s.value, old).is_empty());
    listed || removed || availability(s, old)
}

/// A condition or context key `<skill>_availability`.
fn availability(s: &Scalar, old: &str) -> bool {
    s.value.strip_suffix("_availability") == Some(old)
}

/// The spans of `old` in the scalars of `yaml` (at `offset` in the file) that `keep` selects.
fn yaml_spans(
    yaml: &str,
    offset: usize,
    old: &str,
    keep: impl Fn(&Scalar) -> bool,
) -> Vec<Range<usize>> {
    let Some(all) = scalars(yaml) else {
        return Vec::new(); // a file that does not parse is `check`'s to report
    };
    let mut out = Vec::new();
    for s in all.iter().filter(|s| keep(s)) {
        if availability(s, old) {
            let raw = &yaml[s.span.clone()];
            if let Some(i) = raw.find(&format!("{old}_availability")) {
                let start = offset + s.span.start + i;
                out.push(start..start + old.len());
            }
        } else if s.value.contains(' ') {
            // A reason (`excluded:demo_offer by x`): every whole-word mention.
            let raw = &yaml[s.span.clone()];
            let at = offset + s.span.start;
            out.extend(
                words(raw, old)
                    .into_iter()
                    .map(|r| at + r.start..at + r.end),
            );
        } else if let Some(r) = name_span(yaml, s, old) {
            out.push(offset + r.start..offset + r.end);
        }
    }
    out
}

/// The spans of a SKILL.md: its `name` when it is the skill (an override, a translation), its
/// reference fields, its conditions' availability keys, and its body's mentions.
fn skill_spans(text: &str, old: &str) -> Vec<Range<usize>> {
    let unmarked = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok(split) = crate::parse::yaml::split_frontmatter("SKILL.md", unmarked) else {
        return prose_spans(text, 0, old);
    };
    let at = |part: &str| part.as_ptr() as usize - text.as_ptr() as usize;
    let mut spans = yaml_spans(split.yaml, at(split.yaml), old, |s| {
        let field = s.path.first().map(String::as_str);
        let named = field == Some("name") && !s.key && s.value == old;
        let reference = field.is_some_and(|f| REFERENCE_FIELDS.contains(&f))
            && !s.key
            && refers_to(&s.value, old);
        named || reference || availability(s, old)
    });
    spans.extend(prose_spans(split.body, at(split.body), old));
    spans
}

/// A markdown text's whole-word mentions of the skill. A name that is an ordinary word
/// (`greeting`, `pricing`) is renamed only where it is written as code (`` `pricing` ``) or
/// qualified (`public.pricing`): in prose it is most likely the word.
fn prose_spans(text: &str, offset: usize, old: &str) -> Vec<Range<usize>> {
    let plain_word = old.chars().all(char::is_alphabetic);
    words(text, old)
        .into_iter()
        .filter(|r| {
            let before = text[..r.start].chars().next_back();
            let after = text[r.end..].chars().next();
            !plain_word || before == Some('`') && after == Some('`') || before == Some('.')
        })
        .map(|r| offset + r.start..offset + r.end)
        .collect()
}

/// `skillc rename`: plans, and unless `dry_run`, applies. The plan is returned either way.
pub fn rename(root: &Path, old: &str, new: &str, dry_run: bool) -> Result<Rename, Error> {
    let rename = plan(root, old, new)?;
    if !dry_run {
        apply(root, &rename)?;
    }
    Ok(rename)
}
