//! W119: a skill's own trigger example that routes first to another skill of its catalog.
//! Each example is routed as `skillc eval` scores it, leave-one-out (as if its skill did not
//! hold it), with the runtimes' tokenizer and scores, over the texts the index holds (name,
//! description, every trigger example, `when_to_use`) in the default locale. The catalogs are
//! those of the overlap pass (W118): the global one, and each client's with its own skills; a
//! client's catalog is checked for its own skills' examples.

use std::collections::HashSet;
use std::sync::Arc;

use rayon::prelude::*;
use skillc_runtime::route::{card_terms, rank_parts, Part, RouteIndex, RoutingSettings};

use serde::Serialize;

use super::catalogs::{catalogs, listed, Catalog};
use super::overlap::{dismissed, remembered};
use super::{Memory, Recall};
use crate::diagnostic::{codes, Diagnostic};
use crate::model::{Skill, Workspace};

/// The `min_score` of a catalog: a client's own `routing:`, else the workspace's, else the
/// runtimes' default.
fn min_score(ws: &Workspace, client: Option<&str>) -> f64 {
    let of = |v: Option<&serde_json::Value>| v?.get("min_score")?.as_f64();
    client
        .and_then(|c| ws.clients.get(c))
        .and_then(|c| of(c.routing.as_ref()))
        .or_else(|| of(ws.config.routing.as_ref()))
        .unwrap_or(RoutingSettings::default().min_score)
}

/// The words the index holds of a skill, as the build stores them in `card.terms`.
fn terms(s: &Skill) -> String {
    let fm = &s.frontmatter;
    card_terms(
        &s.name,
        fm.description.as_deref().unwrap_or(""),
        &fm.trigger_examples,
        &fm.when_to_use,
    )
}

/// W119 for every listed skill with a trigger example whose first candidate, leave-one-out,
/// is another skill of the same catalog: one warning per skill (at its first such example),
/// as W118 gives one per skill.
/// In a session, the last pass's when its inputs are the same: a rebuild after a body edit
/// does not route every example again.
pub(crate) fn warnings(ws: &Workspace, recall: Recall<'_>) -> Vec<Diagnostic> {
    remembered(|m| &m.routing, ws, recall, compute)
}

/// W119 of every listed skill, or of the skills of `only` (a draft's edited skills).
fn compute(
    ws: &Workspace,
    only: Option<&HashSet<usize>>,
    memory: Option<&Memory>,
) -> Vec<Diagnostic> {
    let wanted = |i: &usize| only.is_none_or(|o| o.contains(i));
    let found = each_catalog(ws, only, memory, |catalog, parts, floor| {
        (catalog.own.par_iter())
            .filter(|i| wanted(i))
            .filter_map(|&i| routed_elsewhere(ws, parts, floor, catalog.client, i))
            .collect::<Vec<_>>()
    });
    found.into_iter().flatten().collect()
}

/// `f` of each catalog with an own skill of `only` (every catalog without it), with the parts
/// of its index and its `min_score`. The global catalog's index is built once; a client's
/// catalog is ranked as that index less the global skills it does not show plus an index of
/// its own skills and the ones it turns on (`route::rank_parts`, exactly as an index of its
/// own would rank). Only the global skills' words are held for the whole pass; a client's
/// are made where its catalog is ranked.
fn each_catalog<T: Send>(
    ws: &Workspace,
    only: Option<&HashSet<usize>>,
    memory: Option<&Memory>,
    f: impl Fn(&Catalog<'_>, &[Part<'_>], f64) -> T + Sync,
) -> Vec<T> {
    let wanted = |i: &usize| only.is_none_or(|o| o.contains(i));
    let listed: Vec<usize> = (0..ws.skills.len())
        .filter(|&i| listed(ws, &ws.skills[i]))
        .collect();
    let mut catalogs = catalogs(ws, &listed, memory);
    catalogs.retain(|c| c.own.iter().any(wanted));
    let global: Vec<usize> = (listed.iter().copied())
        .filter(|&i| matches!(ws.skills[i].scope, crate::model::Scope::Global))
        .filter(|&i| super::catalogs::enabled(ws, &ws.skills[i], None))
        .collect();
    // The base's documents are the global skills it was built from; those since edited
    // (`stale`) are left out of it and ranked with a catalog's added skills instead.
    let (base, built_from) = global_index(ws, &global, memory);
    let stale: Vec<bool> = (built_from.iter())
        .map(|(i, skill)| !Arc::ptr_eq(skill, &ws.skills[*i]))
        .collect();
    let in_base: HashSet<usize> = (built_from.iter().zip(&stale))
        .filter(|(_, stale)| !**stale)
        .map(|((i, _), _)| *i)
        .collect();
    catalogs
        .par_iter()
        .map(|catalog| {
            let mut shown = vec![false; ws.skills.len()];
            for &i in catalog.own.iter().chain(catalog.kept.iter()) {
                shown[i] = true;
            }
            let removed: Vec<bool> = (built_from.iter().zip(&stale))
                .map(|((i, _), stale)| *stale || !shown[*i])
                .collect();
            let more: Vec<(usize, String)> = (catalog.own.iter().chain(catalog.kept.iter()))
                .filter(|i| !in_base.contains(i))
                .map(|&i| (i, terms(&ws.skills[i])))
                .collect();
            let added = RouteIndex::new(more.iter().map(|(i, t)| (*i, t.as_str())));
            let parts = [Part::less(&base, &removed), Part::whole(&added)];
            f(catalog, &parts, min_score(ws, catalog.client))
        })
        .collect()
}

