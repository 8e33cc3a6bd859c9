//! The runtime on the sample workspace's artifact: the prompt's rules in order, seed 000's rules, the
//! pricing split, the competitors matrix, and readers during an artifact swap.

mod common;

use common::copy_dir;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use skillc::pipeline::{build, BuildOptions};
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

fn client(id: &str) -> BundleRef<'_> {
    BundleRef {
        client: Some(id),
        ..BundleRef::default()
    }
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
fn the_pricing_split_shows_exactly_one_pricing_skill_per_page() {
    let a = artifact();
    let iban = BundleRef {
        client: Some("ibanfirst.com"),
        locale: Some("en-gb"),
        tier: None,
    };
    let pricing = |url: &str| -> Vec<String> {
        catalog_names(&a, &iban, &ctx(&[("page_url", url)]))
            .into_iter()
            .filter(|n| n.starts_with("pricing"))
            .collect()
    };
    assert_eq!(pricing("/en-gb/compare"), ["pricing-uk"]);
    assert_eq!(pricing("https://uk.ibanfirst.com/pricing"), ["pricing-uk"]);
    assert_eq!(pricing("/fr/tarifs"), ["pricing-fr"]);
    assert_eq!(pricing("/en-gbexit"), ["pricing"]);
    assert_eq!(pricing("/de/preise"), ["pricing"]);
    // Fail-closed: without a page URL no regional skill, and not the catch-all either.
    assert!(pricing_without_url(&a, &iban).is_empty());
    // The catch-all is the client's, not the global pricing skill.
    let p = a
        .prompt(&iban, None, &ctx(&[("page_url", "/it")]), &["pricing"])
        .unwrap();
    assert!(p.text.contains("EU pricing page"), "{}", p.text);
}

fn pricing_without_url(a: &Artifact, b: &BundleRef<'_>) -> Vec<String> {
    catalog_names(a, b, &Context::default())
        .into_iter()
        .filter(|n| n.starts_with("pricing"))
        .collect()
}

#[test]
fn the_competitors_matrix_follows_client_flags_and_the_override_wins() {
    let a = artifact();
    let resolved = |b: BundleRef<'_>| {
        let p = a
            .prompt(&b, None, &Context::default(), &["competitors"])
            .unwrap();
        p.skills
            .iter()
            .find(|s| s.name == "competitors")
            .unwrap()
            .resolved
            .clone()
    };
    assert_eq!(resolved(BundleRef::default()), "competitors");
    assert_eq!(resolved(client("example.com")), "competitors");
    assert_eq!(resolved(client("augment.org")), "competitors_aware");
    assert_eq!(resolved(client("hyperline.co")), "competitors_battlecard");
    let fast = BundleRef {
        client: Some("hyperline.co"),
        tier: Some("fast"),
        locale: None,
    };
    assert_eq!(resolved(fast), "competitors_aware");
    let northwind = a
        .prompt(
            &client("northwind.io"),
            None,
            &Context::default(),
            &["competitors"],
        )
        .unwrap();
    assert!(northwind.text.contains("Northwind override"));
    // Catalogs still show the base name, and never the hidden variants.
    let names = catalog_names(&a, &client("hyperline.co"), &Context::default());
    assert!(names.contains(&"competitors".to_string()));
    assert!(!names.iter().any(|n| n.starts_with("competitors_")));
}

