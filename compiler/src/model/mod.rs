//! The typed source model of a skills workspace (`docs/workspace-format.md`): plain data, no I/O.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::diagnostic::Pos;

pub(crate) mod census;
pub mod external;
pub mod fields;
pub mod targets;

/// Whether a build is one of many over the same workspace: a session's (`watch`, the studio)
/// lays out what its next build can take again (its session value holds it); a one-shot
/// build (the `build` command) keeps nothing, and frees what it is done with as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// One run, then the process ends.
    OneShot,
    /// One of many runs over the same workspace.
    Session,
}

impl Mode {
    /// Whether this run keeps what the next one can take again.
    pub(crate) fn keeps(self) -> bool {
        self == Mode::Session
    }
}

/// A reference to another skill as written (`name`, `ns.name`, `skills.ns.name`), with where
/// it was written for diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillRef {
    /// The text as written.
    pub text: String,
    /// Where it was written.
    #[serde(skip)]
    pub(crate) pos: Pos,
}

/// Where a skill comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "kind", content = "id", rename_all = "lowercase")]
pub enum Scope {
    /// The workspace's global skills (including `custom` roots).
    Global,
    /// Skills under `clients/<id>/`.
    Client(String),
}

/// One hard-gate predicate of `conditions`: all must hold for the skill to be in. The runtime's own type: what the
/// compiler stores is, by construction, what every runtime reads.
pub use skillc_runtime::Condition;

/// A `when` predicate of a variant: the variant replaces its base in a bundle where it holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Predicate {
    /// A dotted path into the client's `flags` is (or is not) non-empty.
    FlagNonEmpty {
        /// Dotted path.
        flag: String,
        /// Whether it must be non-empty (`true`) or empty (`false`).
        non_empty: bool,
    },
    /// A dotted path into the client's `flags` equals a value.
    FlagEquals {
        /// Dotted path.
        flag: String,
        /// The value, as JSON.
        equals: serde_json::Value,
    },
    /// The bundle's tier is one of these.
    Tier(Vec<String>),
    /// The bundle's locale is one of these.
    Locale(Vec<String>),
}

impl Predicate {
    /// The predicate in words, as the studio and `skillc explain` show it.
    pub fn words(&self) -> String {
        match self {
            Predicate::FlagNonEmpty { flag, non_empty } => format!(
                "flag {flag} is {}",
                if *non_empty { "set" } else { "empty" }
            ),
            Predicate::FlagEquals { flag, equals } => format!("flag {flag} = {equals}"),
            Predicate::Tier(t) => format!("tier is {}", t.join(" or ")),
            Predicate::Locale(l) => format!("locale is {}", l.join(" or ")),
        }
    }

    /// Whether the predicate holds for a client's `flags`; `None` for a tier or locale
    /// predicate, which depends on the bundle instead.
    pub fn holds_for_flags(&self, flags: &serde_json::Value) -> Option<bool> {
        let at = |path: &str| path.split('.').try_fold(flags, |v, key| v.get(key));
        match self {
            Predicate::FlagNonEmpty { flag, non_empty } => Some(is_empty(at(flag)) != *non_empty),
            Predicate::FlagEquals { flag, equals } => Some(at(flag) == Some(equals)),
            Predicate::Tier(_) | Predicate::Locale(_) => None,
        }
    }

    /// Whether the predicate holds for a client's `flags` in the bundle of `tier` and `locale`.
    pub fn holds(&self, flags: &serde_json::Value, tier: &str, locale: &str) -> bool {
        match self {
            Predicate::Tier(tiers) => tiers.iter().any(|t| t == tier),
            Predicate::Locale(locales) => locales.iter().any(|l| l == locale),
            flag => flag.holds_for_flags(flags) == Some(true),
        }
    }
}

/// Whether a flag's value counts as empty (absent, null, false, "", [], {}).
fn is_empty(v: Option<&serde_json::Value>) -> bool {
    match v {
        None | Some(serde_json::Value::Null) => true,
        Some(serde_json::Value::Bool(b)) => !b,
        Some(serde_json::Value::String(s)) => s.is_empty(),
        Some(serde_json::Value::Array(a)) => a.is_empty(),
        Some(serde_json::Value::Object(o)) => o.is_empty(),
        Some(serde_json::Value::Number(_)) => false,
    }
}

