//! `skillc eval`: how well messages reach their skills, per bundle, over every trigger example
//! (each scored leave-one-out: routed as if its own skill did not hold it, or it would
//! trivially find its skill) and the routing cases (`message` with `routes_to`). With a
//! selector (`--selector CMD`, the team's own LLM call) the same messages are put to it too.

use rayon::prelude::*;
use serde::Serialize;
use skillc_runtime::route::{Query, Route};
use skillc_runtime::{Artifact, BundleRef, Context};

use super::figures::figures_line;
pub use super::figures::{figures, Confusion, Figures, Labelled, Progress};
use super::selector::{self, Selector, SelectorEval};
use super::Case;

/// The figures of one bundle.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BundleEval {
    /// Client (`None`: the global bundle).
    pub client: Option<String>,
    /// Its locale.
    pub locale: String,
    /// Its tier.
    pub tier: String,
    /// Messages with a skill to reach.
    pub(crate) positives: usize,
    /// Messages expecting no skill.
    pub(crate) negatives: usize,
    /// The index's figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// The selector's figures, when one ran.
    pub(crate) selector: Option<SelectorEval>,
    /// The candidates a route gives at most (`top_k`): the `k` of `recall_at_k`.
    pub(crate) k: usize,
    /// Trigger examples scored.
    pub(crate) examples: usize,
    /// Routing cases of this bundle run.
    pub(crate) cases: usize,
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
            avoid: Vec::new(),
            example_of: Some(i),
            consumer: None,
            context: none.clone(),
            history: Vec::new(),
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
        let Some(message) = &c.request.message else {
            continue;
        };
        // A message with skills to reach, or (alone) skills it must not reach.
        let (expected, avoid) = match (&c.expect.routes_to, &c.expect.routes_not_to) {
            (Some(to), _) => (to.first().cloned(), Vec::new()),
            (None, not) if !not.is_empty() => (None, not.clone()),
            (None, _) => continue,
        };
        let pairs = c.request.context.iter();
        let context = Context::from_pairs(pairs.map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(skillc_runtime::Error::Request)?;
        out.push(Labelled {
            message: message.clone(),
            expected,
            avoid,
            example_of: None,
            consumer: c.request.consumer.clone(),
            context,
            history: c.request.history.clone(),
        });
    }
    let cases = out.len() - examples;
    Ok((out, examples, cases))
}

/// A bundle of [`bundles_to_evaluate`]'s list as the runtime names it (an empty client: the
/// global bundle).
pub fn bundle_ref((client, locale, tier): &(String, String, String)) -> BundleRef<'_> {
    BundleRef {
        client: (!client.is_empty()).then_some(client.as_str()),
        locale: Some(locale.as_str()),
        tier: Some(tier.as_str()),
    }
}

/// Routes a labelled message by the index (its own example left out), and by its vector too
/// when it has one.
fn route_labelled(
    a: &Artifact,
    r: &BundleRef<'_>,
    m: &Labelled,
    vector: Option<&[f32]>,
) -> Result<Route, skillc_runtime::Error> {
    let turns = super::turns(&m.history);
    let query = Query {
        message: &m.message,
        top: None,
        vector,
        leave_out: m.example_of.map(|i| (i, m.message.as_str())),
        history: &turns,
        time: Some(0.0),
    };
    a.route_query(r, m.consumer.as_deref(), &m.context, &query)
}

/// Gives the vectors of messages, in their order, from the artifact's embedding model: a
/// hybrid evaluation.
pub type Embed<'a> = dyn Fn(&[String]) -> Result<Vec<Vec<f32>>, String> + 'a;

/// Evaluates routing in each bundle of `bundles`, by the index and, when given, by a selector.
/// `progress` hears of each bundle (and each selector call) as its turn comes.
pub fn evaluate(
    a: &Artifact,
    bundles: &[BundleRef<'_>],
    cases: &[Case],
    selector: Option<&Selector>,
    embed: Option<&Embed<'_>>,
    progress: Option<Progress<'_>>,
) -> Result<Vec<BundleEval>, skillc_runtime::Error> {
    let mut out = Vec::new();
    for (done, r) in bundles.iter().enumerate() {
        if let Some(show) = progress {
            show("evaluating bundles", done, bundles.len());
        }
        let k = a.routing_settings(r.client).top_k;
        let (labelled, examples, ran) = labelled_messages(a, r, cases)?;
        let vectors = match embed {
            Some(embed) => {
                let messages: Vec<String> = labelled.iter().map(|m| m.message.clone()).collect();
                embed(&messages).map_err(skillc_runtime::Error::Request)?
            }
            None => Vec::new(),
        };
        // Side by side: a global bundle of the reference workload routes 3,905 examples.
        let routes = (labelled.par_iter().enumerate())
            .map(|(n, m)| route_labelled(a, r, m, vectors.get(n).map(Vec::as_slice)))
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
        // Measured once: a bundle's index is not kept while the next ones are measured.
        a.unload(r)?;
    }
    Ok(out)
}

/// [`evaluate`] by the index alone (no selector; the artifact's built-in meaning, when it
/// routes by meaning), the bundles measured side by side on every core, in their order: the
/// studio's Routing view measures hundreds of clients' bundles.
pub fn evaluate_side_by_side(
    a: &Artifact,
    bundles: &[BundleRef<'_>],
    cases: &[Case],
) -> Result<Vec<BundleEval>, skillc_runtime::Error> {
    let each = bundles
        .par_iter()
        .map(|r| evaluate(a, std::slice::from_ref(r), cases, None, None, None))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(each.into_iter().flatten().collect())
}

/// The figures as JSON: `{"method", "bundles": [...]}`, each bundle's fields in their order
/// above; `method` is `lexical`, or `hybrid` when the messages had vectors.
pub fn render_eval_json(evals: &[BundleEval], method: &'static str) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        method: &'static str,
        bundles: &'a [BundleEval],
    }
    let report = Report {
        method,
        bundles: evals,
    };
    serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
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
            figures_line(&e.figures, e.k, e.positives, e.negatives),
        ));
        if let Some(s) = &e.selector {
            out.push_str(&selector::render_text(s, e.k, e.positives, e.negatives));
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

/// Where a skill without trigger examples is found: its description routed as a message (it
/// has no example to leave out, so this says whether another skill is nearer its own words).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Described {
    /// The skill.
    pub skill: String,
    /// Its description, the message routed.
    pub description: String,
    /// The first candidate (`None`: no skill reaches the cut).
    pub first: Option<String>,
}

/// Each skill of bundle `r`'s catalog that has no trigger example, with where its description
/// routes: `eval` measures skills by their examples, and these have none.
pub fn described(a: &Artifact, r: &BundleRef<'_>) -> Result<Vec<Described>, skillc_runtime::Error> {
    let bundle = a.bundle(r)?;
    let none = Context::default();
    let catalog = a.catalog(r, None, &none, skillc_runtime::Format::Json)?;
    let mut out = Vec::new();
    for i in catalog
        .skills
        .iter()
        .filter_map(|s| bundle.position(&s.name))
    {
        let skill = &bundle.skills[i];
        if !skill.triggers.is_empty() || skill.description.trim().is_empty() {
            continue;
        }
        let route = a.route(r, None, &none, &skill.description, Some(1))?;
        out.push(Described {
            skill: skill.name.clone(),
            description: skill.description.clone(),
            first: route.candidates.into_iter().next().map(|c| c.name),
        });
    }
    Ok(out)
}
