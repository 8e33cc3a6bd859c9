//! A resolved skill as a plain agentskills.io SKILL.md: only the six fields of the
//! specification at the top level, every extension under `metadata` as a string, variables
//! substituted and cited sources listed. `skillc export` writes it to disk; `skillc mcp`
//! serves it (the MCP Skills extension), with its frontmatter as JSON.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use skillc_runtime::{Artifact, Skill};

use crate::model::fields::{Kept, FIELDS};
use crate::parse::names;

/// A folder name that passes the portability rules, unique among those `used`.
pub(crate) fn portable_name(name: &str, used: &mut BTreeSet<String>) -> String {
    let mut portable = if names::portability_problems(name).is_empty() {
        name.to_string()
    } else {
        names::portable_suggestion(name)
    };
    if portable.is_empty() {
        portable = "skill".to_string();
    }
    let base = portable.clone();
    let mut n = 2;
    while !used.insert(portable.clone()) {
        portable = format!("{base}-{n}");
        n += 1;
    }
    portable
}

/// A SKILL.md's frontmatter as JSON, field for field what its YAML says.
pub(crate) type FrontJson = serde_json::Map<String, serde_json::Value>;

/// A skill's SKILL.md under `name`: its frontmatter (as JSON, field for field what the text's
/// YAML says) and its whole text.
pub fn skill_md(
    a: &Artifact,
    s: &Skill,
    name: &str,
) -> Result<(FrontJson, String), skillc_runtime::Error> {
    skill_md_with(a, s, name, true).map(|(json, text, _)| (json, text))
}

/// [`skill_md`], and without `keep_code` also without the fields that make a client run
/// something (the MCP server `mcp` names, the tools `allowed-tools` pre-approves): those left
/// out are named, third.
pub(crate) fn skill_md_with(
    a: &Artifact,
    s: &Skill,
    name: &str,
    keep_code: bool,
) -> Result<(FrontJson, String, Vec<String>), skillc_runtime::Error> {
    let (front, left_out) = front_kept(s, name, keep_code);
    let text = text_of(a, s, &front)?;
    let json = match serde_json::to_value(&front) {
        Ok(serde_json::Value::Object(o)) => o,
        _ => serde_json::Map::new(),
    };
    Ok((json, text, left_out))
}

/// The frontmatter of `s` under `name`, and without `keep_code` without the fields that make
/// a client run something, each named.
pub(crate) fn front_kept(s: &Skill, name: &str, keep_code: bool) -> (Front, Vec<String>) {
    let mut front = front_matter(s, name);
    let mut left_out = Vec::new();
    if !keep_code {
        if let Some(mcp) = front.metadata.remove("mcp") {
            left_out.push(format!(
                "its MCP server (`mcp`: {})",
                crate::command::clip(&mcp)
            ));
        }
        if let Some(tools) = front.allowed_tools.take() {
            left_out.push(format!("`allowed-tools: {}`", crate::command::clip(&tools)));
        }
    }
    (front, left_out)
}

/// A whole SKILL.md: `front` as YAML, then the body with its sources.
pub(crate) fn text_of(
    a: &Artifact,
    s: &Skill,
    front: &Front,
) -> Result<String, skillc_runtime::Error> {
    let yaml = yaml_text(front);
    let body = body_with_sources(a, s)?;
    Ok(format!("---\n{yaml}---\n{}\n", body.trim_end()))
}

/// The frontmatter of an exported skill: the specification's fields, in its order, then the
/// keys of the one client it is written for (`export --target`), in the order given.
#[derive(Serialize)]
pub(crate) struct Front {
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// `license`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) license: Option<String>,
    /// `compatibility`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) compatibility: Option<String>,
    /// `metadata`: every extension, as strings.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) metadata: BTreeMap<String, String>,
    /// `allowed-tools`.
    #[serde(rename = "allowed-tools", skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<String>,
    /// A client's own keys (`disable-model-invocation`, `when_to_use`, …), after the six.
    #[serde(skip)]
    pub client: Vec<(String, serde_json::Value)>,
}

