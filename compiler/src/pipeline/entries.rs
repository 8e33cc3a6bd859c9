//! Phase: the distinct resolved entries rendered (record, prompt fragment), their tokens
//! counted, and the catalog cards they share.

use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::artifact::Blob;
use super::artifact::{CardRoute, Rendered};
use super::Meter;
use crate::render::{self, Card, Entry, PromptParts, RenderError, Renderer};
use crate::resolve::pool::Pool;
use crate::resolve::{EntryKey, Prepared};

/// What a rebuild may take from the previous build's entries (`incremental::Reuse`).
pub(super) trait KeptEntries {
    /// The previous rendering of `key`, if the skills it is built from are unchanged.
    fn entry(&self, ws: &crate::model::Workspace, key: &EntryKey) -> Option<&Arc<Rendered>>;
}

/// The rendered entries (in key order) and the distinct cards they show.
#[derive(Debug, Clone)]
pub(super) struct Entries {
    /// Entries, in the order of the keys they were rendered from; shared with the session's
    /// memo, which a rebuild takes them from without copying.
    pub list: Vec<Arc<Rendered>>,
    /// Index of each entry's card (numbered per build: the order depends on every entry).
    pub card_of: Vec<usize>,
    /// Distinct cards, in the order entries first show them.
    pub cards: Vec<Arc<Card>>,
    /// Each card's row of `card_route`, in the same order.
    pub card_route: Vec<CardRoute>,
}

/// What the entry phase reads.
pub(super) struct EntryInput<'a> {
    /// The prepared workspace.
    pub prepared: &'a Prepared<'a>,
    /// The sources pool.
    pub pool: &'a Pool,
    /// Templates.
    pub renderer: &'a Renderer,
    /// What the previous build rendered that is still valid.
    pub reuse: Option<&'a dyn KeptEntries>,
}

/// Renders every entry (or takes it from the previous build), counts its tokens and assigns
/// its card.
pub(super) fn render_all(
    input: &EntryInput<'_>,
    keys: &[Arc<EntryKey>],
    meter: &Meter<'_>,
) -> Result<Entries, RenderError> {
    let ws = input.prepared.ws;
    let (kept, todo): (Vec<_>, Vec<_>) = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (i, input.reuse.and_then(|r| r.entry(ws, k))))
        .partition(|(_, kept)| kept.is_some());
    let shared = Shared::default();
    let metas = render::DisplayMetas::default();
    let rendered: Vec<Arc<Rendered>> = todo
        .par_iter()
        .map(|&(i, _)| {
            let e = render::build_entry(input.prepared, input.pool, &keys[i], &metas);
            let prompt = input.renderer.prompt_fragment(&e)?;
            meter.tick();
            Ok(finish(e, prompt, &shared, input.renderer))
        })
        .collect::<Result<_, RenderError>>()?;
    let list = if kept.is_empty() {
        rendered
    } else {
        let mut slots: Vec<Option<Arc<Rendered>>> = vec![None; keys.len()];
        for (i, r) in kept {
            slots[i] = r.cloned();
            meter.tick();
        }
        for ((i, _), r) in todo.into_iter().zip(rendered) {
            slots[i] = Some(r);
        }
        slots.into_iter().flatten().collect()
    };
    let (card_of, cards, card_route) = assign_cards(&list);
    Ok(Entries {
        list,
        card_of,
        cards,
        card_route,
    })
}

/// What the workers rendering entries share: one copy of each distinct body (encoded) and of
/// each distinct card, with its routing index.
#[derive(Default)]
struct Shared {
    blobs: Mutex<FxHashMap<String, Arc<Blob>>>,
    cards: Mutex<FxHashMap<Arc<Card>, CardRoute>>,
}

