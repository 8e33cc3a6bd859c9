//! Review and publish: every change of the workspace since the last commit, as file diffs and
//! as what it does to each client, locale and tier; then a commit of exactly those files.
//!
//! Git is used as users have it, through the `git` command: its configuration (author,
//! signing, safe directories, credentials) applies unchanged, and the studio adds no library
//! that could disagree with it about the repository's state. The commit is written through a
//! private index (`read-tree HEAD`, `add` the reviewed paths, `write-tree`, `commit-tree`,
//! `update-ref` from the reviewed HEAD), so whatever else the user has staged stays staged and
//! out of the commit, and a failure at any step leaves the repository and the files as they
//! were.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;
use skillc_runtime::{Artifact, BundleRef, Context, Format};

use crate::error::StudioError;

/// Files whose diff is shown; the rest are listed without one.
const MAX_DIFFS: usize = 300;
/// Bundles named per change; the rest are counted.
const MAX_NAMED: usize = 200;
/// Bundles whose catalog tokens are compared (each needs two bundle loads), in all and per
/// change.
const MAX_TOKEN_BUNDLES: usize = 24;
const SAMPLES_PER_CHANGE: usize = 3;

/// One changed file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct FileChange {
    /// Path inside the workspace.
    pub path: String,
    /// `added`, `changed` or `removed`.
    #[ts(type = r#""added" | "changed" | "removed""#)]
    pub status: &'static str,
    /// Unified diff against HEAD (empty past [`MAX_DIFFS`] files or for binary files).
    pub diff: String,
    /// For a SKILL.md or a translation, the change as a document: fields from what to what,
    /// paragraphs gone and new.
    pub document: Option<crate::docdiff::DocChange>,
}

/// One change, in words, and the bundles it happens in.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct ImpactGroup {
    /// E.g. "pricing-uk's description changed; the catalog grows by 14 tokens".
    pub change: String,
    /// How many bundles it happens in.
    pub count: usize,
    /// Per client (`global` for the global bundles), how many of them, in the diff's order.
    pub clients: Vec<(String, usize)>,
    /// The first of them, e.g. "hyperline.co, en, standard" (at most [`MAX_NAMED`]).
    pub bundles: Vec<String>,
}

/// What the working tree does to the bundles, against HEAD.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Impact {
    /// The changes, each with the bundles where it happens (an edit of a global skill is one
    /// change in every bundle that holds it).
    pub groups: Vec<ImpactGroup>,
    /// Bundles that change, and that do not.
    pub changed: usize,
    pub unchanged: usize,
    /// Why the impact could not be computed (a side that does not build), if so.
    pub problem: Option<String>,
    /// Warnings the change brings: in the new build and not in the last commit's (compared
    /// by code, file and message, as lines move).
    pub new_warnings: Vec<NewWarning>,
}

/// A warning the change brings.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct NewWarning {
    /// Its code.
    pub code: String,
    /// The file.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

/// The warnings of `new` that `old` does not have.
fn new_warnings(old: &Artifact, new: &Artifact) -> Result<Vec<NewWarning>, String> {
    let key =
        |d: &skillc_runtime::StoredDiagnostic| (d.code.clone(), d.file.clone(), d.message.clone());
    let before: std::collections::HashSet<_> = old
        .diagnostics(None)
        .map_err(|e| e.to_string())?
        .iter()
        .map(key)
        .collect();
    Ok(new
        .diagnostics(None)
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|d| !before.contains(&key(d)))
        .map(|d| NewWarning {
            code: d.code,
            file: d.file,
            line: d.line,
            message: d.message,
        })
        .collect())
}

/// The review of a workspace.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Review {
    /// Set when the workspace is not in a git repository: how to make it one.
    pub not_a_repository: Option<String>,
    /// The commit compared with (short hash), `None` before the first commit.
    pub head: Option<String>,
    /// Changed files, sorted by path.
    pub files: Vec<FileChange>,
    /// What the change does.
    pub impact: Impact,
    /// Identifies exactly what was reviewed (HEAD, and each file's status and diff): a
    /// publish of another state is refused.
    pub token: String,
    /// What stands in the way of publishing (filled by the session, which builds and runs the
    /// cases).
    pub blockers: crate::session::Blockers,
}

