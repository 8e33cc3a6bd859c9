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
