//! The rules on a skill's fields: markup in its description (S102), a description stuffed with
//! keywords to win routing (S601), and `allowed-tools` granting an unrestricted shell (S701).

use std::collections::BTreeMap;

use super::{Finding, Rules};
use crate::diagnostic::{codes, Pos, SafetyLevel};
use crate::model::Skill;
use crate::parse::load::Texts;

/// Tags that would close or open a section of a catalog or a conversation.
const STRUCTURAL_TAGS: &[&str] = &[
    "system",
    "instructions",
    "instruction",
    "important",
    "skill",
    "skills",
    "available_skills",
    "user",
    "assistant",
    "human",
    "prompt",
    "tool",
    "tools",
    "function_calls",
    "invoke",
    "admin",
    "developer",
    "context",
    "description",
];

/// The findings of `skill`'s fields, placed in its SKILL.md.
pub(super) fn scan(skill: &Skill, texts: &Texts, rules: &Rules) -> Vec<Finding> {
    let mut found = Vec::new();
    if let Some(d) = skill.frontmatter.description.as_deref() {
        markup(d, skill.description_pos, rules, &mut found);
        stuffing(d, skill.description_pos, rules, &mut found);
    }
    let text = texts.get(skill.file.as_str()).map(|t| &**t).unwrap_or("");
    shell(&skill.frontmatter.allowed_tools, text, &mut found);
    found
}

fn markup(description: &str, pos: Pos, rules: &Rules, found: &mut Vec<Finding>) {
    if !description.contains(['<', '>']) {
        return;
    }
    let tag = &rules.tag;
    let names: Vec<String> = tag
        .captures_iter(description)
        .map(|c| c[1].to_ascii_lowercase())
        .collect();
    let (level, what) = match names.iter().find(|n| STRUCTURAL_TAGS.contains(&n.as_str())) {
        Some(n) => (SafetyLevel::High, format!("the tag `<{n}>`, which can close or open a section of the prompt a catalog is read in")),
        None if !names.is_empty() => (SafetyLevel::Medium, format!("markup (`<{}>`)", names[0])),
        None => (SafetyLevel::Low, "angle brackets".to_string()),
    };
    found.push(Finding {
        code: codes::DESCRIPTION_MARKUP,
        level,
        pos,
        message: format!("the description holds {what}"),
        help:
            "describe in plain words; Claude Code escapes angle brackets and other clients may not",
    });
}

/// A description that is mostly a list of keywords, or repeats one, is written for the
/// router, not for a reader.
fn stuffing(description: &str, pos: Pos, rules: &Rules, found: &mut Vec<Finding>) {
    let items: Vec<&str> = description
        .split([',', ';', '|', '\n'])
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .collect();
    let words: Vec<String> = description
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for w in &words {
        *counts.entry(w).or_default() += 1;
    }
    let (top, top_count) = counts
        .iter()
        .max_by_key(|(w, c)| (**c, std::cmp::Reverse(**w)))
        .map(|(w, c)| (*w, *c))
        .unwrap_or(("", 0));
    let claims_all = &rules.claims_all;
    if claims_all.is_match(description) {
        found.push(Finding {
            code: codes::KEYWORD_STUFFING,
            level: SafetyLevel::Medium,
            pos,
            message: "the description claims every request for the skill".to_string(),
            help: "say when the skill applies; a claim on every request pulls all of them to it",
        });
        return;
    }
    let short_items = items
        .iter()
        .filter(|i| i.split_whitespace().count() <= 3)
        .count();
    let listed = items.len() >= 40 && short_items * 10 >= items.len() * 8;
    let repeated = top_count >= 8 && top_count * 6 >= words.len();
    if !(listed || repeated) {
        return;
    }
    let why = if listed {
        format!("a list of {} short keywords", items.len())
    } else {
        format!("`{top}` {top_count} times in {} words", words.len())
    };
    found.push(Finding {
        code: codes::KEYWORD_STUFFING,
        level: SafetyLevel::Medium,
        pos,
        message: format!("the description reads as keyword stuffing ({why})"),
        help: "say what the skill does and when to use it; stuffed keywords pull unrelated requests to it",
    });
}

/// Shell tools granted without a command pattern: the skill may then run anything, fetch and
/// write included.
fn shell(allowed: &[String], text: &str, found: &mut Vec<Finding>) {
    let unrestricted = allowed.iter().find(|t| {
        let t = t.trim();
        let (name, scope) = match t.split_once('(') {
            Some((n, rest)) => (n.trim(), rest.trim_end_matches(')').trim()),
            None => (t, ""),
        };
        let shell = [
            "Bash",
            "Shell",
            "shell",
            "run_shell_command",
            "PowerShell",
            "Terminal",
            "terminal",
            "execute_command",
        ]
        .contains(&name);
        shell && matches!(scope, "" | "*" | ":*" | "*:*" | "**")
    });
    let Some(tool) = unrestricted else {
        return;
    };
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with("allowed-tools"))
        .map_or(1, |i| i + 1);
    found.push(Finding {
        code: codes::UNRESTRICTED_TOOLS,
        level: SafetyLevel::Medium,
        pos: Pos::line(line),
        message: format!("`allowed-tools` grants `{tool}` without a command pattern: any command, network and writes included, without asking"),
        help: "scope it to the commands the skill runs, e.g. `Bash(git status:*)`",
    });
}