#[test]
fn seed_000_ending_rules_hold() {
    let a = artifact();
    let hyper = client("hyperline.co");
    let allowed = ctx(&[("content_gating_availability", "allowed")]);
    // demo_offer beats every ending skill.
    let p = a
        .prompt(
            &hyper,
            None,
            &allowed,
            &["demo_offer", "content_gating", "clean_ending"],
        )
        .unwrap();
    assert!(names(&p).contains(&("demo_offer", "selected")));
    assert!(removed(&p).contains(&("content_gating", "excluded:demo_offer")));
    assert!(removed(&p).contains(&("clean_ending", "excluded:demo_offer")));
    // content_gating removes context_gathering and the clean_ending it brought.
    let p = a
        .prompt(
            &hyper,
            None,
            &allowed,
            &["content_gating", "context_gathering"],
        )
        .unwrap();
    assert!(removed(&p).contains(&("context_gathering", "excluded:content_gating")));
    assert!(removed(&p).contains(&("clean_ending", "excluded:content_gating")));
    // context_gathering alone may bring clean_ending.
    let p = a
        .prompt(&hyper, None, &Context::default(), &["context_gathering"])
        .unwrap();
    assert!(names(&p).contains(&("clean_ending", "dependency:context_gathering")));
    // content_gating is unavailable unless the runtime says it is allowed (fail-closed).
    let p = a
        .prompt(&hyper, None, &Context::default(), &["content_gating"])
        .unwrap();
    assert_eq!(removed(&p), [("content_gating", "condition")]);
    // Toggles: content_gating is off by default, on for hyperline.co.
    let p = a
        .prompt(&BundleRef::default(), None, &allowed, &["content_gating"])
        .unwrap();
    assert_eq!(removed(&p), [("content_gating", "disabled")]);
    // A name the workspace never had is unknown.
    let p = a
        .prompt(&BundleRef::default(), None, &allowed, &["no_such_skill"])
        .unwrap();
    assert_eq!(removed(&p), [("no_such_skill", "unknown")]);
}