/// A declared variable (full, shorthand and minimal forms).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VarDecl {
    /// What the variable is for.
    pub description: Option<String>,
    /// Value used when no other source has one.
    pub default: Option<String>,
    /// Unresolved → the skill is unavailable.
    pub required: bool,
    /// Never written to the artifact; filled by the runtime.
    pub secret: bool,
}

/// What a skill needs to be available (001).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Requires {
    /// Environment variables that must be set at run time.
    pub(crate) env: Vec<String>,
    /// Programs that must be on the runtime host's PATH.
    pub binary: Vec<String>,
    /// Skills that must be available in the same bundle.
    pub skills: Vec<SkillRef>,
}

/// An MCP server the runtime starts for the skill (001), as the artifact stores it.
pub use skillc_runtime::Mcp;

/// A tool provider declaration (004).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Provider {
    /// Python module name.
    pub(crate) module: Option<String>,
    /// Provider class.
    pub class: Option<String>,
    /// Python module dependencies (004's `dependencies`, kept apart from skill dependencies).
    pub dependencies: Vec<String>,
}

/// A tool: from frontmatter `tools` (004) or `tools.yaml` (002).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    /// Tool name or id.
    pub id: String,
    /// Provider name (004).
    pub provider: Option<String>,
    /// Role (002).
    pub(crate) role: Option<String>,
    /// Why it matters for the skill (002).
    pub(crate) why: Option<String>,
    /// Provider configuration (004), as JSON.
    pub config: Option<serde_json::Value>,
}

/// Every frontmatter field (see [`fields::FIELDS`]): the plain ones by their stored key, the
/// others typed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Frontmatter {
    /// The plain fields' values as written (`Field::plain` of the fields' module), by stored key
    /// (`bind_shells`, `exclusive`): a string, a flag, a number or a list of strings. A field
    /// not written is absent.
    #[serde(flatten)]
    pub plain: BTreeMap<String, serde_json::Value>,
    // Portable core (agentskills.io).
    /// `name`, NFKC-normalised.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `metadata`, string to string.
    pub(crate) metadata: BTreeMap<String, String>,
    /// `allowed-tools`, split on spaces.
    pub allowed_tools: Vec<String>,
    // 000.
    /// `category`.
    pub category: Option<String>,
    /// `required`.
    pub required: bool,
    /// `default_enabled` (toggle cascade: toggle > this > true).
    pub default_enabled: Option<bool>,
    /// `always_on`.
    pub(crate) always_on: bool,
    /// `hidden_from_llm`.
    pub hidden_from_llm: bool,
    /// `trigger_examples`.
    pub trigger_examples: Vec<String>,
    /// `conditions` (AND).
    pub conditions: Vec<Condition>,
    /// `dependencies` (skills).
    pub dependencies: Vec<SkillRef>,
    /// `augments`.
    pub augments: Vec<SkillRef>,
    /// `blocks`.
    pub blocks: Vec<SkillRef>,
    /// `distinct_from`: skills whose catalog text may look like this one's on purpose (no
    /// overlap warning for the pair).
    pub(crate) distinct_from: Vec<SkillRef>,
    /// `variant_of`.
    pub variant_of: Option<SkillRef>,
    /// `when`.
    pub when: Vec<Predicate>,
    /// `variant_priority` (lower first).
    pub variant_priority: i64,
    // new.
    /// `tiers`: the skill exists only in these tiers.
    pub tiers: Option<Vec<String>>,
    // 001.
    /// `requires`.
    pub requires: Requires,
    /// `vars`.
    pub vars: BTreeMap<String, VarDecl>,
    /// `mcp`.
    pub mcp: Option<Mcp>,
    /// `next_skill`.
    pub next_skill: Option<SkillRef>,
    /// `conditional_next_skills`: transition key → skill.
    pub conditional_next_skills: BTreeMap<String, SkillRef>,
    // 002.
    /// `namespace`.
    pub namespace: Option<String>,
    /// `when_to_use`.
    pub when_to_use: Vec<String>,
    /// `import` / `imports`.
    pub imports: Vec<SkillRef>,
    // 004.
    /// `provider`.
    pub provider: Option<Provider>,
    /// `tools`.
    pub tools: Vec<Tool>,
    /// Claude Code's own fields ([`fields::CLAUDE_CODE`]) as written, kept so that an export
    /// for a client that reads them gives them back.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) client_fields: BTreeMap<String, serde_json::Value>,
    /// Every top-level key as written, with where (for the checks of a declared client that
    /// refuses keys outside the six).
    #[serde(skip)]
    pub(crate) keys: Vec<(String, crate::diagnostic::Pos)>,
}

