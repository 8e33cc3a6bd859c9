//! The runtime on artifacts the compiler builds for the occasion: rules the sample does not
//! exercise, routing settings, readers during an artifact swap, and the committed sample artifact
//! the runtime crate's own tests (`compiler/runtime/tests/sample.rs`) read.

use crate::common;

use crate::common::copy_dir;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use skillc::{build, BuildOptions};
use skillc_runtime::{Artifact, BundleRef, Context, Format};

/// The sample's artifact, built once for all tests of this binary.
fn artifact_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("skillc-runtime-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("sample.db");
        let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
        let report = build(&ws, &out, &BuildOptions::default()).unwrap();
        assert!(report.stats.is_some(), "{:?}", report.diagnostics);
        out
    })
}

fn artifact() -> Artifact {
    Artifact::open(artifact_path()).unwrap()
}

fn ctx(pairs: &[(&str, &str)]) -> Context {
    Context::from_pairs(pairs.iter().copied()).unwrap()
}

fn names(p: &skillc_runtime::Prompt) -> Vec<(&str, &str)> {
    p.skills
        .iter()
        .map(|s| (s.name.as_str(), s.reason.as_str()))
        .collect()
}

fn removed(p: &skillc_runtime::Prompt) -> Vec<(&str, &str)> {
    p.removed
        .iter()
        .map(|s| (s.name.as_str(), s.reason.as_str()))
        .collect()
}

fn catalog_names(a: &Artifact, b: &BundleRef<'_>, c: &Context) -> Vec<String> {
    a.catalog(b, None, c, Format::Json)
        .unwrap()
        .skills
        .iter()
        .map(|s| s.name.clone())
        .collect()
}

#[test]
fn blocks_apply_last_even_over_always_on_skills() {
    // `blocks` is the final pass. The sample has no always-on skill that a selected
    // skill blocks, so an order with always-on skills added after `blocks` passed everything.
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    common::write(
        &ws,
        "greeting/SKILL.md",
        "---\nname: greeting\ndescription: Greets the visitor.\nalways_on: true\n---\nSay hello.\n",
    );
    common::write(
        &ws,
        "handoff/SKILL.md",
        "---\nname: handoff\ndescription: Hands over to a human.\nblocks: [greeting]\n---\nHand over.\n",
    );
    let out = tmp.path().join("out.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let a = Artifact::open(&out).unwrap();
    let g = BundleRef::default();
    let p = a.prompt(&g, None, &Context::default(), &[]).unwrap();
    assert_eq!(names(&p), [("greeting", "always_on")]);
    let p = a
        .prompt(&g, None, &Context::default(), &["handoff"])
        .unwrap();
    assert_eq!(names(&p), [("handoff", "selected")]);
    assert_eq!(removed(&p), [("greeting", "blocked:handoff")]);
}

/// The sample with one description changed, built into `dir/other.db`: an artifact whose list
/// catalog differs from the sample's.
fn other_artifact(dir: &Path) -> PathBuf {
    let ws = dir.join("ws");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills"),
        &ws,
    );
    let greeting = ws.join("public/assistant/greeting/SKILL.md");
    let text = std::fs::read_to_string(&greeting).unwrap();
    std::fs::write(
        &greeting,
        text.replace("Handle greetings", "Answer greetings"),
    )
    .unwrap();
    let other = dir.join("other.db");
    build(&ws, &other, &BuildOptions::default()).unwrap();
    other
}

/// A bundle's list catalog, the text the swap tests tell artifacts apart by.
fn list_of(a: &Artifact) -> String {
    a.catalog(
        &BundleRef::default(),
        None,
        &Context::default(),
        Format::List,
    )
    .expect("an answer")
    .text
    .clone()
}

#[test]
fn readers_during_an_artifact_swap_see_the_old_or_the_new_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.db");
    // Two different artifacts: the sample, and the sample with one description changed.
    let other = other_artifact(dir.path());
    std::fs::copy(artifact_path(), &live).unwrap();
    let old_text = list_of(&Artifact::open(&live).unwrap());
    let new_text = list_of(&Artifact::open(&other).unwrap());
    assert_ne!(old_text, new_text);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let readers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let mut seen = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) || seen < 20 {
                        let a = Artifact::open(&live).expect("open never fails mid-swap");
                        let text = list_of(&a);
                        assert!(text == old_text || text == new_text, "torn read");
                        seen += 1;
                    }
                    seen
                })
            })
            .collect();
        for i in 0..40 {
            let src = if i % 2 == 0 { &other } else { artifact_path() };
            let tmp = dir.path().join(".live.tmp");
            std::fs::copy(src, &tmp).unwrap();
            std::fs::rename(&tmp, &live).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() >= 20);
        }
    });
}

