//! The artifact's rows as stored, for tools that compare artifacts (`skillc diff`) rather
//! than answer requests: every entry, card fragment and bundle, each handed over as it is read
//! (nothing is kept).

use std::collections::HashMap;

use crate::schema::EntryRow;
use crate::{corrupt, Artifact, Error};

/// An entry row with its card's catalog fields.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEntry {
    /// `entry.id`.
    pub id: i64,
    /// The row as the writer laid it out (`card` the 0-based index of its card).
    pub row: EntryRow,
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
        self.each_row(
            "SELECT e.id, e.card, e.name, e.qualified_name, e.resolved_name, e.category,
                    e.sort_key, e.catalog_visible, e.always_on, e.hidden, e.unavailable,
                    e.untrusted, lower(hex(e.body)), e.body_tokens, e.prompt_prefix, e.prompt_body,
                    e.prompt_suffix, e.prompt_tokens, e.record,
                    coalesce(json_array_length(e.record, '$.conditions'), 0),
                    c.description, c.triggers, c.when_to_use, c.location
             FROM entry e JOIN card c ON c.id = e.card",
            |r| {
                let row = EntryRow {
                    card: (r.get::<_, i64>(1)? - 1) as usize,
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
                    body_tokens: r.get(13)?,
                    prompt_prefix: r.get(14)?,
                    prompt_body: r.get(15)?,
                    prompt_suffix: r.get(16)?,
                    prompt_tokens: r.get(17)?,
                    record: r.get(18)?,
                };
                Ok(StoredEntry {
                    id: r.get(0)?,
                    row,
                    conditions: r.get::<_, i64>(19)? as usize,
                    description: r.get(20)?,
                    triggers: r.get(21)?,
                    when_to_use: r.get(22)?,
                    location: r.get(23)?,
                })
            },
            |e| {
                each(e);
                Ok(())
            },
        )
    }

    /// Hands `each` every card fragment, in no particular order.
    pub fn each_stored_fragment(&self, mut each: impl FnMut(StoredFragment)) -> Result<(), Error> {
        self.each_row(
            "SELECT card, level, format, text FROM card_fragment",
            |r| {
                Ok(StoredFragment {
                    card: r.get(0)?,
                    level: r.get(1)?,
                    format: r.get(2)?,
                    text: r.get(3)?,
                })
            },
            |f| {
                each(f);
                Ok(())
            },
        )
    }

    /// Hands `each` every bundle with its own slots, in id order.
    pub fn each_stored_bundle(&self, mut each: impl FnMut(StoredBundle)) -> Result<(), Error> {
        let mut names: HashMap<i64, String> = HashMap::new();
        self.each_row(
            "SELECT id, qualified_name FROM name",
            |r| Ok((r.get(0)?, r.get(1)?)),
            |(id, name)| {
                names.insert(id, name);
                Ok(())
            },
        )?;
        self.each_row(
            "SELECT b.id, b.client, b.locale, b.tier, b.base, b.catalog_level, l.slots
             FROM bundle b JOIN slot_list l ON l.id = b.slots ORDER BY b.id",
            |r| {
                let bundle = StoredBundle {
                    id: r.get(0)?,
                    client: r.get(1)?,
                    locale: r.get(2)?,
                    tier: r.get(3)?,
                    base: r.get(4)?,
                    level: r.get(5)?,
                    slots: Vec::new(),
                };
                Ok((bundle, r.get::<_, String>(6)?))
            },
            |(mut bundle, slots)| {
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
                Ok(())
            },
        )
    }

    /// Runs `sql`, reads each row with `read` and hands it to `each`, one at a time.
    fn each_row<T>(
        &self,
        sql: &str,
        read: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
        mut each: impl FnMut(T) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let conn = self.conn.lock().expect("lock");
        let bad = corrupt(&self.path);
        let mut st = conn.prepare(sql).map_err(&bad)?;
        for row in st.query_map([], read).map_err(&bad)? {
            each(row.map_err(&bad)?)?;
        }
        Ok(())
    }
}
