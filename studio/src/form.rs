//! The skill form: a SKILL.md split into frontmatter fields and body, and one field set
//! without touching any other line.

use crate::error::edit_err;
use crate::error::io_err;
use crate::StudioError;
use serde::Serialize;

/// A SKILL.md split for the form: frontmatter fields in file order, and the body.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, ts_rs::TS)]
pub struct Parts {
    /// `(key, value)` in file order.
    pub fields: Vec<(String, serde_json::Value)>,
    /// The text before the body: the frontmatter with its fences, byte for byte.
    pub head: String,
    /// The body after the frontmatter.
    pub body: String,
    /// Why the frontmatter could not be read (the form is then unavailable).
    pub error: Option<String>,
}

/// Splits a SKILL.md text into form fields and body.
pub fn decompose(text: &str) -> Parts {
    let fail = |e: String| Parts {
        fields: Vec::new(),
        head: String::new(),
        body: text.to_string(),
        error: Some(e),
    };
    let split = match skillc::split_frontmatter("SKILL.md", text) {
        Ok(s) => s,
        Err(d) => return fail(d.message),
    };
    let map: serde_yaml::Mapping = match serde_yaml::from_str(split.yaml) {
        Ok(serde_yaml::Value::Mapping(m)) => m,
        Ok(serde_yaml::Value::Null) => serde_yaml::Mapping::new(),
        Ok(_) => return fail("the frontmatter is not a mapping".into()),
        Err(e) => return fail(e.to_string()),
    };
    let fields = map
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), serde_json::to_value(v).ok()?)))
        .collect();
    let head = text[..text.len() - split.body.len()].to_string();
    Parts {
        fields,
        head,
        body: split.body.to_string(),
        error: None,
    }
}

/// Sets (or, with `None`, removes) one frontmatter field of a SKILL.md text with the
/// compiler's lossless edit (the code of `skillc set`): only that field's lines change, so
/// comments, key order and quoting elsewhere survive a form edit.
pub fn set_field(
    text: &str,
    field: &str,
    value: Option<&serde_json::Value>,
) -> Result<String, StudioError> {
    with_edit(value, |edit| skillc::edit::set_field(text, field, edit))
}

/// Runs a lossless edit that sets `value` (written as YAML) or, with `None`, removes it.
pub fn with_edit(
    value: Option<&serde_json::Value>,
    edit: impl FnOnce(&skillc::edit::FieldEdit<'_>) -> Result<String, skillc::edit::Error>,
) -> Result<String, StudioError> {
    let yaml = value
        .map(serde_yaml::to_string)
        .transpose()
        .map_err(io_err)?;
    let change = match &yaml {
        Some(y) => skillc::edit::FieldEdit::Set(y.trim_end_matches('\n')),
        None => skillc::edit::FieldEdit::Unset,
    };
    edit(&change).map_err(edit_err)
}

#[cfg(test)]
mod form_tests {
    use super::*;

    #[test]
    fn a_skill_round_trips_through_the_form() {
        let text = "---\nname: a\ndescription: d\ntrigger_examples:\n- one\n- two\npriority: 2\n---\nBody {{ x }}\n";
        let parts = decompose(text);
        assert_eq!(parts.error, None);
        assert_eq!(
            parts.fields[0],
            ("name".to_string(), serde_json::json!("a"))
        );
        assert_eq!(parts.fields[2].1, serde_json::json!(["one", "two"]));
        assert_eq!(format!("{}{}", parts.head, parts.body), text);
    }

    #[test]
    fn a_form_edit_keeps_every_other_line() {
        // Seed 000 annotates its trigger examples with comments; a form edit of another field
        // must leave them, the key order and the quoting as they are.
        let text = "---\r\nname: demo   # shown to buyers\r\ndescription: 'Offer a demo'\r\ntrigger_examples:\r\n  - \"Can I see it?\"   # the classic\r\npriority: 1\r\n---\r\nBody\r\n";
        let out = set_field(text, "priority", Some(&serde_json::json!(3))).unwrap();
        assert_eq!(out, text.replace("priority: 1", "priority: 3"));
        let out = set_field(
            text,
            "description",
            Some(&serde_json::json!("Book a demo: now")),
        )
        .unwrap();
        assert_eq!(out, text.replace("'Offer a demo'", "'Book a demo: now'"));
        let out = set_field(text, "emoji", None);
        assert!(out.is_err(), "removing an absent field is an error");
        let out = set_field(text, "priority", None).unwrap();
        assert_eq!(out, text.replace("priority: 1\r\n", ""));
    }

    #[test]
    fn an_unreadable_frontmatter_keeps_the_text() {
        let parts = decompose("no frontmatter");
        assert!(parts.error.is_some());
        assert_eq!(parts.body, "no frontmatter");
    }
}
