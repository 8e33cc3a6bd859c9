//! `skillc diff`: what changed between two artifacts, per client, locale and tier: skills
//! added, removed or changed (and in which fields), and which catalogs changed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;
use skillc_runtime::{Artifact, StoredEntry};

/// Changes of one bundle.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BundleDiff {
    /// Client (`''` for global).
    pub client: String,
    /// Locale of the bundle.
    pub locale: String,
    /// Tier of the bundle.
    pub tier: String,
    /// Skills now in the bundle.
    pub added: Vec<String>,
    /// Skills no longer in the bundle.
    pub removed: Vec<String>,
    /// Skills whose content changed, with the fields that did.
    pub changed: Vec<ChangedSkill>,
    /// Catalogs whose text changed: `<format>` or `<format>@<consumer>`.
    pub catalogs: Vec<String>,
}

/// A changed skill.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangedSkill {
    /// Qualified name.
    pub name: String,
    /// Fields that changed (`body`, `description`, `resolved`, record fields, …).
    pub fields: Vec<String>,
}

/// The whole comparison.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diff {
    /// Bundles only in the new artifact.
    pub added_bundles: Vec<String>,
    /// Bundles only in the old artifact.
    pub removed_bundles: Vec<String>,
    /// Bundles present in both that changed.
    pub bundles: Vec<BundleDiff>,
    /// Bundles present in both that did not change.
    pub unchanged: usize,
}

fn label(client: &str, locale: &str, tier: &str) -> String {
    let who = if client.is_empty() { "global" } else { client };
    format!("{who}/{locale}/{tier}")
}

fn fields(old: &skillc_runtime::Skill, new: &skillc_runtime::Skill) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |name: &str, same: bool| {
        if !same {
            out.push(name.to_string());
        }
    };
    check("resolved", old.resolved_name == new.resolved_name);
    check("description", old.description == new.description);
    check("triggers", old.triggers == new.triggers);
    // Bodies are content-addressed: equal hashes, equal text (and nothing is inflated).
    check("body", old.body_hash == new.body_hash);
    check(
        "prompt",
        old.prompt_prefix == new.prompt_prefix && old.prompt_suffix == new.prompt_suffix,
    );
    check("availability", old.unavailable == new.unavailable);
    check(
        "catalog_visible",
        old.catalog_visible == new.catalog_visible,
    );
    check("always_on", old.always_on == new.always_on);
    let (a, b) = (
        serde_json::to_value(&old.record).unwrap_or_default(),
        serde_json::to_value(&new.record).unwrap_or_default(),
    );
    if let (Some(a), Some(b)) = (a.as_object(), b.as_object()) {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for k in keys {
            if k != "resolved_file" {
                check(k, a.get(k) == b.get(k));
            }
        }
    }
    out
}

/// Compares two artifacts.
///
/// Work and memory stay proportional to what changed, not to the number of bundles: every
/// entry of each artifact is summarised once (a digest of its content, card and catalog texts),
/// each bundle is compared name by name from those digests (a client bundle only where it or
/// its base differs), and only skills whose content differs are read in full, once per pair of
/// entries. The reference workload's 15,030 bundles compare in about a second.
pub fn diff(old: &Artifact, new: &Artifact) -> Result<Diff, skillc_runtime::Error> {
    let (a, b) = (Side::read(old)?, Side::read(new)?);
    let before: BTreeMap<(String, String, String), i64> = a.labels();
    let after: BTreeMap<(String, String, String), i64> = b.labels();
    let mut d = Diff {
        added_bundles: after
            .keys()
            .filter(|k| !before.contains_key(*k))
            .map(|(c, l, t)| label(c, l, t))
            .collect(),
        removed_bundles: before
            .keys()
            .filter(|k| !after.contains_key(*k))
            .map(|(c, l, t)| label(c, l, t))
            .collect(),
        ..Diff::default()
    };
    let consumers: Vec<Option<String>> = std::iter::once(None)
        .chain(
            b.consumers
                .keys()
                .filter(|c| a.consumers.contains_key(*c))
                .map(|c| Some(c.clone())),
        )
        .collect();
    // Categories whose markdown header differs: a catalog showing one of them changes.
    let headers: BTreeSet<String> = a
        .headers
        .keys()
        .chain(b.headers.keys())
        .filter(|c| a.headers.get(*c) != b.headers.get(*c))
        .cloned()
        .collect();
    let mut pairs = Pairs::default();
    let mut base_changes: HashMap<(i64, i64), BTreeSet<String>> = HashMap::new();
    for (key, &ia) in &before {
        let Some(&ib) = after.get(key) else { continue };
        let (ba, bb) = (&a.bundles[&ia], &b.bundles[&ib]);
        let names = candidates(&a, &b, ba, bb, &mut base_changes);
        let mut bd = BundleDiff {
            client: key.0.clone(),
            locale: key.1.clone(),
            tier: key.2.clone(),
            ..BundleDiff::default()
        };
        for q in &names {
            match (a.entry_of(ba, q), b.entry_of(bb, q)) {
                (None, Some(_)) => bd.added.push(q.clone()),
                (Some(_), None) => bd.removed.push(q.clone()),
                (Some(x), Some(y)) if a.entries[&x].content != b.entries[&y].content => {
                    let fields = pairs.fields(old, new, x, y)?;
                    if !fields.is_empty() {
                        bd.changed.push(ChangedSkill {
                            name: q.clone(),
                            fields,
                        });
                    }
                }
                _ => {}
            }
        }
        bd.catalogs = catalog_changes(&a, &b, ba, bb, &names, &consumers, &headers);
        if bd.added.is_empty()
            && bd.removed.is_empty()
            && bd.changed.is_empty()
            && bd.catalogs.is_empty()
        {
            d.unchanged += 1;
        } else {
            d.bundles.push(bd);
        }
    }
    Ok(d)
}