#[test]
fn a_live_artifact_serves_the_artifact_swapped_in_by_rename_from_the_next_call() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.db");
    let other = other_artifact(dir.path());
    std::fs::copy(artifact_path(), &live).unwrap();
    let old_text = list_of(&Artifact::open(&live).unwrap());
    let new_text = list_of(&Artifact::open(&other).unwrap());
    let shared = skillc_runtime::LiveArtifact::open(&live).unwrap();
    assert_eq!(list_of(&shared.current()), old_text);
    let swap = |src: &Path| {
        let tmp = dir.path().join(".live.tmp");
        std::fs::copy(src, &tmp).unwrap();
        std::fs::rename(&tmp, &live).unwrap();
    };
    swap(&other);
    assert_eq!(
        list_of(&shared.current()),
        new_text,
        "the next call sees the swap"
    );
    // A file that is not an artifact leaves the previous one in service, and says why.
    std::fs::write(dir.path().join(".live.tmp"), "not sqlite").unwrap();
    std::fs::rename(dir.path().join(".live.tmp"), &live).unwrap();
    assert_eq!(list_of(&shared.current()), new_text);
    assert!(shared.refused().is_some());
    // Readers sharing one live artifact during swaps: the old or the new text, never torn, and
    // the last swap is what they end on.
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let readers: Vec<_> = (0..6)
            .map(|_| {
                s.spawn(|| {
                    let mut seen = (0, 0);
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) || seen.0 + seen.1 < 20 {
                        let text = list_of(&shared.current());
                        assert!(text == old_text || text == new_text, "torn read");
                        if text == old_text {
                            seen.0 += 1;
                        } else {
                            seen.1 += 1;
                        }
                    }
                    seen
                })
            })
            .collect();
        for i in 0..40 {
            swap(if i % 2 == 0 { artifact_path() } else { &other });
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let seen: Vec<(usize, usize)> = readers.into_iter().map(|r| r.join().unwrap()).collect();
        assert!(
            seen.iter().any(|s| s.0 > 0) && seen.iter().any(|s| s.1 > 0),
            "{seen:?}"
        );
    });
    assert_eq!(list_of(&shared.current()), new_text);
    assert!(shared.refused().is_none());
}

// ---- Selection invariants -----------------------------------------------------------------

mod selection_props {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;

    use super::{artifact, ctx};
    use skillc_runtime::{BundleRef, Format};

    const CLIENTS: &[Option<&str>] = &[
        None,
        Some("hyperline.co"),
        Some("ibanfirst.com"),
        Some("augment.org"),
    ];
    const URLS: &[&str] = &[
        "",
        "/en-gb/pricing",
        "/pricing",
        "/docs/x",
        "https://other.example/",
    ];