/// Runs git in `dir`; stdout on success, the trimmed stderr as the error.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    git_env(dir, args, &[])
}

fn git_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Result<Vec<u8>, String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim().to_string()
}

fn git_err(what: &str) -> impl Fn(String) -> StudioError + '_ {
    move |e| StudioError::new("io", format!("{what}: {e}"))
}

/// The workspace's place in its repository: the full HEAD commit (if any) and the
/// workspace's path inside the repository (`skills/`, or empty at the top).
struct Repo {
    top: PathBuf,
    head: Option<String>,
    prefix: String,
}

fn repo(root: &Path) -> Result<Option<Repo>, StudioError> {
    let Ok(top) = git(root, &["rev-parse", "--show-toplevel"]) else {
        return Ok(None);
    };
    let top = PathBuf::from(text(top));
    let prefix =
        text(git(root, &["rev-parse", "--show-prefix"]).map_err(git_err("git rev-parse"))?);
    let head = git(root, &["rev-parse", "--verify", "-q", "HEAD"])
        .ok()
        .map(text);
    Ok(Some(Repo { top, head, prefix }))
}

const NOT_A_REPOSITORY: &str = "This workspace is not in a git repository, so there is no last version to compare with and nowhere to publish. To make it one, run `git init`, `git add .` and `git commit -m \"First version\"` in its folder (or ask whoever keeps your repositories to add it to one).";

/// The changed files under the workspace, as (path inside the workspace, status), from
/// `git status` (untracked files included, the studio's own `.skillc/` ignored).
fn changed_files(root: &Path, prefix: &str) -> Result<Vec<(String, &'static str)>, StudioError> {
    let out = git(
        root,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--",
            ".",
        ],
    )
    .map_err(git_err("git status"))?;
    let mut files = Vec::new();
    for record in out.split(|&b| b == 0).filter(|r| r.len() > 3) {
        let (xy, path) = (
            &record[..2],
            String::from_utf8_lossy(&record[3..]).to_string(),
        );
        let Some(path) = path.strip_prefix(prefix).map(str::to_string) else {
            continue;
        };
        if path.starts_with(".skillc/") {
            continue;
        }
        let status = if xy == b"??" || xy.contains(&b'A') {
            "added"
        } else if xy.contains(&b'D') {
            "removed"
        } else {
            "changed"
        };
        files.push((path, status));
    }
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    Ok(files)
}

/// A file's diff against HEAD (a new file against nothing).
fn file_diff(root: &Path, path: &str, status: &str, has_head: bool) -> String {
    let literal = format!(":(literal){path}");
    let out = if status == "added" {
        // `--no-index` exits 1 when the files differ, which they do: read stdout regardless.
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args([
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-index",
                "--",
                "/dev/null",
                path,
            ])
            .output()
            .map(|o| o.stdout)
            .unwrap_or_default()
    } else if has_head {
        git(
            root,
            &[
                "diff",
                "--no-color",
                "--no-ext-diff",
                "HEAD",
                "--",
                &literal,
            ],
        )
        .unwrap_or_default()
    } else {
        Vec::new()
    };
    String::from_utf8_lossy(&out).to_string()
}

