//! Other tools' fields in a collection (a folder without workspace.yaml, written for other
//! tools, SPEC 13.2): a field named like one of skillc's but written in another tool's shape
//! is set aside with a warning (W116) and kept under `metadata`, never an error that fails
//! the build. A workspace (with workspace.yaml) is written for skillc: there a wrong shape is
//! an error, so that a typo in skillc's own format fails, and `skillc set` refuses it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::diagnostic::{codes, Diagnostic};
use crate::model::fields::{self, Shape};
use crate::model::Frontmatter;
use crate::parse::fields::Fields;
use crate::parse::yaml::{scalar_string, Seg, YamlDoc};

/// The shape skillc expects of `key` when `v` is written in another tool's shape
/// (`priority: high`, `dependencies: None (prompt-only)`, `tags: a, b`), else `None`. Only
/// fields other tools share (see [`fields::Field::shared`]) are read this leniently.
fn foreign_shape(key: &str, v: &Value) -> Option<&'static str> {
    let field = fields::field(key).filter(|f| f.shared)?;
    let is_list_of_scalars = |v: &Value| {
        v.as_sequence()
            .is_some_and(|items| items.iter().all(|i| scalar_string(i).is_some()))
    };
    let fits = match field.shape {
        Shape::Int => v.is_i64() || v.is_null(),
        Shape::Bool => v.is_bool() || v.is_null(),
        Shape::Names => {
            let prose = v
                .as_str()
                .is_some_and(|t| t.trim().contains(char::is_whitespace));
            !prose && (v.is_null() || v.is_string() || is_list_of_scalars(v))
        }
        Shape::Texts => {
            let joined = v.as_str().is_some_and(|t| t.contains(','));
            !joined && (v.is_null() || scalar_string(v).is_some() || is_list_of_scalars(v))
        }
        Shape::Text | Shape::Name => v.is_null() || scalar_string(v).is_some(),
        Shape::Words | Shape::Map | Shape::Structured => true,
    };
    (!fits).then_some(field.shape.words())
}

/// Sets aside, in a `collection` (no workspace.yaml: written for other tools), the fields of
/// ours written in another tool's shape: one W116 each, and their text under `metadata`, so a
/// public collection builds as it is and exports keep them.
fn set_aside_foreign(f: &mut Fields<'_>) -> Option<(YamlDoc, BTreeMap<String, String>)> {
    let foreign = |key: &str, v: &Value| {
        foreign_shape(key, v).or_else(|| of_another_tool(key, v).then_some(REFUSED))
    };
    let any = f
        .doc
        .map
        .iter()
        .any(|(k, v)| k.as_str().is_some_and(|k| foreign(k, v).is_some()));
    if !any {
        return None; // the common case: no copy of the document
    }
    let mut doc = f.doc.clone();
    let mut kept = BTreeMap::new();
    for key in f.doc.keys() {
        let Some(v) = f.doc.get(&key) else { continue };
        let Some(expected) = foreign(&key, v) else {
            continue;
        };
        let help = match expected {
            REFUSED => format!(
                "skillc reads `{key}` otherwise (docs/workspace-format.md); the value is kept \
                 under `metadata` on export, and a workspace.yaml makes it an error"
            ),
            _ => format!(
                "skillc reads `{key}` as {expected}; the value is kept under `metadata` on export"
            ),
        };
        set_aside(f, (&mut doc, &mut kept), &key, expected.to_string(), help);
    }
    Some((doc, kept))
}

/// Moves top-level `key` of `own` under `kept` (its text as written), with one W116 saying
/// what its value is not.
fn set_aside(
    f: &mut Fields<'_>,
    (own, kept): (&mut YamlDoc, &mut BTreeMap<String, String>),
    key: &str,
    is_not: String,
    help: String,
) {
    let Some(v) = own.get(key) else { return };
    kept.insert(key.to_string(), written(own, key, v));
    let message = format!("`{key}` here is not {is_not}; it is ignored (another tool's field?)");
    let d = f.diag(codes::FOREIGN_FIELD, own.key_pos(key), message);
    f.report(d.with_help(help));
    own.map.remove(key);
}

/// A top-level value's text as written (its JSON where it cannot be found), to keep under
/// `metadata` when the field is set aside.
fn written(doc: &YamlDoc, key: &str, v: &Value) -> String {
    doc.text(&[Seg::Key(key)], v)
        .unwrap_or_else(|| serde_json::to_string(v).unwrap_or_default())
}

