//! Phase: the artifact's rows (the types of `skillc_runtime::schema`) laid out from the
//! resolved and rendered data, each table by one function.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use skillc_runtime::schema::{
    AssetRow, BundleRow, BundleSlot, CategoryRow, ClientRow, ConsumerRow, Counted, EntryRow,
    SourceRow,
};

use super::artifact::{
    Blob, BundleTables, CardRows, Data, EncodedAssets, EntryRows, LaidEntry, Rendered, RowOf,
};
use super::bundles::Resolved;
use crate::digest::hex;
use crate::model::{AssetData, Category, Scope};
use crate::render::{tokens, Card, Entry, PromptParts, RenderError, Renderer};
use crate::resolve::pool::Pool;
use crate::resolve::{plain_names, BundleSpec, EntryKey, Prepared, Slot, Slots};
use crate::Workspace;

fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn counted(text: String, renderer: &Renderer) -> Counted {
    Counted {
        tokens: renderer.tokens(&text),
        text,
    }
}

/// Category order: `order`, then id; uncategorized (`''`) last.
pub(super) fn categories(
    ws: &Workspace,
    renderer: &Renderer,
) -> Result<Vec<CategoryRow>, RenderError> {
    let mut cats: BTreeMap<String, Category> = ws.categories.clone();
    // In a batch of clients, the categories of every batch's skills.
    let named: Vec<&String> = match ws.census.as_deref() {
        Some(census) => census.skill_categories.iter().collect(),
        None => ws
            .skills
            .iter()
            .filter_map(|s| s.category.as_ref())
            .collect(),
    };
    for c in named {
        cats.entry(c.clone()).or_insert_with(|| Category {
            id: c.clone(),
            order: i64::MAX,
            ..Default::default()
        });
    }
    let mut list: Vec<Category> = cats.into_values().collect();
    list.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
    list.push(Category {
        id: String::new(),
        display_name: Some("Other skills".to_string()),
        order: i64::MAX,
        ..Default::default()
    });
    list.iter()
        .enumerate()
        .map(|(i, c)| {
            let [header, heading, uncertainty] = renderer.category_fragments(c)?;
            Ok(CategoryRow {
                id: c.id.clone(),
                position: i as i64,
                display_name: c.display_name.clone().unwrap_or_else(|| c.id.clone()),
                hidden: c.hidden_from_llm,
                catalog_header: counted(header, renderer),
                prompt_heading: counted(heading, renderer),
                uncertainty: counted(uncertainty, renderer),
            })
        })
        .collect()
}

/// Entry rows, with each entry's card and sort key, laid out one by one as they are written
/// (in full first, they grew the peak by 22 MB at 5,000 clients); and the blobs of their
/// bodies (shared with the entries, not copied).
pub(super) fn entries(
    list: Vec<(Arc<Rendered>, usize)>,
    categories: &[CategoryRow],
) -> (EntryRows, BTreeMap<String, Arc<Blob>>) {
    let position: FxHashMap<String, i64> = categories
        .iter()
        .map(|c| (c.id.clone(), c.position))
        .collect();
    // Sorted and deduplicated as a list, the map then built at once: one insert per entry was
    // a twentieth of a watch rebuild of the reference workload.
    let mut bodies: Vec<(&str, &Arc<Blob>)> = list
        .iter()
        .map(|(r, _)| (r.row.body.as_str(), &r.body))
        .collect();
    bodies.sort_unstable_by(|a, b| a.0.cmp(b.0));
    bodies.dedup_by(|a, b| a.0 == b.0);
    let blobs = bodies
        .into_iter()
        .map(|(hash, blob)| (hash.to_string(), blob.clone()))
        .collect();
    // Each entry's row is moved out of it, or read in place when a session keeps the entry.
    let rows = list.into_iter().map(move |(r, card)| {
        let row = match Arc::try_unwrap(r) {
            Ok(r) => RowOf::Owned(r.row),
            Err(r) => RowOf::Kept(r),
        };
        let sort_key = format!(
            "{:06}:{}",
            position.get(&row.category).copied().unwrap_or(0),
            row.name
        );
        LaidEntry {
            row,
            card,
            sort_key,
        }
    });
    (Box::new(rows), blobs)
}

