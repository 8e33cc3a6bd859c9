//! Routing settings (`routing:` of workspace.yaml, per client in client.yaml) as the manifest
//! keeps them, with the runtimes' documented defaults.

use std::collections::HashMap;

use serde::Serialize;

use crate::Artifact;

/// The routing settings of `workspace.yaml` (`routing:`), with their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RoutingSettings {
    /// At most this many candidates.
    pub top_k: usize,
    /// Candidates of a route by words score at least this.
    pub min_score: f64,
    /// Candidates of a route by words and vectors (`hybrid`) score at least this: the fused
    /// score is half a cosine, on another scale than the lexical one.
    pub hybrid_min_score: f64,
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
            hybrid_min_score: 0.33,
            confident: 0.95,
        }
    }
}

impl RoutingSettings {
    /// The cut of a route by `method` (`lexical` or `hybrid`).
    pub fn floor(&self, method: &str) -> f64 {
        if method == "hybrid" {
            self.hybrid_min_score
        } else {
            self.min_score
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
