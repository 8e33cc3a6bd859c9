//! Loading from the file: the manifest, consumers and categories once when opened, and each
//! bundle's entries once, on its first request, in one read transaction.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

use rusqlite::{Connection, OptionalExtension};
use serde::Deserialize;

use crate::bundle::index_skills;
use crate::schema::LeftOut;
use crate::{
    corrupt, Artifact, Bundle, BundleRef, Category, Condition, Error, Record, Skill, SourceRef,
    Sources,
};

/// The manifest's keys and values.
pub(crate) fn read_manifest(conn: &Connection) -> rusqlite::Result<BTreeMap<String, String>> {
    conn.prepare("SELECT key, value FROM manifest")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// Ids (in any order, repeats once) as the runs of consecutive ones they make, JSON
/// `[[first, last], …]` in ascending order: a query joins `in_runs!()` to read a table's rows
/// by them. A catalog's entries, cards and vectors lie in a few runs (ids are given in the
/// order the build first meets them), and a range is read along the table where a list of
/// ids looks up each row alone: the 5,000 vectors of a 1,000-skill catalog in half the time.
pub(crate) fn id_runs(ids: impl IntoIterator<Item = i64>) -> String {
    let mut ids = Vec::from_iter(ids);
    ids.sort_unstable();
    ids.dedup();
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for id in ids {
        match runs.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(id) => *last = id,
            _ => runs.push((id, id)),
        }
    }
    let mut json = String::with_capacity(runs.len() * 16 + 2);
    json.push('[');
    for (n, (first, last)) in runs.iter().enumerate() {
        if n > 0 {
            json.push(',');
        }
        json.push_str(&format!("[{first},{last}]"));
    }
    json.push(']');
    json
}

/// The most clients an error names: a workspace of 500 clients named them all, 10 KB.
pub(crate) const CLIENTS_NAMED: usize = 20;

/// The clients an error about `asked` names (`clients` sorted): all of them, or past
/// [`CLIENTS_NAMED`] the nearest to `asked` by edit distance (then by name), in name order,
/// and how many there are. Every runtime names them the same way.
pub(crate) fn name_clients(asked: &str, clients: BTreeSet<&str>) -> String {
    if clients.len() <= CLIENTS_NAMED {
        return format!("clients: {}", Vec::from_iter(clients).join(", "));
    }
    let total = clients.len();
    let mut by_distance: Vec<(usize, &str)> = (clients.into_iter())
        .map(|c| (edit_distance(asked, c), c))
        .collect();
    by_distance.sort();
    let nearest: BTreeSet<&str> = (by_distance.into_iter().take(CLIENTS_NAMED))
        .map(|(_, c)| c)
        .collect();
    format!(
        "clients (the {CLIENTS_NAMED} nearest of {total}): {}",
        Vec::from_iter(nearest).join(", ")
    )
}

/// Levenshtein's distance between `a` and `b`, by characters (Unicode scalar values): the
/// clients an error names here, and the compiler's "did you mean" suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// Each consumer and the qualified names its catalogs leave out.
pub(crate) fn read_consumers(
    conn: &Connection,
) -> rusqlite::Result<BTreeMap<String, BTreeSet<String>>> {
    let mut consumers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut st = conn.prepare("SELECT name FROM consumer")?;
    for name in st.query_map([], |r| r.get::<_, String>(0))? {
        consumers.insert(name?, BTreeSet::new());
    }
    let mut st = conn.prepare("SELECT consumer, qualified_name FROM consumer_hidden")?;
    let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (c, q) = row?;
        consumers.entry(c).or_default().insert(q);
    }
    Ok(consumers)
}

/// The categories with their catalog and prompt texts, by id.
pub(crate) fn read_categories(conn: &Connection) -> rusqlite::Result<BTreeMap<String, Category>> {
    conn.prepare(
        "SELECT id, position, catalog_header, catalog_header_tokens, prompt_heading,
                prompt_heading_tokens, uncertainty, uncertainty_tokens FROM category",
    )?
    .query_map([], |r| {
        Ok(Category {
            id: r.get(0)?,
            position: r.get(1)?,
            catalog_header: (r.get(2)?, r.get(3)?),
            prompt_heading: (r.get(4)?, r.get(5)?),
            uncertainty: (r.get(6)?, r.get(7)?),
        })
    })?
    .map(|c| c.map(|c| (c.id.clone(), c)))
    .collect()
}

