//! What a skill is tied to, for the studio's relations panel and `skillc reach`: its variants and when each
//! applies, the clients that override or toggle it, the skills it names and that name it, the
//! consumers that hide it and the locales it has. Read from the checked workspace, so the
//! panel agrees with what the compiler resolves.

use std::collections::BTreeSet;

use crate::model::{Predicate, Scope, Skill, SkillRef};
use crate::Workspace;
use serde::Serialize;

pub mod reach;
pub use reach::Reach;

/// A skill named by another, with the file to open (none when no skill has that name).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Link {
    /// The name as written.
    pub name: String,
    /// Its SKILL.md, when it exists.
    pub file: Option<String>,
    /// The client it belongs to (empty for a global skill).
    pub client: String,
}

/// A variant of the skill and when it applies.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Variant {
    /// The variant.
    pub link: Link,
    /// Its `when` conditions in words (empty: it applies wherever its base does).
    pub when: Vec<String>,
    /// `variant_priority`.
    pub priority: i64,
}

/// The four kinds of composition, one way.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Composition {
    /// `dependencies`.
    pub dependencies: Vec<Link>,
    /// `augments`.
    pub augments: Vec<Link>,
    /// `blocks`.
    pub blocks: Vec<Link>,
    /// `imports`.
    pub imports: Vec<Link>,
}

/// A client's toggle of the skill.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClientToggle {
    /// Client id.
    pub client: String,
    /// On or off.
    pub enabled: bool,
}

/// Everything the relations panel shows of one skill.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Relations {
    /// The skill.
    pub link: Link,
    /// Its qualified name.
    pub qualified_name: String,
    /// The skill it is a variant of, if it is one.
    pub variant_of: Option<Link>,
    /// Its variants.
    pub variants: Vec<Variant>,
    /// Client skills of the same name, which replace it for their client.
    pub overridden_by: Vec<Link>,
    /// The global skill this client skill replaces, if any.
    pub overrides: Option<Link>,
    /// Clients whose client.yaml toggles it.
    pub toggled_by: Vec<ClientToggle>,
    /// What it names.
    pub uses: Composition,
    /// What names it.
    pub used_by: Composition,
    /// Consumers whose catalogs leave it out.
    pub hidden_by: Vec<String>,
    /// Locales it has its own `SKILL.<locale>.md` for (besides the default).
    pub locales: Vec<String>,
    /// Workspace locales it has no localized file for (the default text is used).
    pub missing_locales: Vec<String>,
    /// `{{variables}}` it can use: the workspace's global ones and its own.
    pub variables: Vec<String>,
    /// Its sources, for `[[S:n]]`: id, title and URL.
    pub sources: Vec<(u32, String, String)>,
    /// Who an edit of it reaches.
    pub reach: Reach,
    /// The Claude Code plugin it comes from, with the plugin's metadata.
    pub plugin: Option<crate::model::Plugin>,
    /// The outside repository it was brought in from (`external:`, pinned in skillc.lock).
    pub external: Option<crate::model::external::ExternalSource>,
}

/// Where a skill comes from when it is not the workspace's own: a Claude Code plugin, an
/// outside repository.
fn origin(
    ws: &Workspace,
    s: &Skill,
) -> (
    Option<crate::model::Plugin>,
    Option<crate::model::external::ExternalSource>,
) {
    let plugin = (s.plugin.as_ref())
        .and_then(|name| ws.plugins.iter().find(|p| &p.name == name))
        .cloned();
    let external = (ws.config.external.iter())
        .find(|e| s.dir.starts_with(&format!("{}/", e.into)))
        .cloned();
    (plugin, external)
}

fn client_of(s: &Skill) -> String {
    match &s.scope {
        Scope::Client(c) => c.clone(),
        Scope::Global => String::new(),
    }
}

fn link_to(s: &Skill) -> Link {
    Link {
        name: s.name.clone(),
        file: Some(s.file.clone()),
        client: client_of(s),
    }
}

/// Whether `r` (as written in `from`) names `target`: by name or qualified name, and within
/// reach (a client skill sees its own client's skills and the global ones).
fn names(r: &str, from: &Skill, target: &Skill) -> bool {
    let r = r.trim().strip_prefix("skills.").unwrap_or(r.trim());
    let reachable = target.scope == Scope::Global || target.scope == from.scope;
    reachable && (r == target.name || r == target.qualified_name())
}

/// The skill `r` names from `from`: its own client's first, then a global one.
fn resolve(ws: &Workspace, from: &Skill, r: &SkillRef) -> Link {
    let mut found: Vec<&Skill> = ws
        .skills
        .iter()
        .map(|s| &**s)
        .filter(|t| t.frontmatter.variant_of.is_none() && names(&r.text, from, t))
        .collect();
    found.sort_by_key(|t| t.scope == Scope::Global);
    match found.first() {
        Some(t) => link_to(t),
        None => Link {
            name: r.text.clone(),
            file: None,
            client: String::new(),
        },
    }
}