/// An entry's row as rendering makes it: its card and sort key are left unset, and given
/// beside it as the rows are laid out (see [`entries`]).
pub(super) fn entry_row(
    e: &Entry,
    prompt: PromptParts,
    body_hash: String,
    prompt_tokens: u32,
) -> EntryRow {
    EntryRow {
        name: e.name.clone(),
        qualified_name: e.qualified_name.clone(),
        resolved_name: e.resolved_name.clone(),
        card: 0,
        category: e.category.clone().unwrap_or_default(),
        sort_key: String::new(),
        catalog_visible: e.catalog_visible,
        always_on: e.always_on,
        hidden: e.hidden,
        unavailable: e.unavailable.clone(),
        untrusted: e.untrusted,
        body: body_hash,
        body_tokens: e.body_tokens,
        prompt_prefix: prompt.prefix,
        prompt_body: prompt.has_body,
        prompt_suffix: prompt.suffix,
        prompt_tokens,
        record: json(&e.record),
    }
}

/// Card rows with the fragments the budgets kept.
pub(super) fn cards(
    cards: Vec<Arc<Card>>,
    fragments: Vec<Arc<Vec<skillc_runtime::schema::CardFragment>>>,
) -> Vec<CardRows> {
    cards
        .into_iter()
        .zip(fragments)
        .map(|(card, fragments)| CardRows {
            card,
            fragments,
            vectors: String::new(),
        })
        .collect()
}

/// Lays out the bundles' rows from the plan's bundles (`specs`, taken: their texts move into
/// the rows) and the base of each.
pub(super) fn bundles(
    specs: Vec<BundleSpec>,
    base_of: &[Option<usize>],
    resolved: &Resolved,
    key_index: &FxHashMap<Arc<EntryKey>, usize>,
    levels: Vec<String>,
) -> BundleTables {
    let slots = || resolved.slots.iter().flat_map(|b| b.iter());
    let (names, name_id) = numbered(slots().map(|(q, _)| q));
    let (reasons, reason_id) = numbered(slots().filter_map(|(_, s)| match s {
        Slot::Removed(r) => Some(r.as_str()),
        Slot::Entry(_) => None,
    }));
    use rayon::prelude::*;
    // The global bundles' plain names, which their clients' bundles differ from, and whether
    // they hold any plugin's skill.
    let base_plain: Vec<Option<Plain>> = (resolved.slots.par_iter())
        .zip(base_of)
        .map(|(slots, base)| {
            base.is_none().then(|| Plain {
                names: plain_names(present(slots.iter())),
                plugins: present(slots.iter()).any(|q| q.contains(':')),
            })
        })
        .collect();
    // Packed on every core as each row is laid out, not held as a list of slot structs per
    // bundle until written (55 MB of heap for 150,030 bundles at 5,000 clients).
    let (rows, packed): (Vec<BundleRow>, Vec<String>) = specs
        .into_par_iter()
        .zip(&resolved.slots)
        .zip(levels)
        .enumerate()
        .map(|(b, ((spec, slots), catalog_level))| {
            let slot = |q: &str, s: &Slot, plain: bool| BundleSlot {
                name: name_id[q],
                entry: match s {
                    Slot::Entry(k) => Some(key_index[&**k]),
                    Slot::Removed(_) => None,
                },
                reason: match s {
                    Slot::Entry(_) => None,
                    Slot::Removed(r) => Some(reason_id[r.as_str()]),
                },
                plain,
            };
            let base = base_of[b].map(|g| (&*resolved.slots[g], base_plain[g].as_ref()));
            let list = marked(
                slots,
                base.map(|(s, p)| (s, p.expect("a base is a global bundle"))),
            );
            let list = list.into_iter().map(|(q, s, plain)| slot(q, s, plain));
            let row = BundleRow {
                client: spec.client.unwrap_or_default(),
                locale: spec.locale,
                tier: spec.tier,
                base: base_of[b],
                catalog_level,
                slots: 0,
            };
            (row, pack_slots(list))
        })
        .unzip();
    let (rows, slot_lists) = shared_lists(rows, packed);
    BundleTables {
        rows,
        names,
        reasons,
        slot_lists,
    }
}