impl Frontmatter {
    /// A plain field's string, by stored key (`display_name`).
    pub fn text(&self, key: &str) -> Option<&str> {
        self.plain.get(key).and_then(serde_json::Value::as_str)
    }
}

/// A citation source from `sources.yaml` (002).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    /// The skill-local source id.
    pub sid: u32,
    /// The URL (as written).
    pub url: String,
    /// Title to show beside the link, if the source gives one.
    pub title: Option<String>,
    /// Short summary.
    pub text: Option<String>,
    /// Other fields, kept as JSON.
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// A localized override `SKILL.<locale>.md`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Localized {
    /// The locale tag.
    pub locale: String,
    /// Workspace-relative path.
    pub file: String,
    /// Localized description.
    pub description: Option<String>,
    /// Localized trigger examples.
    pub trigger_examples: Option<Vec<String>>,
    /// Localized `when_to_use`.
    pub when_to_use: Option<Vec<String>>,
    /// Localized body.
    pub body: String,
    /// File line of the body's first line.
    pub(crate) body_line: usize,
    /// `translated_from`: the [`Skill::translation_digest`] of the default text it was
    /// translated from, and where it is written.
    #[serde(skip)]
    pub translated_from: Option<(String, crate::diagnostic::Pos)>,
}

impl Localized {
    /// File line of the localized body's first line.
    pub(crate) fn body_first_line(&self) -> usize {
        self.body_line
    }

    /// Whether it is still the default text word for word (as a translation started from the
    /// default is): each field it writes, and its body, the same as `default`'s (spaces at
    /// the ends aside). `check` warns (W131), and the studio calls it "not translated yet".
    pub fn is_copy_of(&self, default: &Skill) -> bool {
        let fm = &default.frontmatter;
        let same = |t: &Option<Vec<String>>, d: &Vec<String>| t.as_ref().is_none_or(|t| t == d);
        self.description
            .as_deref()
            .is_none_or(|t| Some(t.trim()) == fm.description.as_deref().map(str::trim))
            && same(&self.trigger_examples, &fm.trigger_examples)
            && same(&self.when_to_use, &fm.when_to_use)
            && self.body.trim() == default.body.trim()
    }
}

/// A file carried with a skill (scripts, references, assets, provider modules).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Asset {
    /// Path relative to the skill folder.
    pub path: String,
    /// Size in bytes.
    pub(crate) size: u64,
    /// The bytes (stored in the artifact as a content-addressed blob; never executed).
    #[serde(skip)]
    pub(crate) data: AssetData,
}

/// A large file without a role, read in passing (see `discover::fsio::large::STREAM_ABOVE`): where it
/// is, its size and its SHA-256. It is read again, in chunks, when the artifact is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LargeFile {
    /// The file.
    pub path: std::path::PathBuf,
    /// Its size in bytes.
    pub(crate) size: u64,
    /// Its SHA-256.
    pub(crate) sha256: [u8; 32],
}

/// An asset's content: in memory, or a large file read again when the artifact is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssetData {
    /// The bytes, as read (shared with the read: a copy would hold every asset twice while a
    /// workspace loads).
    Bytes(Arc<[u8]>),
    /// A large file, hashed when read and copied in chunks when written.
    File(Arc<LargeFile>),
}

impl Default for AssetData {
    fn default() -> Self {
        AssetData::Bytes(Arc::from([]))
    }
}

