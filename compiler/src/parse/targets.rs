//! `workspace.yaml` `targets:`: the client tools a workspace ships to, each with the listing
//! budget `check` holds its catalogs to (W124). A list names targets with their documented
//! budgets; a mapping may give figures of its own:
//!
//! ```yaml
//! targets: [claude-code, codex]
//! targets:
//!   claude-code: {}                                  # its documented budget
//!   codex: { budget: 12000 }                         # characters of names and descriptions
//!   gemini: { budget: 6000, description_limit: 500 } # and characters a description keeps
//! ```

use serde_yaml::Value;

use crate::diagnostic::codes;
use crate::model::targets::{Budget, DeclaredTarget, Target};
use crate::parse::fields::Fields;
use crate::parse::yaml::scalar_string;

const KNOWN: &str = "claude-code, codex, gemini, copilot, agents, cursor, claude-api";

/// The declared targets, in the order written; each problem reported.
pub(crate) fn targets(f: &mut Fields<'_>) -> Vec<DeclaredTarget> {
    let entries: Vec<(String, Option<Value>)> = match f.doc.get("targets").cloned() {
        None => return Vec::new(),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|v| (scalar_string(v).unwrap_or_default(), None))
            .collect(),
        Some(Value::Mapping(m)) => m
            .iter()
            .map(|(k, v)| (scalar_string(k).unwrap_or_default(), Some(v.clone())))
            .collect(),
        Some(_) => {
            let d = f.diag(
                codes::INVALID_VALUE,
                f.doc.key_pos("targets"),
                "`targets` is a list of client tools or a mapping of them to budgets",
            );
            f.report(d.with_help(format!("known: {KNOWN}")));
            return Vec::new();
        }
    };
    let mut out: Vec<DeclaredTarget> = Vec::new();
    for (name, value) in entries {
        let pos = match &value {
            Some(_) => f.doc.path_pos(&["targets", &name]),
            None => f.doc.key_pos("targets"),
        };
        let Some(target) = Target::named(&name) else {
            let d = f.diag(
                codes::UNKNOWN_CONFIG_FIELD,
                pos,
                format!("`{name}` is not a client tool skillc knows"),
            );
            f.report(d.with_help(format!("known: {KNOWN}")));
            continue;
        };
        if out.iter().any(|t| t.target == target) {
            continue;
        }
        if let Some(declared) = declared(f, target, value, pos) {
            out.push(declared);
        }
    }
    out
}

/// A description limit with no budget to go with it.
fn no_budget(f: &mut Fields<'_>, name: &str, pos: crate::diagnostic::Pos) {
    let d = f.diag(
        codes::INVALID_VALUE,
        pos,
        format!("{name} documents no listing budget that skillc knows of"),
    );
    f.report(d.with_help(format!(
        "give it one: `targets: {{{name}: {{budget: 8000}}}}` (characters of names and descriptions)"
    )));
}

/// One target's budget: the documented one with the workspace's figures over it.
fn declared(
    f: &mut Fields<'_>,
    target: Target,
    value: Option<Value>,
    pos: crate::diagnostic::Pos,
) -> Option<DeclaredTarget> {
    let name = target.name();
    let (mut total, mut per_description) = match target.budget() {
        Some(b) => (Some(b.total), b.per_description),
        None => (None, None),
    };
    let mut overridden = false;
    match value {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(m)) => {
            for (k, v) in &m {
                let key = scalar_string(k).unwrap_or_default();
                let n = v.as_u64().filter(|n| *n > 0).map(|n| n as usize);
                match (key.as_str(), n) {
                    ("budget", Some(n)) => total = Some(n),
                    ("description_limit", Some(n)) => per_description = Some(n),
                    _ => {
                        let d = f.diag(
                            codes::UNKNOWN_CONFIG_FIELD,
                            f.doc.path_pos(&["targets", name, &key]),
                            format!(
                                "unknown or invalid `targets.{name}.{key}` (known: budget and \
                                 description_limit, whole numbers of characters above 0)"
                            ),
                        );
                        f.report(d);
                        continue;
                    }
                }
                overridden = true;
            }
        }
        Some(_) => {
            let d = f.diag(
                codes::INVALID_VALUE,
                pos,
                format!("`targets.{name}` is a mapping (`{{budget: 8000}}`) or empty"),
            );
            f.report(d);
            return None;
        }
    }
    let Some(total) = total else {
        if per_description.is_none() {
            // No budget known: the client's other checks, no budget check (SPEC 14.2).
            return Some(DeclaredTarget {
                target,
                budget: None,
                overridden,
                pos,
            });
        }
        no_budget(f, name, pos);
        return None;
    };
    let source = match (overridden, target.budget()) {
        (false, Some(b)) => b.source,
        _ => "workspace.yaml `targets`",
    };
    Some(DeclaredTarget {
        target,
        budget: Some(Budget {
            total,
            per_description,
            source,
        }),
        overridden,
        pos,
    })
}
