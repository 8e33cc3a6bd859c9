//! Who an edit of a skill reaches, as a runtime resolves it: for each client, in each of its
//! bundles (locale × tier), the first variant whose `when` holds replaces the base, a client's
//! own skill of the same name replaces both, a toggle leaves the skill out. The counting is
//! done over plain data ([`Audience`], [`Rule`]) so it is tested without a workspace.

use std::collections::BTreeSet;

use crate::model::{Condition, Predicate, Scope, Skill};
use crate::Workspace;
use serde::Serialize;

use super::{link_to, overridden_by, variants, Link, Variant};

/// Who an edit of a skill reaches: the clients that get its text in every bundle, those that
/// get it in some bundles only and those that always get a variant instead, those that use
/// their own version, those that have it turned off, the variants that replace it when their
/// conditions hold and the run-time conditions that keep it out of some conversations.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Reach {
    /// Clients in the workspace.
    pub clients: usize,
    /// Clients that get this text in every bundle they have (no variant, not turned off).
    pub getting: usize,
    /// Whether visitors of no client (the global bundles) get it, in some bundle at least.
    pub global: bool,
    /// Clients' own skills of the same name, used by their client instead.
    pub own_version: Vec<Link>,
    /// Clients that have it turned off (a toggle, or the skill's `default_enabled: false`).
    pub turned_off: Vec<String>,
    /// Variants used instead of it when their conditions hold (a client's variant only for
    /// that client).
    pub replaced_when: Vec<Variant>,
    /// Clients that get this text in some of their bundles and a variant in the others.
    pub partly: Vec<ClientShare>,
    /// Clients that never get this text: a variant (or another) takes its place in each bundle.
    pub instead: Vec<ClientShare>,
    /// Run-time conditions of this text, in words: where they fail, no one gets it.
    pub conditions: Vec<String>,
}

/// What one client's visitors get, text by text.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClientShare {
    /// Client id.
    pub client: String,
    /// Each text the client gets, with where.
    pub shares: Vec<Share>,
}

/// One text a client gets and in which of its bundles.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Share {
    /// The skill whose text it is (the base, or one of its variants).
    pub text: Link,
    /// Whether it is the text of the skill being looked at.
    pub this: bool,
    /// Where, in words: `always`, `in tier standard or pro`, `in locale fr`, `in fr/fast`.
    pub place: String,
}

/// Who a skill's text is resolved for: a client (or visitors of no client, `id` empty) with
/// its flags, locales and tiers.
#[derive(Debug, Clone)]
pub struct Audience<'a> {
    /// Client id; empty for the global bundles.
    pub id: &'a str,
    /// The client's `flags`.
    pub flags: &'a serde_json::Value,
    /// Its locales.
    pub locales: Vec<&'a str>,
    /// Its tiers.
    pub tiers: Vec<&'a str>,
}

/// A variant of the base, as resolution tries it.
#[derive(Debug, Clone)]
pub struct Rule<'a> {
    /// The client whose variant it is; empty for a global variant.
    pub client: &'a str,
    /// Its `when`: all must hold.
    pub when: &'a [Predicate],
    /// `variant_priority`: lower wins.
    pub priority: i64,
    /// Its name, the tie-break.
    pub name: &'a str,
}

/// The variant (an index into `rules`) used in one bundle, or `None` for the base: the first
/// by priority, then name, whose `when` holds, among the global ones and the audience's own.
pub fn pick(a: &Audience<'_>, rules: &[Rule<'_>], locale: &str, tier: &str) -> Option<usize> {
    rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.client.is_empty() || r.client == a.id)
        .filter(|(_, r)| r.when.iter().all(|p| p.holds(a.flags, tier, locale)))
        .min_by_key(|(i, r)| (r.priority, r.name, *i))
        .map(|(i, _)| i)
}

/// A text an audience gets (a variant's index, `None` for the base) and the bundles
/// (locale, tier) it gets it in.
pub type Got<'a> = (Option<usize>, Vec<(&'a str, &'a str)>);

