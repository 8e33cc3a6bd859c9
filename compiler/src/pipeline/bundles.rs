//! Phase: which bundles exist and what each holds. Global bundles are resolved in
//! full; a client's bundle only where it can differ from the global bundle of its locale and
//! tier, and keeps only its differences (the rest is shared with that base).

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::Meter;
use crate::resolve::{self, BundleSpec, EntryKey, Interner, Prepared, Slot, Slots};
use crate::Workspace;

/// Every bundle of the workspace and the base each client bundle builds on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Bundles, global ones first, in the artifact's order.
    pub specs: Vec<BundleSpec>,
    /// For a client bundle, the index of the global bundle of its locale and tier.
    pub base_of: Vec<Option<usize>>,
}

/// Lists the bundles and links each client bundle to its global base.
pub(super) fn plan(ws: &Workspace) -> Plan {
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
pub(crate) struct Resolved {
    /// Slots per bundle, in the plan's order (shared with the next build when unchanged).
    pub slots: Vec<Arc<Slots>>,
}

impl Resolved {
    /// A bundle's full view: its own slots over its base's.
    pub(crate) fn view<'a>(&'a self, plan: &Plan, b: usize) -> Vec<&'a Slot> {
        let own = &self.slots[b];
        match plan.base_of[b] {
            None => own.values().collect(),
            Some(g) => self.slots[g]
                .iter()
                .filter(|(q, _)| !own.contains_key(q))
                .map(|(_, s)| s)
                .chain(own.values())
                .collect(),
        }
    }

    /// The distinct entries of all bundles, in the order bundles first hold them (global
    /// bundles first): a bundle's entries then sit together in the artifact, so a lookup
    /// reads a few adjacent pages rather than one page per entry.
    pub(crate) fn distinct_keys(&self) -> Vec<Arc<EntryKey>> {
        // Keys are interned, so most slots hold a copy already met: known by its address
        // first, its contents hashed once per copy (two copies may still be equal).
        let mut met: FxHashSet<*const EntryKey> = FxHashSet::default();
        let mut seen: FxHashSet<&EntryKey> = FxHashSet::default();
        let mut keys = Vec::new();
        for slot in self.slots.iter().flat_map(|b| b.values()) {
            if let Slot::Entry(k) = slot {
                if met.insert(Arc::as_ptr(k)) && seen.insert(k) {
                    keys.push(k.clone());
                }
            }
        }
        keys
    }
}

/// What a rebuild may take from the previous build's bundles (`incremental::Reuse`).
pub(super) trait KeptSlots {
    /// The previous slots of bundle `b` of `plan`, if nothing they depend on changed.
    fn slots(&self, plan: &Plan, b: usize) -> Option<Arc<Slots>>;
}

/// Resolves the global bundles, then each client bundle's differences from its base; what
/// `reuse` has from the previous build is taken from it. Names and entry keys are interned:
/// the global bundles share one copy, and each client's bundles one of their own.
pub(super) fn resolve_all(
    prepared: &Prepared<'_>,
    plan: &Plan,
    meter: &Meter<'_>,
    reuse: Option<&dyn KeptSlots>,
) -> Resolved {
    let kept: Vec<Option<Arc<Slots>>> = (0..plan.specs.len())
        .map(|b| reuse.and_then(|r| r.slots(plan, b)))
        .collect();
    let globals: Vec<Option<BTreeMap<String, Slot>>> = plan
        .specs
        .par_iter()
        .zip(&kept)
        .map(|(spec, kept)| {
            let fresh = spec.client.is_none() && kept.is_none();
            fresh.then(|| prepared.resolve(spec))
        })
        .collect();
    let mut interner = Interner::default();
    let mut slots: Vec<Arc<Slots>> = kept
        .iter()
        .zip(globals)
        .map(|(kept, fresh)| match (kept, fresh) {
            (Some(slots), _) => {
                meter.tick();
                slots.clone()
            }
            (None, Some(map)) => {
                meter.tick();
                Arc::new(interner.slots(map))
            }
            // A client bundle: its differences are resolved (and counted) below.
            (None, None) => Arc::default(),
        })
        .collect();
    // Bundles to resolve by client (all of a changed client's bundles are).
    let mut todo: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (b, (spec, kept)) in plan.specs.iter().zip(&kept).enumerate() {
        if let (Some(c), None) = (spec.client.as_deref(), kept) {
            todo.entry(c).or_default().push(b);
        }
    }
    let deltas: Vec<Vec<(usize, Slots)>> = todo
        .par_iter()
        .map(|(client, bundles)| {
            let names = prepared.affected(client);
            let mut interner = Interner::default();
            let base_of = |b: usize| plan.base_of[b].map(|g| &*slots[g]);
            bundles
                .iter()
                .filter_map(|&b| {
                    let base = base_of(b)?;
                    let mut own = prepared.resolve_some(&plan.specs[b], Some((&names, base)));
                    own.retain(|q, slot| base.get(q) != Some(slot));
                    meter.tick();
                    Some((b, interner.slots(own)))
                })
                .collect()
        })
        .collect();
    for (b, own) in deltas.into_iter().flatten() {
        slots[b] = Arc::new(own);
    }
    Resolved { slots }
}
