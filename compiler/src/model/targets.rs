//! The client tools that read agentskills.io folders (`export --target`, `workspace.yaml`
//! `targets:`), where each reads skills from and the listing budget each documents.

use crate::diagnostic::Pos;

/// A client that reads agentskills.io folders.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, clap::ValueEnum,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
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
    /// Cursor: `.cursor/skills`.
    Cursor,
    /// claude.ai uploads and the Claude Skills API: one folder per skill under `skills/`, to be
    /// zipped and uploaded; they refuse any frontmatter key outside the six of the
    /// specification.
    ClaudeApi,
}

/// A client's listing budget, from its documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Budget {
    /// Characters of names and descriptions the listing holds.
    pub(crate) total: usize,
    /// Characters one description keeps, if the client cuts each.
    pub(crate) per_description: Option<usize>,
    /// Where the figures come from.
    pub(crate) source: &'static str,
}

impl Target {
    /// The folder, relative to a project's root, the client reads skills from.
    pub fn folder(self) -> &'static str {
        match self {
            Target::ClaudeCode => ".claude/skills",
            Target::Codex | Target::Agents => ".agents/skills",
            Target::Gemini => ".gemini/skills",
            Target::Copilot => ".github/skills",
            Target::Cursor => ".cursor/skills",
            Target::ClaudeApi => "skills",
        }
    }

    /// Its name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Target::ClaudeCode => "claude-code",
            Target::Codex => "codex",
            Target::Gemini => "gemini",
            Target::Copilot => "copilot",
            Target::Agents => "agents",
            Target::Cursor => "cursor",
            Target::ClaudeApi => "claude-api",
        }
    }

    /// The listing budget the client documents, if skillc knows one.
    pub(crate) fn budget(self) -> Option<Budget> {
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
            Target::Gemini
            | Target::Copilot
            | Target::Agents
            | Target::Cursor
            | Target::ClaudeApi => None,
        }
    }
}

impl Target {
    /// Every target, in command-line order.
    pub const ALL: [Target; 7] = [
        Target::ClaudeCode,
        Target::Codex,
        Target::Gemini,
        Target::Copilot,
        Target::Agents,
        Target::Cursor,
        Target::ClaudeApi,
    ];

    /// The target named `name` on the command line.
    pub(crate) fn named(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// A target `workspace.yaml` declares under `targets:`, with its budget (the documented one,
/// or the figures the workspace gives instead).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeclaredTarget {
    /// The client tool.
    pub target: Target,
    /// Its listing budget, when it documents one or the workspace gives one (none: no
    /// budget check, the other checks of the client still apply).
    pub(crate) budget: Option<Budget>,
    /// Whether the workspace gives figures of its own.
    pub(crate) overridden: bool,
    /// Where `targets.<name>` is written.
    #[serde(skip)]
    pub(crate) pos: Pos,
}

/// What a client's listing keeps of a bundle's skills.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TargetMeter"))]
pub struct Report {
    /// The client.
    pub target: Target,
    /// Skills listed.
    pub skills: usize,
    /// Characters of their names and descriptions, each description as the client cuts it.
    pub(crate) listed: usize,
    /// The client's budget, if known.
    pub(crate) budget: Option<Budget>,
    /// Each description past the client's cut: the skill and its length.
    pub cut: Vec<(String, usize)>,
    /// About how many descriptions the client leaves out to fit its budget (the least used
    /// first, which only it knows): the characters over, in descriptions of average length.
    pub(crate) dropped: usize,
}

impl Report {
    /// What `target`, at `budget`, lists of skills given as (name, description).
    pub fn of<'s>(
        target: Target,
        budget: Option<Budget>,
        skills: impl IntoIterator<Item = (&'s str, &'s str)>,
    ) -> Report {
        let per = budget.and_then(|b| b.per_description);
        let (mut count, mut listed, mut cut) = (0, 0, Vec::new());
        for (name, description) in skills {
            let length = description.chars().count();
            count += 1;
            listed += name.chars().count() + per.map_or(length, |most| length.min(most));
            if per.is_some_and(|most| length > most) {
                cut.push((name.to_string(), length));
            }
        }
        let dropped = match budget.map(|b| listed.saturating_sub(b.total)) {
            Some(over) if over > 0 => over.div_ceil((listed / count.max(1)).max(1)).min(count),
            _ => 0,
        };
        Report {
            target,
            skills: count,
            listed,
            budget,
            cut,
            dropped,
        }
    }
}
