//! The catalogs the passes over catalog texts compare within (W118, W119): the global one and
//! each client's (its own skills and the global ones it keeps), built from what each client
//! decides otherwise, and kept in a session by what they are made of.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::model::{Scope, Skill, Workspace};

/// Whether a skill has a catalog line of its own (variants show their base's).
pub(super) fn listed(ws: &Workspace, s: &Skill) -> bool {
    let category_hidden = s
        .category
        .as_ref()
        .and_then(|c| ws.categories.get(c))
        .is_some_and(|c| c.hidden_from_llm);
    !s.frontmatter.hidden_from_llm
        && !category_hidden
        && s.namespace != "internal"
        && s.frontmatter.variant_of.is_none()
}

/// Enabled in the catalog of `client` (`None`: the global catalog).
pub(super) fn enabled(ws: &Workspace, s: &Skill, client: Option<&str>) -> bool {
    let toggle = client
        .and_then(|c| ws.clients.get(c))
        .and_then(|c| c.toggles.get(&s.name))
        .map(|t| t.enabled);
    toggle.or(s.frontmatter.default_enabled).unwrap_or(true)
}

/// A catalog's listed skills, for pairing: its own skills (`own`), each compared with the own
/// skills after it and with every skill of `kept` (the global skills a client keeps).
/// The lists are shared: by a session's next pass, and `kept` by the clients that keep the
/// same skills.
pub(super) struct Catalog<'w> {
    pub client: Option<&'w str>,
    pub own: Arc<[usize]>,
    pub kept: Arc<[usize]>,
}

impl Catalog<'_> {
    /// The skills the `n`th own skill is compared with.
    pub(super) fn partners(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        self.own[n + 1..].iter().chain(self.kept.iter()).copied()
    }
}

/// What the catalogs are made of: each listed skill's place, names and default, and each
/// client's toggles.
#[derive(PartialEq)]
pub(super) struct Membership {
    skills: Vec<(usize, Scope, String, Option<bool>)>,
    toggles: Vec<(String, Vec<(String, bool)>)>,
}

impl Membership {
    fn of(ws: &Workspace, listed: &[usize]) -> Membership {
        let skill = |i: usize| {
            let s = &ws.skills[i];
            (
                i,
                s.scope.clone(),
                s.qualified_name(),
                s.frontmatter.default_enabled,
            )
        };
        let toggles = ws.clients.values().map(|c| {
            let t = c.toggles.iter().map(|(n, t)| (n.clone(), t.enabled));
            (c.id.clone(), t.collect())
        });
        Membership {
            skills: listed.iter().map(|&i| skill(i)).collect(),
            toggles: toggles.collect(),
        }
    }
}

/// A catalog as the memo keeps it.
type Kept = (Option<String>, Arc<[usize]>, Arc<[usize]>);

/// The catalogs of a session's last pass and what they were made of: a keystroke in a
/// description changes none of it, and making them took 13 ms on 500 clients, three times a
/// keystroke (W118, W119, the examples' routes).
pub(super) type Memo = (Membership, Vec<Kept>);

/// [`make_catalogs`], or the session's last pass's when made of the same (`memory`: the
/// session's, whose next pass may take them again; none for a one-shot check).
pub(super) fn catalogs<'w>(
    ws: &'w Workspace,
    listed: &[usize],
    memory: Option<&super::Memory>,
) -> Vec<Catalog<'w>> {
    let Some(memory) = memory else {
        return make_catalogs(ws, listed);
    };
    let key = Membership::of(ws, listed);
    let client = |id: &Option<String>| -> Option<Option<&'w str>> {
        match id {
            None => Some(None),
            Some(id) => ws.clients.get_key_value(id).map(|(k, _)| Some(k.as_str())),
        }
    };
    if let Ok(memo) = memory.catalogs.lock() {
        if let Some((seen, kept)) = memo.as_ref().filter(|(seen, _)| *seen == key) {
            let _ = seen;
            return (kept.iter())
                .filter_map(|(id, own, kept)| {
                    Some(Catalog {
                        client: client(id)?,
                        own: own.clone(),
                        kept: kept.clone(),
                    })
                })
                .collect();
        }
    }
    let made = make_catalogs(ws, listed);
    if let Ok(mut memo) = memory.catalogs.lock() {
        let kept = (made.iter())
            .map(|c| (c.client.map(str::to_string), c.own.clone(), c.kept.clone()))
            .collect();
        *memo = Some((key, kept));
    }
    made
}

