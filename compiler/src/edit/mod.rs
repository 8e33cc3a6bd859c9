//! Lossless edits of the files people write by hand: one frontmatter field of a SKILL.md
//! (`skillc set`), one toggle of a client.yaml (`skillc toggle`), and any value of a YAML file
//! by its path of keys (the studio's client page, [`set_path`]). Only the lines of the
//! edited field change; comments, key order, quoting, blank lines and line endings elsewhere stay
//! byte-identical. Skill Studio uses the same functions.
//!
//! The edits work on lines rather than through a YAML syntax tree: both operate on a top-level
//! key (or a key one level under `toggles:`) of block-style YAML, where a key's lines are exactly
//! its own line and the more-indented lines after it. That keeps every other byte untouched by
//! construction, with no re-serialisation anywhere. Every result is parsed again, and a write
//! that would leave the workspace failing `check` is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod items;
pub mod merge;
mod path;
pub mod rename;
pub use path::set_path;

use crate::diagnostic::{Diagnostic, Severity};
use crate::discover::fsio::RawFile;
use crate::pipeline::Session;

/// Why an edit was not made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing failed (an unreadable file is never replaced).
    #[error("`{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The request itself is wrong (a bad field name, a value that is not YAML, …).
    #[error("{0}")]
    Invalid(String),
    /// The edited workspace would not pass `check`: nothing was written.
    #[error("the edit would leave errors; nothing was written")]
    Refused(Vec<Diagnostic>),
}

/// One edit of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldEdit<'a> {
    /// Sets the field to this YAML text (`2`, `["Hi", "Hello"]`, a block).
    Set(&'a str),
    /// Removes the field.
    Unset,
}

/// A toggle's new state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toggle {
    /// Explicitly on.
    On,
    /// Explicitly off.
    Off,
    /// No toggle: `default_enabled`, then on.
    Default,
}

fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// The text's lines, each with its own line ending (the last may have none).
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The key a line writes at exactly `indent` spaces (`key:` followed by a space, the end of the
/// line or a comment), unquoted.
fn key_at(line: &str, indent: usize) -> Option<&str> {
    if indent_of(line) != indent {
        return None;
    }
    let rest = &line[indent..];
    if rest.starts_with('#') || rest.starts_with('-') {
        return None;
    }
    let colon = rest.find(':')?;
    let after = rest[colon + 1..].trim_end_matches(['\n', '\r']);
    if !(after.is_empty() || after.starts_with(' ') || after.starts_with('\t')) {
        return None;
    }
    Some(rest[..colon].trim().trim_matches(|c| c == '"' || c == '\''))
}

/// The lines `[start, end)` that hold `key` at `indent` among `lines[from..to]`: its own line
/// and the more-indented lines after it, not counting blank lines and comments that end the
/// block (they belong to what follows).
fn block(
    lines: &[&str],
    from: usize,
    to: usize,
    key: &str,
    indent: usize,
) -> Option<(usize, usize)> {
    let start = (from..to).find(|&i| key_at(lines[i], indent) == Some(key))?;
    let mut end = start + 1;
    let mut last_content = start + 1;
    while end < to {
        let l = lines[end];
        if is_blank_or_comment(l) {
            end += 1;
            continue;
        }
        let ind = indent_of(l);
        // A sequence at the key's own indent belongs to the key (`key:\n- a`).
        let sequence_at_key = ind == indent && l[ind..].starts_with("- ");
        if ind <= indent && !sequence_at_key {
            break;
        }
        end += 1;
        last_content = end;
    }
    Some((start, last_content))
}

/// The inline comment of a one-line value (`  # why`), kept when the value is replaced.
fn inline_comment(line: &str) -> Option<&str> {
    let body = line.trim_end_matches(['\n', '\r']);
    let colon = body.find(':')?;
    let value = &body[colon + 1..];
    if value.trim_start().starts_with(['"', '\'']) {
        return None; // a quoted value may hold `#`; leave its comment to the rewrite
    }
    let hash = value.find(" #")? + 1;
    // Keep the spaces that align the comment.
    let at = value[..hash].trim_end_matches([' ', '\t']).len();
    Some(&value[at..])
}

/// The lines that write `key: value` at `indent`, for a value given as YAML text.
fn render(key: &str, value: &str, indent: usize, nl: &str, comment: Option<&str>) -> String {
    let pad = " ".repeat(indent);
    let value = value.trim_end_matches(['\n', '\r']);
    // A one-line block list or mapping (`- a`, `k: v`) still needs its own lines under the key.
    let flow = value.trim_start().starts_with(['[', '{']);
    let nested = matches!(
        serde_yaml::from_str::<serde_yaml::Value>(value),
        Ok(serde_yaml::Value::Sequence(_) | serde_yaml::Value::Mapping(_))
    );
    if !value.contains('\n') && (flow || !nested) {
        return format!("{pad}{key}: {}{}{nl}", value.trim(), comment.unwrap_or(""));
    }
    // A block value: indented under the key, two spaces deeper than the key.
    let mut out = format!("{pad}{key}:{nl}");
    for l in value.lines() {
        if l.trim().is_empty() {
            out.push_str(nl);
        } else {
            out.push_str(&format!("{pad}  {}{nl}", l.trim_end_matches('\r')));
        }
    }
    out
}

/// Checks that `value` is YAML text of one value.
fn parse_value(value: &str) -> Result<serde_yaml::Value, Error> {
    serde_yaml::from_str::<serde_yaml::Value>(value)
        .map_err(|e| Error::Invalid(format!("the value is not YAML: {e}")))
}

/// Edits one top-level field of a SKILL.md's frontmatter, touching only that field's lines.
pub fn set_field(text: &str, field: &str, edit: &FieldEdit<'_>) -> Result<String, Error> {
    // A byte order mark is read past (as check reads past it) and kept.
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        return set_field(rest, field, edit).map(|out| format!("\u{feff}{out}"));
    }
    let ok_name = !field.is_empty()
        && field
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !ok_name {
        return Err(Error::Invalid(format!("`{field}` is not a field name")));
    }
    let split = crate::parse::yaml::split_frontmatter("SKILL.md", text)
        .map_err(|d| Error::Invalid(d.message))?;
    let ls = lines(text);
    // Frontmatter lines are [1, close): the first line is the opening fence.
    let close = split.body_first_line - 2;
    let nl = line_ending(text);
    let found = block(&ls, 1, close, field, 0);
    let replacement = match edit {
        FieldEdit::Set(value) => {
            parse_value(value)?;
            let comment = found
                .filter(|(s, e)| e - s == 1)
                .and_then(|(s, _)| inline_comment(ls[s]));
            render(field, value, 0, nl, comment)
        }
        FieldEdit::Unset => String::new(),
    };
    let (start, end) = match found {
        Some(range) => range,
        None if matches!(edit, FieldEdit::Unset) => {
            return Err(Error::Invalid(format!(
                "the frontmatter has no field `{field}`"
            )))
        }
        // A new field goes last, just before the closing fence.
        None => (close, close),
    };
    let mut out = String::with_capacity(text.len() + replacement.len());
    out.extend(ls[..start].iter().copied());
    out.push_str(&replacement);
    out.extend(ls[end..].iter().copied());
    Ok(out)
}

