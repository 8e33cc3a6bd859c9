//! The frontmatter fields a SKILL.md can have, declared once: the known list, the portable
//! core, the shape each value must have, whether another tool's shape is set aside, and where
//! a plain field's value goes (the stored record, display metadata, the exported SKILL.md)
//! derive from [`FIELDS`]. A plain field is a row here (and, if the runtimes read it, a field
//! of `skillc_runtime::Record`); the README's "Adding a frontmatter field" walks through it.

use serde::Serialize;

/// How a field's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// A string.
    Text,
    /// `true` or `false`.
    Bool,
    /// A whole number.
    Int,
    /// One skill name.
    Name,
    /// A list of skill names (one name alone is a list of one).
    Names,
    /// A list of strings (one string alone is a list of one).
    Texts,
    /// A string of space-separated words (`allowed-tools`).
    Words,
    /// A flat string-to-string mapping.
    Map,
    /// A structure of its own (conditions, requirements, tools, …).
    Structured,
}

impl Shape {
    /// The shape in words, as diagnostics say it.
    pub fn words(self) -> &'static str {
        match self {
            Shape::Text | Shape::Name => "a string",
            Shape::Bool => "`true` or `false`",
            Shape::Int => "a whole number",
            Shape::Names => "a list of skill names",
            Shape::Texts => "a list of strings",
            Shape::Words => "a space-separated string",
            Shape::Map => "a mapping of strings",
            Shape::Structured => "a structure of its own",
        }
    }
}

/// One frontmatter field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "FieldInfo"))]
pub struct Field {
    /// The key as written.
    pub name: &'static str,
    /// The shape of its value.
    pub(crate) shape: Shape,
    /// Part of the agentskills.io core (portable to every tool).
    pub(crate) portable: bool,
    /// Other tools use this name with other shapes: a value of another shape is set aside
    /// with a warning (and kept under `metadata` on export) rather than failing the build.
    pub(crate) shared: bool,
    /// What it is for, in one sentence for a content person (the studio's form shows it).
    pub(crate) about: &'static str,
    /// Read as written into [`crate::model::Frontmatter::plain`] (rather than into a slot of
    /// its own by a reader of its own in `parse::frontmatter`).
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub(crate) plain: bool,
    /// Where its value goes beyond the checks that read it.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub(crate) kept: Kept,
}

/// Where a field's value goes beyond the checks that read it, under its stored key
/// ([`Field::key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// Nowhere as written: the build phase that uses it decides what it becomes.
    Build,
    /// The stored record's field of the same key (`skillc_runtime::Record`), the base
    /// skill's: the runtimes act on it. An export writes it under `metadata`.
    Record,
    /// Display metadata (`record.meta`), the base skill's: how the skill's name shows. An
    /// export writes it under `metadata` (the portable core's at the top level).
    Label,
    /// Display metadata (`record.meta`) of the skill whose content is used. Exported as
    /// [`Kept::Label`] is.
    Meta,
}

impl Field {
    /// Read as written (a string, flag, number or list of strings) into
    /// [`crate::model::Frontmatter::plain`], and kept as `kept` says: such a field needs no
    /// code of its own beyond the rule that uses it.
    const fn plain(self, kept: Kept) -> Field {
        Field {
            plain: true,
            kept,
            ..self
        }
    }

    /// A field with a slot of its own whose value is kept as `kept` says too.
    const fn kept(self, kept: Kept) -> Field {
        Field { kept, ..self }
    }

    /// The key its value is stored under: `bindShells` is `bind_shells`, `allowed-tools`
    /// `allowed_tools` (the spelling of `Frontmatter`'s slots, of `Record` and of
    /// `record.meta`; an export writes it with dashes).
    pub(crate) fn key(&self) -> String {
        let mut key = String::with_capacity(self.name.len() + 2);
        for c in self.name.chars() {
            match c {
                '-' => key.push('_'),
                c if c.is_ascii_uppercase() => {
                    key.push('_');
                    key.push(c.to_ascii_lowercase());
                }
                c => key.push(c),
            }
        }
        key
    }
}

