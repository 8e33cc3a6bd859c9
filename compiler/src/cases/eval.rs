//! `skillc eval`: how well messages reach their skills, per bundle, over every trigger example
//! (each scored leave-one-out: routed as if its own skill did not hold it, or it would
//! trivially find its skill) and the routing cases (`message` with `routes_to`).

use serde::Serialize;
use skillc_runtime::{Artifact, BundleRef, Context};

use super::Case;

/// A message that reached another skill first (or none).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Confusion {
    /// The skill it should reach.
    pub expected: String,
    /// The skill it reached first (`None`: no candidate).
    pub got: Option<String>,
    /// The message: a trigger example, or a case's message.
    pub message: String,
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
    /// The candidates a route gives at most (`top_k`).
    pub k: usize,
    /// Trigger examples scored.
    pub examples: usize,
    /// Routing cases of this bundle run.
    pub cases: usize,
    /// Messages whose skill comes first, as a share of those with a skill to reach.
    pub recall_at_1: f64,
    /// Messages whose skill is among the candidates.
    pub recall_at_k: f64,
    /// Mean reciprocal rank of the skill (0 when not a candidate).
    pub mrr: f64,
    /// Cases that expect no skill (`routes_to: []`) yet reach one, of those cases.
    pub false_fire: usize,
    /// Cases that expect no skill.
    pub expect_none: usize,
    /// The messages that reached another skill first, or none.
    pub confusions: Vec<Confusion>,
}

/// Tallies of one bundle's messages.
#[derive(Default)]
struct Tally {
    scored: usize,
    first: usize,
    found: usize,
    reciprocal: f64,
    confusions: Vec<Confusion>,
}

impl Tally {
    /// One message that should reach `expected`, with the names it reached in order.
    fn add(&mut self, expected: &str, reached: &[String], message: &str) {
        self.scored += 1;
        if let Some(at) = reached.iter().position(|n| n == expected) {
            self.found += 1;
            self.first += usize::from(at == 0);
            self.reciprocal += 1.0 / (at + 1) as f64;
        }
        if reached.first().map(String::as_str) != Some(expected) {
            self.confusions.push(Confusion {
                expected: expected.to_string(),
                got: reached.first().cloned(),
                message: message.to_string(),
            });
        }
    }

    fn share(&self, n: usize) -> f64 {
        if self.scored == 0 {
            1.0
        } else {
            (n as f64 / self.scored as f64 * 1e4).round() / 1e4
        }
    }
}

/// Evaluates routing in each bundle of `bundles` (an empty context, no consumer): every trigger
/// example of every skill its catalog shows, left out of its own skill, and the routing cases
/// of that bundle with their own context and consumer.
/// Told of each bundle as its turn comes: a phase, how many are done, of how many.
pub type Progress<'a> = &'a dyn Fn(&str, usize, usize);

/// `progress` hears of each bundle as its turn comes (`eval` shows it on a terminal).
pub fn evaluate(
    a: &Artifact,
    bundles: &[BundleRef<'_>],
    cases: &[Case],
    progress: Option<Progress<'_>>,
) -> Result<Vec<BundleEval>, skillc_runtime::Error> {
    let settings = a.routing_settings();
    let none = Context::default();
    let mut out = Vec::new();
    for (done, r) in bundles.iter().enumerate() {
        if let Some(show) = progress {
            show("evaluating bundles", done, bundles.len());
        }
        let bundle = a.bundle(r)?;
        let mut tally = Tally::default();
        let mut examples = 0;
        for i in a
            .catalog(r, None, &none, skillc_runtime::Format::Json)?
            .skills
            .iter()
            .filter_map(|s| bundle.position(&s.name))
        {
            let skill = &bundle.skills[i];
            for example in &skill.triggers {
                let route =
                    a.route_leaving_out(r, None, &none, example, None, Some((i, example)))?;
                let reached: Vec<String> = route.candidates.into_iter().map(|c| c.name).collect();
                tally.add(&skill.name, &reached, example);
                examples += 1;
            }
        }
        let (ran, false_fire, expect_none) = route_cases(a, r, &bundle, cases, &mut tally)?;
        out.push(BundleEval {
            client: (!bundle.client.is_empty()).then(|| bundle.client.clone()),
            locale: bundle.locale.clone(),
            tier: bundle.tier.clone(),
            k: settings.top_k,
            examples,
            cases: ran,
            recall_at_1: tally.share(tally.first),
            recall_at_k: tally.share(tally.found),
            mrr: if tally.scored == 0 {
                1.0
            } else {
                (tally.reciprocal / tally.scored as f64 * 1e4).round() / 1e4
            },
            false_fire,
            expect_none,
            confusions: tally.confusions,
        });
    }
    Ok(out)
}

/// The routing cases of one bundle, into `tally`: how many ran, and of those expecting no skill,
/// how many reached one and how many there were.
fn route_cases(
    a: &Artifact,
    r: &BundleRef<'_>,
    bundle: &skillc_runtime::Bundle,
    cases: &[Case],
    tally: &mut Tally,
) -> Result<(usize, usize, usize), skillc_runtime::Error> {
    let (mut ran, mut false_fire, mut expect_none) = (0, 0, 0);
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
        let ctx = Context::from_pairs(
            c.request
                .context
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        )
        .map_err(skillc_runtime::Error::Request)?;
        let route = a.route(r, c.request.consumer.as_deref(), &ctx, message, None)?;
        let reached: Vec<String> = route.candidates.into_iter().map(|c| c.name).collect();
        ran += 1;
        match expected.first() {
            Some(first) => tally.add(first, &reached, message),
            None => {
                expect_none += 1;
                false_fire += usize::from(!reached.is_empty());
            }
        }
    }
    Ok((ran, false_fire, expect_none))
}

/// The figures as JSON: `{"bundles": [...]}`, each bundle's fields in their order above.
pub fn render_eval_json(evals: &[BundleEval]) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        bundles: &'a [BundleEval],
    }
    serde_json::to_string_pretty(&Report { bundles: evals }).unwrap_or_default() + "\n"
}

/// The figures as text: a line per bundle, then its confusions.
pub fn render_eval_text(evals: &[BundleEval]) -> String {
    let mut out = String::new();
    for e in evals {
        out.push_str(&format!(
            "{} ({}, {}): {} examples, {} cases · recall@1 {:.3} · recall@{} {:.3} · MRR {:.3} · false fire {}/{}\n",
            e.client.as_deref().unwrap_or("global"),
            e.locale,
            e.tier,
            e.examples,
            e.cases,
            e.recall_at_1,
            e.k,
            e.recall_at_k,
            e.mrr,
            e.false_fire,
            e.expect_none,
        ));
        for c in e.confusions.iter().take(SHOWN_CONFUSIONS) {
            out.push_str(&format!(
                "  {} → {}: {:?}\n",
                c.expected,
                c.got.as_deref().unwrap_or("no skill"),
                c.message
            ));
        }
        if e.confusions.len() > SHOWN_CONFUSIONS {
            out.push_str(&format!(
                "  and {} more (--format json lists them all)\n",
                e.confusions.len() - SHOWN_CONFUSIONS
            ));
        }
    }
    out
}

/// Confusions the text shows per bundle.
const SHOWN_CONFUSIONS: usize = 20;
