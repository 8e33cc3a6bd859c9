//! Resolution: which content each selectable name has in a bundle.
//!
//! A bundle is a client (or the client-less global bundle) × a locale × a tier. For each
//! selectable name, resolution applies, in order: client overrides, variants, toggles, the tier
//! filter, build-time conditions (locale), availability (required variables, `requires.skills`),
//! variables, localized content and the tier body. The result is an [`EntryKey`]: everything
//! that decides the entry's content, so identical content is built and stored once.

pub(crate) mod pool;
mod slots;

pub(crate) use slots::{plain_names, Interner};
pub use slots::{Slot, Slots};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;
use skillc_runtime::schema::LeftOut;

use crate::model::{BodyMode, Client, Condition, Predicate, Scope, Skill, Workspace};
use crate::parse::refs::Index;
use crate::parse::vars;

/// One bundle to build.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct BundleSpec {
    /// The client, or `None` for the global bundle.
    pub client: Option<String>,
    /// Locale of the bundle.
    pub locale: String,
    /// Tier of the bundle.
    pub tier: String,
}

/// The bundle in words (see [`skillc_runtime::bundle_label`]).
impl std::fmt::Display for BundleSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let client = self.client.as_deref().unwrap_or_default();
        f.write_str(&skillc_runtime::bundle_label(
            client,
            &self.locale,
            &self.tier,
        ))
    }
}

/// Everything that decides a resolved entry's content.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct EntryKey {
    /// The skill whose catalog identity is used (the base, or the client's override).
    pub base: usize,
    /// The skill whose content is used (a variant, or the base).
    pub source: usize,
    /// The localized file used, if any.
    pub locale_file: Option<String>,
    /// Whether the body is `compact.md`.
    pub compact: bool,
    /// Values of the non-secret variables the content uses.
    pub vars: Vec<(String, String)>,
    /// Why the skill is unavailable, if it is.
    pub unavailable: Option<String>,
    /// Whether the source's code is untrusted (client overlays the workspace does not trust).
    pub untrusted: bool,
    /// A hash of the fields above, computed once ([`EntryKey::sealed`]): a build looks keys up
    /// many times each (sharing them, numbering entries, a session's memo of those).
    digest: u64,
}

impl EntryKey {
    /// The key with its digest computed from its fields.
    fn sealed(mut self) -> Self {
        let fields = (
            self.base,
            self.source,
            &self.locale_file,
            self.compact,
            &self.vars,
            &self.unavailable,
            self.untrusted,
        );
        self.digest = crate::content_digest(&fields);
        self
    }
}

impl std::hash::Hash for EntryKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.digest);
    }
}

/// Per-workspace facts that every bundle's resolution reads.
#[derive(Debug)]
pub struct Prepared<'a> {
    /// The workspace.
    pub ws: &'a Workspace,
    /// Qualified names of every skill.
    pub qualified: Vec<String>,
    /// Each skill's references, resolved to qualified names (in its own scope first). Shared
    /// with a session's next build, which takes those of unchanged skills.
    pub edges: Vec<Arc<Edges>>,
    /// Variables each skill's content uses (placeholders and declarations), shared alike.
    pub uses: Vec<Arc<BTreeSet<String>>>,
    /// Variables some skill declares secret: never given a value at build time, in any skill.
    pub secrets: BTreeSet<String>,
    /// Global base skills by qualified name.
    global: BTreeMap<String, usize>,
    /// Each client's base skills by qualified name.
    client: BTreeMap<String, BTreeMap<String, usize>>,
    /// Variants by the qualified name of their base.
    variants: BTreeMap<String, Vec<usize>>,
}

/// A skill's references resolved to qualified names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Edges {
    /// `dependencies`.
    pub dependencies: Vec<String>,
    /// `augments`.
    pub augments: Vec<String>,
    /// `blocks`.
    pub blocks: Vec<String>,
    /// `import` / `imports`.
    pub imports: Vec<String>,
    /// `requires.skills`.
    pub requires: Vec<String>,
    /// `next_skill`.
    pub next_skill: Option<String>,
    /// `conditional_next_skills`.
    pub conditional_next: BTreeMap<String, String>,
    /// `variant_of`.
    pub variant_of: Option<String>,
}

