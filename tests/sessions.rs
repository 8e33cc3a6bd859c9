//! Sessions: what a session remembers is its own. Two sessions in one process (the studio
//! and a test, or two of the tests on this binary's threads) never take each other's
//! memory, and each gives what it would give alone.

use std::path::Path;

use crate::synth;
use skillc::{build, rebuild, BuildOptions, Session};
use skillc::{CheckOptions, CheckReport, RawFile};

const BILLING: &str = "Answer questions about invoices, refunds and payment methods for the plans.";

/// A skill file with `description` and one trigger example.
fn skill(name: &str, description: &str, example: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\ntrigger_examples:\n  - \"{example}\"\n---\nBody.\n"
    )
}

/// Three skills; `shipping` (the last) reads like `billing` when `billing` is about billing,
/// so that W118 lands on it.
fn files(billing: &str, login: &str) -> Vec<(String, String)> {
    let of = |name: &str, text: String| (format!("public/main/{name}/SKILL.md"), text);
    vec![
        of("billing", skill("billing", billing, "Where is my invoice?")),
        of(
            "login-help",
            skill("login-help", login, "I forgot my password"),
        ),
        of("shipping", skill("shipping", BILLING, "Can I pay by card?")),
    ]
}

fn write_all(root: &Path, files: &[(String, String)]) {
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn raw(files: &[(String, String)]) -> Vec<RawFile> {
    (files.iter())
        .map(|(rel, text)| RawFile::new(rel.clone(), text.clone().into_bytes()))
        .collect()
}

/// The passes over catalogs' warnings of a report: code, file and message.
fn routing(r: &CheckReport) -> Vec<(String, String, String)> {
    (r.diagnostics.iter())
        .filter(|d| d.code == "W118" || d.code == "W119")
        .map(|d| (d.code.to_string(), d.file.clone(), d.message.clone()))
        .collect()
}

/// A draft's check takes the other skills' W118 and W119 from the last full pass: its own
/// session's, not that of a session of another workspace checked in between, which differs
/// from it in just a few skills (with the passes' memory in the process, the draft of the
/// first workspace showed the second's warnings).
#[test]
fn a_draft_check_takes_its_own_sessions_last_pass_not_anothers() {
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let login = "Help visitors who cannot sign in to their account.";
    write_all(one.path(), &files(BILLING, login));
    write_all(two.path(), &files("Plan team offsites and venues.", login));
    let options = CheckOptions::default();
    let (mut first, mut second) = (Session::default(), Session::default());
    let saved = skillc::check_cached(one.path(), &options, &mut first, &[]).unwrap();
    let shipping = "public/main/shipping/SKILL.md";
    assert!(
        routing(&saved)
            .iter()
            .any(|(c, f, _)| c == "W118" && f == shipping),
        "shipping reads like billing: {:?}",
        saved.diagnostics
    );
    let other = skillc::check_cached(two.path(), &options, &mut second, &[]).unwrap();
    assert!(!routing(&other).iter().any(|(_, f, _)| f == shipping));
    // A keystroke in the first workspace's login skill.
    let typed = files(BILLING, "Help visitors who cannot log in to their account.");
    let draft = raw(&typed[1..2]);
    let drafted = skillc::check_cached(one.path(), &options, &mut first, &draft).unwrap();
    let alone = skillc::check_files(&raw(&typed), &options);
    assert_eq!(routing(&drafted), routing(&alone));
}

/// Two workspaces built alternately, each in its own session, with edits between the builds:
/// every artifact is byte for byte the one-shot build of the same files, and every check's
/// diagnostics those of a one-shot check.
#[test]
fn two_sessions_built_alternately_each_write_what_a_clean_build_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let roots = [tmp.path().join("a"), tmp.path().join("b")];
    for (root, seed) in roots.iter().zip([3, 4]) {
        std::fs::create_dir_all(root).unwrap();
        let shape = synth::Shape {
            skills: 8,
            clients: 3,
            overrides: 2,
            locales: 2,
            tiers: 2,
            seed,
        };
        synth::generate(root, shape).unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(60));
    let options = BuildOptions::default();
    let mut sessions = [Session::default(), Session::default()];
    let clean = tmp.path().join("clean.db");
    for round in 0..3 {
        for (k, (root, session)) in roots.iter().zip(sessions.iter_mut()).enumerate() {
            if round > 0 {
                edit_a_description(root, round);
            }
            let out = tmp.path().join(format!("{k}.db"));
            let built = rebuild(root, &out, &options, session).unwrap();
            let alone = build(root, &clean, &options).unwrap();
            assert_eq!(built.diagnostics, alone.diagnostics, "{k} in round {round}");
            let same = std::fs::read(&out).unwrap() == std::fs::read(&clean).unwrap();
            assert!(
                same,
                "workspace {k} in round {round}: not the clean build's artifact"
            );
            let checked = skillc::check_cached(root, &CheckOptions::default(), session, &[]);
            let once = skillc::check(root, &CheckOptions::default()).unwrap();
            assert_eq!(checked.unwrap().diagnostics, once.diagnostics);
        }
    }
}

/// Changes the description of the first global skill found (the passes over catalogs then
/// compute again).
fn edit_a_description(root: &Path, round: usize) {
    let file = walkdir(root)
        .into_iter()
        .find(|p| p.ends_with("SKILL.md") && !p.to_string_lossy().contains("clients"))
        .expect("a global skill");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replacen("description: ", &format!("description: Round {round}, "), 1);
    assert_ne!(edited, text, "{}", file.display());
    std::fs::write(&file, edited).unwrap();
}

/// The files under `root`, sorted.
fn walkdir(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            match e.path().is_dir() {
                true => todo.push(e.path()),
                false => out.push(e.path()),
            }
        }
    }
    out.sort();
    out
}