impl AssetData {
    /// The SHA-256 of the content.
    pub(crate) fn sha256(&self) -> [u8; 32] {
        use sha2::Digest as _;
        match self {
            AssetData::Bytes(b) => sha2::Sha256::digest(b).into(),
            AssetData::File(f) => f.sha256,
        }
    }
}

/// The distinct words of a skill's body, made from it when first read, once a parse (not once
/// an entry): a build's first pass over a batch of clients reads none (they were two thirds of
/// parsing a skill).
#[derive(Debug, Clone, Default)]
pub(crate) struct ProseWords(std::sync::OnceLock<(Arc<str>, Arc<str>)>);

/// Made from the body, which the skill's own comparison compares.
impl PartialEq for ProseWords {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// One skill, parsed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skill {
    /// Where it comes from.
    pub scope: Scope,
    /// Workspace-relative path of the SKILL.md.
    pub file: String,
    /// Workspace-relative folder of the skill.
    pub dir: String,
    /// The folder's own name.
    pub folder_name: String,
    /// The name (frontmatter, else folder), NFKC-normalised.
    pub name: String,
    /// Where the name is written (line 1 when it comes from the folder).
    #[serde(skip)]
    pub(crate) name_pos: Pos,
    /// Where `description` is written (line 1 when it is missing).
    #[serde(skip)]
    pub(crate) description_pos: Pos,
    /// Where each of `trigger_examples` is written, in their order.
    #[serde(skip)]
    pub(crate) examples_pos: Vec<Pos>,
    /// `public`, `internal` or `custom` (or a frontmatter value).
    pub namespace: String,
    /// The category, if any.
    pub category: Option<String>,
    /// The frontmatter.
    pub frontmatter: Frontmatter,
    /// The instruction body.
    pub body: String,
    /// The distinct words of the body's prose ([`Skill::prose_words`]).
    #[serde(skip)]
    pub(crate) prose: ProseWords,
    /// File line of the body's first line.
    pub(crate) body_first_line: usize,
    /// `compact.md`, if present.
    pub compact: Option<String>,
    /// Localized overrides by locale.
    pub localized: BTreeMap<String, Localized>,
    /// Tools from `tools.yaml`.
    pub tool_notes: Vec<Tool>,
    /// Sources from `sources.yaml`.
    pub sources: Vec<Source>,
    /// Values from the skill's `vars.json`.
    pub vars_json: BTreeMap<String, String>,
    /// Other files in the folder.
    pub assets: Vec<Asset>,
    /// The package it was unpacked from (`package.yaml`), if any: its code is untrusted
    /// unless the workspace trusts the package.
    pub(crate) package: Option<String>,
    /// The Claude Code plugin whose `skills/` folder holds it, if any: its name is then
    /// `<plugin>:<declared name>`.
    pub plugin: Option<String>,
}

impl Skill {
    /// The words of its body's prose as the routing index holds them (`route::prose_words`),
    /// and as written (`route::prose_text_words`), which the built-in meaning reads.
    pub fn prose_words(&self) -> (&Arc<str>, &Arc<str>) {
        let (index, text) = self.prose.0.get_or_init(|| {
            let body = &self.body;
            let index = skillc_runtime::route::prose_words(body).into();
            (index, skillc_runtime::route::prose_text_words(body).into())
        });
        (index, text)
    }

    /// A short digest of the default text a translation renders (description, trigger
    /// examples, `when_to_use`, body): a translation that names another was made from an
    /// older default and is stale (W121). The parts are encoded as a JSON array, so no two
    /// texts share an encoding (joined with `\n`, `["a\nb"]` and `["a", "b"]` did).
    pub fn translation_digest(&self) -> String {
        translation_digest(&self.frontmatter, &self.body)
    }

    /// `<namespace>.<name>`.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}", self.namespace, self.name)
    }
}

/// [`Skill::translation_digest`] of a default text's frontmatter and body (W121 digests the
/// default a translation was written from as git history holds it, no skill of its own).
pub(crate) fn translation_digest(fm: &Frontmatter, body: &str) -> String {
    let text = serde_json::json!([
        fm.description.as_deref().unwrap_or(""),
        fm.trigger_examples,
        fm.when_to_use,
        body.trim_end(),
    ])
    .to_string();
    crate::digest::hash(text.as_bytes())[..12].to_string()
}

