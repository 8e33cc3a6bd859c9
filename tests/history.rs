//! W121 from git history (issue 52): a translation without `translated_from` is stale when the
//! default changed after the last commit that changed the translation; real repositories
//! made in temporary folders.

use std::path::Path;
use std::process::{Command, Output};

use skillc::{CheckOptions, Diagnostic};

use crate::common::{arg, said, skillc, write};

const DEFAULT: &str = "---\nname: greet\ndescription: Greets the visitor.\n---\nSay hello.\n";
const EDITED: &str = "---\nname: greet\ndescription: Greets the visitor warmly.\n---\nSay hello.\n";
const FRENCH: &str = "---\ndescription: Salue le visiteur.\n---\nDis bonjour.\n";
const FRENCH_NEW: &str =
    "---\ndescription: Salue chaleureusement le visiteur.\n---\nDis bonjour.\n";

/// Runs git in `dir` with no user or system configuration but a fixed author.
fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(["-c", "user.name=Ada", "-c", "user.email=ada@example.com"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("run git")
}

fn git_ok(dir: &Path, args: &[&str]) {
    let out = git(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", said(&out));
}

/// A workspace in `skills/` of a repository at `repo` (as this project's sample is), its
/// default and French translation committed.
fn committed(repo: &Path) -> std::path::PathBuf {
    let ws = repo.join("skills");
    write(&ws, "workspace.yaml", "locales: [en, fr]\n");
    write(&ws, "greet/SKILL.md", DEFAULT);
    write(&ws, "greet/SKILL.fr.md", FRENCH);
    git_ok(repo, &["init", "-q"]);
    commit(repo, "default and French");
    ws
}

fn commit(repo: &Path, message: &str) {
    git_ok(repo, &["add", "-A"]);
    git_ok(repo, &["commit", "-q", "-m", message]);
}

fn w121(ws: &Path) -> Vec<Diagnostic> {
    let report = skillc::check(ws, &CheckOptions::default()).unwrap();
    (report.diagnostics.into_iter())
        .filter(|d| d.code == "W121")
        .collect()
}

#[test]
fn a_default_changed_after_the_translations_last_commit_is_w121_until_the_translation_follows() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = committed(tmp.path());
    assert!(w121(&ws).is_empty(), "translated from the default as it is");
    write(&ws, "greet/SKILL.md", EDITED);
    commit(tmp.path(), "warmer");
    let found = w121(&ws);
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d.file, "greet/SKILL.fr.md");
    assert!(d.message.contains("git history"), "{}", d.message);
    let first = String::from_utf8(git(tmp.path(), &["rev-list", "--max-parents=0", "HEAD"]).stdout)
        .unwrap();
    assert!(
        d.message.contains(&first[..7]),
        "names the commit: {}",
        d.message
    );
    // The digest to set is the default's own: with it, the digest rule says up to date.
    let help = d.help.clone().unwrap_or_default();
    let digest = help
        .split("translated_from: ")
        .nth(1)
        .unwrap()
        .split('`')
        .next()
        .unwrap();
    write(
        &ws,
        "greet/SKILL.fr.md",
        &format!("---\ntranslated_from: {digest}\n{}", &FRENCH[4..]),
    );
    assert!(w121(&ws).is_empty(), "the digest the help names is today's");
    // A build never reads history: its warnings (which its artifact keeps) do not change.
    write(&ws, "greet/SKILL.fr.md", FRENCH);
    let out = tmp.path().join("out.skillc");
    let built = skillc::build(&ws, &out, &Default::default()).unwrap();
    assert!(
        built.diagnostics.iter().all(|d| d.code != "W121"),
        "{:?}",
        built.diagnostics
    );
    // The translation brought up to date: not committed yet, then committed.
    write(&ws, "greet/SKILL.fr.md", FRENCH_NEW);
    assert!(
        w121(&ws).is_empty(),
        "an edit not committed is made against today's default"
    );
    commit(tmp.path(), "French follows");
    assert!(w121(&ws).is_empty(), "its last commit has today's default");
}