const fn core(name: &'static str, shape: Shape, about: &'static str) -> Field {
    Field {
        name,
        shape,
        portable: true,
        shared: false,
        about,
        plain: false,
        kept: Kept::Build,
    }
}

const fn own(name: &'static str, shape: Shape, about: &'static str) -> Field {
    Field {
        name,
        shape,
        portable: false,
        shared: false,
        about,
        plain: false,
        kept: Kept::Build,
    }
}

/// A field of another tool, kept from import and written back for the clients that read it.
const fn client(name: &'static str, shape: Shape, about: &'static str) -> Field {
    Field {
        name,
        shape,
        portable: false,
        shared: false,
        about,
        plain: false,
        kept: Kept::Build,
    }
}

/// Claude Code's own frontmatter fields beyond the six (code.claude.com/docs/en/skills,
/// "Frontmatter reference"), in its order. A collection written for Claude Code keeps them;
/// `export --target claude-code` writes them back (Copilot reads `argument-hint` and
/// `user-invocable` too).
pub(crate) const CLAUDE_CODE: [&str; 13] = [
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "effort",
    "context",
    "agent",
    "paths",
    "hooks",
    "shell",
    "disallowed-tools",
    "background",
];

const fn shared(name: &'static str, shape: Shape, about: &'static str) -> Field {
    Field {
        name,
        shape,
        portable: false,
        shared: true,
        about,
        plain: false,
        kept: Kept::Build,
    }
}

