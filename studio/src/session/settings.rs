//! The workspace's settings page: its languages, plans, the client tools it ships to, its
//! routing and its consumers as the compiler reads them, and lossless edits of workspace.yaml,
//! one value at a time (the client page's edit by path, on the workspace's file). A plan is
//! edited as the item of `tiers:` that has its name (`tiers.fast.catalog_token_budget`), a
//! consumer as its key under `consumers:`.

use serde::Serialize;

use super::disk::WritesOnDisk;
use super::files::write_atomic;
use super::{io_err, Session};
use crate::error::{Diag, StudioError};

/// The workspace's settings file.
pub const WORKSPACE_FILE: &str = "workspace.yaml";

/// One plan (tier) as workspace.yaml writes it (a wrong value still shows, to be put right).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct PlanInfo {
    /// Its name.
    pub name: String,
    /// Its catalog's token budget as written, if it has one.
    pub catalog_token_budget: Option<serde_json::Value>,
    /// Its bodies: `full`, or `compact` (a skill's compact.md where it has one).
    pub body: String,
    /// The clients whose client.yaml names this plan (removing it leaves them an error).
    pub clients: Vec<String>,
}

/// One consumer: a part of the agent with its own catalog filter.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct ConsumerInfo {
    /// Its name (dotted, such as `answer.generator.strong`).
    pub name: String,
    /// Only skills matching these patterns are in its catalog (when any is written).
    pub enabled: Vec<String>,
    /// Skills matching these patterns are left out of its catalog.
    pub disabled: Vec<String>,
}

/// A routing setting: its key, what the workspace writes (`None`: the default) and the value
/// a route uses.
#[derive(Debug, Clone, Serialize, PartialEq, ts_rs::TS)]
pub struct RoutingValue {
    /// The key under `routing:`.
    pub key: &'static str,
    /// As written in workspace.yaml.
    pub written: Option<serde_json::Value>,
    /// What routes use when it is not written, in words.
    pub default: String,
}

/// What the settings page shows.
#[derive(Debug, Clone, Serialize, PartialEq, ts_rs::TS)]
pub struct WorkspacePage {
    /// The file the settings live in, relative to the workspace.
    pub file: &'static str,
    /// The languages, in order.
    pub locales: Vec<String>,
    /// The language of a bundle that names none.
    pub default_locale: String,
    /// The plans.
    pub tiers: Vec<PlanInfo>,
    /// Whether workspace.yaml writes `tiers:` (without it, the one plan `standard`; the first
    /// plan added then writes the list).
    pub tiers_written: bool,
    /// The client tools declared under `targets:`, in kebab-case.
    pub targets: Vec<String>,
    /// Every client tool skillc knows, to choose from.
    pub known_targets: Vec<String>,
    /// Whether `targets:` is written as a list of names (an edit then writes the whole list).
    pub targets_as_list: bool,
    /// The routing settings.
    pub routing: Vec<RoutingValue>,
    /// The consumers (parts of the agent with their own filters), by name.
    pub consumers: Vec<ConsumerInfo>,
    /// The diagnostics of workspace.yaml, and the errors an edit of it leaves in a client.yaml
    /// (a plan removed that a client names): an edit that makes either wrong says so here.
    pub diagnostics: Vec<Diag>,
}

/// The routing keys the page edits, with their defaults in words.
const ROUTING_KEYS: &[(&str, &str)] = &[
    ("top_k", "5"),
    ("min_score", "0.5 (routes by words alone)"),
    (
        "hybrid_min_score",
        "a bar that rises with the catalog's size",
    ),
    ("confident", "0.95"),
    (
        "embedding_model",
        "the built-in meaning (none: words alone)",
    ),
];

