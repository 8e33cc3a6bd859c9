//! Items of a YAML list chosen by their name, for the edit by path: `tiers.fast` is the item of
//! `tiers:` whose `name` is `fast` (or the plain item `fast`). Setting it replaces or appends
//! that item, removing it takes only its lines away, and a longer path
//! (`tiers.fast.catalog_token_budget`) edits inside it. Block lists are edited line by line like
//! the rest of the file; a flow item on one line (`- { name: fast, body: compact }`) is
//! rewritten on its line, its inline comment kept.

use serde_yaml::{Mapping, Value};

use super::path::{flow, set_in_value, set_path, splice};
use super::{
    indent_of, inline_comment, is_blank_or_comment, key_at, parse_value, Error, FieldEdit,
};

/// Whether a line starts a list item (`- x`, or a lone `-`).
pub(super) fn is_item(line: &str) -> bool {
    let t = line.trim_start_matches(' ').trim_end_matches(['\n', '\r']);
    t.starts_with("- ") || t == "-"
}

/// The name an item goes by: a plain item itself, or a mapping's `name`.
fn item_name(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        Value::Mapping(m) => m.get("name").and_then(Value::as_str),
        _ => None,
    }
}

/// The item a whole new value for `name` gives: a mapping gets `name` first when it has none;
/// otherwise the value must go by `name` (an item is chosen by its name, so it keeps it).
fn named_item(name: &str, text: &str) -> Result<Value, Error> {
    let v = parse_value(text)?;
    let v = match v {
        Value::Mapping(m) if !m.contains_key("name") => {
            let mut named = Mapping::new();
            named.insert("name".into(), name.into());
            named.extend(m);
            Value::Mapping(named)
        }
        other => other,
    };
    if item_name(&v) != Some(name) {
        return Err(Error::Invalid(format!(
            "an item of a list is chosen by its name: the value of `{name}` must be `{name}` or a mapping with `name: {name}`"
        )));
    }
    Ok(v)
}

/// A plain item made a mapping (`fast` → `{ name: fast }`), so that a key can be set in it.
fn as_mapping(v: &mut Value) {
    if let Value::String(s) = v {
        let mut m = Mapping::new();
        m.insert("name".into(), Value::String(std::mem::take(s)));
        *v = Value::Mapping(m);
    }
}

/// Sets (or removes) the rest of a path in a parsed list: its first key names the item.
pub(super) fn set_in_sequence(
    seq: &mut Vec<Value>,
    path: &[&str],
    edit: &FieldEdit<'_>,
) -> Result<(), Error> {
    let (name, rest) = path.split_first().expect("a path has a key");
    let at = seq.iter().position(|v| item_name(v) == Some(name));
    match (at, edit) {
        (Some(i), FieldEdit::Set(text)) if rest.is_empty() => seq[i] = named_item(name, text)?,
        (Some(i), FieldEdit::Unset) if rest.is_empty() => {
            seq.remove(i);
        }
        (Some(i), _) => {
            as_mapping(&mut seq[i]);
            set_in_value(&mut seq[i], rest, edit)?;
        }
        (None, FieldEdit::Unset) => {}
        (None, FieldEdit::Set(text)) if rest.is_empty() => seq.push(named_item(name, text)?),
        (None, FieldEdit::Set(_)) => {
            let mut v = Value::String(name.to_string());
            as_mapping(&mut v);
            set_in_value(&mut v, rest, edit)?;
            seq.push(v);
        }
    }
    Ok(())
}

/// The items of a block list in `ls[first..end)`: each item's first line and the line after
/// its last content line.
fn items(ls: &[&str], first: usize, end: usize) -> Vec<(usize, usize)> {
    let indent = indent_of(ls[first]);
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, line) in ls.iter().enumerate().take(end).skip(first) {
        if is_blank_or_comment(line) {
            continue;
        }
        if indent_of(line) == indent && is_item(line) {
            out.push((i, i + 1));
        } else if let Some(last) = out.last_mut() {
            last.1 = i + 1;
        }
    }
    out
}