fn resolve_ref(index: &Index<'_>, ws: &Workspace, text: &str, scope: &Scope) -> Option<String> {
    if let Some(i) = index.resolve(text, scope) {
        return Some(ws.skills[i].qualified_name());
    }
    // A global skill may name a skill that only some clients have (in a batch of clients,
    // any client of the workspace).
    let (ns, name) = crate::parse::refs::split(text);
    if let Some(census) = ws.census.as_deref() {
        return census.anywhere(ns, &name);
    }
    ws.skills
        .iter()
        .find(|s| s.name == name && ns.is_none_or(|ns| s.namespace == ns))
        .map(|s| s.qualified_name())
}

/// Each skill's resolved references and the variables it uses, by skill index: what a
/// session's next build may take from [`Prepared`].
#[derive(Debug, Default)]
pub struct PerSkill {
    edges: Vec<Arc<Edges>>,
    uses: Vec<Arc<BTreeSet<String>>>,
}

/// What an earlier build of the same workspace prepared (a session's previous build).
#[derive(Clone, Copy)]
pub(crate) struct Earlier<'e> {
    /// Its workspace.
    pub ws: &'e Workspace,
    /// What it prepared of each skill.
    pub per_skill: &'e PerSkill,
}

impl PerSkill {
    /// The variables skill `i`'s content used.
    pub(crate) fn uses_of(&self, i: usize) -> Option<&Arc<BTreeSet<String>>> {
        self.uses.get(i)
    }
}

impl Prepared<'_> {
    /// What a session's next build may take.
    pub fn into_per_skill(self) -> PerSkill {
        PerSkill {
            edges: self.edges,
            uses: self.uses,
        }
    }
}

/// Precomputes names, edges and variable uses, each skill's on every core.
pub fn prepare(ws: &Workspace) -> Prepared<'_> {
    prepare_from(ws, None)
}

/// [`prepare`], taking from `earlier` what it prepared of each skill that is the same parse:
/// the variables it uses, and its references while every skill has the name, namespace and
/// scope it had (they resolve through all of them). A rebuild after one edit otherwise scans
/// every body for placeholders again.
pub(crate) fn prepare_from<'a>(ws: &'a Workspace, earlier: Option<Earlier<'_>>) -> Prepared<'a> {
    use rayon::prelude::*;
    let index = Index::new(ws);
    let qualified: Vec<String> = ws.skills.par_iter().map(|s| s.qualified_name()).collect();
    let earlier = earlier.filter(|e| e.ws.skills.len() == ws.skills.len());
    let same_names = earlier.is_some_and(|e| {
        let same_place = |a: &Skill, b: &Skill| {
            a.scope == b.scope && a.name == b.name && a.namespace == b.namespace
        };
        e.ws.skills
            .iter()
            .zip(&ws.skills)
            .all(|(a, b)| same_place(a, b))
    });
    let (edges, uses): (Vec<Arc<Edges>>, Vec<Arc<BTreeSet<String>>>) = ws
        .skills
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            let same = earlier.filter(|e| Arc::ptr_eq(&e.ws.skills[i], s));
            let edges = match same.filter(|_| same_names) {
                Some(e) => e.per_skill.edges[i].clone(),
                None => Arc::new(edges_of(&index, ws, s)),
            };
            let uses = match same {
                Some(e) => e.per_skill.uses[i].clone(),
                None => Arc::new(variables_used(s)),
            };
            (edges, uses)
        })
        .unzip();
    let mut global = BTreeMap::new();
    let mut client: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut variants: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (s, e)) in ws.skills.iter().zip(&edges).enumerate() {
        match (&e.variant_of, &s.scope) {
            (Some(base), _) => variants.entry(base.clone()).or_default().push(i),
            (None, Scope::Global) => {
                global.entry(qualified[i].clone()).or_insert(i);
            }
            (None, Scope::Client(id)) => {
                client
                    .entry(id.clone())
                    .or_default()
                    .entry(qualified[i].clone())
                    .or_insert(i);
            }
        }
    }
    Prepared {
        ws,
        qualified,
        edges,
        uses,
        secrets: ws.secret_names(),
        global,
        client,
        variants,
    }
}