/// The index of the global catalog and the skills it was built from: in a session, the last
/// one its memory holds while it was built from the same skills in the same places with at
/// most [`MAX_STALE`] of them edited since (each keystroke in a description would build it
/// again: 8 ms on a thousand skills, twice a keystroke).
fn global_index(
    ws: &Workspace,
    global: &[usize],
    memory: Option<&Memory>,
) -> (Arc<RouteIndex>, BuiltFrom) {
    if let Some(memory) = memory {
        if let Ok(memo) = memory.route_base.lock() {
            if let Some((index, from)) = memo.as_ref() {
                let same_places =
                    from.len() == global.len() && from.iter().zip(global).all(|((i, _), g)| i == g);
                // Its places are then `global`'s, all in the workspace.
                let edited = || {
                    (from.iter())
                        .filter(|(i, skill)| !Arc::ptr_eq(skill, &ws.skills[*i]))
                        .count()
                };
                if same_places && edited() <= MAX_STALE {
                    return (index.clone(), from.clone());
                }
            }
        }
    }
    let terms: Vec<String> = global.par_iter().map(|&i| terms(&ws.skills[i])).collect();
    let index = Arc::new(RouteIndex::new(
        (global.iter().copied()).zip(terms.iter().map(String::as_str)),
    ));
    let from: BuiltFrom = Arc::new(global.iter().map(|&i| (i, ws.skills[i].clone())).collect());
    if let Some(memory) = memory {
        if let Ok(mut memo) = memory.route_base.lock() {
            *memo = Some((index.clone(), from.clone()));
        }
    }
    (index, from)
}

/// The skills an index was built from, by their place in the workspace.
pub(super) type BuiltFrom = Arc<Vec<(usize, Arc<Skill>)>>;

/// Edited global skills ranked beside the kept global index rather than in it.
const MAX_STALE: usize = 16;

/// Where one trigger example of a skill goes first, leave-one-out, in the skill's own
/// catalog: what the studio's editor shows while a description or an example is typed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExampleRoute {
    /// The example.
    pub example: String,
    /// Its line in the file (1-based; 0 when unknown).
    pub line: usize,
    /// The skill it reaches first, if any scores `min_score`.
    pub first: Option<String>,
    /// Whether that is its own skill.
    pub own: bool,
    /// When it reaches another skill: the words that pulled it there, and where its own
    /// skill stands, in words.
    pub pulled: Vec<String>,
    /// Where its own skill stands when another comes first.
    pub standing: Option<String>,
}