/// Each text the audience gets with the bundles it gets it in, in the order first met.
pub fn shares<'a>(a: &Audience<'a>, rules: &[Rule<'_>]) -> Vec<Got<'a>> {
    let mut out: Vec<Got<'a>> = Vec::new();
    for &locale in &a.locales {
        for &tier in &a.tiers {
            let got = pick(a, rules, locale, tier);
            match out.iter_mut().find(|(g, _)| *g == got) {
                Some((_, at)) => at.push((locale, tier)),
                None => out.push((got, vec![(locale, tier)])),
            }
        }
    }
    out
}

/// Where, in words, a set of an audience's bundles is: `always` when it is all of them, by
/// tier or by locale when it is whole tiers or whole locales, else each bundle.
pub fn place(a: &Audience<'_>, at: &[(&str, &str)]) -> String {
    let has = |l: &str, t: &str| at.contains(&(l, t));
    if at.len() == a.locales.len() * a.tiers.len() {
        return "always".into();
    }
    let tiers: Vec<&str> = (a.tiers.iter().copied())
        .filter(|t| a.locales.iter().all(|l| has(l, t)))
        .collect();
    if tiers.len() * a.locales.len() == at.len() {
        return format!("in tier {}", tiers.join(" or "));
    }
    let locales: Vec<&str> = (a.locales.iter().copied())
        .filter(|l| a.tiers.iter().all(|t| has(l, t)))
        .collect();
    if locales.len() * a.tiers.len() == at.len() {
        return format!("in locale {}", locales.join(" or "));
    }
    let each: Vec<String> = at.iter().map(|(l, t)| format!("{l}/{t}")).collect();
    format!("in {}", each.join(", "))
}

/// The base a variant belongs to (the skill itself when it is not a variant), as resolution
/// finds it: a global skill of that name (a variant's base is global).
fn base_of<'w>(ws: &'w Workspace, s: &'w Skill) -> &'w Skill {
    let Some(r) = &s.frontmatter.variant_of else {
        return s;
    };
    let r = r
        .text
        .trim()
        .strip_prefix("skills.")
        .unwrap_or(r.text.trim());
    (ws.skills.iter().map(|k| &**k))
        .filter(|k| k.frontmatter.variant_of.is_none() && k.scope == Scope::Global)
        .find(|k| k.name == r || k.qualified_name() == r)
        .unwrap_or(s)
}

/// The variants listed, as skills.
fn skills_of<'w>(ws: &'w Workspace, listed: &[Variant]) -> Vec<&'w Skill> {
    (listed.iter())
        .filter_map(|v| {
            ws.skills
                .iter()
                .find(|k| Some(&k.file) == v.link.file.as_ref())
        })
        .map(|k| &**k)
        .collect()
}

fn audience<'a>(ws: &'a Workspace, c: &'a crate::model::Client) -> Audience<'a> {
    let tiers = ws.config.tiers.iter().map(|t| t.name.as_str());
    Audience {
        id: &c.id,
        flags: &c.flags,
        locales: (c.locales.as_ref().unwrap_or(&ws.config.locales).iter())
            .map(String::as_str)
            .collect(),
        tiers: tiers
            .filter(|t| c.tiers.as_ref().is_none_or(|x| x.iter().any(|y| y == t)))
            .collect(),
    }
}