/// A target's name as workspace.yaml writes it.
fn target_name(t: skillc::model::targets::Target) -> String {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The plans as workspace.yaml writes them (or the default plan when it writes none), each
/// with the clients that name it.
fn plans(
    written: &serde_yaml::Value,
    config: &skillc::model::WorkspaceConfig,
    ws: &skillc::Workspace,
) -> Vec<PlanInfo> {
    let text = |v: Option<&serde_yaml::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let as_written = (written.get("tiers").and_then(|t| t.as_sequence()))
        .map(|items| {
            (items.iter())
                .filter_map(|item| {
                    let name = text(Some(item)).or_else(|| text(item.get("name")))?;
                    let budget = (item.get("catalog_token_budget"))
                        .and_then(|v| serde_json::to_value(v).ok());
                    Some((name, budget, text(item.get("body"))))
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_else(|| {
            (config.tiers.iter())
                .map(|t| (t.name.clone(), t.catalog_token_budget.map(Into::into), None))
                .collect()
        });
    (as_written.into_iter())
        .map(|(name, catalog_token_budget, body)| PlanInfo {
            clients: (ws.clients.values())
                .filter(|c| c.tiers.as_ref().is_some_and(|n| n.contains(&name)))
                .map(|c| c.id.clone())
                .collect(),
            name,
            catalog_token_budget,
            body: body.unwrap_or_else(|| "full".to_string()),
        })
        .collect()
}

impl Session {
    /// The workspace's settings page.
    pub fn workspace_page(&self) -> Result<WorkspacePage, StudioError> {
        let report = self.check()?;
        let config = &report.workspace.config;
        let text = std::fs::read_to_string(self.root.join(WORKSPACE_FILE)).unwrap_or_default();
        let written: serde_yaml::Value = serde_yaml::from_str(&text).unwrap_or_default();
        let routing = written.get("routing");
        Ok(WorkspacePage {
            file: WORKSPACE_FILE,
            locales: config.locales.clone(),
            default_locale: config.default_locale.clone(),
            tiers: plans(&written, config, &report.workspace),
            tiers_written: written.get("tiers").is_some(),
            targets: (config.targets.iter())
                .map(|t| target_name(t.target))
                .collect(),
            known_targets: (skillc::model::targets::Target::ALL.into_iter())
                .map(target_name)
                .collect(),
            targets_as_list: written.get("targets").is_some_and(|t| t.is_sequence()),
            routing: (ROUTING_KEYS.iter())
                .map(|(key, default)| RoutingValue {
                    key,
                    written: (routing.and_then(|r| r.get(*key)))
                        .and_then(|v| serde_json::to_value(v).ok()),
                    default: default.to_string(),
                })
                .collect(),
            consumers: (config.consumers.iter())
                .map(|(name, c)| ConsumerInfo {
                    name: name.clone(),
                    enabled: c.enabled.clone(),
                    disabled: c.disabled.clone(),
                })
                .collect(),
            diagnostics: (report.diagnostics.iter())
                .filter(|d| {
                    d.file == WORKSPACE_FILE
                        || (d.file.ends_with("/client.yaml")
                            && d.severity == skillc::diagnostic::Severity::Error)
                })
                .map(Diag::from)
                .collect(),
        })
    }

    /// Sets (or, with `None`, removes) one value of workspace.yaml by its path of keys
    /// (`["routing", "top_k"]`), touching only its lines.
    pub fn set_workspace_value(
        &self,
        path: &[String],
        value: Option<&serde_json::Value>,
    ) -> Result<WorkspacePage, StudioError> {
        {
            let _written = WritesOnDisk(&self.disk, Some(WORKSPACE_FILE));
            let full = self.inside(WORKSPACE_FILE)?;
            let text = std::fs::read_to_string(&full).map_err(io_err)?;
            let keys: Vec<&str> = path.iter().map(String::as_str).collect();
            let new =
                crate::form::with_edit(value, |edit| skillc::edit::set_path(&text, &keys, edit))?;
            write_atomic(&full, new.as_bytes())?;
        }
        self.workspace_page()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use serde_json::json;

    fn path(p: &str) -> Vec<String> {
        p.split('.').map(str::to_string).collect()
    }

    #[test]
    fn the_settings_page_edits_languages_targets_and_routing_keeping_every_other_line() {
        let (_d, s) = sample();
        let page = s.workspace_page().unwrap();
        assert_eq!(page.locales, ["en", "en-gb", "fr"]);
        assert_eq!(page.default_locale, "en");
        let fast = page.tiers.iter().find(|t| t.name == "fast").unwrap();
        assert_eq!(fast.catalog_token_budget, Some(json!(1500)));
        assert!(page.targets.is_empty());
        assert!(page.known_targets.contains(&"claude-code".to_string()));
        assert!((page.consumers.iter()).any(|c| c.name == "answer.generator.strong"));
        let file = s.root.join("workspace.yaml");
        let before = std::fs::read_to_string(&file).unwrap();
        // A language added: the workspace is built in it too.
        let page = s
            .set_workspace_value(&path("locales"), Some(&json!(["en", "en-gb", "fr", "de"])))
            .unwrap();
        assert_eq!(page.locales, ["en", "en-gb", "fr", "de"]);
        // Claude Code declared, for the budget meter and its checks.
        let page = s
            .set_workspace_value(&path("targets.claude-code"), Some(&json!({})))
            .unwrap();
        assert_eq!(page.targets, ["claude-code"]);
        let page = s
            .set_workspace_value(&path("routing.top_k"), Some(&json!(3)))
            .unwrap();
        let top_k = page.routing.iter().find(|r| r.key == "top_k").unwrap();
        assert_eq!(top_k.written, Some(json!(3)));
        assert!(page.diagnostics.is_empty(), "{:?}", page.diagnostics);
        let after = std::fs::read_to_string(&file).unwrap();
        for line in before.lines().filter(|l| !l.starts_with("locales:")) {
            assert!(after.contains(line), "`{line}` kept:\n{after}");
        }
        // A wrong value is written as asked and said, where it is.
        let page = s
            .set_workspace_value(&path("routing.top_k"), Some(&json!("many")))
            .unwrap();
        assert!(
            page.diagnostics.iter().any(|d| d.code == "E019"),
            "{:?}",
            page.diagnostics
        );
        // Removed again: the default applies.
        let page = s.set_workspace_value(&path("routing.top_k"), None).unwrap();
        let top_k = page.routing.iter().find(|r| r.key == "top_k").unwrap();
        assert_eq!(top_k.written, None);
    }

    #[test]
    fn plans_and_consumers_are_added_edited_and_removed_each_on_its_own_lines() {
        let (_d, s) = sample();
        let file = s.root.join("workspace.yaml");
        let before = std::fs::read_to_string(&file).unwrap();
        let page = s.workspace_page().unwrap();
        let pro = page.tiers.iter().find(|t| t.name == "pro").unwrap();
        assert_eq!(pro.clients, ["ibanfirst.com"]);
        assert!(page.tiers_written);
        let strong = &page.consumers[0];
        assert_eq!(strong.name, "answer.generator.strong");
        assert_eq!(strong.disabled, ["public.*-press"]);
        // A plan with a budget, added: one line more, after the other plans.
        let page = s
            .set_workspace_value(
                &path("tiers.gold"),
                Some(&json!({"catalog_token_budget": 900})),
            )
            .unwrap();
        let gold = page.tiers.iter().find(|t| t.name == "gold").unwrap();
        assert_eq!(gold.catalog_token_budget, Some(json!(900)));
        let after = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            after,
            before.replace(
                "  - { name: pro }\n",
                "  - { name: pro }\n  - { name: gold, catalog_token_budget: 900 }\n"
            )
        );
        // A budget that is not a number still shows, with what is wrong.
        let page = s
            .set_workspace_value(
                &path("tiers.gold.catalog_token_budget"),
                Some(&json!("lots")),
            )
            .unwrap();
        let gold = page.tiers.iter().find(|t| t.name == "gold").unwrap();
        assert_eq!(gold.catalog_token_budget, Some(json!("lots")));
        let said: Vec<&str> = page
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            said,
            ["tier `gold` is malformed: `catalog_token_budget` is a whole number of tokens, not `lots`"]
        );
        assert_eq!(page.diagnostics[0].line, 10, "on the plan's own line");
        s.set_workspace_value(&path("tiers.gold.catalog_token_budget"), Some(&json!(900)))
            .unwrap();
        // Fast's budget cleared, on its line.
        let page = s
            .set_workspace_value(&path("tiers.fast.catalog_token_budget"), None)
            .unwrap();
        let fast = page.tiers.iter().find(|t| t.name == "fast").unwrap();
        assert_eq!(
            (&fast.catalog_token_budget, fast.body.as_str()),
            (&None, "compact")
        );
        // A consumer whose name has dots, added with its filter, then removed.
        let name = vec!["consumers".to_string(), "summary.writer".to_string()];
        let page = s
            .set_workspace_value(&name, Some(&json!({"enabled": ["public.*"]})))
            .unwrap();
        let writer = page.consumers.iter().find(|c| c.name == "summary.writer");
        assert_eq!(writer.unwrap().enabled, ["public.*"]);
        assert!(page.diagnostics.is_empty(), "{:?}", page.diagnostics);
        let page = s.set_workspace_value(&name, None).unwrap();
        assert!(page.consumers.iter().all(|c| c.name != "summary.writer"));
        // A plan a client names, removed: the client's error shows on the page.
        let page = s.set_workspace_value(&path("tiers.pro"), None).unwrap();
        assert!(page.tiers.iter().all(|t| t.name != "pro"));
        assert!(
            (page.diagnostics.iter())
                .any(|d| d.file.contains("ibanfirst.com") && d.message.contains("pro")),
            "{:?}",
            page.diagnostics
        );
        let after = std::fs::read_to_string(&file).unwrap();
        for line in before
            .lines()
            .filter(|l| !l.contains("name: pro") && !l.contains("name: fast"))
        {
            assert!(after.contains(line), "`{line}` kept:\n{after}");
        }
    }
}
