//! What the checks and the phases of one batch of clients read of the rest of the workspace.
//!
//! A build of many clients loads the global skills with a batch of clients at a time, so that
//! its memory does not grow with the number of clients. A few results still depend on every
//! client: whether a reference names a skill anywhere, which variables some client sets, the
//! overlap pass's word weights, the sources pool, the categories skills name, the qualified
//! names consumers filter and the manifest's counts. A census gathers those facts over every
//! batch first; a batch's workspace carries it ([`Workspace::census`]), and each of those
//! places reads it instead of the batch's own skills and clients. A workspace loaded whole
//! carries none and reads itself: both give the same results.

use std::collections::{BTreeMap, BTreeSet};

use crate::check::overlap::Words;
use crate::model::{Scope, Workspace};
use crate::resolve::pool::{self, PooledSource};

/// Facts of a whole workspace, gathered batch by batch (see the module's documentation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Census {
    /// Every skill name, in any scope, with the namespaces it is used in, in order of first
    /// appearance (a global skill's reference to a skill only clients have means the first).
    pub names: BTreeMap<String, Vec<String>>,
    /// Every (section, variable) some client's `vars` sets.
    pub client_vars: BTreeSet<(String, String)>,
    /// The overlap pass's vocabulary and document frequencies over every listed skill.
    pub words: Words,
    /// Every skill's sources, pooled by normalised URL.
    pub sources: BTreeMap<String, PooledSource>,
    /// The categories skills are in.
    pub skill_categories: BTreeSet<String>,
    /// The qualified names of all skills.
    pub qualified: BTreeSet<String>,
    /// Skills, global skills and clients.
    pub counts: Counts,
    /// The variables some skill declares `secret: true`.
    pub secret_vars: BTreeSet<String>,
    /// Bytes of every skill's assets.
    pub asset_bytes: u64,
}

/// The manifest's counts of a workspace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Skills.
    pub skills: usize,
    /// Global skills.
    pub global_skills: usize,
    /// Clients.
    pub clients: usize,
}

impl Census {
    /// Adds a batch: its clients and their skills, and the global skills if `with_global`
    /// (the first batch). Batches are added in the order of their clients, as a workspace
    /// loaded whole sorts its skills (global ones first, then by client): the facts kept in
    /// order of first appearance come out the same.
    pub fn add(&mut self, ws: &Workspace, with_global: bool) {
        let skills: Vec<usize> = (0..ws.skills.len())
            .filter(|&i| with_global || ws.skills[i].scope != Scope::Global)
            .collect();
        for &i in &skills {
            let s = &ws.skills[i];
            let namespaces = self.names.entry(s.name.clone()).or_default();
            if !namespaces.contains(&s.namespace) {
                namespaces.push(s.namespace.clone());
            }
            self.skill_categories.extend(s.category.iter().cloned());
            self.qualified.insert(s.qualified_name());
        }
        for c in ws.clients.values() {
            for (section, vars) in &c.vars {
                for var in vars.keys() {
                    self.client_vars.insert((section.clone(), var.clone()));
                }
            }
        }
        let these = || skills.iter().map(|&i| &*ws.skills[i]);
        self.secret_vars
            .extend(crate::model::secret_names_of(these()));
        self.asset_bytes += crate::model::asset_bytes_of(these());
        self.words.add(ws, &skills);
        pool::gather(&mut self.sources, skills.iter().map(|&i| &*ws.skills[i]));
        let global = skills
            .iter()
            .filter(|&&i| ws.skills[i].scope == Scope::Global)
            .count();
        self.counts.skills += skills.len();
        self.counts.global_skills += global;
        self.counts.clients += ws.clients.len();
    }

    /// Whether a reference (`name` or `namespace.name`, split) names a skill in any scope.
    pub fn exists_anywhere(&self, namespace: Option<&str>, name: &str) -> bool {
        self.anywhere(namespace, name).is_some()
    }

    /// The qualified name a reference (split) means when it names no skill in its own scope:
    /// the first skill of the workspace with that name (and namespace, if given).
    pub fn anywhere(&self, namespace: Option<&str>, name: &str) -> Option<String> {
        let known = self.names.get(name)?;
        let ns = match namespace {
            Some(ns) => known.iter().find(|n| *n == ns)?,
            None => known.first()?,
        };
        Some(format!("{ns}.{name}"))
    }
}