/// The copy of `card` in `cards` with its row of `card_route` (`terms`: its catalog texts'
/// words and `body_words`; the body's words as written for the meaning, `body_text_words`),
/// made once a card: the one already there, or `card`, added.
fn intern_card(
    cards: &Mutex<FxHashMap<Arc<Card>, CardRoute>>,
    card: Card,
    body_words: &str,
    body_text_words: &Arc<str>,
) -> (Arc<Card>, CardRoute) {
    let known = |cards: &FxHashMap<Arc<Card>, CardRoute>, card: &Card| {
        (cards.get_key_value(card)).map(|(c, t)| (c.clone(), t.clone()))
    };
    if let Some(found) = cards.lock().ok().and_then(|m| known(&m, &card)) {
        return found;
    }
    // Made outside the lock: two workers may make the same card's at once, alike.
    let route = CardRoute {
        terms: skillc_runtime::route::card_terms(
            &card.name,
            &card.description,
            &card.triggers,
            &card.when_to_use,
            body_words,
        )
        .into(),
        body_words: body_text_words.clone(),
        meaning: None,
    };
    let Ok(mut m) = cards.lock() else {
        return (Arc::new(card), route);
    };
    if let Some(found) = known(&m, &card) {
        return found;
    }
    let card = Arc::new(card);
    m.insert(card.clone(), route.clone());
    (card, route)
}

/// Counts an entry's tokens, encodes its body once per distinct body and makes its row. Done
/// as each entry is rendered rather than once all are: holding every rendered body in full
/// until then cost 33 MB of peak at 5,000 clients, and every entry in full a fifth of it.
fn finish(
    mut entry: Entry,
    prompt: PromptParts,
    shared: &Shared,
    renderer: &Renderer,
) -> Arc<Rendered> {
    let body = std::mem::take(&mut entry.body);
    entry.body_tokens = renderer.tokens(&body);
    let around = renderer.tokens(&prompt.prefix) + renderer.tokens(&prompt.suffix);
    let prompt_tokens = around
        + if prompt.has_body {
            entry.body_tokens
        } else {
            0
        };
    let body_hash = crate::digest::hash(body.as_bytes());
    let known = shared
        .blobs
        .lock()
        .ok()
        .and_then(|m| m.get(&body_hash).cloned());
    let body = known.unwrap_or_else(|| {
        // Two workers may encode the same body at once: the output is the same, one is kept.
        let blob = Arc::new(Blob::encode(body.into_bytes()));
        match shared.blobs.lock() {
            Ok(mut m) => m.entry(body_hash.clone()).or_insert(blob).clone(),
            Err(_) => blob,
        }
    });
    let (card, route) = intern_card(
        &shared.cards,
        entry.card(),
        &entry.body_words,
        &entry.body_text_words,
    );
    let row = super::rows::entry_row(&entry, prompt, body_hash, prompt_tokens);
    Arc::new(Rendered {
        row,
        card,
        body,
        route,
    })
}

/// Cards are what catalogs show, shared by entries that differ only in their body; numbered
/// in the order entries first show them, for the same locality as the entries'. (By content:
/// entries a session's previous build rendered carry their own copies.) Each with its routing
/// index, which every entry of a card has alike (its body words are its catalog identity's).
fn assign_cards(list: &[Arc<Rendered>]) -> (Vec<usize>, Vec<Arc<Card>>, Vec<CardRoute>) {
    // Most entries share their card's copy: known by its address first, compared by content
    // once per copy.
    let mut by_address: FxHashMap<*const Card, usize> = FxHashMap::default();
    let mut index: FxHashMap<&Card, usize> = FxHashMap::default();
    let (mut cards, mut routes) = (Vec::new(), Vec::new());
    let card_of = list
        .iter()
        .map(|r| {
            *by_address.entry(Arc::as_ptr(&r.card)).or_insert_with(|| {
                *index.entry(&*r.card).or_insert_with(|| {
                    cards.push(r.card.clone());
                    routes.push(r.route.clone());
                    cards.len() - 1
                })
            })
        })
        .collect();
    (card_of, cards, routes)
}
