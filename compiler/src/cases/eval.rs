//! `skillc eval`: how well messages reach their skills, per bundle, over every trigger example
//! (each scored leave-one-out: routed as if its own skill did not hold it, or it would
//! trivially find its skill) and the routing cases (`message` with `routes_to`). With a
//! selector (`--selector CMD`, the team's own LLM call) the same messages are put to it too.

use std::collections::BTreeMap;

use serde::Serialize;
use skillc_runtime::route::Route;
use skillc_runtime::{Artifact, BundleRef, Context};

use super::selector::{self, Selector, SelectorEval};
use super::Case;

/// Told of each step as its turn comes: a phase, how many are done, of how many.
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// A message and the skill it should reach.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// The message: a trigger example, or a case's message.
    pub message: String,
    /// The skill it should reach first (`None`: no skill, a case's `routes_to: []`).
    pub expected: Option<String>,
    /// A trigger example's own skill (an index into the bundle's skills), left out while the
    /// example is routed.
    pub example_of: Option<usize>,
    /// The case's consumer.
    pub consumer: Option<String>,
    /// The case's run-time context.
    pub context: Context,
}

/// Messages that should reach one skill and reached another first (or none).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Confusion {
    /// The skill they should reach.
    pub expected: String,
    /// The skill they reached first (`None`: no candidate).
    pub got: Option<String>,
    /// How many messages did so.
    pub count: usize,
    /// Up to three of them.
    pub examples: Vec<String>,
}

/// Messages shown per confusion.
const CONFUSION_EXAMPLES: usize = 3;

/// The figures of one way of routing (the index, or a selector) over a bundle's messages.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Figures {
    /// Messages whose skill comes first, as a share of those with a skill to reach.
    pub recall_at_1: f64,
    /// Messages whose skill is among the first `k` reached.
    pub recall_at_k: f64,
    /// Mean reciprocal rank of the skill (0 when not among the first `k`).
    pub mrr: f64,
    /// Share of the messages expecting no skill that reached one.
    pub false_fire: f64,
    /// The messages that reached another skill first, or none, grouped, most first.
    pub confusions: Vec<Confusion>,
}

/// The figures of one bundle.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BundleEval {
    /// Client (`None`: the global bundle).
    pub client: Option<String>,
    /// Its locale.
    pub locale: String,
    /// Its tier.
    pub tier: String,
    /// Messages with a skill to reach.
    pub positives: usize,
    /// Messages expecting no skill.
    pub negatives: usize,
    /// The index's figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// The selector's figures, when one ran.
    pub selector: Option<SelectorEval>,
    /// The candidates a route gives at most (`top_k`): the `k` of `recall_at_k`.
    pub k: usize,
    /// Trigger examples scored.
    pub examples: usize,
    /// Routing cases of this bundle run.
    pub cases: usize,
}

/// A share rounded to four decimals; `empty` when there is nothing to count.
fn share(n: f64, of: usize, empty: f64) -> f64 {
    if of == 0 {
        empty
    } else {
        (n / of as f64 * 1e4).round() / 1e4
    }
}

/// The figures of `reached` (the names each message reached, best first), counting the first
/// `k` of each.
pub fn figures<'a>(
    outcomes: impl Iterator<Item = (&'a Labelled, &'a [String])>,
    k: usize,
) -> Figures {
    let (mut positives, mut first, mut found, mut reciprocal) = (0, 0, 0, 0.0);
    let (mut negatives, mut fired) = (0, 0);
    let mut grouped: BTreeMap<(String, Option<String>), Vec<&str>> = BTreeMap::new();
    for (m, reached) in outcomes {
        let reached = &reached[..reached.len().min(k)];
        let Some(expected) = &m.expected else {
            negatives += 1;
            fired += usize::from(!reached.is_empty());
            continue;
        };
        positives += 1;
        if let Some(at) = reached.iter().position(|n| n == expected) {
            found += 1;
            first += usize::from(at == 0);
            reciprocal += 1.0 / (at + 1) as f64;
        }
        if reached.first() != Some(expected) {
            grouped
                .entry((expected.clone(), reached.first().cloned()))
                .or_default()
                .push(&m.message);
        }
    }
    let mut confusions: Vec<Confusion> = grouped
        .into_iter()
        .map(|((expected, got), messages)| Confusion {
            expected,
            got,
            count: messages.len(),
            examples: messages
                .iter()
                .take(CONFUSION_EXAMPLES)
                .map(|m| m.to_string())
                .collect(),
        })
        .collect();
    confusions.sort_by_key(|c| std::cmp::Reverse(c.count));
    Figures {
        recall_at_1: share(first as f64, positives, 1.0),
        recall_at_k: share(found as f64, positives, 1.0),
        mrr: share(reciprocal, positives, 1.0),
        false_fire: share(fired as f64, negatives, 0.0),
        confusions,
    }
}

