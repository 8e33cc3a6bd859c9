//! The sample workspace `skills/` checks clean and its model holds what the seeds describe.

use std::path::Path;

use skillc::model::{Condition, Predicate, Scope, Skill};
use skillc::{CheckOptions, CheckReport};

fn sample() -> CheckReport {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    skillc::check(&root, &CheckOptions::default()).expect("sample workspace is readable")
}

fn skill<'a>(report: &'a CheckReport, scope: &Scope, name: &str) -> &'a Skill {
    report
        .workspace
        .skills
        .iter()
        .find(|s| &s.scope == scope && s.name == name)
        .unwrap_or_else(|| panic!("no skill {name} in {scope:?}"))
}

fn client(id: &str) -> Scope {
    Scope::Client(id.to_string())
}

#[test]
fn sample_workspace_has_no_errors() {
    let report = sample();
    let errors: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == skillc::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(report.workspace.skills.len() >= 45);
}

#[test]
fn strict_profile_rejects_seed_000_underscore_names_with_positions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let report = skillc::check(
        &root,
        &CheckOptions {
            strict_spec: true,
            ..Default::default()
        },
    )
    .unwrap();
    let d = report
        .diagnostics
        .iter()
        .find(|d| d.code == "P201" && d.file == "public/response_ending/demo_offer/SKILL.md")
        .expect("demo_offer is reported");
    assert_eq!(
        (d.severity, d.line, d.column),
        (skillc::Severity::Error, 2, 7)
    );
}

#[test]
fn namespaces_come_from_paths_frontmatter_and_roots() {
    let r = sample();
    assert_eq!(
        skill(&r, &Scope::Global, "link-evidence").namespace,
        "internal"
    );
    assert_eq!(skill(&r, &Scope::Global, "pdf-press").namespace, "public");
    assert_eq!(skill(&r, &Scope::Global, "brand-voice").namespace, "custom");
    assert_eq!(skill(&r, &Scope::Global, "greeting").namespace, "public");
}

#[test]
fn names_default_to_the_folder_and_categories_to_category_folders() {
    let r = sample();
    let greeting = skill(&r, &Scope::Global, "greeting");
    assert_eq!(greeting.frontmatter.name, None);
    assert_eq!(
        skill(&r, &Scope::Global, "demo_offer").category.as_deref(),
        Some("response_ending")
    );
    assert_eq!(
        skill(&r, &client("ibanfirst.com"), "pricing-uk")
            .category
            .as_deref(),
        Some("response_handling")
    );
    assert_eq!(r.workspace.categories["system"].order, 10);
    assert!(r.workspace.categories["system"].hidden_from_llm);
}

#[test]
fn the_regional_pricing_split_is_declarative() {
    let r = sample();
    let uk = skill(&r, &client("ibanfirst.com"), "pricing-uk");
    assert_eq!(
        uk.frontmatter.conditions,
        vec![Condition::StartsWithAny(vec![
            "/en-gb".into(),
            "https://uk.ibanfirst.com".into()
        ])]
    );
    let catch_all = skill(&r, &client("ibanfirst.com"), "pricing");
    assert!(matches!(
        catch_all.frontmatter.conditions[0],
        Condition::DoesNotStartWithAny(_)
    ));
}

#[test]
fn competitors_variants_carry_their_predicates() {
    let r = sample();
    let tier3 = skill(&r, &Scope::Global, "competitors_battlecard");
    assert_eq!(
        tier3.frontmatter.variant_of.as_ref().unwrap().text,
        "competitors"
    );
    assert!(tier3.frontmatter.hidden_from_llm);
    assert_eq!(tier3.frontmatter.when.len(), 3);
    assert!(matches!(&tier3.frontmatter.when[2], Predicate::Tier(t) if t == &["standard", "pro"]));
    assert_eq!(
        r.workspace.clients["hyperline.co"].flags["competitors"]["battlecard_mode"],
        true
    );
}

