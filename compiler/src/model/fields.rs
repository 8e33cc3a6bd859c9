//! The frontmatter fields a SKILL.md can have, declared once: the known list, the portable
//! core, the shape each value must have and whether another tool's shape is set aside derive
//! from [`FIELDS`]. Adding a field is a row here, its slot in `Frontmatter` and the line that
//! reads it in `parse::frontmatter`.

use serde::Serialize;

/// How a field's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
pub struct Field {
    /// The key as written.
    pub name: &'static str,
    /// The shape of its value.
    pub shape: Shape,
    /// Part of the agentskills.io core (portable to every tool).
    pub portable: bool,
    /// Other tools use this name with other shapes: a value of another shape is set aside
    /// with a warning (and kept under `metadata` on export) rather than failing the build.
    pub shared: bool,
}

const fn core(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        portable: true,
        shared: false,
    }
}

const fn own(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        portable: false,
        shared: false,
    }
}

const fn shared(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        portable: false,
        shared: true,
    }
}

/// Every field this format knows: the portable core, then skillc's extensions.
#[rustfmt::skip]
pub const FIELDS: &[Field] = &[
    core("name", Shape::Text),
    core("description", Shape::Text),
    core("license", Shape::Text),
    core("compatibility", Shape::Text),
    core("metadata", Shape::Map),
    core("allowed-tools", Shape::Words),
    shared("category", Shape::Text),
    shared("emoji", Shape::Text),
    shared("required", Shape::Bool),
    shared("default_enabled", Shape::Bool),
    shared("always_on", Shape::Bool),
    shared("hidden_from_llm", Shape::Bool),
    shared("trigger_examples", Shape::Texts),
    own("conditions", Shape::Structured),
    shared("dependencies", Shape::Names),
    shared("augments", Shape::Names),
    shared("blocks", Shape::Names),
    shared("distinct_from", Shape::Names),
    shared("priority", Shape::Int),
    shared("exclusive", Shape::Bool),
    shared("variant_of", Shape::Name),
    own("when", Shape::Structured),
    shared("variant_priority", Shape::Int),
    own("tiers", Shape::Texts),
    own("requires", Shape::Structured),
    own("vars", Shape::Structured),
    own("mcp", Shape::Structured),
    shared("next_skill", Shape::Name),
    own("conditional_next_skills", Shape::Map),
    own("namespace", Shape::Text),
    shared("version", Shape::Text),
    shared("tags", Shape::Texts),
    shared("author", Shape::Text),
    shared("created", Shape::Text),
    shared("when_to_use", Shape::Texts),
    shared("import", Shape::Names),
    shared("imports", Shape::Names),
    shared("displayName", Shape::Text),
    shared("bindShells", Shape::Texts),
    own("provider", Shape::Structured),
    own("tools", Shape::Structured),
];

/// The field named `key`, if the format knows it.
pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == key)
}

/// The names of every known field, in declaration order.
pub fn known_names() -> impl Iterator<Item = &'static str> {
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
}