/// A skill's references, resolved.
fn edges_of(index: &Index<'_>, ws: &Workspace, s: &Skill) -> Edges {
    let fm = &s.frontmatter;
    let one = |x: &crate::model::SkillRef| resolve_ref(index, ws, &x.text, &s.scope);
    let all = |list: &Vec<crate::model::SkillRef>| -> Vec<String> {
        list.iter().filter_map(one).collect()
    };
    Edges {
        dependencies: all(&fm.dependencies),
        augments: all(&fm.augments),
        blocks: all(&fm.blocks),
        imports: all(&fm.imports),
        requires: all(&fm.requires.skills),
        next_skill: fm.next_skill.as_ref().and_then(one),
        conditional_next: fm
            .conditional_next_skills
            .iter()
            .filter_map(|(k, x)| one(x).map(|q| (k.clone(), q)))
            .collect(),
        variant_of: fm.variant_of.as_ref().and_then(one),
    }
}

/// The variables a skill declares or its texts use.
fn variables_used(s: &Skill) -> BTreeSet<String> {
    let fm = &s.frontmatter;
    let mut used: BTreeSet<String> = fm.vars.keys().cloned().collect();
    let texts = std::iter::once(s.body.as_str())
        .chain(s.compact.as_deref())
        .chain(s.localized.values().map(|l| l.body.as_str()));
    for t in texts {
        used.extend(vars::placeholders(t).into_iter().map(str::to_string));
    }
    if let Some(mcp) = &fm.mcp {
        for v in mcp.env.values() {
            for name in vars::dollar_placeholders(v) {
                if fm.vars.contains_key(name) {
                    used.insert(name.to_string());
                }
            }
        }
    }
    used
}

/// Every bundle of the workspace: the global one and each client's, × locales × tiers.
pub fn bundles(ws: &Workspace) -> Vec<BundleSpec> {
    let mut out = Vec::new();
    let tiers: Vec<&str> = ws.config.tiers.iter().map(|t| t.name.as_str()).collect();
    for locale in &ws.config.locales {
        for tier in &tiers {
            out.push(BundleSpec {
                client: None,
                locale: locale.clone(),
                tier: tier.to_string(),
            });
        }
    }
    for c in ws.clients.values() {
        for locale in c.locales.as_ref().unwrap_or(&ws.config.locales) {
            for tier in &tiers {
                if c.tiers.as_ref().is_none_or(|t| t.iter().any(|x| x == tier)) {
                    out.push(BundleSpec {
                        client: Some(c.id.clone()),
                        locale: locale.clone(),
                        tier: tier.to_string(),
                    });
                }
            }
        }
    }
    out.sort();
    out
}

/// Looks up a dotted path (`competitors.names`) in client flags.
/// Whether a variant's `when` predicates all hold for this client, tier and locale.
pub(crate) fn predicates_hold(
    when: &[Predicate],
    flags: &serde_json::Value,
    spec: &BundleSpec,
) -> bool {
    when.iter()
        .all(|p| p.holds(flags, &spec.tier, &spec.locale))
}

/// The locale chain `fr-ca` → `fr-ca`, `fr`.
pub(crate) fn locale_chain(locale: &str) -> Vec<&str> {
    let mut out = vec![locale];
    let mut cur = locale;
    while let Some((parent, _)) = cur.rsplit_once('-') {
        out.push(parent);
        cur = parent;
    }
    out
}