/// The names whose entry may differ between two versions of a bundle: every name of a bundle
/// without a base; else its own slots, and the names that differ between the two bases.
fn candidates(
    a: &Side,
    b: &Side,
    ba: &BundleRows,
    bb: &BundleRows,
    base_changes: &mut HashMap<(i64, i64), BTreeSet<String>>,
) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = ba.own.keys().chain(bb.own.keys()).cloned().collect();
    match (ba.base, bb.base) {
        (Some(x), Some(y)) => {
            let changed = base_changes.entry((x, y)).or_insert_with(|| {
                let (ga, gb) = (&a.bundles[&x], &b.bundles[&y]);
                ga.own
                    .keys()
                    .chain(gb.own.keys())
                    .filter(|q| {
                        let (ea, eb) = (a.entry_of(ga, q), b.entry_of(gb, q));
                        match (ea, eb) {
                            (Some(i), Some(j)) => a.entries[&i].content != b.entries[&j].content,
                            (None, None) => false,
                            _ => true,
                        }
                    })
                    .cloned()
                    .collect()
            });
            names.extend(changed.iter().cloned());
        }
        // One side has a base and the other not (or neither): compare every name.
        (x, y) => {
            for (side, rows, base) in [(a, ba, x), (b, bb, y)] {
                if let Some(base) = base {
                    names.extend(side.bundles[&base].own.keys().cloned());
                }
                names.extend(rows.own.keys().cloned());
            }
        }
    }
    names
}

/// Whether each catalog of a bundle (per consumer and format) changed: a name whose catalog
/// line differs (shown or not, its text, its place), the bundle's budget level, the number of
/// triggers shown, or (markdown) the header of a category it shows.
fn catalog_changes(
    a: &Side,
    b: &Side,
    ba: &BundleRows,
    bb: &BundleRows,
    names: &BTreeSet<String>,
    consumers: &[Option<String>],
    headers: &BTreeSet<String>,
) -> Vec<String> {
    let mut changed = Vec::new();
    // What changes every line (the budget level, the triggers shown, a consumer's filter)
    // is looked at over every name of the bundle; otherwise only where an entry differs.
    let every = |c: Option<&str>| {
        ba.level != bb.level
            || a.max_triggers != b.max_triggers
            || c.is_some_and(|c| a.consumers.get(c) != b.consumers.get(c))
    };
    let mut all: Option<BTreeSet<String>> = None;
    for consumer in consumers {
        let scope = if every(consumer.as_deref()) {
            all.get_or_insert_with(|| a.names(ba).into_iter().chain(b.names(bb)).collect())
        } else {
            names
        };
        for format in ["xml", "markdown", "list", "json"] {
            let differs = scope.iter().any(|q| {
                a.line(ba, q, consumer.as_deref(), format)
                    != b.line(bb, q, consumer.as_deref(), format)
            }) || (format == "markdown"
                && !headers.is_empty()
                && a.shows_category(b, ba, bb, consumer.as_deref(), headers));
            if differs {
                changed.push(match consumer {
                    Some(c) => format!("{format}@{c}"),
                    None => format.to_string(),
                });
            }
        }
    }
    changed
}

