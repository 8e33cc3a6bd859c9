//! Routing settings (`routing:` of workspace.yaml, per client in client.yaml) as the manifest
//! keeps them, with the runtimes' documented defaults.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, OnceLock};

use serde::{Deserialize, Serialize};

use crate::{Artifact, Error};

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
    /// with the catalog ([`RoutingRules::hybrid_floor`]).
    pub hybrid_min_score: Option<f64>,
    /// A first candidate scoring this or more makes the route confident.
    pub confident: f64,
}

/// The manifest's routing settings and rules, read once: the workspace's settings, and each
/// client's that sets its own (its keys over the workspace's), over the defaults of the rules.
#[derive(Debug, Clone)]
pub(crate) struct RoutingTable {
    global: RoutingSettings,
    clients: HashMap<String, RoutingSettings>,
    /// The artifact's `routing_rules`, or why it cannot be routed by them.
    rules: Result<Arc<RoutingRules>, String>,
}

impl RoutingTable {
    fn read(a: &Artifact) -> RoutingTable {
        type Object = serde_json::Map<String, serde_json::Value>;
        let object = |key: &str| -> Option<Object> { serde_json::from_str(a.manifest(key)?).ok() };
        let rules = RoutingRules::of(a);
        // The settings a workspace leaves unset are the rules' defaults (the built-in ones
        // for an artifact a route refuses anyway).
        let defaults = rules
            .as_deref()
            .unwrap_or(RoutingRules::built_in())
            .defaults;
        let settings = |o: Object| -> RoutingSettings {
            let unset = RoutingSettings {
                top_k: defaults.top_k,
                min_score: defaults.min_score,
                hybrid_min_score: None,
                confident: defaults.confident,
            };
            let Ok(serde_json::Value::Object(mut all)) = serde_json::to_value(unset) else {
                return unset;
            };
            all.extend(o);
            serde_json::from_value(serde_json::Value::Object(all)).unwrap_or(unset)
        };
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
            rules,
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
    /// The cut of a route by `method` (`lexical` or `hybrid`) in a catalog of `n` skills,
    /// by `rules` when the settings give no hybrid cut.
    pub fn floor(&self, method: &str, n: usize, rules: &RoutingRules) -> f64 {
        if method == "hybrid" {
            self.hybrid_min_score
                .unwrap_or_else(|| rules.hybrid_floor(n))
        } else {
            self.min_score
        }
    }
}

/// See [`RoutingRules::hybrid_floor`]. The base was 0.16 until the small-talk raise had taken
/// on most of the cut's work (docs/routing.md, "The catalog's bar lowered").
const HYBRID_FLOOR_BASE: f64 = 0.15;
const HYBRID_FLOOR_SLOPE: f64 = 0.028;

/// Routing's word lists and constants as the build writes them into the manifest
/// (`routing_rules`, JSON; docs/artifact.md). Every runtime, this one too, routes an artifact
/// by the rules it carries, not by copies of its own: an artifact built by another version of
/// skillc is routed as that version built its index. This crate's constants are the one source
/// ([`RoutingRules::built_in`]); the build indexes the cards with them and writes them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RoutingRules {
    /// Words left out of every text ([`super::STOPWORDS`]). Private: `stop_set` is made of it.
    stopwords: Vec<String>,
    /// `stopwords` as a set, made when a text's words are first looked up in it.
    #[serde(skip)]
    stop_set: StopSet,
    /// English suffixes taken off, the first that fits ([`super::SUFFIXES`]).
    pub suffixes: Vec<String>,
    /// BM25's term-frequency saturation.
    pub k1: f64,
    /// BM25's length normalisation.
    pub b: f64,
    /// The factor of [`RoutingRules::evidence_scale`].
    pub evidence_factor: f64,
    /// The most distinct known words of a message a route weighs ([`super::MAX_WORDS`], at
    /// most 64: a bit each per skill).
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
    /// The share of a lean below `talk_words_from` the bar is lowered by, never under the
    /// catalog's ([`super::TALK_WORDS_LOWERS`]); 0 in an artifact built before it.
    #[serde(default)]
    pub talk_words_lowers: f64,
    /// Whether a message's lean weighs the pairs of its first and last piece with the edge
    /// ([`super::EDGE`], [`super::TALK_WORDS_ENDS`]); false in an artifact built before them.
    #[serde(default)]
    pub talk_words_ends: bool,
    /// How far under a hybrid route's bar its candidates after the first may score when the
    /// bar is the catalog's ([`super::TAIL_BELOW`]); 0 in an artifact built before it.
    #[serde(default)]
    pub tail_below: f64,
    /// How many skills, the first by their words, a route's candidates under its bar may be
    /// among ([`super::TAIL_WORDS`]); 0 in an artifact built before it (none may).
    #[serde(default)]
    pub tail_words: usize,
    /// [`RoutingRules::hybrid_floor`]: `base + slope · ln n`.
    pub hybrid_floor_base: f64,
    /// See `hybrid_floor_base`.
    pub hybrid_floor_slope: f64,
    /// The settings a workspace leaves unset ([`RoutingSettings::default`]; `hybrid_min_score`
    /// has none: the floor above).
    pub defaults: RoutingDefaults,
    /// Which unknown words a route reads as their nearest known word ([`super::SPELLING`]);
    /// none in an artifact built before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spelling: Option<super::Spelling>,
    /// Whether a message's meaning vector, too, reads its misspelt words as the meaning table's
    /// words one edit away ([`super::Meaning::spelt`], with `spelling`'s lengths); false in an
    /// artifact built before it.
    #[serde(default)]
    pub meaning_spelling: bool,
}

