//! Dense routing (SPEC 13.1): vectors made at build time by the embedder the person building
//! gives, cached by model and text, stored in the artifact and fused with the lexical score when
//! a route gets the message's vector. The embedder is `tests/embedder/trigrams.py`, a small
//! deterministic one that speaks the protocol.

use std::collections::BTreeSet;
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

/// The vector `command` (an embedder) gives `message`, written to `dir/q.json` for
/// `--query-vector`.
fn query_vector(dir: &Path, command: &str, message: &str) -> PathBuf {
    let query = dir.join("q.json");
    let vector = Command::new("sh")
        .arg("-c")
        .arg(format!("echo '{{\"text\": \"{message}\"}}' | {command}"))
        .output()
        .unwrap();
    std::fs::write(&query, &vector.stdout).unwrap();
    query
}

/// `skillc route ARTIFACT MESSAGE --format json` with `extra` flags, which must succeed.
fn route_json(artifact: &str, message: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["route", artifact, message, "--format", "json"];
    args.extend_from_slice(extra);
    let o = skillc(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
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
    // "envoyced" (misspelt twice) is no word of the index, not even with its suffix off
    // ("envoyc" is two edits from "invoic", beyond what a route reads as a misspelt word):
    // lexically, no candidate; its letter trigrams still meet "invoicing".
    let message = "envoyced twice";
    let route = |extra: &[&str]| route_json(out_s, message, extra);
    let lexical = route(&[]);
    assert_eq!(lexical["method"], "lexical");
    assert_eq!(lexical["candidates"], serde_json::json!([]));
    let query = query_vector(dir.path(), &command, message);
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

/// A model's own vectors are floats, read as such whatever their length: 64 numbers, and 384
/// (all-MiniLM-L6-v2's), longer than the head the built-in meaning's whole numbers are read by.
/// A message worded as a skill's example is at cosine 1 from it: its hybrid score is half its
/// words' score plus half of 1.
#[test]
fn a_model_s_own_vectors_of_any_length_are_read_as_floats() {
    for dims in [64, 384] {
        let dir = tempfile::tempdir().unwrap();
        let root = workspace(dir.path());
        let out = dir.path().join("a.db");
        let (ws, out_s) = (root.to_str().unwrap(), out.to_str().unwrap());
        let command = embedder(&format!("--dims {dims}"));
        let o = skillc(&["build", ws, "-o", out_s, "--embedder", &command]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let message = "Where is my invoice?";
        let query = query_vector(dir.path(), &command, message);
        let words = route_json(out_s, message, &[]);
        let hybrid = route_json(out_s, message, &["--query-vector", query.to_str().unwrap()]);
        assert_eq!(words["candidates"][0]["name"], "billing", "{dims}: {words}");
        assert_eq!(
            hybrid["candidates"][0]["name"], "billing",
            "{dims}: {hybrid}"
        );
        let by_words = words["candidates"][0]["score"].as_f64().unwrap();
        let fused = hybrid["candidates"][0]["score"].as_f64().unwrap();
        assert!(
            (fused - (by_words + 1.0) / 2.0).abs() < 2e-6,
            "{dims}: {by_words} {fused}"
        );
    }
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
    // (`triage`'s body speaks of websites: it comes second.)
    assert_eq!(
        route(&default, "can you help me scrape a website")[0],
        "web-scraping"
    );
    // The same bar written in workspace.yaml is the bar as written: nothing raises it.
    let yaml = root.join("workspace.yaml");
    let mut text = std::fs::read_to_string(&yaml).unwrap();
    text.push_str("\nrouting: { hybrid_min_score: 0.247041 }\n");
    std::fs::write(&yaml, text).unwrap();
    let written = build("written.db");
    assert_eq!(route(&written, "bye, talk tomorrow"), ["demo_offer"]);
}

/// Empties the body of every SKILL.md under `root` (its frontmatter kept).
fn without_bodies(root: &Path) {
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            without_bodies(&path);
        } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
            let text = std::fs::read_to_string(&path).unwrap();
            let end = text[3..].find("\n---").map_or(text.len(), |i| i + 3 + 4);
            std::fs::write(&path, format!("{}\n", &text[..end])).unwrap();
        }
    }
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
/// catalog is ranked as the global index less some skills plus others. W119 reads the catalog
/// texts, not the bodies a runtime adds (docs/routing.md, "What is indexed"): the sample is
/// measured without its bodies, which leave its warnings as they are (with them, `Tell me
/// more` of `context_gathering` reaches `api-caller` by the word `tell` of its body alone).
#[test]
fn w119_warns_of_exactly_the_trigger_examples_a_runtime_routes_to_another_skill() {
    let tmp = tempfile::tempdir().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../skills");
    let stripped = tmp.path().join("sample");
    crate::common::copy_dir(Path::new(sample), &stripped);
    without_bodies(&stripped);
    let root = stripped.to_str().unwrap();
    let warned = w119_of(root);
    assert_eq!(w119_of(sample), warned, "a body changes no W119");
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

/// Each trigger example of the workspace at `root` that goes first to another skill, as W119
/// and the studio's editor see it (`workspace_check::example_routes`, leave-one-out in the
/// skill's own catalog): (catalog, skill, example, where it goes). Asserts, example by example,
/// that a runtime routing it in that catalog's bundle of an artifact built from `root` (its
/// skill leaving it out, as `skillc eval` asks) puts the same skill first, or none.
fn example_routes_checked_against_the_runtime(root: &Path) -> Vec<[String; 4]> {
    use skillc::model::Scope;
    use skillc_runtime::{route::Query, BundleRef, Context};
    let mut session = skillc::Session::default();
    let options = skillc::CheckOptions::default();
    let report = skillc::check_cached(root, &options, &mut session, &[]).unwrap();
    let out = tempfile::tempdir().unwrap();
    let db = out.path().join("a.db");
    let o = skillc(&["build", root.to_str().unwrap(), "-o", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let a = skillc_runtime::Artifact::open(&db).unwrap();
    let (mut elsewhere, mut examples) = (Vec::new(), 0);
    for skill in &report.workspace.skills {
        let routes = skillc::workspace_check::example_routes(&report, &skill.file, &session);
        let client = match &skill.scope {
            Scope::Global => None,
            Scope::Client(c) => Some(c.as_str()),
        };
        let r = BundleRef {
            client,
            locale: None,
            tier: None,
        };
        for route in routes {
            let bundle = a.bundle(&r).unwrap();
            let Some(at) = bundle.skills.iter().position(|s| s.name == skill.name) else {
                panic!("{} is not in {client:?}'s bundle", skill.name);
            };
            let query = Query {
                message: &route.example,
                leave_out: Some((at, &route.example)),
                time: Some(0.0),
                ..Query::default()
            };
            let ran = a
                .route_query(&r, None, &Context::default(), &query)
                .unwrap();
            let first = ran.candidates.first().map(|c| c.name.clone());
            assert_eq!(
                route.first, first,
                "{:?} of {} in {client:?}'s catalog",
                route.example, skill.name
            );
            examples += 1;
            if !route.own {
                if let Some(other) = route.first {
                    let catalog = client.unwrap_or_default().to_string();
                    elsewhere.push([catalog, skill.name.clone(), route.example, other]);
                }
            }
        }
    }
    assert!(examples >= 20, "{examples} examples routed");
    elsewhere
}

/// The catalogs' skills of `elsewhere` ([`example_routes_checked_against_the_runtime`]) less
/// the pairs the workspace at `root` declares `distinct_from`: which W119 should warn of.
fn warned_of(elsewhere: &[[String; 4]], root: &Path) -> BTreeSet<(String, String)> {
    let distinct = distinct_pairs(root);
    (elsewhere.iter())
        .filter(|[_, s, _, o]| !distinct.contains(&(s.clone(), o.clone())))
        .map(|[c, s, _, _]| (c.clone(), s.clone()))
        .collect()
}

/// The pairs of skills under `root` one of which says `distinct_from: [...]` of the other
/// (both ways; the sample writes the list on one line).
fn distinct_pairs(root: &Path) -> BTreeSet<(String, String)> {
    let mut pairs = BTreeSet::new();
    for file in walk_files(root) {
        let text = std::fs::read_to_string(file).unwrap();
        let line = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key).map(str::trim))
        };
        let (Some(name), Some(list)) = (line("name:"), line("distinct_from:")) else {
            continue;
        };
        for other in list.trim_matches(['[', ']']).split(',').map(str::trim) {
            pairs.insert((name.to_string(), other.to_string()));
            pairs.insert((other.to_string(), name.to_string()));
        }
    }
    pairs
}

/// W119, the editor's "where its trigger examples go" and a runtime's route agree on every
/// trigger example of the sample, by words and meaning (the default) and by words alone
/// (`embedding_model: none`), whose answers differ: each example goes where `route_query`
/// sends it in its skill's bundle, and W119 warns of exactly the skills with one that goes
/// elsewhere. The first such example, taken out of its skill's file, goes there by
/// `skillc route` too.
#[test]
fn w119_and_the_editors_example_routes_agree_with_the_runtimes_route_by_meaning_or_by_words() {
    // W119 routes by the catalog texts, not the bodies' words a runtime adds (docs/routing.md,
    // "What is indexed"): the sample without its bodies, where both index the same words.
    let tmp = tempfile::tempdir().unwrap();
    let sample = &tmp.path().join("sample");
    crate::common::copy_dir(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../skills")),
        sample,
    );
    without_bodies(sample);
    let words = tmp.path().join("words");
    crate::common::copy_dir(sample, &words);
    let yaml = words.join("workspace.yaml");
    let mut text = std::fs::read_to_string(&yaml).unwrap();
    text.push_str("\nrouting: { embedding_model: none }\n");
    std::fs::write(&yaml, text).unwrap();
    let by_meaning = example_routes_checked_against_the_runtime(sample);
    let by_words = example_routes_checked_against_the_runtime(&words);
    assert_ne!(
        by_meaning, by_words,
        "meaning changes where some examples go"
    );
    assert!(!by_meaning.is_empty());
    assert_eq!(
        w119_of(sample.to_str().unwrap()),
        warned_of(&by_meaning, sample)
    );
    assert_eq!(
        w119_of(words.to_str().unwrap()),
        warned_of(&by_words, &words)
    );
    // `skillc route`, in an artifact whose skill does not hold the example.
    let [catalog, skill, example, other] = (by_meaning.iter())
        .find(|[c, ..]| c.is_empty())
        .expect("an example of the global catalog that goes elsewhere")
        .clone();
    assert!(catalog.is_empty());
    let left = tmp.path().join("left");
    crate::common::copy_dir(sample, &left);
    let file = (walk_files(&left).into_iter())
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains(&format!("name: {skill}\n"))
        })
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let kept: Vec<&str> = (text.lines())
        .filter(|l| !l.contains(&format!("{example:?}")) && !l.contains(&format!("'{example}'")))
        .collect();
    assert_eq!(
        kept.len() + 1,
        text.lines().count(),
        "{example:?} in {file:?}"
    );
    std::fs::write(&file, kept.join("\n") + "\n").unwrap();
    let db = tmp.path().join("left.db");
    let o = skillc(&["build", left.to_str().unwrap(), "-o", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = skillc(&["route", db.to_str().unwrap(), &example, "--format", "json"]);
    let route: serde_json::Value = serde_json::from_slice(&o.stdout).expect("route's JSON");
    assert_eq!(
        route["candidates"][0]["name"],
        other.as_str(),
        "{example:?}"
    );
}

/// A trigger example in another language is read in English, as a catalog without it reads
/// a visitor's message: W119, the editor's example routes and `eval`'s leave-one-out read it
/// through the glossary, its words not held by the catalog but for the example itself. The
/// fixture's Spanish example of `billing` ("quiero el reembolso del pago del parcel") goes to
/// `billing` by "refund" and "payment"; read as written, "parcel" alone would take it to
/// `shipping`. A misspelt example is read as the words one edit away, as a message is, though
/// its skill holds its words as written. `skillc route` in an artifact without them agrees.
#[test]
fn an_example_in_another_language_is_read_as_a_catalog_without_it_reads_a_message() {
    let spanish = "quiero el reembolso del pago del parcel";
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    crate::common::copy_dir(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/example-routes-elsewhere/workspace"
        )),
        &root,
    );
    // And one misspelt, whose words only the example holds: read as the words one edit away.
    let misspelt = "refnud the parcel";
    let billing = root.join("billing/SKILL.md");
    let text = std::fs::read_to_string(&billing).unwrap();
    assert!(text.contains(spanish));
    let text = text.replace(
        "trigger_examples:\n",
        &format!("trigger_examples:\n  - {misspelt}\n"),
    );
    std::fs::write(&billing, &text).unwrap();
    // The editor's and W119's route of each example, checked against `route_query` with the
    // example left out, as `eval` asks.
    let mut session = skillc::Session::default();
    let report =
        skillc::check_cached(&root, &skillc::CheckOptions::default(), &mut session, &[]).unwrap();
    let skill = (report.workspace.skills.iter())
        .find(|s| s.name == "billing")
        .unwrap();
    let routes = skillc::workspace_check::example_routes(&report, &skill.file, &session);
    for example in [spanish, misspelt] {
        let route = routes.iter().find(|r| r.example == example).unwrap();
        assert_eq!(route.first.as_deref(), Some("billing"), "{example}");
    }
    let o = skillc(&["eval", root.to_str().unwrap(), "--format", "json"]);
    let eval: serde_json::Value = serde_json::from_slice(&o.stdout).expect("eval's JSON");
    let confusions = eval["bundles"][0]["confusions"].as_array().unwrap();
    let misrouted: Vec<&str> = (confusions.iter())
        .filter(|c| c["expected"] == "billing")
        .flat_map(|c| c["examples"].as_array().unwrap())
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(
        misrouted,
        ["Tracking my parcel deliveries", "The parcel is late"]
    );
    // A visitor's message in a catalog that never held the example.
    let kept: Vec<&str> = (text.lines())
        .filter(|l| !l.contains(spanish) && !l.contains(misspelt))
        .collect();
    std::fs::write(&billing, kept.join("\n") + "\n").unwrap();
    let db = tmp.path().join("a.db");
    let o = skillc(&["build", root.to_str().unwrap(), "-o", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for example in [spanish, misspelt] {
        let o = skillc(&["route", db.to_str().unwrap(), example, "--format", "json"]);
        let route: serde_json::Value = serde_json::from_slice(&o.stdout).expect("route's JSON");
        assert_eq!(route["candidates"][0]["name"], "billing", "{route}");
    }
}

/// The SKILL.md files under `folder`.
fn walk_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(folder).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files.extend(walk_files(&p));
        } else if p.file_name().is_some_and(|n| n == "SKILL.md") {
            files.push(p);
        }
    }
    files
}