    /// Every skill's `blocks`, by selectable name, per client (client skills override).
    fn blocks(client: Option<&str>) -> BTreeMap<String, Vec<String>> {
        let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
        let report = skillc::check(&ws, &skillc::CheckOptions::default()).unwrap();
        let mut out = BTreeMap::new();
        for global in [true, false] {
            for s in &report.workspace.skills {
                let mine = match &s.scope {
                    skillc::model::Scope::Global => global,
                    skillc::model::Scope::Client(c) => !global && Some(c.as_str()) == client,
                };
                if mine {
                    let b = s
                        .frontmatter
                        .blocks
                        .iter()
                        .map(|r| r.text.clone())
                        .collect();
                    out.insert(s.name.clone(), b);
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(crate::common::proptest_config(256))]

        #[test]
        fn every_request_is_answered_once_and_the_caps_and_blocks_hold(
            client in 0..CLIENTS.len(),
            picks in prop::collection::vec(0usize..64, 0..8),
            unknown in prop::option::of("[a-z]{3,8}"),
            url in 0..URLS.len(),
            turn in 0u32..4,
        ) {
            let a = artifact();
            let bundle = BundleRef { client: CLIENTS[client], ..BundleRef::default() };
            let turn = turn.to_string();
            let mut pairs = vec![("turn", turn.as_str())];
            if !URLS[url].is_empty() {
                pairs.push(("page_url", URLS[url]));
            }
            let c = ctx(&pairs);
            let catalog = a.catalog(&bundle, None, &c, Format::Json).unwrap();
            let names: Vec<String> = catalog.skills.iter().map(|s| s.name.clone()).collect();
            let mut requested: Vec<String> = Vec::new();
            for p in picks {
                let n = names[p % names.len()].clone();
                if !requested.contains(&n) {
                    requested.push(n);
                }
            }
            if let Some(u) = unknown.filter(|u| !names.contains(u)) {
                requested.push(u);
            }
            let picked: Vec<&str> = requested.iter().map(String::as_str).collect();
            let p = a.prompt(&bundle, None, &c, &picked).unwrap();
            let included: Vec<&str> = p.skills.iter().map(|s| s.name.as_str()).collect();
            let out: Vec<&str> = p.removed.iter().map(|s| s.name.as_str()).collect();
            // Every requested name comes back exactly once, in or out.
            for r in &requested {
                let times = included.iter().chain(&out).filter(|n| **n == r.as_str()).count();
                prop_assert_eq!(times, 1, "{} in {:?} / {:?}", r, included, out);
            }
            // Nothing is in twice, and nothing is both in and out.
            let unique: BTreeSet<&str> = included.iter().copied().collect();
            prop_assert_eq!(unique.len(), included.len());
            prop_assert!(included.iter().all(|n| !out.contains(n)), "{:?} / {:?}", included, out);
            // The cap holds for the selector's picks.
            let selected = p.skills.iter().filter(|s| s.reason == "selected").count();
            prop_assert!(selected <= 4, "{} selected", selected);
            // `blocks` wins over everything.
            let blocks = blocks(CLIENTS[client]);
            for n in &included {
                for b in blocks.get(*n).into_iter().flatten() {
                    prop_assert!(!included.contains(&b.as_str()), "{} blocks {} but both are in", n, b);
                }
            }
            // Reasons are of the documented kinds.
            let kinds = ["selected", "dependency:", "augments:", "import:", "always_on"];
            for s in &p.skills {
                prop_assert!(kinds.iter().any(|k| s.reason == *k || (k.ends_with(':') && s.reason.starts_with(k))), "{}", s.reason);
            }
            let gone = ["blocked:", "excluded:", "condition", "hidden", "disabled", "unknown", "max_active", "unavailable"];
            for r in &p.removed {
                prop_assert!(gone.iter().any(|k| r.reason == *k || (k.ends_with(':') && r.reason.starts_with(k))), "{}", r.reason);
            }
        }
    }
}

#[test]
fn catalogs_follow_category_order_not_entry_order() {
    // Entries are numbered by name; the catalog lists categories by `order`, so `zulu`'s
    // skill comes first although its entry comes last.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let write = |rel: &str, text: &str| {
        let path = ws.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("workspace.yaml", "name: order\n");
    for (category, order, skill) in [("alpha", 2, "a-skill"), ("zulu", 1, "z-skill")] {
        write(
            &format!("public/{category}/CATEGORY.md"),
            &format!("---\ndisplay_name: {category}\norder: {order}\n---\n"),
        );
        write(
            &format!("public/{category}/{skill}/SKILL.md"),
            &format!("---\nname: {skill}\ndescription: Does {skill} things.\n---\nBody.\n"),
        );
    }
    let out = dir.path().join("order.db");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    assert!(report.stats.is_some(), "{:?}", report.diagnostics);
    let b = BundleRef::default();
    let names = catalog_names(&Artifact::open(&out).unwrap(), &b, &Context::default());
    assert_eq!(names, ["z-skill", "a-skill"]);
    let text = Artifact::open(&out)
        .unwrap()
        .catalog_text(&b, None, &Context::default(), Format::List)
        .unwrap();
    let (z, a) = (text.find("z-skill").unwrap(), text.find("a-skill").unwrap());
    assert!(z < a, "{text}");
}

#[test]
fn every_runtime_reads_the_schema_version_the_compiler_writes() {
    // The Python, TypeScript and Java readers each carry the version as a constant of their
    // own; a format change that forgets one would let it misread new artifacts.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (file, prefix) in [
        (
            "compiler/runtime/python/skillc_runtime/__init__.py",
            "SCHEMA_VERSION = ",
        ),
        (
            "compiler/runtime/typescript/src/artifact.ts",
            "export const SCHEMA_VERSION = ",
        ),
        (
            "compiler/runtime/java/src/main/java/dev/skillc/runtime/Artifact.java",
            "public static final int SCHEMA_VERSION = ",
        ),
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let value = text
            .lines()
            .find_map(|l| l.trim().strip_prefix(prefix))
            .unwrap_or_else(|| panic!("{file} has no `{prefix}`"));
        let value: i64 = value.trim_end_matches(';').trim().parse().unwrap();
        assert_eq!(value, skillc_runtime::SCHEMA_VERSION, "{file}");
    }
}

/// The sample built with `routing:` settings appended to its workspace.yaml.
fn sample_with_routing(dir: &Path, name: &str, routing: &str) -> Artifact {
    let ws = dir.join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills"),
        &ws,
    );
    let yaml = ws.join("workspace.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, format!("{text}\nrouting: {routing}\n")).unwrap();
    let out = dir.join(format!("{name}.db"));
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    assert!(report.stats.is_some(), "{:?}", report.diagnostics);
    Artifact::open(&out).unwrap()
}

/// A skill's body counts: a word only its prose says finds it (at half a trigger example's
/// weight, once: alone it stays under the default `min_score`, so the route is uncut here), a
/// word only its fenced code says does not, and the body's words are the catalog identity's
/// (a tier's `compact.md` adds none).
#[test]
fn a_route_finds_a_skill_by_a_word_its_body_says_but_not_by_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills"),
        &ws,
    );
    let skill = ws.join("public/documents/pdf-press/SKILL.md");
    let text = std::fs::read_to_string(&skill).unwrap();
    let body = "\nEnd with a colophon.\n\n```sh\nzebrafish --pages\n```\n";
    std::fs::write(&skill, format!("{text}{body}")).unwrap();
    std::fs::write(skill.with_file_name("compact.md"), "Mind the quokka.\n").unwrap();
    let yaml = ws.join("workspace.yaml");
    let config = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        format!("{config}\nrouting: {{ embedding_model: none, min_score: 0.0 }}\n"),
    )
    .unwrap();
    let out = dir.path().join("body.db");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    assert!(report.stats.is_some(), "{:?}", report.diagnostics);
    let a = Artifact::open(&out).unwrap();
    let first = |m: &str| {
        let r = (a.route(&BundleRef::default(), None, &Context::default(), m, None)).unwrap();
        r.candidates.first().map(|c| c.name.clone())
    };
    assert_eq!(first("add a colophon please").as_deref(), Some("pdf-press"));
    assert_eq!(first("zebrafish"), None);
    assert_eq!(first("quokka"), None);
}

