//! Rendering resolved entries: the entry record and its catalog and prompt fragments, through
//! tera templates that a workspace may override in `templates/`. Skill bodies are values passed
//! to templates, never templates themselves, so `{{` in a body's code examples survives.

pub(crate) mod tokens;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Serialize;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::model::fields::{self, Kept};
use crate::model::{
    Category, Condition, Frontmatter, Localized, Mcp, Predicate, Scope, Skill, Workspace,
};
use crate::parse::vars;
use crate::resolve::pool::{self, PooledSource};
use crate::resolve::{EntryKey, Prepared};
use skillc_runtime::schema::Record;

/// Built-in templates: (name, text). A workspace overrides one with `templates/<name>.tera`.
pub(crate) const TEMPLATES: &[(&str, &str)] = &[
    (
        "catalog_xml_skill",
        "<skill>\n<name>\n{{ name | xml_escape }}\n</name>\n<description>\n{{ description | xml_escape }}\n</description>\n<location>\n{{ location }}\n</location>\n</skill>\n",
    ),
    (
        "catalog_markdown_category",
        "## {{ display_name }}\n\n{% if selector_description %}{{ selector_description | trim }}\n\n{% endif %}{% if selector_guidance %}{{ selector_guidance | trim }}\n\n{% endif %}| id | skill | description | triggers |\n|---|---|---|---|\n",
    ),
    (
        "catalog_markdown_skill",
        "| {{ name | md_cell }} | {{ description | md_cell }} | {% for t in triggers %}\"{{ t | md_cell }}\"{% if not loop.last %}; {% endif %}{% endfor %} |\n",
    ),
    ("catalog_list_skill", "- **{{ name }}**: {{ description | md_cell }}\n"),
    (
        "prompt_category",
        "## {{ display_name }}\n\n{% if answer_instructions %}{{ answer_instructions | trim }}\n\n{% endif %}",
    ),
    ("prompt_uncertainty", "{% if uncertainty_guidance %}{{ uncertainty_guidance | trim }}\n\n{% endif %}"),
    ("prompt_skill", "### {{ name }}\n\n{{ body }}\n\n"),
    ("prompt_source", "[{{ sid }}] {% if title %}{{ title }} — {% endif %}{{ url }}\n"),
];

/// What a catalog shows of a skill. Entries that differ only in their body share a card, so
/// catalog text is rendered and stored once per card.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct Card {
    /// Selectable name.
    pub name: String,
    /// `<namespace>.<name>`.
    pub qualified_name: String,
    /// Category id.
    pub category: Option<String>,
    /// Description (localized).
    pub description: String,
    /// Trigger examples (localized), all of them.
    pub triggers: Vec<String>,
    /// `when_to_use` (localized).
    pub when_to_use: Vec<String>,
    /// The SKILL.md of the catalog identity, relative to the workspace.
    pub location: String,
    /// A hash of the fields above, computed once: a build looks cards up by content several
    /// times each (sharing them, their catalog texts, a session's memo of those).
    #[serde(skip)]
    digest: u64,
}

impl std::hash::Hash for Card {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.digest);
    }
}

impl Entry {
    /// The entry's catalog card.
    pub(crate) fn card(&self) -> Card {
        let fields = (
            &self.name,
            &self.qualified_name,
            &self.category,
            &self.description,
            &self.triggers,
            &self.when_to_use,
            &self.location,
        );
        let digest = crate::content_digest(&fields);
        Card {
            name: self.name.clone(),
            qualified_name: self.qualified_name.clone(),
            category: self.category.clone(),
            description: self.description.clone(),
            triggers: self.triggers.clone(),
            when_to_use: self.when_to_use.clone(),
            location: self.location.clone(),
            digest,
        }
    }
}

