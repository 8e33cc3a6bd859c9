//! What `eval` counts, shared by the index's figures and a selector's: a labelled message, and
//! recall, MRR, false fires and the confusions over the names each message reached.

use std::collections::BTreeMap;

use serde::Serialize;
use skillc_runtime::Context;

/// Told of each step as its turn comes: a phase, how many are done, of how many.
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// A message and the skill it should reach.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// The message: a trigger example, or a case's message.
    pub message: String,
    /// The skill it should reach first (`None`: no skill, a case's `routes_to: []`, or none of
    /// `avoid`).
    pub(crate) expected: Option<String>,
    /// With no `expected`: the skills it must not reach (a case's `routes_not_to` alone, a
    /// trigger set's `should_trigger: false`); empty: it must reach none at all.
    pub(crate) avoid: Vec<String>,
    /// A trigger example's own skill (an index into the bundle's skills), left out while the
    /// example is routed.
    pub(crate) example_of: Option<usize>,
    /// The case's consumer.
    pub consumer: Option<String>,
    /// The case's run-time context.
    pub(crate) context: Context,
    /// The case's history (routing's stage 0): each text and seconds before the message.
    pub(crate) history: Vec<(String, u64)>,
}

/// Messages that should reach one skill and reached another first (or none).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Confusion {
    /// The skill they should reach.
    pub(crate) expected: String,
    /// The skill they reached first (`None`: no candidate).
    pub(crate) got: Option<String>,
    /// How many messages did so.
    pub(crate) count: usize,
    /// Up to three of them.
    pub(crate) examples: Vec<String>,
}

/// Messages shown per confusion.
const CONFUSION_EXAMPLES: usize = 3;

/// The figures of one way of routing (the index, or a selector) over a bundle's messages.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Figures {
    /// Messages whose skill comes first, as a share of those with a skill to reach.
    pub(crate) recall_at_1: f64,
    /// Messages whose skill is among the first `k` reached.
    pub recall_at_k: f64,
    /// Mean reciprocal rank of the skill (0 when not among the first `k`).
    pub(crate) mrr: f64,
    /// Share of the messages expecting no skill that reached one.
    pub(crate) false_fire: f64,
    /// The messages that reached another skill first, or none, grouped, most first.
    pub(crate) confusions: Vec<Confusion>,
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
            let fires = match m.avoid.is_empty() {
                true => !reached.is_empty(),
                false => reached.iter().any(|n| m.avoid.contains(n)),
            };
            fired += usize::from(fires);
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

/// One line of figures: `recall@1 … · recall@k … · MRR … · false fire …`; `-` for a figure
/// with no message to measure (JSON keeps 1.0 there, so that `--min-recall` passes a bundle
/// with nothing to route; a line saying 1.000 of nothing misled).
pub(super) fn figures_line(f: &Figures, k: usize, positives: usize, negatives: usize) -> String {
    let of = |x: f64| match positives {
        0 => "-".to_string(),
        _ => format!("{x:.3}"),
    };
    format!(
        "recall@1 {} · recall@{k} {} · MRR {} · false fire {}",
        of(f.recall_at_1),
        of(f.recall_at_k),
        of(f.mrr),
        if negatives == 0 {
            "-".to_string()
        } else {
            format!("{:.3} of {negatives}", f.false_fire)
        }
    )
}
