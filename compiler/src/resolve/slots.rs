//! A bundle's slots: each selectable name with its entry or the reason it is left out, and the
//! interner that shares equal entry keys between bundles.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::EntryKey;
use crate::parse::refs::plain_name;

/// What a selectable name is in a bundle.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// Present, with this content (shared by the bundles that hold the same entry: a client's
    /// 30 locale and tier bundles mostly do).
    Entry(Arc<EntryKey>),
    /// Left out of the bundle, and why.
    Removed(String),
}

/// A bundle's slots, sorted by qualified name. Most are a client bundle's few differences
/// from its base, and there are as many as bundles (150,000 at 5,000 clients): a sorted slice
/// holds them in their own size (a B-tree allocates room for eleven in its first node), and
/// names and entries are shared through an `Interner`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slots(pub(super) Box<[(Arc<str>, Slot)]>);

impl Slots {
    /// The slot of qualified name `q`.
    pub fn get(&self, q: &str) -> Option<&Slot> {
        let i = self.0.binary_search_by(|(n, _)| (**n).cmp(q)).ok()?;
        Some(&self.0[i].1)
    }

    /// Whether the bundle has a slot named `q`.
    pub fn contains_key(&self, q: &str) -> bool {
        self.get(q).is_some()
    }

    /// Names and slots, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Slot)> {
        self.0.iter().map(|(q, s)| (&**q, s))
    }

    /// Slots, in name order.
    pub fn values(&self) -> impl Iterator<Item = &Slot> {
        self.0.iter().map(|(_, s)| s)
    }
}

/// The qualified names of the skills a bundle also finds by their plain name, given the
/// qualified names of every skill present in it: a plugin's skill (`<plugin>:<skill>`) is,
/// when no skill of the bundle is named so and no other plugin of the bundle has a skill of
/// that name. The build decides it and stores it in each slot; runtimes read it.
pub(crate) fn plain_names<'a>(present: impl Iterator<Item = &'a str>) -> FxHashSet<&'a str> {
    let mut named: FxHashSet<&str> = FxHashSet::default();
    let mut by_plain: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    for q in present {
        let name = q.split_once('.').map_or(q, |(_, n)| n);
        named.extend([q, name]);
        if let Some(p) = plain_name(name) {
            by_plain.entry(p).or_default().push(q);
        }
    }
    by_plain
        .into_iter()
        .filter_map(|(p, qs)| match qs[..] {
            [q] if !named.contains(p) => Some(q),
            _ => None,
        })
        .collect()
}

/// One copy of each name and entry key across the bundles it is used for.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    names: FxHashSet<Arc<str>>,
    keys: FxHashSet<Arc<EntryKey>>,
}

impl Interner {
    /// `map` as slots, its names and keys shared with the ones interned before.
    pub(crate) fn slots(&mut self, map: BTreeMap<String, Slot>) -> Slots {
        let slots = map
            .into_iter()
            .map(|(q, slot)| {
                let slot = match slot {
                    Slot::Entry(k) => Slot::Entry(self.key(k)),
                    removed => removed,
                };
                (self.name(&q), slot)
            })
            .collect();
        Slots(slots)
    }

    fn name(&mut self, q: &str) -> Arc<str> {
        if let Some(n) = self.names.get(q) {
            return n.clone();
        }
        let n: Arc<str> = Arc::from(q);
        self.names.insert(n.clone());
        n
    }

    fn key(&mut self, k: Arc<EntryKey>) -> Arc<EntryKey> {
        if let Some(shared) = self.keys.get(&k) {
            return shared.clone();
        }
        self.keys.insert(k.clone());
        k
    }
}

impl From<BTreeMap<String, Slot>> for Slots {
    fn from(map: BTreeMap<String, Slot>) -> Self {
        Interner::default().slots(map)
    }
}
