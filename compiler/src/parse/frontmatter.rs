//! Typed parse of a SKILL.md frontmatter: every field, every shape problem reported.

use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::model::fields;
use crate::model::{Condition, Frontmatter, Mcp, Predicate, Provider, Requires, Tool, VarDecl};
use crate::parse::fields::Fields;
use crate::parse::names;
use crate::parse::yaml::{scalar_string, value_kind, Seg};

/// The namespaces a skill can live in (002).
pub(crate) const NAMESPACES: &[&str] = &["public", "internal", "custom"];

const CONDITION_KEYS: &[&str] = &[
    "starts_with_any",
    "does_not_start_with_any",
    "page_url_matches",
    "page_url_not_matches",
    "conversation_language",
    "turn_at_least",
    "context_has",
    "<skill>_availability",
];

/// Reads every field of a skill's frontmatter; in a `collection` (no workspace.yaml), fields
/// of ours in another tool's shape are set aside rather than refused (`parse::foreign`).
pub(crate) fn parse(f: &mut Fields<'_>, collection: bool) -> Frontmatter {
    match collection {
        true => super::foreign::parse_collection(f, parse_fields),
        false => parse_fields(f, BTreeMap::new()),
    }
}

/// Reads the fields of `f`; `foreign` (fields set aside) goes under `metadata`.
fn parse_fields(f: &mut Fields<'_>, foreign: BTreeMap<String, String>) -> Frontmatter {
    let mut fm = Frontmatter {
        plain: f.plain(),
        name: f.string("name").map(|n| names::normalize(&n)),
        description: f.string("description"),
        metadata: metadata(f),
        allowed_tools: allowed_tools(f),
        category: f.string("category"),
        required: f.bool("required").unwrap_or(false),
        default_enabled: f.bool("default_enabled"),
        always_on: f.bool("always_on").unwrap_or(false),
        hidden_from_llm: f.bool("hidden_from_llm").unwrap_or(false),
        trigger_examples: f.string_list("trigger_examples"),
        conditions: conditions(f),
        dependencies: f.refs("dependencies"),
        augments: f.refs("augments"),
        blocks: f.refs("blocks"),
        distinct_from: f.refs("distinct_from"),
        variant_of: f.one_ref("variant_of"),
        when: predicates(f),
        variant_priority: f.int("variant_priority").unwrap_or(0),
        tiers: f.doc.get("tiers").map(|_| f.string_list("tiers")),
        requires: requires(f),
        vars: vars(f),
        mcp: mcp(f),
        next_skill: f.one_ref("next_skill"),
        conditional_next_skills: conditional_next(f),
        namespace: f.string("namespace"),
        when_to_use: f.string_list("when_to_use"),
        imports: Vec::new(),
        provider: provider(f),
        tools: tools(f),
        client_fields: BTreeMap::new(),
        keys: Vec::new(),
    };
    fm.imports = f.refs("import");
    fm.imports.extend(f.refs("imports"));
    for (key, text) in foreign {
        fm.metadata.entry(key).or_insert(text);
    }
    super::client_fields::read(&mut fm, f.doc);
    if let Some(ns) = &fm.namespace {
        if !NAMESPACES.contains(&ns.as_str()) {
            let d = f
                .diag(
                    codes::INVALID_VALUE,
                    f.doc.value_pos("namespace", ns),
                    format!("unknown namespace `{ns}`"),
                )
                .with_help("use `public`, `internal` or `custom`");
            f.report(d);
            fm.namespace = None;
        }
    }
    if !fm.when.is_empty() && fm.variant_of.is_none() {
        let d = f
            .diag(
                codes::BAD_VARIANT,
                f.doc.key_pos("when"),
                "`when` only applies to variants, and this skill has no `variant_of`",
            )
            .with_help("add `variant_of: <base skill>` or remove `when`");
        f.report(d);
    }
    fm
}

