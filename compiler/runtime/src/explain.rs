//! Why a skill is, or is not, in a bundle (`skillc explain`): the facts the build recorded
//! (toggles, the variant and its `when`, locale, tier body, catalog visibility), as data and as
//! sentences a content writer reads.

use rusqlite::OptionalExtension;
use serde::Serialize;

use crate::{corrupt, Artifact, Bundle, BundleRef, Error, Record, Skill};

/// What `skillc explain` reports: why a skill is in a bundle, or why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// The selectable name.
    pub name: String,
    /// SKILL.md of the content used (`None` when the skill is left out).
    pub resolved_file: Option<String>,
    /// The variant whose content is used, if one is.
    pub variant: Option<String>,
    /// The same facts as sentences, in the order resolution applies them.
    pub why: Vec<String>,
    /// Toggled on (or not off).
    pub enabled: bool,
    /// What decided `enabled`: `toggle`, `default_enabled` or `default`.
    pub enabled_by: &'static str,
    /// Shown in the bundle's catalog (for the consumer, when one is given).
    pub in_catalog: bool,
    /// What keeps it out of the catalog: a consumer's name, `hidden_from_llm`,
    /// `category:<id>`, `namespace:internal` or `unavailable`.
    pub hidden_by: Option<String>,
    /// The locale of the content used: a `SKILL.<locale>.md`, or the workspace's default.
    pub locale_used: Option<String>,
    /// The bundle's tier.
    pub tier: String,
    /// What it imports (qualified names).
    pub imports: Vec<String>,
    /// Its run-time conditions, in words.
    pub conditions: Vec<String>,
    /// The Claude Code plugin it comes from, when it is a plugin's skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<crate::Plugin>,
    /// The outside repository it comes from, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<crate::External>,
}

/// Catalog facts the loaded bundle does not keep.
struct Stored {
    location: String,
    hidden: bool,
    category_hidden: bool,
}

fn bundle_words(b: &Bundle) -> String {
    crate::bundle_label(&b.client, &b.locale, &b.tier)
}

impl Artifact {
    /// Why `name` is, or is not, in a bundle, for a consumer.
    pub fn explain(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        name: &str,
    ) -> Result<Explanation, Error> {
        let bundle = self.bundle(r)?;
        let hidden = self.hidden_for(consumer)?;
        if let Some(skill) = bundle.find(name) {
            let toggle = self.toggle(&bundle.client, &skill.name)?;
            let stored = self.stored(skill)?;
            let consumer_hides = hidden.is_some_and(|h| h.contains(&skill.qualified_name));
            return Ok(self.present(&bundle, skill, toggle, &stored, consumer, consumer_hides));
        }
        let wanted = name.trim().strip_prefix("skills.").unwrap_or(name.trim());
        let Some((q, reason)) = bundle.left_out(wanted) else {
            // A plain name that several plugins' skills share selects none of them.
            let plugins: Vec<&str> = (bundle.skills.iter())
                .filter(|s| s.name.split_once(':').is_some_and(|(_, p)| p == wanted))
                .map(|s| s.name.as_str())
                .collect();
            if plugins.len() > 1 {
                return Err(Error::Request(format!(
                    "`{wanted}` is the name of a skill in several plugins of {}: {}; name one of them",
                    bundle_words(&bundle),
                    plugins.join(", ")
                )));
            }
            return Err(Error::Request(format!(
                "no skill `{wanted}` in {}",
                bundle_words(&bundle)
            )));
        };
        let short = q.rsplit_once('.').map_or(q, |(_, n)| n);
        let toggle = self.toggle(&bundle.client, short)?;
        let (enabled, enabled_by) = match toggle {
            Some(on) => (on, "toggle"),
            None if reason.code == "disabled" => (false, "default_enabled"),
            None => (true, "default"),
        };
        let words = &reason.words;
        let mut why = vec![format!("Left out of {}: {words}.", bundle_words(&bundle))];
        if enabled && enabled_by == "toggle" {
            why.push(format!(
                "Client {}'s toggle turns it on, but that does not bring it back.",
                bundle.client
            ));
        }
        Ok(Explanation {
            name: short.to_string(),
            resolved_file: None,
            variant: None,
            why,
            enabled,
            enabled_by,
            in_catalog: false,
            hidden_by: None,
            locale_used: None,
            tier: bundle.tier.clone(),
            imports: Vec::new(),
            conditions: Vec::new(),
            plugin: self.plugin_of(short),
            external: None,
        })
    }

