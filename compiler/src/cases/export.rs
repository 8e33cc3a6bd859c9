//! `skillc export-cases`: a workspace's routing cases written in another tool's eval-set
//! format, one skill at a time (both formats hold one skill's messages), the formats
//! [`super::evalsets`] reads back.

use serde::Serialize;

use super::evalsets::EVALS_FILE;
use super::Case;

/// The formats cases are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseFormat {
    /// Agent Skills `evals/evals.json`: each message that must reach the skill, as an eval
    /// whose expectation is that the skill is used.
    AgentSkills,
    /// skill-creator's trigger eval set (`run_eval.py --eval-set`):
    /// `[{"query", "should_trigger"}]`.
    SkillCreator,
}

impl CaseFormat {
    /// Where the file goes in a skill's folder, for `skillc` (and the tool) to find it.
    pub fn file_in_skill(self) -> String {
        match self {
            CaseFormat::AgentSkills => format!("evals/{EVALS_FILE}"),
            CaseFormat::SkillCreator => "evals/trigger-eval.json".to_string(),
        }
    }
}

/// An export: the file's text, and the cases about the skill it could not carry, each with
/// why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The file, JSON.
    pub text: String,
    /// Cases written.
    pub written: usize,
    /// `(case name, why)` of the cases about the skill left out.
    pub left_out: Vec<(String, String)>,
}