#[test]
fn blocks_removes_a_skill_that_priority_would_keep() {
    let a = artifact();
    let p = a
        .prompt(
            &client("augment.org"),
            None,
            &Context::default(),
            &["demo_offer", "b2b_request"],
        )
        .unwrap();
    assert!(removed(&p).contains(&("demo_offer", "blocked:b2b_request")));
    assert!(names(&p).contains(&("b2b_request", "selected")));
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

#[test]
fn always_on_skills_appear_only_when_their_conditions_hold() {
    let a = artifact();
    let g = BundleRef::default();
    let always = |c: &Context| -> Vec<String> {
        a.prompt(&g, None, c, &[])
            .unwrap()
            .skills
            .iter()
            .map(|s| s.name.clone())
            .collect()
    };
    assert_eq!(always(&Context::default()), ["knowledge_retrieval"]);
    assert_eq!(always(&ctx(&[("turn", "0")])), ["knowledge_retrieval"]);
    assert_eq!(
        always(&ctx(&[("turn", "1")])),
        ["conversation_history", "knowledge_retrieval"]
    );
    assert_eq!(
        always(&ctx(&[("company", "Acme"), ("turn", "3")])),
        [
            "conversation_history",
            "knowledge_retrieval",
            "visitor_profile"
        ]
    );
    // A client's per-region always-on skill (seed 000's regulatory_framing-uk).
    let iban = BundleRef {
        client: Some("ibanfirst.com"),
        locale: Some("en-gb"),
        tier: None,
    };
    let uk: Vec<String> = a
        .prompt(
            &iban,
            None,
            &ctx(&[("page_url", "https://uk.ibanfirst.com/x")]),
            &[],
        )
        .unwrap()
        .skills
        .iter()
        .map(|s| s.name.clone())
        .collect();
    assert!(uk.contains(&"regulatory_framing-uk".to_string()));
    let fr = a
        .prompt(&iban, None, &ctx(&[("page_url", "/fr/x")]), &[])
        .unwrap();
    assert!(!fr.skills.iter().any(|s| s.name == "regulatory_framing-uk"));
    // An always-on client skill: augment.org's book_a_call.
    let aug = a
        .prompt(&client("augment.org"), None, &Context::default(), &[])
        .unwrap();
    assert!(names(&aug).contains(&("book_a_call", "always_on")));
}

#[test]
fn augments_work_both_ways_for_visible_augmenters_and_one_way_for_hidden_ones() {
    let a = artifact();
    let aug = client("augment.org");
    let p = a
        .prompt(&aug, None, &Context::default(), &["pricing"])
        .unwrap();
    assert!(names(&p).contains(&("product_knowledge", "augments:pricing")));
    let p = a
        .prompt(&aug, None, &Context::default(), &["product_knowledge"])
        .unwrap();
    assert!(names(&p).contains(&("pricing", "augments:product_knowledge")));
    let hyper = client("hyperline.co");
    let p = a
        .prompt(
            &hyper,
            None,
            &Context::default(),
            &["client_competitor_posture"],
        )
        .unwrap();
    assert_eq!(removed(&p), [("client_competitor_posture", "hidden")]);
}

#[test]
fn selection_by_catalog_id_caps_and_unknowns_are_reported() {
    let a = artifact();
    let g = BundleRef::default();
    let c = Context::default();
    let catalog = a.catalog(&g, None, &c, Format::Json).unwrap();
    let first = &catalog.skills[0];
    let p = a
        .prompt(
            &g,
            None,
            &c,
            &[
                "SK1",
                "nonexistent",
                "greeting",
                "code-review",
                "triage",
                "url-gen",
            ],
        )
        .unwrap();
    assert!(p
        .skills
        .iter()
        .any(|s| s.name == first.name && s.reason == "selected"));
    assert!(removed(&p).contains(&("nonexistent", "unknown")));
    // max_active_skills: 4 in the sample.
    assert_eq!(
        p.skills.iter().filter(|s| s.reason == "selected").count(),
        4
    );
    assert!(removed(&p).contains(&("url-gen", "max_active")));
}

#[test]
fn imports_and_cited_sources_are_in_the_prompt() {
    let a = artifact();
    let p = a
        .prompt(
            &BundleRef::default(),
            None,
            &Context::default(),
            &["pdf-press"],
        )
        .unwrap();
    assert!(names(&p).contains(&("link-evidence", "import:pdf-press")));
    assert!(names(&p).contains(&("sources-section", "import:pdf-press")));
    let urls: Vec<&str> = p.sources.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(urls.len(), 2, "{urls:?}");
    assert!(p.text.contains("## Sources"));
    for s in &p.sources {
        assert!(
            p.text.contains(&format!("[[S:{}", s.sid))
                || p.text.contains(&format!(",{}]]", s.sid))
                || p.text.contains(&format!("-{}]]", s.sid))
        );
    }
    // A prompt without citations has no sources section.
    let p = a
        .prompt(
            &BundleRef::default(),
            None,
            &Context::default(),
            &["greeting"],
        )
        .unwrap();
    assert!(p.sources.is_empty() && !p.text.contains("## Sources"));
}

#[test]
fn the_xml_catalog_has_the_shape_of_skills_ref_to_prompt() {
    let a = artifact();
    let c = a
        .catalog(
            &BundleRef::default(),
            Some("solver.react.decision"),
            &Context::default(),
            Format::Xml,
        )
        .unwrap();
    assert_eq!(
        c.text,
        "<available_skills>\n<skill>\n<name>\nurl-gen\n</name>\n<description>\nStrict rules for sourcing links and citing them in generated content.\n</description>\n<location>\npublic/documents/url-gen/SKILL.md\n</location>\n</skill>\n</available_skills>"
    );
    let answer = a
        .catalog(
            &BundleRef::default(),
            Some("answer.generator.strong"),
            &Context::default(),
            Format::List,
        )
        .unwrap();
    assert!(!answer.text.contains("pdf-press"));
    assert!(answer.text.contains("- **url-gen**: "));
}

#[test]
fn a_catalog_text_read_alone_is_the_catalog_s_text() {
    let full = artifact();
    let contexts = [
        Context::default(),
        ctx(&[("page_url", "/en-gb/compare")]),
        ctx(&[("page_url", "/fr/tarifs")]),
    ];
    let consumers = [
        None,
        Some("answer.generator.strong"),
        Some("solver.react.decision"),
    ];
    let mut compared = 0;
    for (client, locale, tier) in full.bundle_names() {
        let b = BundleRef {
            client: (!client.is_empty()).then_some(client),
            locale: Some(locale),
            tier: Some(tier),
        };
        for format in [Format::Xml, Format::Markdown, Format::List] {
            for consumer in consumers {
                for c in &contexts {
                    // A fresh artifact each time: the light read, not a loaded bundle.
                    let alone = artifact().catalog_text(&b, consumer, c, format).unwrap();
                    let whole = full.catalog(&b, consumer, c, format).unwrap();
                    assert_eq!(
                        alone, whole.text,
                        "{client} {locale} {tier} {format:?} {consumer:?}"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
    let unknown = artifact().catalog_text(
        &BundleRef::default(),
        Some("nobody"),
        &Context::default(),
        Format::Xml,
    );
    assert!(unknown
        .unwrap_err()
        .to_string()
        .contains("unknown consumer `nobody`"));
}

#[test]
fn requests_for_bundles_that_were_not_built_name_what_exists() {
    let a = artifact();
    let err = a
        .catalog(
            &client("nobody.example"),
            None,
            &Context::default(),
            Format::Xml,
        )
        .unwrap_err();
    assert!(err.is_request_error());
    assert!(
        err.to_string()
            .contains("clients: augment.org, example.com"),
        "{err}"
    );
    let fr = BundleRef {
        client: Some("example.com"),
        locale: Some("fr"),
        tier: None,
    };
    let err = a
        .catalog(&fr, None, &Context::default(), Format::Xml)
        .unwrap_err();
    assert!(err.to_string().contains("its locales: en, en-gb"), "{err}");
    let err = a
        .catalog(
            &BundleRef::default(),
            Some("ghost"),
            &Context::default(),
            Format::Xml,
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("consumers: answer.generator.strong, solver.react.decision"),
        "{err}"
    );
}

#[test]
fn pipelines_follow_transitions_up_to_the_depth_limit() {
    let a = artifact();
    let g = BundleRef::default();
    let t = a.next_skill(&g, "gather-requirements", None, 0).unwrap();
    assert_eq!(t.next.as_deref(), Some("write-spec"));
    let t = a.next_skill(&g, "triage", Some("bug_report"), 1).unwrap();
    assert_eq!(
        (t.next.as_deref(), t.reason.as_str()),
        (Some("bug-handler"), "conditional:bug_report")
    );
    let t = a
        .next_skill(&g, "analyzer", Some("unknown-key"), 0)
        .unwrap();
    assert_eq!(t.next.as_deref(), Some("default-handler"));
    let t = a.next_skill(&g, "gather-requirements", None, 5).unwrap();
    assert_eq!(t.next, None);
}

#[test]
fn mcp_placeholders_resolve_from_runtime_variables_and_requirements_are_checked() {
    let a = artifact();
    let g = BundleRef::default();
    let vars = std::collections::BTreeMap::from([("GITHUB_TOKEN".to_string(), "t0k".to_string())]);
    let mcp = a.mcp(&g, "github-assistant", &vars).unwrap().unwrap();
    assert_eq!(mcp.env["GITHUB_PERSONAL_ACCESS_TOKEN"], "t0k");
    assert_eq!(mcp.startup_timeout, 45);
    let req = a.requirements(&g, "github-assistant").unwrap();
    assert!(req.iter().any(|r| r.kind == "binary" && r.name == "npx"));
    let script = a.asset(&g, "web-scraping", "scripts/scraper.py").unwrap();
    assert!(String::from_utf8(script)
        .unwrap()
        .contains("def render_page"));
}

#[test]
fn a_corrupt_or_foreign_file_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"this is not sqlite at all").unwrap();
    let err = Artifact::open(&junk).err().unwrap();
    assert!(
        err.to_string().contains("not a readable skillc artifact"),
        "{err}"
    );
    let foreign = dir.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t(x)")
        .unwrap();
    let err = Artifact::open(&foreign).err().unwrap();
    assert!(err.to_string().contains("no manifest"), "{err}");
    let old = dir.path().join("old.db");
    std::fs::copy(artifact_path(), &old).unwrap();
    rusqlite::Connection::open(&old)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let err = Artifact::open(&old).err().unwrap();
    assert!(err.to_string().contains("schema version 99"), "{err}");
}

#[test]
fn it_works_on_a_read_only_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro.db");
    std::fs::copy(artifact_path(), &ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let a = Artifact::open(&ro).unwrap();
    assert!(!a
        .catalog(
            &BundleRef::default(),
            None,
            &Context::default(),
            Format::Markdown
        )
        .unwrap()
        .text
        .is_empty());
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
        #![proptest_config(ProptestConfig::with_cases(256))]

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

#[test]
fn a_route_ranks_only_what_the_catalog_shows_for_the_consumer_and_context() {
    let a = artifact();
    let none = Context::default();
    let names = |r: &skillc_runtime::route::Route| -> Vec<String> {
        r.candidates.iter().map(|c| c.name.clone()).collect()
    };
    let message = "turn this into a PDF press release";
    let all = a
        .route(&BundleRef::default(), None, &none, message, None)
        .unwrap();
    assert_eq!(names(&all)[0], "pdf-press", "{all:?}");
    // A consumer that hides a skill never routes to it.
    let strong = a
        .route(
            &BundleRef::default(),
            Some("answer.generator.strong"),
            &none,
            message,
            None,
        )
        .unwrap();
    assert!(
        !names(&strong).contains(&"pdf-press".to_string()),
        "{strong:?}"
    );
    // Run-time conditions: ibanfirst.com's UK pricing only on its UK pages.
    let uk = ctx(&[("page_url", "/en-gb/pricing")]);
    let fr = ctx(&[("page_url", "/fr/tarifs")]);
    let iban = client("ibanfirst.com");
    let on_uk = a
        .route(&iban, None, &uk, "pricing in GBP for UK accounts", None)
        .unwrap();
    let on_fr = a
        .route(&iban, None, &fr, "pricing in GBP for UK accounts", None)
        .unwrap();
    assert!(
        names(&on_uk).contains(&"pricing-uk".to_string()),
        "{on_uk:?}"
    );
    assert!(
        !names(&on_fr).contains(&"pricing-uk".to_string()),
        "{on_fr:?}"
    );
    // Scores in [0, 1], best first, ties by name; hostile messages route to nothing.
    for c in all.candidates.windows(2) {
        assert!(c[0].score > c[1].score || (c[0].score == c[1].score && c[0].name < c[1].name));
    }
    for hostile in [
        "\u{0}\u{1b}[31m",
        &"pricing ".repeat(130_000),
        "価格はいくらですか",
    ] {
        let r = a
            .route(&BundleRef::default(), None, &none, hostile, None)
            .unwrap();
        assert!(r.candidates.iter().all(|c| (0.0..=1.0).contains(&c.score)));
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

#[test]
fn a_route_keeps_only_candidates_at_or_above_min_score() {
    let dir = tempfile::tempdir().unwrap();
    let all = sample_with_routing(dir.path(), "all", "{ min_score: 0.0, top_k: 50 }");
    let cut = sample_with_routing(dir.path(), "cut", "{ min_score: 0.45, top_k: 50 }");
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
            a.route(&BundleRef::default(), None, &none, m, None)
                .unwrap()
                .candidates
                .into_iter()
                .map(|c| (c.name, c.score))
                .collect::<Vec<_>>()
        };
        let (wide, narrow) = (route(&all), route(&cut));
        let expected: Vec<_> = wide.iter().filter(|c| c.1 >= 0.45).cloned().collect();
        assert_eq!(narrow, expected, "{m}: the cut at 0.45 of {wide:?}");
        dropped += wide.len() - narrow.len();
        kept += narrow.len();
    }
    // Both sides of the cut are exercised: some candidates fall under it, some stay.
    assert!(dropped > 0 && kept > 0, "dropped {dropped}, kept {kept}");
}
