//! Writing the tables, each statement from the schema's column lists and each value bound by
//! its column's name; a table a session's previous artifact holds unchanged is copied from it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rusqlite::{named_params, params, Transaction};
use skillc_runtime::schema::{self, AssetRow, BundleRow, ClientRow};

use super::{
    insert_blob, Blob, CardRoute, CardRows, Copyable, Data, EntryRows, LaidEntry, Previous, RowOf,
    Sql, WrittenEntry,
};
use crate::model::Mode;

/// Writes the blobs in hash order, each dropped once written (a rendered entry a session
/// keeps still holds its own).
pub(super) fn insert_blobs(tx: &Transaction<'_>, blobs: BTreeMap<String, Arc<Blob>>) -> Sql<()> {
    let mut st = tx.prepare(schema::insert("blob", false))?;
    for (hash, blob) in blobs {
        insert_blob(tx, &mut st, &hash, &blob)?;
    }
    Ok(())
}

/// manifest, category, source, client (copied from `old` if `staged`), consumer and
/// consumer_hidden.
pub(super) fn insert_small_tables(tx: &Transaction<'_>, d: &Data, staged: bool) -> Sql<()> {
    let mut st = tx.prepare(schema::insert("manifest", false))?;
    for (k, v) in &d.manifest {
        st.execute(named_params! {":key": k, ":value": v})?;
    }
    let mut st = tx.prepare(schema::insert("category", false))?;
    for c in &d.categories {
        let (h, p, u) = (&c.catalog_header, &c.prompt_heading, &c.uncertainty);
        st.execute(named_params! {
            ":id": c.id,
            ":position": c.position,
            ":display_name": c.display_name,
            ":hidden": c.hidden,
            ":catalog_header": h.text,
            ":catalog_header_tokens": h.tokens,
            ":prompt_heading": p.text,
            ":prompt_heading_tokens": p.tokens,
            ":uncertainty": u.text,
            ":uncertainty_tokens": u.tokens,
        })?;
    }
    let mut st = tx.prepare(schema::insert("source", false))?;
    for s in &d.sources {
        st.execute(named_params! {
            ":sid": s.sid,
            ":url": s.url,
            ":title": s.title,
            ":text": s.text,
            ":extra": s.extra,
            ":fragment": s.fragment.text,
            ":tokens": s.fragment.tokens,
        })?;
    }
    if staged {
        copy(tx, "client", Some("id"))?;
    }
    let mut st = tx.prepare(schema::insert("client", false))?;
    for c in d.clients.iter().filter(|_| !staged) {
        insert_client(&mut st, c)?;
    }
    let mut st = tx.prepare(schema::insert("consumer", false))?;
    let mut hidden = tx.prepare(schema::insert("consumer_hidden", false))?;
    for c in &d.consumers {
        st.execute(
            named_params! {":name": c.name, ":enabled": c.enabled, ":disabled": c.disabled},
        )?;
        for q in &c.hidden {
            hidden.execute(named_params! {":consumer": c.name, ":qualified_name": q})?;
        }
    }
    Ok(())
}

pub(super) fn insert_client(st: &mut rusqlite::Statement<'_>, c: &ClientRow) -> Sql<()> {
    st.execute(named_params! {
        ":id": c.id,
        ":trusted": c.trusted,
        ":flags": c.flags,
        ":locales": c.locales,
        ":tiers": c.tiers,
        ":toggles": c.toggles,
    })?;
    Ok(())
}

pub(super) fn insert_asset(st: &mut rusqlite::Statement<'_>, a: &AssetRow) -> Sql<()> {
    st.execute(named_params! {":skill_file": a.skill_file, ":path": a.path, ":blob": schema::digest_bytes(&a.blob)})?;
    Ok(())
}

