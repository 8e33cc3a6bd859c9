//! The runtime's own promises on the sample workspace's artifact: the prompt's rules in order,
//! seed 000's rules, the pricing split, the competitors matrix, catalogs, routes and refusals.
//!
//! The artifact is `tests/data/sample.db`, the sample workspace (`skills/`) as the compiler
//! builds it, committed so that this crate's tests (and a mutation run of this crate alone) see
//! a real artifact without building one. The compiler's `tests/runtime.rs` checks that it is the
//! sample as built now (`SKILLC_BLESS=1` rewrites it there).

use std::path::{Path, PathBuf};

use skillc_runtime::{Artifact, BundleRef, Context, Format};

fn artifact_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample.db")
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

/// Every bundle the artifact holds, by its client (none: the global one), locale and tier.
fn every_bundle(a: &Artifact) -> Vec<BundleRef<'_>> {
    (a.bundle_names().into_iter())
        .map(|(client, locale, tier)| BundleRef {
            client: (!client.is_empty()).then_some(client),
            locale: Some(locale),
            tier: Some(tier),
        })
        .collect()
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
    for b in every_bundle(&full) {
        let (client, locale, tier) = (b.client.unwrap_or(""), b.locale.unwrap(), b.tier.unwrap());
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
    // The JSON catalog lists each skill's id, name, description and triggers, read alone too.
    let hyper = client("hyperline.co");
    let none = Context::default();
    let json = full.catalog(&hyper, None, &none, Format::Json).unwrap();
    assert_eq!(json.client.as_deref(), Some("hyperline.co"));
    let lines: serde_json::Value = serde_json::from_str(&json.text).unwrap();
    assert_eq!(lines.as_array().unwrap().len(), json.skills.len());
    assert_eq!(lines[0]["id"], "SK1");
    assert_eq!(lines[0]["name"], json.skills[0].name.as_str());
    assert_eq!(lines[0]["description"], json.skills[0].description.as_str());
    assert_eq!(
        lines[0]["triggers"],
        serde_json::json!(json.skills[0].triggers)
    );
    // Tokens: each card's fragment (json counts the markdown fragments); `<available_skills>`
    // 8 more; a markdown row 4 more, and each category's header.
    let tokens = |f: Format| full.catalog(&hyper, None, &none, f).unwrap().tokens;
    assert_eq!(json.tokens, 782);
    assert_eq!(tokens(Format::List), 630);
    assert_eq!(tokens(Format::Xml), 1690);
    assert_eq!(tokens(Format::Markdown), 1160);
    // Markdown: a category's header, its rows numbered across categories, a blank line.
    let md = full.catalog(&hyper, None, &none, Format::Markdown).unwrap();
    assert!(
        md.text.starts_with("## How to handle the question\n"),
        "{}",
        md.text
    );
    assert!(md
        .text
        .contains("|---|---|---|---|\n| SK1 | competitors | Handle questions"));
    assert!(md
        .text
        .contains("\n| SK3 | support | Route existing customers"));
    assert!(
        md.text.contains("\n\n## How to end your answer\n"),
        "{}",
        md.text
    );
    let alone = artifact().catalog_text(&hyper, None, &none, Format::Json);
    assert_eq!(alone.unwrap(), json.text);
    let global = full
        .catalog(&BundleRef::default(), None, &none, Format::Json)
        .unwrap();
    assert_eq!(global.client, None);
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
fn small_talk_vectors_that_are_not_whole_vectors_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let good = artifact_path();
    let none = Context::default();
    let row = "static-minilm-v1:small-talk";
    let talk: Vec<u8> = rusqlite::Connection::open(&good)
        .unwrap()
        .query_row("SELECT data FROM meaning WHERE name = ?1", [row], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(talk.len() % 256, 0, "whole vectors of 256 numbers");
    for (name, bytes) in [
        ("odd", talk[..talk.len() - 1].to_vec()),
        ("empty", Vec::new()),
    ] {
        let path = dir.path().join(format!("{name}.db"));
        std::fs::copy(&good, &path).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute(
                "UPDATE meaning SET data = ?1 WHERE name = ?2",
                rusqlite::params![bytes, row],
            )
            .unwrap();
        let a = Artifact::open(&path).unwrap();
        let err = (a.route(
            &BundleRef::default(),
            None,
            &none,
            "bye, talk tomorrow",
            None,
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("its small-talk vectors are"), "{name}: {err}");
    }
    // Without the row (an artifact from before it), routes are cut at the catalog's bar alone.
    let path = dir.path().join("without.db");
    std::fs::copy(&good, &path).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("DELETE FROM meaning WHERE name = ?1", [row])
        .unwrap();
    let a = Artifact::open(&path).unwrap();
    let r = (a.route(
        &BundleRef::default(),
        None,
        &none,
        "bye, talk tomorrow",
        None,
    ))
    .unwrap();
    let names: Vec<&str> = r.candidates.iter().map(|c| c.name.as_str()).collect();
    // `demo_offer` reaches the bar; `greeting`, within a tenth under it, holds no word of the
    // message and stays cut.
    assert_eq!(names, ["demo_offer"]);
    assert_eq!(
        r.bar,
        skillc_runtime::route::RoutingRules::built_in().hybrid_floor(32)
    );
    assert_eq!(r.tail, 0.147041);
}

#[test]
fn small_talk_word_weights_that_are_not_16_bit_numbers_are_refused_and_an_artifact_without_them_leans_nowhere(
) {
    let dir = tempfile::tempdir().unwrap();
    let good = artifact_path();
    let none = Context::default();
    let row = "static-minilm-v1:small-talk-words";
    let pairs_row = "static-minilm-v1:small-talk-pairs";
    let message = "sorry, wrong window lol";
    // A copy of the sample with `sql` run on one of its `meaning` rows.
    let with_row = |row: &str, name: &str, sql: &str, bytes: Option<Vec<u8>>| {
        let path = dir.path().join(format!("{name}.db"));
        std::fs::copy(&good, &path).unwrap();
        let c = rusqlite::Connection::open(&path).unwrap();
        match bytes {
            Some(b) => c.execute(sql, rusqlite::params![b, row]).unwrap(),
            None => c.execute(sql, [row]).unwrap(),
        };
        Artifact::open(&path).unwrap()
    };
    let with = |name: &str, sql: &str, bytes: Option<Vec<u8>>| with_row(row, name, sql, bytes);
    let read = |name: &str| -> Vec<u8> {
        rusqlite::Connection::open(&good)
            .unwrap()
            .query_row("SELECT data FROM meaning WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .unwrap()
    };
    let weights = read(row);
    let odd = with(
        "odd",
        "UPDATE meaning SET data = ?1 WHERE name = ?2",
        Some(weights[..weights.len() - 1].to_vec()),
    );
    let err = (odd.route(&BundleRef::default(), None, &none, message, None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not 16-bit numbers"), "{err}");
    // The pairs' row: six bytes a pair (the keys, rising, then the weights).
    let pairs = read(pairs_row);
    assert!(pairs.len() > 6 * 10_000, "{}", pairs.len());
    let mut swapped = pairs.clone();
    // The first two keys swapped.
    swapped[..8].rotate_left(4);
    for (name, bytes, why) in [
        (
            "cut-pairs",
            pairs[..pairs.len() - 1].to_vec(),
            "not pairs of 6",
        ),
        ("swapped-pairs", swapped, "not in rising order"),
    ] {
        let update = "UPDATE meaning SET data = ?1 WHERE name = ?2";
        let bad = with_row(pairs_row, name, update, Some(bytes));
        let err = (bad.route(&BundleRef::default(), None, &none, message, None))
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{name}: {err}");
    }
    // Without the pairs' row (an artifact from before pairs) the lean is the pieces' alone; with
    // it, the message's pairs count too ("wrong window", which neither list holds, weighs 0).
    use skillc_runtime::route::{talk_words, Meaning, TalkWeights};
    let table = Meaning::parse(read("static-minilm-v1")).unwrap();
    let pieces = table.pieces(message);
    let alone = talk_words(
        &TalkWeights::from_bytes(&weights, None).unwrap(),
        &pieces,
        true,
    );
    let both = talk_words(
        &TalkWeights::from_bytes(&weights, Some(&pairs)).unwrap(),
        &pieces,
        true,
    );
    let delete = "DELETE FROM meaning WHERE name = ?1";
    let older = with_row(pairs_row, "pieces-alone", delete, None);
    assert_eq!(older.talk_lean(message).unwrap(), Some(alone));
    assert_eq!(artifact().talk_lean(message).unwrap(), Some(both));
    assert_ne!(both, alone);
    // Without the row (an artifact from before it) the bar rises by nearness alone.
    let without = with("without", "DELETE FROM meaning WHERE name = ?1", None);
    assert_eq!(without.talk_lean(message).unwrap(), None);
    let lower = (without.route(&BundleRef::default(), None, &none, message, None)).unwrap();
    let full = (artifact().route(&BundleRef::default(), None, &none, message, None)).unwrap();
    assert!(lower.bar < full.bar, "{} < {}", lower.bar, full.bar);
}

#[test]
fn a_meaning_table_cut_short_or_lying_about_its_sizes_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let good = artifact_path();
    let table: Vec<u8> = rusqlite::Connection::open(&good)
        .unwrap()
        .query_row("SELECT data FROM meaning", [], |r| r.get(0))
        .unwrap();
    let mut lying = table.clone();
    // The count of rows (after the magic and the vector length) says one more.
    let count = u32::from_le_bytes(lying[20..24].try_into().unwrap());
    lying[20..24].copy_from_slice(&(count + 1).to_le_bytes());
    let mut huge = table.clone();
    huge[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    for (name, bytes) in [
        ("cut", table[..table.len() / 2].to_vec()),
        ("head", table[..30].to_vec()),
        ("lying", lying),
        ("huge", huge),
    ] {
        let path = dir.path().join(format!("{name}.db"));
        std::fs::copy(&good, &path).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute("UPDATE meaning SET data = ?1", [bytes])
            .unwrap();
        let a = Artifact::open(&path).unwrap();
        let err = a.meaning_vector("price list").unwrap_err().to_string();
        assert!(err.contains("its meaning table"), "{name}: {err}");
    }
    // No table at all: no vector, and routes go by words.
    let path = dir.path().join("none.db");
    std::fs::copy(&good, &path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("DROP TABLE meaning").unwrap();
    drop(conn);
    let a = Artifact::open(&path).unwrap();
    assert_eq!(a.meaning_vector("price list").unwrap(), None);
    let route = (a.route(
        &BundleRef::default(),
        None,
        &Context::default(),
        "price list",
        None,
    ))
    .unwrap();
    assert_eq!(route.method, "lexical");
}

#[test]
fn a_card_listing_vectors_by_anything_but_their_ids_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("digests.db");
    std::fs::copy(artifact_path(), &path).unwrap();
    // What an artifact of schema 7 listed: the texts' digests.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE card SET vectors = 'ab12 cd34' WHERE id = 1", [])
        .unwrap();
    let a = Artifact::open(&path).unwrap();
    let err = (a.route(
        &BundleRef::default(),
        None,
        &Context::default(),
        "price list",
        None,
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("card 1 lists vector `ab12`, which is not a vector id"),
        "{err}"
    );
}

#[test]
fn content_digests_are_stored_as_their_32_bytes_and_name_every_body_and_asset() {
    let conn = rusqlite::Connection::open(artifact_path()).unwrap();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let blobs = count("SELECT count(*) FROM blob");
    assert!(blobs > 0);
    let digests = "SELECT count(*) FROM blob WHERE typeof(hash) = 'blob' AND length(hash) = 32";
    assert_eq!(count(digests), blobs);
    let entries = count("SELECT count(*) FROM entry");
    let found = "SELECT count(*) FROM entry e JOIN blob b ON b.hash = e.body";
    assert_eq!(count(found), entries);
    let assets = count("SELECT count(*) FROM asset");
    assert!(assets > 0);
    let found = "SELECT count(*) FROM asset a JOIN blob b ON b.hash = a.blob";
    assert_eq!(count(found), assets);
    // The runtime finds a body by those bytes.
    let a = artifact();
    let bundle = a.bundle(&BundleRef::default()).unwrap();
    for skill in &bundle.skills {
        assert_eq!(skill.body_hash.len(), 32, "{}", skill.name);
        assert!(a.body(skill).is_ok(), "{}", skill.name);
    }
}

#[test]
fn a_cards_summary_with_its_body_of_another_length_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.db");
    std::fs::copy(artifact_path(), &path).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE card_route SET meaning = x'0102' WHERE card = 1", [])
        .unwrap();
    let a = Artifact::open(&path).unwrap();
    let none = Context::default();
    let err = (a.route(&BundleRef::default(), None, &none, "price list", None))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("card 1's meaning holds 2 bytes, not 256"),
        "{err}"
    );
}

#[test]
fn each_card_names_its_vectors_by_id_numbered_in_the_order_cards_first_name_them() {
    let conn = rusqlite::Connection::open(artifact_path()).unwrap();
    let mut st = conn
        .prepare("SELECT vectors FROM card ORDER BY id")
        .unwrap();
    let listed: Vec<String> = (st.query_map([], |r| r.get(0)).unwrap())
        .map(Result::unwrap)
        .collect();
    let mut next = 1;
    for id in listed.iter().flat_map(|v| v.split(' ')) {
        let id: i64 = id.parse().unwrap();
        assert!(id <= next, "vector {id} named before vector {next}");
        next += i64::from(id == next);
    }
    let count: i64 = conn
        .query_row("SELECT count(*) FROM vector", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, next - 1, "every vector named by a card, once each");
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

#[test]
fn a_route_reaches_skills_when_its_first_reaches_the_bar_and_keeps_the_next_a_tenth_under() {
    // The sample's routing settings are the defaults: a route by words and the built-in
    // meaning, cut at the bar of a 32-skill catalog (raised for small talk). The first
    // candidate must reach it; the ones after it are kept down to a tenth under it (0.147041)
    // when they are among the first 20 by words: `code-review` scores just over the bar
    // (0.25753) by its summary with its body mixed in; `competitors` (0.223626) and
    // `write-spec` (0.158337) score under it by their meaning alone, and stay cut.
    assert_eq!(
        skillc_runtime::route::RoutingRules::built_in().hybrid_floor(32),
        0.247041
    );
    let a = artifact();
    // The settings a route is cut by, as the studio's preview shows them: the catalog's bar.
    let settings = a.routing_settings_of(&BundleRef::default()).unwrap();
    assert_eq!(settings.hybrid_min_score, Some(0.247041));
    assert_eq!(a.routing_settings(None).hybrid_min_score, None);
    let none = Context::default();
    let route = |a: &Artifact, m: &str| -> Vec<(String, f64)> {
        let r = a
            .route(&BundleRef::default(), None, &none, m, Some(50))
            .unwrap();
        assert_eq!(r.method, "hybrid");
        (r.candidates.into_iter())
            .map(|c| (c.name, c.score))
            .collect()
    };
    let pricing = "what does the pricing look like for a small team in the UK";
    let cut = vec![
        ("pricing".to_string(), 0.57411),
        ("demo_offer".to_string(), 0.538306),
        ("feature-planner".to_string(), 0.479121),
        ("context_gathering".to_string(), 0.377246),
        ("web-scraping".to_string(), 0.306053),
        ("code-review".to_string(), 0.25753),
    ];
    assert_eq!(route(&a, pricing), cut);
    let uncut = without_cut(pricing);
    assert_eq!(uncut[6], ("competitors".to_string(), 0.223626));
    assert_eq!(uncut[7], ("write-spec".to_string(), 0.158337));
    // `pdf-press` holds "table", a word of this message, and scores within a tenth under the
    // bar: it follows the first.
    let pandas = "plot monthly revenue from this table with pandas";
    let under = ("pdf-press".to_string(), 0.204715);
    let first = ("data-analysis".to_string(), 0.63605);
    assert_eq!(route(&a, pandas), [first.clone(), under.clone()]);
    // Among the first by words only: with one, `data-analysis` alone (it is the first).
    let dir = tempfile::tempdir().unwrap();
    let one = with_rules(dir.path(), "one.db", "json_set(value, '$.tail_words', 1)");
    assert_eq!(route(&one, pandas), std::slice::from_ref(&first));
    // The first by words are those the consumer's catalog shows: with two, `pdf-press` (the
    // first in the global catalog) is hidden from `answer.generator.strong` and leaves its
    // place to `code-generator`.
    let two = with_rules(dir.path(), "two.db", "json_set(value, '$.tail_words', 2)");
    let docx = "convert the docx to pdf and email it to hr";
    let names = |consumer: Option<&str>| -> Vec<String> {
        let r = two.route(&BundleRef::default(), consumer, &none, docx, Some(50));
        (r.unwrap().candidates.into_iter())
            .map(|c| c.name)
            .collect()
    };
    assert_eq!(names(None), ["pdf-press", "greeting"]);
    let strong = Some("answer.generator.strong");
    assert_eq!(names(strong), ["greeting", "code-generator"]);
    // Small talk: `greeting` (its body shares "today") is the closest, under the raised bar.
    assert_eq!(route(&a, "hello there, nice weather today"), vec![]);
    // A question about the assistant (a line of the small-talk list): its first, `support`
    // (which holds "log"), scores within a tenth under its raised bar, which makes no route.
    let data = "is there a log of my questions saved somewhere";
    assert_eq!(route(&a, data), vec![]);
    let r = (a.route(&BundleRef::default(), None, &none, data, Some(50))).unwrap();
    assert_eq!((r.bar, r.tail), (0.562672, 0.462672));
    assert_eq!(without_cut(data)[0], ("support".to_string(), 0.529884));
    // The settings' own cut (`hybrid_min_score`) cuts every candidate as written.
    let written = with_cut(dir.path(), "written.db", 0.247041);
    assert_eq!(route(&written, pandas), std::slice::from_ref(&first));
    // A first candidate that scores the bar exactly reaches it.
    let at = with_cut(dir.path(), "at.db", 0.63605);
    assert_eq!(route(&at, pandas), std::slice::from_ref(&first));
    // An artifact built before the rule (its `routing_rules` without `tail_below`) cuts every
    // candidate at the bar.
    let before = with_rules(
        dir.path(),
        "before.db",
        "json_remove(value, '$.tail_below')",
    );
    assert_eq!(route(&before, pandas), std::slice::from_ref(&first));
    // Nor does one built with `tail_below` and before `tail_words`.
    let between = with_rules(
        dir.path(),
        "between.db",
        "json_remove(value, '$.tail_words')",
    );
    assert_eq!(route(&between, pandas), [first]);
}

/// The candidates after the first are scored whole even when the first search, which seeks
/// what may reach the bar, left their similarity unread: down to 0.15 under the bar,
/// `pdf-press` (by "one") needs a little similarity to reach that, is read by the second search
/// (its bound allows it) and scores 0.12222, not its words' share alone (0.087943).
#[test]
fn a_candidate_far_under_the_bar_is_scored_with_its_similarity() {
    let dir = tempfile::tempdir().unwrap();
    let below = with_rules(
        dir.path(),
        "below.db",
        "json_set(value, '$.tail_below', 0.15)",
    );
    let none = Context::default();
    let m = "run the test suite and tell me which ones fail";
    let r = (below.route(&BundleRef::default(), None, &none, m, Some(50))).unwrap();
    let last = r.candidates.last().unwrap();
    assert_eq!((last.name.as_str(), last.score), ("pdf-press", 0.12222));
    assert_eq!(r.candidates.len(), 13);
}

/// A message's ranking without a cut (the settings' `hybrid_min_score` 0), best first.
fn without_cut(m: &str) -> Vec<(String, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let open = with_cut(dir.path(), "uncut.db", 0.0);
    let r = (open.route(
        &BundleRef::default(),
        None,
        &Context::default(),
        m,
        Some(50),
    ))
    .unwrap();
    (r.candidates.into_iter())
        .map(|c| (c.name, c.score))
        .collect()
}

#[test]
fn a_message_nearer_small_talk_than_any_skill_needs_more_to_reach_one() {
    let a = artifact();
    let none = Context::default();
    let names = |m: &str| -> Vec<String> {
        let r = (a.route(&BundleRef::default(), None, &none, m, None)).unwrap();
        r.candidates.into_iter().map(|c| c.name).collect()
    };
    // At the catalog's bar alone (0.247041), this farewell reaches `demo_offer` (0.378841: it
    // shares "talk" and "tomorrow" with booking a demo; tests/dense.rs sets that bar). It is
    // nearer small talk than any skill, so its bar rises above that.
    assert_eq!(names("bye, talk tomorrow"), Vec::<String>::new());
    // A request as short and as plain is nearer its skill than small talk: its bar stays.
    // (`triage`, whose body speaks of websites, comes second.)
    assert_eq!(names("can you help me scrape a website")[0], "web-scraping");
    use skillc_runtime::route::{
        pair_key, raised_floor, talk_words, RoutingRules, TalkWeights, EDGE,
    };
    // (small talk, nearest, lean, bar) over a catalog bar of 0.3.
    let bars = [
        // The bar rises by two fifths of how much nearer small talk the message is, to 6
        // decimals.
        (0.8, 0.5, None, 0.42),
        (0.5, 0.8, None, 0.3),
        (0.5000004, 0.5, None, 0.3),
        // And by eight tenths of how far its pieces lean to small talk beyond -0.16.
        (0.5, 0.8, Some(-0.16), 0.3),
        (0.5, 0.8, Some(-0.9), 0.3),
        (0.8, 0.5, Some(0.6), 1.028),
        // A lean to requests below -0.16 takes back three tenths of it from the small-talk
        // margin, never under the catalog's bar: 0.3 + 0.12 - 0.3 · 0.24, and
        // 0.3 + max(0, 0.12 - 0.3 · 0.74).
        (0.8, 0.5, Some(-0.4), 0.348),
        (0.8, 0.5, Some(-0.9), 0.3),
    ];
    for (small_talk, nearest, lean, bar) in bars {
        assert_eq!(
            raised_floor(0.3, small_talk, nearest, lean, RoutingRules::built_in()),
            bar,
            "{small_talk} {nearest} {lean:?}"
        );
    }
    // The lean: the mean weight (thousandths) of the distinct pieces; one the table has no
    // weight for weighs 0, and a message without pieces leans nowhere.
    let pieces_alone = TalkWeights {
        pieces: vec![1500, -500, 0, 250],
        pairs: None,
    };
    assert_eq!(talk_words(&pieces_alone, &[0, 1, 0, 1], false), 0.5);
    assert_eq!(talk_words(&pieces_alone, &[3, 9], false), 0.125);
    assert_eq!(talk_words(&pieces_alone, &[], false), 0.0);
    // Without pairs there are no edges' pairs either.
    assert_eq!(talk_words(&pieces_alone, &[0, 1, 0, 1], true), 0.5);
    // With pairs, the distinct pairs of neighbouring pieces count too, in the message's order:
    // [0, 1, 0, 1] holds the pairs 0-1 and 1-0; 0-1 weighs 900, 1-0 nothing.
    let key = |a, b| pair_key(a, b).unwrap();
    let with_pairs = TalkWeights {
        pairs: Some(vec![(key(0, 1), 900), (key(3, 0), -2000)]),
        ..pieces_alone
    };
    assert_eq!(key(3, 0), 3 << 16);
    let lean = |pieces: &[u32]| talk_words(&with_pairs, pieces, false);
    assert_eq!(lean(&[0, 1, 0, 1]), (1000.0 + 900.0) / 4000.0);
    assert_eq!(lean(&[1, 0]), 1000.0 / 3000.0);
    assert_eq!(lean(&[3, 0]), (250.0 + 1500.0 - 2000.0) / 3000.0);
    assert_eq!(lean(&[7]), 0.0);
    assert_eq!(lean(&[]), 0.0);
    assert_eq!(pair_key(1 << 16, 0), None);
    // With the edges (the rules' `talk_words_ends`), how a message opens and ends counts too:
    // the pairs (EDGE, first piece) and (last piece, EDGE), weighed or not, like any pair.
    let with_edges = TalkWeights {
        pairs: Some(vec![
            (key(0, 1), 900),
            (key(1, EDGE), -300),
            (key(3, 0), -2000),
            (key(EDGE, 3), 400),
        ]),
        ..with_pairs.clone()
    };
    let lean = |pieces: &[u32], ends| talk_words(&with_edges, pieces, ends);
    // [3, 0, 1]: pieces 250 + 1500 - 500, pairs -2000 + 900, edges 400 - 300.
    assert_eq!(lean(&[3, 0, 1], true), (1250.0 - 1100.0 + 100.0) / 7000.0);
    assert_eq!(lean(&[3, 0, 1], false), (1250.0 - 1100.0) / 5000.0);
    // One piece opens and ends the message: both its edges' pairs (only the ending weighed).
    assert_eq!(lean(&[1], true), (-500.0 - 300.0) / 3000.0);
    assert_eq!(lean(&[7], true), 0.0);
    assert_eq!(lean(&[], true), 0.0);
    assert_eq!(
        skillc_runtime::route::talk_pairs(&[3, 0, 3, 0], true),
        [key(0, 3), key(0, EDGE), key(3, 0), key(EDGE, 3)]
    );
}

#[test]
fn the_build_writes_each_pieces_lean_to_small_talk_and_a_route_raises_its_bar_by_it() {
    // "sorry, wrong window" leans to small talk by its pieces; "send the weekly report to the
    // team" to a request. The weights are those the build learnt; the routes read them.
    let a = artifact();
    let lean = |text: &str| a.talk_lean(text).unwrap().expect("the built-in meaning");
    let (talk, ask) = (
        "sorry, wrong window lol",
        "send the weekly report to the team",
    );
    assert!(lean(talk) > 0.2, "{}", lean(talk));
    assert!(lean(ask) < -0.4, "{}", lean(ask));
    let bar = |m: &str| {
        let none = Context::default();
        (a.route(&BundleRef::default(), None, &none, m, None))
            .unwrap()
            .bar
    };
    // The catalog's bar, 0.247041, rises by at least eight tenths of the lean beyond -0.16.
    assert!(
        bar(talk) >= 0.247041 + 0.8 * (lean(talk) + 0.16) - 1e-6,
        "{}",
        bar(talk)
    );
}

#[test]
fn a_route_names_its_bundle_numbers_candidates_as_the_catalog_does_and_says_when_it_is_sure() {
    let a = artifact();
    let none = Context::default();
    let hyper = client("hyperline.co");
    let r = a
        .route(
            &hyper,
            None,
            &none,
            "How much does the pro plan cost?",
            None,
        )
        .unwrap();
    assert_eq!(r.client.as_deref(), Some("hyperline.co"));
    let catalog = a.catalog(&hyper, None, &none, Format::Json).unwrap();
    let id_of = |name: &str| {
        let s = catalog.skills.iter().find(|s| s.name == name).unwrap();
        s.id.clone()
    };
    for c in &r.candidates {
        assert_eq!(c.id, id_of(&c.name), "{r:?}");
    }
    // The catalog's first skill, asked for by name, is SK1.
    let global = a
        .catalog(&BundleRef::default(), None, &none, Format::Json)
        .unwrap();
    let first = &global.skills[0];
    let r = a
        .route(&BundleRef::default(), None, &none, &first.name, None)
        .unwrap();
    assert_eq!(r.client, None);
    assert_eq!(
        (r.candidates[0].name.as_str(), r.candidates[0].id.as_str()),
        (first.name.as_str(), "SK1"),
        "{r:?}"
    );
    // Sure exactly when the first candidate scores at or above `confident` (0.95).
    for m in [
        "competitors",
        "can you compare us with the competitors",
        "pdf press release",
    ] {
        let r = a
            .route(&BundleRef::default(), None, &none, m, None)
            .unwrap();
        assert_eq!(r.confident, r.candidates[0].score >= 0.95, "{r:?}");
    }
    // `top` caps the candidates; the text gives one line each.
    let many = "what does the pricing look like for a small team in the UK";
    let all = a
        .route(&BundleRef::default(), None, &none, many, None)
        .unwrap();
    let one = a
        .route(&BundleRef::default(), None, &none, many, Some(1))
        .unwrap();
    assert!(all.candidates.len() > 1, "{all:?}");
    assert_eq!(one.candidates, all.candidates[..1]);
    let c = &one.candidates[0];
    assert_eq!(
        one.text(),
        format!(
            "{:.4} {} {} ({})\n",
            c.score,
            c.id,
            c.name,
            c.matched.join(", ")
        )
    );
    assert_eq!(all.text().lines().count(), all.candidates.len());
}

#[test]
fn a_skill_left_out_says_why_in_words() {
    let a = artifact();
    let p = a
        .prompt(
            &client("augment.org"),
            None,
            &Context::default(),
            &["demo_offer", "b2b_request", "no_such_skill"],
        )
        .unwrap();
    let words = |name: &str| p.removed.iter().find(|r| r.name == name).unwrap().words();
    assert_eq!(words("demo_offer"), "blocked by `b2b_request`");
    assert_eq!(
        words("no_such_skill"),
        "no skill of that name in this bundle"
    );
    let allowed = ctx(&[("content_gating_availability", "allowed")]);
    let p = a
        .prompt(
            &client("hyperline.co"),
            None,
            &allowed,
            &["demo_offer", "content_gating"],
        )
        .unwrap();
    let out = p
        .removed
        .iter()
        .find(|r| r.name == "content_gating")
        .unwrap();
    assert_eq!(
        out.words(),
        "excluded by `demo_offer` (same category, stronger priority)"
    );
}

#[test]
fn a_prompt_counts_the_tokens_of_every_part_it_is_made_of() {
    // The counts the compiler stored for each heading, skill and source, summed as the prompt
    // is assembled (the Python, TypeScript and Java runtimes give the same on every parity
    // request): one skill; two in one category (its uncertainty note too); cited sources.
    let a = artifact();
    let none = Context::default();
    let hyper = client("hyperline.co");
    let tokens =
        |b: &BundleRef<'_>, picks: &[&str]| a.prompt(b, None, &none, picks).unwrap().tokens;
    assert_eq!(tokens(&hyper, &["pricing"]), 122);
    assert_eq!(tokens(&hyper, &["context_gathering", "clean_ending"]), 188);
    assert_eq!(tokens(&hyper, &["competitors", "pricing", "support"]), 323);
    assert_eq!(tokens(&BundleRef::default(), &["pdf-press"]), 332);
    assert_eq!(
        tokens(&BundleRef::default(), &["pdf-press", "pricing"]),
        399
    );
}

#[test]
fn context_values_are_read_by_their_key() {
    let turn = |v: &str| Context::from_pairs([("turn", v)]).err().unwrap_or_default();
    assert_eq!(turn("3"), "");
    assert_eq!(
        turn("99999999999999999999999"),
        "turn `99999999999999999999999` is too large"
    );
    assert_eq!(turn("x"), "turn must be a whole number, not `x`");
    // `<skill>_availability` names a skill; the suffix alone is an ordinary value.
    let c = Context::from_pairs([("pdf_availability", "allowed"), ("_availability", "x")]).unwrap();
    assert_eq!(
        c.availability.get("pdf").map(String::as_str),
        Some("allowed")
    );
    assert_eq!(c.availability.len(), 1, "{c:?}");
    assert_eq!(c.values.get("_availability").map(String::as_str), Some("x"));
}

/// Seed 001's stage 0: a follow-up sent 10 s after a question is routed joined to it and
/// reaches the question's skill; 5 minutes later, or written as a full sentence, it is routed
/// alone, as without history.
#[test]
fn a_follow_up_within_a_minute_routes_joined_to_the_question_it_follows() {
    use skillc_runtime::route::{Query, Turn};
    let a = artifact();
    let none = Context::default();
    let asked = [Turn {
        text: "how much does the basic plan cost?",
        time: 1_000.0,
    }];
    let route = |message: &str, time: f64| {
        let q = Query {
            message,
            history: &asked,
            time: Some(time),
            ..Query::default()
        };
        a.route_query(&BundleRef::default(), None, &none, &q)
            .unwrap()
    };
    let alone = |message: &str| {
        a.route(&BundleRef::default(), None, &none, message, None)
            .unwrap()
    };
    let follow_up = "and also for the pro plan";
    let joined = route(follow_up, 1_010.0);
    assert_eq!(joined.message, follow_up);
    assert_eq!(
        joined.routed_text.as_deref(),
        Some("how much does the basic plan cost? and also for the pro plan")
    );
    assert_eq!(joined.candidates[0].name, "pricing", "{joined:?}");
    let json = serde_json::to_value(&joined).unwrap();
    assert_eq!(json["routed_text"], joined.routed_text.clone().unwrap());
    for (message, time) in [
        (follow_up, 1_300.0),
        ("What does the pro plan cost per month?", 1_010.0),
    ] {
        let r = route(message, time);
        assert_eq!(r.routed_text, None, "{r:?}");
        assert_eq!(r, alone(message));
        // Not joined, the answer has no `routed_text` at all: routes without history print as
        // before.
        let json = serde_json::to_value(&r).unwrap();
        assert!(json.get("routed_text").is_none(), "{json}");
    }
}

#[test]
fn a_route_read_once_is_the_route_of_the_loaded_bundle() {
    use skillc_runtime::route::{Query, Turn};
    let full = artifact();
    let asked = [Turn {
        text: "how much does the basic plan cost?",
        time: 1_000.0,
    }];
    let contexts = [Context::default(), ctx(&[("page_url", "/en-gb/pricing")])];
    let consumers = [None, Some("answer.generator.strong")];
    let messages = [
        "turn this into a PDF press release",
        "pricing in GBP for UK accounts",
        "who are your competitors and how do you compare?",
        "thanks, that's all",
        "価格はいくらですか",
        "and also for the pro plan",
    ];
    let mut compared = 0;
    for b in every_bundle(&full) {
        let (client, locale, tier) = (b.client.unwrap_or(""), b.locale.unwrap(), b.tier.unwrap());
        for consumer in consumers {
            for c in &contexts {
                for message in messages {
                    let q = Query {
                        message,
                        history: &asked,
                        time: Some(1_010.0),
                        ..Query::default()
                    };
                    // A fresh artifact each time: the light read, not a loaded bundle.
                    let once = artifact().route_once(&b, consumer, c, &q).unwrap();
                    let loaded = full.route_query(&b, consumer, c, &q).unwrap();
                    assert_eq!(
                        once, loaded,
                        "{client} {locale} {tier} {consumer:?} {message}"
                    );
                    // Once the bundle is loaded, the loaded bundle answers.
                    assert_eq!(full.route_once(&b, consumer, c, &q).unwrap(), loaded);
                    compared += usize::from(!once.candidates.is_empty());
                }
            }
        }
    }
    assert!(compared > 50, "{compared}");
    // A message of 8,000 words of twelve letters no skill holds, and some it does: more than
    // a route reads as misspelt, it is ranked on the whole index, as a loaded bundle ranks it.
    let mut seed = 11u64;
    let mut letter = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        char::from(b'a' + ((seed >> 33) % 26) as u8)
    };
    let mut long: Vec<String> = (0..8_000)
        .map(|_| (0..12).map(|_| letter()).collect())
        .collect();
    long.push("pricing in GBP for UK accounts".to_string());
    let long = long.join(" ");
    let q = Query {
        message: &long,
        ..Query::default()
    };
    let b = client("hyperline.co");
    let once = artifact().route_once(&b, None, &contexts[0], &q).unwrap();
    assert_eq!(once, full.route_query(&b, None, &contexts[0], &q).unwrap());
    // A query leaving a trigger example out needs the examples: the bundle is read whole. Each
    // skill's first example, asked as it is written, and first into a fresh artifact.
    let hyper = client("hyperline.co");
    let none = Context::default();
    let skills = full.bundle(&hyper).unwrap().skills.clone();
    let mut left_out = 0;
    for (i, skill) in skills.iter().enumerate() {
        let Some(example) = skill.triggers.first() else {
            continue;
        };
        let q = Query {
            message: example,
            leave_out: Some((i, example)),
            ..Query::default()
        };
        let once = artifact().route_once(&hyper, None, &none, &q).unwrap();
        let loaded = full.route_query(&hyper, None, &none, &q).unwrap();
        assert_eq!(once, loaded, "{example}");
        // Its own vector out, an example reaches its skill by less than the whole of it.
        let kept = Query {
            leave_out: None,
            ..q
        };
        let whole = full.route_query(&hyper, None, &none, &kept).unwrap();
        left_out += usize::from(once != whole);
    }
    assert!(left_out > 3, "{left_out}");
    let q = Query {
        message: "who are your competitors and how do you compare?",
        leave_out: Some((0, "who are your competitors and how do you compare?")),
        ..Query::default()
    };
    let err = artifact()
        .route_once(&client("nobody.example"), None, &none, &q)
        .unwrap_err();
    assert!(err.to_string().contains("nobody.example"), "{err}");
}

/// A copy of the sample in `dir` with `sql` run on it (manifest rows, entries changed by hand).
/// The sample's artifact with its routing rules edited by `edit`, a JSON function of `value`
/// (`json_set(value, '$.tail_words', 1)`), as another skillc would write them.
fn with_rules(dir: &Path, name: &str, edit: &str) -> Artifact {
    let sql = format!("UPDATE manifest SET value = {edit} WHERE key = 'routing_rules'");
    changed_sample(dir, name, &sql)
}

/// The sample's artifact with the settings' own hybrid cut (`routing.hybrid_min_score`).
fn with_cut(dir: &Path, name: &str, cut: f64) -> Artifact {
    let routing = format!(r#"{{"hybrid_min_score": {cut}}}"#);
    let sql = format!("INSERT INTO manifest (key, value) VALUES ('routing', '{routing}')");
    changed_sample(dir, name, &sql)
}

fn changed_sample(dir: &Path, name: &str, sql: &str) -> Artifact {
    let path = dir.join(name);
    std::fs::copy(artifact_path(), &path).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
    Artifact::open(&path).unwrap()
}

#[test]
fn the_manifest_and_tables_are_read_as_stored() {
    let a = artifact();
    assert_eq!(a.release(), None);
    assert_eq!(a.catalog_budget("fast"), Some(1500));
    assert_eq!(a.catalog_budget("standard"), None);
    assert_eq!(a.max_active_skills(), Some(4));
    assert_eq!(
        a.consumers(),
        ["answer.generator.strong", "solver.react.decision"]
    );
    assert_eq!(a.bundle_names().len(), 41);
    assert_eq!(a.bundle_names()[9], ("augment.org", "en", "fast"));
    let all = a.diagnostics(None).unwrap();
    assert_eq!(all.len(), 23);
    assert_eq!(all[0].code, "P201");
    assert_eq!((all[0].line, all[0].column), (2, 7));
    assert_eq!(
        all[0].file,
        "clients/augment.org/content_enhancement/b2b_request/SKILL.md"
    );
    let w119 = a.diagnostics(Some("W119")).unwrap();
    assert_eq!(w119.len(), 5);
    assert!(w119
        .iter()
        .all(|d| d.code == "W119" && d.severity == "warning"));
    let source = a.source(3).unwrap();
    assert_eq!(source.url, "https://www.rfc-editor.org/rfc/rfc3986");
    assert!(a.source(5).is_none());
    let g = BundleRef::default();
    assert_eq!(
        a.asset_paths(&g, "web-scraping").unwrap(),
        [
            "assets/template.json",
            "references/selectors.md",
            "scripts/scraper.py"
        ]
    );
    assert!(a.asset_paths(&g, "pricing").unwrap().is_empty());
    // The request is at fault for a skill or bundle not built, never for a file not there.
    assert!(a
        .asset_paths(&g, "no-such-skill")
        .unwrap_err()
        .is_request_error());
    assert!(a
        .asset(&g, "web-scraping", "nope.py")
        .unwrap_err()
        .is_request_error());
    let missing = Artifact::open(artifact_path().with_extension("nope"))
        .err()
        .unwrap();
    assert!(!missing.is_request_error(), "{missing}");
}

#[test]
fn plugins_outside_repositories_and_the_release_come_from_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let a = changed_sample(
        dir.path(),
        "plugins.db",
        r#"INSERT INTO manifest VALUES ('release', 'v1.2');
           INSERT INTO manifest VALUES ('plugins',
             '{"acme":{"version":"2.0","description":"Tools.","author":"Ann"},"bare":{}}');
           INSERT INTO manifest VALUES ('external',
             '{"public/tools":{"git":"https://x.test/t.git","rev":"v1","commit":"abc","trusted":true}}');"#,
    );
    assert_eq!(a.release(), Some("v1.2"));
    let acme = a.plugin_of("acme:deploy").unwrap();
    assert_eq!(acme.name, "acme");
    assert_eq!(acme.version.as_deref(), Some("2.0"));
    assert_eq!(acme.description.as_deref(), Some("Tools."));
    assert_eq!(acme.author.as_deref(), Some("Ann"));
    assert_eq!(a.plugin_of("bare:x").unwrap().version, None);
    assert_eq!(a.plugin_of("deploy"), None);
    assert_eq!(a.plugin_of("other:deploy"), None);
    let e = a.external_of("public/tools/web-scraping/SKILL.md").unwrap();
    assert_eq!(
        (
            e.into.as_str(),
            e.git.as_str(),
            e.rev.as_str(),
            e.commit.as_str(),
            e.trusted
        ),
        ("public/tools", "https://x.test/t.git", "v1", "abc", true)
    );
    assert_eq!(a.external_of("public/toolsmith/SKILL.md"), None);
    assert_eq!(a.external_of("public/documents/pdf-press/SKILL.md"), None);
    // A catalog shows them beside each skill, and its JSON names the release.
    let c = a
        .catalog(
            &BundleRef::default(),
            None,
            &Context::default(),
            Format::Json,
        )
        .unwrap();
    let scraping = c.skills.iter().find(|s| s.name == "web-scraping").unwrap();
    assert_eq!(scraping.external.as_ref(), Some(&e));
    assert_eq!(a.catalog_json(&c)["release"], "v1.2");
}

#[test]
fn formats_and_bundles_are_named_in_words() {
    for (name, format) in [
        ("xml", Format::Xml),
        ("markdown", Format::Markdown),
        ("list", Format::List),
        ("json", Format::Json),
    ] {
        assert_eq!(Format::parse(name), Some(format));
    }
    assert_eq!(Format::parse("html"), None);
    assert_eq!(
        skillc_runtime::bundle_label("", "en", "fast"),
        "the global bundle, locale `en`, tier `fast`"
    );
    assert_eq!(
        skillc_runtime::bundle_label("example.com", "fr", "pro"),
        "client `example.com`, locale `fr`, tier `pro`"
    );
}

fn bundle<'a>(client: &'a str, locale: &'a str, tier: &'a str) -> BundleRef<'a> {
    BundleRef {
        client: (!client.is_empty()).then_some(client),
        locale: Some(locale),
        tier: Some(tier),
    }
}

#[test]
fn explain_says_why_a_skill_is_in_a_bundle_in_the_order_resolution_applies() {
    let a = artifact();
    let why = |b: BundleRef<'_>, consumer: Option<&str>, name: &str| {
        a.explain(&b, consumer, name).unwrap().why
    };
    let global = bundle("", "en", "standard");
    let e = a
        .explain(&global, None, "skills.conversation_history")
        .unwrap();
    assert_eq!(
        e.why,
        [
            "Its own content is used (public/system/conversation_history/SKILL.md).",
            "Enabled: skills are on unless a toggle or `default_enabled: false` turns them off.",
            "Tier standard: the full body.",
            "Not in catalogs: its `hidden_from_llm: true`.",
            "Always on: added to every answer prompt whose conditions hold.",
            "Used only when the turn is at least 1.",
        ]
    );
    assert_eq!(e.name, "conversation_history");
    assert_eq!(
        e.resolved_file.as_deref(),
        Some("public/system/conversation_history/SKILL.md")
    );
    assert_eq!(
        (e.enabled, e.enabled_by, e.in_catalog),
        (true, "default", false)
    );
    assert_eq!(e.hidden_by.as_deref(), Some("hidden_from_llm"));
    assert_eq!(
        (e.locale_used.as_deref(), e.tier.as_str()),
        (Some("en"), "standard")
    );
    assert_eq!(e.conditions, ["the turn is at least 1"]);
    let e = a.explain(&global, None, "pdf-press").unwrap();
    assert_eq!(
        e.imports,
        ["internal.link-evidence", "internal.sources-section"]
    );
    assert!(e.in_catalog && e.hidden_by.is_none() && e.variant.is_none());
    assert_eq!(
        e.why[3..],
        [
            "Shown in the catalog.",
            "Imports internal.link-evidence, internal.sources-section (with what they import).",
        ]
    );
    let e = a.explain(&global, None, "link-evidence").unwrap();
    assert_eq!(e.hidden_by.as_deref(), Some("namespace:internal"));
    assert!(!e.in_catalog);
    assert_eq!(
        e.why[3],
        "Not in catalogs: it is in the internal namespace."
    );
    assert_eq!(
        why(global, None, "context_gathering").last().unwrap(),
        "Brings public.clean_ending along when selected."
    );
    let e = a
        .explain(&bundle("", "fr", "fast"), None, "demo_offer")
        .unwrap();
    assert_eq!(
        (e.enabled_by, e.locale_used.as_deref()),
        ("default_enabled", Some("fr"))
    );
    assert_eq!(
        e.why[1..4],
        [
            "Enabled by its `default_enabled: true`.",
            "Locale fr: the text of SKILL.fr.md is used.",
            "Tier fast: the full body.",
        ]
    );
    let e = a
        .explain(
            &bundle("hyperline.co", "en", "standard"),
            None,
            "competitors",
        )
        .unwrap();
    assert_eq!(e.variant.as_deref(), Some("competitors_battlecard"));
    assert_eq!(
        e.why[0],
        "The variant `competitors_battlecard` (public/response_handling/competitors-battlecard/SKILL.md) \
         is used: flag competitors.names is set and flag competitors.battlecard_mode = true and tier is \
         standard or pro."
    );
    let e = a
        .explain(
            &bundle("example.com", "en-gb", "standard"),
            None,
            "content_gating",
        )
        .unwrap();
    assert_eq!(
        (e.enabled_by, e.locale_used.as_deref()),
        ("toggle", Some("en"))
    );
    assert_eq!(
        e.why[1..3],
        [
            "Enabled by client example.com's toggle (clients/example.com/client.yaml).",
            "Locale en-gb: no SKILL.en-gb.md, so the text of SKILL.md (default locale en) is used.",
        ]
    );
    let augment = bundle("augment.org", "fr", "fast");
    assert_eq!(
        why(augment, None, "b2b_request"),
        [
            "`b2b_request` is client augment.org's own skill \
             (clients/augment.org/content_enhancement/b2b_request/SKILL.md), which takes the place of \
             any global skill of that name.",
            "Enabled: skills are on unless a toggle or `default_enabled: false` turns them off.",
            "Locale fr: no SKILL.fr.md, so the text of SKILL.md (default locale en) is used.",
            "Tier fast: the full body.",
            "Shown in the catalog.",
            "Removes public.demo_offer when selected.",
        ]
    );
    assert_eq!(
        why(augment, None, "product_knowledge").last().unwrap(),
        "Goes with public.pricing (augments)."
    );
    // A consumer's own catalog: shown in it, or hidden by its patterns.
    let strong = Some("answer.generator.strong");
    assert_eq!(
        why(global, strong, "pricing")[3],
        "Shown in consumer answer.generator.strong's catalog."
    );
    let e = a.explain(&global, strong, "pdf-press").unwrap();
    assert_eq!(e.hidden_by.as_deref(), strong);
    assert!(!e.in_catalog);
    assert_eq!(
        e.why[3],
        "Consumer answer.generator.strong's `disabled` patterns hide it from its catalog."
    );
}

#[test]
fn explain_says_why_a_skill_was_left_out_or_names_none() {
    let a = artifact();
    let e = a
        .explain(&bundle("", "en", "standard"), None, " skills.case_studies")
        .unwrap();
    assert_eq!(
        e.why,
        [
            "Left out of the global bundle, locale `en`, tier `standard`: disabled by default \
          (default_enabled: false)."
        ]
    );
    assert_eq!(
        (e.name.as_str(), e.enabled, e.enabled_by),
        ("case_studies", false, "default_enabled")
    );
    assert_eq!((e.resolved_file, e.locale_used), (None, None));
    let e = a
        .explain(
            &bundle("example.com", "en-gb", "standard"),
            None,
            "demo_offer",
        )
        .unwrap();
    assert_eq!((e.enabled, e.enabled_by), (false, "toggle"));
    assert_eq!(e.why.len(), 1, "{:?}", e.why);
    let err = a
        .explain(&bundle("", "en", "standard"), None, "pricing-uk")
        .unwrap_err();
    assert!(err.is_request_error());
    assert_eq!(
        err.to_string(),
        "no skill `pricing-uk` in the global bundle, locale `en`, tier `standard`"
    );
}

/// The sample with what its workspace does not hold: plugins' skills (two of one plain name),
/// an outside repository, an unavailable skill, a hidden category, a compact body, a variant
/// without conditions, a toggle that cannot bring a skill back and a skill left out for its tier.
const BY_HAND: &str = r#"
    UPDATE entry SET name = 'acme:' || name WHERE name IN ('pricing', 'analyzer');
    UPDATE entry SET name = 'beta:analyzer' WHERE name = 'api-caller';
    INSERT INTO manifest VALUES ('plugins',
      '{"acme":{"version":"2.0","description":"Tools.","author":"Ann"},"beta":{}}');
    INSERT INTO manifest VALUES ('external',
      '{"public/tools":{"git":"https://x.test/t.git","rev":"v1","commit":"0123456789abcdef","trusted":false}}');
    UPDATE entry SET unavailable = 'needs `API_KEY`' WHERE name = 'triage';
    UPDATE category SET hidden = 1 WHERE id = 'response_ending';
    UPDATE entry SET record = json_set(record, '$.compact', json('true')) WHERE name = 'support';
    UPDATE entry SET record = json_remove(record, '$.variant_when') WHERE id = 52;
    UPDATE client SET toggles = '{"content_gating":true,"demo_offer":false,"case_studies":true}'
      WHERE id = 'example.com';
    UPDATE reason SET text = 'tier: kept for tier pro' WHERE id = 1;
"#;

/// SQL that rewrites every stored slot of the entries named `name`: `mark` true adds the `1`
/// by which the build says a bundle also finds the entry by its plain name; false takes it off.
fn plain_flag(name: &str, mark: bool) -> String {
    let change = if mark {
        "json_insert(s.value, '$[#]', 1)"
    } else {
        "json_remove(s.value, '$[2]')"
    };
    format!(
        "UPDATE slot_list SET slots = (SELECT json_group_array(json(CASE
           WHEN json_extract(s.value, '$[1]') IN (SELECT id FROM entry WHERE name = '{name}')
           THEN {change} ELSE s.value END)) FROM json_each(slot_list.slots) s);"
    )
}

