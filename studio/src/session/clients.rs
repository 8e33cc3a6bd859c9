//! A client's page: its settings as the compiler reads them (locales, tiers, flags, variables,
//! toggles, its own skills, the variants its flags choose between), and lossless edits of its
//! client.yaml, one value at a time.

use std::collections::BTreeSet;

use serde::Serialize;
use skillc::model::Scope;

use super::disk::WritesOnDisk;
use super::files::write_atomic;
use super::{io_err, Session};
use crate::error::StudioError;

/// One variable of a client.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct ClientVar {
    /// `_global` or a skill's name.
    pub section: String,
    /// The variable.
    pub name: String,
    /// Its value; `None` for a secret (some skill declares it `secret: true`), never shown.
    pub value: Option<String>,
}

/// A variant some skill chooses by this workspace's flags, and whether it applies here.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct FlagVariant {
    /// The variant's name.
    pub name: String,
    /// Its SKILL.md.
    pub file: String,
    /// The skill it replaces.
    pub variant_of: String,
    /// Its `when` conditions in words.
    pub when: Vec<String>,
    /// Whether its conditions hold for this client's flags.
    pub applies: bool,
}

/// What the client page shows.
#[derive(Debug, Clone, Serialize, PartialEq, ts_rs::TS)]
pub struct ClientPage {
    /// The client id.
    pub client: String,
    /// Its client.yaml, relative to the workspace.
    pub file: String,
    /// The locales it is built for (`None`: all of the workspace's).
    pub locales: Option<Vec<String>>,
    /// Its tiers (`None`: all).
    pub tiers: Option<Vec<String>>,
    /// The workspace's locales and tiers, to choose from.
    pub all_locales: Vec<String>,
    /// The workspace's tiers.
    pub all_tiers: Vec<String>,
    /// Its flags, as written.
    pub flags: serde_json::Value,
    /// Its variables.
    pub vars: Vec<ClientVar>,
    /// Its toggles: skill and on/off.
    pub toggles: Vec<(String, bool)>,
    /// Its own skills: name and SKILL.md.
    pub own_skills: Vec<(String, String)>,
    /// The variants chosen by flags, and which apply to this client.
    pub variants: Vec<FlagVariant>,
}

impl Session {
    /// The page of client `id`.
    pub fn client_page(&self, id: &str) -> Result<ClientPage, StudioError> {
        let report = self.check()?;
        let ws = &report.workspace;
        let c = ws
            .clients
            .get(id)
            .ok_or_else(|| StudioError::request(format!("there is no client `{id}`")))?;
        let secret: BTreeSet<&str> = ws
            .skills
            .iter()
            .flat_map(|s| s.frontmatter.vars.iter())
            .filter(|(_, d)| d.secret)
            .map(|(n, _)| n.as_str())
            .collect();
        let vars = c
            .vars
            .iter()
            .flat_map(|(section, vars)| {
                vars.iter().map(|(name, value)| ClientVar {
                    section: section.clone(),
                    name: name.clone(),
                    value: (!secret.contains(name.as_str())).then(|| value.clone()),
                })
            })
            .collect();
        let mine =
            |s: &&std::sync::Arc<skillc::model::Skill>| s.scope == Scope::Client(id.to_string());
        let variants = ws
            .skills
            .iter()
            .filter(|s| s.scope == Scope::Global || mine(s))
            .filter(|s| !s.frontmatter.when.is_empty())
            .filter_map(|s| {
                let of = s.frontmatter.variant_of.as_ref()?;
                Some(FlagVariant {
                    name: s.name.clone(),
                    file: s.file.clone(),
                    variant_of: of.text.clone(),
                    when: s.frontmatter.when.iter().map(|p| p.words()).collect(),
                    // Tier and locale conditions depend on the bundle, not the client.
                    applies: s
                        .frontmatter
                        .when
                        .iter()
                        .all(|p| p.holds_for_flags(&c.flags) != Some(false)),
                })
            })
            .collect();
        Ok(ClientPage {
            client: id.to_string(),
            file: c.file.clone(),
            locales: c.locales.clone(),
            tiers: c.tiers.clone(),
            all_locales: ws.config.locales.clone(),
            all_tiers: ws.config.tiers.iter().map(|t| t.name.clone()).collect(),
            flags: c.flags.clone(),
            vars,
            toggles: c
                .toggles
                .iter()
                .map(|(k, t)| (k.clone(), t.enabled))
                .collect(),
            own_skills: ws
                .skills
                .iter()
                .filter(mine)
                .map(|s| (s.name.clone(), s.file.clone()))
                .collect(),
            variants,
        })
    }

    /// Sets (or, with `None`, removes) one value of client `id`'s client.yaml by its path of
    /// keys (`["flags", "competitors", "battlecard_mode"]`), touching only its lines.
    pub fn set_client_value(
        &self,
        id: &str,
        path: &[String],
        value: Option<&serde_json::Value>,
    ) -> Result<ClientPage, StudioError> {
        let file = format!("clients/{id}/client.yaml");
        {
            let _written = WritesOnDisk(&self.disk, Some(&file));
            if !self.check()?.workspace.clients.contains_key(id) {
                return Err(StudioError::request(format!("there is no client `{id}`")));
            }
            let full = self.inside(&file)?;
            let text = match std::fs::read_to_string(&full) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                Err(e) => return Err(io_err(e)),
            };
            let keys: Vec<&str> = path.iter().map(String::as_str).collect();
            let new =
                crate::form::with_edit(value, |edit| skillc::edit::set_path(&text, &keys, edit))?;
            write_atomic(&full, new.as_bytes())?;
        }
        self.client_page(id)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    fn path(p: &str) -> Vec<String> {
        p.split('.').map(str::to_string).collect()
    }

    #[test]
    fn a_client_page_shows_its_settings_and_a_flag_edit_changes_its_variant() {
        let (_d, s) = sample();
        let page = s.client_page("hyperline.co").unwrap();
        assert_eq!(
            page.flags["competitors"]["battlecard_mode"],
            serde_json::json!(true)
        );
        assert!(page
            .vars
            .iter()
            .any(|v| v.name == "COMPANY_NAME" && v.value.as_deref() == Some("Hyperline")));
        let battle = |p: &super::ClientPage| {
            p.variants
                .iter()
                .filter(|v| v.applies)
                .map(|v| v.name.clone())
                .collect::<Vec<_>>()
        };
        let before = battle(&page);
        assert!(!before.is_empty(), "{:?}", page.variants);
        let after = s
            .set_client_value(
                "hyperline.co",
                &path("flags.competitors.battlecard_mode"),
                Some(&serde_json::json!(false)),
            )
            .unwrap();
        assert_ne!(battle(&after), before, "the variant follows the flag");
        let text =
            std::fs::read_to_string(s.root.join("clients/hyperline.co/client.yaml")).unwrap();
        assert!(
            text.contains("battlecard_mode: false\n") && text.starts_with("# Tier 3 competitors"),
            "{text}"
        );
        let page = s
            .set_client_value(
                "northwind.io",
                &path("locales"),
                Some(&serde_json::json!(["en"])),
            )
            .unwrap();
        assert_eq!(page.locales, Some(vec!["en".to_string()]));
        assert_eq!(s.client_page("nobody.com").unwrap_err().kind, "request");
    }
}
