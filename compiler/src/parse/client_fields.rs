//! Other tools' frontmatter fields kept with their meaning: Claude Code's own keys as written
//! (the same values go back out on `export --target claude-code`).

use std::collections::BTreeMap;

use crate::model::fields::CLAUDE_CODE;
use crate::model::Frontmatter;
use crate::parse::yaml::YamlDoc;

/// Fills in what `doc` says for other tools: Claude Code's fields as written, its
/// `disable-model-invocation: true` as `hidden_from_llm` (unless that is written too), and
/// every top-level key with where it is (for the checks of a client that refuses some).
pub(crate) fn read(fm: &mut Frontmatter, doc: &YamlDoc) {
    fm.client_fields = client_fields(doc);
    if fm.client_fields.get("disable-model-invocation") == Some(&serde_json::Value::Bool(true))
        && doc.get("hidden_from_llm").is_none()
    {
        fm.hidden_from_llm = true;
    }
    fm.keys = (doc.keys().into_iter())
        .map(|k| {
            let pos = doc.key_pos(&k);
            (k, pos)
        })
        .collect();
}

/// Claude Code's fields of `doc`, each value as its YAML says (as JSON; empty ones left out).
fn client_fields(doc: &YamlDoc) -> BTreeMap<String, serde_json::Value> {
    let mut out = BTreeMap::new();
    for key in CLAUDE_CODE {
        let Some(v) = doc.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        // A mapping with keys that are not strings has no JSON form; it is left out rather
        // than guessed at (no Claude Code field has one).
        if let Ok(json) = serde_json::to_value(v) {
            out.insert(key.to_string(), json);
        }
    }
    out
}