/// The catalogs whose pairs of listed skills are compared: each client's (its own skills
/// against each other and against the global skills it keeps), then the global catalog. Each
/// pair comes once; the partner lists are shared by a catalog's skills, not copied per skill
/// (at 5,000 clients a copy each was 200 MB).
fn make_catalogs<'w>(ws: &'w Workspace, listed: &[usize]) -> Vec<Catalog<'w>> {
    let mut global_listed: Vec<usize> = Vec::new();
    let mut own_of: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in listed {
        match &ws.skills[i].scope {
            Scope::Global => global_listed.push(i),
            Scope::Client(c) => own_of.entry(c.as_str()).or_default().push(i),
        }
    }
    // Enabled in the global catalog first, then the ones a client may turn on.
    let (global, off): (Vec<usize>, Vec<usize>) = global_listed
        .iter()
        .partition(|&&i| enabled(ws, &ws.skills[i], None));
    // A client keeps the global catalog less what its own skills replace and what it toggles
    // off, plus what it toggles on: found from its few toggles and own skills, not by asking
    // each of a thousand skills (500 clients took 53 ms, at every keystroke in the studio).
    let mut by_qualified: HashMap<String, Vec<usize>> = HashMap::new();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in &global_listed {
        by_qualified
            .entry(ws.skills[i].qualified_name())
            .or_default()
            .push(i);
        by_name
            .entry(ws.skills[i].name.as_str())
            .or_default()
            .push(i);
    }
    // Most clients keep the whole of it: one list for them all.
    let all_global: Arc<[usize]> = global.clone().into();
    let mut out = Vec::new();
    for (id, own) in own_of {
        let Some(client) = ws.clients.get(id) else {
            continue;
        };
        // Per global skill this client decides otherwise: kept or not.
        let mut decided: HashMap<usize, bool> = HashMap::new();
        for (name, toggle) in &client.toggles {
            for &i in by_name.get(name.as_str()).into_iter().flatten() {
                decided.insert(i, toggle.enabled);
            }
        }
        for &o in &own {
            for &i in by_qualified
                .get(&ws.skills[o].qualified_name())
                .into_iter()
                .flatten()
            {
                decided.insert(i, false);
            }
        }
        let kept: Arc<[usize]> = match decided.is_empty() {
            true => all_global.clone(),
            false => (global.iter().filter(|i| decided.get(i) != Some(&false)))
                .chain(off.iter().filter(|i| decided.get(i) == Some(&true)))
                .copied()
                .collect(),
        };
        out.push(Catalog {
            client: Some(id),
            own: own.into(),
            kept,
        });
    }
    // The global catalog last, once the clients have taken what they keep of it (the order
    // of the catalogs does not change the result).
    out.push(Catalog {
        client: None,
        own: all_global,
        kept: Arc::from(Vec::new()),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each client's catalog is what asking every global skill gives: kept when enabled for
    /// the client (its toggle, else the skill's default) and not replaced by its own skill.
    #[test]
    fn a_client_keeps_the_global_skills_its_toggles_and_own_skills_leave_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
        let ws = crate::check(&root, &Default::default()).unwrap().workspace;
        let listed: Vec<usize> = (0..ws.skills.len())
            .filter(|&i| listed(&ws, &ws.skills[i]))
            .collect();
        let global: Vec<usize> = (listed.iter().copied())
            .filter(|&i| ws.skills[i].scope == Scope::Global)
            .collect();
        let catalogs = catalogs(&ws, &listed, None);
        assert!(catalogs.len() > 3);
        // A session's pass takes the last one's catalogs again: the same lists.
        let lists = |cs: &[Catalog<'_>]| -> Vec<(Option<String>, Vec<usize>, Vec<usize>)> {
            (cs.iter())
                .map(|c| {
                    (
                        c.client.map(str::to_string),
                        c.own.to_vec(),
                        c.kept.to_vec(),
                    )
                })
                .collect()
        };
        let memory = super::super::Memory::default();
        for _ in 0..2 {
            assert_eq!(
                lists(&super::catalogs(&ws, &listed, Some(&memory))),
                lists(&catalogs)
            );
        }
        let toggled = catalogs.iter().filter(|c| {
            c.client
                .is_some_and(|id| !ws.clients[id].toggles.is_empty())
        });
        assert!(toggled.count() > 0, "the sample's clients toggle skills");
        for c in catalogs.iter().filter(|c| c.client.is_some()) {
            let id = c.client.unwrap();
            let replaced: std::collections::HashSet<String> = c
                .own
                .iter()
                .map(|&i| ws.skills[i].qualified_name())
                .collect();
            let mut expected: Vec<usize> = (global.iter().copied())
                .filter(|&i| enabled(&ws, &ws.skills[i], Some(id)))
                .filter(|&i| !replaced.contains(&ws.skills[i].qualified_name()))
                .collect();
            let mut kept = c.kept.to_vec();
            expected.sort();
            kept.sort();
            assert_eq!(kept, expected, "{id}");
        }
    }
}