/// Skills read in full, and their field-level differences, once per pair of entries.
#[derive(Default)]
struct Pairs {
    fields: HashMap<(i64, i64), Vec<String>>,
}

impl Pairs {
    fn fields(
        &mut self,
        old: &Artifact,
        new: &Artifact,
        x: i64,
        y: i64,
    ) -> Result<Vec<String>, skillc_runtime::Error> {
        if let Some(f) = self.fields.get(&(x, y)) {
            return Ok(f.clone());
        }
        let (sa, sb) = (old.skill_by_entry(x)?, new.skill_by_entry(y)?);
        let f = fields(&sa, &sb);
        self.fields.insert((x, y), f.clone());
        Ok(f)
    }
}

/// Card → (level, format) → digest of its catalog text.
type Fragments = HashMap<i64, HashMap<(String, String), String>>;

/// One entry, summarised.
struct EntryRow {
    /// Digest of everything about it: fields, card, every catalog text.
    content: String,
    qualified_name: String,
    category: String,
    /// Shown in a catalog with no run-time context (visible, no condition).
    listed: bool,
    /// Digest of what a catalog line shows besides the format's text (name, description, the
    /// triggers shown, the sort key, the category).
    line: String,
    card: i64,
}

/// One bundle's own slots, by qualified name (`None`: left out).
struct BundleRows {
    base: Option<i64>,
    level: String,
    own: HashMap<String, Option<i64>>,
}

/// What an artifact holds, summarised for comparison.
struct Side {
    entries: HashMap<i64, EntryRow>,
    fragments: Fragments,
    bundles: HashMap<i64, BundleRows>,
    labels: Vec<((String, String, String), i64)>,
    consumers: BTreeMap<String, BTreeSet<String>>,
    headers: HashMap<String, String>,
    max_triggers: usize,
}

fn digest(parts: &[&str]) -> String {
    let mut all = String::new();
    for p in parts {
        all.push_str(p);
        all.push('\0');
    }
    crate::digest::hash(all.as_bytes())
}

impl Side {
    fn read(artifact: &Artifact) -> Result<Side, skillc_runtime::Error> {
        let max_triggers = artifact
            .manifest("max_triggers")
            .and_then(|v| v.parse().ok())
            .unwrap_or(5);
        let mut fragments: Fragments = HashMap::new();
        artifact.each_stored_fragment(|f| {
            fragments
                .entry(f.card)
                .or_default()
                .insert((f.level, f.format), digest(&[&f.text]));
        })?;
        let mut entries = HashMap::new();
        artifact.each_stored_entry(|e| {
            entries.insert(e.id, summarise(e, &fragments, max_triggers));
        })?;
        let (mut bundles, mut labels) = (HashMap::new(), Vec::new());
        artifact.each_stored_bundle(|b| {
            let own = b.slots.into_iter().collect();
            labels.push(((b.client, b.locale, b.tier), b.id));
            bundles.insert(
                b.id,
                BundleRows {
                    base: b.base,
                    level: b.level,
                    own,
                },
            );
        })?;
        let consumers = artifact
            .consumers()
            .into_iter()
            .map(|c| {
                let hidden = artifact.hidden_for(Some(c)).ok().flatten().cloned();
                (c.to_string(), hidden.unwrap_or_default())
            })
            .collect();
        let headers = artifact
            .categories
            .iter()
            .map(|(id, c)| (id.clone(), c.catalog_header.0.clone()))
            .collect();
        Ok(Side {
            entries,
            fragments,
            bundles,
            labels,
            consumers,
            headers,
            max_triggers,
        })
    }

    fn labels(&self) -> BTreeMap<(String, String, String), i64> {
        self.labels.iter().cloned().collect()
    }

    /// The entry a bundle holds under a qualified name: its own slot, else its base's.
    fn entry_of(&self, rows: &BundleRows, q: &str) -> Option<i64> {
        match rows.own.get(q) {
            Some(slot) => *slot,
            None => rows
                .base
                .and_then(|b| self.bundles[&b].own.get(q).copied().flatten()),
        }
    }