/// The value of a variable for a skill in a bundle, by priority: client vars
/// (skill section, then `_global`) → the skill's vars.json → variables.json skill section →
/// variables.json `_global` → the environment and the declared default (declared variables
/// only: an undeclared placeholder never reads the build machine's environment).
pub(crate) fn var_value(
    ws: &Workspace,
    client: Option<&Client>,
    skill: &Skill,
    name: &str,
) -> Option<String> {
    let sections = |s: &BTreeMap<String, BTreeMap<String, String>>| {
        s.get(&skill.name)
            .and_then(|v| v.get(name))
            .or_else(|| s.get("_global").and_then(|v| v.get(name)))
            .cloned()
    };
    if let Some(v) = client.and_then(|c| sections(&c.vars)) {
        return Some(v);
    }
    if let Some(v) = skill.vars_json.get(name) {
        return Some(v.clone());
    }
    if let Some(v) = sections(&ws.variables) {
        return Some(v);
    }
    let decl = skill.frontmatter.vars.get(name)?;
    // The build's environment (a CI token, say) reaches only a skill that declares the
    // variable, and never one from a package the workspace does not trust.
    let untrusted_package = skill
        .package
        .as_ref()
        .is_some_and(|p| !ws.config.trusted.iter().any(|t| t == p));
    let from_env = if untrusted_package {
        None
    } else {
        std::env::var(name).ok()
    };
    from_env.or_else(|| decl.default.clone())
}

