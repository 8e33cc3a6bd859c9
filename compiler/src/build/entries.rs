//! Phase: the distinct resolved entries rendered (record, prompt fragment), their tokens
//! counted, and the catalog cards they share.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::artifact::Blob;
use super::incremental::Reuse;
use super::Meter;
use crate::render::{self, tokens, Card, Entry, PromptParts, RenderError, Renderer};
use crate::resolve::pool::Pool;
use crate::resolve::{EntryKey, Prepared};

/// One rendered entry.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The entry, `body_tokens` counted, its `body` moved into [`Rendered::body`] (boxed: the
    /// list of a large workspace holds tens of thousands, and moves them more than it reads
    /// them).
    pub entry: Box<Entry>,
    /// The body as its blob stores it (compressed), one copy shared by the entries with the
    /// same body (half of them at 5,000 clients: locales and tiers without their own text):
    /// nothing reads a body in full after its tokens are counted, and holding every body of a
    /// large workspace in full was the largest part of a build's peak.
    pub body: Arc<Blob>,
    /// Its part of an answer prompt.
    pub prompt: PromptParts,
    /// Tokens of the whole prompt part.
    pub prompt_tokens: u32,
    /// Content hash of the body (its blob).
    pub body_hash: String,
}

/// The rendered entries (in key order) and the distinct cards they show.
#[derive(Debug, Clone)]
pub struct Entries {
    /// Entries, in the order of the keys they were rendered from; shared with the session's
    /// memo, which a rebuild takes them from without copying.
    pub list: Vec<Arc<Rendered>>,
    /// Index of each entry's card (numbered per build: the order depends on every entry).
    pub card_of: Vec<usize>,
    /// Distinct cards, in the order entries first show them.
    pub cards: Vec<Card>,
}

/// What the entry phase reads.
pub struct EntryInput<'a> {
    /// The prepared workspace.
    pub prepared: &'a Prepared<'a>,
    /// The sources pool.
    pub pool: &'a Pool,
    /// Templates.
    pub renderer: &'a Renderer,
    /// What the previous build rendered that is still valid.
    pub reuse: Option<&'a Reuse<'a>>,
}

/// Renders every entry (or takes it from the previous build), counts its tokens and assigns
/// its card.
pub fn render_all(
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
    let rendered: Vec<(Box<Entry>, PromptParts)> = todo
        .par_iter()
        .map(|&(i, _)| {
            let e = render::build_entry(input.prepared, input.pool, &keys[i]);
            let prompt = input.renderer.prompt_fragment(&e)?;
            meter.tick();
            Ok((Box::new(e), prompt))
        })
        .collect::<Result<_, RenderError>>()?;
    let list = if kept.is_empty() {
        count_tokens(rendered)
    } else {
        let mut slots: Vec<Option<Arc<Rendered>>> = vec![None; keys.len()];
        for (i, r) in kept {
            slots[i] = r.cloned();
            meter.tick();
        }
        for ((i, _), r) in todo.into_iter().zip(count_tokens(rendered)) {
            slots[i] = Some(r);
        }
        slots.into_iter().flatten().collect()
    };
    let (card_of, cards) = assign_cards(&list);
    Ok(Entries {
        list,
        card_of,
        cards,
    })
}

/// Counts each distinct text once: bodies repeat across locales and tiers without their own.
fn count_tokens(mut rendered: Vec<(Box<Entry>, PromptParts)>) -> Vec<Arc<Rendered>> {
    // Hashed, not sorted: bodies are long and alike, and comparing them costs more than
    // counting them.
    let texts: FxHashSet<&str> = rendered
        .iter()
        .flat_map(|(e, p)| [e.body.as_str(), p.prefix.as_str(), p.suffix.as_str()])
        .collect();
    let texts: Vec<&str> = texts.into_iter().collect();
    let counted: FxHashMap<&str, u32> = texts
        .into_par_iter()
        .map(|t| (t, tokens::count(t)))
        .collect();
    let counts: Vec<(u32, u32)> = rendered
        .iter()
        .map(|(e, p)| {
            let body = counted[e.body.as_str()];
            let around = counted[p.prefix.as_str()] + counted[p.suffix.as_str()];
            (body, around + if p.has_body { body } else { 0 })
        })
        .collect();
    drop(counted);
    let hashes: Vec<String> = rendered
        .par_iter()
        .map(|(e, _)| super::hash(e.body.as_bytes()))
        .collect();
    let blobs = encode_bodies(&mut rendered, &hashes);
    rendered
        .into_iter()
        .zip(counts)
        .zip(hashes)
        .map(
            |(((mut entry, prompt), (tokens, prompt_tokens)), body_hash)| {
                entry.body_tokens = tokens;
                Arc::new(Rendered {
                    body: blobs[&body_hash].clone(),
                    body_hash,
                    entry,
                    prompt,
                    prompt_tokens,
                })
            },
        )
        .collect()
}

/// Moves each distinct body out of its entries (they all leave theirs empty) and encodes it,
/// on every core.
fn encode_bodies(
    rendered: &mut [(Box<Entry>, PromptParts)],
    hashes: &[String],
) -> FxHashMap<String, Arc<Blob>> {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut distinct: Vec<(&str, String)> = Vec::new();
    for ((e, _), hash) in rendered.iter_mut().zip(hashes) {
        let body = std::mem::take(&mut e.body);
        if seen.insert(hash) {
            distinct.push((hash, body));
        }
    }
    distinct
        .into_par_iter()
        .map(|(hash, body)| (hash.to_string(), Arc::new(Blob::encode(body.into_bytes()))))
        .collect()
}

/// Cards are what catalogs show, shared by entries that differ only in their body; numbered
/// in the order entries first show them, for the same locality as the entries'.
fn assign_cards(list: &[Arc<Rendered>]) -> (Vec<usize>, Vec<Card>) {
    let mut index: FxHashMap<Card, usize> = FxHashMap::default();
    let mut cards = Vec::new();
    let card_of = list
        .iter()
        .map(|r| {
            *index.entry(r.entry.card()).or_insert_with_key(|c| {
                cards.push(c.clone());
                cards.len() - 1
            })
        })
        .collect();
    (card_of, cards)
}