/// A resolved skill in a bundle: everything a runtime needs, no rule left to apply but the
/// run-time ones. What catalogs and the entry row show is here; the run-time fields are the
/// [`Record`] the artifact stores as it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// Selectable name.
    pub name: String,
    /// `<namespace>.<name>`.
    pub qualified_name: String,
    /// The skill whose content is used (a variant or client override).
    pub resolved_name: String,
    /// The SKILL.md of the catalog identity (the base skill or the client's override).
    pub location: String,
    /// Category id.
    pub category: Option<String>,
    /// Description (localized).
    pub description: String,
    /// Trigger examples (localized), all of them.
    pub triggers: Vec<String>,
    /// `when_to_use` (localized).
    pub when_to_use: Vec<String>,
    /// Never in catalogs.
    pub hidden: bool,
    /// Shown in catalogs (available, not hidden, not internal, category not hidden).
    pub catalog_visible: bool,
    /// Injected into every answer prompt whose conditions hold.
    pub always_on: bool,
    /// The body: localized, tier-selected, variables substituted, sources rewritten.
    pub body: String,
    /// The distinct words of the catalog identity's own body (its `SKILL.md`'s, whatever the
    /// locale, tier or client variant): what the routing index holds of the body, the same for
    /// every entry of a card (`card_route`).
    pub body_words: Arc<str>,
    /// The same body's distinct words as written, which the built-in meaning reads
    /// (`card_route.meaning`).
    pub body_text_words: Arc<str>,
    /// Tokens of the body (counted once per distinct body by the build).
    pub body_tokens: u32,
    /// Code from an untrusted client overlay: prompt-only.
    pub untrusted: bool,
    /// Why the skill is unavailable in this bundle, if it is.
    pub unavailable: Option<String>,
    /// The run-time fields (composition, conditions, tools, requirements, sources cited, …).
    pub record: Record,
}

/// Stands for the body while the prompt template renders, so the stored fragment is the text
/// around the body and the body itself is stored once.
const BODY_MARK: &str = "\u{E000}skillc-body\u{E000}";

/// A skill's prompt fragment: `prefix`, then the body when `has_body`, then `suffix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptParts {
    /// Text before the body.
    pub prefix: String,
    /// Text after the body.
    pub suffix: String,
    /// Whether the body goes between them (false when a template does not place it once).
    pub has_body: bool,
}

/// A template that failed to render: the file to blame and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RenderError {
    /// `templates/<name>.tera` for a workspace override, empty for a built-in template.
    pub file: String,
    /// What went wrong.
    pub message: String,
}

/// Tera with the workspace's overrides and this format's filters.
pub(crate) struct Renderer {
    tera: tera::Tera,
    max_triggers: usize,
    overridden: std::collections::BTreeSet<String>,
    /// Token counts made before (a session's, or this build's).
    counts: Arc<tokens::Counts>,
}

/// The innermost useful line of a tera error (parse errors carry the position and the
/// expectation on separate lines).
fn tera_reason(e: &tera::Error) -> (String, Option<(usize, usize)>) {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = s.to_string();
        source = s.source();
    }
    let pos = text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("--> ")?;
        let (line, col) = rest.split_once(':')?;
        Some((line.trim().parse().ok()?, col.trim().parse().ok()?))
    });
    let reason = text
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("= "))
        .unwrap_or_else(|| text.lines().next().unwrap_or(""))
        .to_string();
    (reason, pos)
}

fn xml_escape(value: &tera::Value, _: &HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
    let s = tera::try_get_value!("xml_escape", "value", String, value);
    // Exactly Python's html.escape(s, quote=True), which skills-ref uses.
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    Ok(tera::Value::String(out))
}

/// tera's `abs`, without its overflow on the smallest integer (a panic in a debug build, a
/// negative result in a release build).
fn abs(value: &tera::Value, _: &HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
    match value {
        tera::Value::Number(n) if n.is_i64() => n
            .as_i64()
            .and_then(i64::checked_abs)
            .map(tera::Value::from)
            .ok_or_else(|| tera::Error::msg(format!("`abs` of {n} is out of range"))),
        tera::Value::Number(n) if n.is_u64() => Ok(value.clone()),
        tera::Value::Number(n) => Ok(tera::Value::from(n.as_f64().unwrap_or(0.0).abs())),
        _ => Err(tera::Error::msg("`abs` is for numbers")),
    }
}

fn md_cell(value: &tera::Value, _: &HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
    let s = tera::try_get_value!("md_cell", "value", String, value);
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok(tera::Value::String(one_line.replace('|', "\\|")))
}