    fn present(
        &self,
        bundle: &Bundle,
        skill: &Skill,
        toggle: Option<bool>,
        stored: &Stored,
        consumer: Option<&str>,
        consumer_hides: bool,
    ) -> Explanation {
        let record = &skill.record;
        let mut why = Vec::new();
        let variant = content_lines(bundle, skill, stored, &mut why);
        let plugin = self.plugin_of(&skill.name);
        if let Some(p) = &plugin {
            why.push(plugin_line(p));
        }
        let external = self.external_of(&record.resolved_file);
        if let Some(e) = &external {
            why.push(format!(
                "Brought in from {} at {} (commit {}) into {}/ by skillc.lock; {}.",
                e.git,
                e.rev,
                // A character count: an artifact written by hand may hold any text there.
                e.commit.chars().take(12).collect::<String>(),
                e.into,
                if e.trusted {
                    "its code is trusted (`trust: true`)"
                } else {
                    "its code is prompt-only (untrusted)"
                }
            ));
        }
        let enabled_by = enabled_line(bundle, record, toggle, &mut why);
        let default_locale = self.manifest("default_locale").unwrap_or_default();
        let locale_used = locale_lines(bundle, record, default_locale, &mut why);
        if let Some(u) = &skill.unavailable {
            why.push(format!(
                "Unavailable here: {u}; it is left out of catalogs and prompts."
            ));
        }
        let hidden_by = hidden_by(skill, stored, consumer, consumer_hides);
        catalog_line(
            skill,
            hidden_by.as_deref(),
            consumer,
            consumer_hides,
            &mut why,
        );
        let conditions: Vec<String> = record.conditions.iter().map(|c| c.words()).collect();
        if skill.always_on {
            why.push("Always on: added to every answer prompt whose conditions hold.".to_string());
        }
        if !conditions.is_empty() {
            why.push(format!("Used only when {}.", conditions.join(" and ")));
        }
        composition_lines(record, &mut why);
        Explanation {
            name: skill.name.clone(),
            resolved_file: Some(record.resolved_file.clone()),
            variant,
            why,
            enabled: true,
            enabled_by,
            in_catalog: skill.catalog_visible && hidden_by.is_none(),
            hidden_by,
            locale_used: Some(locale_used),
            tier: bundle.tier.clone(),
            imports: record.imports.clone(),
            conditions,
            plugin,
            external,
        }
    }

    /// The client's explicit toggle of a skill, if it has one.
    fn toggle(&self, client: &str, name: &str) -> Result<Option<bool>, Error> {
        if client.is_empty() {
            return Ok(None);
        }
        let conn = self.conn.lock().expect("lock");
        let toggles: Option<String> = conn
            .query_row("SELECT toggles FROM client WHERE id = ?1", [client], |r| {
                r.get(0)
            })
            .optional()
            .map_err(corrupt(&self.path))?;
        let toggles: std::collections::BTreeMap<String, bool> = match toggles {
            Some(t) => serde_json::from_str(&t).map_err(|e| Error::NotAnArtifact {
                path: self.path.clone(),
                why: format!("client `{client}` has bad toggles: {e}"),
            })?,
            None => Default::default(),
        };
        Ok(toggles.get(name).copied())
    }

    /// The entry's catalog facts: its SKILL.md, `hidden_from_llm`, its category's hiding.
    fn stored(&self, skill: &Skill) -> Result<Stored, Error> {
        let conn = self.conn.lock().expect("lock");
        conn.query_row(
            "SELECT c.location, e.hidden, coalesce(k.hidden, 0)
             FROM entry e JOIN card c ON c.id = e.card
             LEFT JOIN category k ON k.id = e.category
             WHERE e.id = ?1",
            [skill.entry],
            |r| {
                Ok(Stored {
                    location: r.get(0)?,
                    hidden: r.get(1)?,
                    category_hidden: r.get(2)?,
                })
            },
        )
        .map_err(corrupt(&self.path))
    }
}

/// Where a plugin's skill comes from, in words.
fn plugin_line(p: &crate::Plugin) -> String {
    let mut line = format!("From the Claude Code plugin `{}`", p.name);
    if let Some(v) = &p.version {
        line.push_str(&format!(" {v}"));
    }
    if let Some(a) = &p.author {
        line.push_str(&format!(" by {a}"));
    }
    if let Some(d) = &p.description {
        line.push_str(&format!(": {}", d.trim_end_matches('.')));
    }
    line.push('.');
    line
}