/// Copies `table` whole from the previous artifact. A table without an index is copied as
/// SQLite transfers it (record by record, the same pages as inserting its rows in order); any
/// other is read `in_order` of its key and inserted row by row, as a build inserts it (the
/// transfer would lay out its indexes' pages otherwise).
pub(super) fn copy(tx: &Transaction<'_>, table: &str, in_order: Option<&str>) -> Sql<()> {
    let order = in_order.map_or(String::new(), |key| format!(" ORDER BY {key}"));
    tx.execute(
        &format!("INSERT INTO main.{table} SELECT * FROM old.{table}{order}"),
        [],
    )?;
    Ok(())
}

/// card, then card_fragment_cut in the order of its key (each card's fragments by level and
/// format, as a copy reads them); copied from the previous artifact when its `cards` are
/// these (`copied`).
pub(super) fn insert_cards(
    tx: &Transaction<'_>,
    cards: &[CardRows],
    vectors: &NumberedVectors,
    copied: bool,
) -> Sql<()> {
    if copied {
        copy(tx, "card", None)?;
        return copy(tx, "card_fragment_cut", Some("card, level, format"));
    }
    let mut st = tx.prepare(schema::insert("card", false))?;
    for ((id, c), ids) in (1i64..).zip(cards).zip(&vectors.of_card) {
        insert_card(&mut st, id, c, ids)?;
    }
    let mut frag = tx.prepare(schema::insert("card_fragment_cut", false))?;
    for (id, c) in (1i64..).zip(cards) {
        insert_fragments(&mut frag, id, c)?;
    }
    Ok(())
}

/// A card's `card.vectors`: the ids of its texts' vectors (`digests`, space-separated), each
/// from `number`, which numbers them from 1 in the order the cards (in their order) first
/// name a text, so that a build of the whole workspace and a batched one number them alike.
pub(crate) fn vector_ids<'d>(digests: &'d str, mut number: impl FnMut(&'d str) -> i64) -> String {
    let ids: Vec<String> = (digests.split(' '))
        .filter(|d| !d.is_empty())
        .map(|d| number(d).to_string())
        .collect();
    ids.join(" ")
}

/// The vector ids of a build of the whole workspace.
#[derive(Debug, Default)]
pub(super) struct NumberedVectors {
    /// Each card's `card.vectors`, in the cards' order.
    pub(super) of_card: Vec<String>,
    /// The digests of the texts, in the order of their ids.
    pub(super) digests: Vec<String>,
}

impl NumberedVectors {
    pub(super) fn of(cards: &[CardRows]) -> Self {
        let mut ids: HashMap<&str, i64> = HashMap::new();
        let mut digests = Vec::new();
        let of_card = (cards.iter())
            .map(|c| {
                vector_ids(&c.vectors, |d| {
                    *ids.entry(d).or_insert_with(|| {
                        digests.push(d.to_string());
                        digests.len() as i64
                    })
                })
            })
            .collect();
        NumberedVectors { of_card, digests }
    }
}

pub(super) fn insert_card(
    st: &mut rusqlite::Statement<'_>,
    id: i64,
    rows: &CardRows,
    vectors: &str,
) -> Sql<()> {
    let c = &rows.card;
    st.execute(named_params! {
        ":id": id,
        ":name": c.name,
        ":qualified_name": c.qualified_name,
        ":category": c.category.as_deref().unwrap_or_default(),
        ":description": c.description,
        ":triggers": serde_json::to_string(&c.triggers).unwrap_or_default(),
        ":when_to_use": serde_json::to_string(&c.when_to_use).unwrap_or_default(),
        ":location": c.location,
        ":vectors": vectors,
    })?;
    Ok(())
}

/// A card's fragments, in the order of their key.
pub(super) fn insert_fragments(st: &mut rusqlite::Statement<'_>, id: i64, c: &CardRows) -> Sql<()> {
    let mut fragments: Vec<_> = c.fragments.iter().collect();
    fragments.sort_by(|a, b| (&a.level, a.format).cmp(&(&b.level, b.format)));
    for f in fragments {
        let (head, tail) = cut(&f.text.text, &c.card.description);
        st.execute(named_params! {
            ":card": id,
            ":level": f.level,
            ":format": f.format,
            ":head": head,
            ":tail": tail,
            ":tokens": f.text.tokens,
        })?;
    }
    Ok(())
}

