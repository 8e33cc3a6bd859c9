//! Dense routing (SPEC 13.1): vectors made at build time by the embedder the person building
//! gives, cached by model and text, stored in the artifact and fused with the lexical score when
//! a route gets the message's vector. The embedder is `tests/embedder/trigrams.py`, a small
//! deterministic one that speaks the protocol.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn skillc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(args)
        .env_remove("SKILLC_EMBEDDER")
        .output()
        .expect("run skillc")
}

fn embedder(extra: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/embedder/trigrams.py");
    format!("python3 {} {extra}", script.display())
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A workspace of three skills that declares an embedding model.
fn workspace(dir: &Path) -> PathBuf {
    let root = dir.join("ws");
    let skill = |name: &str, description: &str, examples: &[&str]| {
        let folder = root.join("public/main").join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let examples: String = examples.iter().map(|e| format!("  - \"{e}\"\n")).collect();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\ntrigger_examples:\n{examples}---\nBody.\n"),
        )
        .unwrap();
    };
    std::fs::create_dir_all(&root).unwrap();
    // The test embedder's trigram cosines run lower than a model's: its hybrid cut is lower too.
    std::fs::write(
        root.join("workspace.yaml"),
        "name: dense\nlocales: [en]\ntiers: [{ name: standard }]\nrouting: { embedding_model: skillc-test-trigrams, hybrid_min_score: 0.2 }\n",
    )
    .unwrap();
    skill(
        "billing",
        "Answer questions about invoicing and payments.",
        &["Where is my invoice?", "Can I pay by card?"],
    );
    skill(
        "login-help",
        "Help visitors who cannot sign in.",
        &["I forgot my password"],
    );
    skill(
        "shipping",
        "Track parcels and deliveries.",
        &["Where is my parcel?"],
    );
    root
}

