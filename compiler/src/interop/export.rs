//! `skillc export`: a resolved bundle written as plain agentskills.io folders. Each SKILL.md
//! has only the six fields of the specification at the top level; every extension moves under
//! `metadata` as a string; variables are substituted and cited sources listed; assets copied.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use skillc_runtime::{Artifact, BundleRef, Skill};

use crate::parse::names;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The artifact could not answer.
    #[error(transparent)]
    Runtime(#[from] skillc_runtime::Error),
    /// Writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The output folder is not empty.
    #[error("`{0}` exists and is not empty; export writes into a new or empty folder")]
    NotEmpty(PathBuf),
}

/// The frontmatter of an exported skill: the specification's fields, in its order.
#[derive(Serialize)]
struct Front {
    name: String,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compatibility: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    metadata: BTreeMap<String, String>,
    #[serde(rename = "allowed-tools", skip_serializing_if = "Option::is_none")]
    allowed_tools: Option<String>,
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

/// What in the exported folders would fail `skills-ref validate` (a description over 1,024
/// characters, say): the agentskills.io rules (`--strict-spec`) applied to `out`, one line per
/// problem, naming the folder.
pub fn portability_problems(out: &Path) -> Vec<String> {
    let options = crate::CheckOptions { strict_spec: true };
    let Ok(report) = crate::check(out, &options) else {
        return Vec::new();
    };
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::Severity::Error)
        .map(|d| {
            let folder = d.file.split('/').next().unwrap_or(&d.file);
            format!(
                "exported folder `{folder}` would fail skills-ref validate: {} ({}:{})",
                d.message, d.file, d.line
            )
        })
        .collect()
}

/// Writes every available skill of a bundle into `out/<portable name>/`. Returns the folders.
pub fn export(artifact: &Path, bundle: &BundleRef<'_>, out: &Path) -> Result<Vec<PathBuf>, Error> {
    let a = Artifact::open(artifact)?;
    let b = a.bundle(bundle)?;
    if out.exists()
        && std::fs::read_dir(out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(Error::NotEmpty(out.to_path_buf()));
    }
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut written = Vec::new();
    for s in b.skills.iter().filter(|s| s.unavailable.is_none()) {
        let name = portable_name(&s.name, &mut used);
        let front = front_matter(s, &name);
        let yaml = serde_yaml::to_string(&front).unwrap_or_default();
        let body = body_with_sources(&a, s)?;
        let dir = out.join(&name);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let file = dir.join("SKILL.md");
        std::fs::write(&file, format!("---\n{yaml}---\n{}\n", body.trim_end()))
            .map_err(io(&file))?;
        if let Some(assets) = s.record.meta.get("assets").and_then(|v| v.as_object()) {
            for path in assets.keys() {
                let bytes = a.asset(bundle, &s.qualified_name, path)?;
                let dest = dir.join(path);
                if let Some(parent) = dest.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                std::fs::write(&dest, bytes).map_err(io(&dest))?;
            }
        }
        written.push(dir);
    }
    Ok(written)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Io {
        path: path.clone(),
        source,
    }
}

/// A folder name that passes the portability rules, unique among those `used`.
fn portable_name(name: &str, used: &mut BTreeSet<String>) -> String {
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

/// The six fields of the specification; every extension under `metadata`, as a string.
fn front_matter(s: &Skill, name: &str) -> Front {
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
    put(
        "priority",
        r.priority.map(|p| p.to_string()).unwrap_or_default(),
    );
    let flags = [
        ("exclusive", r.exclusive),
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
    for key in [
        "version",
        "author",
        "created",
        "emoji",
        "display_name",
        "tags",
        "bind_shells",
        "provider",
    ] {
        if let Some(v) = meta.get(key) {
            put(&key.replace('_', "-"), string_of(v));
        }
    }
    metadata
}

/// The body, with the sources it cites listed after it.
fn body_with_sources(a: &Artifact, s: &Skill) -> Result<String, Error> {
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