#[test]
fn seed_001_vars_mcp_and_pipelines_are_parsed() {
    let r = sample();
    let cr = skill(&r, &Scope::Global, "code-review");
    let fm = &cr.frontmatter;
    assert!(fm.vars["GITHUB_TOKEN"].secret && fm.vars["GITHUB_TOKEN"].required);
    assert_eq!(fm.vars["MAX_FILES"].default.as_deref(), Some("20"));
    assert_eq!(fm.mcp.as_ref().unwrap().idle_timeout, 15);
    assert_eq!(fm.mcp.as_ref().unwrap().startup_timeout, 30);
    assert_eq!(fm.next_skill.as_ref().unwrap().text, "review-summary");
    assert_eq!(
        fm.conditional_next_skills["needs_tests"].text,
        "test-generator"
    );
    assert_eq!(fm.requires.binary, vec!["npx"]);
    assert_eq!(cr.vars_json["REVIEW_STYLE"], "strict");
    assert_eq!(
        r.workspace.variables["_global"]["COMPANY_NAME"],
        "Northstar"
    );
}

#[test]
fn seed_002_imports_sources_compact_and_tools_are_parsed() {
    let r = sample();
    let pdf = skill(&r, &Scope::Global, "pdf-press");
    let imports: Vec<&str> = pdf
        .frontmatter
        .imports
        .iter()
        .map(|i| i.text.as_str())
        .collect();
    assert_eq!(
        imports,
        ["internal.link-evidence", "internal.sources-section"]
    );
    assert_eq!(pdf.sources.len(), 2);
    assert_eq!(pdf.sources[0].extra["source_type"], "specification");
    assert!(pdf.compact.is_some());
    assert_eq!(pdf.tool_notes[0].id, "generic_tools.write_pdf");
    assert_eq!(pdf.frontmatter.when_to_use.len(), 2);
}

#[test]
fn seed_003_and_004_assets_and_provider_are_parsed() {
    let r = sample();
    let scraping = skill(&r, &Scope::Global, "web-scraping");
    let assets: Vec<&str> = scraping.assets.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(
        assets,
        [
            "assets/template.json",
            "references/selectors.md",
            "scripts/scraper.py"
        ]
    );
    assert_eq!(scraping.frontmatter.allowed_tools[0], "Bash(curl:*)");
    let mermaid = skill(&r, &Scope::Global, "mermaid-diagram");
    assert_eq!(
        mermaid.frontmatter.text("display_name"),
        Some("Mermaid Diagrams")
    );
    let provider = mermaid.frontmatter.provider.as_ref().unwrap();
    assert_eq!(provider.class.as_deref(), Some("MermaidToolProvider"));
    assert_eq!(provider.dependencies.len(), 1);
    assert_eq!(
        mermaid.frontmatter.tools[0].config.as_ref().unwrap()["timeout"],
        30
    );
}

#[test]
fn localized_files_override_description_and_body() {
    let r = sample();
    let demo = skill(&r, &Scope::Global, "demo_offer");
    let fr = &demo.localized["fr"];
    assert!(fr.description.as_deref().unwrap().starts_with("Proposer"));
    assert_eq!(fr.trigger_examples.as_ref().unwrap().len(), 3);
    assert!(fr.body.contains("Répondez"));
}

#[test]
fn client_toggles_and_composition_fields_are_parsed() {
    let r = sample();
    let example = &r.workspace.clients["example.com"];
    assert!(!example.toggles["demo_offer"].enabled);
    assert!(example.toggles["content_gating"].enabled);
    let b2b = skill(&r, &client("augment.org"), "b2b_request");
    assert_eq!(b2b.frontmatter.blocks[0].text, "demo_offer");
    let gating = skill(&r, &Scope::Global, "content_gating");
    assert_eq!(gating.frontmatter.plain["priority"], 2);
    assert_eq!(gating.frontmatter.plain["exclusive"], true);
    assert_eq!(gating.frontmatter.default_enabled, Some(false));
}