/// A global bundle's plain names (see [`plain_names`]).
struct Plain<'a> {
    names: FxHashSet<&'a str>,
    /// Whether the bundle holds a plugin's skill.
    plugins: bool,
}

/// A bundle's slots to store, each with whether the bundle also finds its entry by its plain
/// name: `own` for a global bundle (`base` `None`); for a client bundle, `own` and the slots of
/// its base whose mark the client's own names change.
fn marked<'a>(
    own: &'a Slots,
    base: Option<(&'a Slots, &Plain<'_>)>,
) -> Vec<(&'a str, &'a Slot, bool)> {
    let Some((base, was)) = base else {
        let plain = plain_names(present(own.iter()));
        return (own.iter())
            .map(|(q, s)| (q, s, plain.contains(q)))
            .collect();
    };
    if !was.plugins && !own.iter().any(|(q, _)| q.contains(':')) {
        // No plugin's skill in the bundle (a workspace without plugins): nothing to decide
        // over the whole view, 150,030 times at 5,000 clients.
        return (own.iter()).map(|(q, s)| (q, s, false)).collect();
    }
    let inherited = || (base.iter()).filter(|(q, _)| !own.contains_key(q));
    let now = plain_names(present(inherited().chain(own.iter())));
    // A name of the base found by its plain name here and not there, or the reverse, is one
    // of this bundle's differences.
    let changed = inherited()
        .filter(|(q, s)| matches!(s, Slot::Entry(_)) && now.contains(q) != was.names.contains(q));
    let mut list: Vec<_> = (own.iter().chain(changed))
        .map(|(q, s)| (q, s, now.contains(q)))
        .collect();
    list.sort_unstable_by_key(|(q, _, _)| *q);
    list
}

/// The names of `slots` that hold an entry.
fn present<'a>(slots: impl Iterator<Item = (&'a str, &'a Slot)>) -> impl Iterator<Item = &'a str> {
    slots.filter_map(|(q, s)| matches!(s, Slot::Entry(_)).then_some(q))
}

/// Numbers each distinct list in the order of the first row holding it, and points each row
/// at its list (in place, and each distinct list moved, not copied: 150,030 rows at 5,000
/// clients).
fn shared_lists(
    mut rows: Vec<BundleRow>,
    mut packed: Vec<String>,
) -> (Vec<BundleRow>, Vec<String>) {
    let mut firsts = Vec::new();
    {
        let mut list_ids: FxHashMap<&str, usize> = FxHashMap::default();
        for (i, (row, list)) in rows.iter_mut().zip(&packed).enumerate() {
            row.slots = *list_ids.entry(list).or_insert_with(|| {
                firsts.push(i);
                firsts.len() - 1
            });
        }
    }
    let lists = firsts
        .into_iter()
        .map(|i| std::mem::take(&mut packed[i]))
        .collect();
    (rows, lists)
}

/// A bundle's slots as stored: `[name, entry]`, `[name, entry, 1]` for an entry the bundle
/// also finds by its plain name, or `[name, null, reason]` for a name left out (1-based ids of
/// the `name`, `entry` and `reason` tables).
pub(super) fn pack_slots(slots: impl Iterator<Item = BundleSlot>) -> String {
    use std::fmt::Write as _;
    let mut packed = String::from("[");
    for s in slots {
        let _ = match (s.entry, s.reason) {
            (Some(e), _) if s.plain => write!(packed, "[{},{},1],", s.name + 1, e + 1),
            (Some(e), _) => write!(packed, "[{},{}],", s.name + 1, e + 1),
            (None, Some(r)) => write!(packed, "[{},null,{}],", s.name + 1, r + 1),
            (None, None) => write!(packed, "[{},null],", s.name + 1),
        };
    }
    if packed.ends_with(',') {
        packed.pop();
    }
    packed.push(']');
    packed
}

