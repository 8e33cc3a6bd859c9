//! Phase: the distinct resolved entries rendered (record, prompt fragment), their tokens
//! counted, and the catalog cards they share.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

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
    /// nothing reads a body in full after its tokens are counted.
    pub body: Arc<Blob>,
    /// Its part of an answer prompt.
    pub prompt: PromptParts,
    /// Tokens of the whole prompt part.
    pub prompt_tokens: u32,
    /// Content hash of the body (its blob).
    pub body_hash: String,
    /// The record as its row stores it, serialised when the first row of this entry is laid
    /// out: a session's next build takes it with the entry instead of serialising it again.
    pub record: std::sync::OnceLock<String>,
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
    let blobs = std::sync::Mutex::new(FxHashMap::default());
    let rendered: Vec<Arc<Rendered>> = todo
        .par_iter()
        .map(|&(i, _)| {
            let e = render::build_entry(input.prepared, input.pool, &keys[i]);
            let prompt = input.renderer.prompt_fragment(&e)?;
            meter.tick();
            Ok(finish(Box::new(e), prompt, &blobs))
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
    let (card_of, cards) = assign_cards(&list);
    Ok(Entries {
        list,
        card_of,
        cards,
    })
}

/// Counts an entry's tokens and moves its body into its blob, encoded once per distinct body
/// (`blobs`, shared by the workers). Done as each entry is rendered rather than once all are:
/// holding every rendered body in full until then cost 33 MB of peak at 5,000 clients.
fn finish(
    mut entry: Box<Entry>,
    prompt: PromptParts,
    blobs: &std::sync::Mutex<FxHashMap<String, Arc<Blob>>>,
) -> Arc<Rendered> {
    let body = std::mem::take(&mut entry.body);
    entry.body_tokens = tokens::count(&body);
    let around = tokens::count(&prompt.prefix) + tokens::count(&prompt.suffix);
    let prompt_tokens = around
        + if prompt.has_body {
            entry.body_tokens
        } else {
            0
        };
    let body_hash = super::hash(body.as_bytes());
    let known = blobs.lock().ok().and_then(|m| m.get(&body_hash).cloned());
    let body = known.unwrap_or_else(|| {
        // Two workers may encode the same body at once: the output is the same, one is kept.
        let blob = Arc::new(Blob::encode(body.into_bytes()));
        match blobs.lock() {
            Ok(mut m) => m.entry(body_hash.clone()).or_insert(blob).clone(),
            Err(_) => blob,
        }
    });
    Arc::new(Rendered {
        entry,
        body,
        prompt,
        prompt_tokens,
        body_hash,
        record: Default::default(),
    })
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
