//! Catalogs: which of a bundle's skills a consumer's catalog shows, and their stored text in
//! each format, cut to the bundle's budget level.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;

use crate::bundle::CardTexts;
use crate::load::Reading;
use crate::{corrupt, Artifact, Bundle, BundleRef, Catalog, CatalogSkill, Context, Error, Format};

/// The stored catalog text of a bundle's skill and its tokens.
pub(crate) fn card_text<'t>(bundle: &Bundle, texts: &'t CardTexts, i: usize) -> (&'t str, u32) {
    texts
        .get(&bundle.skills[i].card)
        .map_or(("", 0), |(t, n)| (t.as_str(), *n))
}

/// The JSON catalog: id, name, description and triggers of each skill.
pub(crate) fn json_text(skills: &[CatalogSkill]) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        id: &'a str,
        name: &'a str,
        description: &'a str,
        triggers: &'a [String],
    }
    let list: Vec<Line<'_>> = skills
        .iter()
        .map(|s| Line {
            id: &s.id,
            name: &s.name,
            description: &s.description,
            triggers: &s.triggers,
        })
        .collect();
    serde_json::to_string(&list).unwrap_or_default()
}

pub(crate) type CatalogKey = (i64, Option<String>, Format, Vec<bool>);

impl Artifact {
    /// Indices of the skills a catalog shows, in order.
    pub(crate) fn catalog_members(
        &self,
        bundle: &Bundle,
        consumer: Option<&str>,
        ctx: &Context,
    ) -> Result<Vec<usize>, Error> {
        let hidden = self.hidden_for(consumer)?;
        Ok(bundle
            .skills
            .iter()
            .enumerate()
            .filter(|(_, s)| s.catalog_visible)
            .filter(|(_, s)| hidden.is_none_or(|h| !h.contains(&s.qualified_name)))
            .filter(|(_, s)| s.conditions_hold(ctx))
            .map(|(i, _)| i)
            .collect())
    }

    /// The catalog of a bundle for a consumer and context, in a format.
    pub fn catalog(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        format: Format,
    ) -> Result<Arc<Catalog>, Error> {
        let info = self.find_bundle(r)?;
        let bundle = self.bundle(r)?;
        let hidden = self.hidden_for(consumer)?;
        // Only the outcome of the conditions matters: cache by it.
        let outcome: Vec<bool> = bundle
            .skills
            .iter()
            .filter(|s| s.catalog_visible && !s.conditions.is_empty())
            .filter(|s| hidden.is_none_or(|h| !h.contains(&s.qualified_name)))
            .map(|s| s.conditions_hold(ctx))
            .collect();
        let key = (info.id, consumer.map(str::to_string), format, outcome);
        if let Some(c) = self.catalogs.read().expect("lock").get(&key) {
            return Ok(c.clone());
        }
        let members = self.catalog_members(&bundle, consumer, ctx)?;
        let texts = self.card_texts(&bundle, format.stored())?;
        let catalog = Arc::new(self.render_catalog(&bundle, consumer, &members, format, &texts));
        self.catalogs
            .write()
            .expect("lock")
            .insert(key, catalog.clone());
        Ok(catalog)
    }

    /// The text of [`Artifact::catalog`] in the xml, markdown or list format, reading only
    /// what that text shows (names, order, conditions and the cards' stored fragments) when
    /// the bundle is not loaded yet: for a process that prints one catalog and ends. The
    /// bundle read this way is not kept (a prompt needs all of it).
    pub fn catalog_text(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        format: Format,
    ) -> Result<String, Error> {
        let info = self.find_bundle(r)?;
        let loaded = self.loaded.contains(info.id);
        if loaded || format == Format::Json {
            return Ok(self.catalog(r, consumer, ctx, format)?.text.clone());
        }
        let bundle = self.load(&info, Reading::CatalogText)?;
        let members = self.catalog_members(&bundle, consumer, ctx)?;
        let texts = self.card_texts(&bundle, format.stored())?;
        Ok(self.catalog_body(&bundle, &members, format, &texts, &[]).0)
    }