#[test]
fn a_plain_name_is_found_as_the_build_stored_it_not_decided_again() {
    let dir = tempfile::tempdir().unwrap();
    // Against the rule: `pricing` is the only plugin skill of its plain name but is not marked,
    // and `analyzer`, which two plugins share, is marked for `beta`'s.
    let sql = format!(
        "{BY_HAND}{}{}",
        plain_flag("acme:pricing", false),
        plain_flag("beta:analyzer", true)
    );
    let a = changed_sample(dir.path(), "stored-plain.db", &sql);
    let loaded = a.bundle(&bundle("", "en", "standard")).unwrap();
    assert!(loaded.find("pricing").is_none());
    assert_eq!(loaded.find("analyzer").unwrap().name, "beta:analyzer");
    assert_eq!(loaded.find("acme:pricing").unwrap().name, "acme:pricing");
}

#[test]
fn explain_names_plugins_outside_repositories_and_what_hides_a_skill() {
    let dir = tempfile::tempdir().unwrap();
    // The build would have marked `acme:pricing`'s slots as found by its plain name.
    let sql = format!("{BY_HAND}{}", plain_flag("acme:pricing", true));
    let a = changed_sample(dir.path(), "by-hand.db", &sql);
    let global = bundle("", "en", "standard");
    let why = |b: BundleRef<'_>, name: &str| a.explain(&b, None, name).unwrap().why;
    // A plugin's skill is found by its plain name when it is the only one of that name.
    let e = a.explain(&global, None, "pricing").unwrap();
    assert_eq!(e.name, "acme:pricing");
    assert_eq!(e.plugin.as_ref().map(|p| p.name.as_str()), Some("acme"));
    assert_eq!(
        e.why[1],
        "From the Claude Code plugin `acme` 2.0 by Ann: Tools."
    );
    let err = a.explain(&global, None, "analyzer").unwrap_err();
    assert!(err.is_request_error());
    assert_eq!(
        err.to_string(),
        "`analyzer` is the name of a skill in several plugins of the global bundle, locale `en`, \
         tier `standard`: acme:analyzer, beta:analyzer; name one of them"
    );
    assert_eq!(
        why(global, "beta:analyzer")[1],
        "From the Claude Code plugin `beta`."
    );
    let loaded = a.bundle(&global).unwrap();
    assert_eq!(loaded.find("pricing").unwrap().name, "acme:pricing");
    assert!(loaded.find("analyzer").is_none());
    assert_eq!(loaded.find("acme:analyzer").unwrap().name, "acme:analyzer");
    let e = a.explain(&global, None, "web-scraping").unwrap();
    assert_eq!(
        e.external.as_ref().map(|x| x.commit.as_str()),
        Some("0123456789abcdef")
    );
    assert_eq!(
        e.why[1],
        "Brought in from https://x.test/t.git at v1 (commit 0123456789ab) into public/tools/ by \
         skillc.lock; its code is prompt-only (untrusted)."
    );
    let e = a.explain(&global, None, "triage").unwrap();
    assert_eq!(e.hidden_by.as_deref(), Some("unavailable"));
    assert!(!e.in_catalog);
    assert_eq!(
        e.why[3],
        "Unavailable here: needs `API_KEY`; it is left out of catalogs and prompts."
    );
    assert_eq!(e.why.len(), 4, "{:?}", e.why);
    let e = a.explain(&global, None, "clean_ending").unwrap();
    assert_eq!(e.hidden_by.as_deref(), Some("category:response_ending"));
    assert_eq!(
        e.why[3],
        "Not in catalogs: its category response_ending is hidden from the model."
    );
    assert_eq!(
        why(global, "support")[2],
        "Tier standard: the compact body (compact.md)."
    );
    assert_eq!(
        why(bundle("hyperline.co", "en", "standard"), "competitors")[0],
        "The variant `competitors_battlecard` \
         (public/response_handling/competitors-battlecard/SKILL.md) is used: it has no conditions."
    );
    let e = a
        .explain(
            &bundle("example.com", "en-gb", "standard"),
            None,
            "case_studies",
        )
        .unwrap();
    assert_eq!((e.enabled, e.enabled_by), (true, "toggle"));
    assert_eq!(
        e.why[1],
        "Client example.com's toggle turns it on, but that does not bring it back."
    );
    // Left out for another reason than being disabled: enabled, by default.
    let e = a.explain(&global, None, "case_studies").unwrap();
    assert_eq!((e.enabled, e.enabled_by), (true, "default"));
    assert_eq!(
        e.why,
        ["Left out of the global bundle, locale `en`, tier `standard`: kept for tier pro."]
    );
}

