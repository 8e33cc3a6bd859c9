//! Running cases against an artifact, and their outcomes as text, JSON or JUnit XML.

use serde::Serialize;
use skillc_runtime::{Artifact, BundleRef, Context, Format};

use super::{Case, Expect};

/// What running a case found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Outcome {
    /// The case.
    pub case: Case,
    /// Each expectation that did not hold, with what was seen (empty: the case passed).
    pub failures: Vec<String>,
}

impl Outcome {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

pub(super) fn listed(names: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = names.collect();
    if all.is_empty() {
        "nothing".to_string()
    } else {
        all.join(", ")
    }
}

/// Runs one case against a built artifact.
pub fn run(artifact: &Artifact, case: &Case) -> Outcome {
    let mut failures = Vec::new();
    if let Err(e) = run_into(artifact, case, &mut failures) {
        failures.push(format!("the request failed: {e}"));
    }
    Outcome {
        case: case.clone(),
        failures,
    }
}

pub(super) fn run_into(
    artifact: &Artifact,
    case: &Case,
    failures: &mut Vec<String>,
) -> Result<(), skillc_runtime::Error> {
    let r = &case.request;
    let e = &case.expect;
    let bundle = BundleRef {
        client: r.client.as_deref(),
        locale: r.locale.as_deref(),
        tier: r.tier.as_deref(),
    };
    let ctx = Context::from_pairs(r.context.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(skillc_runtime::Error::Request)?;
    let consumer = r.consumer.as_deref();
    let catalog = artifact.catalog(&bundle, consumer, &ctx, Format::Markdown)?;
    check_catalog(&catalog, e, failures);
    let (text, tokens, what) = if r.select.is_empty() && !e.about_the_prompt() {
        (catalog.text.clone(), u64::from(catalog.tokens), "catalog")
    } else {
        let picked: Vec<&str> = r.select.iter().map(String::as_str).collect();
        let prompt = artifact.prompt(&bundle, consumer, &ctx, &picked)?;
        check_prompt(&prompt, e, failures);
        (prompt.text.clone(), u64::from(prompt.tokens), "prompt")
    };
    if let Some(message) = &r.message {
        let turns = super::turns(&r.history);
        let query = skillc_runtime::route::Query {
            message,
            history: &turns,
            time: Some(0.0),
            ..Default::default()
        };
        let route = artifact.route_query(&bundle, consumer, &ctx, &query)?;
        check_route(&route, e, failures);
    }
    for t in &e.text_contains {
        if !text.contains(t.as_str()) {
            failures.push(format!("expected the {what} to contain {t:?}; it does not"));
        }
    }
    if let Some(max) = e.max_tokens {
        if tokens > max {
            failures.push(format!(
                "expected the {what} within {max} tokens; it has {tokens}"
            ));
        }
    }
    Ok(())
}

/// `routes_to` (within the first `within`), `routes_not_to`.
pub(super) fn check_route(
    route: &skillc_runtime::route::Route,
    e: &Expect,
    failures: &mut Vec<String>,
) {
    let reached = || {
        listed(
            route
                .candidates
                .iter()
                .map(|c| format!("{} ({:.4})", c.name, c.score)),
        )
    };
    let rank = |n: &str| {
        route
            .candidates
            .iter()
            .position(|c| c.name == n || c.qualified_name == n)
    };
    match &e.routes_to {
        Some(names) if names.is_empty() && !route.candidates.is_empty() => failures.push(format!(
            "expected the message to reach no skill; it reaches {}",
            reached()
        )),
        Some(names) => {
            for n in names {
                match (rank(n), e.within) {
                    (None, _) => failures.push(format!(
                        "expected the message to reach `{n}`; it reaches {}",
                        reached()
                    )),
                    (Some(at), Some(within)) if at >= within => failures.push(format!(
                        "expected `{n}` within the first {within}; it comes {}: {}",
                        at + 1,
                        reached()
                    )),
                    _ => {}
                }
            }
        }
        None => {}
    }
    for n in &e.routes_not_to {
        if rank(n).is_some() {
            failures.push(format!(
                "expected the message not to reach `{n}`; it reaches {}",
                reached()
            ));
        }
    }
}

/// `catalog_includes` and `catalog_excludes`.
pub(super) fn check_catalog(
    catalog: &skillc_runtime::Catalog,
    e: &Expect,
    failures: &mut Vec<String>,
) {
    let shown = |n: &str| {
        catalog
            .skills
            .iter()
            .any(|s| s.name == n || s.qualified_name == n)
    };
    let names = || listed(catalog.skills.iter().map(|s| s.name.clone()));
    for n in &e.catalog_includes {
        if !shown(n) {
            failures.push(format!(
                "expected `{n}` in the catalog; it shows {}",
                names()
            ));
        }
    }
    for n in &e.catalog_excludes {
        if shown(n) {
            failures.push(format!("expected `{n}` not in the catalog; it is there"));
        }
    }
}

/// `prompt_includes`, `prompt_excludes` and `removed`.
pub(super) fn check_prompt(
    prompt: &skillc_runtime::Prompt,
    e: &Expect,
    failures: &mut Vec<String>,
) {
    let has = |n: &str| prompt.skills.iter().any(|s| s.name == n || s.resolved == n);
    let seen = || {
        listed(prompt.skills.iter().map(|s| {
            if s.name == s.resolved {
                s.name.clone()
            } else {
                format!("{} (as {})", s.name, s.resolved)
            }
        }))
    };
    for n in &e.prompt_includes {
        if !has(n) {
            failures.push(format!("expected `{n}` in the prompt; it has {}", seen()));
        }
    }
    for n in &e.prompt_excludes {
        if has(n) {
            failures.push(format!("expected `{n}` not in the prompt; it is there"));
        }
    }
    for (n, why) in &e.removed {
        match prompt.removed.iter().find(|x| &x.name == n) {
            Some(x) if x.reason.starts_with(why.as_str()) => {}
            Some(x) => failures.push(format!(
                "expected `{n}` removed as `{why}…`; it was removed as `{}`",
                x.reason
            )),
            None => failures.push(format!(
                "expected `{n}` removed as `{why}…`; it was not removed (removed: {})",
                listed(
                    prompt
                        .removed
                        .iter()
                        .map(|x| format!("{} ({})", x.name, x.reason))
                )
            )),
        }
    }
}

/// The outcomes as text: a line per case, each failure under its case, then the counts.
pub fn render_text(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let verdict = if o.passed() { "ok  " } else { "FAIL" };
        out.push_str(&format!(
            "{verdict} {}:{}: {}\n",
            o.case.file, o.case.line, o.case.name
        ));
        for f in &o.failures {
            out.push_str(&format!("       {f}\n"));
        }
    }
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    out.push_str(&format!(
        "{} cases: {} passed, {failed} failed\n",
        outcomes.len(),
        outcomes.len() - failed
    ));
    out
}

/// The outcomes as JSON: `{"passed", "failed", "cases": [{"file", "line", "name", "passed",
/// "failures"}]}`.
pub fn render_json(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    let cases: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| {
            serde_json::json!({
                "file": o.case.file,
                "line": o.case.line,
                "name": o.case.name,
                "passed": o.passed(),
                "failures": o.failures,
            })
        })
        .collect();
    let v = serde_json::json!({
        "passed": outcomes.len() - failed,
        "failed": failed,
        "cases": cases,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

pub(super) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The outcomes as JUnit XML, which CI systems show per test: one suite, a test case per case
/// (its file as the class), a `<failure>` holding each expectation that did not hold.
pub fn render_junit(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites tests=\"{}\" failures=\"{failed}\">\n  <testsuite name=\"skillc\" tests=\"{}\" failures=\"{failed}\">\n",
        outcomes.len(),
        outcomes.len()
    ));
    for o in outcomes {
        let head = format!(
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\"",
            xml_escape(&o.case.file),
            xml_escape(&o.case.name),
            xml_escape(&o.case.file),
            o.case.line
        );
        if o.passed() {
            out.push_str(&format!("{head}/>\n"));
        } else {
            out.push_str(&format!(
                "{head}>\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                xml_escape(&o.failures[0]),
                xml_escape(&o.failures.join("\n"))
            ));
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
