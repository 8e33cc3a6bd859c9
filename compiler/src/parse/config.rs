//! Workspace-level files: `workspace.yaml`, `client.yaml`, `CATEGORY.md`, `variables.json`,
//! `vars.json`.

use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::model::{BodyMode, Category, Client, Consumer, Tier, Toggle, WorkspaceConfig};
use crate::parse::fields::Fields;
use crate::parse::names;
use crate::parse::yaml::{scalar_string, value_kind, Seg};

const WORKSPACE_FIELDS: &[&str] = &[
    "name",
    "locales",
    "default_locale",
    "tiers",
    "consumers",
    "max_active_skills",
    "pipeline_max_depth",
    "catalog",
    "roots",
    "trusted",
    "routing",
    "targets",
    "external",
    "safety",
];

/// Reads `workspace.yaml`.
pub(crate) fn workspace(f: &mut Fields<'_>) -> WorkspaceConfig {
    f.unknown_keys(
        WORKSPACE_FIELDS,
        codes::UNKNOWN_CONFIG_FIELD,
        "workspace.yaml",
    );
    let mut c = WorkspaceConfig {
        name: f.string("name"),
        ..WorkspaceConfig::default()
    };
    if f.doc.get("locales").is_some() {
        let locales = f.string_list("locales");
        if locales.is_empty() {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.key_pos("locales"),
                "`locales` cannot be empty",
            );
            f.report(d);
        } else {
            report_repeats(f, "locales", &locales, "locale");
            c.locales = locales;
        }
    }
    c.default_locale = match f.string("default_locale") {
        Some(l) => {
            if !c.locales.contains(&l) {
                let d = f
                    .diag(
                        codes::UNKNOWN_NAME,
                        f.doc.value_pos("default_locale", &l),
                        format!("default locale `{l}` is not in `locales`"),
                    )
                    .with_help(format!("declared locales: {}", c.locales.join(", ")));
                f.report(d);
            }
            l
        }
        None => c.locales[0].clone(),
    };
    if let Some(tiers) = tiers(f) {
        c.tiers = tiers;
    }
    c.consumers = consumers(f);
    c.max_active_skills = f
        .int("max_active_skills")
        .and_then(|n| positive(f, "max_active_skills", n));
    if let Some(d) = f
        .int("pipeline_max_depth")
        .and_then(|n| positive(f, "pipeline_max_depth", n))
    {
        c.pipeline_max_depth = d;
    }
    let (max_triggers, overlap) = catalog_settings(f);
    if let Some(n) = max_triggers {
        c.max_triggers = n;
    }
    if let Some(t) = overlap {
        c.overlap_threshold = t;
    }
    c.roots = roots(f);
    c.trusted = f.string_list("trusted");
    c.routing = routing_settings(f, true);
    c.targets = crate::parse::targets::targets(f);
    c.external = crate::parse::external::external(f);
    c.safety = safety_settings(f);
    // A trusted outside repository's skills run their code like the workspace's own.
    for e in c.external.iter().filter(|e| e.trust) {
        c.trusted.push(e.package_id());
    }
    c
}

/// `safety:` of workspace.yaml: `deny` (codes, `S3xx` families, levels) and `withhold` (a
/// level).
fn safety_settings(f: &mut Fields<'_>) -> crate::model::SafetyConfig {
    use crate::diagnostic::SafetyLevel;
    let mut out = crate::model::SafetyConfig::default();
    let Some(Value::Mapping(m)) = f.doc.get("safety").cloned() else {
        return out;
    };
    for (k, v) in &m {
        let key = scalar_string(k).unwrap_or_default();
        let entries: Option<Vec<String>> = match v {
            Value::Sequence(items) => items.iter().map(scalar_string).collect(),
            other => scalar_string(other).map(|s| vec![s]),
        };
        let ok = match (key.as_str(), entries) {
            ("deny", Some(e)) if e.iter().all(|e| crate::parse::safety::is_deny_entry(e)) => {
                out.deny = e;
                true
            }
            ("withhold", Some(e)) if e.len() == 1 => match SafetyLevel::parse(&e[0]) {
                Some(level) => {
                    out.withhold = level;
                    true
                }
                None => false,
            },
            _ => false,
        };
        if !ok {
            let d = f.diag(
                codes::UNKNOWN_CONFIG_FIELD,
                f.doc.path_pos(&["safety", &key]),
                format!(
                    "unknown or invalid `safety.{key}` (known: deny: a list of S codes, S families \
                     like S3xx, or levels low/medium/high/critical; withhold: a level)"
                ),
            );
            f.report(d);
        }
    }
    out
}

