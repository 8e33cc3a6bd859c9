//! W119: a skill's own trigger example that routes first to another skill of its catalog.
//! Each example is routed as `skillc eval` scores it, leave-one-out (as if its skill did not
//! hold it), with the runtimes' tokenizer and scores, over the texts the index holds (name,
//! description, every trigger example, `when_to_use`) in the default locale. The catalogs are
//! those of the overlap pass (W118): the global one, and each client's with its own skills; a
//! client's catalog is checked for its own skills' examples.

use rayon::prelude::*;
use skillc_runtime::route::{card_terms, RouteIndex, RoutingSettings};

use super::overlap::{catalogs, listed};
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

/// W119 for every trigger example of a listed skill whose first candidate, leave-one-out, is
/// another skill of the same catalog.
pub fn warnings(ws: &Workspace) -> Vec<Diagnostic> {
    let listed: Vec<usize> = (0..ws.skills.len())
        .filter(|&i| listed(ws, &ws.skills[i]))
        .collect();
    let mut terms_of: Vec<String> = vec![String::new(); ws.skills.len()];
    let computed: Vec<(usize, String)> = listed
        .par_iter()
        .map(|&i| (i, terms(&ws.skills[i])))
        .collect();
    for (i, t) in computed {
        terms_of[i] = t;
    }
    // A catalog each, on every core: building a catalog's index is most of the work.
    let catalogs = catalogs(ws, &listed);
    let found: Vec<Vec<Diagnostic>> = catalogs
        .par_iter()
        .map(|catalog| {
            let members = catalog.own.iter().chain(&catalog.kept);
            let index = RouteIndex::new(members.map(|&i| (i, terms_of[i].as_str())));
            let floor = min_score(ws, catalog.client);
            let examples = |&i: &usize| {
                let n = ws.skills[i].frontmatter.trigger_examples.len();
                (0..n).map(move |n| (i, n))
            };
            let jobs: Vec<(usize, usize)> = catalog.own.iter().flat_map(examples).collect();
            jobs.par_iter()
                .filter_map(|&(i, n)| routed_elsewhere(ws, &index, floor, catalog.client, i, n))
                .collect()
        })
        .collect();
    found.into_iter().flatten().collect()
}

/// The W119 of the `n`th trigger example of skill `i`, when it routes first to another skill.
fn routed_elsewhere(
    ws: &Workspace,
    index: &RouteIndex,
    floor: f64,
    client: Option<&str>,
    i: usize,
    n: usize,
) -> Option<Diagnostic> {
    let skill = &ws.skills[i];
    let example = &skill.frontmatter.trigger_examples[n];
    let ranking = index.rank_leaving_out(example, Some((i, example)));
    let ordered = ranking.ordered(|s| s.score >= floor, |k| &ws.skills[k].name);
    let first = *ordered.first()?;
    if first.skill == i {
        return None;
    }
    let own = ranking.scored.iter().find(|s| s.skill == i);
    let own_words = own.map(|s| ranking.matched(s)).unwrap_or_default();
    let pulled: Vec<String> = ranking
        .matched(first)
        .into_iter()
        .filter(|w| !own_words.contains(w))
        .collect();
    let other = &ws.skills[first.skill];
    let catalog = match client {
        None => "the global catalog".to_string(),
        Some(c) => format!("client {c}'s catalog"),
    };
    // In words, not scores: the scores move with any edit of the catalog, and a review lists
    // a warning whose text changed as a new one.
    let own_score = match own {
        Some(s) if s.score >= floor => format!("`{}` comes after it", skill.name),
        Some(_) => format!("`{}` scores under min_score", skill.name),
        None => format!("`{}` shares no word with it", skill.name),
    };
    let pulled = match pulled.is_empty() {
        true => "the words they share weigh more in it".to_string(),
        false => format!("pulled by {}", pulled.join(", ")),
    };
    let pos = skill
        .examples_pos
        .get(n)
        .copied()
        .unwrap_or(skill.description_pos);
    Some(
        Diagnostic::new(
            codes::EXAMPLE_ROUTES_ELSEWHERE,
            &skill.file,
            pos,
            format!(
                "trigger example {example:?} of `{}` routes first to `{}` in {catalog} \
                 ({own_score}): {pulled}",
                skill.name, other.name
            ),
        )
        .with_help(format!(
            "say in `{}`'s description or examples the words visitors use for it, or reword \
             this example; `skillc eval` shows every message's route",
            skill.name
        )),
    )
}