/// `CATEGORY.md` configuration (000).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Category {
    /// The category id (its folder name).
    pub id: String,
    /// Workspace-relative path of its CATEGORY.md.
    pub file: String,
    /// Heading in the assembled prompt.
    pub display_name: Option<String>,
    /// Shown before the category's skills in the answer prompt.
    pub(crate) answer_instructions: Option<String>,
    /// Shown when several skills of the category are selected.
    pub(crate) uncertainty_guidance: Option<String>,
    /// Selector-facing description.
    pub(crate) selector_description: Option<String>,
    /// Selector-facing rules.
    pub(crate) selector_guidance: Option<String>,
    /// Sort order (lower first).
    pub order: i64,
    /// Skills of the category never appear in catalogs.
    pub hidden_from_llm: bool,
}

/// How a tier renders bodies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyMode {
    /// SKILL.md's body.
    #[default]
    Full,
    /// `compact.md` where a skill has one.
    Compact,
}

/// A tier of `workspace.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tier {
    /// Tier name.
    pub name: String,
    /// Body mode.
    pub body: BodyMode,
    /// Catalog token budget, if any.
    pub catalog_token_budget: Option<u64>,
}

/// Per-consumer catalog filtering (002 `agents_config`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Consumer {
    /// Only these patterns are visible (when non-empty).
    pub enabled: Vec<String>,
    /// These patterns are removed.
    pub disabled: Vec<String>,
}

impl Consumer {
    /// Whether this consumer's filters show the skill `qualified` (002: an `enabled` list
    /// wins, else `disabled` removes).
    pub fn shows(&self, qualified: &str) -> bool {
        if !self.enabled.is_empty() {
            return self.enabled.iter().any(|p| wildcard(p, qualified));
        }
        !self.disabled.iter().any(|p| wildcard(p, qualified))
    }
}

/// Glob match with `*` for any run of characters.
fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// `workspace.yaml`; every field has the default `docs/workspace-format.md` gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkspaceConfig {
    /// Workspace name.
    pub name: Option<String>,
    /// Locales bundles are built for.
    pub locales: Vec<String>,
    /// The locale a request without one gets, and whose files are the base of the others.
    pub default_locale: String,
    /// Tiers bundles are built for.
    pub tiers: Vec<Tier>,
    /// Consumers with catalog filters.
    pub consumers: BTreeMap<String, Consumer>,
    /// Cap on selected skills at run time.
    pub(crate) max_active_skills: Option<u32>,
    /// Pipeline depth limit.
    pub(crate) pipeline_max_depth: u32,
    /// Trigger examples shown per skill in catalogs.
    pub(crate) max_triggers: usize,
    /// Catalog texts at least this similar (TF-IDF cosine, in hundredths) are warned about
    /// (W118); over 100 turns the warning off.
    pub(crate) overlap_threshold: u32,
    /// Extra skill roots by namespace (`custom`), relative to the workspace.
    pub(crate) roots: BTreeMap<String, String>,
    /// Client ids and package names whose code is trusted (not prompt-only).
    pub(crate) trusted: Vec<String>,
    /// `routing:` settings as checked (`top_k`, `min_score`, `confident`), for the manifest.
    pub(crate) routing: Option<serde_json::Value>,
    /// Whether the folder has a `workspace.yaml`: authored for skillc, so a field of the
    /// wrong shape is an error. Without one it is a collection written for other tools, whose
    /// fields named like ours but shaped otherwise are set aside (W116).
    pub(crate) authored: bool,
    /// `targets:`: the client tools the workspace ships to, with their listing budgets (W124).
    pub targets: Vec<targets::DeclaredTarget>,
    /// `external:`: skills from other repositories, pinned in `skillc.lock`.
    pub external: Vec<external::ExternalSource>,
    /// `safety:`: which content-safety findings are errors, and which untrusted skills are
    /// withheld.
    pub safety: SafetyConfig,
}