impl Renderer {
    /// Built-in templates with `ws`'s overrides, counting tokens through `counts`. A template
    /// that does not parse, or an override for no known template, is a diagnostic.
    pub(crate) fn new(ws: &Workspace, counts: Arc<tokens::Counts>) -> (Renderer, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let mut tera = tera::Tera::default();
        tera.autoescape_on(vec![]);
        tera.register_filter("xml_escape", xml_escape);
        tera.register_filter("md_cell", md_cell);
        tera.register_filter("abs", abs);
        for (name, text) in TEMPLATES {
            let file = format!("{name}.tera");
            let (body, origin) = match ws.templates.get(&file) {
                Some(custom) => (custom.as_str(), format!("templates/{file}")),
                None => (*text, String::new()),
            };
            let parsed =
                crate::check::template_guard::contained(|| tera.add_raw_template(name, body))
                    .unwrap_or_else(|why| Err(tera::Error::msg(why)));
            if parsed.is_ok() && !origin.is_empty() {
                let template = tera.get_template(name).expect("just added");
                if let Err(why) = crate::check::template_guard::check(&template.ast) {
                    diags.push(
                        Diagnostic::new(
                            codes::BAD_TEMPLATE,
                            &origin,
                            Pos::start(),
                            format!("template is outside the limits: {why}"),
                        )
                        .with_help("templates render one fragment each: no macros, includes or nested loops"),
                    );
                    tera.add_raw_template(name, text)
                        .expect("built-in templates parse");
                    continue;
                }
            }
            if let Err(e) = parsed {
                let (why, at) = tera_reason(&e);
                let pos = at.map_or(Pos::start(), |(line, column)| Pos {
                    line,
                    column,
                    len: 1,
                });
                diags.push(
                    Diagnostic::new(
                        codes::BAD_TEMPLATE,
                        &origin,
                        pos,
                        format!("template does not parse: {why}"),
                    )
                    .with_source(body),
                );
                tera.add_raw_template(name, text)
                    .expect("built-in templates parse");
            }
        }
        for file in ws.templates.keys() {
            if !TEMPLATES.iter().any(|(n, _)| format!("{n}.tera") == *file) {
                let known: Vec<String> =
                    TEMPLATES.iter().map(|(n, _)| format!("{n}.tera")).collect();
                diags.push(
                    Diagnostic::new(
                        codes::BAD_TEMPLATE,
                        &format!("templates/{file}"),
                        Pos::start(),
                        format!("`{file}` overrides no built-in template"),
                    )
                    .with_help(format!("templates: {}", known.join(", "))),
                );
            }
        }
        (
            Renderer {
                tera,
                max_triggers: ws.config.max_triggers,
                overridden: ws.templates.keys().cloned().collect(),
                counts,
            },
            diags,
        )
    }

    /// Tokens of `text`, through the counts this renderer was given.
    pub(crate) fn tokens(&self, text: &str) -> u32 {
        self.counts.count(text)
    }

    fn render(&self, name: &str, ctx: &tera::Context) -> Result<String, RenderError> {
        let mut out = crate::check::template_guard::CappedOutput::default();
        let rendered = crate::check::template_guard::contained(|| {
            self.tera
                .render_to(name, ctx, &mut out)
                .map_err(|e| tera_reason(&e).0)
        })
        .and_then(|r| r)
        .map(|()| String::from_utf8_lossy(&out.0).into_owned());
        rendered.map_err(|why| {
            let file = format!("{name}.tera");
            RenderError {
                file: if self.overridden.contains(&file) {
                    format!("templates/{file}")
                } else {
                    String::new()
                },
                message: format!("template `{name}` failed to render: {why}"),
            }
        })
    }

    /// Catalog fragments of a card for each format, with descriptions cut to `max_chars`
    /// and triggers dropped when asked (tier budgets).
    pub(crate) fn catalog_fragments(
        &self,
        c: &Card,
        drop_triggers: bool,
        max_chars: Option<usize>,
    ) -> Result<Vec<(&'static str, String)>, RenderError> {
        let mut ctx = tera::Context::new();
        let description = match max_chars {
            Some(n) => shorten(&c.description, n),
            None => c.description.clone(),
        };
        let triggers: Vec<&String> = if drop_triggers {
            Vec::new()
        } else {
            c.triggers.iter().take(self.max_triggers).collect()
        };
        ctx.insert("name", &c.name);
        ctx.insert("qualified_name", &c.qualified_name);
        ctx.insert("description", &description);
        ctx.insert("triggers", &triggers);
        ctx.insert("when_to_use", &c.when_to_use);
        ctx.insert("location", &c.location);
        ctx.insert("category", &c.category);
        Ok(vec![
            ("xml", self.render("catalog_xml_skill", &ctx)?),
            ("markdown", self.render("catalog_markdown_skill", &ctx)?),
            ("list", self.render("catalog_list_skill", &ctx)?),
        ])
    }