    /// The catalog texts of a bundle's cards in one stored format, at the bundle's budget
    /// level (falling back to the full text), read once per bundle and format.
    pub(crate) fn card_texts(
        &self,
        bundle: &Bundle,
        format: &'static str,
    ) -> Result<Arc<CardTexts>, Error> {
        if let Some(t) = bundle.fragments.read().expect("lock").get(format) {
            return Ok(t.clone());
        }
        let info = &bundle.info;
        let mut texts: CardTexts = HashMap::new();
        {
            let conn = self.conn.lock().expect("lock");
            let mut st = conn
                .prepare_cached(
                    "SELECT f.card, f.level, f.text, f.tokens FROM card_fragment f
                     WHERE f.format = ?3 AND f.level IN ('', ?2) AND f.card IN (
                       SELECT value FROM json_each(?1))",
                )
                .map_err(corrupt(&self.path))?;
            let cards: BTreeSet<i64> = bundle.skills.iter().map(|s| s.card).collect();
            let cards = serde_json::to_string(&cards).unwrap_or_default();
            let params = rusqlite::params![cards, info.level, format];
            let rows = st
                .query_map(params, |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, u32>(3)?,
                    ))
                })
                .map_err(corrupt(&self.path))?;
            for row in rows {
                let (card, level, text, tokens) = row.map_err(corrupt(&self.path))?;
                // The bundle's budget level wins over the full text.
                if level == info.level || !texts.contains_key(&card) {
                    texts.insert(card, (text, tokens));
                }
            }
        }
        let texts = Arc::new(texts);
        bundle
            .fragments
            .write()
            .expect("lock")
            .insert(format, texts.clone());
        Ok(texts)
    }

    pub(crate) fn render_catalog(
        &self,
        bundle: &Bundle,
        consumer: Option<&str>,
        members: &[usize],
        format: Format,
        texts: &CardTexts,
    ) -> Catalog {
        let max_triggers: usize = self
            .manifest("max_triggers")
            .and_then(|v| v.parse().ok())
            .unwrap_or(5);
        let skills: Vec<CatalogSkill> = members
            .iter()
            .enumerate()
            .map(|(n, &i)| {
                let s = &bundle.skills[i];
                CatalogSkill {
                    id: format!("SK{}", n + 1),
                    name: s.name.clone(),
                    qualified_name: s.qualified_name.clone(),
                    category: s.category.clone(),
                    description: s.description.clone(),
                    triggers: s.triggers.iter().take(max_triggers).cloned().collect(),
                    plugin: self.plugin_of(&s.name),
                    external: self.external_of(&s.record.resolved_file),
                }
            })
            .collect();
        let (text, tokens) = self.catalog_body(bundle, members, format, texts, &skills);
        Catalog {
            client: (!bundle.client.is_empty()).then(|| bundle.client.clone()),
            locale: bundle.locale.clone(),
            tier: bundle.tier.clone(),
            consumer: consumer.map(str::to_string),
            skills,
            text,
            tokens,
        }
    }

    /// A catalog's text and tokens (`skills`: its skills, which the json format lists).
    pub(crate) fn catalog_body(
        &self,
        bundle: &Bundle,
        members: &[usize],
        format: Format,
        texts: &CardTexts,
        skills: &[CatalogSkill],
    ) -> (String, u32) {
        match format {
            Format::Markdown => self.markdown_text(bundle, members, texts),
            Format::Json => (
                json_text(skills),
                members.iter().map(|&i| card_text(bundle, texts, i).1).sum(),
            ),
            Format::Xml | Format::List => {
                let mut text = String::new();
                let mut tokens = 0u32;
                let xml = format == Format::Xml;
                if xml {
                    text.push_str("<available_skills>\n");
                    tokens += 8;
                }
                for &i in members {
                    let (t, n) = card_text(bundle, texts, i);
                    text.push_str(t);
                    tokens += n;
                }
                if xml {
                    text.push_str("</available_skills>");
                }
                (text, tokens)
            }
        }
    }

    /// The markdown selector table: each category's header, then one row per skill with its
    /// `SKn` id (four tokens a row).
    pub(crate) fn markdown_text(
        &self,
        bundle: &Bundle,
        members: &[usize],
        texts: &CardTexts,
    ) -> (String, u32) {
        let mut text = String::new();
        let mut tokens = 0u32;
        let mut current: Option<&str> = None;
        for (n, &i) in members.iter().enumerate() {
            let s = &bundle.skills[i];
            if current != Some(s.category.as_str()) {
                if current.is_some() {
                    text.push('\n');
                }
                if let Some(c) = self.categories.get(&s.category) {
                    text.push_str(&c.catalog_header.0);
                    tokens += c.catalog_header.1;
                }
                current = Some(&s.category);
            }
            let (t, k) = card_text(bundle, texts, i);
            let _ = write!(text, "| SK{} ", n + 1);
            text.push_str(t);
            tokens += k + 4;
        }
        (text, tokens)
    }

    /// A catalog as `skillc catalog --format json` prints it: the release label, the bundle,
    /// the consumer, its skills and its text.
    pub fn catalog_json(&self, c: &Catalog) -> serde_json::Value {
        serde_json::json!({
            "release": self.release(),
            "client": c.client,
            "locale": c.locale,
            "tier": c.tier,
            "consumer": c.consumer,
            "skills": c.skills,
            "text": c.text,
        })
    }
}