/// A fragment's `text` as `card_fragment_cut` keeps it: before and after the first place it
/// holds its card's `description` as written, or whole (`None`) where it does not (a level
/// that shortens the description, a format that escapes it, an empty one).
pub(super) fn cut<'t>(text: &'t str, description: &str) -> (&'t str, Option<&'t str>) {
    match text.find(description).filter(|_| !description.is_empty()) {
        Some(at) => (&text[..at], Some(&text[at + description.len()..])),
        None => (text, None),
    }
}

/// Writes the entry rows as they are laid out, each dropped once written. Runs of rows that
/// are `old`'s rows at the same ids are copied from the previous artifact (in id order, as
/// inserting them does); in a session, returns what each row was written from.
pub(super) fn insert_entries(
    tx: &Transaction<'_>,
    entries: &mut EntryRows,
    old: Option<&[WrittenEntry]>,
    mode: Mode,
) -> Sql<Vec<WrittenEntry>> {
    let mut st = tx.prepare(schema::insert("entry", false))?;
    let mut copy = match old {
        Some(_) => Some(tx.prepare(
            "INSERT INTO main.entry SELECT * FROM old.entry WHERE id BETWEEN ?1 AND ?2",
        )?),
        None => None,
    };
    // Copies the run of unchanged rows met and not yet copied (first and last id).
    let mut flush = |run: &mut Option<(i64, i64)>| match (run.take(), copy.as_mut()) {
        (Some((first, last)), Some(copy)) => copy.execute(params![first, last]).map(|_| ()),
        _ => Ok(()),
    };
    let mut written = Vec::new();
    let mut run = None;
    for (id, laid) in (1i64..).zip(entries) {
        let same = old
            .and_then(|o| o.get(id as usize - 1))
            .is_some_and(|w| w.is(&laid));
        if same {
            run = Some((run.map_or(id, |(first, _)| first), id));
        } else {
            flush(&mut run)?;
            insert_entry(&mut st, id, &laid)?;
        }
        if let (true, RowOf::Kept(rendered)) = (mode.keeps(), laid.row) {
            written.push(WrittenEntry {
                rendered,
                card: laid.card,
                sort_key: laid.sort_key,
            });
        }
    }
    flush(&mut run)?;
    Ok(written)
}

pub(super) fn insert_entry(st: &mut rusqlite::Statement<'_>, id: i64, laid: &LaidEntry) -> Sql<()> {
    let en = &*laid.row;
    st.execute(named_params! {
        ":id": id,
        ":name": en.name,
        ":qualified_name": en.qualified_name,
        ":resolved_name": en.resolved_name,
        ":card": laid.card as i64 + 1,
        ":category": en.category,
        ":sort_key": laid.sort_key,
        ":catalog_visible": en.catalog_visible,
        ":always_on": en.always_on,
        ":hidden": en.hidden,
        ":unavailable": en.unavailable,
        ":untrusted": en.untrusted,
        ":body": schema::digest_bytes(&en.body),
        ":body_tokens": en.body_tokens,
        ":prompt_prefix": en.prompt_prefix,
        ":prompt_body": en.prompt_body,
        ":prompt_suffix": en.prompt_suffix,
        ":prompt_tokens": en.prompt_tokens,
        ":record": en.record,
    })?;
    Ok(())
}

