//! W126–W130: where a skill will not load, or will behave otherwise, in a client tool the
//! workspace declares under `targets:` (SPEC 14.2). docs/targets.md gives the source of each
//! client's rule.

use std::collections::BTreeMap;

use unicode_normalization::UnicodeNormalization;

use crate::diagnostic::{codes, Diagnostic};
use crate::model::targets::Target;
use crate::model::{Skill, Workspace};

/// The keys claude.ai and the Skills API accept in a SKILL.md frontmatter.
const SIX: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Names Claude Code keeps for itself: `synced` (the folder of skills synced from claude.ai)
/// and `anthropic-skills` (Anthropic's own).
const RESERVED: [&str; 2] = ["synced", "anthropic-skills"];

/// Every W126–W130 of the workspace.
pub(super) fn warnings(ws: &Workspace) -> Vec<Diagnostic> {
    let declared = |t: Target| ws.config.targets.iter().any(|d| d.target == t);
    let mut out = Vec::new();
    for s in ws.skills.iter().map(|s| &**s) {
        if declared(Target::Copilot) {
            array_argument_hint(s, &mut out);
        }
        if declared(Target::ClaudeApi) {
            keys_outside_six(s, &mut out);
        }
        if declared(Target::ClaudeCode) && RESERVED.contains(&fold(&s.name).as_str()) {
            out.push(
                Diagnostic::new(
                    codes::RESERVED_NAME,
                    &s.file,
                    s.name_pos,
                    format!("Claude Code keeps the name `{}` for itself; this skill would not load as it is", s.name),
                )
                .with_help("give the skill another name (claude-code is declared in workspace.yaml `targets`)"),
            );
        }
        for (target, limit) in [(Target::Codex, 1_024), (Target::ClaudeApi, 1_024)] {
            if declared(target) {
                over_limit(s, target, limit, &mut out);
            }
        }
    }
    if declared(Target::ClaudeCode) {
        folded_together(ws, &mut out);
    }
    out
}

fn array_argument_hint(s: &Skill, out: &mut Vec<Diagnostic>) {
    let Some(serde_json::Value::Array(items)) = s.frontmatter.client_fields.get("argument-hint")
    else {
        return;
    };
    let pos = key_pos(s, "argument-hint");
    let words: Vec<String> = items.iter().map(|v| v.to_string()).collect();
    out.push(
        Diagnostic::new(
            codes::ARRAY_ARGUMENT_HINT,
            &s.file,
            pos,
            "`argument-hint` is a YAML list here (its `[...]` is not quoted); Copilot CLI refuses to load a skill whose hint is not a string",
        )
        .with_help(format!(
            "quote it: `argument-hint: \"[{}]\"` (copilot is declared in workspace.yaml `targets`)",
            words.join(", ").replace('"', "")
        )),
    );
}

fn keys_outside_six(s: &Skill, out: &mut Vec<Diagnostic>) {
    for (key, pos) in &s.frontmatter.keys {
        if SIX.contains(&key.as_str()) {
            continue;
        }
        out.push(
            Diagnostic::new(
                codes::KEY_OUTSIDE_SIX,
                &s.file,
                *pos,
                format!("`{key}` is outside the six keys claude.ai and the Skills API accept; they refuse to upload this SKILL.md as it is"),
            )
            .with_help("upload what `skillc export --target claude-api` writes (the six keys, the rest under `metadata` or named as dropped), or move the key under `metadata`"),
        );
    }
}

fn over_limit(s: &Skill, target: Target, limit: usize, out: &mut Vec<Diagnostic>) {
    let length = (s.frontmatter.description.as_deref())
        .unwrap_or_default()
        .trim()
        .chars()
        .count();
    if length <= limit {
        return;
    }
    let name = target.name();
    out.push(
        Diagnostic::new(
            codes::OVER_CLIENT_LIMIT,
            &s.file,
            s.description_pos,
            format!("`{}`'s description has {length} characters; {name} does not load a skill whose description is over {limit}", s.name),
        )
        .with_help(format!(
            "shorten it by {} characters ({name} is declared in workspace.yaml `targets`)",
            length - limit
        )),
    );
}

/// Skills of one catalog whose names differ but that Claude Code takes for one, each after
/// the first of its kind.
fn folded_together(ws: &Workspace, out: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<(String, String), &Skill> = BTreeMap::new();
    for s in ws.skills.iter().map(|s| &**s) {
        let scope = format!("{:?}", s.scope);
        let Some(first) = seen.get(&(scope.clone(), fold(&s.name))).copied() else {
            seen.insert((scope, fold(&s.name)), s);
            continue;
        };
        if first.name == s.name {
            continue; // the same name twice is reported as such elsewhere
        }
        out.push(
            Diagnostic::new(
                codes::NAMES_FOLD_TOGETHER,
                &s.file,
                s.name_pos,
                format!(
                    "Claude Code takes `{}` and `{}` ({}) for the same skill: it folds case, spaces, invisible characters, fullwidth and dash variants",
                    s.name, first.name, first.file
                ),
            )
            .with_help("rename one of them (claude-code is declared in workspace.yaml `targets`)"),
        );
    }
}

/// A name as Claude Code compares names: compatibility-normalised (fullwidth letters become
/// plain ones), lower case, invisible characters removed, every dash variant, space and
/// underscore a plain `-`.
pub(crate) fn fold(name: &str) -> String {
    let mut out = String::new();
    for c in name.nfkc().flat_map(char::to_lowercase) {
        match c {
            '\u{00ad}'
            | '\u{034f}'
            | '\u{061c}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}' => {}
            '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{fe58}' | '\u{fe63}' | '\u{ff0d}' | '_' => {
                out.push('-')
            }
            c if c.is_whitespace() => out.push('-'),
            c => out.push(c),
        }
    }
    out
}

fn key_pos(s: &Skill, key: &str) -> crate::diagnostic::Pos {
    (s.frontmatter.keys.iter())
        .find(|(k, _)| k == key)
        .map_or(s.name_pos, |(_, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn names_fold_as_claude_code_compares_them() {
        for name in [
            "Deploy-App",
            "deploy app",
            "deploy\u{200b}-app",
            "ｄｅｐｌｏｙ-app",
            "deploy\u{2013}app",
            "deploy_app",
        ] {
            assert_eq!(fold(name), "deploy-app", "{name:?}");
        }
    }
}