impl Prepared<'_> {
    /// The qualified names whose resolution in a bundle of `client` may differ from the global
    /// bundle of the same locale and tier: the client's own skills, its toggles, variants that
    /// read flags, skills using the client's variables, and whatever requires one of those.
    pub fn affected(&self, client: &str) -> BTreeSet<String> {
        let ws = self.ws;
        let Some(c) = ws.clients.get(client) else {
            return BTreeSet::new();
        };
        let mut out: BTreeSet<String> = self
            .client
            .get(client)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let global_vars: BTreeSet<&str> = c
            .vars
            .get("_global")
            .map(|v| v.keys().map(String::as_str).collect())
            .unwrap_or_default();
        for (q, &base) in &self.global {
            let name = &ws.skills[base].name;
            let variants = self.variants.get(q).map(Vec::as_slice).unwrap_or_default();
            let sources = std::iter::once(base).chain(variants.iter().copied());
            let touched = c.toggles.contains_key(name)
                || variants.iter().any(|&v| {
                    matches!(ws.skills[v].scope, Scope::Client(_))
                        || ws.skills[v].frontmatter.when.iter().any(|p| {
                            matches!(
                                p,
                                Predicate::FlagNonEmpty { .. } | Predicate::FlagEquals { .. }
                            )
                        })
                })
                || sources.into_iter().any(|i| {
                    c.vars.contains_key(&ws.skills[i].name)
                        || self.uses[i]
                            .iter()
                            .any(|u| global_vars.contains(u.as_str()))
                });
            if touched {
                out.insert(q.clone());
            }
        }
        // Whatever requires an affected skill may change availability with it.
        loop {
            let before = out.len();
            for (q, &base) in &self.global {
                let variants = self.variants.get(q).map(Vec::as_slice).unwrap_or_default();
                let requires_affected = std::iter::once(base)
                    .chain(variants.iter().copied())
                    .any(|i| self.edges[i].requires.iter().any(|r| out.contains(r)));
                if requires_affected {
                    out.insert(q.clone());
                }
            }
            if out.len() == before {
                break;
            }
        }
        out
    }

    /// Resolves one bundle: every selectable qualified name and what it is there.
    pub fn resolve(&self, spec: &BundleSpec) -> BTreeMap<String, Slot> {
        self.resolve_some(spec, None)
    }

    /// Resolves only the names in `only` (all when `None`), reading the others' availability
    /// from `base` (the global bundle of the same locale and tier).
    pub fn resolve_some(
        &self,
        spec: &BundleSpec,
        only: Option<(&BTreeSet<String>, &Slots)>,
    ) -> BTreeMap<String, Slot> {
        let ctx = BundleCtx::new(self.ws, spec, only);
        let mut slots: BTreeMap<String, Slot> = BTreeMap::new();
        let mut present: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for (q, base) in self.bases(&ctx) {
            let source = self.variant(&ctx, q, base);
            match self.left_out(&ctx, base, source) {
                Some(why) => {
                    slots.insert(q.to_string(), Slot::Removed(why.stored()));
                }
                None => {
                    present.insert(q, (base, source));
                }
            }
        }
        let unavailable = self.unavailable(&ctx, &present);
        for (q, &(base, source)) in &present {
            let key = self.entry_key(&ctx, base, source, unavailable.get(q).cloned());
            slots.insert(q.to_string(), Slot::Entry(Arc::new(key)));
        }
        slots
    }

    /// 1. Client overrides: the client's skill beats the global one by qualified name.
    fn bases<'a>(&'a self, ctx: &BundleCtx<'a, 'a>) -> BTreeMap<&'a str, usize> {
        let own = ctx.spec.client.as_ref().and_then(|c| self.client.get(c));
        match ctx.only {
            // Only the affected names: looked up, not filtered out of the whole workspace.
            Some((names, _)) => names
                .iter()
                .filter_map(|q| {
                    own.and_then(|o| o.get(q))
                        .or_else(|| self.global.get(q))
                        .map(|&i| (q.as_str(), i))
                })
                .collect(),
            None => {
                let mut all: BTreeMap<&str, usize> =
                    self.global.iter().map(|(q, i)| (q.as_str(), *i)).collect();
                for (q, i) in own.into_iter().flatten() {
                    all.insert(q, *i);
                }
                all
            }
        }
    }

    /// 2. Variants: the strongest whose predicates hold (a client override beats them all).
    fn variant(&self, ctx: &BundleCtx<'_, '_>, q: &str, base: usize) -> usize {
        let ws = self.ws;
        if matches!(ws.skills[base].scope, Scope::Client(_)) {
            return base;
        }
        self.variants
            .get(q)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&v| match &ws.skills[v].scope {
                Scope::Global => true,
                Scope::Client(id) => ctx.spec.client.as_deref() == Some(id),
            })
            .filter(|&v| predicates_hold(&ws.skills[v].frontmatter.when, ctx.flags, ctx.spec))
            .min_by_key(|&v| {
                (
                    ws.skills[v].frontmatter.variant_priority,
                    &ws.skills[v].name,
                    v,
                )
            })
            .unwrap_or(base)
    }

    /// 3–5. Why the skill is left out of the bundle, if it is: toggles (explicit toggle >
    /// default_enabled > enabled), the tier filter, build-time conditions (the conversation
    /// language is the bundle's locale).
    fn left_out(&self, ctx: &BundleCtx<'_, '_>, base: usize, source: usize) -> Option<LeftOut> {
        let skill = &self.ws.skills[base];
        let toggle = ctx.client.and_then(|c| c.toggles.get(&skill.name));
        let enabled = toggle
            .map(|t| t.enabled)
            .or(skill.frontmatter.default_enabled)
            .unwrap_or(true);
        if !enabled {
            let words = match toggle {
                Some(_) => "toggled off for this client",
                None => "disabled by default (default_enabled: false)",
            };
            return Some(LeftOut::new("disabled", words));
        }
        let src = &self.ws.skills[source];
        if let Some(tiers) = &src.frontmatter.tiers {
            if !tiers.contains(&ctx.spec.tier) {
                return Some(LeftOut::new(
                    "tier",
                    format!("not in tier `{}`", ctx.spec.tier),
                ));
            }
        }
        src.frontmatter.conditions.iter().find_map(|c| match c {
            Condition::ConversationLanguage(l)
                if !locale_chain(&ctx.spec.locale).contains(&l.as_str()) =>
            {
                Some(LeftOut::new(
                    "condition",
                    format!("conversation_language is `{l}`"),
                ))
            }
            _ => None,
        })
    }

    /// 6. Availability: required variables, then required skills until nothing changes.
    fn unavailable<'q>(
        &self,
        ctx: &BundleCtx<'_, '_>,
        present: &BTreeMap<&'q str, (usize, usize)>,
    ) -> BTreeMap<&'q str, String> {
        let ws = self.ws;
        let mut unavailable: BTreeMap<&str, String> = BTreeMap::new();
        for (q, &(_, source)) in present {
            let src = &ws.skills[source];
            let missing = src.frontmatter.vars.iter().find(|(name, decl)| {
                decl.required
                    && !self.secrets.contains(*name)
                    && var_value(ws, ctx.client, src, name).is_none()
            });
            if let Some((name, _)) = missing {
                unavailable.insert(q, format!("required variable `{name}` has no value"));
            }
        }
        loop {
            let mut changed = false;
            for (q, &(_, source)) in present {
                if unavailable.contains_key(q) {
                    continue;
                }
                let missing = self.edges[source].requires.iter().find(|r| {
                    !ctx.available_in_base(r)
                        && (!present.contains_key(r.as_str())
                            || unavailable.contains_key(r.as_str()))
                });
                if let Some(r) = missing {
                    unavailable.insert(q, format!("requires skill `{r}`, which is not available"));
                    changed = true;
                }
            }
            if !changed {
                return unavailable;
            }
        }
    }

    /// 7–9. Variables, localized content, tier body, trust.
    fn entry_key(
        &self,
        ctx: &BundleCtx<'_, '_>,
        base: usize,
        source: usize,
        unavailable: Option<String>,
    ) -> EntryKey {
        let ws = self.ws;
        let src = &ws.skills[source];
        let vars: Vec<(String, String)> = self.uses[source]
            .iter()
            .filter(|name| !self.secrets.contains(*name))
            .filter_map(|name| var_value(ws, ctx.client, src, name).map(|v| (name.clone(), v)))
            .collect();
        let locale_file = locale_chain(&ctx.spec.locale)
            .into_iter()
            .find(|l| src.localized.contains_key(*l) || ws.skills[base].localized.contains_key(*l))
            .map(str::to_string);
        let compact =
            ctx.tier.is_some_and(|t| t.body == BodyMode::Compact) && src.compact.is_some();
        // Code from client overlays and imported packages is prompt-only unless trusted.
        let trusted = |id: &str| ws.config.trusted.iter().any(|t| t == id);
        let untrusted = match &src.scope {
            Scope::Client(id) => !trusted(id),
            Scope::Global => src.package.as_ref().is_some_and(|p| !trusted(p)),
        };
        // An untrusted skill with a finding at `safety.withhold` is never handed over.
        let withheld = ws.withheld.get(&src.file).filter(|_| untrusted);
        let unavailable = unavailable.or_else(|| withheld.cloned());
        EntryKey {
            base,
            source,
            locale_file,
            compact,
            vars,
            unavailable,
            untrusted,
            digest: 0,
        }
        .sealed()
    }
}

