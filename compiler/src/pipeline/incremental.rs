//! Incremental rebuilds (`watch`, Skill Studio): a rebuild takes from the previous build of
//! the same workspace everything its edit cannot have changed, and computes the rest exactly
//! as a clean build does, so the artifact is byte-identical to a clean build of the same files.
//!
//! What an edit changes is decided on parsed data, not on paths: the *shared* part (workspace
//! settings, categories, variables, templates, global skills, the list of skills and clients,
//! the sources pool and the bundle plan) must be equal for anything to be reused; then each
//! client whose own skills and `client.yaml` are equal keeps its resolved bundles, and every
//! entry built only from unchanged skills keeps its rendered texts.
//!
//! A global skill whose body alone changed (the most common edit of a global skill) leaves
//! the shared part as it was, when its body uses the same variables and gets the same safety
//! verdict: resolution reads a body only for those two, so every bundle keeps its slots, and
//! only the entries built from that skill are rendered again.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::artifact::Rendered;
use super::budget::CardTextMemo;
use super::bundles::{Plan, Resolved};
use crate::model::{Scope, Skill, Workspace};
use crate::resolve::pool::Pool;
use crate::resolve::{EntryKey, Prepared, Slots};

/// What a build keeps for the next one.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// What was prepared of each skill.
    pub per_skill: crate::resolve::PerSkill,
    /// The sources pool.
    pub pool: Pool,
    /// The bundles.
    pub plan: Plan,
    /// Their slots.
    pub resolved: Resolved,
    /// Rendered entries by key.
    pub entries: FxHashMap<Arc<EntryKey>, Arc<Rendered>>,
    /// Catalog fragments by card and budget level.
    pub card_texts: CardTextMemo,
    /// The catalog level of each bundle, and what was cut.
    pub budgets: super::budget::Budgets,
}

/// A previous build: its workspace and what it kept.
#[derive(Debug)]
pub(crate) struct Memo {
    /// The workspace it was built from.
    pub ws: Workspace,
    /// What it computed.
    pub kept: Kept,
}

/// What this build may take from the previous one.
pub(crate) struct Reuse<'m> {
    kept: &'m Kept,
    changed_clients: BTreeSet<String>,
    /// Global skills whose body alone changed (by index): their entries are rendered again.
    rewritten: BTreeSet<usize>,
}

/// Compares the previous build with this workspace (`prepared` from it); `None` when nothing
/// can be reused.
pub(crate) fn reuse<'m>(
    memo: Option<&'m Memo>,
    ws: &Workspace,
    prepared: &Prepared<'_>,
    pool: &Pool,
    plan: &Plan,
) -> Option<Reuse<'m>> {
    let m = memo?;
    if m.kept.plan != *plan || m.kept.pool != *pool || !same_shared(&m.ws, ws) {
        return None;
    }
    let rewritten = rewritten_globals(m, ws, prepared)?;
    let changed_clients = changed_clients(&m.ws, ws);
    Some(Reuse {
        kept: &m.kept,
        changed_clients,
        rewritten,
    })
}

/// Everything but the clients' own files and the global skills' bodies is equal, and the
/// skills are the same list.
fn same_shared(a: &Workspace, b: &Workspace) -> bool {
    a.config == b.config
        && a.categories == b.categories
        && a.variables == b.variables
        && a.templates == b.templates
        && a.clients.keys().eq(b.clients.keys())
        && a.skills.len() == b.skills.len()
        && a.skills.iter().zip(&b.skills).all(|(x, y)| {
            x.scope == y.scope
                && x.file == y.file
                && (x.scope != Scope::Global || same(x, y) || same_but_body(x, y))
        })
}

/// The global skills whose body changed (the rest of them is equal: [`same_shared`]), when
/// resolution reads the same of each as before: the variables its texts use and whether the
/// safety check withholds it. `None` when one reads otherwise.
fn rewritten_globals(m: &Memo, ws: &Workspace, prepared: &Prepared<'_>) -> Option<BTreeSet<usize>> {
    let mut rewritten = BTreeSet::new();
    for (i, (x, y)) in m.ws.skills.iter().zip(&ws.skills).enumerate() {
        if y.scope != Scope::Global || same(x, y) {
            continue;
        }
        // (Its variables were found again: the skill is a new parse.)
        let same_uses = m.kept.per_skill.uses_of(i)? == &prepared.uses[i];
        if !same_uses || m.ws.withheld.get(&x.file) != ws.withheld.get(&y.file) {
            return None;
        }
        rewritten.insert(i);
    }
    Some(rewritten)
}

/// Equal skills; one parse handed out again (an unchanged folder in a session) is equal
/// without comparing every field.
fn same(x: &Arc<Skill>, y: &Arc<Skill>) -> bool {
    Arc::ptr_eq(x, y) || x == y
}

/// Skills equal in everything but their body (its first line's place included: a
/// frontmatter edited to the same values moves it). Its words are the routing index's, but the
/// entries built from the skill are rendered again, and their cards with them.
fn same_but_body(x: &Skill, y: &Skill) -> bool {
    let without_body = |s: &Skill| Skill {
        body: String::new(),
        prose: Default::default(),
        ..s.clone()
    };
    x.body_first_line == y.body_first_line && without_body(x) == without_body(y)
}

/// The clients whose `client.yaml` or skills differ (the skill lists are known to be the same
/// files in the same order): one pass over the skills, not one per client.
fn changed_clients(a: &Workspace, b: &Workspace) -> BTreeSet<String> {
    let mut changed: BTreeSet<String> = b
        .clients
        .keys()
        .filter(|id| a.clients.get(*id) != b.clients.get(*id))
        .cloned()
        .collect();
    for (x, y) in a.skills.iter().zip(&b.skills) {
        if let Scope::Client(id) = &y.scope {
            if b.clients.contains_key(id) && !changed.contains(id) && !same(x, y) {
                changed.insert(id.clone());
            }
        }
    }
    changed
}

/// Whether this build's bundles hold what the previous build's held, slot for slot, and got
/// the same catalog levels (the plan is the same when anything was reused): their rows are
/// then the ones it laid out, as the names, reasons and entry numbers they point to follow
/// from the slots in order.
pub(crate) fn same_bundles(kept: &Kept, resolved: &Resolved, levels: &[String]) -> bool {
    let (before, now) = (&kept.resolved.slots, &resolved.slots);
    kept.budgets.levels == levels
        && before.len() == now.len()
        && before
            .iter()
            .zip(now)
            .all(|(a, b)| Arc::ptr_eq(a, b) || a == b)
}

impl super::bundles::KeptSlots for Reuse<'_> {
    /// The previous slots of bundle `b` of the plan (the same plan), if its inputs are equal.
    fn slots(&self, plan: &Plan, b: usize) -> Option<Arc<Slots>> {
        match &plan.specs[b].client {
            Some(c) if self.changed_clients.contains(c) => None,
            _ => self.kept.resolved.slots.get(b).cloned(),
        }
    }
}

impl super::entries::KeptEntries for Reuse<'_> {
    fn entry(&self, ws: &Workspace, key: &EntryKey) -> Option<&Arc<Rendered>> {
        let changed = |i: usize| match &ws.skills[i].scope {
            Scope::Client(c) => self.changed_clients.contains(c),
            Scope::Global => self.rewritten.contains(&i),
        };
        if changed(key.base) || changed(key.source) {
            return None;
        }
        self.kept.entries.get(key)
    }
}