fn calls(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn vectors_are_made_by_the_embedder_once_per_text_and_the_artifact_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let root = workspace(dir.path());
    let (ws, out) = (root.to_str().unwrap(), dir.path().join("a.db"));
    let out_s = out.to_str().unwrap();
    // Declared but no embedder: a clear error, nothing written.
    let o = skillc(&["build", ws, "-o", out_s]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("--embedder CMD or SKILLC_EMBEDDER"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let log = dir.path().join("calls.log");
    let command = embedder(&format!("--log {}", log.display()));
    let o = skillc(&["build", ws, "-o", out_s, "--embedder", &command]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Three summaries and four trigger examples, in one call.
    assert_eq!(calls(&log), ["7"]);
    let db = rusqlite::Connection::open(&out).unwrap();
    let count: i64 = db
        .query_row("SELECT count(*) FROM vector", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 7);
    let dims: String = db
        .query_row(
            "SELECT value FROM manifest WHERE key = 'embedding_dims'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(dims, "64");
    let listed: String = db
        .query_row("SELECT vectors FROM card WHERE name = 'billing'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(listed.split(' ').count(), 3, "summary and two examples");
    drop(db);
    // Again: every vector from the cache, the same bytes, even with the embedder gone.
    let first = std::fs::read(&out).unwrap();
    let again = dir.path().join("b.db");
    let o = skillc(&["build", ws, "-o", again.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(calls(&log), ["7"]);
    assert_eq!(first, std::fs::read(&again).unwrap());
    // One example edited: only its text is embedded.
    let md = root.join("public/main/shipping/SKILL.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(
        &md,
        text.replace("Where is my parcel?", "Has my parcel shipped?"),
    )
    .unwrap();
    let o = skillc(&["build", ws, "-o", out_s, "--embedder", &command]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(calls(&log), ["7", "1"]);
}

#[test]
fn an_embedder_that_fails_or_answers_another_model_fails_the_build_and_keeps_the_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let root = workspace(dir.path());
    let ws = root.to_str().unwrap();
    let out = dir.path().join("a.db");
    let out_s = out.to_str().unwrap();
    let o = skillc(&["build", ws, "-o", out_s, "--embedder", &embedder("")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = std::fs::read(&out).unwrap();
    std::fs::remove_dir_all(root.join(".skillc")).unwrap();
    for (command, says) in [
        (embedder("--model other"), "model `other`"),
        ("echo garbage".to_string(), "answered 1 lines for 7 texts"),
        (
            "cat >/dev/null; echo '{\"model\": \"skillc-test-trigrams\", \"vector\": []}'; exit 0"
                .to_string(),
            "answered 1 lines",
        ),
        ("echo oops >&2; exit 3".to_string(), "oops"),
        ("no-such-embedder-here".to_string(), "exited with"),
    ] {
        let o = skillc(&["build", ws, "-o", out_s, "--embedder", &command]);
        assert_ne!(o.status.code(), Some(0), "{command}");
        assert!(stderr(&o).contains(says), "{command}: {}", stderr(&o));
        assert_eq!(
            before,
            std::fs::read(&out).unwrap(),
            "{command} left the artifact as it was"
        );
    }
}

#[test]
fn a_hybrid_route_reaches_a_skill_by_word_pieces_and_eval_says_hybrid() {
    let dir = tempfile::tempdir().unwrap();
    let root = workspace(dir.path());
    let ws = root.to_str().unwrap();
    let out = dir.path().join("a.db");
    let out_s = out.to_str().unwrap();
    let command = embedder("");
    let o = skillc(&["build", ws, "-o", out_s, "--embedder", &command]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // "invoyced" (misspelt) is no word of the index, not even with its suffix off ("invoyc"
    // against "invoic"): lexically, no candidate; its letter trigrams still meet "invoicing".
    let message = "invoyced twice";
    let route = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["route", out_s, message, "--format", "json"];
        args.extend_from_slice(extra);
        let o = skillc(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let lexical = route(&[]);
    assert_eq!(lexical["method"], "lexical");
    assert_eq!(lexical["candidates"], serde_json::json!([]));
    let query = dir.path().join("q.json");
    let vector = Command::new("sh")
        .arg("-c")
        .arg(format!("echo '{{\"text\": \"{message}\"}}' | {command}"))
        .output()
        .unwrap();
    std::fs::write(&query, &vector.stdout).unwrap();
    let hybrid = route(&["--query-vector", query.to_str().unwrap()]);
    assert_eq!(hybrid["method"], "hybrid");
    assert_eq!(hybrid["candidates"][0]["name"], "billing", "{hybrid}");
    assert_eq!(hybrid["candidates"][0]["matched"], serde_json::json!([]));
    // Eval routes every example by words and vectors, each left out of its own skill.
    let o = skillc(&["eval", ws, "--embedder", &command, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let eval: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(eval["method"], "hybrid");
    assert_eq!(eval["bundles"][0]["positives"], 4);
}

#[test]
fn an_embedding_model_is_declared_once_in_workspace_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let root = workspace(dir.path());
    let client = root.join("clients/acme.example");
    std::fs::create_dir_all(&client).unwrap();
    std::fs::write(
        client.join("client.yaml"),
        "routing: { embedding_model: other }\n",
    )
    .unwrap();
    let o = skillc(&["check", root.to_str().unwrap()]);
    assert_ne!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
    assert!(
        text.contains("embedding_model is set once, in workspace.yaml"),
        "{text}"
    );
}

#[test]
fn eval_leaves_each_example_s_own_vector_out_of_its_skill() {
    // An embedder whose vectors are chosen: money texts point one way, parcel texts another,
    // and the odd example `zq vx` of `shipping` (no word any other text has) points nearly
    // the money way. Routed as eval routes it, its words and its own vector taken out of
    // `shipping`, it goes to `billing` (0.45 against 0.05). Were its own vector left in, it
    // would match itself (similarity 1: 0.5) and pass for a hit.
    let dir = tempfile::tempdir().unwrap();
    let root = workspace(dir.path());
    std::fs::write(
        root.join("public/main/shipping/SKILL.md"),
        "---\nname: shipping\ndescription: Track parcels and deliveries.\ntrigger_examples:\n  - \"Where is my parcel?\"\n  - \"zq vx\"\n---\nBody.\n",
    )
    .unwrap();
    let script = dir.path().join("chosen.py");
    std::fs::write(
        &script,
        r#"import json, sys
def vector(t):
    if "zq vx" in t: return [0.1, 0.9, 0.42]
    if any(w in t.lower() for w in ("invoic", "pay", "card")): return [0.0, 1.0, 0.0]
    if any(w in t.lower() for w in ("parcel", "shipping")): return [1.0, 0.0, 0.0]
    return [0.0, 0.0, 1.0]
for line in sys.stdin:
    if line.strip():
        print(json.dumps({"model": "skillc-test-trigrams", "vector": vector(json.loads(line)["text"])}))
"#,
    )
    .unwrap();
    let command = format!("python3 {}", script.display());
    let o = skillc(&[
        "eval",
        root.to_str().unwrap(),
        "--embedder",
        &command,
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let eval: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(eval["method"], "hybrid");
    let confusions = &eval["bundles"][0]["confusions"];
    let away = confusions.as_array().unwrap().iter().find(|c| {
        c["expected"] == "shipping"
            && c["examples"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!("zq vx"))
    });
    assert_eq!(
        away.map(|c| &c["got"]),
        Some(&serde_json::json!("billing")),
        "{confusions}"
    );
}

#[test]
fn small_talk_raises_the_default_bar_and_a_bar_set_in_workspace_yaml_is_kept_as_written() {
    // The sample with the built-in meaning: a farewell that shares words with booking a demo.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    crate::common::copy_dir(&sample, &root);
    let route = |out: &Path, message: &str| -> Vec<String> {
        let o = skillc(&["route", out.to_str().unwrap(), message, "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(r["method"], "hybrid");
        let names = r["candidates"].as_array().unwrap().iter();
        names
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    let build = |name: &str| -> PathBuf {
        let out = dir.path().join(name);
        let o = skillc(&["build", root.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        out
    };
    let default = build("default.db");
    assert_eq!(route(&default, "bye, talk tomorrow"), Vec::<String>::new());
    assert_eq!(
        route(&default, "can you help me scrape a website"),
        ["web-scraping"]
    );
    // The same bar written in workspace.yaml is the bar as written: nothing raises it.
    let yaml = root.join("workspace.yaml");
    let mut text = std::fs::read_to_string(&yaml).unwrap();
    text.push_str("\nrouting: { hybrid_min_score: 0.257041 }\n");
    std::fs::write(&yaml, text).unwrap();
    let written = build("written.db");
    assert_eq!(route(&written, "bye, talk tomorrow"), ["demo_offer"]);
}

/// The catalogs' W119 warnings: (catalog, skill) for each, the catalog as its message names it.
fn w119_of(root: &str) -> std::collections::BTreeSet<(String, String)> {
    let o = skillc(&["check", root, "--no-cache", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("check's JSON");
    let diagnostics = report["diagnostics"].as_array().unwrap();
    (diagnostics.iter())
        .filter(|d| d["code"] == "W119")
        .map(|d| {
            let message = d["message"].as_str().unwrap();
            let skill = message.split('`').nth(1).unwrap().to_string();
            let catalog = match message.split(" in client ").nth(1) {
                Some(rest) => rest.split("'s catalog").next().unwrap().to_string(),
                None => String::new(),
            };
            (catalog, skill)
        })
        .collect()
}

/// W119 routes each trigger example as a runtime does (words and the built-in meaning fused,
/// the catalog's bar raised for small talk): it warns of a skill in a catalog exactly when
/// `skillc eval`, which routes through the runtime, finds one of its examples going first to
/// another skill there. The sample's clients hide global skills and add their own, so each
/// catalog is ranked as the global index less some skills plus others.
#[test]
fn w119_warns_of_exactly_the_trigger_examples_a_runtime_routes_to_another_skill() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../skills");
    let warned = w119_of(root);
    let mut routed = std::collections::BTreeSet::new();
    // Without `--client`, eval measures the global bundle and every client's.
    let o = skillc(&["eval", root, "--format", "json"]);
    let eval: serde_json::Value = serde_json::from_slice(&o.stdout).expect("eval's JSON");
    assert_eq!(eval["method"], "hybrid");
    for bundle in eval["bundles"].as_array().unwrap() {
        let client = bundle["client"].as_str().unwrap_or("");
        // A client's catalog is checked for the client's own skills.
        let own = |skill: &str| {
            let folder = Path::new(root).join("clients").join(client);
            client.is_empty() || walk_names(&folder).iter().any(|n| n == skill)
        };
        for c in bundle["confusions"].as_array().unwrap() {
            let expected = c["expected"].as_str().unwrap();
            if !c["got"].is_null() && own(expected) {
                routed.insert((client.to_string(), expected.to_string()));
            }
        }
    }
    assert!(routed.len() >= 5, "{routed:?}");
    assert_eq!(warned, routed);
}

/// The names of the skills under `folder` (their SKILL.md's `name:`).
fn walk_names(folder: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return names;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            names.extend(walk_names(&p));
        } else if p.file_name().is_some_and(|n| n == "SKILL.md") {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = text.lines().find_map(|l| l.strip_prefix("name:"));
            names.extend(name.map(|n| n.trim().to_string()));
        }
    }
    names
}