/// The frontmatter's YAML, field by field in the specification's order. Every value is a
/// string; one that some YAML reader would take for something else (a date such as
/// `2026-01-16` in YAML 1.1, `yes`, `1.0`, a leading `*`, several lines) is written
/// double-quoted, so that every reader gets the same text back (the MCP Skills extension has
/// hosts compare the frontmatter field by field).
fn yaml_text(front: &Front) -> String {
    let mut out = String::new();
    let mut field = |indent: &str, key: &str, value: &str| {
        out.push_str(&format!("{indent}{}: {}\n", scalar(key), scalar(value)));
    };
    field("", "name", &front.name);
    field("", "description", &front.description);
    if let Some(license) = &front.license {
        field("", "license", license);
    }
    if let Some(compatibility) = &front.compatibility {
        field("", "compatibility", compatibility);
    }
    if !front.metadata.is_empty() {
        out.push_str("metadata:\n");
        for (key, value) in &front.metadata {
            out.push_str(&format!("  {}: {}\n", scalar(key), scalar(value)));
        }
    }
    if let Some(tools) = &front.allowed_tools {
        out.push_str(&format!("allowed-tools: {}\n", scalar(tools)));
    }
    for (key, value) in &front.client {
        out.push_str(&format!("{}: {}\n", scalar(key), yaml_value(value)));
    }
    out
}

/// A client's value as YAML: a string as [`scalar`] writes it, a number or a boolean as it
/// is, anything else as JSON (which YAML reads as a flow collection).
fn yaml_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => scalar(s),
        serde_json::Value::Bool(_) | serde_json::Value::Number(_) => v.to_string(),
        other => escape_dash_runs(&other.to_string()),
    }
}

/// Quoted text with the third dash of each run written `\x2d` (see [`scalar`]); JSON puts
/// dashes only inside its strings, where YAML reads the escape.
fn escape_dash_runs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c == '-' && out.ends_with("--") {
            true => out.push_str("\\x2d"),
            false => out.push(c),
        }
    }
    out
}

/// A string as a YAML scalar: plain when every reader takes it for that string, else
/// double-quoted (JSON's escapes are YAML's too). Never with three dashes in a row: the
/// reference validator (`skills-ref validate`) splits a SKILL.md at the first `---` anywhere,
/// so a `---` inside a value would end its frontmatter there; the third dash of a run is
/// written `\x2d`, which every YAML reader reads as `-`.
fn scalar(s: &str) -> String {
    let first = s.chars().next();
    let words = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    let plain = first.is_some_and(|c| c.is_alphabetic())
        && s.chars()
            .all(|c| c.is_alphanumeric() || " -_.,/()+@'".contains(c))
        && !s.ends_with(' ')
        && !s.contains("---")
        && !words.contains(&s.to_lowercase().as_str());
    if plain {
        return s.to_string();
    }
    escape_dash_runs(&serde_json::to_string(s).unwrap_or_default())
}