    /// What a catalog of this format shows for a name: nothing, or its line (the digest of
    /// what every format shows, and of this format's text).
    fn line(
        &self,
        rows: &BundleRows,
        q: &str,
        consumer: Option<&str>,
        format: &str,
    ) -> Option<(&str, &str)> {
        let e = &self.entries[&self.entry_of(rows, q)?];
        let hidden = consumer.is_some_and(|c| {
            self.consumers
                .get(c)
                .is_some_and(|h| h.contains(&e.qualified_name))
        });
        if !e.listed || hidden {
            return None;
        }
        if format == "json" {
            return Some((&e.line, ""));
        }
        let texts = self.fragments.get(&e.card);
        let text = texts.and_then(|t| {
            t.get(&(rows.level.clone(), format.to_string()))
                .or_else(|| t.get(&(String::new(), format.to_string())))
        });
        Some((&e.line, text.map_or("", String::as_str)))
    }

    /// Every name a bundle holds or leaves out, its base's included.
    fn names(&self, rows: &BundleRows) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = rows.own.keys().cloned().collect();
        if let Some(base) = rows.base {
            names.extend(self.bundles[&base].own.keys().cloned());
        }
        names
    }

    /// Whether either side's catalog of a bundle shows a skill of one of `categories`.
    fn shows_category(
        &self,
        other: &Side,
        ba: &BundleRows,
        bb: &BundleRows,
        consumer: Option<&str>,
        categories: &BTreeSet<String>,
    ) -> bool {
        let shows = |side: &Side, rows: &BundleRows| {
            side.names(rows).iter().any(|q| {
                side.line(rows, q, consumer, "json").is_some()
                    && side
                        .entry_of(rows, q)
                        .is_some_and(|e| categories.contains(&side.entries[&e].category))
            })
        };
        shows(self, ba) || shows(other, bb)
    }
}

/// An entry summarised: a digest of all of it (its fields, card and every catalog text) and
/// of what a catalog line shows.
fn summarise(e: StoredEntry, fragments: &Fragments, max_triggers: usize) -> EntryRow {
    let r = &e.row;
    let flag = |b: bool| if b { "1" } else { "0" };
    // `\u{1}` stands for no reason: an empty reason is not the same as none.
    let unavailable = r.unavailable.as_deref().unwrap_or("\u{1}");
    let card = r.card as i64 + 1;
    let mut parts: Vec<&str> = vec![
        &r.name,
        &r.qualified_name,
        &r.resolved_name,
        &r.category,
        &r.sort_key,
        flag(r.catalog_visible),
        flag(r.always_on),
        flag(r.hidden),
        unavailable,
        flag(r.untrusted),
        &r.body,
        &r.prompt_prefix,
        flag(r.prompt_body),
        &r.prompt_suffix,
        &r.record,
        &e.description,
        &e.triggers,
        &e.when_to_use,
        &e.location,
    ];
    let mut texts: Vec<(&(String, String), &String)> = fragments
        .get(&card)
        .map(|m| m.iter().collect())
        .unwrap_or_default();
    texts.sort();
    for ((level, format), d) in &texts {
        parts.extend([level.as_str(), format.as_str(), d.as_str()]);
    }
    let triggers: Vec<String> = serde_json::from_str(&e.triggers).unwrap_or_default();
    let shown = serde_json::to_string(&triggers.iter().take(max_triggers).collect::<Vec<_>>())
        .unwrap_or_default();
    let line = digest(&[
        &r.name,
        &r.qualified_name,
        &r.category,
        &r.sort_key,
        &e.description,
        &shown,
    ]);
    let content = digest(&parts);
    let listed = r.catalog_visible && e.conditions == 0;
    let row = e.row;
    EntryRow {
        content,
        listed,
        line,
        card,
        qualified_name: row.qualified_name,
        category: row.category,
    }
}

/// The diff as review text.
pub fn render_text(d: &Diff) -> String {
    let mut out = String::new();
    for b in &d.added_bundles {
        out.push_str(&format!("+ bundle {b}\n"));
    }
    for b in &d.removed_bundles {
        out.push_str(&format!("- bundle {b}\n"));
    }
    for b in &d.bundles {
        out.push_str(&format!("{}\n", label(&b.client, &b.locale, &b.tier)));
        for s in &b.added {
            out.push_str(&format!("  + {s}\n"));
        }
        for s in &b.removed {
            out.push_str(&format!("  - {s}\n"));
        }
        for s in &b.changed {
            out.push_str(&format!("  ~ {}: {}\n", s.name, s.fields.join(", ")));
        }
        if !b.catalogs.is_empty() {
            out.push_str(&format!("  catalogs changed: {}\n", b.catalogs.join(", ")));
        }
    }
    out.push_str(&format!(
        "{} bundles changed, {} unchanged, {} added, {} removed\n",
        d.bundles.len(),
        d.unchanged,
        d.added_bundles.len(),
        d.removed_bundles.len()
    ));
    out
}