/// name, reason, slot_list and bundle, each copied when its rows are those of `old`.
pub(super) fn insert_bundles(
    tx: &Transaction<'_>,
    rows: &Copyable,
    old: Option<Previous<'_>>,
) -> Sql<()> {
    let (rows, old) = (&rows.bundles, old.map(|o| &o.rows.bundles));
    if old.is_some_and(|o| Arc::ptr_eq(o, rows)) {
        // The tables the previous build laid out, taken as they were: copied whole.
        copy(tx, "name", Some("id"))?;
        copy(tx, "reason", Some("id"))?;
        copy(tx, "slot_list", None)?;
        return copy(tx, "bundle", Some("id"));
    }
    let texts = [
        ("name", &rows.names, old.map(|o| &o.names), Some("id")),
        ("reason", &rows.reasons, old.map(|o| &o.reasons), Some("id")),
        (
            "slot_list",
            &rows.slot_lists,
            old.map(|o| &o.slot_lists),
            None,
        ),
    ];
    for (table, texts, old, in_order) in texts {
        if old == Some(texts) {
            copy(tx, table, in_order)?;
            continue;
        }
        let mut st = tx.prepare(schema::insert(table, false))?;
        for (id, text) in (1i64..).zip(texts) {
            insert_text(&mut st, table, id, text)?;
        }
    }
    if old.is_some_and(|o| o.rows == rows.rows) {
        return copy(tx, "bundle", Some("id"));
    }
    let mut st = tx.prepare(schema::insert("bundle", false))?;
    for (id, b) in (1i64..).zip(&rows.rows) {
        insert_bundle(&mut st, id, b)?;
    }
    Ok(())
}

/// A row of `name`, `reason` or `slot_list`: an id and its one text.
pub(super) fn insert_text(
    st: &mut rusqlite::Statement<'_>,
    table: &str,
    id: i64,
    text: &str,
) -> Sql<()> {
    let column = match table {
        "name" => ":qualified_name",
        "reason" => ":text",
        _ => ":slots",
    };
    st.execute(&[(":id", &id as &dyn rusqlite::ToSql), (column, &text)])?;
    Ok(())
}

pub(super) fn insert_bundle(st: &mut rusqlite::Statement<'_>, id: i64, b: &BundleRow) -> Sql<()> {
    let base = b.base.map(|x| x as i64 + 1);
    st.execute(named_params! {
        ":id": id,
        ":client": b.client,
        ":locale": b.locale,
        ":tier": b.tier,
        ":base": base,
        ":catalog_level": b.catalog_level,
        ":slots": b.slots as i64 + 1,
    })?;
    Ok(())
}

/// Embedding vector `id`.
pub(super) fn insert_vector(tx: &rusqlite::Connection, id: i64, data: &[u8]) -> Sql<()> {
    let mut st = tx.prepare_cached(schema::insert("vector", false))?;
    st.execute(named_params! { ":id": id, ":data": data })?;
    Ok(())
}

/// Where the vector rows come from: the previous artifact (the same cards and the very same
/// vectors, so the same ids), or `d`'s vectors of these digests, in the order of their ids.
pub(super) enum VectorRows<'v> {
    Copied,
    Numbered(&'v [String]),
}

/// vector and the meaning table.
pub(super) fn insert_vectors(tx: &Transaction<'_>, d: &Data, vectors: VectorRows<'_>) -> Sql<()> {
    match vectors {
        VectorRows::Copied => {
            // Keyed by its rowid alone (no index): transferred as it is.
            copy(tx, "vector", None)?;
            // In the order the rows were written (a scan could follow the names' index).
            copy(tx, "meaning", Some("rowid"))
        }
        VectorRows::Numbered(digests) => {
            for (id, digest) in (1i64..).zip(digests) {
                let data = d.vectors.get(digest).map_or(&[][..], Vec::as_slice);
                insert_vector(tx, id, data)?;
            }
            if let Some(m) = &d.meaning {
                let mut st = tx.prepare(schema::insert("meaning", false))?;
                st.execute(named_params! { ":name": m.name, ":data": m.table })?;
                let small_talk = skillc_runtime::route::small_talk_row(m.name);
                st.execute(named_params! { ":name": small_talk, ":data": &m.small_talk[..] })?;
                let words = skillc_runtime::route::talk_words_row(m.name);
                st.execute(named_params! { ":name": words, ":data": &m.talk_words[..] })?;
                let pairs = skillc_runtime::route::talk_pairs_row(m.name);
                st.execute(named_params! { ":name": pairs, ":data": &m.talk_pairs[..] })?;
                let glossary = skillc_runtime::route::glossary_row(m.name);
                st.execute(named_params! { ":name": glossary, ":data": m.glossary.as_bytes() })?;
            }
            Ok(())
        }
    }
}