// Signed artifacts: `tests/data/signed/` holds two small artifacts of the same size (`one.db`,
// `two.db`, their releases `one` and `two`), their signatures by key `a.pub`, `one.db`'s by
// key `b.pub` and its signature of minisign's legacy kind (`minisign -S -l`).

fn signed(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/signed")
        .join(name)
}

fn key(name: &str) -> skillc_runtime::signature::PublicKey {
    skillc_runtime::signature::PublicKey::from_file(&signed(name)).unwrap()
}

/// `artifact` at `path`, with `signature` beside it (none for `None`), both by rename.
fn place(path: &Path, artifact: &str, signature: Option<&str>) {
    let sig = skillc_runtime::signature::signature_path(path);
    let temp = path.with_extension("tmp");
    std::fs::copy(signed(artifact), &temp).unwrap();
    std::fs::rename(&temp, path).unwrap();
    match signature {
        Some(s) => {
            std::fs::copy(signed(s), &temp).unwrap();
            std::fs::rename(&temp, &sig).unwrap();
        }
        None => {
            let _ = std::fs::remove_file(&sig);
        }
    }
}

#[test]
fn a_signed_artifact_opens_only_with_the_key_that_signed_those_bytes() {
    use skillc_runtime::signature::{read_small_file, PublicKey};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("art.db");
    let a = key("a.pub");
    // The key line alone is the key of the file of two lines.
    let text = std::fs::read_to_string(signed("a.pub")).unwrap();
    let line = PublicKey::parse(text.lines().nth(1).unwrap()).unwrap();
    assert!(PublicKey::parse("RWQ junk")
        .unwrap_err()
        .contains("not a minisign public key"));
    let refused = |k: &PublicKey| Artifact::open_verified(&path, k).err().unwrap().to_string();
    place(&path, "one.db", Some("one.minisig"));
    assert_eq!(
        Artifact::open_verified(&path, &a).unwrap().release(),
        Some("one")
    );
    assert_eq!(
        Artifact::open_verified(&path, &line).unwrap().release(),
        Some("one")
    );
    assert!(refused(&key("b.pub")).contains("made with another key"));
    place(&path, "one.db", Some("one-legacy.minisig"));
    assert!(refused(&a).contains("legacy kind"));
    place(&path, "two.db", Some("one.minisig"));
    assert!(refused(&a).contains("does not match its contents"));
    place(&path, "one.db", None);
    let why = refused(&a);
    assert!(
        why.starts_with(&format!("`{}` is refused: ", path.display())),
        "{why}"
    );
    assert!(why.contains("has no signature"), "{why}");
    let sig = skillc_runtime::signature::signature_path(&path);
    assert_eq!(sig, dir.path().join("art.db.minisig"));
    std::fs::write(&sig, "untrusted comment: x\nnot a signature\n").unwrap();
    assert!(refused(&a).contains("is not a minisign signature"));
    std::fs::write(&sig, vec![b'x'; 64 * 1024 + 1]).unwrap();
    assert!(refused(&a).contains("larger than 64 KiB"));
    assert!(read_small_file(&sig).is_err());
    std::fs::write(&sig, vec![b'x'; 64 * 1024]).unwrap();
    assert_eq!(read_small_file(&sig).unwrap().len(), 64 * 1024);
    std::fs::write(&sig, [0xff, 0xfe]).unwrap();
    assert!(refused(&a).contains("not UTF-8"));
    std::fs::remove_file(&sig).unwrap();
    std::fs::create_dir(&sig).unwrap();
    assert!(refused(&a).contains("not a regular file"));
    std::fs::remove_dir(&sig).unwrap();
    // An empty file, signed: no artifact a runtime can hold.
    std::fs::write(&path, b"").unwrap();
    std::fs::copy(signed("one.minisig"), &sig).unwrap();
    assert!(refused(&a).contains("its size (0 bytes)"));
    std::fs::remove_file(&path).unwrap();
    let missing = Artifact::open_verified(&path, &a).err().unwrap();
    assert!(
        matches!(missing, skillc_runtime::Error::Missing { .. }),
        "{missing}"
    );
    assert!(PublicKey::from_file(&path)
        .unwrap_err()
        .contains("cannot read the public key"));
    assert!(PublicKey::from_file(&sig)
        .unwrap_err()
        .contains("not a minisign public key"));
}

