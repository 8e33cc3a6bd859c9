//! Lossless edits of a value anywhere in a YAML file (`flags.competitors.battlecard_mode` of a
//! client.yaml): block-style mappings are walked line by line and only the edited key's lines
//! change; a flow-style value met on the way (`competitors: { names: [], battlecard_mode: true }`)
//! is rewritten on its one line from its parsed value, its inline comment kept. A key under a
//! list names one of its items (`tiers.fast`: the tier named `fast`, see [`super::items`]).

use serde_yaml::Value;

use super::{block, indent_of, inline_comment, is_blank_or_comment, line_ending, lines, render};
use super::{items, parse_value, Error, FieldEdit};

/// Sets (or removes) the value at `path` in a YAML mapping document.
pub fn set_path(text: &str, path: &[&str], edit: &FieldEdit<'_>) -> Result<String, Error> {
    if path.is_empty() || path.iter().any(|k| !plain_key(k)) {
        return Err(Error::Invalid(format!(
            "`{}` is not a path of keys",
            path.join(".")
        )));
    }
    if let FieldEdit::Set(v) = edit {
        parse_value(v)?;
    }
    let ls = lines(text);
    let nl = line_ending(text);
    let (mut from, mut to, mut indent) = (0, ls.len(), 0);
    // The blocks of the keys above the one edited, outermost first.
    let mut parents: Vec<(usize, usize)> = Vec::new();
    for (depth, key) in path.iter().enumerate() {
        let rest = &path[depth + 1..];
        let Some((start, end)) = block(&ls, from, to, key, indent) else {
            let FieldEdit::Set(value) = edit else {
                return Ok(text.to_string()); // nothing to remove
            };
            let at = last_content(&ls, from, to);
            let new = nested(&path[depth..], value, indent, nl);
            return Ok(splice(&ls, at, at, &new, nl));
        };
        let inline = inline_value(ls[start]);
        if rest.is_empty() {
            let new = match edit {
                FieldEdit::Set(value) => {
                    let comment = (end - start == 1)
                        .then(|| inline_comment(ls[start]))
                        .flatten();
                    render(key, value, indent, nl, comment)
                }
                FieldEdit::Unset => {
                    let start = emptied_parents(&ls, &parents, start, end);
                    return Ok(splice(&ls, start, end, "", nl));
                }
            };
            return Ok(splice(&ls, start, end, &new, nl));
        }
        if !inline.is_empty() {
            // A flow value on the key's line: set the rest of the path in it, on that line.
            let mut v: Value = serde_yaml::from_str(inline)
                .map_err(|e| Error::Invalid(format!("`{key}` is not YAML: {e}")))?;
            set_in_value(&mut v, rest, edit)?;
            let comment = inline_comment(ls[start]).unwrap_or("");
            let line = format!("{}{key}: {}{comment}{nl}", " ".repeat(indent), flow(&v));
            return Ok(splice(&ls, start, start + 1, &line, nl));
        }
        let first = (start + 1..end).find(|&i| !is_blank_or_comment(ls[i]));
        if let Some(first) = first.filter(|&i| items::is_item(ls[i])) {
            return items::set_in_block(&ls, first, end, rest, edit, nl);
        }
        let child = first.map_or(indent + 2, |i| indent_of(ls[i]));
        parents.push((start, end));
        (from, to, indent) = (start + 1, end, child);
    }
    unreachable!("the last key of the path returns")
}

/// Where the lines to remove start when a key's block `[start, end)` is removed: at the first
/// of the keys above it (innermost first) that would be left holding nothing, not even a
/// comment (`targets:` with its one tool removed would read as `targets: null`).
fn emptied_parents(ls: &[&str], parents: &[(usize, usize)], mut start: usize, end: usize) -> usize {
    for &(key, last) in parents.iter().rev() {
        if key + 1 != start || last != end || !inline_value(ls[key]).is_empty() {
            break;
        }
        start = key;
    }
    start
}

/// A key the line walk can find: no quoting, no flow or comment characters.
fn plain_key(k: &str) -> bool {
    !k.is_empty()
        && !k.contains([':', '#', '{', '}', '[', ']', ',', '\n', '"', '\''])
        && k.trim() == k
}

