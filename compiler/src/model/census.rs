//! What the checks and the phases of one batch of clients read of the rest of the workspace.
//!
//! A build of many clients loads the global skills with a batch of clients at a time, so that
//! its memory does not grow with the number of clients. A few results still depend on every
//! client: whether a reference names a skill anywhere, which variables some client sets, the
//! overlap pass's word weights, the sources pool, the categories skills name, the qualified
//! names consumers filter and the manifest's counts. A census gathers those facts over every
//! batch first; a batch's workspace carries it ([`Workspace::census`](crate::model::Workspace::census)), and each of those
//! places reads it instead of the batch's own skills and clients. A workspace loaded whole
//! carries none and reads itself: both give the same results.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

/// The vocabulary of the listed skills' catalog texts, numbered in order of first appearance
/// over the skills in workspace order, with each word's document frequency and the number of
/// listed skills: the inverse document frequencies depend on every listed skill. Counted and
/// weighed by `check::overlap`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Words {
    pub(crate) ids: HashMap<String, u32>,
    pub(crate) df: Vec<u32>,
    pub(crate) listed: usize,
}

/// One source of the workspace's pool (`resolve::pool`): one normalised URL, one id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PooledSource {
    /// Workspace-wide id, from 1.
    pub sid: u32,
    /// Normalised URL.
    pub url: String,
    /// Title (from the first skill, in path order, that gives one).
    pub title: Option<String>,
    /// Summary text.
    pub text: Option<String>,
    /// Other fields, merged in path order.
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// Facts of a whole workspace, gathered batch by batch (see the module's documentation; the
/// gathering is the pipeline's, `build::census`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Census {
    /// Every skill name, in any scope, with the namespaces it is used in, in order of first
    /// appearance (a global skill's reference to a skill only clients have means the first).
    pub(crate) names: BTreeMap<String, Vec<String>>,
    /// Every (section, variable) some client's `vars` sets.
    pub(crate) client_vars: BTreeSet<(String, String)>,
    /// The overlap pass's vocabulary and document frequencies over every listed skill.
    pub(crate) words: Words,
    /// Every skill's sources, pooled by normalised URL.
    pub sources: BTreeMap<String, PooledSource>,
    /// The categories skills are in.
    pub(crate) skill_categories: BTreeSet<String>,
    /// The qualified names of all skills.
    pub(crate) qualified: BTreeSet<String>,
    /// Skills, global skills and clients.
    pub(crate) counts: Counts,
    /// The variables some skill declares `secret: true`.
    pub(crate) secret_vars: BTreeSet<String>,
    /// Bytes of every skill's assets.
    pub(crate) asset_bytes: u64,
    /// Each client's own `routing:` settings, for the manifest.
    pub(crate) client_routing: BTreeMap<String, serde_json::Value>,
    /// Every batch's plugins (a client's own and the shared ones, once), by their manifest's
    /// path and place in it: the order a workspace loaded whole lists them in.
    pub(crate) plugins: BTreeMap<(String, usize), super::Plugin>,
}

/// The manifest's counts of a workspace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Skills of the whole workspace, every client's included.
    pub skills: usize,
    /// Skills outside client folders.
    pub(crate) global_skills: usize,
    /// Client folders.
    pub clients: usize,
}

impl Census {
    /// Whether a reference (`name` or `namespace.name`, split) names a skill in any scope.
    pub(crate) fn exists_anywhere(&self, namespace: Option<&str>, name: &str) -> bool {
        self.anywhere(namespace, name).is_some()
    }

    /// The qualified name a reference (split) means when it names no skill in its own scope:
    /// the first skill of the workspace with that name (and namespace, if given).
    pub(crate) fn anywhere(&self, namespace: Option<&str>, name: &str) -> Option<String> {
        let known = self.names.get(name)?;
        let ns = match namespace {
            Some(ns) => known.iter().find(|n| *n == ns)?,
            None => known.first()?,
        };
        Some(format!("{ns}.{name}"))
    }
}
