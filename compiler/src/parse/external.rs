//! `workspace.yaml` `external:`: skills brought in from other repositories.
//!
//! ```yaml
//! external:
//!   - git: https://github.com/anthropics/skills.git
//!     rev: v1.2.0            # a tag, a branch or a commit
//!     path: skills           # the repository's folder to bring in (default: all of it)
//!     into: vendor/anthropic # where its skills appear in this workspace
//!     trust: false           # its code is prompt-only unless true
//! ```

use serde_yaml::Value;

use crate::diagnostic::codes;
use crate::model::external::{clean_folder, ExternalSource};
use crate::parse::fields::Fields;
use crate::parse::yaml::scalar_string;

const KEYS: &str = "git, rev, path, into, trust";

/// The entries, in order; each problem reported (an entry with one is left out).
pub(crate) fn external(f: &mut Fields<'_>) -> Vec<ExternalSource> {
    let items = match f.doc.get("external").cloned() {
        None => return Vec::new(),
        Some(Value::Sequence(items)) => items,
        Some(_) => {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.key_pos("external"),
                format!("`external` is a list of repositories ({KEYS})"),
            );
            f.report(d);
            return Vec::new();
        }
    };
    let mut out: Vec<ExternalSource> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let Some(entry) = source(f, item, n) else {
            continue;
        };
        // Each entry is told apart by its folder: messages point at its `into`.
        let pos = f.doc.value_pos("external", &entry.into);
        let clash = out
            .iter()
            .find(|o| overlaps(&o.into, &entry.into))
            .map(|o| o.into.clone());
        if let Some(other) = clash {
            let d = f.diag(
                codes::INVALID_VALUE,
                pos,
                format!(
                    "`into: {}` overlaps `into: {other}` of another entry",
                    entry.into
                ),
            );
            f.report(d.with_help("give each repository a folder of its own"));
            continue;
        }
        // `a/b` and `a__b` would share one stored copy, and each fetch would overwrite the
        // other's files.
        let stored = crate::model::external::store_name;
        if let Some(other) = out.iter().find(|o| stored(&o.into) == stored(&entry.into)) {
            let d = f.diag(
                codes::INVALID_VALUE,
                pos,
                format!(
                    "`into: {}` would share its stored copy (.skillc/external/{}/) with `into: {}` of another entry",
                    entry.into,
                    stored(&entry.into),
                    other.into
                ),
            );
            f.report(d.with_help("give each repository a folder of its own"));
            continue;
        }
        out.push(ExternalSource { pos, ..entry });
    }
    out
}

fn overlaps(a: &str, b: &str) -> bool {
    let inside = |x: &str, y: &str| x == y || x.starts_with(&format!("{y}/"));
    inside(a, b) || inside(b, a)
}

/// `trust` (false unless written true), with every key the entry should not have reported.
fn trust_and_unknown_keys(f: &mut Fields<'_>, m: &serde_yaml::Mapping, n: usize) -> bool {
    let at = |f: &Fields<'_>, key: &str| f.doc.path_pos(&["external", &n.to_string(), key]);
    for key in m.keys().filter_map(scalar_string) {
        if !["git", "rev", "path", "into", "trust"].contains(&key.as_str()) {
            let d = f.diag(
                codes::UNKNOWN_CONFIG_FIELD,
                at(f, &key),
                format!("unknown `external` key `{key}` (known: {KEYS})"),
            );
            f.report(d);
        }
    }
    match m.get("trust") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            let d = f.diag(
                codes::INVALID_VALUE,
                at(f, "trust"),
                "`trust` is true or false",
            );
            f.report(d);
            false
        }
    }
}

fn source(f: &mut Fields<'_>, item: &Value, n: usize) -> Option<ExternalSource> {
    let at = |f: &Fields<'_>, key: &str| f.doc.path_pos(&["external", &n.to_string(), key]);
    let Value::Mapping(m) = item else {
        let d = f.diag(
            codes::INVALID_VALUE,
            f.doc.path_pos(&["external", &n.to_string()]),
            format!("each `external` entry is a mapping ({KEYS})"),
        );
        f.report(d);
        return None;
    };
    let mut text = |key: &str, required: bool| -> Option<String> {
        match m.get(key).and_then(scalar_string) {
            Some(v) if v.chars().any(char::is_control) => {
                // Printed raw in fetch's and check's messages, ESC or BEL would drive the
                // terminal or CI log that shows them.
                let d = f.diag(
                    codes::INVALID_VALUE,
                    at(f, key),
                    format!("`{key}: {}` holds control characters", v.escape_debug()),
                );
                f.report(d);
                None
            }
            Some(v) if !v.trim().is_empty() => Some(v.trim().to_string()),
            _ if !required && m.get(key).is_none() => Some(String::new()),
            _ => {
                let d = f.diag(
                    codes::INVALID_VALUE,
                    at(f, key),
                    format!("`external` entry {} needs `{key}`", n + 1),
                );
                f.report(d.with_help(format!(
                    "an entry has {KEYS}; git, rev and into are required"
                )));
                None
            }
        }
    };
    let (git, rev, path, into) = (
        text("git", true),
        text("rev", true),
        text("path", false),
        text("into", true),
    );
    let trust = trust_and_unknown_keys(f, m, n);
    let (git, rev, path, into) = (git?, rev?, path?, into?);
    let mut clean = |key: &str, value: &str| match clean_folder(value) {
        Ok(v) => Some(v),
        Err(why) => {
            let d = f.diag(
                codes::INVALID_VALUE,
                at(f, key),
                format!("`{key}: {value}` must be {why}"),
            );
            f.report(d);
            None
        }
    };
    let (path, into) = (clean("path", &path)?, clean("into", &into)?);
    if into.is_empty() {
        let d = f.diag(
            codes::INVALID_VALUE,
            at(f, "into"),
            "`into` names a folder of the workspace",
        );
        f.report(d);
        return None;
    }
    Some(ExternalSource {
        git: crate::model::external::without_userinfo(&git),
        remote: git,
        rev,
        path,
        into,
        trust,
        commit: None,
        pos: crate::diagnostic::Pos::start(),
    })
}