/// Sets one toggle of a client.yaml, touching only that toggle's lines (or adding `toggles:`).
pub fn set_toggle(text: &str, skill: &str, toggle: Toggle) -> Result<String, Error> {
    if skill.is_empty() || skill.contains([':', '#', '\n', '{', '}', '[', ']', ',']) {
        return Err(Error::Invalid(format!("`{skill}` is not a skill name")));
    }
    let ls = lines(text);
    let nl = line_ending(text);
    let value = match toggle {
        Toggle::On => Some("true"),
        Toggle::Off => Some("false"),
        Toggle::Default => None,
    };
    let Some((start, end)) = block(&ls, 0, ls.len(), "toggles", 0) else {
        let Some(value) = value else {
            return Ok(text.to_string()); // no toggles at all: already the default
        };
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(&format!("toggles:{nl}  {skill}: {value}{nl}"));
        return Ok(out);
    };
    let head = ls[start];
    let inline = head
        .trim_end_matches(['\n', '\r'])
        .split_once(':')
        .map_or("", |(_, v)| v)
        .trim();
    if !inline.is_empty() && !inline.starts_with('#') {
        // A flow mapping on the key's line (`toggles: { a: true }`): that one line is
        // rewritten from its parsed value.
        let line = flow_toggles(head, inline, skill, value, nl)?;
        let mut out: String = ls[..start].concat();
        out.push_str(&line);
        out.extend(ls[start + 1..].iter().copied());
        return Ok(out);
    }
    // Block style: the entries' indent is that of the first entry (two spaces if none).
    let child_indent = (start + 1..end)
        .find(|&i| !is_blank_or_comment(ls[i]))
        .map_or(2, |i| indent_of(ls[i]));
    let entry = block(&ls, start + 1, end, skill, child_indent);
    let comment = entry
        .filter(|(a, b)| b - a == 1)
        .and_then(|(a, _)| inline_comment(ls[a]));
    let replacement = value
        .map(|v| render(skill, v, child_indent, nl, comment))
        .unwrap_or_default();
    let (a, b) = match entry {
        Some(range) => range,
        None if value.is_none() => return Ok(text.to_string()),
        None => (end, end),
    };
    // The last toggle back to its default: the `toggles:` line goes too (unless comments stay
    // under it), so a file toggled and then untoggled is as it was.
    let emptied = value.is_none()
        && ls[start + 1..a]
            .iter()
            .chain(&ls[b..end])
            .all(|l| l.trim().is_empty());
    if emptied {
        let mut out: String = ls[..start].concat();
        out.extend(ls[start + 1..a].iter().copied());
        out.extend(ls[b..].iter().copied());
        return Ok(out);
    }
    let mut out: String = ls[..a].concat();
    if a == end && a > 0 && !ls[a - 1].ends_with('\n') {
        out.push_str(nl);
    }
    out.push_str(&replacement);
    out.extend(ls[b..].iter().copied());
    Ok(out)
}

/// The line `head` (`toggles: { … }`, whose mapping is `inline`) rewritten with `skill` set to
/// `value` (removed when `None`). A comment after the mapping (`toggles: {a: false}  # reviewed`)
/// stays, spaces and all.
fn flow_toggles(
    head: &str,
    inline: &str,
    skill: &str,
    value: Option<&str>,
    nl: &str,
) -> Result<String, Error> {
    let whole = head.trim_end_matches(['\n', '\r']);
    let comment = whole
        .rfind('}')
        .map(|i| &whole[i + 1..])
        .filter(|rest| rest.trim_start().starts_with('#'))
        .unwrap_or("");
    let parsed: serde_yaml::Value = serde_yaml::from_str(inline)
        .map_err(|e| Error::Invalid(format!("`toggles` does not parse: {e}")))?;
    let mut map = match parsed {
        serde_yaml::Value::Mapping(m) => m,
        serde_yaml::Value::Null => serde_yaml::Mapping::new(),
        _ => return Err(Error::Invalid("`toggles` is not a mapping".into())),
    };
    match value {
        Some(v) => {
            map.insert(skill.into(), serde_yaml::Value::Bool(v == "true"));
        }
        None => {
            map.remove(skill);
        }
    }
    if map.is_empty() && comment.is_empty() {
        return Ok(String::new()); // the last toggle gone: so is the line
    }
    let items: Vec<String> = map
        .iter()
        .map(|(k, v)| {
            let k = crate::parse::yaml::scalar_string(k).unwrap_or_default();
            let v = serde_json::to_string(v).unwrap_or_default();
            format!("{k}: {v}")
        })
        .collect();
    Ok(format!("toggles: {{ {} }}{comment}{nl}", items.join(", ")))
}

/// Writes `bytes` to `path` through a temporary file beside it, synced, then renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    crate::discover::fsio::output::replace(path, bytes).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The workspace folder holding `file`: the nearest ancestor with `workspace.yaml`; without
/// one, the folder above the skill's (a collection), unless that is a home folder, the temporary
/// folder or the root, where checking it would read everything there: then the skill's own
/// folder (a skill folder is a workspace).
fn workspace_of(file: &Path) -> PathBuf {
    let skill_dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(absolute) = skill_dir.canonicalize() else {
        return skill_dir; // reading the file reports it
    };
    if let Some(ws) = (absolute.ancestors()).find(|d| d.join("workspace.yaml").is_file()) {
        return ws.to_path_buf();
    }
    let canonical = |p: Option<PathBuf>| p.and_then(|p| p.canonicalize().ok());
    let too_wide = [
        canonical(std::env::var_os("HOME").map(PathBuf::from)),
        canonical(Some(std::env::temp_dir())),
    ];
    match absolute.parent() {
        Some(above)
            if above.parent().is_some() && !too_wide.iter().flatten().any(|w| w == above) =>
        {
            above.to_path_buf()
        }
        _ => absolute,
    }
}