#[test]
fn a_route_keeps_only_candidates_at_or_above_min_score() {
    // By words alone (`embedding_model: none`), `min_score` cuts; by words and meaning (the
    // default), `hybrid_min_score` does.
    cut_at("words", "embedding_model: none, min_score", 0.65);
    cut_at("hybrid", "hybrid_min_score", 0.45);
}

/// Routes the sample's messages uncut and cut at `bar` (settings `key`) and checks that the
/// cut keeps exactly the candidates scoring `bar` or more, some falling under it.
fn cut_at(name: &str, key: &str, bar: f64) {
    let dir = tempfile::tempdir().unwrap();
    let all = sample_with_routing(dir.path(), "all", &format!("{{ {key}: 0.0, top_k: 50 }}"));
    let cut = sample_with_routing(dir.path(), "cut", &format!("{{ {key}: {bar}, top_k: 50 }}"));
    let none = Context::default();
    let messages = [
        "turn this into a PDF press release",
        "hello there, how are you today",
        "what does the pricing look like for a small team in the UK",
        "can you compare us with the competitors",
        "summarize this document and cite the sources please",
        "generate a link to the page about fees",
        "I want to write a press release about our new product launch",
        "translate the greeting into french",
    ];
    let (mut dropped, mut kept) = (0, 0);
    for m in messages {
        let route = |a: &Artifact| {
            let r = a
                .route(&BundleRef::default(), None, &none, m, None)
                .unwrap();
            assert_eq!(r.method, if name == "words" { "lexical" } else { "hybrid" });
            (r.candidates.into_iter())
                .map(|c| (c.name, c.score))
                .collect::<Vec<_>>()
        };
        let (wide, narrow) = (route(&all), route(&cut));
        let expected: Vec<_> = wide.iter().filter(|c| c.1 >= bar).cloned().collect();
        assert_eq!(narrow, expected, "{name} {m}: the cut at {bar} of {wide:?}");
        dropped += wide.len() - narrow.len();
        kept += narrow.len();
    }
    // Both sides of the cut are exercised: some candidates fall under it, some stay.
    assert!(
        dropped > 0 && kept > 0,
        "{name}: dropped {dropped}, kept {kept}"
    );
}