fn metadata(f: &mut Fields<'_>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some(v) = f.doc.get("metadata").cloned() else {
        return out;
    };
    match v {
        Value::Null => {}
        Value::Mapping(m) => {
            for (k, v) in &m {
                let key = scalar_string(k).unwrap_or_default();
                match f.doc.text(&[Seg::Key("metadata"), Seg::Key(&key)], v) {
                    Some(s) => {
                        out.insert(key, s);
                    }
                    None => {
                        let d = f
                            .diag(
                                codes::METADATA_NOT_STRING,
                                f.doc.path_pos(&["metadata", &key]),
                                format!(
                                    "metadata `{key}` must be a string, found {}",
                                    value_kind(v)
                                ),
                            )
                            .with_help("metadata is a flat string-to-string map in the spec; skillc keeps this value as its JSON text");
                        f.report(d);
                        // Kept, not lost: an export writes it back as a string (`tags:
                        // '["ffmpeg","video"]'`), which every client and the spec accept.
                        if let Ok(text) = serde_json::to_string(v) {
                            out.insert(key, text);
                        }
                    }
                }
            }
        }
        other => {
            let d = f.diag(
                codes::METADATA_NOT_STRING,
                f.doc.key_pos("metadata"),
                format!("`metadata` must be a mapping, found {}", value_kind(&other)),
            );
            f.report(d);
        }
    }
    out
}

fn allowed_tools(f: &mut Fields<'_>) -> Vec<String> {
    match f.doc.get("allowed-tools").cloned() {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(Value::Sequence(items)) => {
            let d = f
                .diag(
                    codes::ALLOWED_TOOLS_LIST,
                    f.doc.key_pos("allowed-tools"),
                    "`allowed-tools` is a YAML list; the spec defines a space-separated string",
                )
                .with_help("write `allowed-tools: Read Write Bash(git:*)`");
            f.report(d);
            f.list_of_strings("allowed-tools", &Value::Sequence(items))
        }
        Some(other) => {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.key_pos("allowed-tools"),
                format!(
                    "`allowed-tools` must be a space-separated string, found {}",
                    value_kind(&other)
                ),
            );
            f.report(d);
            Vec::new()
        }
    }
}

fn prefixes(f: &mut Fields<'_>, key: &str, v: &Value, pos: Pos) -> Vec<String> {
    let list = f.list_of_strings("conditions", v);
    if list.is_empty() {
        let d = f.diag(
            codes::BAD_CONDITION,
            pos,
            format!("`{key}` needs at least one URL prefix"),
        );
        f.report(d);
    }
    for p in &list {
        if !(p.starts_with('/') || p.starts_with("http://") || p.starts_with("https://")) {
            let d = f
                .diag(
                    codes::BAD_CONDITION,
                    f.doc.value_pos("conditions", p),
                    format!("URL prefix `{p}` must start with `/` (a path) or `http` (a URL)"),
                )
                .with_help(format!("write `/{}`", p.trim_start_matches('/')));
            f.report(d);
        }
    }
    list
}

fn regex_condition(f: &mut Fields<'_>, key: &str, v: &Value, pos: Pos) -> Option<String> {
    let Some(pattern) = scalar_string(v) else {
        let d = f.diag(
            codes::BAD_CONDITION,
            pos,
            format!("`{key}` must be a regular expression string"),
        );
        f.report(d);
        return None;
    };
    if let Err(e) = regex::RegexBuilder::new(&pattern)
        .size_limit(1 << 20)
        .build()
    {
        let message = e.to_string();
        let reason = message.lines().last().unwrap_or("").trim();
        let reason = reason.strip_prefix("error: ").unwrap_or(reason);
        // In a double-quoted YAML string each backslash is written twice.
        let written = pattern.replace('\\', "\\\\");
        let pos = f
            .doc
            .find_value("conditions", &pattern, 0)
            .unwrap_or_else(|| f.doc.value_pos("conditions", &written));
        let d = f
            .diag(
                codes::BAD_REGEX,
                pos,
                format!("regular expression `{pattern}` does not compile: {reason}"),
            )
            .with_help(
                "regexes are checked at build time; prefer `starts_with_any` for URL prefixes",
            );
        f.report(d);
        return None;
    }
    Some(pattern)
}