/// How much of a bundle's entries a load reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Everything a prompt, a catalog or an explanation may need.
    Full,
    /// What a catalog's text or a single route needs: names, order, conditions and cards.
    CatalogText,
}

impl Reading {
    /// The entries of a bundle in catalog order, as a load reads them. A catalog's text needs
    /// names, order, conditions and cards: the other columns are read as constants (the same
    /// row shape, a fraction of the work).
    pub(crate) fn entry_query(self) -> &'static str {
        match self {
            Reading::Full => {
                concat!(
                    "SELECT e.name, e.qualified_name, e.resolved_name, e.category,
                        e.catalog_visible, e.always_on, e.unavailable, e.untrusted,
                        e.prompt_prefix, e.prompt_body, e.prompt_suffix, e.prompt_tokens,
                        e.record, c.description, c.triggers, e.body, e.card, e.id
                 FROM ",
                    in_runs!(),
                    " entry e ON e.id BETWEEN r.first AND r.last
                 JOIN card c ON c.id = e.card
                 ORDER BY e.sort_key, e.id"
                )
            }
            Reading::CatalogText => {
                concat!(
                    "SELECT e.name, e.qualified_name, '', e.category,
                        e.catalog_visible, 0, NULL, 0, '', 0, '', 0,
                        e.record, '', '[]', x'', e.card, e.id
                 FROM ",
                    in_runs!(),
                    " entry e ON e.id BETWEEN r.first AND r.last
                 ORDER BY e.sort_key, e.id"
                )
            }
        }
    }

    /// An entry's record as this reading needs it.
    pub(crate) fn record(self, json: &str) -> serde_json::Result<Record> {
        match self {
            Reading::Full => serde_json::from_str(json),
            Reading::CatalogText => serde_json::from_str::<Conditions>(json).map(|c| Record {
                conditions: c.conditions,
                ..Record::default()
            }),
        }
    }
}

/// The part of `entry.record` a catalog needs.
#[derive(Deserialize)]
pub(crate) struct Conditions {
    #[serde(default)]
    pub(crate) conditions: Vec<Condition>,
}

/// An entry as read, before its JSON and its body are decoded.
pub(crate) struct RawEntry {
    pub(crate) record: String,
    pub(crate) triggers: String,
    pub(crate) card: i64,
    pub(crate) skill: Skill,
}

#[derive(Debug, Clone)]
pub(crate) struct BundleInfo {
    pub(crate) id: i64,
    pub(crate) client: String,
    pub(crate) locale: String,
    pub(crate) tier: String,
    pub(crate) base: Option<i64>,
    pub(crate) level: String,
}

impl Artifact {
    /// Every bundle (read on first need: lookups of one bundle use the table's index).
    pub(crate) fn all_bundles(&self) -> Result<&[BundleInfo], Error> {
        if let Some(all) = self.bundles.get() {
            return Ok(all);
        }
        let conn = self.conn.lock().expect("lock");
        let all: Vec<BundleInfo> = conn
            .prepare(&format!("{} ORDER BY id", Self::BUNDLE_COLUMNS))
            .and_then(|mut st| st.query_map([], Self::bundle_info)?.collect())
            .map_err(corrupt(&self.path))?;
        drop(conn);
        Ok(self.bundles.get_or_init(|| all))
    }

    /// The sources pool (read on first need).
    pub(crate) fn sources(&self) -> Result<&Sources, Error> {
        if let Some(s) = self.sources.get() {
            return Ok(s);
        }
        let conn = self.conn.lock().expect("lock");
        let pool: Sources = conn
            .prepare("SELECT sid, url, title, fragment, tokens FROM source")
            .and_then(|mut st| {
                st.query_map([], |r| {
                    let sid: u32 = r.get(0)?;
                    let reference = SourceRef {
                        sid,
                        url: r.get(1)?,
                        title: r.get(2)?,
                    };
                    Ok((sid, (reference, r.get(3)?, r.get(4)?)))
                })?
                .collect()
            })
            .map_err(corrupt(&self.path))?;
        drop(conn);
        Ok(self.sources.get_or_init(|| pool))
    }

