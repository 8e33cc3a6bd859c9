//! `skillc export --target`: a bundle written where one client (agent tool) reads skills, and
//! what that client's skill listing keeps of it. Clients list each skill's name and description
//! within a character budget and shorten or drop descriptions past it, silently; the report
//! says which, before it happens.

use std::path::{Path, PathBuf};

pub use crate::model::targets::{Budget, Report, Target};

/// Writes every available skill of a bundle into `project/<the client's folder>/` (a new or
/// empty folder), untrusted skills without their code, and says what the client's listing
/// keeps of them.
pub fn export(
    artifact: &Path,
    bundle: &skillc_runtime::BundleRef<'_>,
    project: &Path,
    target: Target,
) -> Result<(Vec<PathBuf>, Report), super::export::Error> {
    export_with(artifact, bundle, project, target, false).map(|(e, r)| (e.dirs, r))
}

/// [`export`], with untrusted skills' code too when `include_untrusted`; says what it left out.
pub fn export_with(
    artifact: &Path,
    bundle: &skillc_runtime::BundleRef<'_>,
    project: &Path,
    target: Target,
    include_untrusted: bool,
) -> Result<(super::export::Exported, Report), super::export::Error> {
    let folder = project.join(target.folder());
    let exported =
        super::export::export_for(artifact, bundle, &folder, include_untrusted, Some(target))?;
    let dirs = &exported.dirs;
    let declared = skillc_runtime::Artifact::open(artifact)
        .ok()
        .and_then(|a| declared(&a).into_iter().find(|(t, _)| *t == target));
    let budget = declared.map(|(_, b)| b).or(target.budget());
    let written: Vec<(String, String)> = (dirs.iter())
        .map(|d| name_and_description(&d.join("SKILL.md"), target))
        .collect();
    let report = Report::of(
        target,
        budget,
        written.iter().map(|(n, d)| (n.as_str(), d.as_str())),
    );
    Ok((exported, report))
}

/// The client tools the workspace declared (`workspace.yaml` `targets:`, kept in the artifact's
/// manifest), each with its budget.
pub fn declared(a: &skillc_runtime::Artifact) -> Vec<(Target, Budget)> {
    let Some(all) = a
        .manifest("targets")
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
    else {
        return Vec::new();
    };
    let budget = |target: Target, declared: &serde_json::Value| {
        let number = |k: &str| declared.get(k)?.as_u64().map(|n| n as usize);
        let (total, per_description) = (number("total")?, number("per_description"));
        let source = match target.budget() {
            Some(documented)
                if documented.total == total && documented.per_description == per_description =>
            {
                documented.source
            }
            _ => "workspace.yaml `targets`",
        };
        Some(Budget {
            total,
            per_description,
            source,
        })
    };
    (Target::ALL.into_iter())
        .filter_map(|t| Some((t, budget(t, all.get(t.name())?)?)))
        .collect()
}

/// The `name` and the listed text of an exported SKILL.md: its `description`, and for Claude
/// Code its `when_to_use` too, which Claude Code lists with the description, within the same
/// per-skill cap (code.claude.com/docs/en/skills).
fn name_and_description(file: &Path, target: Target) -> (String, String) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let front = text.split("---\n").nth(1).unwrap_or_default();
    let value: serde_yaml::Value = serde_yaml::from_str(front).unwrap_or_default();
    let field = |key: &str| {
        value
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let mut listed = field("description");
    let when = field("when_to_use");
    if target == Target::ClaudeCode && !when.is_empty() {
        listed = format!("{listed}\n{when}");
    }
    (field("name"), listed)
}

impl Report {
    /// The report as lines for a person.
    pub fn text(&self) -> String {
        let t = self.target;
        let mut out = format!(
            "{} reads skills from {}: {} skills, {} characters of names and descriptions",
            t.name(),
            t.folder(),
            self.skills,
            self.listed
        );
        let Some(b) = self.budget else {
            out.push_str(&format!(
                "\n  {} documents no listing budget that skillc knows of\n",
                t.name()
            ));
            return out;
        };
        out.push_str(&format!(
            ", {}% of its {} ({})\n",
            self.listed * 100 / b.total.max(1),
            b.total,
            b.source
        ));
        for (name, length) in &self.cut {
            out.push_str(&format!(
                "  cut: `{name}`'s description has {length} characters; {} keeps {}\n",
                t.name(),
                b.per_description.unwrap_or(*length)
            ));
        }
        if self.listed > b.total {
            out.push_str(&format!(
                "  over budget by {} characters: {} shortens descriptions, and past that leaves \
                 about {} of the {} skills' descriptions out of its listing (the least used \
                 first), without a word\n",
                self.listed - b.total,
                t.name(),
                self.dropped,
                self.skills
            ));
        }
        out
    }
}
