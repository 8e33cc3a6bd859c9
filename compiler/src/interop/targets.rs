//! `skillc export --target`: a bundle written where one client (agent tool) reads skills, and
//! what that client's skill listing keeps of it. Clients list each skill's name and description
//! within a character budget and shorten or drop descriptions past it, silently; the report
//! says which, before it happens.

use std::path::{Path, PathBuf};

pub use crate::model::targets::{Budget, Target};

/// What a client's listing keeps of the exported skills.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The client.
    pub target: Target,
    /// Skills written.
    pub skills: usize,
    /// Characters of their names and descriptions.
    pub listed: usize,
    /// The client's budget, if known.
    pub budget: Option<Budget>,
    /// Each description past the client's cut: the skill and its length.
    pub cut: Vec<(String, usize)>,
}

/// Writes every available skill of a bundle into `project/<the client's folder>/` (a new or
/// empty folder), and says what the client's listing keeps of them.
pub fn export(
    artifact: &Path,
    bundle: &skillc_runtime::BundleRef<'_>,
    project: &Path,
    target: Target,
) -> Result<(Vec<PathBuf>, Report), super::export::Error> {
    let dirs = super::export::export(artifact, bundle, &project.join(target.folder()))?;
    let mut listed = 0;
    let mut cut = Vec::new();
    let budget = declared_budget(artifact, target).or(target.budget());
    for dir in &dirs {
        let (name, description) = name_and_description(&dir.join("SKILL.md"));
        let length = description.chars().count();
        listed += name.chars().count() + length;
        if budget
            .and_then(|b| b.per_description)
            .is_some_and(|most| length > most)
        {
            cut.push((name, length));
        }
    }
    let report = Report {
        target,
        skills: dirs.len(),
        listed,
        budget,
        cut,
    };
    Ok((dirs, report))
}

/// The budget the workspace declared for `target` (`workspace.yaml` `targets:`, kept in the
/// artifact's manifest), if it declared one.
fn declared_budget(artifact: &Path, target: Target) -> Option<Budget> {
    let a = skillc_runtime::Artifact::open(artifact).ok()?;
    let all: serde_json::Value = serde_json::from_str(a.manifest("targets")?).ok()?;
    let declared = all.get(target.name())?;
    let number = |k: &str| declared.get(k)?.as_u64().map(|n| n as usize);
    Some(Budget {
        total: number("total")?,
        per_description: number("per_description"),
        source: match target.budget() {
            Some(documented)
                if Some(documented.total) == number("total")
                    && documented.per_description == number("per_description") =>
            {
                documented.source
            }
            _ => "workspace.yaml `targets`",
        },
    })
}

/// The `name` and `description` of an exported SKILL.md.
fn name_and_description(file: &Path) -> (String, String) {
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
    (field("name"), field("description"))
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
            let over = self.listed - b.total;
            let average = self.listed / self.skills.max(1);
            out.push_str(&format!(
                "  over budget by {over} characters: {} shortens descriptions, and past that leaves \
                 about {} of the {} skills' descriptions out of its listing (the least used \
                 first), without a word\n",
                t.name(),
                over.div_ceil(average.max(1)).min(self.skills),
                self.skills
            ));
        }
        out
    }
}
