//! Checking a whole workspace as the `check` command reports it: what [`crate::check`]
//! finds, every template rendered as a build would render it (which needs the pipeline), and
//! the test cases read; and the check's kept result ([`cache`]).

pub mod cache;

use std::path::Path;

use crate::check::{finish, history, CheckOptions, CheckReport, Recall};
use crate::diagnostic;
use crate::discover::fsio;
use crate::parse::load;
use crate::pipeline::{self, Session};

/// Checks the workspace folder at `root`.
pub fn check(root: &Path, options: &CheckOptions) -> Result<CheckReport, fsio::Error> {
    Ok(checked(
        root,
        load::load_dir(root, None, &[])?,
        options,
        Recall::OneShot,
    ))
}

/// Validates a loaded workspace, renders its templates and reads its test cases, as `check`
/// reports them.
fn checked(
    root: &Path,
    loaded: load::Loaded,
    options: &CheckOptions,
    recall: Recall<'_>,
) -> CheckReport {
    // Translations stale by git history (W121): the check's and the studio's only. A build's
    // warnings go into its artifact, which must not depend on the history it is built in.
    // git reads it beside the checks (a third of a check of the sample, in its history).
    let wanted = history::wanted(&loaded.workspace);
    let texts = wanted.as_ref().map(|_| loaded.texts.clone());
    let (mut report, history) = std::thread::scope(|s| {
        let reading = wanted.map(|w| s.spawn(move || history::facts(root, w, recall)));
        let report = finish(loaded, options, recall);
        (report, reading.and_then(|r| r.join().ok().flatten()))
    });
    if let (Some(history), Some(texts)) = (history, texts) {
        let mut stale = history::stale(&report.workspace, &texts, &history);
        if !stale.is_empty() {
            for d in &mut stale {
                if let Some(text) = texts.get(d.file.as_str()) {
                    d.attach_source(text);
                }
            }
            report.diagnostics.extend(stale);
            diagnostic::sort(&mut report.diagnostics);
        }
    }
    render_templates(&mut report);
    let (_, case_problems) = crate::cases::load(root, &report.workspace);
    if !case_problems.is_empty() {
        report.diagnostics.extend(case_problems);
        diagnostic::sort(&mut report.diagnostics);
    }
    report
}

/// [`check`] within a session, which holds earlier reads, parses and passes, with unsaved
/// `drafts` in place of the files they name (Skill Studio checks as the user types).
pub fn check_cached(
    root: &Path,
    options: &CheckOptions,
    session: &mut Session,
    drafts: &[fsio::RawFile],
) -> Result<CheckReport, fsio::Error> {
    let loaded = load::load_dir(root, Some(&mut session.load), drafts)?;
    let recall = match drafts.is_empty() {
        true => Recall::Session(&session.checks),
        false => Recall::Draft(&session.checks),
    };
    Ok(checked(root, loaded, options, recall))
}

/// A workspace's own templates can fail on its content (a missing field, a filter on the
/// wrong kind of value, an output over the cap): only rendering every fragment finds those, so
/// `check` renders them as a build would, and reports every template error a build would.
fn render_templates(report: &mut CheckReport) {
    if report.workspace.templates.is_empty() || !report.is_ok() {
        return;
    }
    let options = pipeline::BuildOptions::default();
    if let Err(errors) = pipeline::compile(&report.workspace, "", &options) {
        report.diagnostics.extend(errors);
        diagnostic::sort(&mut report.diagnostics);
    }
}

/// Checks a workspace held in memory (tests, the studio's unsaved edits, fuzzing).
/// Templates are rendered as [`check`] renders them.
pub fn check_files(files: &[fsio::RawFile], options: &CheckOptions) -> CheckReport {
    let mut report = finish(
        load::load_files(files, &[], "workspace"),
        options,
        Recall::OneShot,
    );
    render_templates(&mut report);
    report
}

pub use crate::check::routing::ExampleRoute;

/// Where each trigger example of the skill in `file` goes first in its catalog, leave-one-out
/// (as W119 routes them), in the workspace `report` checked in `session`, whose catalogs and
/// routing index it takes: the studio shows it while a description or an example is typed.
/// Empty when no skill of the workspace is in `file`.
pub fn example_routes(report: &CheckReport, file: &str, session: &Session) -> Vec<ExampleRoute> {
    let ws = &report.workspace;
    match ws.skills.iter().position(|s| s.file == file) {
        Some(i) => crate::check::routing::example_routes(ws, i, &session.checks),
        None => Vec::new(),
    }
}

