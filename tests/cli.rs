//! The `skillc` command line as a user and CI run it: exit codes and output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;

fn skillc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(args)
        .output()
        .expect("skillc runs")
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn check_of_the_sample_workspace_exits_0() {
    let out = skillc(&["check", &repo("skills")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains(": 0 errors,"));
}

#[test]
fn strict_check_of_the_sample_reports_underscore_names_as_errors_and_exits_1() {
    let out = skillc(&["check", "--strict-spec", &repo("skills")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("error[P201]: skill name `demo_offer` is not portable"));
    assert!(text.contains("public/response_ending/demo_offer/SKILL.md:2:7"));
}

#[test]
fn check_with_errors_exits_1_and_prints_rustc_style_snippets() {
    let out = skillc(&["check", &repo("tests/fixtures/unknown-reference/workspace")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("error[E012]: unknown skill `summarise` in `dependencies`"),
        "{text}"
    );
    assert!(text.contains("review/SKILL.md:4:16"));
    assert!(text.contains("4 | dependencies: [summarise]"));
    assert!(text.contains("  |                ^^^^^^^^^"));
    assert!(text.contains("= help: did you mean `summarize`?"));
}

#[test]
fn warnings_alone_exit_0() {
    let out = skillc(&["check", &repo("tests/fixtures/cycles/workspace")]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn json_output_has_the_documented_shape() {
    let out = skillc(&[
        "check",
        "--format",
        "json",
        &repo("tests/fixtures/many-problems/workspace"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["errors"], 4);
    assert_eq!(v["warnings"], 1);
    let first = &v["diagnostics"][0];
    let mut keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        ["code", "column", "file", "line", "message", "severity"]
    );
    assert_eq!(first["file"], "a/SKILL.md");
    assert_eq!(first["severity"], "error");
}

#[test]
fn a_missing_workspace_is_an_io_error_exit_2() {
    let out = skillc(&["check", "/definitely/not/here"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/definitely/not/here"));
}

#[test]
fn bad_usage_exits_2() {
    assert_eq!(
        skillc(&["check", "--format", "yaml"]).status.code(),
        Some(2)
    );
    assert_eq!(skillc(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn workspace_defaults_to_the_current_folder() {
    let out = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .arg("check")
        .current_dir(PathBuf::from(repo("tests/fixtures/bom/workspace")))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("warning[W101]"));
}

/// A copy of the sample in a temporary folder.
fn sample_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(Path::new(&repo("skills")), &dir.path().join("skills"));
    dir
}

/// Runs skillc and requires exit 0.
fn skillc_ok(args: &[&str]) {
    let out = skillc(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
}

/// The (old, new) lines that differ, when the line count is unchanged.
fn changed_lines<'t>(before: &'t str, after: &'t str) -> Vec<(&'t str, &'t str)> {
    assert_eq!(before.lines().count(), after.lines().count());
    before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .collect()
}

#[test]
fn set_changes_one_field_keeps_every_comment_and_refuses_errors() {
    let dir = sample_copy();
    let file = dir
        .path()
        .join("skills/public/response_ending/demo_offer/SKILL.md");
    let f = file.to_str().unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    assert!(
        before.contains('#'),
        "the sample's skill has comments to keep"
    );
    skillc_ok(&["set", f, "priority", "2"]);
    let after = std::fs::read_to_string(&file).unwrap();
    let changed = changed_lines(&before, &after);
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.starts_with("priority: 2"), "{changed:?}");
    // An edit that would add an error writes nothing and exits 1.
    let out = skillc(&["set", f, "dependencies", "[no_such_skill]"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown skill `no_such_skill`"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    // The sample has a workspace.yaml: a value the compiler would not read (another tool's
    // shape) is refused, not written and then ignored.
    let out = skillc(&["set", f, "priority", "high"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`priority` must be a whole number"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    // Unset, a value that is not YAML, a missing file.
    assert_eq!(
        skillc(&["set", f, "--unset", "priority"]).status.code(),
        Some(0)
    );
    assert!(!std::fs::read_to_string(&file)
        .unwrap()
        .contains("priority:"));
    assert_eq!(
        skillc(&["set", f, "priority", "[unclosed"]).status.code(),
        Some(1)
    );
    assert_eq!(
        skillc(&["set", "/nonexistent/SKILL.md", "priority", "2"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn toggle_edits_one_line_of_client_yaml_and_refuses_unknown_names() {
    let dir = sample_copy();
    let ws = dir.path().join("skills");
    let w = ws.to_str().unwrap();
    let file = ws.join("clients/example.com/client.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    skillc_ok(&["toggle", w, "--client", "example.com", "demo_offer", "on"]);
    let after = std::fs::read_to_string(&file).unwrap();
    let changed = changed_lines(&before, &after);
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.contains("demo_offer: true"), "{changed:?}");
    for (args, code) in [
        (
            vec!["toggle", w, "--client", "example.com", "demo_ofer", "off"],
            1,
        ),
        (
            vec![
                "toggle",
                w,
                "--client",
                "nobody.example",
                "demo_offer",
                "off",
            ],
            1,
        ),
        (
            vec![
                "toggle",
                w,
                "--client",
                "example.com",
                "demo_offer",
                "maybe",
            ],
            2,
        ),
    ] {
        assert_eq!(skillc(&args).status.code(), Some(code), "{args:?}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    let out = skillc(&[
        "toggle",
        w,
        "--client",
        "example.com",
        "demo_offer",
        "default",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!std::fs::read_to_string(&file)
        .unwrap()
        .contains("demo_offer"));
}

/// `--client` repeated turns a skill off for a chosen set of clients in one edit, the studio's
/// bulk toggle: each client's file changes on one line, and an unknown client among them
/// leaves every file as it was.
#[test]
fn toggle_for_a_chosen_set_of_clients_writes_every_file_or_none() {
    let dir = sample_copy();
    let ws = dir.path().join("skills");
    let w = ws.to_str().unwrap();
    let chosen = ["hyperline.co", "northwind.io"];
    let files: Vec<_> = (chosen.iter())
        .map(|c| ws.join("clients").join(c).join("client.yaml"))
        .collect();
    let before: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect();
    let refused = skillc(&[
        "toggle",
        w,
        "--client",
        chosen[0],
        "--client",
        "nobody.example",
        "--client",
        chosen[1],
        "demo_offer",
        "off",
    ]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    for (f, b) in files.iter().zip(&before) {
        assert_eq!(&std::fs::read_to_string(f).unwrap_or_default(), b);
    }
    let out = skillc(&[
        "toggle",
        w,
        "--client",
        chosen[0],
        "--client",
        chosen[1],
        "demo_offer",
        "off",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    for (f, b) in files.iter().zip(&before) {
        // Every line kept; the toggle (and its `toggles:` key, where there was none) added.
        let after = std::fs::read_to_string(f).unwrap();
        let added: Vec<&str> = after
            .lines()
            .filter(|l| !b.lines().any(|k| k == *l))
            .collect();
        assert!(b.lines().all(|l| after.lines().any(|k| k == l)), "{after}");
        assert!(
            added.iter().any(|l| l.trim() == "demo_offer: false"),
            "{added:?}"
        );
        assert!(added.len() <= 2, "{added:?}");
        assert!(said.contains(&f.display().to_string()), "{said}");
    }
    let again = skillc(&[
        "toggle",
        w,
        "--client",
        chosen[0],
        "--client",
        chosen[1],
        "demo_offer",
        "off",
    ]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to change"));
}

#[test]
fn explain_says_which_variant_toggle_locale_tier_and_consumer_decide_a_skill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("out.db");
    let db = db.to_str().unwrap();
    skillc_ok(&["build", &repo("skills"), "-o", db]);
    let explain = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["explain", db];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--format", "json"]);
        let out = skillc(&all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Seed 000's competitors matrix: Tier 3 gets the battlecard variant, for the flag's reason.
    let e = explain(&["competitors", "--client", "hyperline.co"]);
    assert_eq!(e["variant"], "competitors_battlecard");
    assert_eq!(
        e["resolved_file"],
        "public/response_handling/competitors-battlecard/SKILL.md"
    );
    let why = e["why"].to_string();
    assert!(
        why.contains("flag competitors.battlecard_mode = true"),
        "{why}"
    );
    assert_eq!(e["enabled_by"], "default");
    assert_eq!(e["in_catalog"], true);
    // A client's toggle turns on what `default_enabled: false` leaves out elsewhere.
    let on = explain(&["content_gating", "--client", "example.com"]);
    assert_eq!(
        (&on["enabled"], &on["enabled_by"]),
        (&true.into(), &"toggle".into())
    );
    let global = explain(&["content_gating"]);
    assert_eq!(global["enabled"], false);
    assert_eq!(global["enabled_by"], "default_enabled");
    assert_eq!(global["resolved_file"], serde_json::Value::Null);
    let off = explain(&["demo_offer", "--client", "example.com"]);
    assert_eq!(
        (&off["enabled"], &off["enabled_by"]),
        (&false.into(), &"toggle".into())
    );
    assert!(off["why"][0].as_str().unwrap().contains("toggled off"));
    let by_default = explain(&["demo_offer"]);
    assert_eq!(by_default["enabled_by"], "default_enabled");
    // Locale and tier: the localized file, the compact body; a consumer's filter hides it.
    assert_eq!(explain(&["pricing", "--locale", "fr"])["locale_used"], "fr");
    assert_eq!(
        explain(&["pricing", "--locale", "en-gb"])["locale_used"],
        "en"
    );
    let pdf = explain(&[
        "pdf-press",
        "--tier",
        "fast",
        "--consumer",
        "answer.generator.strong",
    ]);
    assert_eq!(pdf["tier"], "fast");
    assert!(pdf["why"].to_string().contains("compact.md"));
    assert_eq!(pdf["in_catalog"], false);
    assert_eq!(pdf["hidden_by"], "answer.generator.strong");
    assert_eq!(
        pdf["imports"],
        serde_json::json!(["internal.link-evidence", "internal.sources-section"])
    );
    // A client's own skill says so; run-time conditions come in words.
    let own = explain(&["pricing", "--client", "ibanfirst.com", "--locale", "en-gb"]);
    assert!(own["why"][0]
        .as_str()
        .unwrap()
        .contains("client ibanfirst.com's own skill"));
    assert!(own["conditions"][0]
        .as_str()
        .unwrap()
        .starts_with("the page URL starts with none of /en-gb"));
    // The text form prints the same sentences; an unknown name is a request error.
    let text = skillc(&["explain", db, "competitors", "--client", "hyperline.co"]);
    assert!(stdout(&text).contains("The variant `competitors_battlecard`"));
    let unknown = skillc(&["explain", db, "no-such-skill"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no skill `no-such-skill`"));
}

#[test]
fn check_and_build_speak_github_annotations_and_sarif() {
    let dir = sample_copy();
    let ws = dir.path().join("skills");
    common::write(
        &ws,
        "public/broken/SKILL.md",
        "---\nname: broken\ndescription: ''\n---\nBody, 100% sure\n",
    );
    let ws_arg = ws.to_str().unwrap();
    // GitHub: one workflow command per diagnostic, at the file as the job sees it.
    let out = skillc(&["check", ws_arg, "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let error = format!(
        "::error file={}/public/broken/SKILL.md,line=3,col=1,title=skillc E011::`description` is empty",
        ws_arg.replace(':', "%3A").replace(',', "%2C")
    );
    assert!(text.lines().any(|l| l == error), "{text}");
    assert!(text
        .lines()
        .all(|l| l.starts_with("::error ") || l.starts_with("::warning ")));
    assert!(
        text.contains("::warning "),
        "the sample's portability warnings are annotations too"
    );
    // SARIF 2.1.0: one result per diagnostic, errors as errors.
    let out = skillc(&["check", ws_arg, "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let json = skillc(&["check", ws_arg, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(results.len(), json["diagnostics"].as_array().unwrap().len());
    let e011 = results.iter().find(|r| r["ruleId"] == "E011").unwrap();
    assert_eq!(e011["level"], "error");
    let place = &e011["locations"][0]["physicalLocation"];
    assert!(place["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .ends_with("/public/broken/SKILL.md"));
    assert_eq!(place["region"]["startLine"], 3);
    // build: the same annotations on stdout, nothing written; a clean build's summary aside.
    let db = dir.path().join("out.db");
    let out = skillc(&[
        "build",
        ws_arg,
        "-o",
        db.to_str().unwrap(),
        "--format",
        "github",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).lines().any(|l| l == error));
    assert!(!db.exists());
    std::fs::remove_dir_all(ws.join("public/broken")).unwrap();
    let out = skillc(&[
        "build",
        ws_arg,
        "-o",
        db.to_str().unwrap(),
        "--format",
        "sarif",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["level"] == "warning"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("built "));
}

#[test]
fn a_release_label_is_stored_and_reported_and_git_names_the_commit() {
    let dir = sample_copy();
    let ws = dir.path().join("skills");
    let ws_arg = ws.to_str().unwrap();
    let db = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let release = |artifact: &str| -> serde_json::Value {
        let out = skillc(&["catalog", artifact, "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["release"].clone()
    };
    // No label by default: the artifact does not depend on where it was built.
    skillc_ok(&["build", ws_arg, "-o", &db("plain.db")]);
    assert_eq!(release(&db("plain.db")), serde_json::Value::Null);
    // A label is input: the same files and label give the same bytes.
    skillc_ok(&[
        "build",
        ws_arg,
        "-o",
        &db("a.db"),
        "--release-label",
        "v1.2",
    ]);
    skillc_ok(&[
        "build",
        ws_arg,
        "-o",
        &db("b.db"),
        "--release-label",
        "v1.2",
    ]);
    assert_eq!(release(&db("a.db")), "v1.2");
    assert_eq!(
        std::fs::read(db("a.db")).unwrap(),
        std::fs::read(db("b.db")).unwrap()
    );
    let rt = skillc_runtime::Artifact::open(db("a.db")).unwrap();
    assert_eq!(rt.release(), Some("v1.2"));
    // `git`: not a repository yet is an error that says so.
    let out = skillc(&["build", ws_arg, "-o", &db("g.db"), "--release-label", "git"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not in a git repository"));
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=ci",
                "-c",
                "user.email=ci@example.com",
                "-C",
                ws_arg,
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "skills"]);
    let head = git(&["rev-parse", "--short", "HEAD"]);
    skillc_ok(&["build", ws_arg, "-o", &db("g.db"), "--release-label", "git"]);
    assert_eq!(release(&db("g.db")), serde_json::Value::from(head.clone()));
    std::fs::write(ws.join("public/assistant/greeting/notes.md"), "new").unwrap();
    skillc_ok(&["build", ws_arg, "-o", &db("d.db"), "--release-label", "git"]);
    assert_eq!(
        release(&db("d.db")),
        serde_json::Value::from(format!("{head}-dirty"))
    );
    // A change to a tracked file alone is dirty too (git is asked about those first).
    std::fs::remove_file(ws.join("public/assistant/greeting/notes.md")).unwrap();
    skillc_ok(&["build", ws_arg, "-o", &db("c.db"), "--release-label", "git"]);
    assert_eq!(release(&db("c.db")), serde_json::Value::from(head.clone()));
    let config = ws.join("workspace.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\n# edited\n")).unwrap();
    skillc_ok(&["build", ws_arg, "-o", &db("e.db"), "--release-label", "git"]);
    assert_eq!(
        release(&db("e.db")),
        serde_json::Value::from(format!("{head}-dirty"))
    );
}

#[test]
fn version_names_the_source_commit() {
    let out = skillc(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let commit = text
        .trim()
        .strip_prefix(&format!("skillc {} (commit ", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("unexpected version line: {text}"));
    // Built from this checkout: the commit it is at (a tarball build says `unknown`).
    let head = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short=12",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(head) if std::env::var_os("SKILLC_COMMIT").is_none() => assert_eq!(commit, head),
        _ => assert!(!commit.is_empty()),
    }
}

#[test]
fn test_runs_the_workspace_cases_and_names_each_failure() {
    // The sample's own cases pin seed 000's behaviour.
    let out = skillc(&["test", &repo("skills")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("13 cases: 13 passed, 0 failed"),
        "{}",
        stdout(&out)
    );
    // A wrong expectation fails, naming the case, what was expected and what was seen.
    let dir = sample_copy();
    let ws = dir.path().join("skills");
    common::write(
        &ws,
        "tests/wrong.yaml",
        "- name: the UK page wrongly expects the default pricing\n  request:\n    client: ibanfirst.com\n    locale: en-gb\n    context: {page_url: /en-gb/pricing}\n    select: [pricing]\n  expect:\n    prompt_includes: [pricing]\n    max_tokens: 5\n",
    );
    let ws_arg = ws.to_str().unwrap();
    let out = skillc(&["test", ws_arg]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("FAIL tests/wrong.yaml:1: the UK page wrongly expects the default pricing"),
        "{text}"
    );
    assert!(
        text.contains("expected `pricing` in the prompt; it has"),
        "{text}"
    );
    assert!(
        text.contains("expected the prompt within 5 tokens; it has"),
        "{text}"
    );
    assert!(text.contains("14 cases: 13 passed, 1 failed"), "{text}");
    // JSON and JUnit carry the same verdicts.
    let json: serde_json::Value =
        serde_json::from_slice(&skillc(&["test", ws_arg, "--format", "json"]).stdout).unwrap();
    assert_eq!(
        (json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(13), Some(1))
    );
    let failed = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["passed"] == false)
        .unwrap();
    assert_eq!(failed["file"], "tests/wrong.yaml");
    assert_eq!(failed["failures"].as_array().unwrap().len(), 2);
    let junit = stdout(&skillc(&["test", ws_arg, "--format", "junit"]));
    assert!(
        junit.contains("<testsuite name=\"skillc\" tests=\"14\" failures=\"1\">"),
        "{junit}"
    );
    assert_eq!(junit.matches("<failure ").count(), 1);
    // A case naming what does not exist is an error at its place, and nothing runs.
    common::write(
        &ws,
        "tests/wrong.yaml",
        "- name: a typo\n  request: {client: ibanfirst.co}\n",
    );
    let out = skillc(&["test", ws_arg]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("E027") && err.contains("tests/wrong.yaml:2:21"),
        "{err}"
    );
    assert!(err.contains("did you mean `ibanfirst.com`?"), "{err}");
    assert!(stdout(&out).is_empty());
    // `check` reports it too: case files are workspace files.
    let out = skillc(&["check", ws_arg]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("unknown client `ibanfirst.co`"));
    // A history message without its time before the message is an error at its place.
    common::write(
        &ws,
        "tests/wrong.yaml",
        "- name: no time\n  request:\n    message: and for pro\n    history: [{text: the price?}]\n",
    );
    let out = skillc(&["test", ws_arg]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tests/wrong.yaml:4:15") && err.contains("needs its `text` and `ago`"),
        "{err}"
    );
    // A routing case that does not hold says where the message went instead.
    common::write(
        &ws,
        "tests/wrong.yaml",
        "- name: a login problem wrongly expected at pricing\n  request: {client: hyperline.co, message: \"I can't log in to my account\"}\n  expect: {routes_to: [pricing], routes_not_to: [support]}\n- name: nothing expected, something reached\n  request: {message: How much does it cost?}\n  expect: {routes_to: []}\n- name: reached, but not first\n  request: {message: pricing or competitors, client: northwind.io}\n  expect: {routes_to: [pricing, competitors], within: 1}\n",
    );
    let text = stdout(&skillc(&["test", ws_arg]));
    assert!(
        text.contains("expected the message to reach `pricing`; it reaches support ("),
        "{text}"
    );
    assert!(
        text.contains("expected the message not to reach `support`; it reaches support ("),
        "{text}"
    );
    assert!(
        text.contains("expected the message to reach no skill; it reaches pricing ("),
        "{text}"
    );
    assert!(text.contains("within the first 1; it comes 2:"), "{text}");
    assert!(text.contains("16 cases: 13 passed, 3 failed"), "{text}");
}

#[test]
fn the_ci_page_shows_the_recipe_that_ci_runs() {
    let page = std::fs::read_to_string(repo("docs/ci.md")).unwrap();
    let script = std::fs::read_to_string(repo("docs/ci-recipe.sh")).unwrap();
    let shown = page
        .split("```bash\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n").next())
        .expect("docs/ci.md shows the recipe in a bash block");
    assert_eq!(shown, script, "docs/ci.md and docs/ci-recipe.sh differ");
}

#[test]
fn check_keeps_its_result_and_never_serves_it_for_other_files() {
    let dir = sample_copy();
    let ws = dir.path().join("skills");
    let ws_arg = ws.to_string_lossy().into_owned();
    let cache = ws.join(".skillc/check-cache.json");
    let _ = std::fs::remove_dir_all(ws.join(".skillc"));
    let check = |extra: &[&str]| {
        let mut args = vec!["check", ws_arg.as_str()];
        args.extend(extra);
        let out = skillc(&args);
        (out.status.code(), stdout(&out))
    };
    let fresh = check(&["--no-cache"]);
    assert_eq!(fresh.0, Some(0), "{}", fresh.1);
    assert!(!cache.exists(), "--no-cache writes nothing");
    assert_eq!(check(&[]), fresh);
    assert!(cache.exists());
    assert_eq!(check(&[]), fresh, "the kept result");

    // An edit right after the last check, then one of the same size within the same clock
    // tick: each is seen.
    let skill = ws.join("public/documents/url-gen/SKILL.md");
    let original = std::fs::read_to_string(&skill).unwrap();
    let broken = original.replacen("name: url-gen", "name: [url-ge", 1);
    assert_ne!(broken, original);
    std::fs::write(&skill, &broken).unwrap();
    let after_edit = check(&[]);
    assert_eq!(after_edit.0, Some(1), "{}", after_edit.1);
    assert!(after_edit.1.contains("error[E006]"), "{}", after_edit.1);
    let renamed = original.replacen("name: url-gen", "name: url-gex", 1);
    std::fs::write(&skill, &renamed).unwrap();
    let same_size = check(&[]);
    assert_eq!(same_size, check(&["--no-cache"]));
    assert!(!same_size.1.contains("error[E006]"), "{}", same_size.1);

    // Back to the original content: the first result again.
    std::fs::write(&skill, &original).unwrap();
    assert_eq!(check(&[]), fresh);
    // A new file counts, and so does a damaged cache.
    std::fs::write(ws.join("public/documents/url-gen/NOTES.md"), "notes").unwrap();
    assert_eq!(check(&[]), check(&["--no-cache"]));
    std::fs::write(&cache, "{ not json").unwrap();
    assert_eq!(check(&[]), check(&["--no-cache"]));
    std::fs::write(ws.join("public/documents/url-gen/SKILL.md"), &broken).unwrap();
    std::fs::write(&cache, "{ not json").unwrap();
    assert_eq!(check(&[]).0, Some(1));
}

#[test]
fn watch_prints_after_a_save_only_the_warnings_the_save_brought() {
    use common::write;
    use std::time::{Duration, Instant};
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let skill = |name: &str, extra: &str| {
        format!("---\nname: {name}\ndescription: The {name} skill.\n{extra}---\nBody.\n")
    };
    write(&ws, "a/SKILL.md", &skill("a", "trigger_example: typo\n"));
    write(&ws, "b/SKILL.md", &skill("b", ""));
    // stdout and stderr into one file, in the order they were written.
    let log = tmp.path().join("watch.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(["watch", ws.to_str().unwrap(), "-o"])
        .arg(tmp.path().join("out.db"))
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    let wait_for_builds = |n: usize| {
        let started = Instant::now();
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.matches("rebuilt ").count() >= n || started.elapsed() > Duration::from_secs(60)
            {
                return text;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let first = wait_for_builds(1);
    write(&ws, "b/SKILL.md", &skill("b", "tags_typo: x\n"));
    let text = wait_for_builds(2);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        first.contains("warning[W103]") && first.contains("a/SKILL.md"),
        "{first}"
    );
    let after = &text[first.len()..];
    assert!(
        after.contains("b/SKILL.md"),
        "the new warning is shown: {after}"
    );
    assert!(
        !after.contains("a/SKILL.md"),
        "the old warning is not shown again: {after}"
    );
    assert!(
        after.contains("2 warnings (1 new, above; the others as at the last build)"),
        "{after}"
    );
}

#[test]
fn past_fifty_errors_each_distinct_message_is_shown_once_with_its_count() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    for i in 0..60 {
        common::write(
            ws,
            &format!("s{i:02}/SKILL.md"),
            &format!(
                "---\nname: s{i:02}\ndescription: Skill {i}.\ndependencies: [nope]\n---\nBody.\n"
            ),
        );
    }
    common::write(
        ws,
        "odd/SKILL.md",
        "---\nname: odd\ndescription: Odd.\nimports: [gone]\n---\nBody.\n",
    );
    for command in ["check", "build"] {
        let mut args = vec![command, ws.to_str().unwrap()];
        let out_db = tmp.path().join("out.db");
        if command == "build" {
            args.extend(["-o", out_db.to_str().unwrap()]);
        }
        let out = skillc(&args);
        assert_eq!(out.status.code(), Some(1));
        let text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
        assert_eq!(text.matches("error[E012]").count(), 2, "{text}");
        assert!(
            text.contains("unknown skill `nope` in `dependencies` (60 times; also at s01/SKILL.md:4:16, s02/SKILL.md:4:16, s03/SKILL.md:4:16 and 56 more)"),
            "{text}"
        );
        assert!(
            text.contains("61 errors, 2 distinct; `--all-errors`"),
            "{text}"
        );
        args.push("--all-errors");
        let all = skillc(&args);
        let text = format!("{}{}", stdout(&all), String::from_utf8_lossy(&all.stderr));
        assert_eq!(text.matches("error[E012]").count(), 61, "{command}");
    }
}

#[test]
fn route_ranks_a_clients_catalog_for_a_message_and_no_candidate_is_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    skillc_ok(&["build", &repo("skills"), "-o", db]);
    let route = |args: &[&str]| {
        let mut all = vec!["route", db];
        all.extend_from_slice(args);
        let out = skillc(&all);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let out = route(&[
        "How much does the pro plan cost?",
        "--client",
        "hyperline.co",
        "--format",
        "json",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["client"], "hyperline.co");
    // Words and the built-in meaning, with no vector given.
    assert_eq!(r["method"], "hybrid");
    let first = &r["candidates"][0];
    assert_eq!(first["name"], "pricing", "{r}");
    assert_eq!(
        first["matched"],
        serde_json::json!(["much", "plan", "cost"])
    );
    let score = first["score"].as_f64().unwrap();
    assert!(score > 0.2 && score < 1.0, "{score}");
    // The id is the skill's id in the same catalog.
    let catalog = skillc(&[
        "catalog",
        db,
        "--client",
        "hyperline.co",
        "--format",
        "json",
    ]);
    let catalog: serde_json::Value = serde_json::from_slice(&catalog.stdout).unwrap();
    let id = catalog["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "pricing")
        .unwrap()["id"]
        .clone();
    assert_eq!(first["id"], id);
    // Text: score with four decimals, id, name, matched words.
    let text = stdout(&route(&["I can't log in to my account"]));
    assert!(
        text.starts_with("0.") && text.contains(" support (log, account)"),
        "{text}"
    );
    // Nothing known, an empty message, 100 KB of one letter (an argument can hold no more;
    // the runtime test routes a megabyte): no candidate, exit 0.
    for message in ["bananas and kiwis", "", &"x ".repeat(50_000)] {
        let r: serde_json::Value =
            serde_json::from_slice(&route(&[message, "--format", "json"]).stdout).unwrap();
        assert_eq!(r["candidates"], serde_json::json!([]));
        assert_eq!(r["confident"], false);
    }
    // --top cuts; a query vector must be of the artifact's model.
    let r: serde_json::Value = serde_json::from_slice(
        &route(&[
            "log in, prices or competitors",
            "--top",
            "1",
            "--format",
            "json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(r["candidates"].as_array().unwrap().len(), 1);
    let vector = dir.path().join("v.json");
    std::fs::write(&vector, "[1, 2]").unwrap();
    let out = skillc(&[
        "route",
        db,
        "cost",
        "--query-vector",
        vector.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(why.contains("`static-minilm-v1` gives 256"), "{why}");
}

#[test]
fn routing_settings_come_from_workspace_yaml_and_bad_ones_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    common::copy_dir(Path::new(&repo("skills")), &ws);
    let yaml = ws.join("workspace.yaml");
    let base = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        format!("{base}routing: {{top_k: 1, min_score: 0.05}}\n"),
    )
    .unwrap();
    let db = dir.path().join("r.db");
    skillc_ok(&["build", ws.to_str().unwrap(), "-o", db.to_str().unwrap()]);
    let out = skillc(&[
        "route",
        db.to_str().unwrap(),
        "log in, prices or competitors",
        "--format",
        "json",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["candidates"].as_array().unwrap().len(), 1, "{r}");
    std::fs::write(
        &yaml,
        format!("{base}routing: {{top_k: 0, min_score: 2}}\n"),
    )
    .unwrap();
    let out = skillc(&["check", ws.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("error[E019]: unknown or invalid `routing.top_k`"),
        "{text}"
    );
    assert!(
        text.contains("unknown or invalid `routing.min_score`"),
        "{text}"
    );
}

#[test]
fn eval_measures_routing_per_bundle_leaving_each_example_out_and_gates_on_min_recall() {
    // Two skills whose examples share words with their own texts but not with each other's.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    common::write(
        &ws,
        "billing/SKILL.md",
        "---\nname: billing\ndescription: Invoices, payments and refunds.\ntrigger_examples: [Where is my invoice?, I want a refund for my payment, My payment failed]\n---\nHelp with billing.\n",
    );
    common::write(
        &ws,
        "shipping/SKILL.md",
        "---\nname: shipping\ndescription: Parcels, delivery and tracking.\ntrigger_examples: [Where is my parcel?, Track my delivery, The parcel delivery is late]\n---\nHelp with shipping.\n",
    );
    common::write(
        &ws,
        "tests/routing.yaml",
        "- name: bananas reach nothing\n  request: {message: bananas}\n  expect: {routes_to: []}\n- name: a refund reaches billing\n  request: {message: refund please}\n  expect: {routes_to: [billing]}\n",
    );
    let ws_arg = ws.to_str().unwrap();
    let out = skillc(&["eval", ws_arg, "--format", "json", "--min-recall", "1"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["method"], "hybrid");
    let b = &r["bundles"][0];
    assert_eq!(
        (b["examples"].as_u64(), b["cases"].as_u64()),
        (Some(6), Some(2)),
        "{b}"
    );
    assert_eq!(
        (b["positives"].as_u64(), b["negatives"].as_u64()),
        (Some(7), Some(1))
    );
    assert_eq!(b["recall_at_1"], 1.0, "{b}");
    assert_eq!(b["false_fire"], 0.0);
    assert_eq!(b["confusions"], serde_json::json!([]));
    assert_eq!(b["selector"], serde_json::Value::Null);
    // The sample's short examples share few words with their skills' other texts: the eval
    // says so, and --min-recall fails the run.
    let out = skillc(&["eval", &repo("skills"), "--min-recall", "0.9"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with("global (en, standard): 20 examples, 2 cases · recall@1 "),
        "{text}"
    );
    assert!(text.contains("  pricing → "), "{text}");
    // Without --client: the global bundle and every client's.
    for client in [
        "augment.org",
        "example.com",
        "hyperline.co",
        "ibanfirst.com",
        "northwind.io",
    ] {
        assert!(
            text.contains(&format!("\n{client} (en, standard): ")),
            "{client}: {text}"
        );
    }
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("recall@k under --min-recall 0.9: global")
    );
    assert_eq!(
        skillc(&["eval", ws_arg, "--min-recall", "2"]).status.code(),
        Some(2)
    );
    let out = skillc(&[
        "eval",
        &repo("skills"),
        "--client",
        "hyperline.co",
        "--format",
        "json",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["bundles"][0]["client"], "hyperline.co");
    assert_eq!(
        r["bundles"][0]["cases"], 2,
        "the sample's two hyperline.co routing cases"
    );
    assert_eq!(r["bundles"].as_array().unwrap().len(), 1);
}

/// A workspace of two skills and a routing case expecting no skill, for the selector.
fn two_skill_workspace(ws: &Path) {
    common::write(
        ws,
        "billing/SKILL.md",
        "---\nname: billing\ndescription: Invoices, payments and refunds.\ntrigger_examples: [Where is my invoice?, I want a refund]\n---\nHelp with billing.\n",
    );
    common::write(
        ws,
        "shipping/SKILL.md",
        "---\nname: shipping\ndescription: Parcels and delivery.\ntrigger_examples: [Where is my parcel?, crash now]\n---\nHelp with shipping.\n",
    );
    common::write(
        ws,
        "tests/routing.yaml",
        "- name: bananas reach nothing\n  request: {message: bananas}\n  expect: {routes_to: []}\n",
    );
}

#[test]
fn eval_of_a_collection_without_examples_says_it_measured_nothing() {
    // Most public collections declare no trigger examples: their figures are of nothing, and
    // the text says `-` rather than a perfect 1.000 (JSON keeps 1.0, so --min-recall passes).
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for (name, about) in [
        ("billing", "Invoices and refunds."),
        ("shipping", "Parcels and delivery."),
    ] {
        common::write(
            &ws,
            &format!("{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: {about}\n---\nHelp.\n"),
        );
    }
    let ws_arg = ws.to_str().unwrap();
    let text = skillc(&["eval", ws_arg]);
    assert_eq!(text.status.code(), Some(0), "{}", common::said(&text));
    let line = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(
        line.contains("0 examples, 0 cases · recall@1 - · recall@5 - · MRR - · false fire -"),
        "{line}"
    );
    let json = skillc(&["eval", ws_arg, "--format", "json", "--min-recall", "0.9"]);
    assert_eq!(json.status.code(), Some(0), "{}", common::said(&json));
    let r: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(r["bundles"][0]["positives"], 0);
    assert_eq!(r["bundles"][0]["recall_at_k"], 1.0);
}

#[test]
fn eval_puts_every_message_to_a_selector_and_counts_its_failures() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    two_skill_workspace(&ws);
    // A selector that reads the request, picks by a word of the message, answers with an SK
    // id for invoices, fails on "crash", hangs on "parcel" and prints garbage for bananas.
    let script = dir.path().join("selector.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nreq=$(cat)\ncase \"$req\" in\n  *'\"message\":\"Where is my invoice?\"'*) echo '{\"select\": [\"SK1\"]}' ;;\n  *'\"message\":\"crash now\"'*) echo boom >&2; exit 3 ;;\n  *'\"message\":\"Where is my parcel?\"'*) sleep 30 ;;\n  *'\"message\":\"bananas\"'*) echo 'not json' ;;\n  *) echo 'thinking'; echo '{\"select\": [\"billing\"]}' ;;\nesac\n",
    )
    .unwrap();
    let (ws_arg, cmd) = (ws.to_str().unwrap(), format!("sh {}", script.display()));
    let out = skillc(&[
        "eval",
        ws_arg,
        "--selector",
        &cmd,
        "--samples",
        "2",
        "--selector-timeout",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &r["bundles"][0]["selector"];
    assert_eq!(
        (s["samples"].as_u64(), s["calls"].as_u64()),
        (Some(2), Some(10)),
        "{s}"
    );
    // Billing's two examples reach billing; shipping's two fail; bananas is garbage, twice.
    assert_eq!(s["failures"], 6, "{s}");
    assert_eq!(s["recall_at_1"], 0.5, "{s}");
    assert_eq!(s["false_fire"], 0.0, "{s}");
    let errors: Vec<&str> = s["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["error"].as_str().unwrap())
        .collect();
    assert!(
        errors.iter().any(|e| e.contains("timed out after 1 s")),
        "{errors:?}"
    );
    assert!(errors.iter().any(|e| e.contains("boom")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("not json")), "{errors:?}");
    assert_eq!(
        s["spread"]["recall_at_1"],
        serde_json::json!({"min": 0.5, "max": 0.5})
    );
    let text = stdout(&skillc(&[
        "eval",
        ws_arg,
        "--selector",
        &cmd,
        "--selector-timeout",
        "1",
    ]));
    assert!(
        text.contains("  selector (1 sample, 5 calls, 3 failed): recall@1 0.500"),
        "{text}"
    );
    // Usage errors: --samples without a selector, or zero samples.
    assert_eq!(
        skillc(&["eval", ws_arg, "--samples", "3"]).status.code(),
        Some(2)
    );
    assert_eq!(
        skillc(&["eval", ws_arg, "--selector", "true", "--samples", "0"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_client_yaml_routing_setting_overrides_the_workspace_one_for_that_client_only() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    common::copy_dir(Path::new(&repo("skills")), &ws);
    let yaml = ws.join("workspace.yaml");
    let settings = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, format!("{settings}routing: {{min_score: 0.01}}\n")).unwrap();
    // The client's top_k lies over the workspace's settings; its min_score is the workspace's.
    let client = ws.join("clients/example.com/client.yaml");
    let base = std::fs::read_to_string(&client).unwrap();
    std::fs::write(&client, format!("{base}routing: {{top_k: 1}}\n")).unwrap();
    let db = dir.path().join("r.db");
    skillc_ok(&["build", ws.to_str().unwrap(), "-o", db.to_str().unwrap()]);
    let count = |client: Option<&str>| {
        let mut args = vec![
            "route",
            db.to_str().unwrap(),
            "log in, prices, competitors, demo",
        ];
        args.extend(client.map(|c| ["--client", c]).into_iter().flatten());
        args.extend(["--format", "json"]);
        let r: serde_json::Value = serde_json::from_slice(&skillc(&args).stdout).unwrap();
        r["candidates"].as_array().unwrap().len()
    };
    assert_eq!(count(Some("example.com")), 1);
    assert!(count(None) > 1);
    assert!(count(Some("northwind.io")) > 1);
    std::fs::write(&client, format!("{base}routing: {{top_k: many}}\n")).unwrap();
    let out = skillc(&["check", ws.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("unknown or invalid `routing.top_k`"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_bench_prints_its_usage_refuses_bad_arguments_and_never_empties_a_folder_it_did_not_write() {
    let bench = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_skillc-bench"))
            .args(args)
            .output()
            .expect("skillc-bench runs")
    };
    let help = bench(&["--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("usage: skillc-bench"));
    // Each would have run the whole benchmark with the reference workload's numbers.
    for (args, said) in [
        (&["--clinets", "5"][..], "unknown argument `--clinets`"),
        (
            &["--clients", "5k"][..],
            "`--clients` takes whole numbers, not `5k`",
        ),
        (
            &["--scale", "500,x"][..],
            "`--scale` takes whole numbers, not `x`",
        ),
        (&["--runs"][..], "`--runs` needs a value"),
    ] {
        let out = bench(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(said) && err.contains("usage:"),
            "{args:?}: {err}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let tiny = ["--generate-only", "--skills", "3", "--clients", "1"];
    let out = bench(&[&["--keep", theirs.to_str().unwrap()][..], &tiny].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("files the bench did not write"));
    assert_eq!(
        std::fs::read_to_string(theirs.join("notes.txt")).unwrap(),
        "mine"
    );
    // A new folder, then the same one again (the bench's own workspace), are taken.
    let ours = dir.path().join("ours");
    for _ in 0..2 {
        let out = bench(&[&["--keep", ours.to_str().unwrap()][..], &tiny].concat());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(ours.join("workspace.yaml").is_file());
    }
}