/// Each card's `card_route.meaning` and, by card id, its `card` and `vector` rows as written.
fn meaning_rows(db: &Path) -> (Vec<Option<Vec<u8>>>, Vec<String>) {
    let c = rusqlite::Connection::open(db).unwrap();
    let mixed = (c
        .prepare("SELECT meaning FROM card_route ORDER BY card")
        .unwrap())
    .query_map([], |r| r.get::<_, Option<Vec<u8>>>(0))
    .unwrap()
    .map(Result::unwrap)
    .collect();
    let kept = (c
        .prepare("SELECT json_array(id, name, description, vectors) FROM card UNION ALL SELECT json_array(id, hex(data)) FROM vector")
        .unwrap())
    .query_map([], |r| r.get::<_, String>(0))
    .unwrap()
    .map(Result::unwrap)
    .collect();
    (mixed, kept)
}

#[test]
fn a_skills_body_is_in_its_meaning_a_text_of_its_own_that_a_body_edit_changes_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = workspace(dir.path());
    // The built-in meaning: the workspace declares no model.
    std::fs::write(
        root.join("workspace.yaml"),
        "name: dense\nlocales: [en]\ntiers: [{ name: standard }]\n",
    )
    .unwrap();
    let billing = root.join("public/main/billing/SKILL.md");
    let text = std::fs::read_to_string(&billing).unwrap();
    let body =
        |words: &str| text.replace("Body.\n", &format!("{words}\n```\ncode is left out\n```\n"));
    std::fs::write(&billing, body("Refunds, chargebacks and VAT receipts.")).unwrap();
    let build = |name: &str| -> PathBuf {
        let out = dir.path().join(name);
        let o = skillc(&["build", root.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        out
    };
    let first = build("first.db");
    let (mixed, kept) = meaning_rows(&first);
    // Every card has a body ("Body." for the others): each has its mixed vector, 256 numbers.
    assert_eq!(mixed.len(), 3);
    assert!(mixed
        .iter()
        .all(|m| m.as_ref().is_some_and(|v| v.len() == 256)));
    // A body edit changes that vector, never the card nor the stored vectors (what a session
    // keeps between builds).
    std::fs::write(&billing, body("Subscriptions, seats and annual plans.")).unwrap();
    let second = build("second.db");
    let (mixed_after, kept_after) = meaning_rows(&second);
    assert_eq!(kept, kept_after);
    assert_ne!(mixed, mixed_after);
    assert_eq!(mixed[1..], mixed_after[1..]);
    // The runtimes read it: emptied, the same route scores `billing` otherwise.
    let score = |db: &Path| -> f64 {
        let o = skillc(&[
            "route",
            db.to_str().unwrap(),
            "how do chargebacks work",
            "--format",
            "json",
            "--top",
            "3",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let c = r["candidates"].as_array().unwrap().iter();
        c.filter(|c| c["name"] == "billing")
            .map(|c| c["score"].as_f64().unwrap())
            .sum()
    };
    let emptied = dir.path().join("emptied.db");
    std::fs::copy(&first, &emptied).unwrap();
    let c = rusqlite::Connection::open(&emptied).unwrap();
    c.execute("UPDATE card_route SET meaning = NULL", [])
        .unwrap();
    drop(c);
    assert!(
        score(&first) > score(&emptied),
        "{} {}",
        score(&first),
        score(&emptied)
    );
    // No vector of the body with a model of the workspace's own, or with none.
    for (model, extra) in [("skillc-test-trigrams", Some(embedder(""))), ("none", None)] {
        std::fs::write(
            root.join("workspace.yaml"),
            format!("name: dense\nlocales: [en]\ntiers: [{{ name: standard }}]\nrouting: {{ embedding_model: {model} }}\n"),
        )
        .unwrap();
        let out = dir.path().join(format!("{model}.db"));
        let mut args = vec!["build", root.to_str().unwrap(), "-o", out.to_str().unwrap()];
        if let Some(e) = &extra {
            args.extend(["--embedder", e]);
        }
        let o = skillc(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(meaning_rows(&out).0.iter().all(Option::is_none), "{model}");
    }
}
