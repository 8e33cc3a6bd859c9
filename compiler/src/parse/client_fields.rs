//! Other tools' frontmatter fields kept with their meaning: Claude Code's own keys as written
//! (the same values go back out on `export --target claude-code`).

use std::collections::BTreeMap;

use crate::model::fields::CLAUDE_CODE;
use crate::parse::yaml::YamlDoc;

/// Claude Code's fields of `doc`, each value as its YAML says (as JSON; empty ones left out).
pub(crate) fn client_fields(doc: &YamlDoc) -> BTreeMap<String, serde_json::Value> {
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
