//! W124: a catalog or a description past the listing budget of a client tool the workspace
//! declares under `targets:`. Tools list each skill's name and description within a budget of
//! characters and cut or drop past it without a word (Claude Code: about 8,000 characters and
//! 1,536 a description); this says so at check time, for the global catalog and each client's.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{codes, Diagnostic};
use crate::model::targets::DeclaredTarget;
use crate::model::{Scope, Skill, Workspace};

use super::catalogs::listed;

/// Characters a tool lists of a skill: its name and its description, as cut by the tool.
fn listing_chars(s: &Skill, per_description: Option<usize>) -> usize {
    let description = description_chars(s);
    s.name.chars().count() + per_description.map_or(description, |most| description.min(most))
}

fn description_chars(s: &Skill) -> usize {
    (s.frontmatter.description.as_deref())
        .unwrap_or_default()
        .trim()
        .chars()
        .count()
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

/// What a target's listing keeps of a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// Characters of names and descriptions, each description as the tool cuts it.
    pub chars: usize,
    /// Skills listed.
    pub skills: usize,
    /// Skills whose descriptions the tool cuts, with their lengths.
    pub cut: Vec<(String, usize)>,
    /// About how many descriptions it drops to fit (the least used first).
    pub dropped: usize,
}

/// What `target` lists of the skills `members`.
pub fn listing(ws: &Workspace, members: &[usize], target: &DeclaredTarget) -> Listing {
    let per = target.budget.per_description;
    let mut chars = 0;
    let mut cut = Vec::new();
    for &i in members {
        let s = &ws.skills[i];
        chars += listing_chars(s, per);
        let length = description_chars(s);
        if per.is_some_and(|most| length > most) {
            cut.push((s.name.clone(), length));
        }
    }
    let dropped = match chars.checked_sub(target.budget.total) {
        Some(over) if over > 0 && !members.is_empty() => over.div_ceil(chars / members.len()),
        _ => 0,
    };
    Listing {
        chars,
        skills: members.len(),
        cut,
        dropped,
    }
}

/// Every W124 of the workspace.
pub(super) fn warnings(ws: &Workspace) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if ws.config.targets.is_empty() {
        return out;
    }
    let listed = all_listed(ws);
    for target in &ws.config.targets {
        descriptions_cut(ws, &listed, target, &mut out);
        let clients = ws.clients.keys().map(|c| Some(c.as_str()));
        for client in std::iter::once(None).chain(clients) {
            let l = listing(ws, &members(ws, &listed, client), target);
            if l.chars > target.budget.total {
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
    let Some(most) = target.budget.per_description else {
        return;
    };
    let name = target.target.name();
    for s in listed.iter().map(|&i| &ws.skills[i]) {
        let length = description_chars(s);
        if length > most {
            out.push(
                Diagnostic::new(
                    codes::OVER_TARGET_BUDGET,
                    &s.file,
                    s.description_pos,
                    format!(
                        "`{}`'s description has {length} characters; {name} lists {most} of them and cuts the rest",
                        s.name
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

fn over_budget(target: &DeclaredTarget, client: Option<&str>, l: &Listing) -> Diagnostic {
    let name = target.target.name();
    let whose = match client {
        None => "the global catalog".to_string(),
        Some(c) => format!("client `{c}`'s catalog"),
    };
    let budget = target.budget.total;
    Diagnostic::new(
        codes::OVER_TARGET_BUDGET,
        "workspace.yaml",
        target.pos,
        format!(
            "{whose} lists {} characters of names and descriptions for {name}, over its budget of {budget}: {name} would leave about {} of its {} descriptions out (the least used first)",
            l.chars, l.dropped, l.skills
        ),
    )
    .with_help(format!(
        "shorten descriptions by {} characters in all, turn skills off for this client, or raise `targets.{name}.budget` if {name} is given more",
        l.chars - budget
    ))
}

/// The listing of each declared target for the catalog of `client` (`None`: global), for the
/// studio's budget meter.
pub fn target_listings(
    ws: &Workspace,
    client: Option<&str>,
) -> BTreeMap<&'static str, (Listing, DeclaredTarget)> {
    let members = members(ws, &all_listed(ws), client);
    (ws.config.targets.iter())
        .map(|t| (t.target.name(), (listing(ws, &members, t), t.clone())))
        .collect()
}