/// The bundles `eval` looks at: each client of `clients` (none given: the global bundle and
/// every client), in `locale` and `tier`, or the workspace's defaults (a client without the
/// default locale: its first). A client without such a bundle is left out unless named.
pub fn bundles_to_evaluate(
    a: &Artifact,
    clients: &[String],
    locale: Option<&str>,
    tier: Option<&str>,
) -> Vec<(String, String, String)> {
    let all = a.bundle_names();
    let wanted: Vec<&str> = if clients.is_empty() {
        let mut ids: Vec<&str> = all.iter().map(|b| b.0).collect();
        ids.sort();
        ids.dedup();
        ids
    } else {
        clients.iter().map(String::as_str).collect()
    };
    let default_locale = a.manifest("default_locale").unwrap_or("");
    let default_tier = a.manifest("default_tier").unwrap_or("");
    let mut out = Vec::new();
    for client in wanted {
        let of_client = all.iter().filter(|b| b.0 == client);
        let fits = |b: &&(&str, &str, &str)| {
            locale.is_none_or(|l| b.1 == l) && b.2 == tier.unwrap_or(default_tier)
        };
        let mut fitting: Vec<&(&str, &str, &str)> = of_client.filter(fits).collect();
        fitting.sort_by_key(|b| b.1 != default_locale);
        match fitting.first() {
            Some(b) => out.push((b.0.to_string(), b.1.to_string(), b.2.to_string())),
            // Named but not built so: routing it says why.
            None if !clients.is_empty() => out.push((
                client.to_string(),
                locale.unwrap_or(default_locale).to_string(),
                tier.unwrap_or(default_tier).to_string(),
            )),
            None => {}
        }
    }
    out
}

