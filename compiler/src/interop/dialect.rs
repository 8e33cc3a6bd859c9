//! Each client's own terms for what a skill says (`export --target`): the frontmatter keys and
//! the files a client reads, filled from the workspace's fields, and per skill what a client
//! does not carry. docs/targets.md has the table and the source of every fact.

use serde_json::Value;
use serde_yaml::{Mapping, Value as Yaml};
use skillc_runtime::Skill;

use crate::model::targets::Target;
use crate::skill_md::Front;

use crate::model::fields::CLAUDE_CODE as CLAUDE_CODE_FIELDS;

/// Of Claude Code's fields, those `target` reads too (VS Code's Copilot reads
/// `argument-hint`, a string only, and `user-invocable`).
fn reads(target: Target, key: &str) -> bool {
    match target {
        Target::ClaudeCode => true,
        Target::Copilot => ["argument-hint", "user-invocable"].contains(&key),
        _ => false,
    }
}

/// Whether Codex reads the skill folder (`agents/openai.yaml` beside SKILL.md).
fn codex_reads(target: Target) -> bool {
    matches!(target, Target::Codex | Target::Agents)
}

/// What a target makes of one skill besides its SKILL.md.
#[derive(Debug, Default)]
pub(crate) struct Shaped {
    /// Codex's `agents/openai.yaml` when it says more than the skill's own file (or the skill
    /// has none).
    pub(crate) openai_yaml: Option<String>,
    /// The skill's fields the target does not carry, each with why.
    pub not_carried: Vec<String>,
}