#[test]
fn a_live_artifact_serves_the_file_now_at_its_path_or_keeps_the_last_it_could_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.db");
    place(&path, "one.db", None);
    let live = skillc_runtime::LiveArtifact::open(&path).unwrap();
    assert_eq!(live.path(), path);
    let release = || live.current().release().map(str::to_string);
    assert_eq!(release().as_deref(), Some("one"));
    place(&path, "two.db", None);
    assert_eq!(release().as_deref(), Some("two"));
    assert_eq!(live.refused(), None);
    // Junk renamed over it is refused, and the last artifact stays in service.
    let junk = dir.path().join("junk");
    std::fs::write(&junk, b"not sqlite").unwrap();
    std::fs::rename(&junk, &path).unwrap();
    assert_eq!(release().as_deref(), Some("two"));
    assert!(live
        .refused()
        .unwrap()
        .contains("not a readable skillc artifact"));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(release().as_deref(), Some("two"));
    place(&path, "one.db", None);
    assert_eq!(release().as_deref(), Some("one"));
    assert_eq!(live.refused(), None);
    // Written in place (the same file, the same size): its time alone tells it changed, to
    // the nanosecond: (T s, 1 ns), then (T + 1 s, 0 ns), then (T + 2 s, 0 ns).
    let t = 1_800_000_000;
    let write = |name: &str, secs: u64, nanos: u32| {
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut &file, &std::fs::read(signed(name)).unwrap()).unwrap();
        let time = std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos);
        file.set_modified(time).unwrap();
    };
    write("one.db", t, 1);
    assert_eq!(release().as_deref(), Some("one"));
    write("two.db", t + 1, 0);
    assert_eq!(release().as_deref(), Some("two"));
    write("one.db", t + 2, 0);
    assert_eq!(release().as_deref(), Some("one"));
    assert!(skillc_runtime::LiveArtifact::open(dir.path().join("none.db")).is_err());
}

