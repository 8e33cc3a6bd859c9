//! `skillc diff`: what changed between two artifacts, per client, locale and tier: skills
//! added, removed or changed (and in which fields), and which catalogs changed.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use skillc_runtime::{Artifact, Bundle, BundleRef, Context, Format};

/// Changes of one bundle.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct BundleDiff {
    /// Client (`''` for global).
    pub client: String,
    /// Locale.
    pub locale: String,
    /// Tier.
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
pub struct ChangedSkill {
    /// Qualified name.
    pub name: String,
    /// Fields that changed (`body`, `description`, `resolved`, record fields, …).
    pub fields: Vec<String>,
}

/// The whole comparison.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
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

fn skills_of(b: &Bundle) -> BTreeMap<&str, &skillc_runtime::Skill> {
    b.skills
        .iter()
        .map(|s| (s.qualified_name.as_str(), s))
        .collect()
}

/// Compares two artifacts.
pub fn diff(old: &Artifact, new: &Artifact) -> Result<Diff, skillc_runtime::Error> {
    let key = |(c, l, t): (&str, &str, &str)| (c.to_string(), l.to_string(), t.to_string());
    let before: BTreeSet<(String, String, String)> =
        old.bundle_names().into_iter().map(key).collect();
    let after: BTreeSet<(String, String, String)> =
        new.bundle_names().into_iter().map(key).collect();
    let mut d = Diff {
        added_bundles: after
            .difference(&before)
            .map(|(c, l, t)| label(c, l, t))
            .collect(),
        removed_bundles: before
            .difference(&after)
            .map(|(c, l, t)| label(c, l, t))
            .collect(),
        ..Diff::default()
    };
    let consumers: BTreeSet<&str> = new
        .consumers()
        .into_iter()
        .filter(|c| old.consumers().contains(c))
        .collect();
    for (c, l, t) in before.intersection(&after) {
        let r = BundleRef {
            client: (!c.is_empty()).then_some(c.as_str()),
            locale: Some(l),
            tier: Some(t),
        };
        let mut bd = skill_changes(old, new, &r)?;
        (bd.client, bd.locale, bd.tier) = (c.clone(), l.clone(), t.clone());
        bd.catalogs = catalog_changes(old, new, &r, &consumers)?;
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

/// Skills added, removed and changed (with the fields that changed) in one bundle.
fn skill_changes(
    old: &Artifact,
    new: &Artifact,
    r: &BundleRef<'_>,
) -> Result<BundleDiff, skillc_runtime::Error> {
    let (ob, nb) = (old.bundle(r)?, new.bundle(r)?);
    let (os, ns) = (skills_of(&ob), skills_of(&nb));
    let mut bd = BundleDiff {
        added: ns
            .keys()
            .filter(|q| !os.contains_key(*q))
            .map(|q| q.to_string())
            .collect(),
        removed: os
            .keys()
            .filter(|q| !ns.contains_key(*q))
            .map(|q| q.to_string())
            .collect(),
        ..BundleDiff::default()
    };
    for (q, o) in &os {
        if let Some(n) = ns.get(q) {
            let f = fields(o, n);
            if !f.is_empty() {
                bd.changed.push(ChangedSkill {
                    name: q.to_string(),
                    fields: f,
                });
            }
        }
    }
    Ok(bd)
}

/// The catalogs of one bundle whose text or skills changed: `format` or `format@consumer`.
fn catalog_changes(
    old: &Artifact,
    new: &Artifact,
    r: &BundleRef<'_>,
    consumers: &BTreeSet<&str>,
) -> Result<Vec<String>, skillc_runtime::Error> {
    let empty = Context::default();
    let mut changed = Vec::new();
    for consumer in std::iter::once(None).chain(consumers.iter().map(|c| Some(*c))) {
        for (format, fname) in [
            (Format::Xml, "xml"),
            (Format::Markdown, "markdown"),
            (Format::List, "list"),
            (Format::Json, "json"),
        ] {
            let a = old.catalog(r, consumer, &empty, format)?;
            let b = new.catalog(r, consumer, &empty, format)?;
            if a.text != b.text || a.skills != b.skills {
                changed.push(match consumer {
                    Some(c) => format!("{fname}@{c}"),
                    None => fname.to_string(),
                });
            }
        }
    }
    Ok(changed)
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