/// `skillc route --history FILE --time T` (seed 001's stage 0): a follow-up 10 s after the
/// question joins it, as JSON lines or an array, times in seconds or RFC 3339; 5 minutes later
/// it is routed alone, printed as without `--history`; a history without times is refused with
/// the file and line.
#[test]
fn skillc_route_joins_a_follow_up_to_the_history_it_continues() {
    let dir = tempfile::tempdir().unwrap();
    let route = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skillc"))
            .arg("route")
            .arg(artifact_path())
            .arg("and also for the pro plan")
            .args(args)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let lines = dir.path().join("history.jsonl");
    std::fs::write(
        &lines,
        "{\"text\": \"how much does the basic plan cost?\", \"time\": \"2026-05-01T10:00:00Z\"}\n",
    )
    .unwrap();
    let array = dir.path().join("history.json");
    std::fs::write(
        &array,
        "[{\"text\": \"how much does the basic plan cost?\", \"time\": 1777629600}]",
    )
    .unwrap();
    let joined = "how much does the basic plan cost? and also for the pro plan";
    for file in [&lines, &array] {
        let file = file.to_str().unwrap();
        let (code, out, err) = route(&[
            "--history",
            file,
            "--time",
            "2026-05-01T10:00:10Z",
            "--format",
            "json",
        ]);
        assert_eq!(code, Some(0), "{err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(json["routed_text"], joined, "{out}");
        assert_eq!(json["candidates"][0]["name"], "pricing", "{out}");
    }
    let later = route(&["--history", lines.to_str().unwrap(), "--time", "1777629900"]);
    assert_eq!(later, route(&[]));
    let later = route(&[
        "--history",
        lines.to_str().unwrap(),
        "--time",
        "1777629900",
        "--format",
        "json",
    ]);
    assert!(!later.1.contains("routed_text"), "{}", later.1);
    std::fs::write(
        &lines,
        "{\"text\": \"hello\", \"time\": 1}\n{\"text\": \"how much?\"}\n",
    )
    .unwrap();
    let (code, _, err) = route(&["--history", lines.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("history.jsonl") && err.contains("line 2") && err.contains("`time`"),
        "{err}"
    );
    let (code, _, err) = route(&["--history", array.to_str().unwrap(), "--time", "soon"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--time") && err.contains("RFC 3339"), "{err}");
}

/// docs/routing.md says which words and thresholds stage 0 uses: exactly those of
/// `route::history`, which every runtime reads.
#[test]
fn the_fragment_words_and_thresholds_are_the_ones_docs_routing_md_lists() {
    use skillc_runtime::route::history::*;
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/routing.md"))
            .unwrap();
    let docs = docs.split_whitespace().collect::<Vec<_>>().join(" ");
    for (what, words) in [
        ("Back-references:", BACK_REFERENCES),
        ("Continuation words:", CONTINUATIONS),
        ("Continuation pairs:", CONTINUATION_PAIRS),
        ("Connectors:", CONNECTORS),
    ] {
        let listed: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
        // The full stop: a word added at the end of a list is not listed.
        let line = format!("**{what}** {}.", listed.join(", "));
        assert!(docs.contains(&line), "docs/routing.md does not list {line}");
    }
    let marks: Vec<String> = FINAL_MARKS.iter().map(|c| format!("`{c}`")).collect();
    let closers: Vec<String> = CLOSERS.iter().map(|c| format!("`{c}`")).collect();
    for said in [
        format!("{SHORT_WORDS} words or fewer"),
        format!("at most {WINDOW_SECONDS} s after the previous one"),
        format!("{MAX_CONTEXT} messages at most"),
        "two or more signals hold".to_string(),
        format!("does not end with {}", marks.join(" ")),
        format!("closing {} at its end", closers.join(" ")),
    ] {
        assert!(
            docs.contains(&said),
            "docs/routing.md does not say {said:?}"
        );
    }
    assert_eq!(MIN_SIGNALS, 2, "the docs say two");
}

/// The build writes routing's words and constants into the manifest (`routing_rules`), the
/// runtime's own, which every runtime (this one too) routes the artifact by.
#[test]
fn the_manifest_carries_the_routing_rules_the_runtime_routes_by() {
    use skillc_runtime::route::{
        RoutingRules, LEXICAL_SHARE, MAX_WORDS, SMALL_TALK_SHARE, STOPWORDS, SUFFIXES,
    };
    let a = artifact();
    let written = a
        .manifest("routing_rules")
        .expect("the manifest has `routing_rules`");
    let rules: serde_json::Value = serde_json::from_str(written).unwrap();
    assert_eq!(rules["stopwords"], serde_json::json!(STOPWORDS));
    assert_eq!(rules["suffixes"], serde_json::json!(SUFFIXES));
    assert_eq!(rules["max_words"], MAX_WORDS);
    assert_eq!(rules["lexical_share"], LEXICAL_SHARE);
    assert_eq!(rules["small_talk_share"], SMALL_TALK_SHARE);
    assert_eq!(
        rules["defaults"],
        serde_json::json!({"top_k": 5, "min_score": 0.5, "confident": 0.95})
    );
    assert_eq!(
        rules,
        serde_json::to_value(RoutingRules::built_in()).unwrap()
    );
    // The floor the ports compute from the rules is the runtime's at every catalog size.
    for n in [1usize, 10, 32, 555, 1000] {
        let base = rules["hybrid_floor_base"].as_f64().unwrap();
        let slope = rules["hybrid_floor_slope"].as_f64().unwrap();
        let port = ((base + slope * (n as f64).ln()) * 1e6 + 0.5).floor() / 1e6;
        assert_eq!(port, RoutingRules::built_in().hybrid_floor(n), "{n} skills");
    }
}

/// A copy of the sample's artifact with one SQL statement run on it (`value` as `?1`).
fn edited(name: &str, sql: &str, value: Option<&str>) -> Artifact {
    let dir = artifact_path().parent().unwrap();
    let path = dir.join(name);
    std::fs::copy(artifact_path(), &path).unwrap();
    let db = rusqlite::Connection::open(&path).unwrap();
    match value {
        Some(v) => db.execute(sql, [v]).unwrap(),
        None => db.execute(sql, []).unwrap(),
    };
    drop(db);
    Artifact::open(&path).unwrap()
}

/// An artifact is routed by the rules it carries, not by this crate's constants: one built by
/// another skillc is routed as that skillc built its index (and as the other runtimes route it).
#[test]
fn a_route_follows_the_artifact_s_routing_rules_not_the_runtime_s_constants() {
    let route = |a: &Artifact, m: &str| {
        a.route(&BundleRef::default(), None, &Context::default(), m, None)
            .unwrap()
    };
    let a = artifact();
    let before = route(&a, "greetings and hello");
    assert_eq!(before.candidates[0].matched, ["greet"]);
    let mut rules: serde_json::Value =
        serde_json::from_str(a.manifest("routing_rules").unwrap()).unwrap();
    rules["stopwords"]
        .as_array_mut()
        .unwrap()
        .push("greetings".into());
    rules["defaults"]["top_k"] = 1.into();
    // A bar of the small-talk lean five times as steep: the same message, a higher bar.
    rules["talk_words_share"] = 3.0.into();
    let sql = "UPDATE manifest SET value = ?1 WHERE key = 'routing_rules'";
    let b = edited("rules.db", sql, Some(&rules.to_string()));
    assert_eq!(
        b.routing_rules().unwrap().tokens("greetings there"),
        Vec::<String>::new()
    );
    let after = route(&b, "greetings and hello");
    assert!(
        after.candidates.iter().all(|c| c.matched.is_empty()),
        "{after:?}"
    );
    assert_eq!(b.routing_settings(None).top_k, 1);
    let (lean, steep) = (
        route(&a, "thanks, have a nice day"),
        route(&b, "thanks, have a nice day"),
    );
    assert!(steep.bar > lean.bar, "{} {}", steep.bar, lean.bar);

    // Without rules (built before they were written), a route is refused; catalogs answer.
    let old = edited(
        "old.db",
        "DELETE FROM manifest WHERE key = 'routing_rules'",
        None,
    );
    let none = Context::default();
    assert!(old
        .catalog(&BundleRef::default(), None, &none, Format::Json)
        .is_ok());
    let refused = old
        .route(
            &BundleRef::default(),
            None,
            &Context::default(),
            "hello",
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("no `routing_rules`") && refused.ends_with("build it again"),
        "{refused}"
    );
    // Misspelt words are read by the artifact's `spelling`; one without it reads them as written.
    let acount = |a: &Artifact| {
        route(a, "I cant log in to my acount").candidates[0]
            .matched
            .clone()
    };
    assert_eq!(acount(&a), ["log", "account"]);
    let mut as_written: serde_json::Value =
        serde_json::from_str(a.manifest("routing_rules").unwrap()).unwrap();
    as_written.as_object_mut().unwrap().remove("spelling");
    assert_eq!(
        acount(&edited("as-written.db", sql, Some(&as_written.to_string()))),
        ["log"]
    );
    // Rules a route cannot follow are refused, not half followed.
    for (key, value, says) in [
        (
            "spelling",
            serde_json::json!({"min_letters": 5, "max_letters": 65}),
            "5 to 65 letters",
        ),
        (
            "spelling",
            serde_json::json!({"min_letters": 0, "max_letters": 24}),
            "0 to 24 letters",
        ),
        ("max_words", 65.into(), "weigh 65 words"),
    ] {
        let mut bad = rules.clone();
        bad[key] = value;
        let wide = edited("wide.db", sql, Some(&bad.to_string()));
        let refused = wide.routing_rules().unwrap_err().to_string();
        assert!(refused.contains(says), "{refused}");
    }
}

#[test]
fn the_runtime_crate_s_sample_artifact_is_the_sample_as_built_now() {
    // The runtime crate's own tests read a committed build of the sample (it cannot build one:
    // the compiler depends on it). A change to the sample, the schema or the writer must be
    // carried to that copy, or those tests would check an artifact no one builds any more.
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/tests/data/sample.db");
    let built = std::fs::read(artifact_path()).unwrap();
    if std::env::var_os("SKILLC_BLESS").is_some() {
        std::fs::write(&committed, &built).unwrap();
    }
    assert!(
        std::fs::read(&committed).ok().as_ref() == Some(&built),
        "{} is not the sample as built now: rewrite it with \
         `SKILLC_BLESS=1 cargo test -p skillc-compiler --test integration runtime::the_runtime_crate` and commit it",
        committed.display()
    );
}

/// The build's warnings, deflated in runs, read back whole and in order, and by code.
#[test]
fn the_build_s_warnings_read_back_from_the_artifact_in_order_and_by_code() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let shape = crate::synth::Shape {
        skills: 120,
        clients: 60,
        overrides: 2,
        locales: 1,
        tiers: 1,
        seed: 11,
    };
    crate::synth::generate(&ws, shape).unwrap();
    let out = tmp.path().join("a.db");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    let warnings = &report.diagnostics;
    assert!(warnings.len() > skillc_runtime::schema::DIAGNOSTICS_PER_RUN + 1);
    let a = Artifact::open(&out).unwrap();
    let as_built = |d: &skillc::Diagnostic| {
        let at = (d.file.clone(), d.line as u32, d.column as u32);
        (
            d.severity.as_str().to_string(),
            d.code.to_string(),
            at,
            d.message.clone(),
        )
    };
    let as_read = |d: skillc_runtime::StoredDiagnostic| {
        (d.severity, d.code, (d.file, d.line, d.column), d.message)
    };
    let read: Vec<_> = a
        .diagnostics(None)
        .unwrap()
        .into_iter()
        .map(as_read)
        .collect();
    assert_eq!(read, warnings.iter().map(as_built).collect::<Vec<_>>());
    let w119: Vec<_> = a
        .diagnostics(Some("W119"))
        .unwrap()
        .into_iter()
        .map(as_read)
        .collect();
    let built: Vec<_> = warnings
        .iter()
        .filter(|d| d.code == "W119")
        .map(as_built)
        .collect();
    assert!(!built.is_empty());
    assert_eq!(w119, built);
}