/// What a field set aside in a collection is not.
const REFUSED: &str = "in the shape skillc reads";

/// Whether `v` is another tool's value for our field `key`, by its kind alone: a plain string
/// where we read a list or a map (`tools: Read, Glob`, `mcp: rube`, `when: always`,
/// `conditions: x`, `dependencies: requests`, the Python package), or a `requires` that is a
/// list (`requires: [git]`) or a map of none of our keys (`requires: {mcp: [rube]}`). A
/// mistake inside a value of ours stays an error.
fn of_another_tool(key: &str, v: &Value) -> bool {
    match key {
        "tools" | "mcp" | "when" | "conditions" | "dependencies" => v.is_string(),
        "requires" => match v {
            Value::Mapping(m) => !m.keys().any(|k| {
                k.as_str()
                    .is_some_and(|k| ["env", "binary", "skills"].contains(&k))
            }),
            _ => !v.is_null(),
        },
        _ => false,
    }
}

/// Reads the fields of a collection's SKILL.md with `parse_fields`, the fields of ours written
/// in another tool's shape set aside (W116) and kept under `metadata`.
pub(super) fn parse_collection(
    f: &mut Fields<'_>,
    parse_fields: fn(&mut Fields<'_>, BTreeMap<String, String>) -> Frontmatter,
) -> Frontmatter {
    let aside = set_aside_foreign(f);
    let (own, foreign) = match aside {
        Some((own, foreign)) => (Cow::Owned(own), foreign),
        None => (Cow::Borrowed(f.doc), BTreeMap::new()),
    };
    // Shapes by kind alone do not catch every other tool's value (`compatibility: {mops: …}`,
    // `tools: {write: false}`, `mcp: {inheritAll: true}`): a field other tools write that still
    // has a wrong shape is another tool's too, and is set aside the same way.
    let mut found = Vec::new();
    let fm = parse_fields(&mut fields_of(f.file, &own, &mut found), foreign.clone());
    let wrong = keys_in_error(&own, &found);
    if wrong.is_empty() {
        f.diagnostics.extend(found);
        return fm;
    }
    let (mut own, mut foreign) = (own.into_owned(), foreign);
    for (key, problem) in wrong {
        let help = "the value is kept under `metadata` on export; a workspace.yaml makes it an \
                    error";
        let is_not = format!("{REFUSED} ({problem})");
        set_aside(f, (&mut own, &mut foreign), &key, is_not, help.to_string());
    }
    parse_fields(&mut fields_of(f.file, &own, f.diagnostics), foreign)
}

fn fields_of<'a>(file: &'a str, doc: &'a YamlDoc, out: &'a mut Vec<Diagnostic>) -> Fields<'a> {
    Fields {
        file,
        doc,
        diagnostics: out,
    }
}

/// Whether `v` is how another tool writes `key`, in a shape of its own: any value of a field
/// skillc shares with other tools or of the three SPEC 13.2 names (`tools`, `mcp`,
/// `requires`), and a mapping or a list in one of the specification's optional text fields
/// (`compatibility: {mops: …}`). A plain value of the wrong kind there (`allowed-tools: 123`)
/// is a slip, an error as skills-ref has it; so is any wrong `name` or `description`, and any
/// wrong field only skillc reads (`conditions`, `when`, `vars`, …).
fn written_by_others(key: &str, v: &Value) -> bool {
    let Some(field) = fields::field(key) else {
        return false;
    };
    let structured = v.is_mapping() || v.is_sequence();
    let optional_text = field.portable && key != "name" && key != "description";
    field.shared || ["tools", "mcp", "requires"].contains(&key) || (optional_text && structured)
}

/// The top-level keys of `doc` that shape errors (E010) of `found` point into, each with its
/// first one: those of fields other tools write too.
fn keys_in_error(doc: &YamlDoc, found: &[Diagnostic]) -> BTreeMap<String, String> {
    let mut keys = BTreeMap::new();
    for d in found.iter().filter(|d| d.code == codes::INVALID_VALUE) {
        let key = doc.key_at_line(d.line);
        let value = |k: &String| doc.get(k).is_some_and(|v| written_by_others(k, v));
        if let Some(key) = key.filter(value) {
            keys.entry(key).or_insert_with(|| d.message.clone());
        }
    }
    keys
}