fn composition(ws: &Workspace, s: &Skill) -> Composition {
    let fm = &s.frontmatter;
    let links = |refs: &[SkillRef]| refs.iter().map(|r| resolve(ws, s, r)).collect();
    Composition {
        dependencies: links(&fm.dependencies),
        augments: links(&fm.augments),
        blocks: links(&fm.blocks),
        imports: links(&fm.imports),
    }
}

fn used_by(ws: &Workspace, s: &Skill) -> Composition {
    let by = |pick: fn(&Skill) -> &[SkillRef]| {
        ws.skills
            .iter()
            .map(|s| &**s)
            .filter(|o| o.file != s.file && pick(o).iter().any(|r| names(&r.text, o, s)))
            .map(link_to)
            .collect()
    };
    Composition {
        dependencies: by(|o| &o.frontmatter.dependencies),
        augments: by(|o| &o.frontmatter.augments),
        blocks: by(|o| &o.frontmatter.blocks),
        imports: by(|o| &o.frontmatter.imports),
    }
}

/// Client skills of the same name as the global skill `s`, which replace it for their client.
fn overridden_by(ws: &Workspace, s: &Skill) -> Vec<Link> {
    match s.scope {
        Scope::Global => (ws.skills.iter().map(|s| &**s))
            .filter(|o| o.name == s.name && o.frontmatter.variant_of.is_none())
            .filter(|o| o.scope != Scope::Global)
            .map(link_to)
            .collect(),
        Scope::Client(_) => Vec::new(),
    }
}

fn variants(ws: &Workspace, s: &Skill) -> Vec<Variant> {
    let mut list: Vec<Variant> = ws
        .skills
        .iter()
        .map(|s| &**s)
        .filter(|v| {
            v.frontmatter
                .variant_of
                .as_ref()
                .is_some_and(|r| names(&r.text, v, s))
        })
        .map(|v| Variant {
            link: link_to(v),
            when: v.frontmatter.when.iter().map(Predicate::words).collect(),
            priority: v.frontmatter.variant_priority,
        })
        .collect();
    list.sort_by(|a, b| {
        // The order resolution tries them: lower `variant_priority` first, then by name.
        a.priority
            .cmp(&b.priority)
            .then(a.link.name.cmp(&b.link.name))
    });
    list
}

fn variables(ws: &Workspace, s: &Skill) -> Vec<String> {
    let mut names: BTreeSet<String> = BTreeSet::new();
    for section in ["_global", s.name.as_str()] {
        names.extend(
            ws.variables
                .get(section)
                .into_iter()
                .flat_map(|v| v.keys().cloned()),
        );
    }
    names.extend(s.vars_json.keys().cloned());
    names.extend(s.frontmatter.vars.keys().cloned());
    names.into_iter().collect()
}

/// The relations of the skill whose SKILL.md is `file`, or `None` when no skill has it.
pub fn of(ws: &Workspace, file: &str) -> Option<Relations> {
    let s = ws.skills.iter().find(|s| s.file == file)?;
    let same_name = |o: &&Skill| o.name == s.name && o.frontmatter.variant_of.is_none();
    let overridden_by = overridden_by(ws, s);
    let overrides = match s.scope {
        Scope::Client(_) => ws
            .skills
            .iter()
            .map(|s| &**s)
            .filter(same_name)
            .find(|o| o.scope == Scope::Global)
            .map(link_to),
        Scope::Global => None,
    };
    let toggled_by = ws
        .clients
        .values()
        .filter_map(|c| {
            let t = c.toggles.get(&s.name)?;
            Some(ClientToggle {
                client: c.id.clone(),
                enabled: t.enabled,
            })
        })
        .collect();
    let qualified = s.qualified_name();
    let hidden_by = ws
        .config
        .consumers
        .iter()
        .filter(|(_, c)| !c.shows(&qualified))
        .map(|(n, _)| n.clone())
        .collect();
    let locales: Vec<String> = s.localized.keys().cloned().collect();
    let missing_locales = ws
        .config
        .locales
        .iter()
        .filter(|l| **l != ws.config.default_locale && !locales.contains(l))
        .cloned()
        .collect();
    let variants = variants(ws, s);
    let reach = reach::of(ws, s);
    let (plugin, external) = origin(ws, s);
    Some(Relations {
        reach,
        plugin,
        external,
        link: link_to(s),
        qualified_name: qualified,
        variant_of: s.frontmatter.variant_of.as_ref().map(|r| resolve(ws, s, r)),
        variants,
        overridden_by,
        overrides,
        toggled_by,
        uses: composition(ws, s),
        used_by: used_by(ws, s),
        hidden_by,
        locales,
        missing_locales,
        variables: variables(ws, s),
        sources: s
            .sources
            .iter()
            .map(|x| (x.sid, x.title.clone().unwrap_or_default(), x.url.clone()))
            .collect(),
    })
}