#[test]
fn a_live_artifact_with_a_key_serves_only_what_it_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.db");
    place(&path, "one.db", Some("one.minisig"));
    let live = skillc_runtime::LiveArtifact::open_verified(&path, key("a.pub")).unwrap();
    let release = || live.current().release().map(str::to_string);
    assert_eq!(release().as_deref(), Some("one"));
    // The new artifact before its signature: refused, the old one served...
    let temp = dir.path().join("temp");
    std::fs::copy(signed("two.db"), &temp).unwrap();
    std::fs::rename(&temp, &path).unwrap();
    assert_eq!(release().as_deref(), Some("one"));
    assert!(live
        .refused()
        .unwrap()
        .contains("does not match its contents"));
    // ...until its signature arrives: the signature's change alone is seen.
    std::fs::copy(signed("two.minisig"), &temp).unwrap();
    std::fs::rename(&temp, skillc_runtime::signature::signature_path(&path)).unwrap();
    assert_eq!(release().as_deref(), Some("two"));
    assert_eq!(live.refused(), None);
    assert!(skillc_runtime::LiveArtifact::open_verified(&temp, key("a.pub")).is_err());
}

#[test]
fn the_stored_rows_are_handed_over_as_the_writer_laid_them_out() {
    let a = artifact();
    let mut entries = Vec::new();
    a.each_stored_entry(|e| entries.push(e)).unwrap();
    assert_eq!(entries.len(), 61);
    let history = entries.iter().find(|e| e.id == 13).unwrap();
    assert_eq!(history.row.card, 12, "the 0-based index of card 13");
    assert_eq!(history.row.qualified_name, "public.conversation_history");
    assert_eq!(history.row.sort_key, "000000:conversation_history");
    assert_eq!(history.conditions, 1);
    assert_eq!(
        history.location,
        "public/system/conversation_history/SKILL.md"
    );
    let battlecard = entries.iter().find(|e| e.id == 52).unwrap();
    assert_eq!(
        (battlecard.row.card, battlecard.conditions),
        (9, 0),
        "no conditions at all"
    );
    assert_eq!(battlecard.row.resolved_name, "competitors_battlecard");
    let mut fragments = Vec::new();
    a.each_stored_fragment(|f| fragments.push(f)).unwrap();
    assert_eq!(fragments.len(), 150);
    let xml = fragments
        .iter()
        .find(|f| f.card == 1 && f.format == "xml")
        .unwrap();
    assert_eq!(xml.level, "");
    assert!(
        xml.text.starts_with("<skill>\n<name>\nbrand-voice\n"),
        "{}",
        xml.text
    );
    let mut bundles = Vec::new();
    a.each_stored_bundle(|b| bundles.push(b)).unwrap();
    assert_eq!(bundles.len(), 41);
    assert!(bundles.windows(2).all(|w| w[0].id < w[1].id));
    let first = &bundles[0];
    assert_eq!(
        (
            first.client.as_str(),
            first.locale.as_str(),
            first.tier.as_str()
        ),
        ("", "en", "fast")
    );
    assert_eq!((first.base, first.slots.len()), (None, 39));
    assert_eq!(first.slots[0], ("custom.brand-voice".to_string(), Some(1)));
    assert_eq!(first.slots[6], ("public.case_studies".to_string(), None));
    let example = bundles.iter().find(|b| b.id == 16).unwrap();
    assert_eq!(example.base, Some(3));
    assert_eq!(
        example.slots,
        [
            ("public.content_gating".to_string(), Some(48)),
            ("public.demo_offer".to_string(), None)
        ]
    );
}