/// What running a workspace's own test cases (`skillc test`) or its routing evaluation
/// (`skillc eval`) against a fresh build gave.
#[derive(Debug)]
pub enum CaseRun<T = Vec<crate::cases::Outcome>> {
    /// It ran against a fresh build: the cases' outcomes in file order, or the evaluation.
    Ran(T),
    /// The workspace or its cases have errors: nothing ran.
    CheckFailed(Vec<crate::Diagnostic>),
    /// The build failed (a template, say): nothing ran.
    BuildFailed(Vec<crate::Diagnostic>),
}

/// Checks the workspace at `root`, builds it into a temporary artifact and runs its cases
/// against it. `Err`: the environment failed (an unreadable workspace, no temporary folder).
pub fn run_cases(root: &Path) -> Result<CaseRun, String> {
    with_fresh_build(root, None, |a, cases| {
        Ok(cases.iter().map(|c| crate::cases::run(a, c)).collect())
    })
}

/// Checks the workspace at `root`, builds it into a temporary artifact (removed after, with
/// `embedder` for its vectors, if it declares an embedding model) and hands it and the
/// workspace's cases to `then`.
pub fn with_fresh_build<T>(
    root: &Path,
    embedder: Option<&str>,
    then: impl FnOnce(&skillc_runtime::Artifact, &[crate::cases::Case]) -> Result<T, String>,
) -> Result<CaseRun<T>, String> {
    let mut session = Session::default();
    // Only the errors stop a run: the warnings are `check`'s to show.
    let check = CheckOptions {
        only_errors: true,
        ..CheckOptions::default()
    };
    let report = check_cached(root, &check, &mut session, &[]).map_err(|e| e.to_string())?;
    if !report.is_ok() {
        let errors = report
            .diagnostics
            .into_iter()
            .filter(|d| d.severity == crate::Severity::Error)
            .collect();
        return Ok(CaseRun::CheckFailed(errors));
    }
    let (cases, _) = crate::cases::load(root, &report.workspace);
    let dir = std::env::temp_dir().join(format!("skillc-test-{}", std::process::id()));
    let artifact = dir.join("test.db");
    let run = || -> Result<CaseRun<T>, String> {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let options = pipeline::BuildOptions {
            embedder,
            check,
            ..Default::default()
        };
        let built = pipeline::build_after_check(root, &artifact, &options, &mut session)
            .map_err(|e| e.to_string())?;
        if built.stats.is_none() {
            return Ok(CaseRun::BuildFailed(built.diagnostics));
        }
        let a = skillc_runtime::Artifact::open(&artifact).map_err(|e| e.to_string())?;
        then(&a, &cases).map(CaseRun::Ran)
    };
    let result = run();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes;

    fn skill(desc: &str) -> String {
        format!("---\nname: greet\ndescription: {desc}\n---\nSay hello.\n")
    }

    /// A workspace of one skill, `public/greet`, described as greeting the visitor.
    fn one_skill() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("public/greet/SKILL.md");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, skill("Greets the visitor.")).unwrap();
        dir
    }

    #[test]
    fn a_draft_is_checked_in_place_and_never_taken_for_the_disk() {
        let dir = one_skill();
        // Stamps within the clock tick of a read are not trusted: let the file settle so the
        // cache does reuse what it read.
        std::thread::sleep(std::time::Duration::from_millis(120));
        let mut cache = Session::default();
        let options = CheckOptions::default();
        let description = |r: &CheckReport| r.workspace.skills[0].frontmatter.description.clone();
        let disk = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(description(&disk).as_deref(), Some("Greets the visitor."));
        let draft = fsio::RawFile::new("public/greet/SKILL.md", skill("A draft.").into_bytes());
        let drafted = check_cached(dir.path(), &options, &mut cache, &[draft]).unwrap();
        assert_eq!(description(&drafted).as_deref(), Some("A draft."));
        let again = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(description(&again).as_deref(), Some("Greets the visitor."));
    }

    #[test]
    fn a_client_file_is_parsed_again_when_it_changes_and_a_draft_of_it_is_not_kept() {
        let dir = one_skill();
        let yaml = dir.path().join("clients/acme.example/client.yaml");
        std::fs::create_dir_all(yaml.parent().unwrap()).unwrap();
        let client = |locale: &str| format!("# Acme.\nlocales: [{locale}]\n");
        std::fs::write(&yaml, client("en")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(120));
        let mut cache = Session::default();
        let options = CheckOptions::default();
        let locales = |r: &CheckReport| r.workspace.clients["acme.example"].locales.clone();
        let en = Some(vec!["en".to_string()]);
        let disk = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(locales(&disk), en);
        // Parsed from the session's cache: the same.
        let again = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(
            (locales(&again), &again.diagnostics),
            (en.clone(), &disk.diagnostics)
        );
        let rel = "clients/acme.example/client.yaml";
        let draft = fsio::RawFile::new(rel, client("fr").into_bytes());
        let drafted = check_cached(dir.path(), &options, &mut cache, &[draft]).unwrap();
        assert_eq!(locales(&drafted), Some(vec!["fr".to_string()]));
        let after = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(locales(&after), en, "the draft was taken for the disk");
        std::fs::write(&yaml, client("de")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(120));
        let changed = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(locales(&changed), Some(vec!["de".to_string()]));
    }

    #[test]
    fn a_load_told_nothing_changed_skips_the_walk_once() {
        let dir = one_skill();
        let file = dir.path().join("public/greet/SKILL.md");
        let mut cache = Session::default();
        let options = CheckOptions::default();
        let description = |r: &CheckReport| r.workspace.skills[0].frontmatter.description.clone();
        // Nothing loaded yet: the promise is ignored and the folder is walked.
        cache.assume_unchanged();
        let first = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(description(&first).as_deref(), Some("Greets the visitor."));
        std::fs::write(&file, skill("Changed on disk.")).unwrap();
        // Told nothing changed, the load takes the last one's files (the walk is skipped) and
        // still applies drafts.
        cache.assume_unchanged();
        let trusted = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(
            description(&trusted).as_deref(),
            Some("Greets the visitor.")
        );
        cache.assume_unchanged();
        let draft = fsio::RawFile::new("public/greet/SKILL.md", skill("A draft.").into_bytes());
        let drafted = check_cached(dir.path(), &options, &mut cache, &[draft]).unwrap();
        assert_eq!(description(&drafted).as_deref(), Some("A draft."));
        // The promise holds for one load only: the next one walks and sees the change.
        let walked = check_cached(dir.path(), &options, &mut cache, &[]).unwrap();
        assert_eq!(description(&walked).as_deref(), Some("Changed on disk."));
    }

    /// Two skills, `a` and `b`, each with its description.
    fn two_skills(root: &Path, a: &str, b: &str) {
        for (name, desc) in [("a", a), ("b", b)] {
            let file = root.join(format!("public/{name}/SKILL.md"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let text = format!("---\nname: {name}\ndescription: {desc}\n---\nBody.\n");
            std::fs::write(&file, text).unwrap();
        }
    }

    /// A check of `root` through `cache`, without drafts.
    fn check_again(root: &Path, cache: &mut Session) -> CheckReport {
        check_cached(root, &CheckOptions::default(), cache, &[]).unwrap()
    }

    fn descriptions(r: &CheckReport) -> Vec<String> {
        let ws = &r.workspace;
        let description =
            |s: &std::sync::Arc<crate::model::Skill>| s.frontmatter.description.clone();
        ws.skills.iter().filter_map(description).collect()
    }

    #[test]
    fn a_load_told_which_files_changed_reads_only_those() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        two_skills(root, "First a.", "First b.");
        let mut cache = Session::default();
        check_again(root, &mut cache);
        two_skills(root, "Second a.", "Second b.");
        // Told only `a` changed, the load reads `a` again and takes `b` as it was: the walk
        // that would have seen `b` change was skipped.
        cache.assume_changed_only(["public/a/SKILL.md".to_string()]);
        let told = check_again(root, &mut cache);
        assert_eq!(descriptions(&told), ["Second a.", "First b."]);
        // A path the last load did not read (a new file) cannot be read alone: the folder is
        // walked, and every change is seen.
        std::fs::write(root.join("public/b/notes.md"), "Notes.").unwrap();
        cache.assume_changed_only(["public/b/notes.md".to_string()]);
        let walked = check_again(root, &mut cache);
        assert_eq!(descriptions(&walked), ["Second a.", "Second b."]);
        // A file that came and went between two loads changes nothing, and walks for nothing
        // (`b`, changed without a word, stays as the last load read it).
        two_skills(root, "Second a.", "Third b.");
        cache.assume_changed_only(["public/a/4913".to_string()]);
        let again = check_again(root, &mut cache);
        assert_eq!(descriptions(&again), ["Second a.", "Second b."]);
        // A file read last time and gone now is walked for.
        std::fs::remove_dir_all(root.join("public/b")).unwrap();
        cache.assume_changed_only(["public/b/SKILL.md".to_string()]);
        let removed = check_again(root, &mut cache);
        assert_eq!(descriptions(&removed), ["Second a."]);
    }

    #[cfg(unix)]
    #[test]
    fn a_load_through_symbolic_links_walks_whatever_it_is_told() {
        let dir = tempfile::tempdir().unwrap();
        two_skills(dir.path(), "First a.", "First b.");
        // `c` is `a` under another name: a change to `a` changes `c` without an event for it.
        std::fs::create_dir_all(dir.path().join("public/c")).unwrap();
        std::os::unix::fs::symlink(
            dir.path().join("public/a/SKILL.md"),
            dir.path().join("public/c/SKILL.md"),
        )
        .unwrap();
        let mut cache = Session::default();
        check_again(dir.path(), &mut cache);
        two_skills(dir.path(), "Second a.", "First b.");
        cache.assume_changed_only(["public/a/SKILL.md".to_string()]);
        let report = check_again(dir.path(), &mut cache);
        let c = report
            .workspace
            .skills
            .iter()
            .find(|s| s.file == "public/c/SKILL.md");
        let c = c.expect("the linked skill is loaded");
        assert_eq!(c.frontmatter.description.as_deref(), Some("Second a."));
    }

    #[test]
    fn a_session_check_follows_edits_to_what_the_cross_file_checks_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        two_skills(root, "First a.", "First b.");
        let mut cache = Session::default();
        // The messages of one code.
        let with_code = |r: &CheckReport, code: &str| -> Vec<String> {
            let of_code = r.diagnostics.iter().filter(|d| d.code == code);
            of_code.map(|d| d.message.clone()).collect()
        };
        let unknown = |r: &CheckReport| with_code(r, codes::UNKNOWN_SKILL);
        let file = root.join("public/a/SKILL.md");
        let with =
            |fm: &str, body: &str| format!("---\nname: a\ndescription: A.\n{fm}---\n{body}\n");
        assert!(unknown(&check_again(root, &mut cache)).is_empty());
        // A reference to nothing, then a body edit (the cross-file checks read no body), then
        // the reference fixed: each check reports what the files say at that point.
        std::fs::write(&file, with("dependencies: [nobody]\n", "Body.")).unwrap();
        let broken = vec!["unknown skill `nobody` in `dependencies`".to_string()];
        assert_eq!(unknown(&check_again(root, &mut cache)), broken);
        std::fs::write(&file, with("dependencies: [nobody]\n", "Another body.")).unwrap();
        assert_eq!(unknown(&check_again(root, &mut cache)), broken);
        std::fs::write(&file, with("dependencies: [b]\n", "Another body.")).unwrap();
        assert!(unknown(&check_again(root, &mut cache)).is_empty());
        // A client toggle for a skill that does not exist, read from the client's file.
        let yaml = root.join("clients/acme.example/client.yaml");
        std::fs::create_dir_all(yaml.parent().unwrap()).unwrap();
        std::fs::write(&yaml, "toggles:\n  b: false\n").unwrap();
        let toggles = |r: &CheckReport| with_code(r, codes::UNKNOWN_TOGGLE).len();
        assert_eq!(toggles(&check_again(root, &mut cache)), 0);
        std::fs::write(&yaml, "toggles:\n  nobody: false\n").unwrap();
        assert_eq!(toggles(&check_again(root, &mut cache)), 1);
    }
    /// `eval` and `test` stop only on errors: their check and the build of their artifact
    /// leave out the passes that can only warn (W118, W119) and keep every error.
    #[test]
    fn a_run_that_reads_only_errors_skips_the_warnings_of_whole_catalogs() {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/overlap/workspace");
        let codes = |options: &CheckOptions, root: &Path| -> Vec<&'static str> {
            let report = crate::check(root, options).unwrap();
            report.diagnostics.iter().map(|d| d.code).collect()
        };
        let all = codes(&CheckOptions::default(), &fixture);
        let errors_only = CheckOptions {
            only_errors: true,
            ..CheckOptions::default()
        };
        let fewer = codes(&errors_only, &fixture);
        for code in ["W118", "W119", "E012"] {
            assert!(all.contains(&code), "{code} {all:?}");
        }
        let kept: Vec<_> = (all.iter().copied())
            .filter(|c| !["W118", "W119"].contains(c))
            .collect();
        assert_eq!(fewer, kept);
        // Two skills alike, without an error: the workspace builds, and the run's artifact
        // holds no W118 where a build's would.
        let dir = tempfile::tempdir().unwrap();
        for name in ["refunds", "refund-desk"] {
            let file = dir.path().join(format!("public/{name}/SKILL.md"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let text = format!(
                "---\nname: {name}\ndescription: Refund an order and explain the refund policy.\n\
                 trigger_examples: [refund my order, what is your refund policy]\n---\nRefund it.\n"
            );
            std::fs::write(&file, text).unwrap();
        }
        assert!(codes(&CheckOptions::default(), dir.path()).contains(&"W118"));
        let stored = with_fresh_build(dir.path(), None, |a, _| {
            let all = a.diagnostics(None).map_err(|e| e.to_string())?;
            Ok(all.into_iter().map(|d| d.code).collect::<Vec<_>>())
        });
        match stored.unwrap() {
            CaseRun::Ran(codes) => assert!(
                !codes.iter().any(|c| c == "W118" || c == "W119"),
                "{codes:?}"
            ),
            _ => panic!("the workspace builds"),
        }
    }
}