/// Whose content is used: the client's own skill, a variant and its `when`, or its own;
/// returns the variant's name.
fn content_lines(
    bundle: &Bundle,
    skill: &Skill,
    stored: &Stored,
    why: &mut Vec<String>,
) -> Option<String> {
    let record = &skill.record;
    let variant = (skill.resolved_name != skill.name).then(|| skill.resolved_name.clone());
    let own_prefix = format!("clients/{}/", bundle.client);
    let own = !bundle.client.is_empty() && stored.location.starts_with(&own_prefix);
    if own {
        why.push(format!(
            "`{}` is client {}'s own skill ({}), which takes the place of any global skill \
             of that name.",
            skill.name, bundle.client, stored.location
        ));
    }
    match &variant {
        Some(v) if record.variant_when.is_empty() => why.push(format!(
            "The variant `{v}` ({}) is used: it has no conditions.",
            record.resolved_file
        )),
        Some(v) => why.push(format!(
            "The variant `{v}` ({}) is used: {}.",
            record.resolved_file,
            record.variant_when.join(" and ")
        )),
        None if own => {}
        None => why.push(format!(
            "Its own content is used ({}).",
            record.resolved_file
        )),
    }
    variant
}

/// What enabled the skill: a toggle, `default_enabled`, or the default.
fn enabled_line(
    bundle: &Bundle,
    record: &Record,
    toggle: Option<bool>,
    why: &mut Vec<String>,
) -> &'static str {
    match toggle {
        Some(_) => {
            why.push(format!(
                "Enabled by client {}'s toggle (clients/{}/client.yaml).",
                bundle.client, bundle.client
            ));
            "toggle"
        }
        None if record.default_enabled == Some(true) => {
            why.push("Enabled by its `default_enabled: true`.".to_string());
            "default_enabled"
        }
        None => {
            why.push(
                "Enabled: skills are on unless a toggle or `default_enabled: false` turns \
                 them off."
                    .to_string(),
            );
            "default"
        }
    }
}

/// Which locale's text and which tier body are used; returns the locale.
fn locale_lines(
    bundle: &Bundle,
    record: &Record,
    default_locale: &str,
    why: &mut Vec<String>,
) -> String {
    let locale_used = match &record.locale_used {
        Some(l) => {
            why.push(format!(
                "Locale {}: the text of SKILL.{l}.md is used.",
                bundle.locale
            ));
            l.clone()
        }
        None => {
            if bundle.locale != default_locale {
                why.push(format!(
                    "Locale {}: no SKILL.{}.md, so the text of SKILL.md (default locale \
                     {default_locale}) is used.",
                    bundle.locale, bundle.locale
                ));
            }
            default_locale.to_string()
        }
    };
    why.push(if record.compact {
        format!("Tier {}: the compact body (compact.md).", bundle.tier)
    } else {
        format!("Tier {}: the full body.", bundle.tier)
    });
    locale_used
}

/// What keeps a skill out of catalogs, if anything.
fn hidden_by(
    skill: &Skill,
    stored: &Stored,
    consumer: Option<&str>,
    consumer_hides: bool,
) -> Option<String> {
    if consumer_hides {
        consumer.map(str::to_string)
    } else if skill.unavailable.is_some() {
        Some("unavailable".to_string())
    } else if stored.hidden {
        Some("hidden_from_llm".to_string())
    } else if stored.category_hidden {
        Some(format!("category:{}", skill.category))
    } else if skill.record.namespace == "internal" {
        Some("namespace:internal".to_string())
    } else {
        None
    }
}

/// Whether and why the skill is in the catalog, in words.
fn catalog_line(
    skill: &Skill,
    hidden_by: Option<&str>,
    consumer: Option<&str>,
    consumer_hides: bool,
    why: &mut Vec<String>,
) {
    match (hidden_by, consumer) {
        (None, Some(c)) => why.push(format!("Shown in consumer {c}'s catalog.")),
        (None, None) => why.push("Shown in the catalog.".to_string()),
        (Some(_), _) if consumer_hides => why.push(format!(
            "Consumer {}'s `disabled` patterns hide it from its catalog.",
            consumer.unwrap_or_default()
        )),
        (Some("hidden_from_llm"), _) => {
            why.push("Not in catalogs: its `hidden_from_llm: true`.".to_string())
        }
        (Some(h), _) if h.starts_with("category:") => why.push(format!(
            "Not in catalogs: its category {} is hidden from the model.",
            skill.category
        )),
        (Some(h), _) if h.starts_with("namespace:") => {
            why.push("Not in catalogs: it is in the internal namespace.".to_string())
        }
        (Some(_), _) => {}
    }
}

/// What the skill brings along or removes when selected.
fn composition_lines(record: &Record, why: &mut Vec<String>) {
    let list = |l: &[String]| l.join(", ");
    if !record.imports.is_empty() {
        why.push(format!(
            "Imports {} (with what they import).",
            list(&record.imports)
        ));
    }
    if !record.dependencies.is_empty() {
        why.push(format!(
            "Brings {} along when selected.",
            list(&record.dependencies)
        ));
    }
    if !record.augments.is_empty() {
        why.push(format!("Goes with {} (augments).", list(&record.augments)));
    }
    if !record.blocks.is_empty() {
        why.push(format!("Removes {} when selected.", list(&record.blocks)));
    }
}