    /// The prompt fragment of an entry, split around its body.
    pub(crate) fn prompt_fragment(&self, e: &Entry) -> Result<PromptParts, RenderError> {
        let mut ctx = tera::Context::new();
        ctx.insert("name", &e.name);
        ctx.insert("resolved_name", &e.resolved_name);
        ctx.insert("category", &e.category);
        ctx.insert("meta", &e.record.meta);
        ctx.insert("body", BODY_MARK);
        let marked = self.render("prompt_skill", &ctx)?;
        if let Some((prefix, suffix)) = marked.split_once(BODY_MARK) {
            if !suffix.contains(BODY_MARK) {
                return Ok(PromptParts {
                    prefix: prefix.to_string(),
                    suffix: suffix.to_string(),
                    has_body: true,
                });
            }
        }
        // The template transforms or repeats the body: keep its whole output.
        ctx.insert("body", &e.body);
        Ok(PromptParts {
            prefix: self.render("prompt_skill", &ctx)?,
            suffix: String::new(),
            has_body: false,
        })
    }

    /// A category's fragments: markdown catalog header, prompt heading, uncertainty guidance.
    pub(crate) fn category_fragments(&self, c: &Category) -> Result<[String; 3], RenderError> {
        let mut ctx = tera::Context::new();
        ctx.insert("id", &c.id);
        ctx.insert("display_name", c.display_name.as_deref().unwrap_or(&c.id));
        ctx.insert("selector_description", &c.selector_description);
        ctx.insert("selector_guidance", &c.selector_guidance);
        ctx.insert("answer_instructions", &c.answer_instructions);
        ctx.insert("uncertainty_guidance", &c.uncertainty_guidance);
        Ok([
            self.render("catalog_markdown_category", &ctx)?,
            self.render("prompt_category", &ctx)?,
            self.render("prompt_uncertainty", &ctx)?,
        ])
    }

    /// A source's line in a prompt's sources section.
    pub(crate) fn source_fragment(&self, s: &PooledSource) -> Result<String, RenderError> {
        let mut ctx = tera::Context::new();
        ctx.insert("sid", &s.sid);
        ctx.insert("url", &s.url);
        ctx.insert("title", &s.title);
        ctx.insert("text", &s.text);
        self.render("prompt_source", &ctx)
    }
}

/// Cuts `text` to at most `max` characters at a word boundary, marking the cut with `…`.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(i) if i > cut.len() / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!(
        "{}…",
        cut.trim_end_matches(|c: char| c.is_whitespace() || c == ',' || c == ';')
    )
}

/// The variables the entry's text still uses at run time (no build-time value), sorted.
fn runtime_vars(p: &Prepared<'_>, key: &EntryKey, values: &BTreeMap<&str, &str>) -> Vec<String> {
    let fm = &p.ws.skills[key.source].frontmatter;
    let mut names: Vec<String> = p.uses[key.source]
        .iter()
        .filter(|n| {
            !values.contains_key(n.as_str()) && (fm.vars.contains_key(*n) || p.secrets.contains(*n))
        })
        .cloned()
        .collect();
    names.sort();
    names
}

/// A variant's `when` in words (empty for the base skill itself).
fn variant_when(key: &EntryKey, fm: &crate::model::Frontmatter) -> Vec<String> {
    if key.source == key.base {
        Vec::new()
    } else {
        fm.when.iter().map(Predicate::words).collect()
    }
}

/// The display metadata of each pair of skills (base, source) a build's entries show, made
/// once per pair: a skill naming each client's company has an entry per client, and making
/// the metadata (both frontmatters as JSON) was a tenth of a rebuild after its edit.
#[derive(Default)]
pub(crate) struct DisplayMetas {
    made: std::sync::Mutex<HashMap<(usize, usize), Arc<Meta>>>,
}

type Meta = BTreeMap<String, serde_json::Value>;