/// `routing:` settings (`top_k`, `min_score`, `hybrid_min_score`, `confident`) of workspace.yaml or a client.yaml,
/// checked, as the JSON the manifest keeps for every runtime (absent keys take the
/// workspace's, then the runtimes' documented defaults). `embedding_model` only in
/// workspace.yaml (`in_workspace`): an artifact's vectors all come from one model.
fn routing_settings(f: &mut Fields<'_>, in_workspace: bool) -> Option<serde_json::Value> {
    let Some(Value::Mapping(m)) = f.doc.get("routing").cloned() else {
        return None;
    };
    let mut out = serde_json::Map::new();
    for (k, v) in &m {
        let key = scalar_string(k).unwrap_or_default();
        let value = match (key.as_str(), v.as_f64()) {
            ("top_k", _) if v.as_u64().is_some_and(|n| n > 0) => {
                v.as_u64().map(serde_json::Value::from)
            }
            ("min_score" | "hybrid_min_score" | "confident", Some(x))
                if (0.0..=1.0).contains(&x) =>
            {
                serde_json::Number::from_f64(x).map(serde_json::Value::Number)
            }
            ("embedding_model", _) if in_workspace => scalar_string(v)
                .filter(|m| !m.trim().is_empty())
                .map(serde_json::Value::from),
            _ => None,
        };
        match value {
            Some(v) => {
                out.insert(key, v);
            }
            None => {
                let d = f.diag(
                    codes::UNKNOWN_CONFIG_FIELD,
                    f.doc.path_pos(&["routing", &key]),
                    format!(
                        "unknown or invalid `routing.{key}` (known: top_k: a whole number above 0, \
                         min_score, hybrid_min_score and confident: numbers from 0 to 1{})",
                        if in_workspace {
                            ", embedding_model: a model's name"
                        } else {
                            "; embedding_model is set once, in workspace.yaml"
                        }
                    ),
                );
                f.report(d);
            }
        }
    }
    Some(serde_json::Value::Object(out))
}

/// `catalog:` settings: `max_triggers` and `overlap_threshold` (in hundredths), when set.
fn catalog_settings(f: &mut Fields<'_>) -> (Option<usize>, Option<u32>) {
    let Some(Value::Mapping(m)) = f.doc.get("catalog").cloned() else {
        return (None, None);
    };
    let (mut max_triggers, mut overlap) = (None, None);
    for (k, v) in &m {
        match (scalar_string(k).as_deref(), v) {
            (Some("max_triggers"), v) if v.as_u64().is_some() => {
                max_triggers = v.as_u64().map(|n| n as usize)
            }
            // Above 1 turns the warning off (no two texts are more than identical).
            (Some("overlap_threshold"), v) if v.as_f64().is_some_and(|t| t > 0.0) => {
                overlap = v.as_f64().map(|t| (t * 100.0).round().min(1000.0) as u32)
            }
            (k, _) => {
                let k = k.unwrap_or("?").to_string();
                let d = f.diag(
                    codes::UNKNOWN_CONFIG_FIELD,
                    f.doc.path_pos(&["catalog", &k]),
                    format!(
                        "unknown or invalid `catalog.{k}` (known: max_triggers: number, \
                         overlap_threshold: number above 0)"
                    ),
                );
                f.report(d);
            }
        }
    }
    (max_triggers, overlap)
}

