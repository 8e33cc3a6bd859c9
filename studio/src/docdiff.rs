//! A SKILL.md change read as a document change, for Review: which fields changed from what to
//! what, and which paragraphs of the body went and came, instead of `@@` hunks.

use serde::Serialize;

use crate::form;

/// One frontmatter field before and after (`None`: absent on that side).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct FieldChange {
    /// The field.
    pub key: String,
    /// Its value before, as a person reads it.
    pub before: Option<String>,
    /// Its value after.
    pub after: Option<String>,
}

/// What changed in a SKILL.md (or a translation of one).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct DocChange {
    /// Fields added, removed or changed, in the order of the newer text.
    pub fields: Vec<FieldChange>,
    /// Paragraphs of the body that are gone.
    pub removed: Vec<String>,
    /// Paragraphs of the body that are new.
    pub added: Vec<String>,
}

/// A value in words: text as it is, a list as its items, anything else as JSON.
fn words(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) if items.iter().all(|i| i.is_string()) => items
            .iter()
            .filter_map(|i| i.as_str())
            .collect::<Vec<_>>()
            .join(" · "),
        other => other.to_string(),
    }
}

fn paragraphs(body: &str) -> Vec<String> {
    body.split("\n\n")
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The change from `before` to `after` (either may be absent: a new or deleted file), or
/// `None` when a side is not a readable SKILL.md (the line diff says it then).
pub fn document_change(before: Option<&str>, after: Option<&str>) -> Option<DocChange> {
    let parts = |t: Option<&str>| match t {
        None => Some((Vec::new(), String::new())),
        Some(t) => {
            let p = form::decompose(t);
            p.error.is_none().then_some((p.fields, p.body))
        }
    };
    let (old_fields, old_body) = parts(before)?;
    let (new_fields, new_body) = parts(after)?;
    let value = |fields: &[(String, serde_json::Value)], key: &str| {
        fields.iter().find(|(k, _)| k == key).map(|(_, v)| words(v))
    };
    let mut keys: Vec<&str> = new_fields.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &old_fields {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let fields = keys
        .into_iter()
        .map(|key| FieldChange {
            key: key.to_string(),
            before: value(&old_fields, key),
            after: value(&new_fields, key),
        })
        .filter(|c| c.before != c.after)
        .collect();
    let (old, new) = (paragraphs(&old_body), paragraphs(&new_body));
    Some(DocChange {
        fields,
        removed: old.iter().filter(|p| !new.contains(p)).cloned().collect(),
        added: new.iter().filter(|p| !old.contains(p)).cloned().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_reads_as_fields_and_paragraphs() {
        let before = "---\nname: greet   # kept\ndescription: Say hello.\ntags: [a, b]\n---\nHello.\n\nAsk how to help.\n";
        let after = "---\nname: greet   # kept\ndescription: Say hello warmly.\ntrigger_examples: [Hi]\n---\nHello.\n\nAsk what brings them here.\n";
        let c = document_change(Some(before), Some(after)).unwrap();
        let f = |k: &str| c.fields.iter().find(|x| x.key == k).cloned();
        assert_eq!(f("name"), None, "unchanged fields are left out");
        assert_eq!(
            f("description").map(|x| (x.before, x.after)),
            Some((Some("Say hello.".into()), Some("Say hello warmly.".into())))
        );
        assert_eq!(
            f("tags").map(|x| (x.before, x.after)),
            Some((Some("a · b".into()), None))
        );
        assert_eq!(
            f("trigger_examples").and_then(|x| x.after),
            Some("Hi".into())
        );
        assert_eq!(c.removed, ["Ask how to help."]);
        assert_eq!(c.added, ["Ask what brings them here."]);
        // A new file is all additions; an unreadable side leaves it to the line diff.
        let new = document_change(None, Some(after)).unwrap();
        assert_eq!(new.added.len(), 2);
        assert!(document_change(Some("---\nname: [unclosed\n---\n"), Some(after)).is_none());
    }
}
