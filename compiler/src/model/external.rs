//! Skills from other repositories (`workspace.yaml` `external:`), pinned in `skillc.lock` by
//! `skillc fetch` and read by `check` and `build` from the copies it stored under
//! `.skillc/external/`, never from the network.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::Pos;

/// The lock file, at the workspace's root.
pub const LOCK_FILE: &str = "skillc.lock";

/// One `external:` entry of `workspace.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExternalSource {
    /// The repository, as `git` takes it (a URL, `file://…`, a path).
    pub git: String,
    /// A tag, a branch or a commit.
    pub rev: String,
    /// The folder of the repository to bring in (`""`: all of it).
    pub path: String,
    /// The workspace folder its skills appear in (its identity: one entry per folder).
    pub into: String,
    /// Whether its code is trusted (by default it is prompt-only, as an imported package).
    pub trust: bool,
    /// The commit its skills were read at (set by the load, from `skillc.lock`).
    pub commit: Option<String>,
    /// Where the entry is written.
    #[serde(skip)]
    pub pos: Pos,
}

impl ExternalSource {
    /// The id its skills carry as their package: trusted or not as the entry says.
    pub fn package_id(&self) -> String {
        package_id(&self.into)
    }
}

/// The package id of the skills brought in under `into`.
pub fn package_id(into: &str) -> String {
    format!("external:{into}")
}

/// `skillc.lock`: each entry as fetched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// The format's version.
    pub version: u32,
    /// The entries, by `into`.
    #[serde(default)]
    pub external: Vec<Locked>,
}

/// One entry as `skillc fetch` pinned it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locked {
    /// As in `workspace.yaml`.
    pub into: String,
    /// As in `workspace.yaml`.
    pub git: String,
    /// As in `workspace.yaml`.
    pub rev: String,
    /// As in `workspace.yaml`.
    #[serde(default)]
    pub path: String,
    /// The commit `rev` named when it was fetched.
    pub commit: String,
    /// Every file brought in (relative to `into`) with its `sha256:` digest.
    pub files: BTreeMap<String, String>,
}

impl Locked {
    /// Whether it pins what `source` asks for (same repository, rev and folder).
    pub fn pins(&self, source: &ExternalSource) -> bool {
        self.into == source.into
            && self.git == source.git
            && self.rev == source.rev
            && self.path == source.path
    }
}

impl Lock {
    /// The lock's entry for `into`.
    pub fn entry(&self, into: &str) -> Option<&Locked> {
        self.external.iter().find(|l| l.into == into)
    }

    /// The lock as written to `skillc.lock`: a comment, then YAML.
    pub fn to_text(&self) -> String {
        let yaml = serde_yaml::to_string(self).unwrap_or_default();
        format!("# Written by `skillc fetch`: the commit and the digest of every file of each\n# `external:` entry of workspace.yaml. Commit it; `check` and `build` read only these.\n{yaml}")
    }

    /// The lock in `text`. Each `into` names a stored folder that `fetch` replaces and removes:
    /// one that is not a clean folder (`..`, empty, absolute) refuses the whole lock.
    pub fn parse(text: &str) -> Result<Lock, String> {
        let lock: Lock = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let clean = |into: &str| !into.is_empty() && clean_folder(into).is_ok_and(|c| c == into);
        match lock.external.iter().find(|l| !clean(&l.into)) {
            Some(bad) => Err(format!(
                "`into: {}` is not a folder inside the workspace (without `..`, hidden parts or a leading `/`)",
                bad.into
            )),
            None => Ok(lock),
        }
    }
}

/// A clean relative folder (`vendor/anthropic`), or why not.
pub fn clean_folder(text: &str) -> Result<String, &'static str> {
    let parts: Vec<&str> = text
        .trim()
        .trim_matches('/')
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if text.trim().starts_with('/') || parts.iter().any(|p| *p == ".." || p.starts_with('.')) {
        return Err("a folder inside the workspace, without `..` or hidden parts");
    }
    Ok(parts.join("/"))
}

/// Where `skillc fetch` stores the files of the entry for `into`.
pub fn store_dir(workspace: &Path, into: &str) -> PathBuf {
    workspace
        .join(".skillc")
        .join("external")
        .join(store_name(into))
}

/// The name of `into`'s stored folder: `vendor/acme` is `vendor__acme`. Two entries whose
/// names are the same would share one folder: the workspace check refuses them.
pub fn store_name(into: &str) -> String {
    into.replace('/', "__")
}

/// Why `lock` does not pin exactly what `sources` ask for (`--locked`), or `Ok`.
pub fn check_locked(sources: &[ExternalSource], lock: Option<&Lock>) -> Result<(), String> {
    if sources.is_empty() {
        return Ok(());
    }
    let Some(lock) = lock else {
        return Err(format!(
            "--locked: there is no {LOCK_FILE}; run `skillc fetch` and commit it"
        ));
    };
    for s in sources {
        match lock.entry(&s.into) {
            None => return Err(format!("--locked: {LOCK_FILE} does not pin `{}`; run `skillc fetch`", s.into)),
            Some(l) if !l.pins(s) => {
                return Err(format!(
                    "--locked: {LOCK_FILE} pins `{}` to {} at {}, workspace.yaml asks for {} at {}; run `skillc fetch`",
                    s.into, l.git, l.rev, s.git, s.rev
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = lock
        .external
        .iter()
        .find(|l| !sources.iter().any(|s| s.into == l.into))
    {
        return Err(format!(
            "--locked: {LOCK_FILE} pins `{}`, which workspace.yaml no longer has; run `skillc fetch`",
            extra.into
        ));
    }
    Ok(())
}