#[test]
fn a_bundle_cut_to_its_budget_shows_the_cut_texts_and_says_what_was_cut() {
    let dir = tempfile::tempdir().unwrap();
    let a = changed_sample(
        dir.path(),
        "levels.db",
        "UPDATE bundle SET catalog_level = 'chars:40' WHERE id = 1;
         UPDATE bundle SET catalog_level = 'no-triggers' WHERE id = 2;
         INSERT INTO card_fragment_cut VALUES (1, 'chars:40', 'list', '- **brand-voice**: cut\n', NULL, 7);
         INSERT INTO card_fragment_cut VALUES (1, 'no-triggers', 'list', '- **brand-voice**: other\n', NULL, 8);",
    );
    let fast = bundle("", "en", "fast");
    let b = a.bundle(&fast).unwrap();
    assert_eq!(b.catalog_level(), "chars:40");
    assert_eq!(
        b.catalog_cut().as_deref(),
        Some("trigger examples left out and descriptions cut to 40 characters")
    );
    let pro = a.bundle(&bundle("", "en", "pro")).unwrap();
    assert_eq!(
        pro.catalog_cut().as_deref(),
        Some("trigger examples left out")
    );
    let standard = a.bundle(&bundle("", "en", "standard")).unwrap();
    assert_eq!(
        (standard.catalog_level(), standard.catalog_cut()),
        ("", None)
    );
    let none = Context::default();
    let cut = a.catalog(&fast, None, &none, Format::List).unwrap();
    assert!(
        cut.text.contains("\n- **brand-voice**: cut\n- **"),
        "{}",
        cut.text
    );
    let full = a
        .catalog(&bundle("", "en", "standard"), None, &none, Format::List)
        .unwrap();
    assert!(!full.text.contains("brand-voice**: cut"));
    // Its tokens are the cut text's (7), not the full text's.
    let sample = artifact()
        .catalog(&fast, None, &none, Format::List)
        .unwrap();
    assert_eq!(
        cut.tokens + 24,
        sample.tokens + 7,
        "card 1 in full: 24 tokens"
    );
}

