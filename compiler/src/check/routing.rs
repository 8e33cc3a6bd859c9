//! W119: a skill's own trigger example that routes first to another skill of its catalog.
//! Each example is routed as `skillc eval` scores it, leave-one-out (as if its skill did not
//! hold it), with the runtimes' tokenizer and scores, over the texts the index holds (name,
//! description, every trigger example, `when_to_use`) in the default locale, and by meaning
//! when the workspace routes with the built-in model (the default): words and meaning fused and
//! cut as a runtime's route is ([`super::route_meaning`]). The catalogs are
//! those of the overlap pass (W118): the global one, and each client's with its own skills; a
//! client's catalog is checked for its own skills' examples.

use std::collections::HashSet;
use std::sync::Arc;

use rayon::prelude::*;
use skillc_runtime::route::{
    card_terms, gloss, holds_every_word, look_up, rank_parts, word_char, DenseIndex, Part, Ranking,
    RouteIndex, RoutingRules, RoutingSettings,
};

use serde::Serialize;

use super::catalogs::{catalogs, listed, Catalog};
use super::overlap::{dismissed, remembered};
use super::route_meaning::{self, by_meaning, CatalogMeaning, Made};
use super::{Memory, Recall};
use crate::diagnostic::{codes, Diagnostic};
use crate::model::{Skill, Workspace};

/// A routing setting of a catalog: a client's own `routing:`, else the workspace's.
fn setting(ws: &Workspace, client: Option<&str>, key: &str) -> Option<f64> {
    let of = |v: Option<&serde_json::Value>| v?.get(key)?.as_f64();
    client
        .and_then(|c| ws.clients.get(c))
        .and_then(|c| of(c.routing.as_ref()))
        .or_else(|| of(ws.config.routing.as_ref()))
}

/// How a catalog routes its skills' trigger examples, as a runtime's route does: the parts of
/// its words' index, its vectors when it routes by meaning, and its bar before a message
/// raises it (by words and meaning, `hybrid_min_score` or the bar of its size; by words
/// alone, `min_score`).
pub(super) struct Router<'a> {
    parts: [Part<'a>; 2],
    meaning: Option<CatalogMeaning<'a>>,
    floor: f64,
}