/// The value of one item of a block list, read from its lines.
fn parse_item(ls: &[&str], (start, end): (usize, usize), indent: usize) -> Option<Value> {
    let text: String = (ls[start..end].iter())
        .map(|l| &l[indent_of(l).min(indent)..])
        .collect();
    match serde_yaml::from_str::<Value>(&text) {
        Ok(Value::Sequence(mut s)) if s.len() == 1 => s.pop(),
        _ => None,
    }
}

/// Sets (or removes) the rest of a path in the block list whose first item line is
/// `ls[first]` and which ends before `end`.
pub(super) fn set_in_block(
    ls: &[&str],
    first: usize,
    end: usize,
    path: &[&str],
    edit: &FieldEdit<'_>,
    nl: &str,
) -> Result<String, Error> {
    let indent = indent_of(ls[first]);
    let pad = " ".repeat(indent);
    let (name, rest) = path.split_first().expect("a path has a key");
    let found = (items(ls, first, end).into_iter())
        .find(|&r| parse_item(ls, r, indent).as_ref().and_then(item_name) == Some(name));
    let Some((start, stop)) = found else {
        let mut seq = Vec::new();
        set_in_sequence(&mut seq, path, edit)?;
        let Some(v) = seq.pop() else {
            return Ok(ls.concat()); // nothing to remove
        };
        let at = items(ls, first, end).last().map_or(first, |r| r.1);
        return Ok(splice(ls, at, at, &format!("{pad}- {}{nl}", flow(&v)), nl));
    };
    let after_dash = ls[start][indent..].trim_start_matches('-').trim_start();
    let block_mapping =
        !after_dash.starts_with(['{', '[', '"', '\'']) && key_at(after_dash, 0).is_some();
    if rest.is_empty() || !block_mapping {
        // The whole item, or an item written on its one line: its value is written again.
        let mut seq = vec![parse_item(ls, (start, stop), indent).expect("found by its value")];
        set_in_sequence(&mut seq, path, edit)?;
        let Some(v) = seq.pop() else {
            return Ok(splice(ls, start, stop, "", nl));
        };
        let comment = (stop - start == 1)
            .then(|| inline_comment(ls[start]))
            .flatten()
            .unwrap_or("");
        return Ok(splice(
            ls,
            start,
            stop,
            &format!("{pad}- {}{comment}{nl}", flow(&v)),
            nl,
        ));
    }
    // An item written as a block mapping (`- name: fast` and the keys under it): the same edit
    // by path on its lines, read as a mapping of their own.
    let deeper = indent + 2;
    let own: String = (ls[start..stop].iter().enumerate())
        .map(|(i, l)| match i {
            0 => after_dash.to_string(),
            _ => l[indent_of(l).min(deeper)..].to_string(),
        })
        .collect();
    let edited = set_path(&own, rest, edit)?;
    let mut lines = edited.split_inclusive('\n');
    let mut new = match lines.next() {
        Some(head) => format!("{pad}- {head}"),
        None => format!("{pad}- {{}}{nl}"),
    };
    for l in lines {
        if l.trim().is_empty() {
            new.push_str(l);
        } else {
            new.push_str(&format!("{}{l}", " ".repeat(deeper)));
        }
    }
    Ok(splice(ls, start, stop, &new, nl))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WS: &str = "locales: [en, fr]\ntiers:   # plans\n  - { name: standard }\n  - { name: fast, body: compact, catalog_token_budget: 1500 }  # cheap\n  - name: pro\n    body: full   # the long bodies\n\n# Who reads which skills.\nconsumers:\n  answer.generator.strong: { disabled: [\"public.*-press\"] }\n";

    fn set(text: &str, path: &[&str], value: &str) -> String {
        set_path(text, path, &FieldEdit::Set(value)).unwrap()
    }

    #[test]
    fn a_plan_is_added_and_removed_by_its_name_and_only_its_line_changes() {
        let out = set(WS, &["tiers", "gold"], "{ catalog_token_budget: 900 }");
        assert_eq!(
            out,
            WS.replace(
                "    body: full   # the long bodies\n",
                "    body: full   # the long bodies\n  - { name: gold, catalog_token_budget: 900 }\n"
            )
        );
        let gone = set_path(&out, &["tiers", "fast"], &FieldEdit::Unset).unwrap();
        assert_eq!(
            gone,
            out.replace(
                "  - { name: fast, body: compact, catalog_token_budget: 1500 }  # cheap\n",
                ""
            )
        );
        let pro_gone = set_path(WS, &["tiers", "pro"], &FieldEdit::Unset).unwrap();
        assert_eq!(
            pro_gone,
            WS.replace("  - name: pro\n    body: full   # the long bodies\n", "")
        );
        assert_eq!(
            set_path(WS, &["tiers", "none"], &FieldEdit::Unset).unwrap(),
            WS
        );
        // A value that goes by another name is refused: the name chooses the item.
        assert!(set_path(WS, &["tiers", "gold"], &FieldEdit::Set("{ name: silver }")).is_err());
        assert!(set_path(WS, &["locales", "x"], &FieldEdit::Set("1")).is_err());
    }

    #[test]
    fn a_key_inside_a_plan_changes_on_its_line_or_its_own_lines() {
        let out = set(WS, &["tiers", "fast", "catalog_token_budget"], "2000");
        assert_eq!(
            out,
            WS.replace(
                "catalog_token_budget: 1500 }  # cheap",
                "catalog_token_budget: 2000 }  # cheap"
            )
        );
        let cleared = set_path(
            WS,
            &["tiers", "fast", "catalog_token_budget"],
            &FieldEdit::Unset,
        )
        .unwrap();
        assert_eq!(cleared, WS.replace(", catalog_token_budget: 1500 }", " }"));
        let out = set(WS, &["tiers", "standard", "catalog_token_budget"], "800");
        assert_eq!(
            out,
            WS.replace(
                "{ name: standard }",
                "{ name: standard, catalog_token_budget: 800 }"
            )
        );
        // A plan written as a block mapping keeps its lines and comments.
        let out = set(WS, &["tiers", "pro", "catalog_token_budget"], "3000");
        assert_eq!(
            out,
            WS.replace(
                "    body: full   # the long bodies\n",
                "    body: full   # the long bodies\n    catalog_token_budget: 3000\n"
            )
        );
        let out = set(WS, &["tiers", "pro", "body"], "compact");
        assert_eq!(out, WS.replace("body: full   #", "body: compact   #"));
        // A plain item becomes a mapping when a key is set in it.
        let plain = "tiers:\n- standard\n- fast\nname: x\n";
        let out = set(plain, &["tiers", "fast", "body"], "compact");
        assert_eq!(
            out,
            "tiers:\n- standard\n- { name: fast, body: compact }\nname: x\n"
        );
        // A flow list on one line: the same choice by name.
        let out = set(WS, &["locales", "de"], "de");
        assert!(out.starts_with("locales: [en, fr, de]\n"), "{out}");
        let back: Value = serde_yaml::from_str(&out).unwrap();
        assert_eq!(back["tiers"].as_sequence().unwrap().len(), 3);
    }

    #[test]
    fn a_consumer_whose_name_has_dots_is_added_and_removed_by_its_key() {
        let out = set(
            WS,
            &["consumers", "solver.react.decision"],
            "{ enabled: [public.url-gen] }",
        );
        assert!(
            out.ends_with("  answer.generator.strong: { disabled: [\"public.*-press\"] }\n  solver.react.decision: { enabled: [public.url-gen] }\n"),
            "{out}"
        );
        let gone = set_path(
            &out,
            &["consumers", "answer.generator.strong"],
            &FieldEdit::Unset,
        )
        .unwrap();
        assert!(
            gone.ends_with("consumers:\n  solver.react.decision: { enabled: [public.url-gen] }\n"),
            "{gone}"
        );
    }
}
