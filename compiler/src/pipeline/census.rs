//! Taking the census of a workspace built batch by batch (see [`crate::model::census`]): each
//! batch adds its skills and clients.

use crate::model::census::Census;
use crate::model::{Scope, Workspace};
use crate::resolve::pool;

impl Census {
    /// Adds a batch: its clients and their skills, and the global skills if `with_global`
    /// (the first batch). Batches are added in the order of their clients, as a workspace
    /// loaded whole sorts its skills (global ones first, then by client): the facts kept in
    /// order of first appearance come out the same.
    pub(crate) fn add(&mut self, ws: &Workspace, with_global: bool) {
        let skills: Vec<usize> = (0..ws.skills.len())
            .filter(|&i| with_global || ws.skills[i].scope != Scope::Global)
            .collect();
        for &i in &skills {
            let s = &ws.skills[i];
            let namespaces = self.names.entry(s.name.clone()).or_default();
            if !namespaces.contains(&s.namespace) {
                namespaces.push(s.namespace.clone());
            }
            self.skill_categories.extend(s.category.iter().cloned());
            self.qualified.insert(s.qualified_name());
        }
        for c in ws.clients.values() {
            if let Some(routing) = &c.routing {
                self.client_routing.insert(c.id.clone(), routing.clone());
            }
            for (section, vars) in &c.vars {
                for var in vars.keys() {
                    self.client_vars.insert((section.clone(), var.clone()));
                }
            }
        }
        // The shared plugins come with every batch: kept once, by manifest and place.
        let mut place = (String::new(), 0);
        for p in &ws.plugins {
            place = match place.0 == p.manifest {
                true => (place.0, place.1 + 1),
                false => (p.manifest.clone(), 0),
            };
            self.plugins
                .entry(place.clone())
                .or_insert_with(|| p.clone());
        }
        let these = || skills.iter().map(|&i| &*ws.skills[i]);
        self.secret_vars
            .extend(crate::model::secret_names_of(these()));
        self.asset_bytes += crate::model::asset_bytes_of(these());
        self.words.add(ws, &skills);
        pool::gather(&mut self.sources, skills.iter().map(|&i| &*ws.skills[i]));
        let global = skills
            .iter()
            .filter(|&&i| ws.skills[i].scope == Scope::Global)
            .count();
        self.counts.skills += skills.len();
        self.counts.global_skills += global;
        self.counts.clients += ws.clients.len();
    }
}
