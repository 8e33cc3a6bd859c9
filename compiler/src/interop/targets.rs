//! `skillc export --target`: a bundle written where one client (agent tool) reads skills, and
//! what that client's skill listing keeps of it. Clients list each skill's name and description
//! within a character budget and shorten or drop descriptions past it, silently; the report
//! says which, before it happens.

use std::path::{Path, PathBuf};

/// A client that reads agentskills.io folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// Claude Code: `.claude/skills`.
    ClaudeCode,
    /// OpenAI Codex: `.agents/skills`.
    Codex,
    /// Gemini CLI: `.gemini/skills`.
    Gemini,
    /// GitHub Copilot: `.github/skills`.
    Copilot,
    /// Any tool that reads the shared `.agents/skills` folder.
    Agents,
}

/// A client's listing budget, from its documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Characters of names and descriptions the listing holds.
    pub total: usize,
    /// Characters one description keeps, if the client cuts each.
    pub per_description: Option<usize>,
    /// Where the figures come from.
    pub source: &'static str,
}

impl Target {
    /// The folder, relative to a project's root, the client reads skills from.
    pub fn folder(self) -> &'static str {
        match self {
            Target::ClaudeCode => ".claude/skills",
            Target::Codex | Target::Agents => ".agents/skills",
            Target::Gemini => ".gemini/skills",
            Target::Copilot => ".github/skills",
        }
    }

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::ClaudeCode => "claude-code",
            Target::Codex => "codex",
            Target::Gemini => "gemini",
            Target::Copilot => "copilot",
            Target::Agents => "agents",
        }
    }

    /// The listing budget the client documents, if skillc knows one.
    pub fn budget(self) -> Option<Budget> {
        match self {
            Target::ClaudeCode => Some(Budget {
                total: 8_000,
                per_description: Some(1_536),
                source: "1% of a 200,000-token context at 4 characters a token, and 1,536 \
                         characters a description: code.claude.com/docs/en/skills (\"Skill \
                         descriptions are cut short\"); anthropics/claude-code#64606",
            }),
            Target::Codex => Some(Budget {
                total: 8_000,
                per_description: None,
                source: "about 2% of the model's context, or 8,000 characters when it is \
                         unknown: developers.openai.com/codex/skills",
            }),
            Target::Gemini | Target::Copilot | Target::Agents => None,
        }
    }
}

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
    let budget = target.budget();
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
            out.push_str(&format!(
                "  over budget by {} characters: {} shortens descriptions, and past that leaves \
                 skills out of its listing (the least used first), without a word\n",
                self.listed - b.total,
                t.name()
            ));
        }
        out
    }
}