/// `roots:` extra skill roots (only `custom` is known).
fn roots(f: &mut Fields<'_>) -> BTreeMap<String, String> {
    let mut roots = BTreeMap::new();
    let Some(Value::Mapping(m)) = f.doc.get("roots").cloned() else {
        return roots;
    };
    for (k, v) in &m {
        let (Some(k), Some(path)) = (scalar_string(k), scalar_string(v)) else {
            continue;
        };
        if k != "custom" {
            let d = f.diag(
                codes::UNKNOWN_CONFIG_FIELD,
                f.doc.path_pos(&["roots", &k]),
                format!("unknown root `{k}`: extra roots hold the `custom` namespace"),
            );
            f.report(d);
            continue;
        }
        roots.insert(k, path);
    }
    roots
}

/// Reports every repeated item of the list `key` at its second writing.
fn report_repeats(f: &mut Fields<'_>, key: &str, items: &[String], what: &str) {
    for (i, item) in items.iter().enumerate() {
        let before = items[..i].iter().filter(|x| *x == item).count();
        if before > 0 {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.value_pos_nth(key, item, before),
                format!("{what} `{item}` is listed twice"),
            );
            f.report(d);
        }
    }
}

fn positive(f: &mut Fields<'_>, key: &str, n: i64) -> Option<u32> {
    if n >= 1 && n <= u32::MAX as i64 {
        return Some(n as u32);
    }
    let why = if n < 1 {
        format!("`{key}` must be at least 1")
    } else {
        format!(
            "`{key}` is {n}, more than the largest allowed ({})",
            u32::MAX
        )
    };
    let d = f.diag(codes::INVALID_VALUE, f.doc.key_pos(key), why);
    f.report(d);
    None
}

/// One item of `tiers:` (`standard`, or `{ name, body, catalog_token_budget }`), or its name
/// (when it has one) and what is wrong with it.
fn tier(item: &Value) -> Result<Tier, (Option<String>, String)> {
    let Value::Mapping(m) = item else {
        return (scalar_string(item).map(|name| Tier {
            name,
            body: BodyMode::Full,
            catalog_token_budget: None,
        }))
        .ok_or((
            None,
            "a tier is a name or a mapping with `name`".to_string(),
        ));
    };
    let name = m.get("name").and_then(scalar_string);
    let fail = |why: String| Err((name.clone(), why));
    let Some(tier_name) = name.clone() else {
        return fail("it has no `name`".to_string());
    };
    let body = match m.get("body").and_then(scalar_string).as_deref() {
        None | Some("full") => BodyMode::Full,
        Some("compact") => BodyMode::Compact,
        Some(other) => return fail(format!("`body` is `full` or `compact`, not `{other}`")),
    };
    let budget = match m.get("catalog_token_budget") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(n) => Some(n),
            None => {
                let written = scalar_string(v).unwrap_or_else(|| "a list or mapping".into());
                return fail(format!(
                    "`catalog_token_budget` is a whole number of tokens, not `{written}`"
                ));
            }
        },
    };
    let known = ["name", "body", "catalog_token_budget"];
    if let Some(k) = (m.keys().filter_map(scalar_string)).find(|k| !known.contains(&k.as_str())) {
        return fail(format!("unknown key `{k}` (known: {})", known.join(", ")));
    }
    Ok(Tier {
        name: tier_name,
        body,
        catalog_token_budget: budget,
    })
}