/// Where each trigger example of skill `i` goes first in its catalog (the global one, or its
/// client's), as W119 routes them, with the catalogs and index of the session's `memory`.
/// Empty for a skill no catalog lists.
pub(crate) fn example_routes(ws: &Workspace, i: usize, memory: &Memory) -> Vec<ExampleRoute> {
    let only: HashSet<usize> = [i].into_iter().collect();
    let skill = &ws.skills[i];
    let examples = &skill.frontmatter.trigger_examples;
    let mut found = each_catalog(ws, Some(&only), Some(memory), |_, parts, floor| {
        (0..examples.len())
            .map(|n| {
                let line = skill.examples_pos.get(n).map_or(0, |p| p.line);
                let example = examples[n].clone();
                match example_elsewhere(ws, parts, floor, i, n) {
                    Some(away) => ExampleRoute {
                        example,
                        line,
                        first: Some(away.other.1.to_string()),
                        own: false,
                        pulled: away.pulled,
                        standing: Some(away.own),
                    },
                    None => {
                        let ranking = rank_parts(parts, &examples[n], Some((i, &examples[n])));
                        let first = ranking.first(|s| s.score >= floor, |k| &ws.skills[k].name);
                        ExampleRoute {
                            example,
                            line,
                            own: first.is_some(),
                            first: first.map(|_| skill.name.clone()),
                            pulled: Vec::new(),
                            standing: None,
                        }
                    }
                }
            })
            .collect::<Vec<_>>()
    });
    found.pop().unwrap_or_default()
}

/// Where one trigger example goes first instead of its own skill.
struct Elsewhere<'w> {
    /// Which example.
    n: usize,
    /// The skill it reaches first (its index in the workspace, its name).
    other: (usize, &'w str),
    /// Where its own skill stands, in words.
    own: String,
    /// The words that pulled it away.
    pulled: Vec<String>,
}

/// Where the `n`th trigger example of skill `i` goes first, when that is another skill.
fn example_elsewhere<'w>(
    ws: &'w Workspace,
    parts: &[Part<'_>],
    floor: f64,
    i: usize,
    n: usize,
) -> Option<Elsewhere<'w>> {
    let skill = &ws.skills[i];
    let example = &skill.frontmatter.trigger_examples[n];
    let ranking = rank_parts(parts, example, Some((i, example)));
    let first = ranking.first(|s| s.score >= floor, |k| &ws.skills[k].name)?;
    if first.skill == i {
        return None;
    }
    let own = ranking.scored.iter().find(|s| s.skill == i);
    let own_words = own.map(|s| ranking.matched(s)).unwrap_or_default();
    // In words, not scores: the scores move with any edit of the catalog, and a review lists
    // a warning whose text changed as a new one.
    let standing = match own {
        Some(s) if s.score >= floor => format!("`{}` comes after it", skill.name),
        Some(_) => format!("`{}` scores under min_score", skill.name),
        None => format!("`{}` shares no word with it", skill.name),
    };
    Some(Elsewhere {
        n,
        other: (first.skill, &ws.skills[first.skill].name),
        own: standing,
        pulled: (ranking.matched(first).into_iter())
            .filter(|w| !own_words.contains(w))
            .collect(),
    })
}

/// The W119 of skill `i`, when some of its trigger examples route first to another skill.
fn routed_elsewhere(
    ws: &Workspace,
    parts: &[Part<'_>],
    floor: f64,
    client: Option<&str>,
    i: usize,
) -> Option<Diagnostic> {
    let skill = &ws.skills[i];
    let examples = &skill.frontmatter.trigger_examples;
    // A pair declared `distinct_from` is meant to look alike: W118 and W119 leave it alone.
    let away: Vec<Elsewhere<'_>> = (0..examples.len())
        .filter_map(|n| example_elsewhere(ws, parts, floor, i, n))
        .filter(|away| !dismissed(skill, &ws.skills[away.other.0]))
        .collect();
    let first = away.first()?;
    let catalog = match client {
        None => "the global catalog".to_string(),
        Some(c) => format!("client {c}'s catalog"),
    };
    let pulled = match first.pulled.is_empty() {
        true => "the words they share weigh more in it".to_string(),
        false => format!("pulled by {}", first.pulled.join(", ")),
    };
    // The others are counted, not listed: `skillc eval` and the studio's Routing tab list them.
    let others = match away.len() - 1 {
        0 => String::new(),
        more => format!(
            "; {more} more of its {} examples route elsewhere too",
            examples.len()
        ),
    };
    let pos = skill
        .examples_pos
        .get(first.n)
        .copied()
        .unwrap_or(skill.description_pos);
    Some(
        Diagnostic::new(
            codes::EXAMPLE_ROUTES_ELSEWHERE,
            &skill.file,
            pos,
            format!(
                "trigger example {:?} of `{}` routes first to `{}` in {catalog} ({}): {pulled}{others}",
                examples[first.n], skill.name, first.other.1, first.own
            ),
        )
        .with_help(format!(
            "say in `{}`'s description or examples the words visitors use for it; `skillc eval` \
             shows where each example goes",
            skill.name
        )),
    )
}