impl DisplayMetas {
    fn of(&self, p: &Prepared<'_>, key: &EntryKey) -> Meta {
        let pair = (key.base, key.source);
        let known = self.made.lock().ok().and_then(|m| m.get(&pair).cloned());
        let meta = known.unwrap_or_else(|| {
            let meta = Arc::new(display_meta(
                &p.ws.skills[key.base],
                &p.ws.skills[key.source],
            ));
            if let Ok(mut m) = self.made.lock() {
                m.insert(pair, meta.clone());
            }
            meta
        });
        (*meta).clone()
    }
}

/// Builds the entry an [`EntryKey`] describes (its display metadata from `metas`).
pub(crate) fn build_entry(
    p: &Prepared<'_>,
    pool: &pool::Pool,
    key: &EntryKey,
    metas: &DisplayMetas,
) -> Entry {
    let ws = p.ws;
    let base = &ws.skills[key.base];
    let src = &ws.skills[key.source];
    let fm = &src.frontmatter;
    let loc_base = key.locale_file.as_ref().and_then(|l| base.localized.get(l));
    let loc_src = key.locale_file.as_ref().and_then(|l| src.localized.get(l));
    let values: BTreeMap<&str, &str> = key
        .vars
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();

    let (body, cited) = resolved_body(src, key, loc_src, &values, pool);

    let (description, triggers, when_to_use) = catalog_text(base, loc_base);

    let category = base.category.clone();
    let category_hidden = category
        .as_ref()
        .and_then(|c| ws.categories.get(c))
        .is_some_and(|c| c.hidden_from_llm);
    let hidden = base.frontmatter.hidden_from_llm;

    Entry {
        name: base.name.clone(),
        qualified_name: p.qualified[key.base].clone(),
        resolved_name: src.name.clone(),
        location: base.file.clone(),
        category,
        description,
        triggers,
        when_to_use,
        hidden,
        catalog_visible: key.unavailable.is_none()
            && !hidden
            && !category_hidden
            && base.namespace != "internal",
        always_on: fm.always_on || base.frontmatter.always_on,
        body_tokens: 0,
        body,
        body_words: base.prose_words().0.clone(),
        body_text_words: base.prose_words().1.clone(),
        untrusted: key.untrusted,
        unavailable: key.unavailable.clone(),
        record: record_of(p, key, &values, cited, metas),
    }
}

/// The run-time fields of the entry `key` describes.
fn record_of(
    p: &Prepared<'_>,
    key: &EntryKey,
    values: &BTreeMap<&str, &str>,
    cited: Vec<u32>,
    metas: &DisplayMetas,
) -> Record {
    let (base, src) = (&p.ws.skills[key.base], &p.ws.skills[key.source]);
    let fm = &src.frontmatter;
    let edges = &p.edges[key.source];
    let tools = fm.tools.iter().chain(&src.tool_notes);
    Record {
        namespace: base.namespace.clone(),
        resolved_file: src.file.clone(),
        // The conversation's language picks the locale at build time, not at run time.
        conditions: fm
            .conditions
            .iter()
            .filter(|c| !matches!(c, Condition::ConversationLanguage(_)))
            .cloned()
            .collect(),
        dependencies: edges.dependencies.clone(),
        augments: edges.augments.clone(),
        blocks: edges.blocks.clone(),
        imports: edges.imports.clone(),
        requires_env: fm.requires.env.clone(),
        requires_binary: fm.requires.binary.clone(),
        runtime_vars: runtime_vars(p, key, values),
        mcp: fm.mcp.as_ref().map(|m| with_values(m, values)),
        tools: tools
            .map(|t| serde_json::to_value(t).unwrap_or_default())
            .collect(),
        next_skill: edges.next_skill.clone(),
        conditional_next: edges.conditional_next.clone(),
        cited,
        meta: metas.of(p, key),
        default_enabled: base.frontmatter.default_enabled,
        variant_when: variant_when(key, fm),
        locale_used: key.locale_file.clone(),
        compact: key.compact,
        ..kept_in_record(&base.frontmatter)
    }
}

/// The record's fields that the base skill's frontmatter gives as written ([`Kept::Record`]),
/// each under its stored key: serde puts them into [`Record`]'s fields of the same name.
fn kept_in_record(fm: &Frontmatter) -> Record {
    let written: serde_json::Map<String, serde_json::Value> = fields::FIELDS
        .iter()
        .filter(|f| f.kept == Kept::Record)
        .filter_map(|f| {
            let key = f.key();
            fm.plain.get(&key).map(|v| (key, v.clone()))
        })
        .collect();
    // The parse gave each value its field's shape, which `Record` declares alike (a test
    // below holds it).
    serde_json::from_value(serde_json::Value::Object(written)).unwrap_or_default()
}