/// `workspace.yaml` `safety:` (SPEC 14.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SafetyConfig {
    /// Findings that are errors: codes (`S301`), families (`S3xx`), levels (`high` and up).
    pub(crate) deny: Vec<String>,
    /// An untrusted skill with a finding at this level or above is withheld: unavailable in
    /// every bundle, never exported or served.
    pub(crate) withhold: crate::diagnostic::SafetyLevel,
}

impl Default for SafetyConfig {
    fn default() -> Self {
        SafetyConfig {
            deny: Vec::new(),
            withhold: crate::diagnostic::SafetyLevel::High,
        }
    }
}

impl Default for WorkspaceConfig {
    fn default() -> Self {
        WorkspaceConfig {
            name: None,
            locales: vec!["en".to_string()],
            default_locale: "en".to_string(),
            tiers: vec![Tier {
                name: "standard".to_string(),
                body: BodyMode::Full,
                catalog_token_budget: None,
            }],
            consumers: BTreeMap::new(),
            max_active_skills: None,
            pipeline_max_depth: 5,
            max_triggers: 5,
            overlap_threshold: 60,
            roots: BTreeMap::new(),
            trusted: Vec::new(),
            routing: None,
            authored: false,
            targets: Vec::new(),
            external: Vec::new(),
            safety: SafetyConfig::default(),
        }
    }
}

/// A toggle of `client.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toggle {
    /// Enabled or not.
    pub enabled: bool,
    /// Where it is written.
    #[serde(skip)]
    pub(crate) pos: Pos,
}

/// `clients/<id>/client.yaml`: a client's flags, variables, locales, tiers and toggles.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Client {
    /// The client id (its folder name).
    pub id: String,
    /// Workspace-relative path of client.yaml (may not exist).
    pub file: String,
    /// Locales (None: all of the workspace's).
    pub locales: Option<Vec<String>>,
    /// Tiers (None: all).
    pub tiers: Option<Vec<String>>,
    /// Toggles by skill name.
    pub toggles: BTreeMap<String, Toggle>,
    /// Flags read by variant predicates, as JSON.
    pub flags: serde_json::Value,
    /// Variables: `_global` and per-skill sections.
    pub vars: BTreeMap<String, BTreeMap<String, String>>,
    /// `routing:` settings of this client over the workspace's, as checked.
    pub(crate) routing: Option<serde_json::Value>,
}

/// A Claude Code plugin: a namespace for the skills under its `skills/` folder (or the ones
/// its marketplace entry lists), with the metadata a catalog shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WorkspacePlugin"))]
pub struct Plugin {
    /// Its name: the part before `:` in its skills' names.
    pub name: String,
    /// Its version, as written.
    pub(crate) version: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its author's name.
    pub(crate) author: Option<String>,
    /// Workspace-relative folder of the plugin (`""`: the workspace root).
    pub(crate) root: String,
    /// The manifest it was read from (`plugin.json`, or the marketplace's).
    pub(crate) manifest: String,
    /// Skill folders its marketplace entry lists (workspace-relative); `None`: every skill
    /// under `<root>/skills/`.
    pub(crate) skill_dirs: Option<Vec<String>>,
}

/// Everything in a workspace, parsed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Workspace {
    /// `workspace.yaml`.
    pub config: WorkspaceConfig,
    /// Categories by id.
    pub categories: BTreeMap<String, Category>,
    /// Clients by id.
    pub clients: BTreeMap<String, Client>,
    /// All skills, sorted by scope then file. Shared: successive loads of a workspace (watch,
    /// the studio) hand out the same parse of an unchanged skill folder, not a copy.
    pub skills: Vec<Arc<Skill>>,
    /// `variables.json`: section (`_global` or a skill name) → variable → value.
    pub variables: BTreeMap<String, BTreeMap<String, String>>,
    /// Template overrides: file name → text.
    pub(crate) templates: BTreeMap<String, String>,
    /// Claude Code plugins (`.claude-plugin/plugin.json`, `marketplace.json` entries), by root
    /// folder order.
    pub plugins: Vec<Plugin>,
    /// Set when this is one batch of a larger workspace's clients, with the global skills: what
    /// the checks and phases read of the whole workspace (see [`census`](crate::model::census)).
    #[serde(skip)]
    pub(crate) census: Option<Arc<census::Census>>,
    /// Skills (by SKILL.md path) with a content-safety finding at `safety.withhold` or
    /// above, and the worst finding in words: an untrusted one is unavailable everywhere.
    /// Set by the check (`crate::parse::safety::withheld`).
    pub(crate) withheld: BTreeMap<String, String>,
}

