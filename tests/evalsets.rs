//! Eval sets in other tools' formats, beside a skill (`evals/evals.json`, trigger sets), read
//! as routing cases by `skillc test` and `skillc eval`; and `skillc export-cases`, which
//! writes a workspace's routing cases in those formats.

use std::path::Path;

use crate::common::{self, arg, said, skillc};

/// Two skills, each with an Agent Skills `evals/evals.json` (one under `assertions`, one
/// under `expectations`, agentskills PR #506), and a skill-creator trigger set.
fn workspace(root: &Path) {
    common::write(
        root,
        "invoices/SKILL.md",
        "---\nname: invoices\ndescription: Create, send and correct customer invoices.\n---\nCreate the invoice.\n",
    );
    common::write(
        root,
        "refunds/SKILL.md",
        "---\nname: refunds\ndescription: Refund a customer's payment, whole or in part.\n---\nRefund the payment.\n",
    );
    common::write(
        root,
        "invoices/evals/evals.json",
        r#"{
  "skill_name": "invoices",
  "evals": [
    {"id": 1, "prompt": "send the March invoice to Acme", "expected_output": "The invoice is sent", "files": [], "assertions": ["The invoice is sent"]}
  ]
}
"#,
    );
    common::write(
        root,
        "refunds/evals/evals.json",
        r#"{"skill_name": "refunds", "evals": [
  {"id": 7, "prompt": "refund half of the payment for order 12", "expectations": ["A partial refund is made"]}
]}
"#,
    );
    common::write(
        root,
        "invoices/evals/trigger-eval.json",
        r#"[
  {"query": "correct the total on customer invoice 17", "should_trigger": true},
  {"query": "refund the customer's payment for order 12", "should_trigger": false}
]
"#,
    );
    // Not an eval set (a benchmark's output): left alone.
    common::write(root, "refunds/evals/benchmark.json", r#"{"runs": []}"#);
}

#[test]
fn eval_sets_beside_a_skill_are_routing_cases_of_test_and_eval() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    workspace(ws);
    let out = skillc(&["test", arg(ws), "--format", "json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", said(&out)));
    let cases: Vec<(String, u64, String, bool)> = (v["cases"].as_array().unwrap().iter())
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_string(),
                c["line"].as_u64().unwrap(),
                c["name"].as_str().unwrap().to_string(),
                c["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    let at = |file: &str, line: u64, name: &str, passed: bool| {
        (file.to_string(), line, name.to_string(), passed)
    };
    assert_eq!(
        cases,
        vec![
            at("invoices/evals/evals.json", 4, "invoices: eval 1", true),
            at(
                "invoices/evals/trigger-eval.json",
                2,
                "invoices triggers: #1",
                true
            ),
            // `should_trigger: false` is `routes_not_to`: `invoices` is among its candidates.
            at(
                "invoices/evals/trigger-eval.json",
                3,
                "invoices does not trigger: #2",
                false
            ),
            at("refunds/evals/evals.json", 2, "refunds: eval 7", true),
        ],
        "{}",
        said(&out)
    );
    assert_eq!(out.status.code(), Some(1), "a failing case fails the run");

    // `eval` scores the same messages: three to reach a skill, one to keep from `invoices`.
    let out = skillc(&["eval", arg(ws), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bundle = &v["bundles"][0];
    assert_eq!(bundle["cases"], 4, "{bundle}");
    assert_eq!(
        (bundle["positives"].clone(), bundle["negatives"].clone()),
        (3.into(), 1.into())
    );
    assert_eq!(
        bundle["false_fire"], 1.0,
        "the negative reaches `invoices`: {bundle}"
    );
}

#[test]
fn a_bad_eval_set_stops_test_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    workspace(ws);
    common::write(
        ws,
        "refunds/evals/evals.json",
        "{\"evals\": [\n  {\"id\": 1, \"assertions\": [\"x\"]}\n]}\n",
    );
    let out = skillc(&["test", arg(ws)]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error[E029]: eval 1 has no `prompt`")
            && err.contains("refunds/evals/evals.json:2:3"),
        "{err}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).is_empty(),
        "no case ran"
    );
}