#[test]
fn a_skill_left_out_for_another_reason_than_a_toggle_is_unknown_when_picked() {
    let dir = tempfile::tempdir().unwrap();
    let a = artifact();
    let g = BundleRef::default();
    let c = Context::default();
    let p = a.prompt(&g, None, &c, &["case_studies"]).unwrap();
    assert_eq!(removed(&p), [("case_studies", "disabled")]);
    // Left out for its tier: not a skill this bundle could have turned on.
    let tier = changed_sample(
        dir.path(),
        "tier.db",
        "UPDATE reason SET text = 'tier: not in this tier' WHERE id = 1",
    );
    let p = tier.prompt(&g, None, &c, &["case_studies"]).unwrap();
    assert_eq!(removed(&p), [("case_studies", "unknown")]);
}

#[test]
fn exclusivity_removes_only_weaker_skills_of_an_exclusive_one_s_category() {
    let dir = tempfile::tempdir().unwrap();
    let g = BundleRef::default();
    let c = Context::default();
    // Two skills of one category with priorities, neither exclusive: both stay.
    let p = artifact()
        .prompt(&g, None, &c, &["content_recommendation", "clean_ending"])
        .unwrap();
    let kept = names(&p);
    assert!(
        kept.contains(&("content_recommendation", "selected")),
        "{kept:?}"
    );
    assert!(kept.contains(&("clean_ending", "selected")), "{kept:?}");
    // An exclusive skill keeps one of equal priority: only weaker ones go.
    let equal = changed_sample(
        dir.path(),
        "equal.db",
        "UPDATE entry SET record = json_set(record, '$.priority', 1) \
         WHERE name = 'content_recommendation'",
    );
    let p = equal
        .prompt(&g, None, &c, &["demo_offer", "content_recommendation"])
        .unwrap();
    let kept = names(&p);
    assert!(kept.contains(&("demo_offer", "selected")), "{kept:?}");
    assert!(
        kept.contains(&("content_recommendation", "selected")),
        "{kept:?}"
    );
    assert!(removed(&p).is_empty(), "{:?}", removed(&p));
    // A weaker skill of another category stays.
    let other = changed_sample(
        dir.path(),
        "other.db",
        "UPDATE entry SET record = json_set(record, '$.priority', 3) WHERE name = 'pricing'",
    );
    let p = other
        .prompt(&g, None, &c, &["demo_offer", "pricing"])
        .unwrap();
    assert!(
        names(&p).contains(&("pricing", "selected")),
        "{:?}",
        removed(&p)
    );
}

#[test]
fn a_dependency_that_cannot_be_used_is_left_out_once_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let g = BundleRef::default();
    let c = Context::default();
    // context_gathering depends on clean_ending, made unavailable here.
    let a = changed_sample(
        dir.path(),
        "unavailable.db",
        "UPDATE entry SET unavailable = 'a tool it needs is missing' WHERE name = 'clean_ending'",
    );
    let p = a.prompt(&g, None, &c, &["context_gathering"]).unwrap();
    assert!(names(&p).contains(&("context_gathering", "selected")));
    let out: Vec<_> = removed(&p)
        .into_iter()
        .filter(|(n, _)| *n == "clean_ending")
        .collect();
    assert_eq!(out.len(), 1, "{:?}", removed(&p));
    assert_ne!(out[0].1, "", "with its reason");
    // Picked itself as well: still said once, not again as a dependency.
    let p = a
        .prompt(&g, None, &c, &["clean_ending", "context_gathering"])
        .unwrap();
    let out: Vec<_> = removed(&p)
        .into_iter()
        .filter(|(n, _)| *n == "clean_ending")
        .collect();
    assert_eq!(out.len(), 1, "{:?}", removed(&p));
}

#[test]
fn a_next_skill_that_is_unavailable_in_the_bundle_ends_the_pipeline_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let a = changed_sample(
        dir.path(),
        "next.db",
        "UPDATE entry SET unavailable = 'a tool it needs is missing' WHERE name = 'write-spec'",
    );
    let t = a
        .next_skill(&BundleRef::default(), "gather-requirements", None, 0)
        .unwrap();
    assert_eq!(t.next, None);
    assert_eq!(
        t.reason,
        "`public.write-spec` is not available in this bundle"
    );
}

