//! What a request names and gets back: which bundle, in which format, and the loaded bundle's
//! skills, catalog and diagnostics.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

use serde::Serialize;

use crate::schema::LeftOut;
use crate::{BundleInfo, Compiled, Context, Record};

/// Lookups of a loaded bundle: by name, by qualified name, and who augments each skill.
pub(crate) type SkillIndex = (
    HashMap<String, usize>,
    HashMap<String, usize>,
    Vec<Vec<usize>>,
);

/// Builds a bundle's [`SkillIndex`]; `plain` is the entries the bundle also finds by their
/// plain name (a plugin's skill `<plugin>:<skill>` by `<skill>`: the build decided which).
pub(crate) fn index_skills(skills: &[Skill], plain: &BTreeSet<i64>) -> SkillIndex {
    let mut by_name = HashMap::new();
    for (i, s) in skills.iter().enumerate() {
        by_name.insert(s.qualified_name.clone(), i);
    }
    for (i, s) in skills.iter().enumerate() {
        // A bare name prefers public, then internal, then custom (the build's rule).
        by_name.entry(s.name.clone()).or_insert(i);
    }
    for (i, s) in skills.iter().enumerate() {
        if let Some((_, p)) = s.name.split_once(':').filter(|_| plain.contains(&s.entry)) {
            by_name.insert(p.to_string(), i);
        }
    }
    let by_qualified: HashMap<String, usize> = skills
        .iter()
        .enumerate()
        .map(|(i, s)| (s.qualified_name.clone(), i))
        .collect();
    let mut augmented_by = vec![Vec::new(); skills.len()];
    for (j, s) in skills.iter().enumerate() {
        for q in &s.record.augments {
            if let Some(&i) = by_qualified.get(q) {
                augmented_by[i].push(j);
            }
        }
    }
    (by_name, by_qualified, augmented_by)
}

/// A bundle in words, as every message names one: ``client `example.com`, locale `en`, tier
/// `fast` `` (`client` empty: ``the global bundle, locale `en`, tier `fast` ``).
pub fn bundle_label(client: &str, locale: &str, tier: &str) -> String {
    let who = match client {
        "" => "the global bundle".to_string(),
        c => format!("client `{c}`"),
    };
    format!("{who}, locale `{locale}`, tier `{tier}`")
}

/// Which bundle: `None` fields mean the global bundle, the default locale, the default tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BundleRef<'a> {
    /// Client id.
    pub client: Option<&'a str>,
    /// Locale (`None`: the workspace's default).
    pub locale: Option<&'a str>,
    /// Tier (`None`: the workspace's first).
    pub tier: Option<&'a str>,
}

/// A catalog format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// skills-ref's `<available_skills>` block.
    Xml,
    /// The selector table.
    Markdown,
    /// `- **name**: description` lines.
    List,
    /// A JSON list of `{id, name, description, triggers}`.
    Json,
}

impl Format {
    /// Parses `xml`, `markdown`, `list`, `json`.
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "xml" => Format::Xml,
            "markdown" => Format::Markdown,
            "list" => Format::List,
            "json" => Format::Json,
            _ => return None,
        })
    }

    pub(crate) fn stored(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Markdown | Format::Json => "markdown",
            Format::List => "list",
        }
    }
}

/// A skill of a loaded bundle.
#[derive(Debug, Clone)]
pub struct Skill {
    /// Entry id.
    pub entry: i64,
    /// Selectable name.
    pub name: String,
    /// `<namespace>.<name>`.
    pub qualified_name: String,
    /// Skill whose content is used.
    pub resolved_name: String,
    /// Category id (`''` when none).
    pub category: String,
    /// Shown in catalogs.
    pub catalog_visible: bool,
    /// Injected when its conditions hold.
    pub always_on: bool,
    /// Why unavailable.
    pub unavailable: Option<String>,
    /// Code from an untrusted overlay: prompt-only.
    pub untrusted: bool,
    /// Catalog description.
    pub description: String,
    /// Catalog triggers (all).
    pub triggers: Vec<String>,
    /// The catalog card (its fragments are read per format: [`crate::Artifact::catalog`]).
    pub card: i64,
    /// Prompt text around the body.
    pub prompt_prefix: String,
    /// Whether the body goes between prefix and suffix.
    pub prompt_body: bool,
    /// Prompt text after the body.
    pub prompt_suffix: String,
    /// Tokens of the whole prompt part.
    pub prompt_tokens: u32,
    /// The body's blob (its content hash's bytes, `entry.body`): bodies are read when a
    /// prompt or an export needs them ([`crate::Artifact::body`]), never to show a catalog.
    pub body_hash: Vec<u8>,
    pub(crate) body: std::sync::OnceLock<Arc<str>>,
    /// Run-time fields.
    pub record: Record,
    /// Compiled conditions.
    pub conditions: Vec<Compiled>,
}

impl Skill {
    /// Whether every run-time condition holds.
    pub fn conditions_hold(&self, ctx: &Context) -> bool {
        self.conditions.iter().all(|c| c.holds(ctx))
    }
}

/// A category's texts.
#[derive(Debug, Clone)]
pub struct Category {
    /// Category id (`''` holds uncategorized skills).
    pub id: String,
    /// Order.
    pub position: i64,
    /// Markdown catalog header and its tokens.
    pub catalog_header: (String, u32),
    /// Prompt heading and its tokens.
    pub prompt_heading: (String, u32),
    /// Uncertainty guidance and its tokens.
    pub uncertainty: (String, u32),
}