/// Puts what `target` reads of `s` into `front` (its keys after the six); `openai` is the
/// skill's own `agents/openai.yaml`, if it has one; without `keep_code` no MCP server is named.
pub(crate) fn shape(
    target: Target,
    s: &Skill,
    front: &mut Front,
    openai: Option<&[u8]>,
    keep_code: bool,
) -> Shaped {
    let meta = &s.record.meta;
    let hidden = !s.catalog_visible;
    let when: Vec<String> = (meta.get("when_to_use").and_then(Value::as_array))
        .map(|l| {
            l.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let display = meta.get("display_name").and_then(Value::as_str);
    let mcp = s.record.mcp.as_ref().filter(|_| keep_code);
    let mut shaped = Shaped::default();
    let not = &mut shaped.not_carried;
    let t = target.name();
    match (&front.compatibility, requirements(&s.record)) {
        (None, needs) => front.compatibility = needs,
        (Some(_), Some(_)) => not.push(
            "`requires`: kept under `metadata`; the skill's own `compatibility` is written".into(),
        ),
        (Some(_), None) => {}
    }
    let written_hidden = hidden && hide(target, front, not);
    if !when.is_empty() {
        match target {
            Target::ClaudeCode => front
                .client
                .push(("when_to_use".into(), Value::String(when.join("\n")))),
            _ => not.push(format!(
                "`when_to_use`: kept under `metadata`, {t} does not read it"
            )),
        }
    }
    if display.is_some() && !codex_reads(target) {
        not.push(format!(
            "`displayName`: kept under `metadata`, {t} does not read it"
        ));
    }
    if s.record.mcp.is_some() && keep_code && !codex_reads(target) {
        not.push(format!(
            "`mcp`: kept under `metadata`, {t} does not start a skill's server"
        ));
    }
    if front.allowed_tools.is_some()
        && matches!(
            target,
            Target::Codex | Target::Agents | Target::Gemini | Target::Cursor
        )
    {
        not.push(format!(
            "`allowed-tools`: written (one of the six keys), {t} does not act on it"
        ));
    }
    client_fields(target, s, front, written_hidden, not);
    if codex_reads(target) {
        shaped.openai_yaml = openai_yaml(openai, hidden, display, mcp, &front.name);
    }
    shaped
}

/// `hidden_from_llm` in `target`'s terms, in `front`; whether it was written there (Codex's
/// goes to `agents/openai.yaml`; a client with no way is named in `not`).
fn hide(target: Target, front: &mut Front, not: &mut Vec<String>) -> bool {
    let t = target.name();
    match target {
        Target::ClaudeCode | Target::Cursor => {
            front
                .client
                .push(("disable-model-invocation".into(), Value::Bool(true)));
            return true;
        }
        Target::Copilot => not.push(
            "`hidden_from_llm`: not written as `disable-model-invocation`, which makes \
             Copilot CLI hide the skill entirely (VS Code would keep it for `/` only)"
                .into(),
        ),
        _ if codex_reads(target) => {}
        _ => not.push(format!(
            "`hidden_from_llm`: {t} cannot keep a skill out of the model's listing"
        )),
    }
    false
}

/// Claude Code's fields kept from import: written back for a client that reads them, named
/// otherwise. An array `argument-hint` is written as the one string Claude Code shows for it,
/// since Copilot CLI refuses to load a skill with an array there.
fn client_fields(
    target: Target,
    s: &Skill,
    front: &mut Front,
    written_hidden: bool,
    not: &mut Vec<String>,
) {
    let Some(kept) = s
        .record
        .meta
        .get("client_fields")
        .and_then(Value::as_object)
    else {
        return;
    };
    let t = target.name();
    for key in CLAUDE_CODE_FIELDS {
        let Some(value) = kept.get(key) else { continue };
        if key == "disable-model-invocation" && (written_hidden || value == &Value::Bool(true)) {
            continue; // read as `hidden_from_llm`, written (or named) from it
        }
        if !reads(target, key) {
            not.push(format!("`{key}`: a Claude Code field {t} does not read"));
            continue;
        }
        let value = match (target, value) {
            (Target::Copilot, Value::Array(items)) if key == "argument-hint" => {
                let words: Vec<String> = items.iter().map(text_of).collect();
                Value::String(format!("[{}]", words.join(", ")))
            }
            _ => value.clone(),
        };
        front.client.push((key.to_string(), value));
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `requires` as the one sentence every client carries (`compatibility`, at most 500
/// characters), when it says anything.
fn requirements(r: &skillc_runtime::Record) -> Option<String> {
    let mut parts = Vec::new();
    if !r.requires_env.is_empty() {
        parts.push(format!(
            "the environment variables {}",
            r.requires_env.join(", ")
        ));
    }
    if !r.requires_binary.is_empty() {
        parts.push(format!("the programs {}", r.requires_binary.join(", ")));
    }
    if parts.is_empty() {
        return None;
    }
    let sentence = format!("Requires {}.", parts.join(" and "));
    Some(sentence.chars().take(500).collect())
}

/// Codex's `agents/openai.yaml`: the skill's own (kept from import) with `interface.display_name`,
/// `policy.allow_implicit_invocation: false` and the MCP server under `dependencies.tools` set
/// from the workspace; `None` when that adds nothing to the skill's own file.
fn openai_yaml(
    own: Option<&[u8]>,
    hidden: bool,
    display: Option<&str>,
    mcp: Option<&skillc_runtime::Mcp>,
    name: &str,
) -> Option<String> {
    let before: Mapping = own
        .and_then(|b| serde_yaml::from_slice(b).ok())
        .unwrap_or_default();
    let mut doc = before.clone();
    if let Some(display) = display {
        set(&mut doc, "interface", "display_name", Yaml::from(display));
    }
    if hidden {
        set(
            &mut doc,
            "policy",
            "allow_implicit_invocation",
            Yaml::Bool(false),
        );
    }
    if let Some(m) = mcp {
        add_tool(&mut doc, name, &m.command);
    }
    (doc != before).then(|| serde_yaml::to_string(&doc).unwrap_or_default())
}

fn set(doc: &mut Mapping, table: &str, key: &str, value: Yaml) {
    let entry = doc
        .entry(Yaml::from(table))
        .or_insert_with(|| Yaml::Mapping(Mapping::new()));
    if !entry.is_mapping() {
        *entry = Yaml::Mapping(Mapping::new());
    }
    if let Yaml::Mapping(m) = entry {
        m.insert(Yaml::from(key), value);
    }
}

/// The skill's MCP server as a `dependencies.tools` entry (`type: mcp`, started by `command`
/// over stdio), unless one of that `value` is there.
fn add_tool(doc: &mut Mapping, name: &str, command: &str) {
    let deps = doc
        .entry(Yaml::from("dependencies"))
        .or_insert_with(|| Yaml::Mapping(Mapping::new()));
    let Yaml::Mapping(deps) = deps else { return };
    let tools = deps
        .entry(Yaml::from("tools"))
        .or_insert_with(|| Yaml::Sequence(Vec::new()));
    let Yaml::Sequence(tools) = tools else { return };
    if tools
        .iter()
        .any(|t| t.get("value").and_then(Yaml::as_str) == Some(name))
    {
        return;
    }
    let mut tool = Mapping::new();
    for (k, v) in [
        ("type", "mcp"),
        ("value", name),
        ("description", "The MCP server this skill uses"),
        ("transport", "stdio"),
        ("command", command),
    ] {
        tool.insert(Yaml::from(k), Yaml::from(v));
    }
    tools.push(Yaml::Mapping(tool));
}

/// The keys skillc adds under `metadata` for its own fields (not the author's `metadata`, not
/// bookkeeping), minus those a target writes in its own terms.
pub(crate) fn metadata_only(s: &Skill, front: &Front) -> Vec<String> {
    let own: Vec<&String> = (s.record.meta.get("metadata").and_then(Value::as_object))
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    let named_elsewhere = [
        "original-name",
        "qualified-name",
        "resolved-from",
        "untrusted",
        "when-to-use",
        "display-name",
        "mcp",
        "hidden-from-llm",
        "requires-env",
        "requires-binary",
    ];
    (front.metadata.keys())
        .filter(|k| !own.contains(k) && !named_elsewhere.contains(&k.as_str()))
        .cloned()
        .collect()
}