/// What resolving one bundle reads besides the prepared workspace.
struct BundleCtx<'w, 'o> {
    spec: &'o BundleSpec,
    client: Option<&'w Client>,
    flags: &'w serde_json::Value,
    tier: Option<&'w crate::model::Tier>,
    only: Option<(&'o BTreeSet<String>, &'o Slots)>,
}

static NO_FLAGS: std::sync::LazyLock<serde_json::Value> =
    std::sync::LazyLock::new(|| serde_json::Value::Object(Default::default()));

impl<'w, 'o> BundleCtx<'w, 'o> {
    fn new(
        ws: &'w Workspace,
        spec: &'o BundleSpec,
        only: Option<(&'o BTreeSet<String>, &'o Slots)>,
    ) -> Self {
        let client = spec.client.as_ref().and_then(|c| ws.clients.get(c));
        BundleCtx {
            spec,
            client,
            flags: client.map_or(&*NO_FLAGS, |c| &c.flags),
            tier: ws.config.tiers.iter().find(|t| t.name == spec.tier),
            only,
        }
    }

    /// A name this resolution leaves alone that is available in the base bundle.
    fn available_in_base(&self, q: &str) -> bool {
        self.only.is_some_and(|(names, base)| {
            !names.contains(q)
                && matches!(base.get(q), Some(Slot::Entry(k)) if k.unavailable.is_none())
        })
    }
}

/// The transitive import closure of `start` over `imports_of`, in a deterministic order
/// (depth-first, declared order, each skill once, cycles cut). `start` itself is not included.
pub fn import_closure<'a>(
    start: &'a str,
    imports_of: impl Fn(&str) -> Option<&'a [String]>,
) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::from([start]);
    let mut stack: Vec<&str> = imports_of(start)
        .unwrap_or_default()
        .iter()
        .rev()
        .map(String::as_str)
        .collect();
    while let Some(next) = stack.pop() {
        if !seen.insert(next) {
            continue;
        }
        out.push(next);
        if let Some(more) = imports_of(next) {
            stack.extend(more.iter().rev().map(String::as_str));
        }
    }
    out
}

#[cfg(test)]
mod tests;
