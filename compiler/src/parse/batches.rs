//! A workspace of many clients loaded a batch of clients at a time, each time with its global
//! files: a build then holds one batch's skills at once, not every client's (at 50,000 clients
//! the whole workspace loaded was 3.2 GB).

use std::collections::BTreeSet;
use std::path::Path;

use crate::discover::fsio;
use crate::parse::load::{self, BatchLoads, Loaded};

/// The client folder (under `clients/`) a workspace file is in, if any.
pub(crate) fn client_of(rel: &str) -> Option<&str> {
    let rest = rel.strip_prefix("clients/")?;
    rest.split_once('/').map(|(id, _)| id)
}

/// A workspace's files as listed once, and its clients split into batches in id order (the
/// order a workspace loaded whole sorts its client skills and bundles in).
#[derive(Debug)]
pub(crate) struct Batches<'r> {
    root: &'r Path,
    listed: fsio::Listed,
    batches: Vec<BTreeSet<String>>,
}

/// Splits the clients of the workspace at `root` into batches of `size`. `None` when it is
/// better loaded whole: it has no more clients than that, or a client folder defines a
/// category (category folders are named once across the workspace, so one client's category
/// is seen by the skills of all).
pub(crate) fn plan(root: &Path, size: usize) -> Result<Option<Batches<'_>>, fsio::Error> {
    // Most workspaces have a few clients: known from one folder, without walking them all.
    let folders = std::fs::read_dir(root.join("clients")).map_or(0, |d| d.count());
    // A skill file at the root makes the whole folder one skill (`clients/` its files).
    let one_skill = ["SKILL.md", "skill.md"]
        .iter()
        .any(|f| root.join(f).exists());
    if folders <= size.max(1) || one_skill {
        return Ok(None);
    }
    let boundary = fsio::canonical_root(root)?;
    let listed = fsio::list_tree(root, "", &boundary)?;
    let mut clients: BTreeSet<&str> = BTreeSet::new();
    for (rel, _) in &listed.found {
        if let Some(id) = client_of(rel) {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            if name.eq_ignore_ascii_case("CATEGORY.md") {
                return Ok(None);
            }
            clients.insert(id);
        }
    }
    if clients.len() <= size.max(1) {
        return Ok(None);
    }
    let ids: Vec<&str> = clients.into_iter().collect();
    let batches = ids
        .chunks(size.max(1))
        .map(|c| c.iter().map(|id| id.to_string()).collect())
        .collect();
    Ok(Some(Batches {
        root,
        listed,
        batches,
    }))
}

impl Batches<'_> {
    /// Number of batches.
    pub(crate) fn len(&self) -> usize {
        self.batches.len()
    }

    /// Whether a workspace file belongs to batch `k`'s load and is one of its own: a file of
    /// one of its clients, or for the first batch a file outside every client folder.
    pub(crate) fn owns(&self, k: usize, rel: &str) -> bool {
        match client_of(rel) {
            Some(id) => self.batches[k].contains(id),
            None => k == 0,
        }
    }

    /// Loads batch `k`: the workspace's files outside client folders and those of its clients.
    /// The skills outside client folders, which every batch loads, are parsed through `loads`:
    /// again only when their files changed since the last batch's load.
    pub(crate) fn load(&self, k: usize, loads: &mut BatchLoads) -> Result<Loaded, fsio::Error> {
        let clients = &self.batches[k];
        let keep = |rel: &str| client_of(rel).is_none_or(|id| clients.contains(id));
        let every_batch = |rel: &str| client_of(rel).is_none();
        load::load_listed(self.root, &self.listed, keep, &every_batch, loads)
    }
}
