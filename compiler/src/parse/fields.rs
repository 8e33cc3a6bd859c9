//! Reading typed values out of a YAML mapping, with a diagnostic for every value of the wrong
//! shape (the reader keeps going, so one run reports every bad field).

use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::model::fields::{Shape, FIELDS};
use crate::model::SkillRef;
use crate::parse::yaml::{value_kind, Seg, YamlDoc};

/// A cursor over one file's top-level mapping that collects diagnostics.
pub(crate) struct Fields<'a> {
    /// Workspace-relative file path.
    pub file: &'a str,
    /// The parsed document.
    pub doc: &'a YamlDoc,
    /// Where diagnostics go.
    pub diagnostics: &'a mut Vec<Diagnostic>,
}

impl<'a> Fields<'a> {
    /// Records a diagnostic.
    pub(crate) fn report(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// A diagnostic at `pos` in this file.
    pub(crate) fn diag(
        &self,
        code: &'static str,
        pos: Pos,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(code, self.file, pos, message)
    }

    fn wrong_type(&mut self, key: &str, expected: &str, found: &Value) {
        let d = self.diag(
            codes::INVALID_VALUE,
            self.doc.key_pos(key),
            format!("`{key}` must be {expected}, found {}", value_kind(found)),
        );
        self.report(d);
    }

    /// The frontmatter's plain fields ([`crate::model::fields::Field::plain`]), each read by
    /// its shape, by stored key.
    pub(crate) fn plain(&mut self) -> BTreeMap<String, serde_json::Value> {
        let mut out = BTreeMap::new();
        for field in FIELDS.iter().filter(|field| field.plain) {
            let name = field.name;
            let value = match field.shape {
                Shape::Text => self.string(name).map(serde_json::Value::from),
                Shape::Bool => self.bool(name).map(serde_json::Value::from),
                Shape::Int => self.int(name).map(serde_json::Value::from),
                Shape::Texts if self.doc.get(name).is_some() => Some(self.string_list(name).into()),
                // No plain field has another shape (a test in `model::fields` holds it).
                _ => None,
            };
            if let Some(value) = value {
                out.insert(field.key(), value);
            }
        }
        out
    }

    /// A scalar as a string (numbers and booleans in their YAML spelling).
    pub(crate) fn string(&mut self, key: &str) -> Option<String> {
        let doc: &'a YamlDoc = self.doc;
        let v = doc.get(key)?;
        if v.is_null() {
            return None;
        }
        match doc.text(&[Seg::Key(key)], v) {
            Some(s) => Some(s),
            None => {
                self.wrong_type(key, "a string", v);
                None
            }
        }
    }

    /// A mapping; absent or empty gives `None`, any other kind of value is reported with
    /// `expected` (e.g. "a map of variable names").
    pub(crate) fn mapping(&mut self, key: &str, expected: &str) -> Option<serde_yaml::Mapping> {
        match self.doc.get(key)? {
            Value::Mapping(m) => Some(m.clone()),
            Value::Null => None,
            _ => {
                let d = self.diag(
                    codes::INVALID_VALUE,
                    self.doc.key_pos(key),
                    format!("`{key}` must be {expected}"),
                );
                self.report(d);
                None
            }
        }
    }

    /// A boolean.
    pub(crate) fn bool(&mut self, key: &str) -> Option<bool> {
        match self.doc.get(key)? {
            Value::Bool(b) => Some(*b),
            Value::Null => None,
            other => {
                let other = other.clone();
                self.wrong_type(key, "`true` or `false`", &other);
                None
            }
        }
    }

    /// An integer.
    pub(crate) fn int(&mut self, key: &str) -> Option<i64> {
        match self.doc.get(key)? {
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            Value::Null => None,
            other => {
                let other = other.clone();
                self.wrong_type(key, "a whole number", &other);
                None
            }
        }
    }

    /// A list of scalars; a single scalar is read as a one-item list.
    pub(crate) fn string_list(&mut self, key: &str) -> Vec<String> {
        let doc: &'a YamlDoc = self.doc;
        let Some(v) = doc.get(key) else {
            return Vec::new();
        };
        self.list_of_strings(key, v)
    }

    /// Like [`Fields::string_list`] over a value already taken out of the mapping.
    pub(crate) fn list_of_strings(&mut self, key: &str, v: &Value) -> Vec<String> {
        // Scalars keep their written text when `v` is the top-level value of `key`.
        let top = self.doc.get(key).is_some_and(|t| std::ptr::eq(t, v));
        let doc: &'a YamlDoc = self.doc;
        let text = |path: &[Seg<'_>], item: &Value| match top {
            true => doc.text(path, item),
            false => crate::parse::yaml::scalar_string(item),
        };
        match v {
            Value::Null => Vec::new(),
            Value::Sequence(items) => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    match text(&[Seg::Key(key), Seg::Index(i)], item) {
                        Some(s) => out.push(s),
                        None => {
                            let d = self.diag(
                                codes::INVALID_VALUE,
                                self.doc.key_pos(key),
                                format!(
                                    "every item of `{key}` must be a string, found {}",
                                    value_kind(item)
                                ),
                            );
                            self.report(d);
                        }
                    }
                }
                out
            }
            other => match text(&[Seg::Key(key)], other) {
                Some(s) => vec![s],
                None => {
                    self.wrong_type(key, "a list of strings", other);
                    Vec::new()
                }
            },
        }
    }

    /// Skill references with their positions.
    pub(crate) fn refs(&mut self, key: &str) -> Vec<SkillRef> {
        let names = self.string_list(key);
        self.positioned(key, names)
    }

    /// Positions each name inside `key`'s block (repeated names get successive positions).
    pub(crate) fn positioned(&self, key: &str, names: Vec<String>) -> Vec<SkillRef> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for name in &names {
            let nth = seen.iter().filter(|s| **s == name.as_str()).count();
            seen.push(name);
            out.push(SkillRef {
                text: name.clone(),
                pos: self.doc.value_pos_nth(key, name, nth),
            });
        }
        out
    }

    /// A single skill reference.
    pub(crate) fn one_ref(&mut self, key: &str) -> Option<SkillRef> {
        let text = self.string(key)?;
        Some(SkillRef {
            pos: self.doc.value_pos(key, &text),
            text,
        })
    }

    /// Reports every top-level key not in `known`, with a suggestion.
    pub(crate) fn unknown_keys(&mut self, known: &[&str], code: &'static str, what: &str) {
        for key in self.doc.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let mut d = self.diag(
                code,
                self.doc.key_pos(&key),
                format!("unknown field `{key}` in {what}"),
            );
            if let Some(s) = crate::parse::names::did_you_mean(&key, known.iter().copied()) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            self.report(d);
        }
    }
}