/// asset and diagnostic_run.
/// Each card's routing index (`card_route`), cards numbered from 1 in order: written after
/// the cards, whose table a session keeps while only a body changed.
pub(super) fn insert_card_route(tx: &Transaction<'_>, routes: &[CardRoute]) -> Sql<()> {
    let mut st = tx.prepare(schema::insert("card_route", false))?;
    for (card, route) in (1i64..).zip(routes) {
        insert_route(&mut st, card, route)?;
    }
    Ok(())
}

/// One `card_route` row.
pub(super) fn insert_route(
    st: &mut rusqlite::Statement<'_>,
    card: i64,
    route: &CardRoute,
) -> Sql<()> {
    st.execute(named_params! {
        ":card": card,
        ":terms": &*route.terms,
        ":meaning": route.meaning.as_deref(),
    })?;
    Ok(())
}

pub(super) fn insert_tail(
    tx: &Transaction<'_>,
    d: &Data,
    warnings: &[crate::Diagnostic],
    old: Option<Previous<'_>>,
) -> Sql<()> {
    let mut st = tx.prepare(schema::insert("asset", false))?;
    for a in &d.assets {
        insert_asset(&mut st, a)?;
    }
    insert_diagnostic_runs(tx, warnings, old.map(|o| o.warnings))
}

/// The warnings in runs of [`schema::DIAGNOSTICS_PER_RUN`], each deflated (in parallel); a run
/// the previous artifact holds the same, at the same position, is copied from it instead.
fn insert_diagnostic_runs(
    tx: &Transaction<'_>,
    warnings: &[crate::Diagnostic],
    old: Option<&[crate::Diagnostic]>,
) -> Sql<()> {
    use rayon::prelude::*;
    let per_run = schema::DIAGNOSTICS_PER_RUN;
    let runs: Vec<&[crate::Diagnostic]> = warnings.chunks(per_run).collect();
    // The previous artifact's run at the same position holds exactly these (its last run
    // may hold more, or fewer).
    let kept = |i: usize, run: &[crate::Diagnostic]| {
        old.and_then(|o| o.chunks(per_run).nth(i)) == Some(run)
    };
    let packed: Vec<Option<Vec<u8>>> = (runs.par_iter().enumerate())
        .map(|(i, &run)| (!kept(i, run)).then(|| deflated_run(run)).transpose())
        .collect::<Result<_, _>>()
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let mut st = tx.prepare(schema::insert("diagnostic_run", false))?;
    for ((i, run), data) in runs.into_iter().enumerate().zip(packed) {
        let (first, count) = ((i * per_run) as i64 + 1, run.len() as i64);
        match data {
            Some(data) => st.execute(named_params! {":first": first, ":count": count, ":data": data})?,
            None => tx
                .prepare_cached("INSERT INTO main.diagnostic_run SELECT * FROM old.diagnostic_run WHERE first = ?1")?
                .execute([first])?,
        };
    }
    Ok(())
}

/// A run of warnings as the artifact stores it: zlib (level 6, so the same bytes every build)
/// of a JSON array of `[severity, code, file, line, column, message]`.
fn deflated_run(run: &[crate::Diagnostic]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let rows: Vec<_> = run
        .iter()
        .map(|d| {
            (
                d.severity.as_str(),
                d.code,
                &d.file,
                d.line,
                d.column,
                &d.message,
            )
        })
        .collect();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    serde_json::to_writer(&mut z, &rows)?;
    z.flush()?;
    z.finish()
}