/// JSON text of a value, for metadata (whose values are strings).
fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn string_of(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The six fields of the specification; every extension under `metadata`, as a string.
pub(crate) fn front_matter(s: &Skill, name: &str) -> Front {
    let meta = &s.record.meta;
    let description = if s.description.trim().is_empty() {
        s.name.clone()
    } else {
        s.description.clone()
    };
    Front {
        name: name.to_string(),
        description,
        license: meta.get("license").map(string_of),
        compatibility: meta
            .get("compatibility")
            .map(string_of)
            .filter(|c| !c.is_empty()),
        metadata: extension_metadata(s, name),
        allowed_tools: meta
            .get("allowed_tools")
            .and_then(|v| v.as_array())
            .map(|l| l.iter().map(string_of).collect::<Vec<_>>().join(" ")),
        client: Vec::new(),
    }
}

/// Every field the specification does not have, flattened to strings (empty ones left out).
fn extension_metadata(s: &Skill, name: &str) -> BTreeMap<String, String> {
    let meta = &s.record.meta;
    let mut metadata: BTreeMap<String, String> = meta
        .get("metadata")
        .and_then(|m| m.as_object())
        .map(|m| m.iter().map(|(k, v)| (k.clone(), string_of(v))).collect())
        .unwrap_or_default();
    let mut put = |k: &str, v: String| {
        if !v.is_empty() && v != "[]" && v != "{}" && v != "null" {
            metadata.insert(k.to_string(), v);
        }
    };
    if name != s.name {
        put("original-name", s.name.clone());
    }
    put("qualified-name", s.qualified_name.clone());
    if s.resolved_name != s.name {
        put("resolved-from", s.resolved_name.clone());
    }
    put("category", s.category.clone());
    let r = &s.record;
    let flags = [
        ("always-on", s.always_on),
        ("hidden-from-llm", !s.catalog_visible),
        ("untrusted", s.untrusted),
    ];
    for (key, set) in flags {
        if set {
            put(key, "true".into());
        }
    }
    put("conditions", json(&r.conditions));
    put("dependencies", json(&r.dependencies));
    put("augments", json(&r.augments));
    put("blocks", json(&r.blocks));
    put("imports", json(&r.imports));
    put("requires-env", r.requires_env.join(" "));
    put("requires-binary", r.requires_binary.join(" "));
    put("runtime-vars", r.runtime_vars.join(" "));
    put("mcp", r.mcp.as_ref().map(json).unwrap_or_default());
    put("tools", json(&r.tools));
    put("next-skill", r.next_skill.clone().unwrap_or_default());
    put("conditional-next-skills", json(&r.conditional_next));
    put("triggers", json(&s.triggers));
    // The fields the table keeps, as stored (the portable core's are at the top level).
    let stored = serde_json::to_value(r).unwrap_or_default();
    for field in FIELDS.iter().filter(|f| !f.portable) {
        let key = field.key();
        let value = match field.kept {
            Kept::Record => stored.get(&key),
            Kept::Label | Kept::Meta => meta.get(&key),
            Kept::Build => None,
        };
        if let Some(v) = value.filter(|v| **v != serde_json::Value::Bool(false)) {
            put(&key.replace('_', "-"), string_of(v));
        }
    }
    metadata
}

/// The body, with the sources it cites listed after it.
fn body_with_sources(a: &Artifact, s: &Skill) -> Result<String, skillc_runtime::Error> {
    let mut body = a.body(s)?.to_string();
    if !s.record.cited.is_empty() {
        body.push_str("\n\n## Sources\n\n");
        for sid in &s.record.cited {
            if let Some(src) = a.source(*sid) {
                match &src.title {
                    Some(t) => body.push_str(&format!("[{sid}] {t} — {}\n", src.url)),
                    None => body.push_str(&format!("[{sid}] {}\n", src.url)),
                }
            }
        }
    }
    Ok(body)
}

/// Extensions of files a client or a shell would run (or load and run) as they are.
const CODE_EXTENSIONS: [&str; 27] = [
    "sh", "bash", "zsh", "fish", "ksh", "ps1", "psm1", "bat", "cmd", "com", "exe", "dll", "so",
    "dylib", "py", "pyc", "pyw", "rb", "pl", "php", "js", "mjs", "cjs", "ts", "jar", "wasm", "bin",
];

/// Whether an asset is code: under `scripts/` (agentskills.io's folder for it), named as code,
/// starting with `#!`, or an executable of Linux, macOS or Windows.
pub(crate) fn is_code(path: &str, bytes: &[u8]) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
    let magic: [&[u8]; 6] = [
        b"#!",
        b"\x7fELF",
        b"MZ",
        b"\xcf\xfa\xed\xfe",
        b"\xfe\xed\xfa\xcf",
        b"\xca\xfe\xba\xbe",
    ];
    path.split('/').next() == Some("scripts")
        || CODE_EXTENSIONS.contains(&extension)
        || magic.iter().any(|m| bytes.starts_with(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_told_by_folder_name_or_first_bytes() {
        assert!(is_code("scripts/notes.txt", b"hello"));
        assert!(is_code("tools/run.SH", b"echo"));
        assert!(is_code("assets/tool", b"\x7fELF\x02"));
        assert!(is_code("assets/run", b"#!/bin/sh\n"));
        assert!(!is_code("references/guide.md", b"# Guide"));
        assert!(!is_code("assets/logo.png", b"\x89PNG"));
    }
}
