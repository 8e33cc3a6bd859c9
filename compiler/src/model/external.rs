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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExternalSource {
    /// The repository, as `git` takes it (a URL, `file://…`, a path), without the user name
    /// and password a URL may hold (`without_userinfo`): what is stored and shown.
    pub(crate) git: String,
    /// The repository as `workspace.yaml` writes it, credentials included: given only to the
    /// `git` command, never stored or shown.
    #[serde(skip)]
    pub(crate) remote: String,
    /// A tag, a branch or a commit.
    pub(crate) rev: String,
    /// The folder of the repository to bring in (`""`: all of it).
    pub path: String,
    /// The workspace folder its skills appear in (its identity: one entry per folder).
    pub into: String,
    /// Whether its code is trusted (by default it is prompt-only, as an imported package).
    pub(crate) trust: bool,
    /// The commit its skills were read at (set by the load, from `skillc.lock`).
    pub commit: Option<String>,
    /// Where the entry is written.
    #[serde(skip)]
    pub(crate) pos: Pos,
}

impl ExternalSource {
    /// The id its skills carry as their package: trusted or not as the entry says.
    pub(crate) fn package_id(&self) -> String {
        package_id(&self.into)
    }
}

/// The package id of the skills brought in under `into`.
pub(crate) fn package_id(into: &str) -> String {
    format!("external:{into}")
}

/// `skillc.lock`: each entry as fetched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// The format's version.
    pub(crate) version: u32,
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
    pub(crate) git: String,
    /// As in `workspace.yaml`.
    pub(crate) rev: String,
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
    pub(crate) fn pins(&self, source: &ExternalSource) -> bool {
        self.into == source.into
            && without_userinfo(&self.git) == without_userinfo(&source.git)
            && self.rev == source.rev
            && self.path == source.path
    }

    /// A text of the entry that messages would print raw and that `fetch` never writes: one
    /// with control characters (ESC would drive the terminal or CI log showing it), or a
    /// digest that is not `sha256:` and 64 lowercase hex digits.
    fn unprintable(&self) -> Option<&str> {
        let texts = [&self.into, &self.git, &self.rev, &self.path];
        let names = self.files.keys();
        let control = |t: &&String| t.chars().any(char::is_control);
        let digest = |d: &&String| {
            !d.strip_prefix("sha256:").is_some_and(|h| {
                h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            })
        };
        (texts.into_iter().chain(names).find(control))
            .or_else(|| self.files.values().find(digest))
            .map(String::as_str)
    }
}

impl Lock {
    /// The lock's entry for `into`.
    pub(crate) fn entry(&self, into: &str) -> Option<&Locked> {
        self.external.iter().find(|l| l.into == into)
    }

    /// The lock as written to `skillc.lock`: a comment, then YAML.
    pub(crate) fn to_text(&self) -> String {
        let yaml = serde_yaml::to_string(self).unwrap_or_default();
        format!("# Written by `skillc fetch`: the commit and the digest of every file of each\n# `external:` entry of workspace.yaml. Commit it; `check` and `build` read only these.\n{yaml}")
    }

    /// The lock in `text`. Each `into` names a stored folder that `fetch` replaces and removes:
    /// one that is not a clean folder (`..`, empty, absolute) refuses the whole lock. Each
    /// `commit` must be a commit id (a branch name there would follow the branch, not pin).
    pub(crate) fn parse(text: &str) -> Result<Lock, String> {
        let lock: Lock = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        if lock.version != 1 {
            // Another format, from another skillc: read as this one, its pins could mean
            // something else.
            return Err(format!(
                "`version: {}` is not a lock format this skillc reads (1)",
                lock.version
            ));
        }
        let clean = |into: &str| !into.is_empty() && clean_folder(into).is_ok_and(|c| c == into);
        if let Some(bad) = lock.external.iter().find(|l| !clean(&l.into)) {
            return Err(format!(
                "`into: {}` is not a folder inside the workspace (without `..`, hidden parts or a leading `/`)",
                bad.into
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(twice) = (lock.external.iter()).find(|l| !seen.insert(store_name(&l.into))) {
            // Which of two pins holds would depend on the reader.
            return Err(format!(
                "`into: {}` is pinned twice (or shares its stored folder with another entry)",
                twice.into
            ));
        }
        if let Some(bad) = lock.external.iter().find(|l| !is_commit_id(&l.commit)) {
            return Err(format!(
                "`commit: {}` of `into: {}` is not a commit id (40 or 64 lowercase hexadecimal digits)",
                bad.commit.escape_debug(),
                bad.into
            ));
        }
        match lock.external.iter().find_map(Locked::unprintable) {
            Some(bad) => Err(format!(
                "`{}` holds control characters or is not a `sha256:` digest; a lock is written by `skillc fetch`",
                bad.escape_debug()
            )),
            None => Ok(lock),
        }
    }
}

/// Whether `text` is a full commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits, as
/// `git rev-parse` writes it.
pub(crate) fn is_commit_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The first `n` characters of `text` (a short commit id), never cut inside a character.
pub fn short(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(i, _)| &text[..i])
}

/// A repository URL without the user name and password of its authority
/// (`https://user:token@host/x` is `https://host/x`): what the lock, the artifact and every
/// message show, so a credential written in `workspace.yaml` is never stored or printed.
/// Other forms (`git@host:x`, paths) hold no password and are returned as they are.
pub(crate) fn without_userinfo(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let start = scheme_end + 3;
    let authority_end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    match url[start..authority_end].rfind('@') {
        Some(at) => format!("{}{}", &url[..start], &url[start + at + 1..]),
        None => url.to_string(),
    }
}

/// A clean relative folder (`vendor/anthropic`), or why not.
pub(crate) fn clean_folder(text: &str) -> Result<String, &'static str> {
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
pub(crate) fn store_name(into: &str) -> String {
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
                    s.into, without_userinfo(&l.git), l.rev, s.git, s.rev
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_loses_its_user_name_and_password_and_nothing_else() {
        for (url, shown) in [
            (
                "https://bot:tok@github.com/a/b.git",
                "https://github.com/a/b.git",
            ),
            (
                "https://tok@host:8443/a@b?x=@#y",
                "https://host:8443/a@b?x=@#y",
            ),
            ("ssh://git@host/a.git", "ssh://host/a.git"),
            ("https://a:b@c@host", "https://host"),
            ("git@github.com:a/b.git", "git@github.com:a/b.git"),
            ("/srv/repo", "/srv/repo"),
            ("file:///srv/r@po", "file:///srv/r@po"),
        ] {
            assert_eq!(without_userinfo(url), shown, "{url}");
        }
    }

    #[test]
    fn short_ids_are_cut_by_characters() {
        assert_eq!(short("aéééééééééé", 3), "aéé");
        assert_eq!(short("abc", 12), "abc");
        assert!(is_commit_id(&"a".repeat(40)) && is_commit_id(&"0".repeat(64)));
        assert!(!is_commit_id("main") && !is_commit_id(&"A".repeat(40)));
    }
}