fn tiers(f: &mut Fields<'_>) -> Option<Vec<Tier>> {
    let v = f.doc.get("tiers").cloned()?;
    let Value::Sequence(items) = v else {
        let d = f.diag(
            codes::INVALID_VALUE,
            f.doc.key_pos("tiers"),
            "`tiers` must be a list",
        );
        f.report(d);
        return None;
    };
    if items.is_empty() {
        let d = f
            .diag(
                codes::INVALID_VALUE,
                f.doc.key_pos("tiers"),
                "`tiers` cannot be empty",
            )
            .with_help("remove `tiers` for the one default tier `standard`, or list tiers");
        f.report(d);
        return None;
    }
    let mut out: Vec<Tier> = Vec::new();
    for item in &items {
        match tier(item) {
            Ok(t) if out.iter().any(|o| o.name == t.name) => {
                let d = f.diag(
                    codes::INVALID_VALUE,
                    f.doc.value_pos("tiers", &t.name),
                    format!("tier `{}` is declared twice", t.name),
                );
                f.report(d);
            }
            Ok(t) => out.push(t),
            Err((name, why)) => {
                let (at, which) = match &name {
                    Some(n) => (f.doc.value_pos("tiers", n), format!("tier `{n}`")),
                    None => (f.doc.key_pos("tiers"), "a tier".to_string()),
                };
                let d = f
                    .diag(
                        codes::INVALID_VALUE,
                        at,
                        format!("{which} is malformed: {why}"),
                    )
                    .with_help("write `{ name: fast, body: compact, catalog_token_budget: 1500 }`");
                f.report(d);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

fn consumers(f: &mut Fields<'_>) -> BTreeMap<String, Consumer> {
    let mut out = BTreeMap::new();
    let Some(Value::Mapping(m)) = f.doc.get("consumers").cloned() else {
        return out;
    };
    for (k, v) in &m {
        let Some(name) = scalar_string(k) else {
            continue;
        };
        let mut c = Consumer::default();
        if let Value::Mapping(spec) = v {
            for (sk, sv) in spec {
                match scalar_string(sk).as_deref() {
                    Some("enabled") => c.enabled = f.list_of_strings("consumers", sv),
                    Some("disabled") => c.disabled = f.list_of_strings("consumers", sv),
                    other => {
                        let key = other.unwrap_or("?").to_string();
                        let d = f.diag(
                            codes::UNKNOWN_CONFIG_FIELD,
                            f.doc.path_pos(&["consumers", &name, &key]),
                            format!("unknown key `{key}` for consumer `{name}` (known: enabled, disabled)"),
                        );
                        f.report(d);
                    }
                }
            }
        } else if !v.is_null() {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.path_pos(&["consumers", &name]),
                format!("consumer `{name}` must be a map with `enabled` or `disabled` lists"),
            );
            f.report(d);
        }
        out.insert(name, c);
    }
    out
}

const CLIENT_FIELDS: &[&str] = &["locales", "tiers", "toggles", "flags", "vars", "routing"];

/// Reads `clients/<id>/client.yaml`.
pub(crate) fn client(f: &mut Fields<'_>, id: &str, ws: &WorkspaceConfig) -> Client {
    f.unknown_keys(CLIENT_FIELDS, codes::UNKNOWN_CONFIG_FIELD, "client.yaml");
    let locales: Vec<&str> = ws.locales.iter().map(String::as_str).collect();
    let tiers: Vec<&str> = ws.tiers.iter().map(|t| t.name.as_str()).collect();
    Client {
        id: id.to_string(),
        file: f.file.to_string(),
        locales: declared_list(f, "locales", "locale", &locales),
        tiers: declared_list(f, "tiers", "tier", &tiers),
        toggles: client_toggles(f),
        flags: client_flags(f),
        vars: client_vars(f),
        routing: routing_settings(f, false),
    }
}

/// A client's `locales` or `tiers`: each must be declared in workspace.yaml.
fn declared_list(
    f: &mut Fields<'_>,
    key: &str,
    what: &str,
    declared: &[&str],
) -> Option<Vec<String>> {
    f.doc.get(key)?;
    let list = f.string_list(key);
    for item in &list {
        if !declared.contains(&item.as_str()) {
            let d = f
                .diag(
                    codes::UNKNOWN_NAME,
                    f.doc.value_pos(key, item),
                    format!("{what} `{item}` is not declared in workspace.yaml"),
                )
                .with_help(format!("declared {key}: {}", declared.join(", ")));
            f.report(d);
        }
    }
    Some(list)
}

/// `toggles`: skill name → `true`, `false` or `{ enabled: bool }`.
fn client_toggles(f: &mut Fields<'_>) -> BTreeMap<String, Toggle> {
    let mut toggles = BTreeMap::new();
    if let Some(v) = f.doc.get("toggles").cloned() {
        match v {
            Value::Mapping(m) => {
                for (k, v) in &m {
                    let Some(name) = scalar_string(k) else {
                        continue;
                    };
                    let pos = f.doc.path_pos(&["toggles", &name]);
                    let enabled = match v {
                        Value::Bool(b) => Some(*b),
                        Value::Mapping(t) => match t.get("enabled") {
                            Some(Value::Bool(b)) if t.len() == 1 => Some(*b),
                            _ => None,
                        },
                        _ => None,
                    };
                    match enabled {
                        Some(enabled) => {
                            toggles.insert(names::normalize(&name), Toggle { enabled, pos });
                        }
                        None => {
                            let d = f
                                .diag(codes::INVALID_VALUE, pos, format!("toggle `{name}` must be `true`, `false` or `{{ enabled: bool }}`"));
                            f.report(d);
                        }
                    }
                }
            }
            Value::Null => {}
            other => {
                let d = f.diag(
                    codes::INVALID_VALUE,
                    f.doc.key_pos("toggles"),
                    format!(
                        "`toggles` must be a map of skill names, found {}",
                        value_kind(&other)
                    ),
                );
                f.report(d);
            }
        }
    }
    toggles
}

/// `flags`, as JSON for the variant predicates.
fn client_flags(f: &mut Fields<'_>) -> serde_json::Value {
    match f.doc.get("flags").cloned() {
        None | Some(Value::Null) => {}
        Some(v @ Value::Mapping(_)) => match serde_json::to_value(&v) {
            Ok(j) => return j,
            Err(e) => {
                let d = f.diag(
                    codes::INVALID_VALUE,
                    f.doc.key_pos("flags"),
                    format!("`flags` cannot be read: {e}"),
                );
                f.report(d);
            }
        },
        Some(other) => {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.key_pos("flags"),
                format!("`flags` must be a map, found {}", value_kind(&other)),
            );
            f.report(d);
        }
    }
    serde_json::Value::Object(Default::default())
}

/// `vars`: `_global` and per-skill sections of values.
fn client_vars(f: &mut Fields<'_>) -> BTreeMap<String, BTreeMap<String, String>> {
    if let Some(v) = f.doc.get("vars").cloned() {
        let pos = f.doc.key_pos("vars");
        let doc = f.doc;
        let written = |section: &str, name: &str, value: &Value| {
            doc.text(
                &[Seg::Key("vars"), Seg::Key(section), Seg::Key(name)],
                value,
            )
        };
        return var_sections(&v, &written).unwrap_or_else(|why| {
            f.report(Diagnostic::new(
                codes::INVALID_VALUE,
                f.file,
                pos,
                format!("`vars` {why}"),
            ));
            BTreeMap::new()
        });
    }
    BTreeMap::new()
}

/// `{section: {VAR: value}}`, where a section is `_global` or a skill name.
/// `written` gives a value's text as written (`PRICE: 1.50` stays `1.50`).
fn var_sections(
    v: &Value,
    written: &dyn Fn(&str, &str, &Value) -> Option<String>,
) -> Result<BTreeMap<String, BTreeMap<String, String>>, String> {
    let Value::Mapping(m) = v else {
        return Err("must map `_global` or skill names to variables".to_string());
    };
    let mut out = BTreeMap::new();
    for (k, v) in m {
        let section = scalar_string(k).ok_or("has a key that is not a string")?;
        let Value::Mapping(vars) = v else {
            return Err(format!("section `{section}` must be a map of variables"));
        };
        let mut values = BTreeMap::new();
        for (vk, vv) in vars {
            let name = scalar_string(vk);
            let value = name.as_deref().and_then(|n| written(&section, n, vv));
            let (Some(name), Some(value)) = (name, value) else {
                return Err(format!(
                    "section `{section}`: variable values must be strings"
                ));
            };
            values.insert(name, value);
        }
        out.insert(section, values);
    }
    Ok(out)
}

const CATEGORY_FIELDS: &[&str] = &[
    "name",
    "display_name",
    "answer_instructions",
    "uncertainty_guidance",
    "selector_description",
    "selector_guidance",
    "order",
    "hidden_from_llm",
];

/// Reads a `CATEGORY.md`'s frontmatter.
pub(crate) fn category(f: &mut Fields<'_>, id: &str) -> Category {
    f.unknown_keys(CATEGORY_FIELDS, codes::UNKNOWN_CONFIG_FIELD, "CATEGORY.md");
    if let Some(name) = f.string("name") {
        if name != id {
            let d = f
                .diag(
                    codes::INVALID_VALUE,
                    f.doc.value_pos("name", &name),
                    format!("category `name` is `{name}` but its folder is `{id}`"),
                )
                .with_help("a category is named by its folder; remove `name` or rename the folder");
            f.report(d);
        }
    }
    Category {
        id: id.to_string(),
        file: f.file.to_string(),
        display_name: f.string("display_name"),
        answer_instructions: f.string("answer_instructions"),
        uncertainty_guidance: f.string("uncertainty_guidance"),
        selector_description: f.string("selector_description"),
        selector_guidance: f.string("selector_guidance"),
        order: f.int("order").unwrap_or(i64::MAX),
        hidden_from_llm: f.bool("hidden_from_llm").unwrap_or(false),
    }
}

fn json_error(file: &str, text: &str, e: &serde_json::Error) -> Diagnostic {
    Diagnostic::new(
        codes::BAD_JSON,
        file,
        Pos {
            line: e.line().max(1),
            column: e.column().max(1),
            len: 1,
        },
        {
            // serde_json appends " at line L column C"; the diagnostic carries the position.
            let full = e.to_string();
            let message = full
                .find(" at line ")
                .map_or(full.as_str(), |i| &full[..i])
                .to_string();
            format!("invalid JSON: {message}")
        },
    )
    .with_source(text)
}

fn json_scalar(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn flat_vars(
    file: &str,
    text: &str,
    obj: &serde_json::Map<String, serde_json::Value>,
    out: &mut Vec<Diagnostic>,
) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for (k, v) in obj {
        match json_scalar(v) {
            Some(s) => {
                vars.insert(k.clone(), s);
            }
            None => out.push(Diagnostic::new(
                codes::BAD_JSON,
                file,
                locate_json_key(text, k),
                format!("variable `{k}` must be a string, number or boolean"),
            )),
        }
    }
    vars
}

/// Where `"key"` is first written in a JSON text.
fn locate_json_key(text: &str, key: &str) -> Pos {
    let needle = format!("\"{key}\"");
    match text.find(&needle) {
        Some(at) => crate::parse::sources::pos_of(text, at, 1, needle.len()),
        None => Pos::start(),
    }
}

/// Reads a skill's `vars.json`: `{"VAR": "value"}`.
pub(crate) fn vars_json(
    file: &str,
    text: &str,
    out: &mut Vec<Diagnostic>,
) -> BTreeMap<String, String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(obj)) => flat_vars(file, text, &obj, out),
        Ok(_) => {
            out.push(Diagnostic::new(
                codes::BAD_JSON,
                file,
                Pos::start(),
                "vars.json must hold a JSON object of variables",
            ));
            BTreeMap::new()
        }
        Err(e) => {
            out.push(json_error(file, text, &e));
            BTreeMap::new()
        }
    }
}

/// Reads `variables.json`: `{"<skill>": {...}, "_global": {...}}`.
pub(crate) fn variables_json(
    file: &str,
    text: &str,
    out: &mut Vec<Diagnostic>,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut sections = BTreeMap::new();
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(obj)) => {
            for (section, v) in &obj {
                match v {
                    serde_json::Value::Object(vars) => {
                        sections
                            .insert(names::normalize(section), flat_vars(file, text, vars, out));
                    }
                    _ => out.push(Diagnostic::new(
                        codes::BAD_JSON,
                        file,
                        locate_json_key(text, section),
                        format!("section `{section}` must be an object of variables"),
                    )),
                }
            }
        }
        Ok(_) => out.push(Diagnostic::new(
            codes::BAD_JSON,
            file,
            Pos::start(),
            "variables.json must hold a JSON object: {\"_global\": {...}, \"<skill>\": {...}}",
        )),
        Err(e) => out.push(json_error(file, text, &e)),
    }
    sections
}