#[test]
fn a_hybrid_leave_one_out_skips_exactly_the_example_routed() {
    let dir = tempfile::tempdir().unwrap();
    let a = artifact();
    let g = BundleRef::default();
    let b = a.bundle(&g).unwrap();
    let i = b.position("pricing").unwrap();
    let (card, example) = (
        b.skills[i].card,
        b.skills[i].triggers.last().unwrap().clone(),
    );
    assert!(b.skills[i].triggers.len() > 1);
    let vector = a.meaning_vector(&example).unwrap().unwrap();
    let score = |a: &Artifact| {
        let q = skillc_runtime::route::Query {
            message: &example,
            vector: Some(&vector),
            leave_out: Some((i, &example)),
            top: Some(50),
            ..Default::default()
        };
        let route = a.route_query(&g, None, &Context::default(), &q).unwrap();
        assert_eq!(route.method, "hybrid");
        (route.candidates.iter())
            .find(|c| c.name == "pricing")
            .map(|c| c.score)
    };
    // The same card without that example's vector (the last it lists): what leaving the
    // example out must give.
    let listed: String = rusqlite::Connection::open(artifact_path())
        .unwrap()
        .query_row("SELECT vectors FROM card WHERE id = ?1", [card], |r| {
            r.get(0)
        })
        .unwrap();
    let kept = listed.rsplit_once(' ').unwrap().0;
    let without = changed_sample(
        dir.path(),
        "without.db",
        &format!("UPDATE card SET vectors = '{kept}' WHERE id = {card}"),
    );
    assert_eq!(score(&a), score(&without));
}

/// A request in another language is read through the artifact's glossary (docs/routing.md,
/// "Words of other languages"): its words the glossary holds read in English, a word the
/// catalog's own index holds kept as the catalog's.
#[test]
fn a_request_in_another_language_is_read_through_the_artifacts_glossary() {
    let a = artifact();
    let none = Context::default();
    let route = |locale: &str, message: &str| {
        let bundle = BundleRef {
            locale: Some(locale),
            ..BundleRef::default()
        };
        (a.route(&bundle, None, &none, message, None)).unwrap()
    };
    let spanish = route("en", "necesito las facturas del mes pasado");
    let first = &spanish.candidates[0];
    assert_eq!(
        (first.name.as_str(), &first.matched[..]),
        ("support", &["invoic".to_string()][..])
    );
    assert_eq!(spanish.message, "necesito las facturas del mes pasado");
    // `quels` ("which": a stopword's gloss) is read and left out in English; the French
    // bundle's index holds it, so there it stays the catalog's own word.
    let matched = |r: &skillc_runtime::route::Route| -> Vec<String> {
        (r.candidates.iter())
            .flat_map(|c| c.matched.clone())
            .collect()
    };
    let question = "quels sont vos tarifs ?";
    assert!(!matched(&route("en", question)).contains(&"quel".to_string()));
    assert!(matched(&route("fr", question)).contains(&"quel".to_string()));
    // A word English skills use as their own is not in the glossary: `schemas` (Portuguese
    // "diagrams") stays as written and no longer reaches the diagram skill.
    let schemas = route("en", "validate these json schemas");
    assert!(schemas
        .candidates
        .iter()
        .all(|c| c.name != "mermaid-diagram"));
    assert_eq!(
        route("en", "json diagrams").candidates[0].name,
        "mermaid-diagram"
    );
}

/// A bundle unloaded is let go (its skills, index and catalogs), and loads again as it was; the
/// other bundles stay loaded.
#[test]
fn an_unloaded_bundle_is_read_again_on_its_next_request() {
    let a = artifact();
    let (global, other) = (BundleRef::default(), client("augment.org"));
    let c = Context::default();
    let (bundle, kept) = (a.bundle(&global).unwrap(), a.bundle(&other).unwrap());
    let catalog = a.catalog(&global, None, &c, Format::Json).unwrap();
    let ask = |a: &Artifact| (a.route(&global, None, &c, "How much does it cost?", None)).unwrap();
    let route = ask(&a);
    assert!(std::sync::Arc::ptr_eq(&bundle, &a.bundle(&global).unwrap()));
    a.unload(&global).unwrap();
    let again = a.bundle(&global).unwrap();
    assert!(!std::sync::Arc::ptr_eq(&bundle, &again), "still loaded");
    let catalog_again = a.catalog(&global, None, &c, Format::Json).unwrap();
    assert!(
        !std::sync::Arc::ptr_eq(&catalog, &catalog_again),
        "catalog still kept"
    );
    assert_eq!(catalog.text, catalog_again.text);
    assert_eq!(route, ask(&a));
    assert!(std::sync::Arc::ptr_eq(&kept, &a.bundle(&other).unwrap()));
    assert!(a.unload(&client("nobody.example")).is_err());
}

/// An artifact keeps at most `max_bundles` bundles, letting go of the least recently asked for
/// (and its catalogs) first; what it lets go of loads again as it was.
#[test]
fn an_artifact_keeps_the_most_recently_used_bundles_up_to_its_limit() {
    let a = artifact();
    assert_eq!(a.max_bundles(), skillc_runtime::DEFAULT_MAX_BUNDLES);
    let c = Context::default();
    let (one, two, three) = (
        client("augment.org"),
        client("example.com"),
        client("hyperline.co"),
    );
    a.set_max_bundles(2);
    let first = a.bundle(&one).unwrap();
    let catalog = a.catalog(&one, None, &c, Format::Json).unwrap();
    let second = a.bundle(&two).unwrap();
    // `one` asked for again: `two` is now the least recently used.
    assert!(std::sync::Arc::ptr_eq(&first, &a.bundle(&one).unwrap()));
    a.bundle(&three).unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&first, &a.bundle(&one).unwrap()),
        "kept"
    );
    assert!(
        std::sync::Arc::ptr_eq(&catalog, &a.catalog(&one, None, &c, Format::Json).unwrap()),
        "its catalog kept"
    );
    let second_again = a.bundle(&two).unwrap();
    assert!(!std::sync::Arc::ptr_eq(&second, &second_again), "let go");
    assert_eq!(second.skills.len(), second_again.skills.len());
    // Now `three` went; lowering the limit lets go of `one` too, and its catalog.
    a.set_max_bundles(1);
    assert!(std::sync::Arc::ptr_eq(
        &second_again,
        &a.bundle(&two).unwrap()
    ));
    let catalog_again = a.catalog(&one, None, &c, Format::Json).unwrap();
    assert!(
        !std::sync::Arc::ptr_eq(&catalog, &catalog_again),
        "catalog let go"
    );
    assert_eq!(catalog.text, catalog_again.text);
    // None kept: every request loads its bundle, and answers the same.
    a.set_max_bundles(0);
    let route = |a: &Artifact| {
        a.route(&one, None, &c, "How much does it cost?", None)
            .unwrap()
    };
    assert_eq!(route(&a), route(&a));
    assert!(!std::sync::Arc::ptr_eq(
        &a.bundle(&one).unwrap(),
        &a.bundle(&one).unwrap()
    ));
}

/// Two neighbouring words of a message that the index holds as one word count as that word too:
/// "web hooks" finds the bot whose description says "webhook", "on boarding" the demo's
/// onboarding.
#[test]
fn neighbouring_words_written_together_match_the_word_they_make() {
    let a = artifact();
    let none = Context::default();
    let first = |m: &str| {
        let r = (a.route(&BundleRef::default(), None, &none, m, None)).unwrap();
        let c = r.candidates.into_iter().next().expect("a candidate");
        (c.name, c.matched)
    };
    assert_eq!(
        first("how do I set up web hooks"),
        ("telegram-bot".to_string(), vec!["webhook".to_string()])
    );
    assert_eq!(
        first("help with on boarding"),
        ("demo_offer".to_string(), vec!["onboard".to_string()])
    );
}

/// A kept bundle is served as loaded, without reading the file again: a change written into the
/// file since (here by another connection) shows only once the bundle is let go and loaded again.
#[test]
fn a_kept_bundle_is_not_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.db");
    std::fs::copy(artifact_path(), &path).unwrap();
    let a = Artifact::open(&path).unwrap();
    let global = BundleRef::default();
    let first_name = |a: &Artifact| a.bundle(&global).unwrap().skills[0].name.clone();
    let name = first_name(&a);
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer
        .execute("UPDATE entry SET name = 'renamed-' || name", [])
        .unwrap();
    assert_eq!(first_name(&a), name, "kept as loaded");
    a.set_max_bundles(0);
    assert_eq!(first_name(&a), format!("renamed-{name}"), "read again");
}

/// A live artifact gives its bound to the artifact it serves and to each one renamed in after.
#[test]
fn a_live_artifact_carries_its_bundle_bound_to_each_artifact_it_serves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.db");
    place(&path, "one.db", None);
    let live = skillc_runtime::LiveArtifact::open(&path).unwrap();
    assert_eq!(
        live.current().max_bundles(),
        skillc_runtime::DEFAULT_MAX_BUNDLES
    );
    live.set_max_bundles(3);
    assert_eq!(live.current().max_bundles(), 3);
    place(&path, "two.db", None);
    assert_eq!(live.current().release(), Some("two"));
    assert_eq!(live.current().max_bundles(), 3);
}

#[test]
fn a_misspelt_request_is_routed_by_the_meaning_of_the_words_its_route_reads() {
    let none = Context::default();
    let route = |a: &Artifact, m: &str| {
        let r = (a.route(&BundleRef::default(), None, &none, m, None)).unwrap();
        (r.candidates.into_iter())
            .map(|c| (c.name, c.score, c.matched))
            .collect::<Vec<_>>()
    };
    let a = artifact();
    let typed = "can you reveiw my pull requets";
    // "reveiw" and "requets", which the table splits into pieces near nothing, are read as
    // the route's words read them: the same route as the request spelt right.
    let right = route(&a, "can you review my pull request");
    assert_eq!(route(&a, typed), right);
    assert_eq!(right[0].0, "review-summary");
    // An artifact built before the rule (its `routing_rules` without `meaning_spelling`) makes
    // the vector of what the message says: the words read are the same, the scores lower.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    std::fs::copy(artifact_path(), &path).unwrap();
    let c = rusqlite::Connection::open(&path).unwrap();
    let sql = "UPDATE manifest SET value = json_remove(value, '$.meaning_spelling') \
               WHERE key = 'routing_rules'";
    assert_eq!(c.execute(sql, []).unwrap(), 1);
    let before = route(&Artifact::open(&path).unwrap(), typed);
    assert_eq!(before[0].2, right[0].2);
    assert!(before[0].1 < right[0].1, "{before:?} {right:?}");
}