/// Every field this format knows: the portable core, then skillc's extensions.
#[rustfmt::skip]
pub const FIELDS: &[Field] = &[
    core("name", Shape::Text,
        "The name agents and other skills use for this skill."),
    core("description", Shape::Text,
        "What the skill does and when to use it: the catalog shows this to the agent."),
    core("license", Shape::Text,
        "The license the skill is shared under.").plain(Kept::Meta),
    core("compatibility", Shape::Text,
        "Which environments or products the skill works with, in a sentence.").plain(Kept::Meta),
    core("metadata", Shape::Map,
        "Free-form labels for your own tools; skillc keeps them and does not act on them.").kept(Kept::Meta),
    core("allowed-tools", Shape::Words,
        "Tools the agent may use with this skill, separated by spaces.").kept(Kept::Meta),
    shared("category", Shape::Text,
        "The group the skill belongs to; the catalog lists skills by category."),
    shared("emoji", Shape::Text,
        "An emoji shown next to the skill's name.").plain(Kept::Label),
    shared("required", Shape::Bool,
        "Marks the skill as one a client cannot do without."),
    shared("default_enabled", Shape::Bool,
        "Whether clients get the skill unless they turn it on or off themselves."),
    shared("always_on", Shape::Bool,
        "Put into every answer, whatever the agent picks (when its conditions hold)."),
    shared("hidden_from_llm", Shape::Bool,
        "Kept out of catalogs; other skills can still bring it in."),
    shared("trigger_examples", Shape::Texts,
        "Messages from visitors that should make the agent pick this skill."),
    own("conditions", Shape::Structured,
        "When the skill may be used at all (page, turn, language, availability)."),
    shared("dependencies", Shape::Names,
        "Skills brought in whenever this one is picked."),
    shared("augments", Shape::Names,
        "Skills that go together with this one: picking either brings both."),
    shared("blocks", Shape::Names,
        "Skills taken out whenever this one is in the answer."),
    shared("distinct_from", Shape::Names,
        "Skills whose similar wording is on purpose (silences the near-duplicate warning)."),
    shared("priority", Shape::Int,
        "Order within the category: a lower number is stronger.").plain(Kept::Record),
    shared("exclusive", Shape::Bool,
        "When picked, weaker skills of the same category are left out.").plain(Kept::Record),
    shared("variant_of", Shape::Name,
        "The skill this one replaces when its `when` conditions hold."),
    own("when", Shape::Structured,
        "The client settings under which this variant replaces its skill."),
    shared("variant_priority", Shape::Int,
        "Which variant wins when several apply: a lower number is tried first."),
    own("tiers", Shape::Texts,
        "The plans (tiers) the skill exists in; all of them when absent."),
    own("requires", Shape::Structured,
        "What must be present for the skill to be available (variables, programs, skills)."),
    own("vars", Shape::Structured,
        "Variables the skill's text uses, with defaults and which are secret."),
    own("mcp", Shape::Structured,
        "An MCP server the runtime starts for this skill."),
    shared("next_skill", Shape::Name,
        "The skill a pipeline goes to after this one."),
    own("conditional_next_skills", Shape::Map,
        "The next skill of a pipeline, chosen by the outcome."),
    own("namespace", Shape::Text,
        "public, internal or custom: who may see the skill."),
    shared("version", Shape::Text,
        "The skill's version, for your records.").plain(Kept::Meta),
    shared("tags", Shape::Texts,
        "Words to find the skill by.").plain(Kept::Meta),
    shared("author", Shape::Text,
        "Who wrote the skill.").plain(Kept::Meta),
    shared("created", Shape::Text,
        "When the skill was written.").plain(Kept::Meta),
    shared("when_to_use", Shape::Texts,
        "Situations in which the agent should pick this skill.").kept(Kept::Meta),
    shared("import", Shape::Names,
        "Skills pulled in with this one (same as imports)."),
    shared("imports", Shape::Names,
        "Skills pulled in with this one."),
    shared("displayName", Shape::Text,
        "The name shown to people, when it differs from `name`.").plain(Kept::Label),
    shared("bindShells", Shape::Texts,
        "Shells the skill's commands work in.").plain(Kept::Meta),
    own("provider", Shape::Structured,
        "The tool provider this skill declares.").kept(Kept::Meta),
    own("tools", Shape::Structured,
        "Tools the skill uses, each with why."),
    client("argument-hint", Shape::Text,
        "Claude Code and Copilot: the hint shown after the skill's `/` command."),
    client("arguments", Shape::Structured,
        "Claude Code: the named arguments of the skill's `/` command."),
    client("disable-model-invocation", Shape::Bool,
        "Claude Code, Cursor, VS Code: only a person starts the skill (read as `hidden_from_llm`)."),
    client("user-invocable", Shape::Bool,
        "Claude Code and Copilot: `false` keeps the skill out of the `/` menu."),
    client("model", Shape::Text,
        "Claude Code: the model the skill runs with."),
    client("effort", Shape::Text,
        "Claude Code: the reasoning effort the skill runs with."),
    client("context", Shape::Text,
        "Claude Code: `fork` runs the skill in a subagent of its own."),
    client("agent", Shape::Text,
        "Claude Code: the subagent a forked skill runs in."),
    client("paths", Shape::Texts,
        "Claude Code: the files whose use brings the skill in."),
    client("hooks", Shape::Structured,
        "Claude Code: hooks that run while the skill is active."),
    client("shell", Shape::Text,
        "Claude Code: the shell the skill's commands run in."),
    client("disallowed-tools", Shape::Words,
        "Claude Code: tools the skill may not use."),
    client("background", Shape::Bool,
        "Claude Code: the skill runs in the background."),
];

/// The field named `key`, if the format knows it.
pub(crate) fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == key)
}

/// The names of every known field, in declaration order.
pub(crate) fn known_names() -> impl Iterator<Item = &'static str> {
    FIELDS.iter().map(|f| f.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_declared_once() {
        let mut names: Vec<_> = known_names().collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    #[test]
    fn plain_fields_have_shapes_read_as_written() {
        let plain = [Shape::Text, Shape::Bool, Shape::Int, Shape::Texts];
        for f in FIELDS.iter().filter(|f| f.plain) {
            assert!(
                plain.contains(&f.shape),
                "{} is plain but {:?}",
                f.name,
                f.shape
            );
            assert!(
                f.kept != Kept::Build,
                "{} is plain but kept nowhere",
                f.name
            );
        }
    }

    #[test]
    fn stored_keys_are_snake_case() {
        let key = |name| field(name).map(Field::key);
        assert_eq!(key("bindShells").as_deref(), Some("bind_shells"));
        assert_eq!(key("allowed-tools").as_deref(), Some("allowed_tools"));
        assert_eq!(key("exclusive").as_deref(), Some("exclusive"));
    }
}
