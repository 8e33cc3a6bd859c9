//! Phase: catalog texts per card, and tier budgets. A catalog over its tier's token budget is
//! cut down a fixed ladder (trigger examples first, then descriptions shorter and shorter)
//! until it fits, deterministically, with a warning that says what was cut (W114).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use skillc_runtime::schema::{CardFragment, CategoryRow, Counted};

use super::bundles::{Plan, Resolved};
use super::entries::Entries;
use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::model::Tier;
use crate::render::{Card, RenderError, Renderer};
use crate::resolve::{EntryKey, Slot};

/// Budget levels tried in turn when a catalog is over its budget.
const LADDER: [&str; 6] = [
    "no-triggers",
    "chars:200",
    "chars:120",
    "chars:80",
    "chars:50",
    "chars:30",
];

/// Catalog fragments by card (of every level a build kept), for the next build. Looked up by
/// the card's content: a rebuild numbers and shares its cards anew.
pub(super) type CardTextMemo = FxHashMap<Arc<Card>, Fragments>;

/// A card's catalog fragments, shared between a build's rows and a session's memo: a rebuild
/// takes an unchanged card's list as it is.
pub(super) type Fragments = Arc<Vec<CardFragment>>;

/// The catalog fragments of every card, rendered per level on demand.
pub(super) struct CardTexts<'a> {
    renderer: &'a Renderer,
    cards: &'a [Arc<Card>],
    /// Fragments the previous build rendered with the same templates.
    previous: Option<&'a CardTextMemo>,
    /// Fragments per card (every format of each level rendered so far).
    pub fragments: Vec<Fragments>,
}

impl<'a> CardTexts<'a> {
    /// Renders the full (uncut) fragments of every card.
    pub(super) fn full(
        renderer: &'a Renderer,
        cards: &'a [Arc<Card>],
        previous: Option<&'a CardTextMemo>,
    ) -> Result<Self, RenderError> {
        let mut texts = CardTexts {
            renderer,
            cards,
            previous,
            fragments: vec![Fragments::default(); cards.len()],
        };
        let all: Vec<usize> = (0..cards.len()).collect();
        texts.ensure(&all, "")?;
        Ok(texts)
    }

    /// Renders `level` for the cards that do not have it yet.
    fn ensure(&mut self, cards: &[usize], level: &str) -> Result<(), RenderError> {
        let missing: Vec<usize> = cards
            .iter()
            .copied()
            .filter(|&c| self.markdown_tokens(c, level).is_none())
            .collect();
        let (drop_triggers, chars) = parse_level(level);
        // What the previous build rendered of this level for the same card is taken from it.
        let (previous, cards) = (self.previous, self.cards);
        let before = |c: usize| -> Option<&Fragments> {
            let frags = previous?.get(&*cards[c])?;
            frags.iter().any(|f| f.level == level).then_some(frags)
        };
        let mut unrendered = Vec::new();
        for c in missing {
            let Some(frags) = before(c) else {
                unrendered.push(c);
                continue;
            };
            let mine = &mut self.fragments[c];
            if mine.is_empty() && frags.iter().all(|f| f.level == level) {
                // The same list as before: taken, not copied.
                *mine = frags.clone();
            } else {
                let at_level = frags.iter().filter(|f| f.level == level).cloned();
                Arc::make_mut(mine).extend(at_level);
            }
        }
        // Rendered and counted on every core: counting tokens is most of a large build.
        let rendered = unrendered
            .par_iter()
            .map(|&c| {
                let frags =
                    self.renderer
                        .catalog_fragments(&self.cards[c], drop_triggers, chars)?;
                let counted: Vec<CardFragment> = frags
                    .into_iter()
                    .map(|(format, text)| CardFragment {
                        level: level.to_string(),
                        format,
                        text: Counted {
                            tokens: self.renderer.tokens(&text),
                            text,
                        },
                    })
                    .collect();
                Ok((c, counted))
            })
            .collect::<Result<Vec<_>, RenderError>>()?;
        for (c, frags) in rendered {
            Arc::make_mut(&mut self.fragments[c]).extend(frags);
        }
        Ok(())
    }