/// The body an entry shows: the tier's compact body or the locale's, variables substituted,
/// source tokens rewritten to pool ids; and the ids it cites.
fn resolved_body(
    src: &Skill,
    key: &EntryKey,
    localized: Option<&Localized>,
    values: &BTreeMap<&str, &str>,
    pool: &pool::Pool,
) -> (String, Vec<u32>) {
    let raw = match (key.compact, localized) {
        (true, _) => src.compact.as_deref().unwrap_or(&src.body),
        (false, Some(l)) => &l.body,
        (false, None) => &src.body,
    };
    let substituted = vars::substitute(raw, |n| values.get(n).copied());
    pool::rewrite(substituted.trim(), &pool.local[key.source])
}

/// What a catalog shows of the skill: description, trigger examples and when to use, from
/// the localized file when it has them.
fn catalog_text(base: &Skill, localized: Option<&Localized>) -> (String, Vec<String>, Vec<String>) {
    let fm = &base.frontmatter;
    let description = localized
        .and_then(|l| l.description.clone())
        .or_else(|| fm.description.clone())
        .unwrap_or_default()
        .trim()
        .to_string();
    let triggers = localized
        .and_then(|l| l.trigger_examples.clone())
        .unwrap_or_else(|| fm.trigger_examples.clone());
    let when_to_use = localized
        .and_then(|l| l.when_to_use.clone())
        .unwrap_or_else(|| fm.when_to_use.clone());
    (description, triggers, when_to_use)
}

/// The MCP server with the build-time variables filled into its `${VAR}` settings.
fn with_values(m: &Mcp, values: &BTreeMap<&str, &str>) -> Mcp {
    Mcp {
        env: m
            .env
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    vars::substitute_dollar(v, |n| values.get(n).copied()),
                )
            })
            .collect(),
        ..m.clone()
    }
}

/// Display and catalog metadata of an entry: the fields set, empty ones left out.
fn display_meta(base: &Skill, src: &Skill) -> Meta {
    use serde_json::json;
    let fm = &src.frontmatter;
    let mut meta = BTreeMap::new();
    let mut put = |k: &str, v: serde_json::Value| {
        if !(v.is_null() || v == json!([]) || v == json!({})) {
            meta.insert(k.to_string(), v);
        }
    };
    // The fields the table keeps as display metadata, each under its stored key.
    let (label, shown) = (json!(base.frontmatter), json!(fm));
    for field in fields::FIELDS {
        let of = match field.kept {
            Kept::Label => &label,
            Kept::Meta => &shown,
            Kept::Build | Kept::Record => continue,
        };
        let key = field.key();
        put(&key, of.get(&key).cloned().unwrap_or_default());
    }
    put("client_fields", json!(fm.client_fields));
    put("required", json!(base.frontmatter.required.then_some(true)));
    let assets: BTreeMap<_, _> = src
        .assets
        .iter()
        .map(|a| (a.path.clone(), a.size))
        .collect();
    put("assets", json!(assets));
    let client = match &src.scope {
        Scope::Client(id) => Some(id),
        Scope::Global => None,
    };
    put("client", json!(client));
    meta
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_kept_in_the_record_is_a_field_of_record() {
        for field in fields::FIELDS.iter().filter(|f| f.kept == Kept::Record) {
            let value = match field.shape {
                fields::Shape::Bool => serde_json::json!(true),
                fields::Shape::Int => serde_json::json!(7),
                fields::Shape::Text => serde_json::json!("x"),
                _ => serde_json::json!(["x"]),
            };
            let fm = Frontmatter {
                plain: BTreeMap::from([(field.key(), value.clone())]),
                ..Frontmatter::default()
            };
            let stored = serde_json::to_value(kept_in_record(&fm)).unwrap_or_default();
            assert_eq!(stored.get(field.key()), Some(&value), "{}", field.name);
        }
    }

    #[test]
    fn shortens_at_word_boundaries() {
        assert_eq!(shorten("short", 10), "short");
        assert_eq!(shorten("one two three four", 12), "one two…");
    }
}
