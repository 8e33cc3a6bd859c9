//! `skillc eval --selector CMD`: the team's own selector (their LLM call; skillc holds no model
//! key) is put every labelled message, `--samples` times, since an LLM does not answer the same
//! twice. Each call runs `sh -c CMD` with one JSON request on stdin and reads `{"select":
//! [names or SK ids]}` from stdout. A call that fails, hangs or answers garbage is counted and
//! named, and scores as reaching no skill.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;
use skillc_runtime::route::Route;
use skillc_runtime::{Artifact, BundleRef, Format};

use super::figures::{figures, figures_line, Figures, Labelled, Progress};

/// How to run the selector.
#[derive(Debug, Clone)]
pub struct Selector {
    /// The shell command.
    pub command: String,
    /// How many times each message is put to it.
    pub samples: usize,
    /// How long one call may take before it is stopped and counted as failed.
    pub timeout: Duration,
}

/// Calls run at once: a selector mostly waits on a remote model.
const PARALLEL_CALLS: usize = 4;
/// Failed calls the report names (all are counted).
const NAMED_FAILURES: usize = 20;
/// The most of a selector's stdout read (an answer is a short list of names).
const MAX_ANSWER: u64 = 1 << 20;

/// The spread of one figure over the samples.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Spread {
    /// The lowest sample's figure.
    pub(crate) min: f64,
    /// The highest sample's figure.
    pub(crate) max: f64,
}

/// The spread of each figure over the samples.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Spreads {
    /// Of `recall_at_1`.
    pub(crate) recall_at_1: Spread,
    /// Of `recall_at_k`.
    pub recall_at_k: Spread,
    /// Of `mrr`.
    pub(crate) mrr: Spread,
    /// Of `false_fire`.
    pub(crate) false_fire: Spread,
}

/// A call that failed.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "SelectorFailure"))]
pub struct Failure {
    /// The message put to the selector.
    pub message: String,
    /// Which sample (1-based).
    pub(crate) sample: usize,
    /// What went wrong.
    pub(crate) error: String,
}

/// A selector's figures over one bundle's messages.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SelectorEval {
    /// The figures over every sample's answers together (confusions of every sample).
    #[serde(flatten)]
    pub figures: Figures,
    /// Each figure's lowest and highest over the samples.
    pub(crate) spread: Spreads,
    /// Samples taken of each message.
    pub samples: usize,
    /// Calls made.
    pub(crate) calls: usize,
    /// Calls that failed, timed out or answered something else than `{"select": [...]}`.
    pub failures: usize,
    /// The first failed calls, named.
    pub(crate) failed: Vec<Failure>,
}

/// Puts each of `labelled` to the selector `samples` times, beside the index's `routes` (given
/// to it as `candidates`), and scores its answers' first `k`.
pub fn evaluate(
    a: &Artifact,
    r: &BundleRef<'_>,
    selector: &Selector,
    labelled: &[Labelled],
    routes: &[Route],
    k: usize,
    progress: Option<Progress<'_>>,
) -> Result<SelectorEval, skillc_runtime::Error> {
    let calls = labelled.len() * selector.samples;
    let done = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(PARALLEL_CALLS)
        .build()
        .map_err(|e| skillc_runtime::Error::Request(format!("could not start calls: {e}")))?;
    // Per message, its request is made when its turn comes (a big catalog's text is in each,
    // so only the calls running hold one), then put to the selector `samples` times.
    let per_message: Vec<Vec<Result<Vec<String>, String>>> = pool.install(|| {
        labelled
            .par_iter()
            .zip(routes)
            .map(|(m, route)| {
                let (input, names) = request(a, r, m, route)?;
                let answers = (0..selector.samples).map(|_| {
                    let answer = call(&selector.command, &input, selector.timeout)
                        .map(|picked| picked.iter().map(|p| names.name_of(p)).collect());
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if let Some(show) = progress {
                        show("asking the selector", finished, calls);
                    }
                    answer
                });
                Ok(answers.collect())
            })
            .collect::<Result<_, skillc_runtime::Error>>()
    })?;
    // Sample by sample, each in the messages' order.
    let answers = (0..selector.samples)
        .flat_map(|sample| per_message.iter().map(move |of| of[sample].clone()));
    let mut failed = Vec::new();
    let reached: Vec<Vec<String>> = answers
        .enumerate()
        .map(|(n, answer)| {
            answer.unwrap_or_else(|error| {
                failed.push(Failure {
                    message: labelled[n % labelled.len()].message.clone(),
                    sample: n / labelled.len() + 1,
                    error,
                });
                Vec::new()
            })
        })
        .collect();
    let failures = failed.len();
    failed.truncate(NAMED_FAILURES);
    let each_sample: Vec<Figures> = reached
        .chunks(labelled.len().max(1))
        .map(|sample| figures(labelled.iter().zip(sample.iter().map(Vec::as_slice)), k))
        .collect();
    let every = labelled
        .iter()
        .cycle()
        .zip(reached.iter().map(Vec::as_slice));
    let overall = figures(every.take(calls), k);
    Ok(SelectorEval {
        spread: spreads(if each_sample.is_empty() {
            std::slice::from_ref(&overall)
        } else {
            &each_sample
        }),
        figures: overall,
        samples: selector.samples,
        calls,
        failures,
        failed,
    })
}