    /// The fragments, and in a session the same by card for the next build.
    pub(super) fn into_memo(self, mode: crate::model::Mode) -> (Vec<Fragments>, CardTextMemo) {
        let memo = match mode.keeps() {
            true => self
                .cards
                .iter()
                .cloned()
                .zip(self.fragments.clone())
                .collect(),
            false => CardTextMemo::default(),
        };
        (self.fragments, memo)
    }

    fn markdown_tokens(&self, card: usize, level: &str) -> Option<u64> {
        self.fragments[card]
            .iter()
            .find(|f| f.level == level && f.format == "markdown")
            .map(|f| f.text.tokens as u64)
    }

    /// Tokens of a markdown catalog of `cards` at `level`: the category headers and one row
    /// per card (each also gets the `| SKn ` cell the runtime adds).
    fn catalog_tokens(
        &mut self,
        cards: &[usize],
        headers: u64,
        level: &str,
    ) -> Result<u64, RenderError> {
        self.ensure(cards, level)?;
        let rows: u64 = cards
            .iter()
            .map(|&c| self.markdown_tokens(c, level).unwrap_or(0) + 4)
            .sum();
        Ok(headers + rows)
    }
}

/// `no-triggers` → (drop triggers, no cut); `chars:N` → (drop triggers, cut to N).
pub(super) fn parse_level(level: &str) -> (bool, Option<usize>) {
    match level.strip_prefix("chars:") {
        Some(n) => (true, n.parse().ok()),
        None => (level == "no-triggers", None),
    }
}

/// The catalog level each bundle uses (`''` when it fits) and what was cut.
#[derive(Debug, Clone, Default)]
pub(crate) struct Budgets {
    /// Level per bundle, in the plan's order.
    pub levels: Vec<String>,
    /// One W114 per bundle that was cut, by bundle.
    pub warnings: BTreeMap<usize, Diagnostic>,
}

/// The budgets of the previous build of a session and the slots they were fitted to.
pub(super) struct Previous<'a> {
    /// Its bundles' slots.
    pub resolved: &'a Resolved,
    /// Its budgets.
    pub budgets: &'a Budgets,
}

impl Previous<'_> {
    /// Bundle `b` holds what it held in the previous build (its slots and its base's are the
    /// ones kept from it, and so are the entries they name: see `incremental`), so its
    /// catalog has the same tokens and gets the same level.
    fn same_bundle(&self, now: &Resolved, plan: &Plan, b: usize) -> bool {
        let kept = |i: usize| match (now.slots.get(i), self.resolved.slots.get(i)) {
            (Some(x), Some(y)) => Arc::ptr_eq(x, y),
            _ => false,
        };
        kept(b) && plan.base_of[b].is_none_or(kept)
    }
}

/// What the budget phase reads.
pub(super) struct BudgetInput<'a> {
    /// The workspace's tiers (their budgets).
    pub tiers: &'a [Tier],
    /// The bundles.
    pub plan: &'a Plan,
    /// Their slots.
    pub resolved: &'a Resolved,
    /// Entry index per key.
    pub key_index: &'a FxHashMap<Arc<EntryKey>, usize>,
    /// The rendered entries.
    pub entries: &'a Entries,
    /// Categories with their header fragments.
    pub categories: &'a [CategoryRow],
}

