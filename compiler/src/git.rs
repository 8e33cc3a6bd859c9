//! What a workspace's git history says about its translations, read in one place: the commit
//! that last changed each translation file, and the default SKILL.md as it was then. Three
//! `git` processes for a whole workspace (`rev-parse`, one `log`, one `cat-file --batch`),
//! each bounded in time and output ([`crate::command::run_program`]). No git, no repository,
//! no commit, a shallow clone, or any failure: no history (`None`), never an error.
//!
//! What is read here is plain data; [`crate::check::history`] decides what it means.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// How long one `git` process may run: history is a hint, never worth a stuck check.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The most output read from one `git` process: a log of every commit that changed a
/// translation, or the texts asked for. Past it, no history.
const MAX_OUTPUT: u64 = 256 << 20;

/// The most bytes of translation paths given to `git log` by name.
const MAX_NAMED: usize = 64 << 10;

/// The commit a workspace's repository is at, and where the workspace is in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    /// The commit's full hash.
    pub(crate) commit: String,
    /// The workspace folder's path from the repository's top (`skills/`, or empty).
    prefix: String,
}

/// A workspace's translations as git history tells them, as of one commit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct History {
    /// The commit HEAD was at when they were read.
    pub(crate) head: String,
    /// The (translation, default) file pairs they were read for, workspace-relative.
    pub(crate) wanted: Vec<(String, String)>,
    /// By translation file: the last commit that changed it (a translation never committed
    /// has none).
    pub(crate) files: BTreeMap<String, LastChange>,
}

/// The last commit that changed a translation file, and the texts history holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LastChange {
    /// Its full hash.
    pub(crate) commit: String,
    /// Its committer date, `YYYY-MM-DD`.
    pub(crate) date: String,
    /// The default SKILL.md as it was at that commit (`None`: there was none).
    pub(crate) default_then: Option<Vec<u8>>,
    /// The translation as HEAD holds it: a working copy that differs has changes not
    /// committed yet.
    pub(crate) at_head: Option<Vec<u8>>,
}

/// Runs `git` in `root` with `args` and `input` on stdin. Hooks' variables that point git at
/// another repository (`GIT_DIR` in a pre-commit hook) are left out: the workspace's own
/// repository is the one found from its folder.
fn git(root: &Path, args: &[&str], input: Vec<u8>) -> Option<Vec<u8>> {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(root)
        // A signature shown by `log` would run gpg.
        .args(["--no-pager", "-c", "log.showSignature=false"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    for var in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX"] {
        cmd.env_remove(var);
    }
    crate::command::run_program(cmd, "git", input, TIMEOUT, MAX_OUTPUT).ok()
}

/// The commit the repository holding `root` is at; `None` without git, outside a
/// repository, before its first commit, or in a shallow clone (whose history is cut).
pub(crate) fn head(root: &Path) -> Option<Head> {
    let out = git(
        root,
        &[
            "rev-parse",
            "--is-shallow-repository",
            "--show-prefix",
            "HEAD",
        ],
        Vec::new(),
    )?;
    let out = String::from_utf8(out).ok()?;
    let mut lines = out.lines();
    let (shallow, prefix, commit) = (lines.next()?, lines.next()?, lines.next()?);
    let hex = !commit.is_empty() && commit.bytes().all(|b| b.is_ascii_hexdigit());
    (shallow == "false" && hex).then(|| Head {
        commit: commit.to_string(),
        prefix: prefix.to_string(),
    })
}

/// The history of the `wanted` (translation, default) pairs (workspace-relative paths) as of
/// `head`: one `log` of the commits that changed a translation file, newest first, then one
/// `cat-file --batch` for the default as it was at each translation's last commit and the
/// translation as HEAD holds it. `None` when git fails.
pub(crate) fn history(root: &Path, head: &Head, wanted: &[(String, String)]) -> Option<History> {
    let mut args = vec![
        "--literal-pathspecs",
        "log",
        "-z",
        "--no-renames",
        "--name-only",
        "--format=%x01%H %cs",
        "--",
    ];
    // The files themselves: git then skips the folders that hold none (half the time of a
    // pattern on this project's history). Past a command line's length, every translation.
    let named: usize = wanted.iter().map(|(t, _)| t.len() + 1).sum();
    match named < MAX_NAMED {
        true => args.extend(wanted.iter().map(|(t, _)| t.as_str())),
        false => {
            args = [
                &args[1..],
                &[":(glob)**/SKILL.*.md", ":(glob)**/skill.*.md"],
            ]
            .concat()
        }
    }
    let log = git(root, &args, Vec::new())?;
    let last = last_changes(&log, &head.prefix, wanted);
    // Two objects a translation: the default at its last commit, the translation at HEAD.
    let mut asked = Vec::new();
    for (translation, default) in wanted {
        if let Some((commit, _)) = last.get(translation.as_str()) {
            asked.push(format!("{commit}:{}{default}", head.prefix));
            asked.push(format!("{}:{}{translation}", head.commit, head.prefix));
        }
    }
    let mut texts = match asked.is_empty() {
        true => Vec::new(),
        false => {
            let input = asked.iter().map(|a| format!("{a}\n")).collect::<String>();
            let out = git(root, &["cat-file", "--batch"], input.into_bytes())?;
            batch_objects(&out, asked.len())?
        }
    }
    .into_iter();
    let mut files = BTreeMap::new();
    for (translation, _) in wanted {
        if let Some((commit, date)) = last.get(translation.as_str()) {
            let (default_then, at_head) = (texts.next()?, texts.next()?);
            let change = LastChange {
                commit: commit.to_string(),
                date: date.to_string(),
                default_then,
                at_head,
            };
            files.insert(translation.clone(), change);
        }
    }
    Some(History {
        head: head.commit.clone(),
        wanted: wanted.to_vec(),
        files,
    })
}

/// From `git log -z --name-only --format=%x01%H %cs` (newest first): the first commit and
/// date that name each wanted translation, by its workspace-relative path. Paths that cannot
/// be named in an object name (a newline, a colon first) are left out.
fn last_changes<'l>(
    log: &'l [u8],
    prefix: &str,
    wanted: &[(String, String)],
) -> BTreeMap<&'l str, (&'l str, &'l str)> {
    let named: std::collections::BTreeSet<&str> = wanted.iter().map(|(t, _)| t.as_str()).collect();
    let mut found = BTreeMap::new();
    let mut commit = None;
    for token in log.split(|&b| b == 0) {
        let Ok(token) = std::str::from_utf8(token) else {
            continue;
        };
        let token = token.strip_prefix('\n').unwrap_or(token);
        if let Some(header) = token.strip_prefix('\u{1}') {
            commit = header.split_once(' ');
            continue;
        }
        let (Some(c), Some(rel)) = (commit, token.strip_prefix(prefix)) else {
            continue;
        };
        if named.contains(rel) && !rel.contains('\n') {
            found.entry(rel).or_insert(c);
        }
    }
    found
}

