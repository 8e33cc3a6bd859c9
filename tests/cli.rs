//! The `skillc` command line as a user and CI run it: exit codes and output (SPEC 7).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