/// Cuts every catalog that is over its tier's budget, then keeps only the fragments of the
/// levels some bundle uses. A bundle that holds what it held in `previous` gets the level it
/// got there without counting its catalog again (15,030 catalogs of ~1,000 cards each in the
/// reference workload: most of a rebuild's budget phase).
pub(super) fn apply(
    input: &BudgetInput<'_>,
    texts: &mut CardTexts<'_>,
    previous: Option<&Previous<'_>>,
) -> Result<Budgets, RenderError> {
    let specs = &input.plan.specs;
    let mut budgets = Budgets {
        levels: vec![String::new(); specs.len()],
        warnings: BTreeMap::new(),
    };
    let mut kept: BTreeSet<(usize, String)> = BTreeSet::new();
    for (b, spec) in specs.iter().enumerate() {
        let Some(budget) = tier_budget(input.tiers, &spec.tier) else {
            continue;
        };
        if let Some(p) = previous.filter(|p| p.same_bundle(input.resolved, input.plan, b)) {
            let level = &p.budgets.levels[b];
            if !level.is_empty() {
                let visible = visible_cards(input, b);
                texts.ensure(&visible, level)?;
                kept.extend(visible.iter().map(|&c| (c, level.clone())));
                budgets.levels[b] = level.clone();
            }
            if let Some(w) = p.budgets.warnings.get(&b) {
                budgets.warnings.insert(b, w.clone());
            }
            continue;
        }
        let visible = visible_cards(input, b);
        let headers = header_tokens(input, &visible);
        let full = texts.catalog_tokens(&visible, headers, "")?;
        if full <= budget {
            continue;
        }
        let (mut chosen, mut after) = (LADDER[LADDER.len() - 1], 0);
        for level in LADDER {
            after = texts.catalog_tokens(&visible, headers, level)?;
            chosen = level;
            if after <= budget {
                break;
            }
        }
        budgets.levels[b] = chosen.to_string();
        kept.extend(visible.iter().map(|&c| (c, chosen.to_string())));
        let warning = over_budget(spec, visible.len(), (full, after, budget), chosen);
        budgets.warnings.insert(b, warning);
    }
    for (c, frags) in texts.fragments.iter_mut().enumerate() {
        let used = |f: &CardFragment| f.level.is_empty() || kept.contains(&(c, f.level.clone()));
        // In the ladder's order, as a clean build renders them (each catalog walks the ladder
        // from its start); a kept bundle's level may have been rendered before the others.
        let rank = |f: &CardFragment| LADDER.iter().position(|l| *l == f.level);
        let in_order = frags.windows(2).all(|w| rank(&w[0]) <= rank(&w[1]));
        // Changed only if needed: most lists are shared with the previous build's memo.
        if !in_order || !frags.iter().all(used) {
            let frags = Arc::make_mut(frags);
            frags.retain(used);
            frags.sort_by_key(rank);
        }
    }
    Ok(budgets)
}

fn tier_budget(tiers: &[Tier], tier: &str) -> Option<u64> {
    tiers
        .iter()
        .find(|t| t.name == tier)
        .and_then(|t| t.catalog_token_budget)
}

/// The cards a bundle's catalog shows.
fn visible_cards(input: &BudgetInput<'_>, b: usize) -> Vec<usize> {
    input
        .resolved
        .view(input.plan, b)
        .into_iter()
        .filter_map(|s| match s {
            Slot::Entry(k) => Some(input.key_index[&**k]),
            Slot::Removed(_) => None,
        })
        .filter(|&i| input.entries.list[i].row.catalog_visible)
        .map(|i| input.entries.card_of[i])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Tokens of the category headers a catalog of `cards` shows.
fn header_tokens(input: &BudgetInput<'_>, cards: &[usize]) -> u64 {
    cards
        .iter()
        .map(|&c| input.entries.cards[c].category.clone().unwrap_or_default())
        .collect::<BTreeSet<_>>()
        .iter()
        .map(|c| {
            input
                .categories
                .iter()
                .find(|r| &r.id == c)
                .map_or(0, |r| r.catalog_header.tokens as u64)
        })
        .sum()
}

/// W114: a catalog was over its budget; `(full, after, budget)` in tokens.
fn over_budget(
    spec: &crate::resolve::BundleSpec,
    skills: usize,
    tokens: (u64, u64, u64),
    level: &str,
) -> Diagnostic {
    let (full, after, budget) = tokens;
    let what = match parse_level(level) {
        (_, None) => format!("dropped the trigger examples of {skills} skills"),
        (_, Some(n)) => format!(
            "dropped the trigger examples of {skills} skills and cut descriptions to {n} characters"
        ),
    };
    let still = if after > budget {
        " (still over: the names alone do not fit)"
    } else {
        ""
    };
    Diagnostic::new(
        codes::OVER_BUDGET,
        "workspace.yaml",
        Pos::start(),
        format!(
            "catalog of {} is {full} tokens, over tier `{}`'s budget of {budget}: {what}, now {after} tokens{still}",
            spec,
            spec.tier
        ),
    )
}
