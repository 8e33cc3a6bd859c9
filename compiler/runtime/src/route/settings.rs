//! Routing settings (`routing:` of workspace.yaml, per client in client.yaml) as the manifest
//! keeps them, with the runtimes' documented defaults.

use std::collections::HashMap;

use serde::Serialize;

use crate::Artifact;

/// The routing settings of `workspace.yaml` (`routing:`), with their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct RoutingSettings {
    /// At most this many candidates.
    pub top_k: usize,
    /// Candidates of a route by words score at least this.
    pub min_score: f64,
    /// Candidates of a route by words and vectors (`hybrid`) score at least this: the fused
    /// score is half a cosine, on another scale than the lexical one. Unset: a bar that rises
    /// with the catalog ([`hybrid_floor`]).
    pub hybrid_min_score: Option<f64>,
    /// A first candidate scoring this or more makes the route confident.
    pub confident: f64,
}

/// The manifest's routing settings, read once: the workspace's, and each client's that sets
/// its own (its keys over the workspace's).
#[derive(Debug, Clone, Default)]
pub(crate) struct RoutingTable {
    global: RoutingSettings,
    clients: HashMap<String, RoutingSettings>,
}

impl RoutingTable {
    fn read(a: &Artifact) -> RoutingTable {
        type Object = serde_json::Map<String, serde_json::Value>;
        let object = |key: &str| -> Option<Object> { serde_json::from_str(a.manifest(key)?).ok() };
        let settings =
            |o: Object| serde_json::from_value(serde_json::Value::Object(o)).unwrap_or_default();
        let base = object("routing").unwrap_or_default();
        let clients = object("routing_clients").unwrap_or_default();
        RoutingTable {
            global: settings(base.clone()),
            clients: clients
                .into_iter()
                .filter_map(|(id, own)| {
                    let serde_json::Value::Object(own) = own else {
                        return None;
                    };
                    let mut merged = base.clone();
                    merged.extend(own);
                    Some((id, settings(merged)))
                })
                .collect(),
        }
    }
}

impl Default for RoutingSettings {
    fn default() -> Self {
        RoutingSettings {
            top_k: 5,
            min_score: 0.5,
            hybrid_min_score: None,
            confident: 0.95,
        }
    }
}

impl RoutingSettings {
    /// The cut of a route by `method` (`lexical` or `hybrid`) in a catalog of `n` skills.
    pub fn floor(&self, method: &str, n: usize) -> f64 {
        if method == "hybrid" {
            self.hybrid_min_score.unwrap_or_else(|| hybrid_floor(n))
        } else {
            self.min_score
        }
    }
}

/// The hybrid cut of a catalog of `n` skills when the settings give none: the likelier some
/// skill's text is close to a message by chance, the larger the catalog, so the bar rises with
/// it, as the lexical one does ([`super::evidence_scale`]): 0.22 at 10 skills, 0.26 at 32, 0.34
/// at 555, 0.35 at 1,000 (chosen on the labelled sets of `tests/quality/`, docs/routing.md),
/// and a route raises it for a message nearer small talk than any skill
/// ([`super::raised_floor`]). Kept to 6 decimals, so every runtime's logarithm gives the same bar.
pub fn hybrid_floor(n: usize) -> f64 {
    super::round(HYBRID_FLOOR_BASE + HYBRID_FLOOR_SLOPE * (n.max(1) as f64).ln())
}

/// See [`hybrid_floor`].
const HYBRID_FLOOR_BASE: f64 = 0.16;
const HYBRID_FLOOR_SLOPE: f64 = 0.028;

/// Routing's word lists and constants as the build writes them into the manifest
/// (`routing_rules`, JSON; docs/artifact.md): the Python, TypeScript and Java runtimes read
/// them from there instead of holding copies, so a rule changed here reaches every port with
/// the next build. This crate's constants are the one source; it indexes the cards with them.
#[derive(Debug, Clone, Serialize)]
pub struct RoutingRules {
    /// Words left out of every text ([`super::STOPWORDS`]).
    pub stopwords: &'static [&'static str],
    /// English suffixes taken off, the first that fits ([`super::SUFFIXES`]).
    pub suffixes: &'static [&'static str],
    /// BM25's term-frequency saturation.
    pub k1: f64,
    /// BM25's length normalisation.
    pub b: f64,
    /// The factor of [`super::evidence_scale`].
    pub evidence_factor: f64,
    /// The most distinct known words of a message a route weighs ([`super::MAX_WORDS`]).
    pub max_words: usize,
    /// A hybrid score's lexical share ([`super::LEXICAL_SHARE`]).
    pub lexical_share: f64,
    /// The share of the small-talk margin a hybrid bar rises by ([`super::SMALL_TALK_SHARE`]).
    pub small_talk_share: f64,
    /// The share of a message's lean to small talk by its pieces a hybrid bar rises by
    /// ([`super::TALK_WORDS_SHARE`]).
    pub talk_words_share: f64,
    /// The lean above which it rises ([`super::TALK_WORDS_FROM`]).
    pub talk_words_from: f64,
    /// [`hybrid_floor`]: `base + slope · ln n`.
    pub hybrid_floor_base: f64,
    /// See `hybrid_floor_base`.
    pub hybrid_floor_slope: f64,
    /// The settings a workspace leaves unset ([`RoutingSettings::default`]; `hybrid_min_score`
    /// has none: the floor above).
    pub defaults: RoutingDefaults,
}

/// The default routing settings, as `routing_rules` writes them.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RoutingDefaults {
    /// See [`RoutingSettings::top_k`].
    pub top_k: usize,
    /// See [`RoutingSettings::min_score`].
    pub min_score: f64,
    /// See [`RoutingSettings::confident`].
    pub confident: f64,
}

impl RoutingRules {
    /// The rules this runtime routes by, for the build to write.
    pub fn built_in() -> RoutingRules {
        let d = RoutingSettings::default();
        RoutingRules {
            stopwords: super::STOPWORDS,
            suffixes: super::SUFFIXES,
            k1: super::K1,
            b: super::B,
            evidence_factor: super::EVIDENCE_FACTOR,
            max_words: super::MAX_WORDS,
            lexical_share: super::LEXICAL_SHARE,
            small_talk_share: super::SMALL_TALK_SHARE,
            talk_words_share: super::TALK_WORDS_SHARE,
            talk_words_from: super::TALK_WORDS_FROM,
            hybrid_floor_base: HYBRID_FLOOR_BASE,
            hybrid_floor_slope: HYBRID_FLOOR_SLOPE,
            defaults: RoutingDefaults {
                top_k: d.top_k,
                min_score: d.min_score,
                confident: d.confident,
            },
        }
    }
}

impl Artifact {
    /// The routing settings of a client (`routing:` of its client.yaml, key by key over
    /// workspace.yaml's) or of the global bundle (`None`), defaults otherwise.
    pub fn routing_settings(&self, client: Option<&str>) -> RoutingSettings {
        let table = self.routing.get_or_init(|| RoutingTable::read(self));
        client
            .and_then(|c| table.clients.get(c))
            .copied()
            .unwrap_or(table.global)
    }
}
