//! The artifact's rows as stored, for tools that compare artifacts (`skillc diff`) rather
//! than answer requests: every entry, card fragment and bundle, each handed over as it is read
//! (nothing is kept).

use std::collections::HashMap;

use crate::{corrupt, Artifact, Error};

/// An entry row with its card's catalog fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// `entry.id`.
    pub id: i64,
    /// `card.id`.
    pub card: i64,
    /// Selectable name.
    pub name: String,
    /// `<namespace>.<name>`.
    pub qualified_name: String,
    /// The skill whose content is used.
    pub resolved_name: String,
    /// Category (`''` when none).
    pub category: String,
    /// Catalog order.
    pub sort_key: String,
    /// Shown in catalogs.
    pub catalog_visible: bool,
    /// Injected when its conditions hold.
    pub always_on: bool,
    /// Hidden from catalogs.
    pub hidden: bool,
    /// Why unavailable, when it is.
    pub unavailable: Option<String>,
    /// Prompt-only code.
    pub untrusted: bool,
    /// Blob hash of the body.
    pub body: String,
    /// Prompt text before the body.
    pub prompt_prefix: String,
    /// Whether the body goes between prefix and suffix.
    pub prompt_body: bool,
    /// Prompt text after the body.
    pub prompt_suffix: String,
    /// The run-time fields, as the JSON stored.
    pub record: String,
    /// Number of run-time conditions in the record.
    pub conditions: usize,
    /// The card's description.
    pub description: String,
    /// The card's trigger examples, a JSON list.
    pub triggers: String,
    /// The card's `when_to_use`, a JSON list.
    pub when_to_use: String,
    /// The card's SKILL.md.
    pub location: String,
}

/// A card's catalog text in one format at one budget level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFragment {
    /// `card.id`.
    pub card: i64,
    /// Budget level (`''` is full).
    pub level: String,
    /// `xml`, `markdown` or `list`.
    pub format: String,
    /// The text.
    pub text: String,
}

/// A bundle row with its own slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBundle {
    /// `bundle.id`.
    pub id: i64,
    /// Client id, `''` for the global bundle.
    pub client: String,
    /// Locale of the bundle.
    pub locale: String,
    /// Tier of the bundle.
    pub tier: String,
    /// The base bundle whose slots apply unless this one has its own.
    pub base: Option<i64>,
    /// Budget level of its card fragments.
    pub level: String,
    /// Its own slots: qualified name and entry id (`None`: left out).
    pub slots: Vec<(String, Option<i64>)>,
}

impl Artifact {
    /// Hands `each` every entry row, in no particular order.
    pub fn each_stored_entry(&self, mut each: impl FnMut(StoredEntry)) -> Result<(), Error> {
        let conn = self.conn.lock().expect("lock");
        let bad = corrupt(&self.path);
        let mut st = conn
            .prepare(
                "SELECT e.id, e.card, e.name, e.qualified_name, e.resolved_name, e.category,
                        e.sort_key, e.catalog_visible, e.always_on, e.hidden, e.unavailable,
                        e.untrusted, e.body, e.prompt_prefix, e.prompt_body, e.prompt_suffix,
                        e.record, coalesce(json_array_length(e.record, '$.conditions'), 0),
                        c.description, c.triggers, c.when_to_use, c.location
                 FROM entry e JOIN card c ON c.id = e.card",
            )
            .map_err(&bad)?;
        let rows = st
            .query_map([], |r| {
                Ok(StoredEntry {
                    id: r.get(0)?,
                    card: r.get(1)?,
                    name: r.get(2)?,
                    qualified_name: r.get(3)?,
                    resolved_name: r.get(4)?,
                    category: r.get(5)?,
                    sort_key: r.get(6)?,
                    catalog_visible: r.get(7)?,
                    always_on: r.get(8)?,
                    hidden: r.get(9)?,
                    unavailable: r.get(10)?,
                    untrusted: r.get(11)?,
                    body: r.get(12)?,
                    prompt_prefix: r.get(13)?,
                    prompt_body: r.get(14)?,
                    prompt_suffix: r.get(15)?,
                    record: r.get(16)?,
                    conditions: r.get::<_, i64>(17)? as usize,
                    description: r.get(18)?,
                    triggers: r.get(19)?,
                    when_to_use: r.get(20)?,
                    location: r.get(21)?,
                })
            })
            .map_err(&bad)?;
        for row in rows {
            each(row.map_err(&bad)?);
        }
        Ok(())
    }

    /// Hands `each` every card fragment, in no particular order.
    pub fn each_stored_fragment(&self, mut each: impl FnMut(StoredFragment)) -> Result<(), Error> {
        let conn = self.conn.lock().expect("lock");
        let bad = corrupt(&self.path);
        let mut st = conn
            .prepare("SELECT card, level, format, text FROM card_fragment")
            .map_err(&bad)?;
        let rows = st
            .query_map([], |r| {
                Ok(StoredFragment {
                    card: r.get(0)?,
                    level: r.get(1)?,
                    format: r.get(2)?,
                    text: r.get(3)?,
                })
            })
            .map_err(&bad)?;
        for row in rows {
            each(row.map_err(&bad)?);
        }
        Ok(())
    }

    /// Hands `each` every bundle with its own slots, in id order.
    pub fn each_stored_bundle(&self, mut each: impl FnMut(StoredBundle)) -> Result<(), Error> {
        let conn = self.conn.lock().expect("lock");
        let bad = corrupt(&self.path);
        let names: HashMap<i64, String> = conn
            .prepare("SELECT id, qualified_name FROM name")
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(&bad)?;
        let mut st = conn
            .prepare(
                "SELECT b.id, b.client, b.locale, b.tier, b.base, b.catalog_level, l.slots
                 FROM bundle b JOIN slot_list l ON l.id = b.slots ORDER BY b.id",
            )
            .map_err(&bad)?;
        let rows = st
            .query_map([], |r| {
                let slots: String = r.get(6)?;
                Ok((
                    StoredBundle {
                        id: r.get(0)?,
                        client: r.get(1)?,
                        locale: r.get(2)?,
                        tier: r.get(3)?,
                        base: r.get(4)?,
                        level: r.get(5)?,
                        slots: Vec::new(),
                    },
                    slots,
                ))
            })
            .map_err(&bad)?;
        for row in rows {
            let (mut bundle, slots) = row.map_err(&bad)?;
            // `[[name, entry], [name, null, reason], …]` by the ids of `name` and `entry`.
            let packed: Vec<Vec<Option<i64>>> =
                serde_json::from_str(&slots).map_err(|e| Error::NotAnArtifact {
                    path: self.path.clone(),
                    why: format!("bundle {}: slots: {e}", bundle.id),
                })?;
            bundle.slots = packed
                .iter()
                .filter_map(|s| {
                    let name = names.get(&s.first().copied().flatten()?)?;
                    Some((name.clone(), s.get(1).copied().flatten()))
                })
                .collect();
            each(bundle);
        }
        Ok(())
    }
}
