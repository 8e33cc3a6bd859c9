//! W124: a catalog or a description past the listing budget of a client tool the workspace
//! declares under `targets:`. Tools list each skill's name and description within a budget of
//! characters and cut or drop past it without a word (Claude Code: about 8,000 characters and
//! 1,536 a description); this says so at check time, for the global catalog and each client's.

use std::collections::BTreeSet;

use crate::diagnostic::{codes, Diagnostic};
use crate::model::targets::{DeclaredTarget, Report, Target};
use crate::model::{Scope, Skill, Workspace};

use super::catalogs::listed;

fn description(s: &Skill) -> &str {
    s.frontmatter
        .description
        .as_deref()
        .unwrap_or_default()
        .trim()
}

/// What `target` lists of a skill besides its name: the description, and for Claude Code its
/// `when_to_use` lines too, which it lists with the description within the same cap
/// (code.claude.com/docs/en/skills).
fn listed_text(s: &Skill, target: Target) -> String {
    let when = &s.frontmatter.when_to_use;
    match target == Target::ClaudeCode && !when.is_empty() {
        true => format!("{}\n{}", description(s), when.join("\n")),
        false => description(s).to_string(),
    }
}

/// A catalog's skills among the `listed` ones: the global catalog's, or a client's (its own
/// skills, and the global ones it keeps).
pub(crate) fn members(ws: &Workspace, listed: &[usize], client: Option<&str>) -> Vec<usize> {
    let config = client.and_then(|c| ws.clients.get(c));
    let on = |s: &Skill| {
        let toggle = config
            .and_then(|c| c.toggles.get(&s.name))
            .map(|t| t.enabled);
        toggle.or(s.frontmatter.default_enabled).unwrap_or(true)
    };
    let is_own = |s: &Skill| matches!((&s.scope, client), (Scope::Client(id), Some(c)) if id == c);
    let own: BTreeSet<(&str, &str)> = (listed.iter().map(|&i| &*ws.skills[i]))
        .filter(|s| is_own(s))
        .map(|s| (s.namespace.as_str(), s.name.as_str()))
        .collect();
    let kept = |s: &Skill| match s.scope {
        Scope::Global => own.is_empty() || !own.contains(&(s.namespace.as_str(), s.name.as_str())),
        Scope::Client(_) => is_own(s),
    };
    (listed.iter().copied())
        .filter(|&i| kept(&ws.skills[i]) && on(&ws.skills[i]))
        .collect()
}

/// The skills with a catalog line of their own.
fn all_listed(ws: &Workspace) -> Vec<usize> {
    (0..ws.skills.len())
        .filter(|&i| listed(ws, &ws.skills[i]))
        .collect()
}

/// What `target` lists of the skills `members`.
pub(crate) fn listing(ws: &Workspace, members: &[usize], target: &DeclaredTarget) -> Report {
    let texts: Vec<(&str, String)> = (members.iter().map(|&i| &*ws.skills[i]))
        .map(|s| (s.name.as_str(), listed_text(s, target.target)))
        .collect();
    Report::of(
        target.target,
        target.budget,
        texts.iter().map(|(n, t)| (*n, t.as_str())),
    )
}

/// Every W124 of the workspace.
pub(super) fn warnings(ws: &Workspace) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A client without a known budget has no budget check.
    let targets: Vec<&DeclaredTarget> = (ws.config.targets.iter())
        .filter(|t| t.budget.is_some())
        .collect();
    if targets.is_empty() {
        return out;
    }
    let listed = all_listed(ws);
    for target in targets.iter().copied() {
        descriptions_cut(ws, &listed, target, &mut out);
    }
    // A client with neither toggles nor skills of its own lists the global catalog: its
    // listings are the global one's (most of the reference workload's 500 clients).
    let with_own: BTreeSet<&str> = (listed.iter())
        .filter_map(|&i| match &ws.skills[i].scope {
            Scope::Client(c) => Some(c.as_str()),
            Scope::Global => None,
        })
        .collect();
    let global = members(ws, &listed, None);
    let global_listings: Vec<Report> = (targets.iter()).map(|t| listing(ws, &global, t)).collect();
    let clients = ws.clients.iter().map(|(id, c)| (Some(id.as_str()), c));
    for (client, config) in std::iter::once((None, None)).chain(clients.map(|(i, c)| (i, Some(c))))
    {
        let same_as_global = client.is_none()
            || config.is_some_and(|c| c.toggles.is_empty())
                && !with_own.contains(client.unwrap_or(""));
        let own = (!same_as_global).then(|| members(ws, &listed, client));
        for (t, target) in targets.iter().copied().enumerate() {
            let l = match &own {
                Some(m) => listing(ws, m, target),
                None => global_listings[t].clone(),
            };
            if l.budget.is_some_and(|b| l.listed > b.total) {
                out.push(over_budget(target, client, &l));
            }
        }
    }
    out
}

/// A description past the target's cut, at the description (once per skill and target).
fn descriptions_cut(
    ws: &Workspace,
    listed: &[usize],
    target: &DeclaredTarget,
    out: &mut Vec<Diagnostic>,
) {
    let Some(most) = target.budget.and_then(|b| b.per_description) else {
        return;
    };
    let name = target.target.name();
    for s in listed.iter().map(|&i| &ws.skills[i]) {
        let length = listed_text(s, target.target).chars().count();
        if length > most {
            out.push(
                Diagnostic::new(
                    codes::OVER_TARGET_BUDGET,
                    &s.file,
                    s.description_pos,
                    format!(
                        "`{}`'s description{} has {length} characters; {name} lists {most} of them and cuts the rest",
                        s.name,
                        match target.target == Target::ClaudeCode && !s.frontmatter.when_to_use.is_empty() {
                            true => " with its `when_to_use`",
                            false => "",
                        }
                    ),
                )
                .with_help(format!(
                    "say first what matters, or shorten it by {} characters ({name} is declared in workspace.yaml `targets`)",
                    length - most
                )),
            );
        }
    }
}

fn over_budget(target: &DeclaredTarget, client: Option<&str>, l: &Report) -> Diagnostic {
    let name = target.target.name();
    let whose = match client {
        None => "the global catalog".to_string(),
        Some(c) => format!("client `{c}`'s catalog"),
    };
    let budget = l.budget.map_or(0, |b| b.total);
    Diagnostic::new(
        codes::OVER_TARGET_BUDGET,
        "workspace.yaml",
        target.pos,
        format!(
            "{whose} lists {} characters of names and descriptions for {name}, over its budget of {budget}: {name} would leave about {} of its {} descriptions out (the least used first)",
            l.listed, l.dropped, l.skills
        ),
    )
    .with_help(format!(
        "shorten descriptions by {} characters in all, turn skills off for this client, or raise `targets.{name}.budget` if {name} is given more",
        l.listed - budget
    ))
}