/// A set of the stopwords, made once from the rules' list (which nothing changes after).
#[derive(Debug, Clone, Default)]
struct StopSet(OnceLock<HashSet<String>>);

/// The default routing settings, as `routing_rules` writes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoutingDefaults {
    /// See [`RoutingSettings::top_k`].
    pub top_k: usize,
    /// See [`RoutingSettings::min_score`].
    pub min_score: f64,
    /// See [`RoutingSettings::confident`].
    pub confident: f64,
}

/// The rules of this crate: constants, made once.
static BUILT_IN: LazyLock<RoutingRules> = LazyLock::new(|| {
    let d = RoutingSettings::default();
    let owned = |words: &[&str]| words.iter().map(|w| w.to_string()).collect();
    RoutingRules {
        stopwords: owned(super::STOPWORDS),
        stop_set: StopSet::default(),
        suffixes: owned(super::SUFFIXES),
        k1: super::K1,
        b: super::B,
        evidence_factor: super::EVIDENCE_FACTOR,
        max_words: super::MAX_WORDS,
        lexical_share: super::LEXICAL_SHARE,
        small_talk_share: super::SMALL_TALK_SHARE,
        talk_words_share: super::TALK_WORDS_SHARE,
        talk_words_from: super::TALK_WORDS_FROM,
        talk_words_lowers: super::TALK_WORDS_LOWERS,
        talk_words_ends: super::TALK_WORDS_ENDS,
        tail_below: super::TAIL_BELOW,
        tail_words: super::TAIL_WORDS,
        hybrid_floor_base: HYBRID_FLOOR_BASE,
        hybrid_floor_slope: HYBRID_FLOOR_SLOPE,
        defaults: RoutingDefaults {
            top_k: d.top_k,
            min_score: d.min_score,
            confident: d.confident,
        },
        spelling: Some(super::SPELLING),
        meaning_spelling: true,
    }
});

impl RoutingRules {
    /// Whether `word` is one of the stopwords.
    pub fn is_stopword(&self, word: &str) -> bool {
        let set = (self.stop_set.0).get_or_init(|| self.stopwords.iter().cloned().collect());
        set.contains(word)
    }

    /// The rules of this crate, which the build indexes cards with and writes.
    pub fn built_in() -> &'static RoutingRules {
        &BUILT_IN
    }

    /// The rules an artifact carries (manifest `routing_rules`), or why a route refuses it.
    fn of(a: &Artifact) -> Result<Arc<RoutingRules>, String> {
        let path = a.path().display();
        let Some(text) = a.manifest("routing_rules") else {
            return Err(format!(
                "{path} cannot be routed: its manifest has no `routing_rules` (it was built by a \
                 skillc older than this runtime); build it again"
            ));
        };
        let unreadable = |why: String| {
            format!("`{path}` is not a readable skillc artifact: its `routing_rules` {why}")
        };
        let rules: RoutingRules =
            serde_json::from_str(text).map_err(|e| unreadable(format!("do not parse: {e}")))?;
        let numbers = [
            rules.k1,
            rules.b,
            rules.evidence_factor,
            rules.lexical_share,
            rules.small_talk_share,
            rules.talk_words_share,
            rules.talk_words_from,
            rules.talk_words_lowers,
            rules.tail_below,
            rules.hybrid_floor_base,
            rules.hybrid_floor_slope,
        ];
        if !numbers.iter().all(|x| x.is_finite())
            || rules.lexical_share >= 1.0
            || rules.tail_below < 0.0
        {
            return Err(unreadable("hold a number out of range".to_string()));
        }
        if let Some(s) = rules.spelling {
            if s.min_letters == 0 || s.max_letters > super::MAX_LETTERS {
                return Err(unreadable(format!(
                    "read words of {} to {} letters as their neighbours (1 to {})",
                    s.min_letters,
                    s.max_letters,
                    super::MAX_LETTERS
                )));
            }
        }
        if rules.max_words == 0 || rules.max_words > 64 {
            return Err(unreadable(format!(
                "weigh {} words of a message (1 to 64)",
                rules.max_words
            )));
        }
        Ok(Arc::new(rules))
    }

    /// The hybrid cut of a catalog of `n` skills when the settings give none: the likelier
    /// some skill's text is close to a message by chance, the larger the catalog, so the bar
    /// rises with it, as the lexical one does ([`RoutingRules::evidence_scale`]): 0.21 at 10
    /// skills, 0.25 at 32, 0.33 at 555, 0.34 at 1,000 (chosen on the labelled sets of
    /// `tests/quality/`, docs/routing.md), and a route raises it for a message nearer small
    /// talk than any skill ([`super::raised_floor`]). Kept to 6 decimals, so every runtime's
    /// logarithm gives the same bar.
    pub fn hybrid_floor(&self, n: usize) -> f64 {
        super::round(self.hybrid_floor_base + self.hybrid_floor_slope * (n.max(1) as f64).ln())
    }
}

impl Artifact {
    /// The routing settings of a client (`routing:` of its client.yaml, key by key over
    /// workspace.yaml's) or of the global bundle (`None`), defaults otherwise.
    pub fn routing_settings(&self, client: Option<&str>) -> RoutingSettings {
        let table = self.routing_table();
        client
            .and_then(|c| table.clients.get(c))
            .copied()
            .unwrap_or(table.global)
    }

    /// The routing rules the artifact carries (manifest `routing_rules`), which its routes
    /// follow; an error for an artifact without them (built before they were written).
    pub fn routing_rules(&self) -> Result<Arc<RoutingRules>, Error> {
        self.routing_table().rules.clone().map_err(Error::Request)
    }

    fn routing_table(&self) -> &RoutingTable {
        self.routing.get_or_init(|| RoutingTable::read(self))
    }
}