    pub(crate) fn find_bundle(&self, r: &BundleRef<'_>) -> Result<BundleInfo, Error> {
        let client = r.client.unwrap_or("");
        let locale = r.locale.or(self.manifest("default_locale")).unwrap_or("");
        let tier = r.tier.or(self.manifest("default_tier")).unwrap_or("");
        let key = (client.to_string(), locale.to_string(), tier.to_string());
        if let Some(b) = self.found.read().expect("lock").get(&key) {
            return Ok(b.clone());
        }
        let found = {
            let conn = self.conn.lock().expect("lock");
            conn.prepare_cached(&format!(
                "{} WHERE client = ?1 AND locale = ?2 AND tier = ?3",
                Self::BUNDLE_COLUMNS
            ))
            .and_then(|mut st| {
                st.query_row([client, locale, tier], Self::bundle_info)
                    .optional()
            })
            .map_err(corrupt(&self.path))?
        };
        if let Some(b) = found {
            self.found.write().expect("lock").insert(key, b.clone());
            return Ok(b);
        }
        // Not built: say what exists.
        let all = self.all_bundles()?;
        let of_client: Vec<&BundleInfo> = all.iter().filter(|b| b.client == client).collect();
        let list = |f: &dyn Fn(&BundleInfo) -> &str| -> String {
            let set: BTreeSet<&str> = of_client.iter().map(|b| f(b)).collect();
            set.into_iter().collect::<Vec<_>>().join(", ")
        };
        let who = if client.is_empty() {
            "the global bundle".to_string()
        } else {
            format!("client `{client}`")
        };
        Err(Error::Request(if of_client.is_empty() {
            let clients: BTreeSet<&str> = all
                .iter()
                .map(|b| b.client.as_str())
                .filter(|c| !c.is_empty())
                .collect();
            format!(
                "unknown client `{client}`; {}",
                name_clients(client, clients)
            )
        } else if !of_client.iter().any(|b| b.locale == locale) {
            format!(
                "no bundle for locale `{locale}` of {who}; its locales: {}",
                list(&|b| &b.locale)
            )
        } else {
            format!(
                "no bundle for tier `{tier}` of {who}; its tiers: {}",
                list(&|b| &b.tier)
            )
        }))
    }

    /// Loads (once while it is kept: [`Artifact::set_max_bundles`]) and returns a bundle.
    pub fn bundle(&self, r: &BundleRef<'_>) -> Result<Arc<Bundle>, Error> {
        let info = self.find_bundle(r)?;
        if let Some(b) = self.loaded.get(info.id) {
            return Ok(b);
        }
        let bundle = Arc::new(self.load(&info, Reading::Full)?);
        let (bundle, still_kept) = self.loaded.insert(info.id, bundle);
        if let Some(ids) = still_kept {
            self.keep_catalogs_of(&ids);
        }
        Ok(bundle)
    }

    /// Lets go of what this artifact keeps of a bundle (its skills, texts, routing index and
    /// catalogs); a later request loads it again. For a process that visits many bundles once
    /// each: `skillc eval` of a workspace's every client held 3.8 GB by its last of 501.
    pub fn unload(&self, r: &BundleRef<'_>) -> Result<(), Error> {
        let info = self.find_bundle(r)?;
        self.loaded.remove(info.id);
        (self.catalogs.write().expect("lock")).retain(|key, _| key.0 != info.id);
        Ok(())
    }

    /// Keeps at most `max` bundles loaded (0: none), letting go of the least recently used
    /// first, now and from then on. The default, [`DEFAULT_MAX_BUNDLES`](crate::DEFAULT_MAX_BUNDLES)
    /// (64), bounds a process serving many clients to about 480 MB of bundles on the reference
    /// workload; a bundle let go is loaded again on its next request (tens of milliseconds for
    /// a 1,000-skill catalog's first route).
    pub fn set_max_bundles(&self, max: usize) {
        let ids = self.loaded.set_max(max);
        self.keep_catalogs_of(&ids);
    }

    /// How many bundles this artifact keeps loaded at most.
    pub fn max_bundles(&self) -> usize {
        self.loaded.max()
    }

    /// Lets go of the catalogs of bundles no longer kept.
    fn keep_catalogs_of(&self, ids: &[i64]) {
        (self.catalogs.write().expect("lock")).retain(|key, _| ids.contains(&key.0));
    }