/// The distinct texts in order of first appearance, and the index of each: the bundles of a
/// batch of clients then number theirs after the ones before them, as a whole build does.
fn numbered<'a>(texts: impl Iterator<Item = &'a str>) -> (Vec<String>, FxHashMap<&'a str, usize>) {
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    let mut distinct = Vec::new();
    for t in texts {
        index.entry(t).or_insert_with(|| {
            distinct.push(t.to_string());
            distinct.len() - 1
        });
    }
    (distinct, index)
}

/// Consumers and the qualified names each one's catalogs leave out.
fn consumers(ws: &Workspace, qualified: &[String]) -> Vec<ConsumerRow> {
    let names: BTreeSet<&str> = match ws.census.as_deref() {
        Some(census) => census.qualified.iter().map(String::as_str).collect(),
        None => qualified.iter().map(String::as_str).collect(),
    };
    ws.config
        .consumers
        .iter()
        .map(|(name, c)| ConsumerRow {
            name: name.clone(),
            enabled: json(&c.enabled),
            disabled: json(&c.disabled),
            hidden: names
                .iter()
                .filter(|q| !c.shows(q))
                .map(|q| q.to_string())
                .collect(),
        })
        .collect()
}

/// Clients with the locales and tiers they get.
fn clients(ws: &Workspace) -> Vec<ClientRow> {
    let tiers: Vec<String> = ws.config.tiers.iter().map(|t| t.name.clone()).collect();
    ws.clients
        .values()
        .map(|c| ClientRow {
            id: c.id.clone(),
            trusted: ws.config.trusted.contains(&c.id),
            flags: c.flags.to_string(),
            locales: json(c.locales.as_ref().unwrap_or(&ws.config.locales)),
            tiers: json(c.tiers.as_ref().unwrap_or(&tiers)),
            toggles: json(
                &c.toggles
                    .iter()
                    .map(|(name, t)| (name, t.enabled))
                    .collect::<BTreeMap<_, _>>(),
            ),
        })
        .collect()
}

/// The sources pool with each source's prompt line.
pub(super) fn sources(pool: &Pool, renderer: &Renderer) -> Result<Vec<SourceRow>, RenderError> {
    pool.sources
        .iter()
        .map(|s| {
            Ok(SourceRow {
                sid: s.sid,
                url: s.url.clone(),
                title: s.title.clone(),
                text: s.text.clone(),
                extra: json(&s.extra),
                fragment: counted(renderer.source_fragment(s)?, renderer),
            })
        })
        .collect()
}

/// Asset rows and the blobs of their contents (in a session, through its assets encoded
/// before: `encoded`).
pub(super) fn assets(
    ws: &Workspace,
    encoded: Option<&EncodedAssets>,
) -> (Vec<AssetRow>, BTreeMap<String, Arc<Blob>>) {
    let (mut rows, mut blobs) = (Vec::new(), BTreeMap::new());
    for s in &ws.skills {
        for a in &s.assets {
            let blob = hex(&a.data.sha256());
            blobs.entry(blob.clone()).or_insert_with(|| match &a.data {
                AssetData::Bytes(b) => match encoded {
                    Some(encoded) => encoded.encode(&blob, b),
                    None => Arc::new(Blob::encode(b.to_vec())),
                },
                AssetData::File(f) => Arc::new(Blob::from_file(f.clone())),
            });
            rows.push(AssetRow {
                skill_file: s.file.clone(),
                path: a.path.clone(),
                blob,
            });
        }
    }
    // In the table's key order, as a build of many clients copies them in.
    rows.sort_by(|a, b| (&a.skill_file, &a.path).cmp(&(&b.skill_file, &b.path)));
    (rows, blobs)
}