/// Checks the workspace `root` as it would be with each `(path, text)` of `edits` written: the
/// errors that the edits add (errors already there are not their doing). Both checks run in
/// `session`, so the second re-reads and re-parses only the edited files (and a caller that
/// keeps its session, like the studio, re-reads nothing at all).
fn errors_added(
    root: &Path,
    edits: &[(PathBuf, String)],
    also: &[&str],
    session: &mut Session,
) -> Result<Vec<Diagnostic>, Error> {
    let canonical_root = root.canonicalize().map_err(|source| Error::Io {
        path: root.to_path_buf(),
        source,
    })?;
    let blocking = |d: &Diagnostic| d.severity == Severity::Error || also.contains(&d.code);
    let mut errors = |drafts: &[RawFile]| -> Result<Vec<Diagnostic>, Error> {
        let report = crate::workspace_check::check_cached(
            root,
            &crate::CheckOptions::default(),
            session,
            drafts,
        )
        .map_err(|e| Error::Io {
            path: root.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(report.diagnostics.into_iter().filter(blocking).collect())
    };
    let before: std::collections::HashSet<(&str, String)> = errors(&[])?
        .into_iter()
        .map(|d| (d.code, d.message))
        .collect();
    let drafts: Vec<RawFile> = edits
        .iter()
        .map(|(path, text)| {
            // The file may not exist yet (a first toggle creates client.yaml): its folder does.
            // A bare file name (`skillc set SKILL.md …` in its folder) is in the current folder:
            // its empty parent would not canonicalize, and the draft would check nothing.
            let canonical = match (path.parent(), path.file_name()) {
                (Some(dir), Some(name)) if dir.as_os_str().is_empty() => {
                    Path::new(".").canonicalize().map(|d| d.join(name))
                }
                (Some(dir), Some(name)) => dir.canonicalize().map(|d| d.join(name)),
                _ => path.canonicalize(),
            };
            let rel = canonical
                .ok()
                .and_then(|p| p.strip_prefix(&canonical_root).ok().map(Path::to_path_buf))
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            RawFile::new(rel, text.as_bytes())
        })
        .collect();
    Ok(errors(&drafts)?
        .into_iter()
        .filter(|d| !before.contains(&(d.code, d.message.clone())))
        .collect())
}

/// A workspace file an edit changes: a regular file of at most the size the compiler reads
/// (a link to `/dev/zero` or a pipe is refused, not read forever).
fn read(path: &Path) -> Result<String, Error> {
    let cap = Some(crate::discover::fsio::MAX_FILE_BYTES);
    let bytes = crate::discover::fsio::read_regular(path, cap).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes)
        .map_err(|_| Error::Invalid(format!("`{}` is not UTF-8", path.display())))
}

/// Writes `new` over the workspace file `path` unless it adds errors to the workspace.
fn write_unless_errors_added(path: &Path, new: &str) -> Result<(), Error> {
    let root = workspace_of(path);
    let mut session = Session::default();
    let added = errors_added(
        &root,
        &[(path.to_path_buf(), new.to_string())],
        &[],
        &mut session,
    )?;
    if !added.is_empty() {
        return Err(Error::Refused(added));
    }
    write_atomic(path, new.as_bytes())
}

/// `skillc set`: edits one field of the SKILL.md at `path`, refusing an edit that adds errors.
pub fn set_field_in_file(path: &Path, field: &str, edit: &FieldEdit<'_>) -> Result<(), Error> {
    let text = read(path)?;
    let new = set_field(&text, field, edit)?;
    write_unless_errors_added(path, &new)
}

/// `skillc set` on workspace.yaml or a client.yaml: edits the value at a dotted path of keys
/// (`routing.min_score`), only its lines, refusing an edit that adds errors or removes a value
/// that is not there.
pub fn set_path_in_file(path: &Path, dotted: &str, edit: &FieldEdit<'_>) -> Result<(), Error> {
    let text = read(path)?;
    let keys: Vec<&str> = dotted.split('.').collect();
    let new = set_path(&text, &keys, edit)?;
    if new == text && matches!(edit, FieldEdit::Unset) {
        return Err(Error::Invalid(format!(
            "`{}` has no `{dotted}`",
            path.display()
        )));
    }
    write_unless_errors_added(path, &new)
}

/// Whether `skillc set` edits `path` by a dotted path of keys (workspace and client settings)
/// rather than as a SKILL.md's frontmatter field.
pub fn is_settings_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "workspace.yaml" || n == "client.yaml")
}