/// The `count` objects of `git cat-file --batch`'s output, in order: each one's bytes, or
/// `None` when it is missing. `None` for the whole when the output is cut or not as expected.
fn batch_objects(out: &[u8], count: usize) -> Option<Vec<Option<Vec<u8>>>> {
    let mut objects = Vec::with_capacity(count);
    let mut rest = out;
    for _ in 0..count {
        let end = rest.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&rest[..end]).ok()?;
        rest = &rest[end + 1..];
        // `<oid> <type> <size>`, or `<name> missing` (or `ambiguous`): nothing follows those.
        let fields: Vec<&str> = header.split(' ').collect();
        let size = match fields.as_slice() {
            [_, "blob", size] => size.parse::<usize>().ok()?,
            [.., "missing" | "ambiguous"] => {
                objects.push(None);
                continue;
            }
            [_, _, size] => {
                // A tree or another kind where a file was asked for: not a text.
                let size = size.parse::<usize>().ok()?;
                rest = rest.get(size + 1..)?;
                objects.push(None);
                continue;
            }
            _ => return None,
        };
        objects.push(Some(rest.get(..size)?.to_vec()));
        rest = rest.get(size + 1..)?;
    }
    Some(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_commit_naming_a_translation_is_its_last_change() {
        let log = b"\x01aaa 2026-11-03\0\nskills/g/SKILL.fr.md\0skills/h/SKILL.de.md\0\
                    \x01bbb 2026-11-01\0\nskills/g/SKILL.fr.md\0other/SKILL.fr.md\0";
        let wanted = [
            ("g/SKILL.fr.md".to_string(), "g/SKILL.md".to_string()),
            ("x/SKILL.fr.md".to_string(), "x/SKILL.md".to_string()),
        ];
        let found = last_changes(log, "skills/", &wanted);
        assert_eq!(found.len(), 1);
        assert_eq!(found["g/SKILL.fr.md"], ("aaa", "2026-11-03"));
    }

    #[test]
    fn batch_output_is_read_by_sizes_and_a_cut_one_is_refused() {
        let out = b"1a blob 3\na\nb\nHEAD:x missing\n2b blob 0\n\n";
        let got = batch_objects(out, 3).unwrap();
        assert_eq!(
            got,
            vec![Some(b"a\nb".to_vec()), None, Some(Vec::new())],
            "a text holding newlines is read by its size"
        );
        assert_eq!(batch_objects(b"1a blob 30\nshort\n", 1), None);
        assert_eq!(batch_objects(b"", 1), None);
    }
}