/// The manifest: versions, the input hash and the workspace's settings (the counts of the
/// tables join it once they are laid out).
/// How many skills, global skills and clients the whole workspace has.
fn counts(ws: &Workspace) -> crate::model::census::Counts {
    match ws.census.as_deref() {
        Some(census) => census.counts,
        None => crate::model::census::Counts {
            skills: ws.skills.len(),
            global_skills: (ws.skills.iter())
                .filter(|s| s.scope == Scope::Global)
                .count(),
            clients: ws.clients.len(),
        },
    }
}

fn embedding_model(cfg: &crate::model::WorkspaceConfig) -> Option<&str> {
    crate::meaning::embedding_model(cfg.routing.as_ref())
}

fn manifest(ws: &Workspace, input_hash: &str) -> BTreeMap<String, String> {
    let cfg = &ws.config;
    let tiers: Vec<&String> = cfg.tiers.iter().map(|t| &t.name).collect();
    let counts = counts(ws);
    let mut m: BTreeMap<String, String> = [
        (
            "schema_version",
            skillc_runtime::schema::VERSION.to_string(),
        ),
        ("compiler", format!("skillc {}", env!("CARGO_PKG_VERSION"))),
        ("tokenizer", tokens::TOKENIZER.to_string()),
        ("input_hash", input_hash.to_string()),
        ("workspace", cfg.name.clone().unwrap_or_default()),
        ("locales", json(&cfg.locales)),
        ("default_locale", cfg.default_locale.clone()),
        ("tiers", json(&tiers)),
        ("default_tier", cfg.tiers[0].name.clone()),
        (
            "max_active_skills",
            cfg.max_active_skills
                .map_or(String::new(), |n| n.to_string()),
        ),
        ("pipeline_max_depth", cfg.pipeline_max_depth.to_string()),
        ("max_triggers", cfg.max_triggers.to_string()),
        ("skills", counts.skills.to_string()),
        ("global_skills", counts.global_skills.to_string()),
        ("clients", counts.clients.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    if let Ok(epoch) = std::env::var("SOURCE_DATE_EPOCH") {
        m.insert("source_date_epoch".to_string(), epoch);
    }
    // Each tier's catalog budget, so what a bundle was cut to can be told against it.
    let budgets: BTreeMap<&str, u64> = cfg
        .tiers
        .iter()
        .filter_map(|t| Some((t.name.as_str(), t.catalog_token_budget?)))
        .collect();
    if !budgets.is_empty() {
        m.insert("catalog_budgets".to_string(), json(&budgets));
    }
    if let Some(routing) = &cfg.routing {
        m.insert("routing".to_string(), json(routing));
    }
    // Routing's words and constants, so the runtime ports read them instead of copying them.
    m.insert(
        "routing_rules".to_string(),
        json(&skillc_runtime::route::RoutingRules::built_in()),
    );
    // Its vectors' length is known once they are made (`embed::attach`).
    if let Some(model) = embedding_model(cfg) {
        m.insert("embedding_model".to_string(), model.to_string());
    }
    // A client's own `routing:` keys, laid over the workspace's by every runtime (of every
    // batch's clients in a build by batches).
    let per_client: BTreeMap<&str, &serde_json::Value> = match ws.census.as_deref() {
        Some(census) => census
            .client_routing
            .iter()
            .map(|(id, r)| (id.as_str(), r))
            .collect(),
        None => ws
            .clients
            .values()
            .filter_map(|c| Some((c.id.as_str(), c.routing.as_ref()?)))
            .collect(),
    };
    if !per_client.is_empty() {
        m.insert("routing_clients".to_string(), json(&per_client));
    }
    if let Some(plugins) = plugins(ws) {
        m.insert("plugins".to_string(), plugins);
    }
    sources_and_targets(cfg, &mut m);
    m
}

/// The outside repositories the skills come from and the declared client tools' budgets.
fn sources_and_targets(cfg: &crate::model::WorkspaceConfig, m: &mut BTreeMap<String, String>) {
    // Where each outside repository's skills come from, for `explain`, catalogs and the studio.
    let external: BTreeMap<&str, serde_json::Value> = (cfg.external.iter())
        .filter(|e| e.commit.is_some())
        .map(|e| {
            let about = serde_json::json!({
                "git": e.git, "rev": e.rev, "commit": e.commit, "trusted": e.trust,
            });
            (e.into.as_str(), about)
        })
        .collect();
    if !external.is_empty() {
        m.insert("external".to_string(), json(&external));
    }
    // The budgets of the declared client tools, for `export --target` and the studio.
    if !cfg.targets.is_empty() {
        let targets: BTreeMap<&str, &crate::model::targets::Budget> = (cfg.targets.iter())
            .filter_map(|t| Some((t.target.name(), t.budget.as_ref()?)))
            .collect();
        m.insert("targets".to_string(), json(&targets));
    }
}

/// Plugin metadata by plugin name (the first declared of a name), for the manifest: a skill
/// named `<plugin>:<skill>` is that plugin's.
fn plugins(ws: &Workspace) -> Option<String> {
    // A batch holds its own clients' plugins only; the census, every batch's.
    let listed: Vec<&crate::model::Plugin> = match ws.census.as_deref() {
        Some(census) => census.plugins.values().collect(),
        None => ws.plugins.iter().collect(),
    };
    let plugins: BTreeMap<&str, serde_json::Value> = (listed.into_iter().rev())
        .map(|p| {
            let about = serde_json::json!({
                "version": p.version, "description": p.description, "author": p.author,
            });
            (p.name.as_str(), about)
        })
        .collect();
    (!plugins.is_empty()).then(|| json(&plugins))
}

/// What the artifact takes from the workspace itself: the manifest (counts apart), clients
/// and consumers. Laid out before the workspace is freed.
pub(super) struct Header {
    /// The manifest without the tables' counts.
    pub manifest: BTreeMap<String, String>,
    /// A row per client: trust, flags, locales, tiers, toggles.
    pub clients: Vec<ClientRow>,
    /// A row per consumer, with the names its catalogs hide.
    pub consumers: Vec<ConsumerRow>,
}

/// The [`Header`] of the artifact of `ws`.
pub(super) fn header(ws: &Workspace, prepared: &Prepared<'_>, input_hash: &str) -> Header {
    Header {
        manifest: manifest(ws, input_hash),
        clients: clients(ws),
        consumers: consumers(ws, &prepared.qualified),
    }
}

/// The tables laid out by the phases, before the header joins them.
pub(super) struct Tables {
    /// Blob contents by hash.
    pub blobs: BTreeMap<String, Arc<Blob>>,
    /// Category rows, in catalog order.
    pub categories: Vec<CategoryRow>,
    /// Pooled sources.
    pub sources: Vec<SourceRow>,
    /// Cards with the fragments the budgets kept.
    pub cards: Vec<CardRows>,
    /// Each card's row of `card_route`.
    pub card_route: Vec<super::artifact::CardRoute>,
    /// Entry rows, laid out as they are written.
    pub entries: EntryRows,
    /// Bundles with the tables their slots point into.
    pub bundles: Arc<BundleTables>,
    /// Asset rows: each file of a skill folder with its blob.
    pub assets: Vec<AssetRow>,
}

/// Everything the artifact holds: the header with the tables' counts, and the tables.
pub(super) fn data(header: Header, t: Tables) -> Data {
    let mut manifest = header.manifest;
    let counts = [
        ("bundles", t.bundles.rows.len()),
        ("entries", t.entries.len()),
        ("cards", t.cards.len()),
        ("blobs", t.blobs.len()),
        ("sources", t.sources.len()),
    ];
    for (key, n) in counts {
        manifest.insert(key.to_string(), n.to_string());
    }
    Data {
        manifest,
        blobs: t.blobs,
        categories: t.categories,
        sources: t.sources,
        clients: header.clients,
        consumers: header.consumers,
        cards: t.cards,
        card_route: t.card_route,
        entries: t.entries,
        bundles: t.bundles,
        assets: t.assets,
        vectors: Default::default(),
        meaning: None,
    }
}
