//! The Routing view: `skillc eval` over the last build (recall per client, the confusions with
//! their messages) and the skills whose own trigger examples route elsewhere (W119).

use std::time::{Duration, Instant};

use serde::Serialize;
use skillc::cases::eval::{self, BundleEval};
use skillc_runtime::{Artifact, BundleRef};

use super::{Diag, Session, StudioError};

/// How long the view spends on clients' bundles after the global one: on a workspace of
/// hundreds of clients it says how many it measured, and `skillc eval` measures them all.
const CLIENTS_BUDGET: Duration = Duration::from_secs(3);

/// What the Routing view shows.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct RoutingView {
    /// The global bundle first, then the clients measured, in name order.
    pub bundles: Vec<BundleEval>,
    /// Clients of the artifact.
    pub clients: usize,
    /// Every trigger example that routes first to another skill (W119 of the check).
    pub elsewhere: Vec<Diag>,
    /// The global catalog's skills without trigger examples, each with where its description
    /// routes: measured through their own words, as examples measure the others.
    pub described: Vec<eval::Described>,
}

impl Session {
    /// The routing figures of the last build, and the W119 warnings of the workspace.
    pub fn routing(&self) -> Result<RoutingView, StudioError> {
        let report = self.check()?;
        let (cases, _) = skillc::cases::load(&self.root, &report.workspace);
        let a = Artifact::open(self.artifact())
            .map_err(|e| StudioError::request(format!("build first: {e}")))?;
        let names = eval::bundles_to_evaluate(&a, &[], None, None);
        let started = Instant::now();
        let mut bundles = Vec::new();
        for (client, locale, tier) in &names {
            if !client.is_empty() && started.elapsed() > CLIENTS_BUDGET {
                break;
            }
            let r = BundleRef {
                client: (!client.is_empty()).then_some(client.as_str()),
                locale: Some(locale.as_str()),
                tier: Some(tier.as_str()),
            };
            let measured = eval::evaluate(&a, &[r], &cases, None, None, None)
                .map_err(|e| StudioError::request(e.to_string()))?;
            bundles.extend(measured);
        }
        let elsewhere = report
            .diagnostics
            .iter()
            .filter(|d| d.code == skillc::diagnostic::codes::EXAMPLE_ROUTES_ELSEWHERE)
            .map(Diag::from)
            .collect();
        let described = eval::described(&a, &BundleRef::default())
            .map_err(|e| StudioError::request(e.to_string()))?;
        Ok(RoutingView {
            described,
            clients: names.iter().filter(|(c, _, _)| !c.is_empty()).count(),
            bundles,
            elsewhere,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::sample;

    #[test]
    fn the_view_measures_every_client_and_lists_the_examples_that_route_elsewhere() {
        let (_dir, s) = sample();
        s.build(None).unwrap();
        let v = s.routing().unwrap();
        assert_eq!(v.bundles[0].client, None);
        assert_eq!(v.bundles.len(), 1 + v.clients);
        assert_eq!(v.clients, 5);
        assert!(
            v.elsewhere
                .iter()
                .any(|d| d.file.ends_with("demo_offer/SKILL.md")
                    && d.message.contains("case studies"))
        );
        // The sample's skills without trigger examples are measured by their description.
        let pdf = v.described.iter().find(|d| d.skill == "pdf-press").unwrap();
        assert!(pdf.description.contains("PDF"), "{pdf:?}");
        assert_eq!(pdf.first.as_deref(), Some("pdf-press"));
        assert!(v.described.iter().all(|d| d.skill != "pricing"));
    }
}
