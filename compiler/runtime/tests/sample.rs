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
fn a_route_keeps_only_the_candidates_at_or_above_min_score() {
    // The sample's routing settings are the defaults: a route by words and the built-in
    // meaning, cut at the bar of a 32-skill catalog. Uncut, the message also reaches
    // `web-scraping` (0.287423): under the cut.
    assert_eq!(skillc_runtime::route::hybrid_floor(32), 0.337041);
    let a = artifact();
    // The settings a route is cut by, as the studio's preview shows them: the catalog's bar.
    let settings = a.routing_settings_of(&BundleRef::default()).unwrap();
    assert_eq!(settings.hybrid_min_score, Some(0.337041));
    assert_eq!(a.routing_settings(None).hybrid_min_score, None);
    let none = Context::default();
    let route = |m: &str| -> Vec<(String, f64)> {
        let r = a
            .route(&BundleRef::default(), None, &none, m, Some(50))
            .unwrap();
        assert_eq!(r.method, "hybrid");
        (r.candidates.into_iter())
            .map(|c| (c.name, c.score))
            .collect()
    };
    assert_eq!(
        route("what does the pricing look like for a small team in the UK"),
        vec![
            ("pricing".to_string(), 0.557175),
            ("feature-planner".to_string(), 0.45372),
            ("demo_offer".to_string(), 0.437799),
        ]
    );
    // Small talk: `greeting` at 0.210718 is the closest, far under the bar.
    assert_eq!(route("hello there, nice weather today"), vec![]);
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