/// (message, skills to reach, skills not to reach) of each routing case, in order.
fn routing(root: &Path) -> Vec<(String, Option<Vec<String>>, Vec<String>)> {
    let options = skillc::CheckOptions::default();
    let report = skillc::workspace_check::check(root, &options).unwrap();
    let (cases, problems) = skillc::cases::load(root, &report.workspace);
    assert!(problems.is_empty(), "{problems:?}");
    (cases.into_iter())
        .filter_map(|c| {
            let to = c.expect.routes_to;
            Some((c.request.message?, to, c.expect.routes_not_to))
        })
        .collect()
}

#[test]
fn export_cases_writes_what_reads_back_as_the_same_cases() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    workspace(&ws);
    for f in ["invoices/evals", "refunds/evals"] {
        std::fs::remove_dir_all(ws.join(f)).unwrap();
    }
    common::write(
        &ws,
        "tests/routing.yaml",
        "- name: an invoice to send\n  request: {message: send the April invoice to Northwind}\n  expect: {routes_to: [invoices]}\n\
         - name: a refund is no invoice\n  request: {message: refund the whole payment}\n  expect: {routes_not_to: [invoices]}\n\
         - name: small talk\n  request: {message: what a nice day}\n  expect: {routes_to: []}\n\
         - name: ranked\n  request: {message: send the invoice}\n  expect: {routes_to: [invoices], within: 1}\n\
         - name: a refund\n  request: {message: refund half the payment}\n  expect: {routes_to: [refunds]}\n",
    );
    let original = routing(&ws);
    // Both skills have cases: the format holds one, so it must be named.
    let out = skillc(&["export-cases", arg(&ws), "--format", "skill-creator"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("name one with --skill"),
        "{}",
        said(&out)
    );
    let out = skillc(&[
        "export-cases",
        arg(&ws),
        "--format",
        "agentskills",
        "--skill",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));

    // A copy without `tests/`, the exports beside its skill instead.
    let back = dir.path().join("back");
    workspace(&back);
    for f in ["invoices/evals", "refunds/evals"] {
        std::fs::remove_dir_all(back.join(f)).unwrap();
    }
    let export = |format: &str, file: &str| {
        let path = back.join("invoices/evals").join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let args = [
            "export-cases",
            arg(&ws),
            "--format",
            format,
            "--skill",
            "invoices",
        ];
        let out = skillc(&[&args[..], &["-o", arg(&path)]].concat());
        assert_eq!(out.status.code(), Some(0), "{}", said(&out));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said_sc = export("skill-creator", "trigger-eval.json");
    assert!(
        said_sc.contains("left out: ranked: it asks for a rank (`within`)"),
        "{said_sc}"
    );
    assert!(
        said_sc.contains("3 cases about `invoices` written, 1 left out"),
        "{said_sc}"
    );
    // Not the ranked case (left out), nor the one about another skill.
    let not_ranked = |c: &(String, Option<Vec<String>>, Vec<String>)| {
        !["send the invoice", "refund half the payment"].contains(&c.0.as_str())
    };
    let expected: Vec<_> = original.iter().filter(|c| not_ranked(c)).cloned().collect();
    // A case the format says as "does not trigger" reads back as one that must not reach it.
    let as_read: Vec<_> = (expected.iter().cloned())
        .map(|(m, to, not)| match to {
            Some(to) if to.is_empty() => (m, None, vec!["invoices".to_string()]),
            to => (m, to, not),
        })
        .collect();
    assert_eq!(routing(&back), as_read);

    // Agent Skills: the messages that must reach the skill, the same again.
    std::fs::remove_file(back.join("invoices/evals/trigger-eval.json")).unwrap();
    let said_as = export("agentskills", "evals.json");
    assert!(
        said_as.contains("1 cases about `invoices` written, 3 left out"),
        "{said_as}"
    );
    let reaching: Vec<_> = (as_read.into_iter()).filter(|c| c.1.is_some()).collect();
    assert_eq!(routing(&back), reaching);
}