fn spreads(samples: &[Figures]) -> Spreads {
    let of = |f: &dyn Fn(&Figures) -> f64| Spread {
        min: samples.iter().map(f).fold(f64::INFINITY, f64::min),
        max: samples.iter().map(f).fold(0.0, f64::max),
    };
    Spreads {
        recall_at_1: of(&|f| f.recall_at_1),
        recall_at_k: of(&|f| f.recall_at_k),
        mrr: of(&|f| f.mrr),
        false_fire: of(&|f| f.false_fire),
    }
}

/// The names of a catalog's skills by what a selector may answer: the name, the qualified
/// name or the `SK` id.
struct Names(Vec<(String, String, String)>);

impl Names {
    fn name_of(&self, picked: &str) -> String {
        let picked = picked.trim();
        self.0
            .iter()
            .find(|(id, name, q)| picked == id || picked == name || picked == q)
            .map_or_else(|| picked.to_string(), |(_, name, _)| name.clone())
    }
}

/// The JSON request for one message: the message, its bundle, the catalog (text and JSON) the
/// message's consumer and context get, a trigger example taken out of it, and the index's
/// candidates.
fn request(
    a: &Artifact,
    r: &BundleRef<'_>,
    m: &Labelled,
    route: &Route,
) -> Result<(String, Names), skillc_runtime::Error> {
    let consumer = m.consumer.as_deref();
    let catalog = a.catalog(r, consumer, &m.context, Format::Markdown)?;
    let mut json = a.catalog_json(&*a.catalog(r, consumer, &m.context, Format::Json)?);
    let mut text = catalog.text.clone();
    if m.example_of.is_some() {
        // Leave-one-out for the selector too: the catalog it reads does not show the example.
        text = text.replace(&m.message, "…");
        if let Some(skills) = json["skills"].as_array_mut() {
            for s in skills {
                if let Some(t) = s["triggers"].as_array_mut() {
                    t.retain(|e| e.as_str() != Some(m.message.as_str()));
                }
            }
        }
    }
    if let Some(o) = json.as_object_mut() {
        o.remove("text");
    }
    let names = Names(
        catalog
            .skills
            .iter()
            .map(|s| (s.id.clone(), s.name.clone(), s.qualified_name.clone()))
            .collect(),
    );
    let input = serde_json::json!({
        "message": m.message,
        "client": route.client,
        "locale": route.locale,
        "tier": route.tier,
        "catalog": text,
        "catalog_json": json,
        "candidates": route.candidates,
    });
    Ok((input.to_string() + "\n", names))
}

/// Runs the selector once: its answer's `select` list, or why there is none.
fn call(command: &str, input: &str, timeout: Duration) -> Result<Vec<String>, String> {
    let out = crate::command::run(command, input.to_string(), timeout, MAX_ANSWER)?;
    parse_answer(&out)
}

/// `{"select": [...]}` from a selector's stdout: the whole of it, or its last non-empty line
/// (a selector may log before answering).
fn parse_answer(out: &str) -> Result<Vec<String>, String> {
    let last = out
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let value = serde_json::from_str::<serde_json::Value>(out)
        .or_else(|_| serde_json::from_str::<serde_json::Value>(last))
        .ok();
    let list = value
        .as_ref()
        .and_then(|v| v.get("select"))
        .and_then(|s| s.as_array());
    match list {
        Some(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(|| {
                format!(
                    "`select` holds something other than names: {}",
                    crate::command::clip(out)
                )
            }),
        None => Err(format!(
            "answered {:?}, not {{\"select\": [names]}}",
            crate::command::clip(out.trim())
        )),
    }
}

/// The selector's figures as text, under its bundle's line.
pub fn render_text(s: &SelectorEval, k: usize, positives: usize, negatives: usize) -> String {
    let mut out = format!(
        "  selector ({} sample{}, {} calls, {} failed): {}\n",
        s.samples,
        if s.samples == 1 { "" } else { "s" },
        s.calls,
        s.failures,
        figures_line(&s.figures, k, positives, negatives)
    );
    if s.samples > 1 {
        let r = |x: &Spread| format!("{:.3}–{:.3}", x.min, x.max);
        out.push_str(&format!(
            "    spread over samples: recall@1 {} · recall@{k} {} · MRR {}\n",
            r(&s.spread.recall_at_1),
            r(&s.spread.recall_at_k),
            r(&s.spread.mrr)
        ));
    }
    for f in s.failed.iter().take(5) {
        out.push_str(&format!(
            "    failed: {:?} (sample {}): {}\n",
            f.message, f.sample, f.error
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_from_the_last_line_or_refused() {
        assert_eq!(
            parse_answer("thinking…\n{\"select\": [\"pricing\"]}\n").unwrap(),
            vec!["pricing"]
        );
        assert!(parse_answer("garbage")
            .unwrap_err()
            .contains("not {\"select\""));
        assert!(parse_answer("{\"select\": [1]}").is_err());
    }

    #[test]
    fn a_hanging_selector_is_stopped() {
        let t = std::time::Instant::now();
        let e = call("sleep 30", "{}", Duration::from_millis(300)).unwrap_err();
        assert!(e.contains("timed out"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_failing_selector_says_why() {
        let e = call("echo nope >&2; exit 3", "{}", Duration::from_secs(10)).unwrap_err();
        assert!(e.contains("nope"), "{e}");
    }
}