impl Workspace {
    /// Bytes of every skill's assets, in the whole workspace.
    pub(crate) fn asset_bytes(&self) -> u64 {
        match self.census.as_deref() {
            Some(census) => census.asset_bytes,
            None => asset_bytes_of(self.skills.iter().map(|s| &**s)),
        }
    }

    /// The variables some skill of the whole workspace declares `secret: true`: a secret name
    /// is secret in every skill (its value never reaches the artifact), whoever else uses or declares it.
    pub(crate) fn secret_names(&self) -> std::collections::BTreeSet<String> {
        match self.census.as_deref() {
            Some(census) => census.secret_vars.clone(),
            None => secret_names_of(self.skills.iter().map(|s| &**s)),
        }
    }
}

/// Bytes of the assets of `skills`.
pub(crate) fn asset_bytes_of<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> u64 {
    skills
        .into_iter()
        .flat_map(|s| s.assets.iter())
        .map(|a| a.size)
        .sum()
}

/// The variables `skills` declare `secret: true`.
pub(crate) fn secret_names_of<'a>(
    skills: impl IntoIterator<Item = &'a Skill>,
) -> std::collections::BTreeSet<String> {
    skills
        .into_iter()
        .flat_map(|s| s.frontmatter.vars.iter())
        .filter(|(_, decl)| decl.secret)
        .map(|(name, _)| name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_any_run() {
        assert!(wildcard("public.*-press", "public.pdf-press"));
        assert!(!wildcard("public.*-press", "public.url-gen"));
        assert!(wildcard("public.*", "public.x"));
        assert!(wildcard("public.url-gen", "public.url-gen"));
        assert!(!wildcard("a*b*c", "acb"));
    }

    /// The digest of a skill whose `trigger_examples` are written `examples`.
    fn digest_of(examples: &str) -> String {
        let text =
            format!("---\nname: a\ndescription: A.\ntrigger_examples: {examples}\n---\nBody.\n");
        let files = [crate::discover::fsio::RawFile::new("a/SKILL.md", text)];
        let loaded = crate::parse::load::load_files(&files, &[], "ws");
        loaded.workspace.skills[0].translation_digest()
    }

    #[test]
    fn a_translation_is_a_copy_until_one_of_its_words_changes() {
        let default =
            "---\nname: a\ndescription: Offer a demo.\ntrigger_examples: [Demo]\n---\nOffer it.\n";
        let load = |fr: &str| {
            let files = [
                crate::discover::fsio::RawFile::new("a/SKILL.md", default.to_string()),
                crate::discover::fsio::RawFile::new("a/SKILL.fr.md", fr.to_string()),
            ];
            let loaded = crate::parse::load::load_files(&files, &[], "ws");
            let s = loaded.workspace.skills[0].clone();
            s.localized["fr"].is_copy_of(&s)
        };
        let copy = "---\ndescription: Offer a demo.\ntrigger_examples: [Demo]\ntranslated_from: x\n---\nOffer it.\n";
        assert!(load(copy));
        assert!(
            load("---\n---\nOffer it.\n"),
            "fields left out are the default's"
        );
        assert!(!load(&copy.replace("Offer it.", "Proposez-la.")));
        assert!(!load(&copy.replace("[Demo]", "[Démo]")));
        assert!(!load(&copy.replace(
            "description: Offer a demo.",
            "description: Proposer une démo."
        )));
    }

    #[test]
    fn translation_digests_tell_every_split_of_the_examples_apart() {
        let joined = digest_of(r#"["a\nb"]"#);
        assert_ne!(joined, digest_of(r#"["a", "b"]"#));
        assert_ne!(digest_of("[]"), digest_of(r#"[""]"#));
        assert_eq!(joined, digest_of(r#"["a\nb"]"#));
        assert_eq!(joined.len(), 12);
    }
}