#[test]
fn no_repository_a_translation_never_committed_or_a_shallow_clone_tell_nothing() {
    // No repository: the default edited after the translation was written, nothing known.
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "workspace.yaml", "locales: [en, fr]\n");
    write(plain.path(), "greet/SKILL.md", EDITED);
    write(plain.path(), "greet/SKILL.fr.md", FRENCH);
    assert!(w121(plain.path()).is_empty());
    // A translation added after the default's change, never committed.
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("skills");
    write(&ws, "workspace.yaml", "locales: [en, fr]\n");
    write(&ws, "greet/SKILL.md", DEFAULT);
    git_ok(tmp.path(), &["init", "-q"]);
    commit(tmp.path(), "default");
    write(&ws, "greet/SKILL.md", EDITED);
    commit(tmp.path(), "warmer");
    write(&ws, "greet/SKILL.fr.md", FRENCH);
    assert!(w121(&ws).is_empty(), "never committed");
    // A shallow clone of a history where it is stale: the history is cut, nothing said.
    commit(tmp.path(), "French");
    write(&ws, "greet/SKILL.md", DEFAULT);
    commit(tmp.path(), "colder again");
    assert_eq!(w121(&ws).len(), 1, "stale in the full history");
    let shallow = tempfile::tempdir().unwrap();
    let url = format!("file://{}", tmp.path().display());
    git_ok(shallow.path(), &["clone", "-q", "--depth", "1", &url, "c"]);
    assert!(w121(&shallow.path().join("c/skills")).is_empty());
}

#[test]
fn a_translation_that_says_translated_from_follows_its_digest_not_history() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = committed(tmp.path());
    write(&ws, "greet/SKILL.md", EDITED);
    commit(tmp.path(), "warmer");
    assert_eq!(w121(&ws).len(), 1, "stale by history");
    // The wrong digest: W121 by the digest, not history.
    write(
        &ws,
        "greet/SKILL.fr.md",
        &format!("---\ntranslated_from: 000000000000\n{}", &FRENCH[4..]),
    );
    commit(tmp.path(), "French says its digest");
    let found = w121(&ws);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        !found[0].message.contains("git history"),
        "{}",
        found[0].message
    );
    assert!(found[0]
        .help
        .as_deref()
        .unwrap_or("")
        .contains("000000000000"));
}

#[test]
fn a_commit_that_changes_no_file_still_changes_what_the_kept_check_says() {
    // The default is edited, the translation too (neither committed): no W121. Committing the
    // translation alone records it against the older default: W121, though no file changed.
    let tmp = tempfile::tempdir().unwrap();
    let ws = committed(tmp.path());
    write(&ws, "greet/SKILL.md", EDITED);
    write(&ws, "greet/SKILL.fr.md", FRENCH_NEW);
    let check = || skillc(&["check", arg(&ws)]);
    let before = check();
    assert!(before.status.success(), "{}", said(&before));
    assert!(!said(&before).contains("W121"), "{}", said(&before));
    git_ok(
        tmp.path(),
        &[
            "commit",
            "-q",
            "-m",
            "French alone",
            "--",
            "skills/greet/SKILL.fr.md",
        ],
    );
    let after = check();
    assert!(said(&after).contains("W121"), "{}", said(&after));
}

#[test]
fn an_artifact_built_where_history_says_stale_is_the_one_built_without_history() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = committed(tmp.path());
    write(&ws, "greet/SKILL.md", EDITED);
    commit(tmp.path(), "warmer");
    assert_eq!(w121(&ws).len(), 1, "stale by history");
    let plain = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&ws, plain.path());
    let (a, b) = (tmp.path().join("a.skillc"), plain.path().join("b.skillc"));
    skillc::build(&ws, &a, &Default::default()).unwrap();
    skillc::build(plain.path(), &b, &Default::default()).unwrap();
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
        "history is a check's hint, never an input of the artifact"
    );
}