/// The value written on a key's own line (without its comment), or "" for a block.
pub(super) fn inline_value(line: &str) -> &str {
    let body = line.trim_end_matches(['\n', '\r']);
    let value = body.split_once(':').map_or("", |(_, v)| v).trim();
    if value.starts_with('#') {
        return "";
    }
    match inline_comment(body) {
        Some(c) => value[..value.len() - c.trim_start().len()].trim_end(),
        None => value,
    }
}

/// Where to add a key at the end of `[from, to)`: after its last line that is not blank or a
/// comment (those belong to what follows).
fn last_content(ls: &[&str], from: usize, to: usize) -> usize {
    (from..to)
        .rev()
        .find(|&i| !is_blank_or_comment(ls[i]))
        .map_or(from, |i| i + 1)
}

/// `a:\n  b:\n    c: value` for the path `[a, b, c]`.
fn nested(path: &[&str], value: &str, indent: usize, nl: &str) -> String {
    let (last, parents) = path.split_last().expect("a path has a key");
    let mut out = String::new();
    for (i, k) in parents.iter().enumerate() {
        out.push_str(&format!("{}{k}:{nl}", " ".repeat(indent + 2 * i)));
    }
    out.push_str(&render(last, value, indent + 2 * parents.len(), nl, None));
    out
}

pub(super) fn splice(ls: &[&str], start: usize, end: usize, new: &str, nl: &str) -> String {
    let mut out: String = ls[..start].concat();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(nl);
    }
    out.push_str(new);
    out.extend(ls[end..].iter().copied());
    out
}

pub(super) fn set_in_value(
    v: &mut Value,
    path: &[&str],
    edit: &FieldEdit<'_>,
) -> Result<(), Error> {
    let (key, rest) = path.split_first().expect("a path has a key");
    if v.is_null() {
        *v = Value::Mapping(Default::default());
    }
    if let Value::Sequence(seq) = v {
        return items::set_in_sequence(seq, path, edit);
    }
    let Value::Mapping(map) = v else {
        return Err(Error::Invalid(format!(
            "`{key}` is under a value that is not a mapping"
        )));
    };
    let k = Value::String(key.to_string());
    if rest.is_empty() {
        match edit {
            FieldEdit::Set(text) => {
                map.insert(k, parse_value(text)?);
            }
            FieldEdit::Unset => {
                map.remove(&k);
            }
        }
        return Ok(());
    }
    match map.get_mut(&k) {
        Some(child) => set_in_value(child, rest, edit),
        None if matches!(edit, FieldEdit::Unset) => Ok(()),
        None => {
            let mut child = Value::Null;
            set_in_value(&mut child, rest, edit)?;
            map.insert(k, child);
            Ok(())
        }
    }
}