impl Router<'_> {
    /// Examples (skill, which one) ranked leave-one-out, each with the bar its first candidate
    /// must reach.
    fn rank_many(&self, ws: &Workspace, examples: &[(usize, usize)]) -> Vec<(Ranking, f64)> {
        let rules = RoutingRules::built_in();
        let texts: Vec<&str> = (examples.iter())
            .map(|&(i, n)| ws.skills[i].frontmatter.trigger_examples[n].as_str())
            .collect();
        // With the built-in meaning a route reads words of other languages in English, as the
        // catalog would without the example (the runtimes' glossary, `eval`'s leave-one-out).
        let glossary = self
            .meaning
            .is_some()
            .then(crate::meaning::built_in_glossary);
        let read: Vec<Option<String>> = (examples.iter().zip(&texts))
            .map(|(&(i, _), example)| {
                let glossary = glossary.as_deref()?;
                let held = holds_every_word(&self.parts, Some((i, example)), rules);
                gloss(example, |w| look_up(glossary.as_bytes(), w), held)
            })
            .collect();
        let lexical: Vec<Ranking> = (examples.iter().zip(&texts).zip(&read))
            .map(|((&(i, _), example), read)| {
                let message = read.as_deref().unwrap_or(example);
                rank_parts(&self.parts, message, Some((i, example)), rules)
            })
            .collect();
        match &self.meaning {
            Some(m) => m.rank_many(self.floor, lexical, examples, &texts, &read),
            None => lexical.into_iter().map(|r| (r, self.floor)).collect(),
        }
    }

    /// `f` of each of `skills` with its trigger examples ranked (in order), the skills taken
    /// in groups whose examples are ranked together, spread over every core: a group reads
    /// each of the global index's vectors once, and only a group's rankings are held at once.
    fn each_ranked<T: Send>(
        &self,
        ws: &Workspace,
        skills: &[usize],
        f: impl Fn(usize, &[(Ranking, f64)]) -> T + Sync,
    ) -> Vec<T> {
        (skills.par_chunks(SKILLS_AT_ONCE))
            .flat_map_iter(|group| {
                let examples: Vec<(usize, usize)> = (group.iter())
                    .flat_map(|&i| {
                        (0..ws.skills[i].frontmatter.trigger_examples.len()).map(move |n| (i, n))
                    })
                    .collect();
                let ranked = self.rank_many(ws, &examples);
                let mut at = 0;
                (group.iter())
                    .map(|&i| {
                        let count = ws.skills[i].frontmatter.trigger_examples.len();
                        at += count;
                        f(i, &ranked[at - count..at])
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The name of its bar, in words.
    fn bar_name(&self) -> &'static str {
        match self.meaning {
            Some(_) => "the catalog's bar",
            None => "min_score",
        }
    }
}

/// The words the index holds of a skill's catalog texts, as the build stores them in
/// `card_route.terms`, without its body's: an edit of a body (the most common edit, in `watch`
/// and the studio) then leaves this pass's inputs as they were, and a session's artifact stays
/// the clean build's without routing every example again (2 s on the reference workload).
fn terms(s: &Skill) -> String {
    let fm = &s.frontmatter;
    card_terms(
        &s.name,
        fm.description.as_deref().unwrap_or(""),
        &fm.trigger_examples,
        &fm.when_to_use,
        "",
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
    let found = each_catalog(ws, only, memory, |catalog, router| {
        let skills: Vec<usize> = catalog.own.iter().copied().filter(wanted).collect();
        let found = router.each_ranked(ws, &skills, |i, ranked| {
            routed_elsewhere(ws, router, catalog.client, i, ranked)
        });
        found.into_iter().flatten().collect::<Vec<_>>()
    });
    found.into_iter().flatten().collect()
}

/// Skills whose trigger examples are ranked together (a few dozen examples).
const SKILLS_AT_ONCE: usize = 12;

/// `f` of each catalog with an own skill of `only` (every catalog without it), with how it
/// routes. The global catalog's index is built once; a client's catalog is ranked as that
/// index less the global skills it does not show plus an index of its own skills and the ones
/// it turns on (`route::rank_parts`, exactly as an index of its own would rank), and its
/// vectors likewise. Only the global skills' words and vectors are held for the whole pass; a
/// client's are made where its catalog is ranked.
fn each_catalog<T: Send>(
    ws: &Workspace,
    only: Option<&HashSet<usize>>,
    memory: Option<&Memory>,
    f: impl Fn(&Catalog<'_>, &Router<'_>) -> T + Sync,
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
    let hybrid = by_meaning(ws);
    let made = pass_vectors(ws, hybrid, &global, &catalogs, memory);
    // The base's documents are the global skills it was built from; those since edited
    // (`stale`) are left out of it and ranked with a catalog's added skills instead.
    let base = global_index(ws, &global, memory, hybrid.then_some(&made));
    let stale: Vec<bool> = (base.from.iter())
        .map(|(i, skill)| !Arc::ptr_eq(skill, &ws.skills[*i]))
        .collect();
    let in_base: HashSet<usize> = (base.from.iter().zip(&stale))
        .filter(|(_, stale)| !**stale)
        .map(|((i, _), _)| *i)
        .collect();
    let talk = hybrid.then(route_meaning::small_talk);
    catalogs
        .par_iter()
        .map(|catalog| {
            let mut shown = vec![false; ws.skills.len()];
            for &i in catalog.own.iter().chain(catalog.kept.iter()) {
                shown[i] = true;
            }
            let removed: Vec<bool> = (base.from.iter().zip(&stale))
                .map(|((i, _), stale)| *stale || !shown[*i])
                .collect();
            let more: Vec<(usize, String)> = (catalog.own.iter().chain(catalog.kept.iter()))
                .filter(|i| !in_base.contains(i))
                .map(|&i| (i, terms(&ws.skills[i])))
                .collect();
            let added = RouteIndex::new(more.iter().map(|(i, t)| (*i, t.as_str())));
            let skills = removed.iter().filter(|r| !**r).count() + more.len();
            let meaning = (base.meaning.as_deref()).map(|dense| {
                let mut hidden = vec![true; ws.skills.len()];
                for ((i, _), removed) in base.from.iter().zip(&removed) {
                    hidden[*i] = *removed;
                }
                let added: Vec<usize> = more.iter().map(|(i, _)| *i).collect();
                catalog_meaning(
                    ws,
                    (dense, hidden),
                    &added,
                    &made,
                    talk.as_ref(),
                    catalog.client,
                )
            });
            let floor = match meaning {
                Some(_) => setting(ws, catalog.client, "hybrid_min_score")
                    .unwrap_or_else(|| RoutingRules::built_in().hybrid_floor(skills)),
                None => setting(ws, catalog.client, "min_score")
                    .unwrap_or(RoutingSettings::default().min_score),
            };
            let parts = [Part::less(&base.words, &removed), Part::whole(&added)];
            f(
                catalog,
                &Router {
                    parts,
                    meaning,
                    floor,
                },
            )
        })
        .collect()
}

/// The vectors of the skills a pass ranks by meaning (none by words): in a session, every
/// catalog's, kept for the next check; in a one-shot check, the global skills' for the whole
/// pass, a client's own being made where its catalog is ranked (at 50,000 clients, all of them
/// at once would be gigabytes).
fn pass_vectors(
    ws: &Workspace,
    hybrid: bool,
    global: &[usize],
    catalogs: &[Catalog<'_>],
    memory: Option<&Memory>,
) -> Made {
    match (hybrid, memory) {
        (false, _) => Made::new(),
        (true, None) => route_meaning::vectors(ws, global, None),
        (true, Some(_)) => {
            let shown = catalogs
                .iter()
                .flat_map(|c| c.own.iter().chain(c.kept.iter()));
            let mut needed: Vec<usize> = global.iter().chain(shown).copied().collect();
            needed.sort_unstable();
            needed.dedup();
            remembered_vectors(ws, &needed, memory)
        }
    }
}

/// A catalog's vectors: the global index (`base`, with the skills the catalog hides), and the
/// skills it adds, whose vectors are made here when the pass's `made` lacks them. `talk`
/// raises its bar unless its settings write one.
fn catalog_meaning<'a>(
    ws: &Workspace,
    (base, hidden): (&'a DenseIndex, Vec<bool>),
    added: &[usize],
    made: &'a Made,
    talk: Option<&'a route_meaning::SmallTalk>,
    client: Option<&str>,
) -> CatalogMeaning<'a> {
    let missing: Vec<usize> = (added.iter().copied())
        .filter(|i| !made.contains_key(i))
        .collect();
    let own = route_meaning::vectors(ws, &missing, None);
    CatalogMeaning {
        base,
        hidden,
        added: route_meaning::index(added.iter().copied(), made, &own),
        made,
        own,
        small_talk: talk.filter(|_| setting(ws, client, "hybrid_min_score").is_none()),
    }
}

/// The vectors of `skills`, kept in the session's `memory` for the next check: a rebuild
/// makes only the edited skills'.
fn remembered_vectors(ws: &Workspace, skills: &[usize], memory: Option<&Memory>) -> Made {
    let Some(memory) = memory else {
        return route_meaning::vectors(ws, skills, None);
    };
    let mut last = memory.vectors.lock().ok().and_then(|mut l| l.take());
    let made = route_meaning::vectors(ws, skills, last.as_ref());
    // The skills this check did not need stay remembered (a draft's check needs few).
    let mut kept = last.take().unwrap_or_default();
    kept.extend(made.iter().map(|(i, v)| (*i, v.clone())));
    if let Ok(mut l) = memory.vectors.lock() {
        *l = Some(kept);
    }
    made
}

/// The global catalog's indexes (words, and meaning when it routes by it) and the skills they
/// were built from.
#[derive(Clone)]
pub(super) struct Base {
    words: Arc<RouteIndex>,
    meaning: Option<Arc<DenseIndex>>,
    from: BuiltFrom,
}

/// The indexes of the global catalog and the skills they were built from: in a session, the
/// last ones its memory holds while they were built from the same skills in the same places
/// with at most [`MAX_STALE`] of them edited since (each keystroke in a description would
/// build them again: 8 ms on a thousand skills, twice a keystroke). `made` holds the vectors
/// when the catalog routes by meaning.
fn global_index(
    ws: &Workspace,
    global: &[usize],
    memory: Option<&Memory>,
    made: Option<&Made>,
) -> Base {
    if let Some(memory) = memory {
        if let Ok(memo) = memory.route_base.lock() {
            if let Some(base) = memo.as_ref() {
                let from = &base.from;
                let same_places =
                    from.len() == global.len() && from.iter().zip(global).all(|((i, _), g)| i == g);
                // Its places are then `global`'s, all in the workspace.
                let edited = || {
                    (from.iter())
                        .filter(|(i, skill)| !Arc::ptr_eq(skill, &ws.skills[*i]))
                        .count()
                };
                let same_method = base.meaning.is_some() == made.is_some();
                if same_places && same_method && edited() <= MAX_STALE {
                    return base.clone();
                }
            }
        }
    }
    let terms: Vec<String> = global.par_iter().map(|&i| terms(&ws.skills[i])).collect();
    let words = Arc::new(RouteIndex::new(
        (global.iter().copied()).zip(terms.iter().map(String::as_str)),
    ));
    let none = Made::new();
    // Every catalog's examples are ranked against it: its texts laid out for many at once.
    let meaning =
        made.map(|m| Arc::new(route_meaning::index(global.iter().copied(), m, &none).for_many()));
    let from: BuiltFrom = Arc::new(global.iter().map(|&i| (i, ws.skills[i].clone())).collect());
    let base = Base {
        words,
        meaning,
        from,
    };
    if let Some(memory) = memory {
        if let Ok(mut memo) = memory.route_base.lock() {
            *memo = Some(base.clone());
        }
    }
    base
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
    let mut found = each_catalog(ws, Some(&only), Some(memory), |_, router| {
        let ranked = router.each_ranked(ws, &[i], |_, ranked| ranked.to_vec());
        let ranked = ranked.into_iter().next().unwrap_or_default();
        (ranked.iter().enumerate())
            .map(|(n, ranked)| {
                let line = skill.examples_pos.get(n).map_or(0, |p| p.line);
                let example = examples[n].clone();
                match example_elsewhere(ws, router, i, n, ranked) {
                    Some(away) => ExampleRoute {
                        example,
                        line,
                        first: Some(away.other.1.to_string()),
                        own: false,
                        pulled: away.pulled,
                        standing: Some(away.own),
                    },
                    None => {
                        let (ranking, bar) = ranked;
                        let first = ranking.first(|s| s.score >= *bar, |k| &ws.skills[k].name);
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
    router: &Router<'_>,
    i: usize,
    n: usize,
    (ranking, bar): &(Ranking, f64),
) -> Option<Elsewhere<'w>> {
    let skill = &ws.skills[i];
    let bar = *bar;
    let first = ranking.first(|s| s.score >= bar, |k| &ws.skills[k].name)?;
    if first.skill == i {
        return None;
    }
    let own = ranking.scored.iter().find(|s| s.skill == i);
    let own_words = own.map(|s| ranking.matched(s)).unwrap_or_default();
    // In words, not scores: the scores move with any edit of the catalog, and a review lists
    // a warning whose text changed as a new one.
    let standing = match own {
        Some(s) if s.score >= bar => format!("`{}` comes after it", skill.name),
        Some(_) => format!("`{}` scores under {}", skill.name, router.bar_name()),
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

/// The word of `example` as written whose one routing word is `word` ("invoices" for
/// `invoic`): the index's stems read as typos in a warning. None when no word of it alone
/// makes `word` (a word a route read, or a pair of an unspaced script's characters).
fn as_written<'e>(example: &'e str, word: &str, rules: &RoutingRules) -> Option<&'e str> {
    (example.split(|c: char| !word_char(c)))
        .find(|w| matches!(&rules.tokens(w)[..], [one] if one == word))
}

/// The W119 of skill `i`, when some of its trigger examples route first to another skill.
fn routed_elsewhere(
    ws: &Workspace,
    router: &Router<'_>,
    client: Option<&str>,
    i: usize,
    ranked: &[(Ranking, f64)],
) -> Option<Diagnostic> {
    let skill = &ws.skills[i];
    let examples = &skill.frontmatter.trigger_examples;
    // A pair declared `distinct_from` is meant to look alike: W118 and W119 leave it alone.
    let away: Vec<Elsewhere<'_>> = (0..examples.len())
        .filter_map(|n| example_elsewhere(ws, router, i, n, ranked.get(n)?))
        .filter(|away| !dismissed(skill, &ws.skills[away.other.0]))
        .collect();
    let first = away.first()?;
    let catalog = match client {
        None => "the global catalog".to_string(),
        Some(c) => format!("client {c}'s catalog"),
    };
    let pulled = match (first.pulled.is_empty(), router.meaning.is_some()) {
        (true, true) => "the words they share, or its meaning, weigh more in it".to_string(),
        (true, false) => "the words they share weigh more in it".to_string(),
        (false, _) => {
            // A word the example does not hold as written is how a route read one it does:
            // misspelt, or of another language, and not in the catalog without the example.
            let rules = RoutingRules::built_in();
            let written = rules.tokens(&examples[first.n]);
            let read: Vec<&str> = (first.pulled.iter())
                .filter(|w| !written.contains(w))
                .map(String::as_str)
                .collect();
            let how = match read.len() {
                0 => String::new(),
                1 => format!(
                    " (`{}` is how a route reads a word of it that the catalog lacks: misspelt, \
                     or of another language)",
                    read[0]
                ),
                _ => format!(
                    " (`{}` are how a route reads words of it that the catalog lacks: \
                     misspelt, or of another language)",
                    read.join("`, `")
                ),
            };
            let shown: Vec<&str> = (first.pulled.iter())
                .map(|w| as_written(&examples[first.n], w, rules).unwrap_or(w))
                .collect();
            format!("pulled by {}{how}", shown.join(", "))
        }
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