/// The labelled messages of one bundle: every trigger example of every skill its catalog
/// shows, then its routing cases. Also says how many of each.
fn labelled_messages(
    a: &Artifact,
    r: &BundleRef<'_>,
    cases: &[Case],
) -> Result<(Vec<Labelled>, usize, usize), skillc_runtime::Error> {
    let bundle = a.bundle(r)?;
    let none = Context::default();
    let mut out = Vec::new();
    for i in a
        .catalog(r, None, &none, skillc_runtime::Format::Json)?
        .skills
        .iter()
        .filter_map(|s| bundle.position(&s.name))
    {
        let skill = &bundle.skills[i];
        out.extend(skill.triggers.iter().map(|example| Labelled {
            message: example.clone(),
            expected: Some(skill.name.clone()),
            example_of: Some(i),
            consumer: None,
            context: none.clone(),
        }));
    }
    let examples = out.len();
    let same = |c: &Case| {
        c.request.client.as_deref().unwrap_or("") == bundle.client
            && c.request
                .locale
                .as_deref()
                .is_none_or(|l| l == bundle.locale)
            && c.request.tier.as_deref().is_none_or(|t| t == bundle.tier)
    };
    for c in cases.iter().filter(|c| same(c)) {
        let (Some(message), Some(expected)) = (&c.request.message, &c.expect.routes_to) else {
            continue;
        };
        let pairs = c.request.context.iter();
        let context = Context::from_pairs(pairs.map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(skillc_runtime::Error::Request)?;
        out.push(Labelled {
            message: message.clone(),
            expected: expected.first().cloned(),
            example_of: None,
            consumer: c.request.consumer.clone(),
            context,
        });
    }
    let cases = out.len() - examples;
    Ok((out, examples, cases))
}

/// Routes a labelled message by the index (its own example left out).
pub fn route_labelled(
    a: &Artifact,
    r: &BundleRef<'_>,
    m: &Labelled,
) -> Result<Route, skillc_runtime::Error> {
    let consumer = m.consumer.as_deref();
    let leave_out = m.example_of.map(|i| (i, m.message.as_str()));
    a.route_leaving_out(r, consumer, &m.context, &m.message, None, leave_out)
}

/// Evaluates routing in each bundle of `bundles`, by the index and, when given, by a selector.
/// `progress` hears of each bundle (and each selector call) as its turn comes.
pub fn evaluate(
    a: &Artifact,
    bundles: &[BundleRef<'_>],
    cases: &[Case],
    selector: Option<&Selector>,
    progress: Option<Progress<'_>>,
) -> Result<Vec<BundleEval>, skillc_runtime::Error> {
    let mut out = Vec::new();
    for (done, r) in bundles.iter().enumerate() {
        if let Some(show) = progress {
            show("evaluating bundles", done, bundles.len());
        }
        let k = a.routing_settings(r.client).top_k;
        let (labelled, examples, ran) = labelled_messages(a, r, cases)?;
        let routes = labelled
            .iter()
            .map(|m| route_labelled(a, r, m))
            .collect::<Result<Vec<Route>, _>>()?;
        let reached: Vec<Vec<String>> = routes
            .iter()
            .map(|route| route.candidates.iter().map(|c| c.name.clone()).collect())
            .collect();
        let positives = labelled.iter().filter(|m| m.expected.is_some()).count();
        let bundle = a.bundle(r)?;
        out.push(BundleEval {
            client: (!bundle.client.is_empty()).then(|| bundle.client.clone()),
            locale: bundle.locale.clone(),
            tier: bundle.tier.clone(),
            positives,
            negatives: labelled.len() - positives,
            figures: figures(labelled.iter().zip(reached.iter().map(Vec::as_slice)), k),
            selector: selector
                .map(|s| selector::evaluate(a, r, s, &labelled, &routes, k, progress))
                .transpose()?,
            k,
            examples,
            cases: ran,
        });
    }
    Ok(out)
}

/// The figures as JSON: `{"method", "bundles": [...]}`, each bundle's fields in their order
/// above.
pub fn render_eval_json(evals: &[BundleEval]) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        method: &'static str,
        bundles: &'a [BundleEval],
    }
    let report = Report {
        method: "lexical",
        bundles: evals,
    };
    serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
}

/// One line of figures: `recall@1 … · recall@k … · MRR … · false fire …`.
pub(super) fn figures_line(f: &Figures, k: usize, negatives: usize) -> String {
    format!(
        "recall@1 {:.3} · recall@{k} {:.3} · MRR {:.3} · false fire {}",
        f.recall_at_1,
        f.recall_at_k,
        f.mrr,
        if negatives == 0 {
            "-".to_string()
        } else {
            format!("{:.3} of {negatives}", f.false_fire)
        }
    )
}

/// The figures as text: a line per bundle, its selector's figures, then its confusions.
pub fn render_eval_text(evals: &[BundleEval]) -> String {
    let mut out = String::new();
    for e in evals {
        out.push_str(&format!(
            "{} ({}, {}): {} examples, {} cases · {}\n",
            e.client.as_deref().unwrap_or("global"),
            e.locale,
            e.tier,
            e.examples,
            e.cases,
            figures_line(&e.figures, e.k, e.negatives),
        ));
        if let Some(s) = &e.selector {
            out.push_str(&selector::render_text(s, e.k, e.negatives));
        }
        let mut shown = 0;
        for c in &e.figures.confusions {
            if shown == SHOWN_CONFUSIONS {
                break;
            }
            out.push_str(&format!(
                "  {} → {} ({}): {}\n",
                c.expected,
                c.got.as_deref().unwrap_or("no skill"),
                c.count,
                c.examples
                    .iter()
                    .map(|m| format!("{m:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            shown += 1;
        }
        if e.figures.confusions.len() > shown {
            out.push_str(&format!(
                "  and {} more confusions (--format json lists them all)\n",
                e.figures.confusions.len() - shown
            ));
        }
    }
    out
}

/// Confusions the text shows per bundle.
const SHOWN_CONFUSIONS: usize = 20;
