//! Resolving skill references (`name`, `ns.name`, `skills.ns.name`) within a scope (002).

use rustc_hash::FxHashMap;

use crate::model::{Scope, Workspace};
use crate::parse::frontmatter::NAMESPACES;
use crate::parse::names;

/// A reference split into its optional namespace and its name.
pub(crate) fn split(text: &str) -> (Option<&str>, String) {
    let t = text.trim();
    let t = t.strip_prefix("skills.").unwrap_or(t);
    if let Some((ns, name)) = t.split_once('.') {
        if NAMESPACES.contains(&ns) {
            return (Some(ns), names::normalize(name));
        }
    }
    (None, names::normalize(t))
}

/// Skills by scope and name, for resolving references.
#[derive(Debug)]
pub(crate) struct Index<'a> {
    ws: &'a Workspace,
    /// Hashed: the index is built for every check and build (3,500 skills on the reference
    /// workload, in a watch rebuild's path).
    by_name: FxHashMap<(&'a Scope, &'a str), Vec<usize>>,
}

fn namespace_rank(ns: &str) -> usize {
    NAMESPACES
        .iter()
        .position(|n| *n == ns)
        .unwrap_or(NAMESPACES.len())
}

/// The part of a plugin skill's name after `<plugin>:`; `None` for other skills.
pub(crate) fn plain_name(name: &str) -> Option<&str> {
    name.split_once(':').map(|(_, plain)| plain)
}

/// A plugin skill is also reached by its plain name when no other skill of its scope is named
/// so and no other plugin of the scope has a skill of that plain name (the same rule in every
/// runtime).
fn add_plain_names<'a>(
    ws: &'a Workspace,
    by_name: &mut FxHashMap<(&'a Scope, &'a str), Vec<usize>>,
) {
    let mut plain: FxHashMap<(&'a Scope, &'a str), Vec<usize>> = FxHashMap::default();
    for (i, s) in ws.skills.iter().enumerate() {
        if let Some(p) = plain_name(&s.name) {
            plain.entry((&s.scope, p)).or_default().push(i);
        }
    }
    for (key, ids) in plain {
        if ids.len() == 1 && !by_name.contains_key(&key) {
            by_name.insert(key, ids);
        }
    }
}

impl<'a> Index<'a> {
    /// Indexes every skill of `ws`.
    pub(crate) fn new(ws: &'a Workspace) -> Self {
        let mut by_name: FxHashMap<(&Scope, &str), Vec<usize>> = FxHashMap::default();
        for (i, s) in ws.skills.iter().enumerate() {
            by_name
                .entry((&s.scope, s.name.as_str()))
                .or_default()
                .push(i);
        }
        add_plain_names(ws, &mut by_name);
        Index { ws, by_name }
    }

    fn in_scope(&self, scope: &Scope, ns: Option<&str>, name: &str) -> Option<usize> {
        let found = self.by_name.get(&(scope, name))?;
        found
            .iter()
            .copied()
            .filter(|&i| ns.is_none_or(|ns| self.ws.skills[i].namespace == ns))
            .min_by_key(|&i| (namespace_rank(&self.ws.skills[i].namespace), i))
    }

    /// The skill a reference written in `from` means: the client's own skills first, then the
    /// global ones. `None` when it names nothing visible from there.
    pub(crate) fn resolve(&self, text: &str, from: &Scope) -> Option<usize> {
        let (ns, name) = split(text);
        if let Scope::Client(_) = from {
            if let Some(i) = self.in_scope(from, ns, &name) {
                return Some(i);
            }
        }
        self.in_scope(&Scope::Global, ns, &name)
    }

    /// Whether a reference names a skill in any scope (a global skill may name a skill that
    /// only some clients have, such as a client skill it blocks).
    pub(crate) fn exists_anywhere(&self, text: &str) -> bool {
        let (ns, name) = split(text);
        if let Some(census) = self.ws.census.as_deref() {
            // A batch of clients: the other batches' skills count too.
            return census.exists_anywhere(ns, &name);
        }
        self.by_name.iter().any(|((_, n), ids)| {
            *n == name
                && ids
                    .iter()
                    .any(|&i| ns.is_none_or(|ns| self.ws.skills[i].namespace == ns))
        })
    }

    /// All distinct skill names, for suggestions.
    pub(crate) fn names(&self) -> Vec<&'a str> {
        if let Some(census) = self.ws.census.as_deref() {
            return census.names.keys().map(String::as_str).collect();
        }
        let mut keys: Vec<&(&Scope, &str)> = self.by_name.keys().collect();
        keys.sort();
        let mut v: Vec<&str> = keys.into_iter().map(|(_, n)| *n).collect();
        v.dedup();
        v
    }
}
