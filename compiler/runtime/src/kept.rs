//! The bundles an artifact keeps loaded: at most a set number, the least recently used let go
//! first. A process serving many clients would otherwise hold every bundle it ever loaded
//! (about 7.5 MB each with its routing index on the reference workload's 1,000-skill catalogs).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use crate::Bundle;

/// How many bundles an artifact keeps unless told otherwise.
pub const DEFAULT_MAX_BUNDLES: usize = 64;

struct Kept {
    bundle: Arc<Bundle>,
    /// The clock's reading at its last request.
    used: AtomicU64,
}

/// Loaded bundles by id, with when each was last asked for.
pub(crate) struct KeptBundles {
    bundles: RwLock<HashMap<i64, Kept>>,
    /// Counts requests, so that "least recently used" needs no time of day.
    clock: AtomicU64,
    max: AtomicUsize,
}

impl KeptBundles {
    pub(crate) fn new() -> KeptBundles {
        KeptBundles {
            bundles: RwLock::new(HashMap::new()),
            clock: AtomicU64::new(0),
            max: AtomicUsize::new(DEFAULT_MAX_BUNDLES),
        }
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// A kept bundle, marked as just used.
    pub(crate) fn get(&self, id: i64) -> Option<Arc<Bundle>> {
        let bundles = self.bundles.read().expect("lock");
        let kept = bundles.get(&id)?;
        kept.used.store(self.tick(), Ordering::Relaxed);
        Some(kept.bundle.clone())
    }

    pub(crate) fn contains(&self, id: i64) -> bool {
        self.bundles.read().expect("lock").contains_key(&id)
    }

    /// Keeps `bundle` (or the one another caller kept meanwhile, which it returns) and lets go
    /// of the least recently used beyond the limit. Returns the ids still kept when any was
    /// let go, so that what was made from the others can go too.
    pub(crate) fn insert(&self, id: i64, bundle: Arc<Bundle>) -> (Arc<Bundle>, Option<Vec<i64>>) {
        let mut bundles = self.bundles.write().expect("lock");
        let kept = bundles
            .entry(id)
            .or_insert_with(|| Kept {
                bundle,
                used: AtomicU64::new(0),
            })
            .bundle
            .clone();
        bundles[&id].used.store(self.tick(), Ordering::Relaxed);
        let dropped = trim(&mut bundles, self.max.load(Ordering::Relaxed));
        (kept, dropped.then(|| bundles.keys().copied().collect()))
    }

    pub(crate) fn remove(&self, id: i64) {
        self.bundles.write().expect("lock").remove(&id);
    }

    /// Sets the limit, letting go of the least recently used beyond it now. Returns the ids
    /// still kept.
    pub(crate) fn set_max(&self, max: usize) -> Vec<i64> {
        self.max.store(max, Ordering::Relaxed);
        let mut bundles = self.bundles.write().expect("lock");
        trim(&mut bundles, max);
        bundles.keys().copied().collect()
    }

    pub(crate) fn max(&self) -> usize {
        self.max.load(Ordering::Relaxed)
    }
}

/// Lets go of the least recently used bundles until at most `max` are kept; whether any went.
fn trim(bundles: &mut HashMap<i64, Kept>, max: usize) -> bool {
    let over = bundles.len().saturating_sub(max);
    if over == 0 {
        return false;
    }
    let mut by_use: Vec<(u64, i64)> = bundles
        .iter()
        .map(|(id, k)| (k.used.load(Ordering::Relaxed), *id))
        .collect();
    by_use.sort_unstable();
    for (_, id) in by_use.into_iter().take(over) {
        bundles.remove(&id);
    }
    true
}