fn conditions(f: &mut Fields<'_>) -> Vec<Condition> {
    let Some(v) = f.doc.get("conditions").cloned() else {
        return Vec::new();
    };
    let items = match v {
        Value::Null => return Vec::new(),
        Value::Sequence(items) => items,
        other => {
            let d = f
                .diag(
                    codes::BAD_CONDITION,
                    f.doc.key_pos("conditions"),
                    format!("`conditions` must be a list, found {}", value_kind(&other)),
                )
                .with_help("write `conditions: [{ starts_with_any: [\"/en-gb\"] }]`");
            f.report(d);
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for item in &items {
        let Value::Mapping(map) = item else {
            let d = f.diag(
                codes::BAD_CONDITION,
                f.doc.key_pos("conditions"),
                format!(
                    "each condition must be a `key: value` map, found {}",
                    value_kind(item)
                ),
            );
            f.report(d);
            continue;
        };
        for (k, v) in map {
            out.extend(condition(f, &scalar_string(k).unwrap_or_default(), v));
        }
    }
    out
}

/// One `key: value` condition, or a diagnostic (unknown key, value of the wrong kind).
fn condition(f: &mut Fields<'_>, key: &str, v: &Value) -> Option<Condition> {
    let pos = f.doc.value_pos("conditions", key);
    let cond = match key {
        "starts_with_any" => Some(Condition::StartsWithAny(prefixes(f, key, v, pos))),
        "does_not_start_with_any" => Some(Condition::DoesNotStartWithAny(prefixes(f, key, v, pos))),
        "page_url_matches" => regex_condition(f, key, v, pos).map(Condition::PageUrlMatches),
        "page_url_not_matches" => regex_condition(f, key, v, pos).map(Condition::PageUrlNotMatches),
        "conversation_language" => scalar_string(v).map(Condition::ConversationLanguage),
        "context_has" => scalar_string(v).map(Condition::ContextHas),
        "turn_at_least" => match v {
            Value::Number(n) if n.as_i64().is_some_and(|t| t >= 0) => {
                Some(Condition::TurnAtLeast(n.as_i64().unwrap_or(0)))
            }
            _ => None,
        },
        k if k.ends_with("_availability") && k.len() > "_availability".len() => scalar_string(v)
            .map(|value| Condition::Availability {
                skill: names::normalize(&k[..k.len() - "_availability".len()]),
                value,
            }),
        _ => {
            let mut d = f.diag(
                codes::BAD_CONDITION,
                pos,
                format!("unknown condition `{key}`"),
            );
            d = match names::did_you_mean(key, CONDITION_KEYS.iter().copied()) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(format!("known conditions: {}", CONDITION_KEYS.join(", "))),
            };
            f.report(d);
            return None;
        }
    };
    match cond {
        Some(c) => Some(c),
        // A bad regex was reported where it was read.
        None if matches!(key, "page_url_matches" | "page_url_not_matches") => None,
        None => {
            let d = f.diag(
                codes::BAD_CONDITION,
                pos,
                format!(
                    "condition `{key}` has a value of the wrong kind ({})",
                    value_kind(v)
                ),
            );
            f.report(d);
            None
        }
    }
}

fn predicates(f: &mut Fields<'_>) -> Vec<Predicate> {
    let Some(v) = f.doc.get("when").cloned() else {
        return Vec::new();
    };
    let items = match v {
        Value::Null => return Vec::new(),
        Value::Sequence(items) => items,
        other => vec![other],
    };
    let mut out = Vec::new();
    for item in &items {
        let pos = f.doc.key_pos("when");
        let map = match item {
            Value::Mapping(m) => m,
            other => {
                let d = f.diag(
                    codes::BAD_VARIANT,
                    pos,
                    format!(
                        "each `when` predicate must be a map, found {}",
                        value_kind(other)
                    ),
                );
                f.report(d);
                continue;
            }
        };
        let get = |k: &str| map.get(k);
        let pred = if let Some(flag) = get("flag").and_then(scalar_string) {
            if let Some(Value::Bool(b)) = get("non_empty") {
                Some(Predicate::FlagNonEmpty {
                    flag,
                    non_empty: *b,
                })
            } else if let Some(value) = get("equals") {
                serde_json::to_value(value)
                    .ok()
                    .map(|equals| Predicate::FlagEquals { flag, equals })
            } else {
                None
            }
        } else if let Some(t) = get("tier") {
            Some(Predicate::Tier(f.list_of_strings("when", t)))
        } else {
            get("locale").map(|l| Predicate::Locale(f.list_of_strings("when", l)))
        };
        match pred {
            Some(p) => out.push(p),
            None => {
                let d = f
                    .diag(
                        codes::BAD_VARIANT,
                        pos,
                        "a `when` predicate has an unknown shape",
                    )
                    .with_help(
                        "use `{ flag: a.b, non_empty: true }`, `{ flag: a.b, equals: V }`, \
                         `{ tier: [..] }` or `{ locale: [..] }`",
                    );
                f.report(d);
            }
        }
    }
    out
}

fn requires(f: &mut Fields<'_>) -> Requires {
    let Some(m) = f.mapping("requires", "a map with `env`, `binary` and `skills` lists") else {
        return Requires::default();
    };
    let mut r = Requires::default();
    for (k, v) in &m {
        let key = scalar_string(k).unwrap_or_default();
        match key.as_str() {
            "env" => r.env = f.list_of_strings("requires", v),
            "binary" => r.binary = f.list_of_strings("requires", v),
            "skills" => {
                let list = f.list_of_strings("requires", v);
                r.skills = f.positioned("requires", list);
            }
            _ => {
                let d = f.diag(
                    codes::INVALID_VALUE,
                    f.doc.path_pos(&["requires", &key]),
                    format!("unknown key `{key}` in `requires` (expected env, binary, skills)"),
                );
                f.report(d);
            }
        }
    }
    r
}

fn vars(f: &mut Fields<'_>) -> BTreeMap<String, VarDecl> {
    let mut out = BTreeMap::new();
    let Some(m) = f.mapping("vars", "a map of variable names") else {
        return out;
    };
    for (k, v) in &m {
        let name = scalar_string(k).unwrap_or_default();
        let decl = match v {
            Value::Null => VarDecl::default(),
            Value::Mapping(spec) => {
                let mut decl = VarDecl::default();
                for (sk, sv) in spec {
                    let sk = scalar_string(sk).unwrap_or_default();
                    match (sk.as_str(), sv) {
                        ("description", v) => decl.description = scalar_string(v),
                        ("default", v) => {
                            let path = [Seg::Key("vars"), Seg::Key(&name), Seg::Key("default")];
                            decl.default = f.doc.text(&path, v)
                        }
                        ("required", Value::Bool(b)) => decl.required = *b,
                        ("secret", Value::Bool(b)) => decl.secret = *b,
                        _ => {
                            let d = f.diag(
                                codes::INVALID_VALUE,
                                f.doc.path_pos(&["vars", &name, &sk]),
                                format!(
                                    "variable `{name}`: `{sk}` is unknown or of the wrong kind \
                                     (expected description, default, required: bool, secret: bool)"
                                ),
                            );
                            f.report(d);
                        }
                    }
                }
                decl
            }
            other => match scalar_string(other) {
                Some(default) => VarDecl {
                    default: Some(default),
                    ..VarDecl::default()
                },
                None => {
                    let d = f.diag(
                        codes::INVALID_VALUE,
                        f.doc.path_pos(&["vars", &name]),
                        format!("variable `{name}` must be a value or a map"),
                    );
                    f.report(d);
                    continue;
                }
            },
        };
        out.insert(name, decl);
    }
    out
}

fn mcp(f: &mut Fields<'_>) -> Option<Mcp> {
    let m = f.mapping(
        "mcp",
        "a map with `command`, `env`, `startup_timeout`, `idle_timeout`",
    )?;
    let mut mcp = Mcp {
        command: String::new(),
        env: BTreeMap::new(),
        startup_timeout: 30,
        idle_timeout: 5,
    };
    for (k, v) in &m {
        let key = scalar_string(k).unwrap_or_default();
        let pos = f.doc.path_pos(&["mcp", &key]);
        let ok = match (key.as_str(), v) {
            ("command", v) => scalar_string(v).map(|c| mcp.command = c).is_some(),
            ("env", Value::Mapping(env)) => {
                for (ek, ev) in env {
                    if let (Some(ek), Some(ev)) = (scalar_string(ek), scalar_string(ev)) {
                        mcp.env.insert(ek, ev);
                    }
                }
                true
            }
            ("startup_timeout", Value::Number(n)) => {
                n.as_u64().map(|t| mcp.startup_timeout = t).is_some()
            }
            ("idle_timeout", Value::Number(n)) => {
                n.as_u64().map(|t| mcp.idle_timeout = t).is_some()
            }
            _ => false,
        };
        if !ok {
            let d = f.diag(
                codes::INVALID_VALUE,
                pos,
                format!("`mcp.{key}` is unknown or of the wrong kind"),
            );
            f.report(d);
        }
    }
    if mcp.command.trim().is_empty() {
        let d = f.diag(
            codes::MISSING_FIELD,
            f.doc.key_pos("mcp"),
            "`mcp` needs a `command` that starts the server",
        );
        f.report(d);
        return None;
    }
    Some(mcp)
}

fn conditional_next(f: &mut Fields<'_>) -> BTreeMap<String, crate::model::SkillRef> {
    let mut out = BTreeMap::new();
    let Some(m) = f.mapping(
        "conditional_next_skills",
        "a map of transition keys to skill names",
    ) else {
        return out;
    };
    for (k, v) in &m {
        if let (Some(k), Some(target)) = (scalar_string(k), scalar_string(v)) {
            let pos = f.doc.value_pos("conditional_next_skills", &target);
            out.insert(k, crate::model::SkillRef { text: target, pos });
        }
    }
    out
}

fn provider(f: &mut Fields<'_>) -> Option<Provider> {
    let m = f.mapping(
        "provider",
        "a map with `module`, `class` and optional `dependencies`",
    )?;
    let mut p = Provider::default();
    for (k, v) in &m {
        match scalar_string(k).as_deref() {
            Some("module") => p.module = scalar_string(v),
            Some("class") => p.class = scalar_string(v),
            Some("dependencies") => p.dependencies = f.list_of_strings("provider", v),
            other => {
                let key = other.unwrap_or("?").to_string();
                let d = f.diag(
                    codes::INVALID_VALUE,
                    f.doc.path_pos(&["provider", &key]),
                    format!("unknown key `{key}` in `provider`"),
                );
                f.report(d);
            }
        }
    }
    Some(p)
}

/// Reads a list of tool entries (frontmatter `tools` or `tools.yaml`'s `tools`).
pub(crate) fn tool_list(f: &mut Fields<'_>, key: &str) -> Vec<Tool> {
    let Some(v) = f.doc.get(key).cloned() else {
        return Vec::new();
    };
    let Value::Sequence(items) = v else {
        if !v.is_null() {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.key_pos(key),
                format!("`{key}` must be a list of tools"),
            );
            f.report(d);
        }
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in &items {
        let tool = match item {
            Value::Mapping(m) => {
                let s = |k: &str| m.get(k).and_then(scalar_string);
                s("name").or_else(|| s("id")).map(|id| Tool {
                    id,
                    provider: s("provider"),
                    role: s("role"),
                    why: s("why"),
                    config: m.get("config").and_then(|c| serde_json::to_value(c).ok()),
                })
            }
            other => scalar_string(other).map(|id| Tool {
                id,
                provider: None,
                role: None,
                why: None,
                config: None,
            }),
        };
        match tool {
            Some(t) => out.push(t),
            None => {
                let d = f.diag(
                    codes::MISSING_FIELD,
                    f.doc.key_pos(key),
                    format!("every entry of `{key}` needs a `name` or `id`"),
                );
                f.report(d);
            }
        }
    }
    out
}

fn tools(f: &mut Fields<'_>) -> Vec<Tool> {
    tool_list(f, "tools")
}

/// Reports fields outside the portable core (strict profile) and unknown fields (always).
pub(crate) fn field_diagnostics(f: &mut Fields<'_>) {
    for key in f.doc.keys() {
        let known = fields::field(&key);
        if known.is_some_and(|k| k.portable) {
            continue;
        }
        let pos = f.doc.key_pos(&key);
        if known.is_some() {
            let d = f
                .diag(
                    codes::NOT_IN_SPEC,
                    pos,
                    format!("field `{key}` is not part of the agentskills.io specification"),
                )
                .with_help("portable skills keep extensions under `metadata`");
            f.report(d);
        } else {
            let mut d: Diagnostic = f.diag(
                codes::UNKNOWN_FIELD,
                pos,
                format!("unknown frontmatter field `{key}`"),
            );
            if let Some(s) = names::did_you_mean(&key, fields::known_names()) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            f.report(d);
            // Under --strict-spec an unknown field is also outside the spec.
            let d = f.diag(
                codes::NOT_IN_SPEC,
                pos,
                format!("field `{key}` is not part of the agentskills.io specification"),
            );
            f.report(d);
        }
    }
}