/// The workspace as it is in HEAD, written into `dir` (replaced), from `git archive`.
fn export_head(repo: &Repo, dir: &Path) -> Result<(), String> {
    // From the top: in a subfolder, `git archive` also keeps only that subfolder's paths.
    let tree = format!("HEAD:{}", repo.prefix);
    let zip = git(&repo.top, &["archive", "--format=zip", &tree])?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(|e| e.to_string())?;
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(|e| e.to_string())?;
        let Some(rel) = file.enclosed_name() else {
            continue; // git archive writes none, but a path that leaves `dir` is never followed
        };
        let target = dir.join(rel);
        if file.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let mut out = std::fs::File::create(&target).map_err(|e| e.to_string())?;
        std::io::copy(&mut file, &mut out).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Builds HEAD's workspace into `cache/head.db`, once per commit.
fn build_head(repo: &Repo, cache: &Path) -> Result<PathBuf, String> {
    let out = cache.join("head.db");
    let stamp = cache.join("head.commit");
    let head = repo.head.as_deref().unwrap_or_default();
    if out.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(head) {
        return Ok(out);
    }
    let dir = cache.join("head");
    export_head(repo, &dir).map_err(|e| format!("cannot read the last commit: {e}"))?;
    fetch_head_externals(&repo.top.join(&repo.prefix), &dir)?;
    let report =
        skillc::build(&dir, &out, &skillc::BuildOptions::default()).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    if report.stats.is_none() {
        return Err(format!(
            "the last commit does not build ({} errors), so there is nothing to compare with",
            report.error_count()
        ));
    }
    std::fs::write(&stamp, head).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The outside skills the last commit's `skillc.lock` pins, stored into its export `dir`:
/// a lock change is then reviewed as what it changes for each client, like any other. The
/// working tree's mirrors are shared, so a pinned commit they hold needs no network.
fn fetch_head_externals(root: &Path, dir: &Path) -> Result<(), String> {
    let (config, _) = skillc::workspace_config(dir).map_err(|e| e.to_string())?;
    if config.external.is_empty() {
        return Ok(());
    }
    let stored = dir.join(".skillc").join("external");
    std::fs::create_dir_all(&stored).map_err(|e| e.to_string())?;
    share_mirrors(root, &stored.join(".mirrors"));
    let none = skillc::interop::fetch::Update::None;
    skillc::interop::fetch::fetch(dir, &config.external, &none)
        .map(|_| ())
        .map_err(|e| format!("the last commit's outside skills cannot be fetched: {e}"))
}

/// The working tree's mirrors, cloned into `into` (a local clone hard-links the objects, so it
/// costs little) and naming their repository as the originals do, so that `fetch` takes each as
/// its own. A link to them would be refused: `fetch` writes through no link. A mirror that
/// cannot be cloned is left out; `fetch` then clones it from its repository.
fn share_mirrors(root: &Path, into: &Path) {
    let mirrors = root.join(".skillc").join("external").join(".mirrors");
    let Ok(entries) = std::fs::read_dir(&mirrors) else {
        return;
    };
    for entry in entries.flatten() {
        let (from, to) = (entry.path(), into.join(entry.file_name()));
        if to.symlink_metadata().is_ok() {
            continue;
        }
        let Ok(url) = git(&from, &["config", "--get", "remote.origin.url"]).map(text) else {
            continue;
        };
        let (from_s, to_s) = (from.to_string_lossy(), to.to_string_lossy());
        let cloned = git(
            into.parent().unwrap_or(into),
            &["clone", "--quiet", "--mirror", "--", &from_s, &to_s],
        )
        .and_then(|_| git(&to, &["remote", "set-url", "origin", &url]));
        if cloned.is_err() {
            let _ = std::fs::remove_dir_all(&to);
        }
    }
}

fn who(client: &str, locale: &str, tier: &str) -> String {
    let client = if client.is_empty() { "global" } else { client };
    format!("{client}, {locale}, {tier}")
}

/// A skill's short name from a qualified one (`public.pricing-uk` gives `pricing-uk`).
fn short(q: &str) -> &str {
    q.split_once('.').map_or(q, |(_, n)| n)
}

fn list(names: &[String]) -> String {
    let names: Vec<&str> = names.iter().map(|n| short(n)).collect();
    match names.len() {
        0 => String::new(),
        1 => names[0].to_string(),
        n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

/// The markdown catalog's tokens of a bundle (no run-time context).
fn catalog_tokens(a: &Artifact, client: &str, locale: &str, tier: &str) -> Option<u32> {
    let r = BundleRef {
        client: (!client.is_empty()).then_some(client),
        locale: Some(locale),
        tier: Some(tier),
    };
    a.catalog(&r, None, &Context::default(), Format::Markdown)
        .ok()
        .map(|c| c.tokens)
}

/// What one bundle's diff means, in words (without the bundle or the catalog's tokens).
fn change(b: &skillc::interop::diff::BundleDiff) -> String {
    let mut parts = Vec::new();
    if !b.added.is_empty() {
        parts.push(format!("{} now in", list(&b.added)));
    }
    if !b.removed.is_empty() {
        parts.push(format!("{} no longer in", list(&b.removed)));
    }
    for c in &b.changed {
        let fields = c.fields.join(", ");
        parts.push(format!("{}'s {fields} changed", short(&c.name)));
    }
    if !b.catalogs.is_empty() {
        parts.push(format!("catalog text changed ({})", b.catalogs.join(", ")));
    }
    parts.join("; ")
}

/// What a change does to the catalog's size, from a few of the bundles it reaches (each
/// catalog read costs a bundle load): "the catalog grows by 6 tokens", or a range.
fn token_words(deltas: &[i64]) -> Option<String> {
    let (lo, hi) = (*deltas.iter().min()?, *deltas.iter().max()?);
    let amount = |n: i64| n.unsigned_abs();
    Some(match (lo, hi) {
        (0, 0) => "the catalog keeps its size".to_string(),
        (lo, hi) if lo == hi && lo > 0 => format!("the catalog grows by {} tokens", amount(lo)),
        (lo, hi) if lo == hi => format!("the catalog shrinks by {} tokens", amount(lo)),
        (lo, hi) if lo >= 0 => format!("the catalog grows by {lo} to {hi} tokens"),
        (lo, hi) if hi <= 0 => format!(
            "the catalog shrinks by {} to {} tokens",
            amount(hi),
            amount(lo)
        ),
        (lo, hi) => format!("the catalog changes by {lo} to +{hi} tokens"),
    })
}

/// What a bundle new in the working tree (`client/locale/tier`, `global` for visitors of no
/// client) means against the bundles `before`: a language, a tier or a client served for the
/// first time, or a client now served a language it was not.
pub fn added(label: &str, before: &[(&str, &str, &str)]) -> String {
    let mut parts = label.splitn(3, '/');
    let (client, locale, tier) = match (parts.next(), parts.next(), parts.next()) {
        (Some(c), Some(l), Some(t)) => (if c == "global" { "" } else { c }, l, t),
        _ => return "a new bundle".into(),
    };
    if !before.iter().any(|b| b.1 == locale) {
        format!("now served in {locale}, a language no one was served in before")
    } else if !before.iter().any(|b| b.0 == client) {
        "a new client".into()
    } else if !before.iter().any(|b| b.2 == tier) {
        format!("a new tier, {tier}")
    } else if !before.iter().any(|b| b.0 == client && b.1 == locale) {
        format!("now served in {locale}")
    } else {
        format!("now served in tier {tier}")
    }
}

/// Gathers (bundle, change) pairs by change, in first-seen order, counting every bundle and
/// naming the first [`MAX_NAMED`] of each change.
fn group(pairs: Vec<(String, String)>) -> Vec<ImpactGroup> {
    let mut groups: Vec<ImpactGroup> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (bundle, change) in pairs {
        let i = *index.entry(change.clone()).or_insert_with(|| {
            groups.push(ImpactGroup {
                change,
                ..ImpactGroup::default()
            });
            groups.len() - 1
        });
        let g = &mut groups[i];
        g.count += 1;
        let client = bundle.split(", ").next().unwrap_or_default().to_string();
        match g.clients.iter_mut().find(|(c, _)| *c == client) {
            Some((_, n)) => *n += 1,
            None => g.clients.push((client, 1)),
        }
        if g.bundles.len() < MAX_NAMED {
            g.bundles.push(bundle);
        }
    }
    groups
}

/// The impact of the working tree (`work`, its fresh build) against HEAD.
fn impact(head: &Path, work: &Path) -> Result<Impact, String> {
    let old = Artifact::open(head).map_err(|e| e.to_string())?;
    let new = Artifact::open(work).map_err(|e| e.to_string())?;
    let d = skillc::interop::diff::diff(&old, &new).map_err(|e| e.to_string())?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    let before: Vec<(&str, &str, &str)> = old.bundle_names();
    for label in &d.added_bundles {
        pairs.push((label.replace('/', ", "), added(label, &before)));
    }
    for label in &d.removed_bundles {
        pairs.push((label.replace('/', ", "), "no longer built".to_string()));
    }
    // The catalog's size is measured on at most a few bundles per change: a change to a
    // global skill reaches every bundle, and each measure loads two bundles.
    let mut sampled: HashMap<String, Vec<i64>> = HashMap::new();
    let mut samples = 0;
    for b in &d.bundles {
        let what = change(b);
        let taken = sampled.entry(what.clone()).or_default();
        if !b.catalogs.is_empty() && taken.len() < SAMPLES_PER_CHANGE && samples < MAX_TOKEN_BUNDLES
        {
            let of = |a: &Artifact| catalog_tokens(a, &b.client, &b.locale, &b.tier);
            if let (Some(x), Some(y)) = (of(&old), of(&new)) {
                taken.push(i64::from(y) - i64::from(x));
                samples += 1;
            }
        }
        pairs.push((who(&b.client, &b.locale, &b.tier), what));
    }
    let pairs = pairs
        .into_iter()
        .map(|(bundle, what)| {
            let tokens = sampled.get(&what).and_then(|d| token_words(d));
            let what = match tokens {
                Some(t) => format!(
                    "{}; {t}",
                    what.split("; catalog text changed").next().unwrap_or(&what)
                ),
                None => what,
            };
            (bundle, what)
        })
        .collect::<Vec<_>>();
    let changed = pairs.len();
    Ok(Impact {
        groups: group(pairs),
        changed,
        unchanged: d.unchanged,
        problem: None,
        new_warnings: new_warnings(&old, &new)?,
    })
}

fn token_of(head: Option<&str>, files: &[FileChange]) -> String {
    let mut all = head.unwrap_or("-").to_string();
    for f in files {
        all.push('\0');
        all.push_str(&f.path);
        all.push('\0');
        all.push_str(f.status);
        all.push('\0');
        all.push_str(&f.diff);
    }
    skillc::digest::hash(all.as_bytes())
}

/// The changed files with their diffs (every one, for the token), and the token.
fn files_and_token(root: &Path, repo: &Repo) -> Result<(Vec<FileChange>, String), StudioError> {
    let files: Vec<FileChange> = changed_files(root, &repo.prefix)?
        .into_iter()
        .enumerate()
        .map(|(i, (path, status))| {
            let diff = file_diff(root, &path, status, repo.head.is_some());
            let document = (i < MAX_DIFFS)
                .then(|| document(root, repo, &path))
                .flatten();
            FileChange {
                path,
                status,
                diff,
                document,
            }
        })
        .collect();
    let token = token_of(repo.head.as_deref(), &files);
    Ok((files, token))
}

/// A skill file's change as a document: HEAD's text against the file now.
fn document(root: &Path, repo: &Repo, path: &str) -> Option<crate::docdiff::DocChange> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let skill_file =
        name.len() > 3 && name.to_ascii_uppercase().starts_with("SKILL.") && name.ends_with(".md");
    if !skill_file {
        return None;
    }
    let before = repo.head.as_ref().and_then(|_| {
        let spec = format!("HEAD:{}{path}", repo.prefix);
        git(root, &["show", &spec])
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    });
    let after = std::fs::read_to_string(root.join(path)).ok();
    crate::docdiff::document_change(before.as_deref(), after.as_deref())
}

/// Reviews the workspace at `root` whose working tree was just built into `work`; HEAD's
/// build goes to `cache` (the studio's `.skillc/review/`).
pub fn review(root: &Path, work: Option<&Path>, cache: &Path) -> Result<Review, StudioError> {
    let Some(repo) = repo(root)? else {
        return Ok(Review {
            not_a_repository: Some(NOT_A_REPOSITORY.to_string()),
            ..Review::default()
        });
    };
    let (mut files, token) = files_and_token(root, &repo)?;
    for f in files.iter_mut().skip(MAX_DIFFS) {
        f.diff.clear();
    }
    std::fs::create_dir_all(cache).map_err(|e| StudioError::new("io", e.to_string()))?;
    let impact = if files.is_empty() {
        Impact::default()
    } else {
        let computed = match (&repo.head, work) {
            (_, None) => Err(
                "the working tree does not build: fix its errors to see what it changes"
                    .to_string(),
            ),
            (None, Some(_)) => Err("there is no commit yet: everything is new".to_string()),
            (Some(_), Some(work)) => build_head(&repo, cache).and_then(|head| impact(&head, work)),
        };
        computed.unwrap_or_else(|problem| Impact {
            problem: Some(problem),
            ..Impact::default()
        })
    };
    Ok(Review {
        not_a_repository: None,
        head: repo.head.as_ref().map(|h| h[..h.len().min(12)].to_string()),
        files,
        impact,
        token,
        blockers: Default::default(),
    })
}

/// Commits exactly the reviewed files with `message`; returns the new commit (short hash).
/// Refused when the files or HEAD changed since the review (`token`), when a file was not
/// part of it, or with an empty message. On any failure nothing is committed and no file or
/// index entry changes.
/// The status of `path` among the changes since the last commit (`added`, `changed`,
/// `removed`), or `None` when it has none.
pub fn status_of(root: &Path, path: &str) -> Result<Option<&'static str>, StudioError> {
    let Some(repo) = repo(root)? else {
        return Err(StudioError::request(NOT_A_REPOSITORY));
    };
    let files = changed_files(root, &repo.prefix)?;
    Ok(files.into_iter().find(|(p, _)| p == path).map(|(_, s)| s))
}

/// Puts a changed or removed file back as the last commit has it.
pub fn restore_from_head(root: &Path, path: &str) -> Result<(), StudioError> {
    let literal = format!(":(literal){path}");
    git(root, &["checkout", "HEAD", "--", &literal]).map_err(git_err("discarding failed"))?;
    Ok(())
}

pub fn publish(
    root: &Path,
    token: &str,
    paths: &[String],
    message: &str,
    cache: &Path,
) -> Result<String, StudioError> {
    let refuse = |m: &str| Err(StudioError::request(m.to_string()));
    if message.trim().is_empty() {
        return refuse("write a message that says what this change does");
    }
    let Some(repo) = repo(root)? else {
        return refuse(NOT_A_REPOSITORY);
    };
    let (files, now) = files_and_token(root, &repo)?;
    if now != token {
        return refuse(
            "the files changed since you reviewed them: look at the review again before publishing",
        );
    }
    if paths.is_empty() {
        return refuse("choose at least one file to publish");
    }
    if let Some(p) = paths.iter().find(|p| !files.iter().any(|f| &f.path == *p)) {
        return refuse(&format!("`{p}` is not one of the reviewed changes"));
    }
    std::fs::create_dir_all(cache).map_err(|e| StudioError::new("io", e.to_string()))?;
    let index = cache.join("publish.index");
    let _ = std::fs::remove_file(&index);
    let env = [("GIT_INDEX_FILE", index.as_path())];
    let step = |args: &[&str]| git_env(root, args, &env).map_err(git_err("publishing failed"));
    match &repo.head {
        Some(head) => step(&["read-tree", head])?,
        None => step(&["read-tree", "--empty"])?,
    };
    let mut add = vec!["add", "-A", "--"];
    let literal: Vec<String> = paths.iter().map(|p| format!(":(literal){p}")).collect();
    add.extend(literal.iter().map(String::as_str));
    step(&add)?;
    let tree = text(step(&["write-tree"])?);
    let mut commit = vec!["commit-tree", tree.as_str(), "-m", message];
    if let Some(head) = &repo.head {
        commit.extend(["-p", head.as_str()]);
    }
    let new = text(step(&commit)?);
    // Moves HEAD's branch only if it is still at the reviewed commit.
    let old = repo.head.clone().unwrap_or_default();
    git(
        root,
        &[
            "update-ref",
            "-m",
            "skill studio: publish",
            "HEAD",
            &new,
            &old,
        ],
    )
    .map_err(git_err("publishing failed"))?;
    let _ = std::fs::remove_file(&index);
    // The real index now agrees with the new commit for the published paths (others keep
    // whatever the user staged).
    let mut reset = vec!["reset", "-q", "--"];
    reset.extend(literal.iter().map(String::as_str));
    let _ = git(root, &reset);
    Ok(new[..new.len().min(12)].to_string())
}

#[cfg(test)]
mod tests {
    use super::added;

    #[test]
    fn a_new_bundle_says_what_is_served_for_the_first_time() {
        let before = [
            ("", "en", "pro"),
            ("a.com", "en", "pro"),
            ("a.com", "fr", "pro"),
            ("b.com", "en", "pro"),
        ];
        let said = |label| added(label, &before);
        assert_eq!(
            said("a.com/de/pro"),
            "now served in de, a language no one was served in before"
        );
        assert_eq!(said("global/de/pro"), said("b.com/de/pro"));
        assert_eq!(said("b.com/fr/pro"), "now served in fr");
        assert_eq!(said("c.com/en/pro"), "a new client");
        assert_eq!(said("a.com/en/fast"), "a new tier, fast");
    }
}