/// A value in flow style on one line: `{ a: 1, b: [x, y] }`.
pub(super) fn flow(v: &Value) -> String {
    match v {
        Value::Mapping(m) if m.is_empty() => "{}".to_string(),
        Value::Mapping(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", flow(k), flow(v)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        Value::Sequence(s) => format!("[{}]", s.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::String(s) => scalar(s),
        Value::Tagged(t) => flow(&t.value),
        other => {
            serde_yaml::to_string(other).map_or_else(|_| "null".into(), |t| t.trim().to_string())
        }
    }
}

/// A string plain when it reads back as the same string, else double-quoted (JSON's quoting is
/// YAML's).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.trim() == s
        && s.chars()
            .all(|c| c.is_alphanumeric() || " _-./@".contains(c))
        && !s.starts_with(['-', '.', '@'])
        && matches!(serde_yaml::from_str::<Value>(s), Ok(Value::String(ref back)) if back == s);
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIENT: &str = "# Tier 3 competitors.\nlocales: [en, fr]\nflags:\n  competitors:   # who we compare with\n    names: [Chargebee, Maxio]\n    battlecard_mode: true\n\n# Variables.\nvars:\n  _global: { COMPANY_NAME: Hyperline }   # shown in greetings\n";

    fn set(text: &str, path: &str, value: &str) -> String {
        let path: Vec<&str> = path.split('.').collect();
        set_path(text, &path, &FieldEdit::Set(value)).unwrap()
    }

    #[test]
    fn a_nested_block_value_changes_only_its_line() {
        let out = set(CLIENT, "flags.competitors.battlecard_mode", "false");
        assert_eq!(
            out,
            CLIENT.replace("battlecard_mode: true", "battlecard_mode: false")
        );
        let out = set(CLIENT, "locales", "[en]");
        assert_eq!(out, CLIENT.replace("locales: [en, fr]", "locales: [en]"));
    }

    #[test]
    fn a_flow_value_on_the_way_is_rewritten_on_its_line_with_its_comment() {
        let out = set(CLIENT, "vars._global.COMPANY_NAME", "\"Hyperline SAS\"");
        assert_eq!(
            out,
            CLIENT.replace(
                "{ COMPANY_NAME: Hyperline }",
                "{ COMPANY_NAME: Hyperline SAS }"
            )
        );
        let out = set(CLIENT, "vars._global.BRAND", "'a: b'");
        assert!(
            out.contains(
                "_global: { COMPANY_NAME: Hyperline, BRAND: \"a: b\" }   # shown in greetings\n"
            ),
            "{out}"
        );
        let back: Value = serde_yaml::from_str(&out).unwrap();
        assert_eq!(
            back["vars"]["_global"]["BRAND"],
            Value::String("a: b".into())
        );
    }

    #[test]
    fn missing_keys_are_added_under_their_parent_and_unset_removes_only_the_key() {
        let out = set(CLIENT, "flags.competitors.roster_url", "/compare");
        assert!(
            out.contains("    battlecard_mode: true\n    roster_url: /compare\n\n# Variables."),
            "{out}"
        );
        let out = set(CLIENT, "tiers", "[standard]");
        assert!(
            out.ends_with("# shown in greetings\ntiers: [standard]\n"),
            "{out}"
        );
        let out = set(CLIENT, "flags.pricing.region", "uk");
        assert!(
            out.contains("    battlecard_mode: true\n  pricing:\n    region: uk\n"),
            "{out}"
        );
        let gone = set_path(
            CLIENT,
            &["flags", "competitors", "names"],
            &FieldEdit::Unset,
        )
        .unwrap();
        assert_eq!(gone, CLIENT.replace("    names: [Chargebee, Maxio]\n", ""));
        let same = set_path(CLIENT, &["flags", "nothing"], &FieldEdit::Unset).unwrap();
        assert_eq!(same, CLIENT);
        assert!(set_path(CLIENT, &["a:b"], &FieldEdit::Unset).is_err());
        assert!(set_path(CLIENT, &["locales", "x"], &FieldEdit::Set("1")).is_err());
    }

    #[test]
    fn a_key_left_holding_nothing_by_an_unset_goes_with_it() {
        // Added then removed again: the file as it was, not `pricing:` (null) left behind.
        let added = set(CLIENT, "flags.pricing.region", "uk");
        let gone = set_path(&added, &["flags", "pricing", "region"], &FieldEdit::Unset).unwrap();
        assert_eq!(gone, CLIENT);
        // The last key of `flags:` and the keys above it, while nothing else is under them.
        let only = "name: x\ntargets:\n  claude-code:\n    budget: 3\nroot: y\n";
        let gone = set_path(
            only,
            &["targets", "claude-code", "budget"],
            &FieldEdit::Unset,
        )
        .unwrap();
        assert_eq!(gone, "name: x\nroot: y\n");
        // A key that still holds another, or a comment, stays.
        let two = "targets:\n  a: {}\n  b: {}\n";
        assert_eq!(
            set_path(two, &["targets", "a"], &FieldEdit::Unset).unwrap(),
            "targets:\n  b: {}\n"
        );
        let noted = "targets:\n  # why\n  a: {}\n";
        assert_eq!(
            set_path(noted, &["targets", "a"], &FieldEdit::Unset).unwrap(),
            "targets:\n  # why\n"
        );
    }
}