/// A loaded bundle.
#[derive(Debug)]
pub struct Bundle {
    /// Client (`''` for global).
    pub client: String,
    /// Locale of the bundle.
    pub locale: String,
    /// Tier of the bundle.
    pub tier: String,
    /// Skills in catalog order.
    pub skills: Vec<Skill>,
    /// Left-out qualified names and why.
    pub left_out: BTreeMap<String, LeftOut>,
    pub(crate) by_name: HashMap<String, usize>,
    /// Qualified name → index.
    pub(crate) by_qualified: HashMap<String, usize>,
    /// For each skill, the skills whose `augments` name it.
    pub(crate) augmented_by: Vec<Vec<usize>>,
    /// Where the bundle is stored, to read its catalog fragments.
    pub(crate) info: BundleInfo,
    /// Card fragments read so far, per stored format: card → (text, tokens).
    pub(crate) fragments: RwLock<HashMap<&'static str, Arc<CardTexts>>>,
    /// The routing index of its catalog, read on its first route.
    pub(crate) route_index: std::sync::OnceLock<Arc<crate::route::RouteIndex>>,
    /// The vectors of its catalog, read on its first hybrid route.
    pub(crate) dense: std::sync::OnceLock<Arc<crate::route::DenseIndex>>,
}

/// Catalog text of each card in one format: card → (text, tokens).
pub(crate) type CardTexts = HashMap<i64, (String, u32)>;

impl Bundle {
    /// A skill by name, qualified name or `skills.ns.name`.
    pub fn find(&self, name: &str) -> Option<&Skill> {
        self.position(name).map(|i| &self.skills[i])
    }

    /// The index of a skill by name, qualified name or `skills.ns.name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        let name = name.trim();
        let name = name.strip_prefix("skills.").unwrap_or(name);
        self.by_name.get(name).copied()
    }

    /// Why a name that is not in the bundle was left out of it (by name, qualified name or
    /// `skills.ns.name`), if the build left it out rather than never knowing it.
    pub fn left_out(&self, name: &str) -> Option<(&str, &LeftOut)> {
        let name = name.trim();
        let name = name.strip_prefix("skills.").unwrap_or(name);
        self.left_out
            .iter()
            .find(|(q, _)| q.as_str() == name || q.rsplit_once('.').is_some_and(|(_, n)| n == name))
            .map(|(q, why)| (q.as_str(), why))
    }

    /// The index of a skill by qualified name.
    pub fn by_qualified(&self, q: &str) -> Option<usize> {
        self.by_qualified.get(q).copied()
    }

    /// The skills whose `augments` name skill `i`.
    pub fn augmented_by(&self, i: usize) -> &[usize] {
        &self.augmented_by[i]
    }

    /// The budget level of its catalog texts: `''` (full), `no-triggers`, `chars:N` (the
    /// build cuts a catalog over its tier's budget to the first level that fits).
    pub fn catalog_level(&self) -> &str {
        &self.info.level
    }

    /// What the build cut of its catalog to meet its tier's budget, in words (`None`: nothing).
    pub fn catalog_cut(&self) -> Option<String> {
        let level = self.catalog_level();
        match level.strip_prefix("chars:") {
            Some(n) => Some(format!(
                "trigger examples left out and descriptions cut to {n} characters"
            )),
            None if level.is_empty() => None,
            None => Some("trigger examples left out".to_string()),
        }
    }
}

/// A warning of the build, as the artifact keeps it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StoredDiagnostic {
    /// `warning`.
    pub severity: String,
    /// Stable code (`W114`, …).
    pub code: String,
    /// File inside the workspace.
    pub file: String,
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column in the line.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

/// One catalog line.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CatalogSkill {
    /// `SK1`, `SK2`, … in catalog order.
    pub id: String,
    /// Selectable name.
    pub name: String,
    /// `<namespace>.<name>`.
    pub qualified_name: String,
    /// Category id (`''` when none).
    pub category: String,
    /// Description (localized, whole; what the catalog text shows of it depends on the level).
    pub description: String,
    /// The first `max_triggers` triggers.
    pub triggers: Vec<String>,
    /// The Claude Code plugin it comes from, when it is a plugin's skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub plugin: Option<Plugin>,
    /// The outside repository it comes from (`workspace.yaml` `external:`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub external: Option<External>,
}

/// Where an outside skill comes from: the repository and the commit `skillc.lock` pinned.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CatalogExternal"))]
pub struct External {
    /// The workspace folder its skills appear in.
    pub into: String,
    /// The repository.
    pub git: String,
    /// The tag, branch or commit asked for.
    pub rev: String,
    /// The commit read.
    pub commit: String,
    /// Whether its code is trusted (else prompt-only).
    pub trusted: bool,
}

/// A Claude Code plugin's metadata, as its manifest gives it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Plugin {
    /// Its name (the part before `:` in its skills' names).
    pub name: String,
    /// Its version.
    pub version: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its author's name.
    pub author: Option<String>,
}

/// A catalog.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Catalog {
    /// Client (`null` for global).
    pub client: Option<String>,
    /// Locale of the bundle.
    pub locale: String,
    /// Tier of the bundle.
    pub tier: String,
    /// The consumer whose filter applies, if any.
    pub consumer: Option<String>,
    /// Its skills.
    pub skills: Vec<CatalogSkill>,
    /// The rendered text.
    pub text: String,
    /// Tokens of the text (sum of the stored counts of its parts).
    pub tokens: u32,
}
