//! Phase: which bundles exist and what each holds (SPEC 4). Global bundles are resolved in
//! full; a client's bundle only where it can differ from the global bundle of its locale and
//! tier, and keeps only its differences (the rest is shared with that base).

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::Meter;
use crate::resolve::{self, BundleSpec, EntryKey, Prepared, Slot};
use crate::Workspace;

/// Every bundle of the workspace and the base each client bundle builds on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Bundles, global ones first, in the artifact's order.
    pub specs: Vec<BundleSpec>,
    /// For a client bundle, the index of the global bundle of its locale and tier.
    pub base_of: Vec<Option<usize>>,
}

/// Lists the bundles and links each client bundle to its global base.
pub fn plan(ws: &Workspace) -> Plan {
    let specs = resolve::bundles(ws);
    let global: BTreeMap<(&str, &str), usize> = specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.client.is_none())
        .map(|(i, s)| ((s.locale.as_str(), s.tier.as_str()), i))
        .collect();
    let base_of = specs
        .iter()
        .map(|s| {
            s.client.as_ref()?;
            global.get(&(s.locale.as_str(), s.tier.as_str())).copied()
        })
        .collect();
    Plan { specs, base_of }
}

/// The slots of every bundle, by qualified name: all of them for a global bundle, only its
/// differences from the base for a client bundle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// Slots per bundle, in the plan's order.
    pub slots: Vec<BTreeMap<String, Slot>>,
}

impl Resolved {
    /// A bundle's full view: its own slots over its base's.
    pub fn view<'a>(&'a self, plan: &Plan, b: usize) -> Vec<&'a Slot> {
        let own = &self.slots[b];
        match plan.base_of[b] {
            None => own.values().collect(),
            Some(g) => self.slots[g]
                .iter()
                .filter(|(q, _)| !own.contains_key(*q))
                .map(|(_, s)| s)
                .chain(own.values())
                .collect(),
        }
    }

    /// The distinct entries of all bundles, in a deterministic order.
    pub fn distinct_keys(&self) -> Vec<EntryKey> {
        let keys: BTreeSet<&EntryKey> = self
            .slots
            .iter()
            .flat_map(|b| b.values())
            .filter_map(|s| match s {
                Slot::Entry(k) => Some(k),
                Slot::Removed(_) => None,
            })
            .collect();
        keys.into_iter().cloned().collect()
    }
}

/// Resolves the global bundles, then each client bundle's differences from its base.
pub fn resolve_all(
    ws: &Workspace,
    prepared: &Prepared<'_>,
    plan: &Plan,
    meter: &Meter<'_>,
) -> Resolved {
    let affected: BTreeMap<&str, BTreeSet<String>> = ws
        .clients
        .keys()
        .collect::<Vec<_>>()
        .par_iter()
        .map(|c| (c.as_str(), prepared.affected(c)))
        .collect();
    let mut slots: Vec<BTreeMap<String, Slot>> = plan
        .specs
        .par_iter()
        .map(|spec| match spec.client {
            None => {
                let r = prepared.resolve(spec);
                meter.tick();
                r
            }
            // Counted once, when its differences are resolved below.
            Some(_) => BTreeMap::new(),
        })
        .collect();
    let deltas: Vec<(usize, BTreeMap<String, Slot>)> = plan
        .specs
        .par_iter()
        .enumerate()
        .filter_map(|(b, spec)| {
            let client = spec.client.as_deref()?;
            let base = &slots[plan.base_of[b]?];
            let mut own = prepared.resolve_some(spec, Some((&affected[client], base)));
            own.retain(|q, slot| base.get(q) != Some(slot));
            meter.tick();
            Some((b, own))
        })
        .collect();
    for (b, own) in deltas {
        slots[b] = own;
    }
    Resolved { slots }
}