/// The skills the routing cases of `cases` are about (reach or must not reach), sorted.
pub fn skills_of(cases: &[Case]) -> Vec<String> {
    let mut names: Vec<String> = cases
        .iter()
        .filter(|c| c.request.message.is_some())
        .flat_map(|c| {
            let to = c.expect.routes_to.iter().flatten();
            to.chain(&c.expect.routes_not_to).cloned()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// What the formats cannot say about a case: the bundle, consumer, context, history or rank
/// it asks for, or expectations beyond routing (`None`: nothing, it goes whole).
fn not_portable(c: &Case) -> Option<&'static str> {
    let r = &c.request;
    let e = &c.expect;
    if r.client.is_some() || r.locale.is_some() || r.tier.is_some() || r.consumer.is_some() {
        Some("it names a client, locale, tier or consumer")
    } else if !r.context.is_empty() || !r.history.is_empty() || !r.select.is_empty() {
        Some("it has a context, a history or a selection")
    } else if e.within.is_some() {
        Some("it asks for a rank (`within`)")
    } else if e.about_the_prompt()
        || !(e.catalog_includes.is_empty() && e.catalog_excludes.is_empty())
        || !e.text_contains.is_empty()
        || e.max_tokens.is_some()
    {
        Some("it expects more than where the message routes")
    } else {
        None
    }
}

/// Whether a case's message must reach `skill` (`Some(true)`), must not (`Some(false)`), or
/// says nothing of it.
fn verdict(c: &Case, skill: &str) -> Option<bool> {
    c.request.message.as_ref()?;
    match &c.expect.routes_to {
        Some(to) if to.iter().any(|n| n == skill) => Some(true),
        Some(to) if to.is_empty() => Some(false),
        _ => c
            .expect
            .routes_not_to
            .iter()
            .any(|n| n == skill)
            .then_some(false),
    }
}

/// A skill-creator trigger query, its fields in the order the format shows them.
#[derive(Serialize)]
struct Query {
    query: String,
    should_trigger: bool,
}

/// An Agent Skills eval.
#[derive(Serialize)]
struct Eval {
    id: usize,
    name: String,
    prompt: String,
    expected_output: String,
    files: [String; 0],
    expectations: [String; 1],
}

/// An Agent Skills `evals.json`.
#[derive(Serialize)]
struct Evals {
    skill_name: String,
    evals: Vec<Eval>,
}

/// The routing cases of `cases` about `skill`, in `format`.
pub fn export(cases: &[Case], skill: &str, format: CaseFormat) -> Exported {
    let (mut queries, mut evals, mut left_out) = (Vec::new(), Vec::new(), Vec::new());
    let used = format!("The `{skill}` skill is used.");
    for c in cases {
        let Some(reach) = verdict(c, skill) else {
            continue;
        };
        if let Some(why) = not_portable(c) {
            left_out.push((c.name.clone(), why.to_string()));
            continue;
        }
        let message = c.request.message.clone().unwrap_or_default();
        match format {
            CaseFormat::SkillCreator => queries.push(Query {
                query: message,
                should_trigger: reach,
            }),
            CaseFormat::AgentSkills if reach => evals.push(Eval {
                id: evals.len() + 1,
                name: c.name.clone(),
                prompt: message,
                expected_output: used.clone(),
                files: [],
                expectations: [used.clone()],
            }),
            CaseFormat::AgentSkills => left_out.push((
                c.name.clone(),
                "evals.json holds prompts the skill is for, not ones it must stay out of"
                    .to_string(),
            )),
        }
    }
    let (written, text) = match format {
        CaseFormat::SkillCreator => (queries.len(), serde_json::to_string_pretty(&queries)),
        CaseFormat::AgentSkills => {
            let skill_name = skill.to_string();
            let n = evals.len();
            (
                n,
                serde_json::to_string_pretty(&Evals { skill_name, evals }),
            )
        }
    };
    Exported {
        text: text.unwrap_or_default() + "\n",
        written,
        left_out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::{Expect, Request};

    fn case(name: &str, message: &str, to: Option<&[&str]>, not: &[&str]) -> Case {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Case {
            name: name.to_string(),
            file: "tests/routing.yaml".to_string(),
            line: 1,
            request: Request {
                message: Some(message.to_string()),
                ..Request::default()
            },
            expect: Expect {
                routes_to: to.map(names),
                routes_not_to: names(not),
                ..Expect::default()
            },
        }
    }

    /// (message, must reach) of the cases about `skill`, said apart from [`verdict`].
    fn routing(cases: &[Case], skill: &str) -> Vec<(String, bool)> {
        let about = |c: &Case| {
            let e = &c.expect;
            let to = e.routes_to.as_deref();
            let reach = if to.is_some_and(|t| t.contains(&skill.to_string())) {
                Some(true)
            } else if to.is_some_and(<[String]>::is_empty)
                || e.routes_not_to.contains(&skill.to_string())
            {
                Some(false)
            } else {
                None
            };
            reach.map(|r| (c.request.message.clone().unwrap(), r))
        };
        cases.iter().filter_map(about).collect()
    }

    #[test]
    fn each_format_reads_back_as_the_cases_it_was_written_from() {
        let cases = vec![
            case(
                "an invoice",
                "send the March invoice",
                Some(&["invoices"]),
                &[],
            ),
            case(
                "a refund",
                "refund order 12",
                Some(&["refunds"]),
                &["invoices"],
            ),
            case("nothing", "what's the weather", Some(&[]), &[]),
            case(
                "two",
                "invoice and refund",
                Some(&["refunds", "invoices"]),
                &[],
            ),
        ];
        let file = "invoices/evals/x.json";
        // skill-creator: every case about the skill, both ways.
        let out = export(&cases, "invoices", CaseFormat::SkillCreator);
        assert_eq!((out.written, out.left_out.len()), (4, 0));
        let (back, problems) = super::super::evalsets::read(file, &out.text, "invoices");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(routing(&back, "invoices"), routing(&cases, "invoices"));
        // Agent Skills: the messages that must reach it, named as they were.
        let out = export(&cases, "invoices", CaseFormat::AgentSkills);
        assert_eq!((out.written, out.left_out.len()), (2, 2));
        let file = "invoices/evals/evals.json";
        let (back, problems) = super::super::evalsets::read(file, &out.text, "invoices");
        assert!(problems.is_empty(), "{problems:?}");
        let reaching: Vec<(String, bool)> = (routing(&cases, "invoices").into_iter())
            .filter(|(_, reach)| *reach)
            .collect();
        assert_eq!(routing(&back, "invoices"), reaching);
        let names: Vec<&str> = back.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["an invoice", "two"]);
    }

    #[test]
    fn what_the_formats_cannot_say_is_left_out_with_why() {
        let mut c = case("pro", "and for pro", Some(&["invoices"]), &[]);
        c.request.client = Some("acme".to_string());
        let out = export(&[c], "invoices", CaseFormat::SkillCreator);
        assert_eq!(out.written, 0);
        assert_eq!(out.left_out[0].0, "pro");
        assert!(out.left_out[0].1.contains("client"), "{:?}", out.left_out);
        assert_eq!(out.text, "[]\n");
    }
}