/// Who gets `s`: the clients of its scope, less those with their own version of its base or
/// with it turned off, each counted by the text its bundles resolve to (the base's variants
/// tried as resolution tries them; a client's own skill has none).
pub fn of(ws: &Workspace, s: &Skill) -> Reach {
    let base = base_of(ws, s);
    let own_version = overridden_by(ws, base);
    let variants = variants(ws, base);
    let on = |c: &crate::model::Client| {
        (c.toggles.get(&base.name).map(|t| t.enabled))
            .or(base.frontmatter.default_enabled)
            .unwrap_or(true)
    };
    let mine = |c: &&crate::model::Client| match &s.scope {
        Scope::Global => true,
        Scope::Client(id) => *id == c.id,
    };
    let own: BTreeSet<&str> = own_version.iter().map(|l| l.client.as_str()).collect();
    // A client's own skill is never replaced by a variant; a base's variants are tried.
    let skills: Vec<&Skill> = match &base.scope {
        Scope::Client(_) => Vec::new(),
        Scope::Global => skills_of(ws, &variants),
    };
    let rules: Vec<Rule> = (skills.iter())
        .map(|v| Rule {
            client: match &v.scope {
                Scope::Client(c) => c,
                Scope::Global => "",
            },
            when: &v.frontmatter.when,
            priority: v.frontmatter.variant_priority,
            name: &v.name,
        })
        .collect();
    let this = skills.iter().position(|v| v.file == s.file);
    let mut reach = Reach {
        clients: ws.clients.len(),
        own_version: own_version.clone(),
        replaced_when: if this.is_none() { variants } else { Vec::new() },
        conditions: (s.frontmatter.conditions.iter())
            .filter(|c| !matches!(c, Condition::ConversationLanguage(_)))
            .map(Condition::words)
            .collect(),
        ..Reach::default()
    };
    for c in ws.clients.values().filter(mine) {
        if own.contains(c.id.as_str()) {
            continue;
        }
        if !on(c) {
            reach.turned_off.push(c.id.clone());
            continue;
        }
        let a = audience(ws, c);
        let got = shares(&a, &rules);
        let share = ClientShare {
            client: c.id.clone(),
            shares: (got.iter())
                .map(|(g, at)| Share {
                    text: link_to(g.map_or(base, |i| skills[i])),
                    this: *g == this,
                    place: place(&a, at),
                })
                .collect(),
        };
        match got.iter().find(|(g, _)| *g == this) {
            Some(_) if got.len() == 1 => reach.getting += 1,
            Some(_) => reach.partly.push(share),
            None => reach.instead.push(share),
        }
    }
    let empty = serde_json::Value::Null;
    let visitors = Audience {
        id: "",
        flags: &empty,
        locales: ws.config.locales.iter().map(String::as_str).collect(),
        tiers: ws.config.tiers.iter().map(|t| t.name.as_str()).collect(),
    };
    reach.global = s.scope == Scope::Global
        && base.frontmatter.default_enabled != Some(false)
        && shares(&visitors, &rules).iter().any(|(g, _)| *g == this);
    reach
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(non_empty: bool) -> Predicate {
        Predicate::FlagNonEmpty {
            flag: "competitors.names".into(),
            non_empty,
        }
    }

    #[test]
    fn each_bundle_gets_the_first_variant_whose_conditions_hold() {
        let aware = [names(true)];
        let battlecard = [
            names(true),
            Predicate::FlagEquals {
                flag: "competitors.battlecard_mode".into(),
                equals: json!(true),
            },
            Predicate::Tier(vec!["standard".into(), "pro".into()]),
        ];
        let rules = [
            Rule {
                client: "",
                when: &aware,
                priority: 2,
                name: "competitors_aware",
            },
            Rule {
                client: "",
                when: &battlecard,
                priority: 1,
                name: "competitors_battlecard",
            },
        ];
        let who = |id, flags| Audience {
            id,
            flags,
            locales: vec!["en", "fr"],
            tiers: vec!["standard", "fast", "pro"],
        };
        let roster = json!({"competitors": {"names": ["Lattice"], "battlecard_mode": false}});
        let cards = json!({"competitors": {"names": ["Maxio"], "battlecard_mode": true}});
        let none = json!({"competitors": {"names": [], "battlecard_mode": true}});
        // A roster without battlecards: the aware variant, always; never the base.
        let a = who("augment.org", &roster);
        let got = shares(&a, &rules);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0, place(&a, &got[0].1)), (Some(0), "always".into()));
        // Battlecards: the battlecard in its tiers, the aware variant in the fast one.
        let h = who("hyperline.co", &cards);
        let got = shares(&h, &rules);
        let words: Vec<(Option<usize>, String)> =
            got.iter().map(|(g, at)| (*g, place(&h, at))).collect();
        assert_eq!(
            words,
            [
                (Some(1), "in tier standard or pro".into()),
                (Some(0), "in tier fast".into())
            ]
        );
        // No names: the base everywhere.
        let e = who("example.com", &none);
        assert_eq!(shares(&e, &rules), [(None, a_times(&e))]);
        // A client's own variant applies to that client only.
        let only = [Rule {
            client: "northwind.io",
            when: &[],
            priority: 0,
            name: "mine",
        }];
        assert_eq!(pick(&e, &only, "en", "pro"), None);
        assert_eq!(
            pick(&who("northwind.io", &none), &only, "en", "pro"),
            Some(0)
        );
    }

    fn a_times<'a>(a: &Audience<'a>) -> Vec<(&'a str, &'a str)> {
        (a.locales.iter())
            .flat_map(|l| a.tiers.iter().map(move |t| (*l, *t)))
            .collect()
    }

    #[test]
    fn a_place_is_said_by_tier_by_locale_or_bundle_by_bundle() {
        let flags = json!({});
        let a = Audience {
            id: "x",
            flags: &flags,
            locales: vec!["en", "fr"],
            tiers: vec!["fast", "pro"],
        };
        assert_eq!(place(&a, &[("en", "pro"), ("fr", "pro")]), "in tier pro");
        assert_eq!(place(&a, &[("fr", "fast"), ("fr", "pro")]), "in locale fr");
        assert_eq!(place(&a, &[("fr", "fast")]), "in fr/fast");
        assert_eq!(place(&a, &a_times(&a)), "always");
    }
}
