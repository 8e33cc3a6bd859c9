//! The Routing view: `skillc eval` over the last build (recall per client, the confusions with
//! their messages) and the skills whose own trigger examples route elsewhere (W119). The
//! global bundle comes first; the clients' follow a few at a time, as the view asks for them,
//! so that a workspace of hundreds of clients shows its first figures at once and fills in
//! while the person reads (half a second a client on the reference workload, each routing
//! some 3,900 messages in a catalog of a thousand skills).

use serde::Serialize;
use skillc::cases::eval::{self, BundleEval};
use skillc_runtime::{Artifact, BundleRef};

use super::{Diag, Session, StudioError};

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
    /// The routing figures of the last build's global bundle, and the W119 warnings of the
    /// workspace; the clients' figures come from [`Session::routing_clients`].
    pub fn routing(&self) -> Result<RoutingView, StudioError> {
        let report = self.check()?;
        let (cases, _) = skillc::cases::load(&self.root, &report.workspace);
        let a = self.last_build()?;
        let names = eval::bundles_to_evaluate(&a, &[], None, None);
        let global: Vec<BundleRef<'_>> = (names.iter())
            .filter(|(client, _, _)| client.is_empty())
            .map(eval::bundle_ref)
            .collect();
        let bundles = eval::evaluate(&a, &global, &cases, None, None, None)
            .map_err(|e| StudioError::request(e.to_string()))?;
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

    /// The figures of the last build's clients `from` to `from + count` (in name order, as
    /// `skillc eval` lists them), measured side by side.
    pub fn routing_clients(
        &self,
        from: usize,
        count: usize,
    ) -> Result<Vec<BundleEval>, StudioError> {
        let report = self.check()?;
        let (cases, _) = skillc::cases::load(&self.root, &report.workspace);
        let a = self.last_build()?;
        let names = eval::bundles_to_evaluate(&a, &[], None, None);
        let clients: Vec<BundleRef<'_>> = (names.iter())
            .filter(|(client, _, _)| !client.is_empty())
            .skip(from)
            .take(count)
            .map(eval::bundle_ref)
            .collect();
        eval::evaluate_side_by_side(&a, &clients, &cases)
            .map_err(|e| StudioError::request(e.to_string()))
    }

    fn last_build(&self) -> Result<Artifact, StudioError> {
        Artifact::open(self.artifact())
            .map_err(|e| StudioError::request(format!("build first: {e}")))
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
        assert_eq!(v.bundles.len(), 1);
        assert_eq!(v.bundles[0].client, None);
        assert_eq!(v.clients, 5);
        // The clients come a few at a time, in name order, each once.
        let first = s.routing_clients(0, 3).unwrap();
        let rest = s.routing_clients(3, 3).unwrap();
        let names: Vec<_> = (first.iter().chain(&rest))
            .map(|b| b.client.clone().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "augment.org",
                "example.com",
                "hyperline.co",
                "ibanfirst.com",
                "northwind.io"
            ]
        );
        assert!(s.routing_clients(5, 3).unwrap().is_empty());
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