/// `skillc toggle`: sets one toggle in `clients/<client>/client.yaml` of the workspace `root`.
pub fn toggle_in_workspace(
    root: &Path,
    client: &str,
    skill: &str,
    toggle: Toggle,
) -> Result<PathBuf, Error> {
    let mut written = toggles_in_workspace(root, &[(client, skill, toggle)])?;
    Ok(written.pop().unwrap_or_else(|| client_file(root, client)))
}

fn client_file(root: &Path, client: &str) -> PathBuf {
    root.join("clients").join(client).join("client.yaml")
}

/// Sets many toggles at once (the studio's bulk edits): each client.yaml touched is rewritten
/// once, only on the toggles' lines, after one check of the workspace with every change in
/// place. Returns the files written.
pub(crate) fn toggles_in_workspace(
    root: &Path,
    changes: &[(&str, &str, Toggle)],
) -> Result<Vec<PathBuf>, Error> {
    toggles_in_workspace_with(root, changes, &mut Session::default())
}

/// `toggles_in_workspace` checking in a session the caller keeps (the studio's).
pub fn toggles_in_workspace_with(
    root: &Path,
    changes: &[(&str, &str, Toggle)],
    session: &mut Session,
) -> Result<Vec<PathBuf>, Error> {
    // Each client's file: its text as read and as edited so far.
    let mut edits: BTreeMap<&str, (String, String)> = BTreeMap::new();
    for &(client, skill, toggle) in changes {
        if !edits.contains_key(client) {
            let dir = root.join("clients").join(client);
            if client.is_empty()
                || client.contains(['/', '\\'])
                || client.starts_with('.')
                || !dir.is_dir()
            {
                return Err(Error::Invalid(format!(
                    "no client `{client}` (no folder clients/{client}/ in `{}`)",
                    root.display()
                )));
            }
            let path = client_file(root, client);
            let text = if path.exists() {
                read(&path)?
            } else {
                String::new()
            };
            edits.insert(client, (text.clone(), text));
        }
        if let Some((_, new)) = edits.get_mut(client) {
            *new = set_toggle(new, skill, toggle)?;
        }
    }
    let changed: Vec<(PathBuf, String)> = edits
        .into_iter()
        .filter(|(_, (old, new))| old != new)
        .map(|(client, (_, new))| (client_file(root, client), new))
        .collect();
    if changed.is_empty() {
        return Ok(Vec::new());
    }
    // A toggle for a skill that does not exist is a typo, not a setting.
    let added = errors_added(root, &changed, &[crate::codes::UNKNOWN_TOGGLE], session)?;
    if !added.is_empty() {
        return Err(Error::Refused(added));
    }
    let mut written = Vec::new();
    for (path, text) in changed {
        write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL: &str = "---\n# Seed 000 annotates its fields\nname: demo_offer   # keep me\ndescription: 'Offer a demo'\ntrigger_examples:\n  - \"Can I see it?\"   # the classic\n  - Show me\n\npriority: 1\n---\nBody {{ x }}\n";

    #[test]
    fn setting_a_field_changes_only_its_lines() {
        let out = set_field(SKILL, "priority", &FieldEdit::Set("2")).unwrap();
        assert_eq!(out, SKILL.replace("priority: 1", "priority: 2"));
        let out = set_field(
            SKILL,
            "trigger_examples",
            &FieldEdit::Set("[\"Hi\", \"Hello\"]"),
        )
        .unwrap();
        assert_eq!(
            out,
            "---\n# Seed 000 annotates its fields\nname: demo_offer   # keep me\ndescription: 'Offer a demo'\ntrigger_examples: [\"Hi\", \"Hello\"]\n\npriority: 1\n---\nBody {{ x }}\n"
        );
        let out = set_field(SKILL, "name", &FieldEdit::Set("demo-offer")).unwrap();
        assert!(out.contains("name: demo-offer   # keep me\n"), "{out}");
    }

    #[test]
    fn new_fields_go_last_and_unset_removes_only_the_field() {
        let out = set_field(SKILL, "emoji", &FieldEdit::Set("\"🎬\"")).unwrap();
        assert_eq!(
            out,
            SKILL.replace("priority: 1\n---", "priority: 1\nemoji: \"🎬\"\n---")
        );
        let out = set_field(SKILL, "trigger_examples", &FieldEdit::Unset).unwrap();
        assert_eq!(
            out,
            "---\n# Seed 000 annotates its fields\nname: demo_offer   # keep me\ndescription: 'Offer a demo'\n\npriority: 1\n---\nBody {{ x }}\n"
        );
        assert!(set_field(SKILL, "nope", &FieldEdit::Unset).is_err());
        assert!(set_field(SKILL, "priority", &FieldEdit::Set("[unclosed")).is_err());
    }

    #[test]
    fn a_one_line_block_list_or_mapping_goes_under_its_key() {
        // What serde_yaml writes for a one-item list or a one-key mapping.
        let out = set_field(SKILL, "trigger_examples", &FieldEdit::Set("- Show me")).unwrap();
        assert!(
            out.contains("trigger_examples:\n  - Show me\n\npriority"),
            "{out}"
        );
        let out = set_field(SKILL, "metadata", &FieldEdit::Set("owner: content")).unwrap();
        assert!(
            out.ends_with("metadata:\n  owner: content\n---\nBody {{ x }}\n"),
            "{out}"
        );
        // A plain string that looks like neither stays on the key's line.
        let out = set_field(SKILL, "description", &FieldEdit::Set("'a: b'")).unwrap();
        assert!(out.contains("description: 'a: b'\n"), "{out}");
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let crlf = SKILL.replace('\n', "\r\n");
        let out = set_field(&crlf, "priority", &FieldEdit::Set("3")).unwrap();
        assert_eq!(out, crlf.replace("priority: 1", "priority: 3"));
        let out = set_field(&crlf, "tags", &FieldEdit::Set("- a\n- b")).unwrap();
        assert!(
            out.contains("priority: 1\r\ntags:\r\n  - a\r\n  - b\r\n---\r\n"),
            "{out:?}"
        );
    }

    const CLIENT: &str = "# Hyperline's setup\nlocales: [en]\ntoggles:\n  # gating is on for the launch\n  content_gating: { enabled: true }\n  demo_offer: false   # sales asked\n\nflags:\n  competitors: { names: [Acme] }\n";

    #[test]
    fn toggles_change_only_their_line() {
        let out = set_toggle(CLIENT, "demo_offer", Toggle::On).unwrap();
        assert_eq!(
            out,
            CLIENT.replace("demo_offer: false   #", "demo_offer: true   #")
        );
        let out = set_toggle(CLIENT, "content_gating", Toggle::Default).unwrap();
        assert_eq!(
            out,
            CLIENT.replace("  content_gating: { enabled: true }\n", "")
        );
        let out = set_toggle(CLIENT, "pricing", Toggle::Off).unwrap();
        assert_eq!(
            out,
            CLIENT.replace("# sales asked\n", "# sales asked\n  pricing: false\n")
        );
        let out = set_toggle("locales: [en]\n", "pricing", Toggle::Off).unwrap();
        assert_eq!(out, "locales: [en]\ntoggles:\n  pricing: false\n");
        let out = set_toggle("toggles: { a: true }  \n", "b", Toggle::Off).unwrap();
        assert_eq!(out, "toggles: { a: true, b: false }\n");
        // A toggle set and then put back to its default leaves the file as it was.
        for original in ["locales: [en]\n", "locales: [en]\n\nflags: {}\n"] {
            let on = set_toggle(original, "pricing", Toggle::On).unwrap();
            assert_ne!(on, original);
            assert_eq!(
                set_toggle(&on, "pricing", Toggle::Default).unwrap(),
                original
            );
        }
        let flow = set_toggle(
            "toggles: { a: true }\nlocales: [en]\n",
            "a",
            Toggle::Default,
        );
        assert_eq!(flow.unwrap(), "locales: [en]\n");
        // Comments under `toggles:` are the author's: the line stays with them.
        let kept = "toggles:\n  # launch\n  a: true\n";
        let out = set_toggle(kept, "a", Toggle::Default).unwrap();
        assert_eq!(out, "toggles:\n  # launch\n");
    }
}