    /// A bundle's names: its own slots (its `slot_list.slots`, JSON `[name, entry]`,
    /// `[name, entry, 1]` or `[name, null, reason]`) over its base's.
    pub(crate) fn slots(
        tx: &rusqlite::Transaction<'_>,
        info: &BundleInfo,
    ) -> rusqlite::Result<BundleSlots> {
        type Packed = Vec<Vec<Option<i64>>>;
        let mut slots: BTreeMap<i64, (Option<i64>, Option<i64>)> = BTreeMap::new();
        let mut st = tx.prepare_cached(
            "SELECT l.slots FROM bundle b JOIN slot_list l ON l.id = b.slots WHERE b.id = ?1",
        )?;
        for b in info.base.iter().chain(std::iter::once(&info.id)) {
            let packed: String = st.query_row([b], |r| r.get(0))?;
            let packed: Packed = serde_json::from_str(&packed).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
            })?;
            for slot in packed {
                let at = |i: usize| slot.get(i).copied().flatten();
                if let Some(name) = at(0) {
                    slots.insert(name, (at(1), at(2)));
                }
            }
        }
        let wanted = slots.values().filter_map(|(e, _)| *e).collect();
        let plain = (slots.values())
            .filter_map(|(e, third)| e.filter(|_| *third == Some(1)))
            .collect();
        let mut left_out = BTreeMap::new();
        let out: Vec<(i64, i64)> = slots
            .iter()
            .filter(|(_, (e, _))| e.is_none())
            .map(|(n, (_, r))| (*n, r.unwrap_or(0)))
            .collect();
        if !out.is_empty() {
            let mut names = tx.prepare_cached("SELECT qualified_name FROM name WHERE id = ?1")?;
            let mut reasons = tx.prepare_cached("SELECT text FROM reason WHERE id = ?1")?;
            for (name, reason) in out {
                let q: String = names.query_row([name], |r| r.get(0))?;
                let why: Option<String> = reasons.query_row([reason], |r| r.get(0)).optional()?;
                left_out.insert(q, LeftOut::parse(&why.unwrap_or_default()));
            }
        }
        Ok(BundleSlots {
            left_out,
            wanted,
            plain,
        })
    }

    /// The entries of a bundle with their cards, in one query rather than one per skill
    /// (catalog texts are read per format when a catalog asks: see `card_texts`), in catalog
    /// order. SQLite sorts the rows: a skill is large, and a sort here would move each many times.
    pub(crate) fn entries(
        &self,
        tx: &rusqlite::Transaction<'_>,
        wanted: &BTreeSet<i64>,
        reading: Reading,
    ) -> Result<Vec<Skill>, Error> {
        let bad = corrupt(&self.path);
        let not_artifact = |why: String| Error::NotAnArtifact {
            path: self.path.clone(),
            why,
        };
        let mut skills = Vec::with_capacity(wanted.len());
        let sql = reading.entry_query();
        let mut st = tx.prepare_cached(sql).map_err(&bad)?;
        let ids = id_runs(wanted.iter().copied());
        let it = st
            .query_map([ids], |r| {
                Ok(RawEntry {
                    record: r.get(12)?,
                    triggers: r.get(14)?,
                    card: r.get(16)?,
                    skill: Skill {
                        entry: r.get(17)?,
                        name: r.get(0)?,
                        qualified_name: r.get(1)?,
                        resolved_name: r.get(2)?,
                        category: r.get(3)?,
                        catalog_visible: r.get(4)?,
                        always_on: r.get(5)?,
                        unavailable: r.get(6)?,
                        untrusted: r.get(7)?,
                        prompt_prefix: r.get(8)?,
                        prompt_body: r.get(9)?,
                        prompt_suffix: r.get(10)?,
                        prompt_tokens: r.get(11)?,
                        description: r.get(13)?,
                        triggers: Vec::new(),
                        card: r.get(16)?,
                        body_hash: r.get(15)?,
                        body: std::sync::OnceLock::new(),
                        record: Record::default(),
                        conditions: Vec::new(),
                    },
                })
            })
            .map_err(&bad)?;
        for row in it {
            let RawEntry {
                record,
                triggers,
                card,
                mut skill,
            } = row.map_err(&bad)?;
            // The base's entry for a name this bundle overrides is not part of it.
            if !wanted.contains(&skill.entry) {
                continue;
            }
            let entry = skill.entry;
            let record: Record = reading
                .record(&record)
                .map_err(|e| not_artifact(format!("entry {entry} has a bad record: {e}")))?;
            let triggers: Vec<String> = serde_json::from_str(&triggers)
                .map_err(|e| not_artifact(format!("card {card} has bad triggers: {e}")))?;
            skill.conditions = record.conditions.iter().map(Condition::compile).collect();
            skill.record = record;
            skill.triggers = triggers;
            skills.push(skill);
        }
        Ok(skills)
    }

    pub(crate) fn load(&self, info: &BundleInfo, reading: Reading) -> Result<Bundle, Error> {
        let bad = corrupt(&self.path);
        let mut conn = self.conn.lock().expect("lock");
        // One read transaction: the bundle comes whole from one version of the file.
        let tx = conn.transaction().map_err(&bad)?;
        let BundleSlots {
            left_out,
            wanted,
            plain,
        } = Self::slots(&tx, info).map_err(&bad)?;
        let skills = self.entries(&tx, &wanted, reading)?;
        tx.commit().map_err(&bad)?;
        let (by_name, by_qualified, augmented_by) = match reading {
            Reading::Full => index_skills(&skills, &plain),
            Reading::CatalogText => Default::default(),
        };
        Ok(Bundle {
            info: info.clone(),
            fragments: RwLock::new(HashMap::new()),
            route_index: Default::default(),
            dense: Default::default(),
            client: info.client.clone(),
            locale: info.locale.clone(),
            tier: info.tier.clone(),
            skills,
            left_out,
            by_name,
            by_qualified,
            augmented_by,
        })
    }

    /// The qualified names a consumer's catalogs leave out (`None`: no consumer), or the
    /// request error naming the consumers that exist.
    pub fn hidden_for(&self, consumer: Option<&str>) -> Result<Option<&BTreeSet<String>>, Error> {
        match consumer {
            None => Ok(None),
            Some(c) => self.consumers.get(c).map(Some).ok_or_else(|| {
                Error::Request(if self.consumers.is_empty() {
                    format!("unknown consumer `{c}`: this artifact declares no consumers")
                } else {
                    format!(
                        "unknown consumer `{c}`; consumers: {}",
                        self.consumers
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
            }),
        }
    }
}

/// What a bundle's slots say.
pub(crate) struct BundleSlots {
    /// The left-out qualified names with their reasons.
    left_out: BTreeMap<String, LeftOut>,
    /// The entry ids.
    wanted: BTreeSet<i64>,
    /// The entries the bundle also finds by their plain name (the build decided which).
    plain: BTreeSet<i64>,
}

impl Artifact {
    pub(crate) const BUNDLE_COLUMNS: &'static str =
        "SELECT id, client, locale, tier, base, catalog_level FROM bundle";

    pub(crate) fn bundle_info(r: &rusqlite::Row<'_>) -> rusqlite::Result<BundleInfo> {
        Ok(BundleInfo {
            id: r.get(0)?,
            client: r.get(1)?,
            locale: r.get(2)?,
            tier: r.get(3)?,
            base: r.get(4)?,
            level: r.get(5)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each id is read once, whatever the order or repeats it is given in: a row read twice
    /// would be a skill listed twice.
    #[test]
    fn ids_become_ascending_runs_of_consecutive_ids() {
        assert_eq!(id_runs([]), "[]");
        assert_eq!(id_runs([4]), "[[4,4]]");
        assert_eq!(id_runs([1, 2, 3, 5, 7, 8]), "[[1,3],[5,5],[7,8]]");
        assert_eq!(id_runs([8, 2, 7, 1, 3, 2, 5]), "[[1,3],[5,5],[7,8]]");
        assert_eq!(
            id_runs([i64::MAX, i64::MAX - 1]),
            format!("[[{},{}]]", i64::MAX - 1, i64::MAX)
        );
        assert_eq!(id_runs([-2, -1, 0]), "[[-2,0]]");
    }

    #[test]
    fn edit_distance_counts_characters_added_removed_or_changed() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("client-000", "client-0.example"), 8);
        assert_eq!(edit_distance("ü", "u"), 1);
        assert_eq!(edit_distance("abc", ""), 3);
    }

    /// Up to twenty clients are all named; past twenty, the twenty nearest the asked name
    /// (then by name), in name order. The Python, TypeScript and Java runtimes' tests check
    /// the same two lines.
    #[test]
    fn an_unknown_client_names_the_clients_or_the_twenty_nearest() {
        let few = BTreeSet::from(["b.example", "a.example"]);
        assert_eq!(name_clients("c", few), "clients: a.example, b.example");
        let names: Vec<String> = (0..500).map(|i| format!("client-{i}.example")).collect();
        let many: BTreeSet<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(
            name_clients("client-42.exmple", many),
            "clients (the 20 nearest of 500): client-12.example, client-142.example, \
             client-2.example, client-22.example, client-242.example, client-32.example, \
             client-342.example, client-4.example, client-40.example, client-402.example, \
             client-41.example, client-412.example, client-42.example, client-420.example, \
             client-421.example, client-422.example, client-423.example, client-424.example, \
             client-425.example, client-426.example"
        );
    }
}
