//! The merge of block-style YAML mappings (workspace.yaml, client.yaml, a SKILL.md's
//! frontmatter) by key: each key's lines (with the comments just above it) are one unit, merged
//! with the ordinary three-way rule; where both sides changed a key differently, a nested mapping
//! is merged key by key again, a list item by item (block `- a` or flow `[a, b]`), and anything
//! else is a conflict on that key alone. The order of keys is merged the same way.

use std::collections::{HashMap, HashSet};

use super::diff3::{combine, diff3, resolve, Chunk, Resolved};
use super::Out;
use crate::edit::path::inline_value;
use crate::edit::{indent_of, is_blank_or_comment, key_at};

/// The pseudo-key of the comments and blank lines after a mapping's last key.
const TAIL: &str = "\u{0}tail";

/// One key of a mapping: the comments and blank lines above it, its line and the lines under it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry<'a> {
    key: String,
    lead: Vec<&'a str>,
    head: &'a str,
    body: Vec<&'a str>,
}

impl Entry<'_> {
    fn text(&self) -> String {
        let mut out = self.lead.concat();
        out.push_str(self.head);
        out.push_str(&self.body.concat());
        out
    }
}

/// Where in the document a key is, for the conflict's `place`.
struct At<'w> {
    words: &'w str,
    path: String,
}

impl At<'_> {
    fn child(&self, key: &str) -> At<'_> {
        let path = if key == TAIL {
            format!("{}{TAIL}", self.path)
        } else if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        };
        At {
            words: self.words,
            path,
        }
    }

    fn place(&self) -> String {
        match self.path.strip_suffix(TAIL) {
            Some("") => "the comments at the end".to_string(),
            Some(parent) => format!("the comments at the end of `{parent}`"),
            None => format!("{}`{}`", self.words, self.path),
        }
    }
}

/// A list item at `indent`: `- value`, or `-` alone with the value on the lines under it.
fn is_item(line: &str, indent: usize) -> bool {
    indent_of(line) == indent && {
        let rest = line[indent..].trim_end();
        rest == "-" || rest.starts_with("- ")
    }
}

/// The end of the lines under a key (or an item) at `indent` whose lines start at `from`: the
/// more-indented lines, without the blank lines and comments that end them (those belong to
/// what follows). `items_belong`: a list at the key's own indent is its value (`key:\n- a`).
fn body_end(ls: &[&str], from: usize, indent: usize, items_belong: bool) -> usize {
    let (mut j, mut last) = (from, from);
    while j < ls.len() {
        let l = ls[j];
        if !is_blank_or_comment(l) {
            let ind = indent_of(l);
            if ind <= indent && !(items_belong && is_item(l, indent)) {
                break;
            }
            last = j + 1;
        }
        j += 1;
    }
    last
}

/// The keys of the mapping written at `indent` by `ls`, or `None` when the lines are not one
/// (a list, a flow mapping, a key written twice, a line at another indent).
fn entries<'a>(ls: &[&'a str], indent: usize) -> Option<Vec<Entry<'a>>> {
    let mut out: Vec<Entry<'a>> = Vec::new();
    let mut seen = HashSet::new();
    let mut lead = Vec::new();
    let mut i = 0;
    while i < ls.len() {
        if is_blank_or_comment(ls[i]) {
            lead.push(ls[i]);
            i += 1;
            continue;
        }
        let key = key_at(ls[i], indent)?.to_string();
        if key.is_empty() || !seen.insert(key.clone()) {
            return None;
        }
        let end = body_end(ls, i + 1, indent, true);
        out.push(Entry {
            key,
            lead: std::mem::take(&mut lead),
            head: ls[i],
            body: ls[i + 1..end].to_vec(),
        });
        i = end;
    }
    if !lead.is_empty() {
        out.push(Entry {
            key: TAIL.to_string(),
            lead,
            head: "",
            body: Vec::new(),
        });
    }
    Some(out)
}

/// Whether all three sides are block mappings at `indent` (what [`merge_mapping`] merges).
pub(super) fn parses(sides: &[Vec<&str>; 3], indent: usize) -> bool {
    sides.iter().all(|s| entries(s, indent).is_some())
}

/// Merges three versions of a mapping at `indent` into `out`; false, with nothing written, when
/// one of them is not a block mapping. `words` goes before a key's path in conflicts.
pub(super) fn merge_mapping(
    out: &mut Out,
    sides: [Vec<&str>; 3],
    indent: usize,
    words: &str,
) -> bool {
    let at = At {
        words,
        path: String::new(),
    };
    let [b, o, t] = &sides;
    mapping(out, [b, o, t], indent, &at)
}

fn mapping(out: &mut Out, [b, o, t]: [&[&str]; 3], indent: usize, at: &At<'_>) -> bool {
    let (Some(b), Some(o), Some(t)) = (entries(b, indent), entries(o, indent), entries(t, indent))
    else {
        return false;
    };
    let by_key = |es: &[Entry<'_>]| -> HashMap<String, usize> {
        es.iter()
            .enumerate()
            .map(|(i, e)| (e.key.clone(), i))
            .collect()
    };
    let (kb, ko, kt) = (by_key(&b), by_key(&o), by_key(&t));
    for key in order(&b, &o, &t) {
        let sides = [
            kb.get(&key).map(|&i| &b[i]),
            ko.get(&key).map(|&i| &o[i]),
            kt.get(&key).map(|&i| &t[i]),
        ];
        entry(out, sides, &at.child(&key));
    }
    true
}

/// The merged order of the keys: the key sequences merged like any list (both sides' keys where
/// both inserted at one place), and a key one side removed while the other changed it kept
/// where it was, for its conflict.
fn order(b: &[Entry<'_>], o: &[Entry<'_>], t: &[Entry<'_>]) -> Vec<String> {
    let keys = |es: &[Entry<'_>]| es.iter().map(|e| e.key.clone()).collect::<Vec<_>>();
    let (kb, ko, kt) = (keys(b), keys(o), keys(t));
    let mut out: Vec<String> = Vec::new();
    for chunk in diff3(&kb, &ko, &kt) {
        match chunk {
            Chunk::Same(u) => out.extend_from_slice(u),
            Chunk::Changed { base, ours, theirs } => match resolve(base, ours, theirs) {
                Resolved::Take(u) => out.extend_from_slice(u),
                Resolved::Conflict => {
                    out.extend_from_slice(ours);
                    out.extend(theirs.iter().filter(|k| !ours.contains(k)).cloned());
                }
            },
        }
    }
    let mut placed: HashSet<String> = out.iter().cloned().collect();
    for side in [&ko, &kt] {
        for (i, k) in side.iter().enumerate() {
            if placed.insert(k.clone()) {
                let after = side[..i]
                    .iter()
                    .rev()
                    .find_map(|p| out.iter().position(|q| q == p))
                    .map_or(0, |p| p + 1);
                out.insert(after, k.clone());
            }
        }
    }
    // A key both sides moved, to different places, goes where ours put it.
    let mut seen = HashSet::new();
    out.retain(|k| seen.insert(k.clone()));
    if let Some(p) = out.iter().position(|k| k == TAIL) {
        let tail = out.remove(p);
        out.push(tail);
    }
    out
}

/// Merges one key.
fn entry(out: &mut Out, [b, o, t]: [Option<&Entry<'_>>; 3], at: &At<'_>) {
    match resolve(b.as_slice(), o.as_slice(), t.as_slice()) {
        Resolved::Take(taken) => {
            if let Some(e) = taken.first() {
                out.push(&e.text());
            }
        }
        Resolved::Conflict => {
            if let (Some(b), Some(o), Some(t)) = (b, o, t) {
                if nested(out, [b, o, t], at) {
                    return;
                }
            }
            let text = |e: Option<&Entry<'_>>| e.map(Entry::text).unwrap_or_default();
            let [b, o, t] = [text(b), text(o), text(t)];
            out.conflict(at.place(), [&b, &o, &t]);
        }
    }
}

/// Merges a key both sides changed inside its value (a mapping by key, a list by item); false,
/// with nothing written, when it is neither or the key's own line differs.
fn nested(out: &mut Out, [b, o, t]: [&Entry<'_>; 3], at: &At<'_>) -> bool {
    let lead = match resolve(
        std::slice::from_ref(&b.lead),
        std::slice::from_ref(&o.lead),
        std::slice::from_ref(&t.lead),
    ) {
        Resolved::Take(l) => l[0].clone(),
        Resolved::Conflict => return false,
    };
    if !(b.head == o.head && o.head == t.head) {
        let Some(line) = flow_list([b, o, t]).or_else(|| flow_map([b, o, t])) else {
            return false;
        };
        out.extend(&lead);
        out.push(&line);
        return true;
    }
    let bodies = [&b.body[..], &o.body[..], &t.body[..]];
    let first = bodies.map(|body| body.iter().find(|l| !is_blank_or_comment(l)).copied());
    let (Some(fb), Some(fo), Some(ft)) = (first[0], first[1], first[2]) else {
        return false;
    };
    let child = indent_of(fo);
    if indent_of(fb) != child || indent_of(ft) != child {
        return false;
    }
    if [fb, fo, ft].iter().all(|l| !is_item(l, child)) {
        if bodies.iter().any(|body| entries(body, child).is_none()) {
            return false;
        }
        out.extend(&lead);
        out.push(o.head);
        return mapping(out, bodies, child, at);
    }
    let (Some(ib), Some(io), Some(it)) = (items(bodies[0]), items(bodies[1]), items(bodies[2]))
    else {
        return false;
    };
    out.extend(&lead);
    out.push(o.head);
    list(out, [ib, io, it], at);
    true
}

/// A block list's items, each with the comments above it (the last unit: comments after it).
fn items(body: &[&str]) -> Option<Vec<String>> {
    let first = body.iter().find(|l| !is_blank_or_comment(l))?;
    let indent = indent_of(first);
    let mut out = Vec::new();
    let mut lead = String::new();
    let mut i = 0;
    while i < body.len() {
        let l = body[i];
        if is_blank_or_comment(l) {
            lead.push_str(l);
            i += 1;
            continue;
        }
        if !is_item(l, indent) {
            return None;
        }
        let end = body_end(body, i + 1, indent, false);
        out.push(std::mem::take(&mut lead) + &body[i..end].concat());
        i = end;
    }
    if !lead.is_empty() {
        out.push(lead);
    }
    Some(out)
}

/// Merges a list's items; where both sides changed the same items, a conflict on those alone.
fn list(out: &mut Out, [b, o, t]: [Vec<String>; 3], at: &At<'_>) {
    for chunk in diff3(&b, &o, &t) {
        match chunk {
            Chunk::Same(u) => out.extend(u),
            Chunk::Changed { base, ours, theirs } => match resolve(base, ours, theirs) {
                Resolved::Take(u) => out.extend(u),
                Resolved::Conflict => match combine(base, ours, theirs) {
                    Some(both) => out.extend(&both),
                    None => {
                        let [b, o, t] = [base.concat(), ours.concat(), theirs.concat()];
                        out.conflict(format!("{} (list items)", at.place()), [&b, &o, &t]);
                    }
                },
            },
        }
    }
}

/// The items of a flow collection's inside (`a, "b, c", [d]`), as written; `None` when its
/// quotes or brackets do not close.
fn split_flow(inner: &str) -> Option<Vec<&str>> {
    let (mut out, mut start, mut depth, mut quote) = (Vec::new(), 0, 0i32, None);
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(inner[start..].trim());
    out.retain(|item| !item.is_empty());
    (quote.is_none() && depth == 0).then_some(out)
}

/// The items of a flow list written on the key's line (`key: [a, "b, c"]`), as written.
fn flow_items(head: &str) -> Option<Vec<&str>> {
    split_flow(inline_value(head).strip_prefix('[')?.strip_suffix(']')?)
}

/// The entries of a flow mapping written on the key's line (`key: { a: 1, b: [x] }`), each
/// with its key, as written.
fn flow_pairs(head: &str) -> Option<Vec<(&str, &str)>> {
    let items = split_flow(inline_value(head).strip_prefix('{')?.strip_suffix('}')?)?;
    let mut out: Vec<(&str, &str)> = Vec::new();
    for item in items {
        let key = item.split_once(':')?.0.trim();
        if key.is_empty()
            || key.contains(['"', '\'', '{', '['])
            || out.iter().any(|(k, _)| *k == key)
        {
            return None;
        }
        out.push((key, item));
    }
    Some(out)
}

/// Merges a flow mapping both sides changed, key by key, into one line (ours' spacing and
/// comment), or `None` when it is not one on every side or a key changed two ways.
fn flow_map([b, o, t]: [&Entry<'_>; 3]) -> Option<String> {
    if [b, o, t].iter().any(|e| !e.body.is_empty()) {
        return None;
    }
    let (pb, po, pt) = (
        flow_pairs(b.head)?,
        flow_pairs(o.head)?,
        flow_pairs(t.head)?,
    );
    let keys = |p: &[(&str, &str)]| p.iter().map(|(k, _)| k.to_string()).collect::<Vec<_>>();
    let mut order: Vec<String> = Vec::new();
    for chunk in diff3(&keys(&pb), &keys(&po), &keys(&pt)) {
        match chunk {
            Chunk::Same(u) => order.extend_from_slice(u),
            Chunk::Changed { base, ours, theirs } => match resolve(base, ours, theirs) {
                Resolved::Take(u) => order.extend_from_slice(u),
                Resolved::Conflict => order.extend(combine(base, ours, theirs)?),
            },
        }
    }
    fn item<'a>(p: &[(&str, &'a str)], k: &str) -> Option<&'a str> {
        p.iter().find(|(pk, _)| *pk == k).map(|(_, v)| *v)
    }
    // Each key's entry by the three-way rule; a key kept must be in the merged order.
    let mut values = std::collections::HashMap::new();
    for (k, _) in pb.iter().chain(&po).chain(&pt) {
        let [b, o, t] = [item(&pb, k), item(&po, k), item(&pt, k)];
        match resolve(b.as_slice(), o.as_slice(), t.as_slice()) {
            Resolved::Take([]) => {}
            Resolved::Take([v]) if order.iter().any(|o| o == k) => {
                values.insert(k.to_string(), *v);
            }
            _ => return None,
        }
    }
    let merged: Vec<&str> = order
        .iter()
        .filter_map(|k| values.get(k).copied())
        .collect();
    let value = inline_value(o.head);
    let start = value.as_ptr() as usize - o.head.as_ptr() as usize;
    let pad = if value.starts_with("{ ") { " " } else { "" };
    Some(format!(
        "{}{{{pad}{}{pad}}}{}",
        &o.head[..start],
        merged.join(", "),
        &o.head[start + value.len()..]
    ))
}

/// Merges a flow list both sides changed into one line (ours' spacing and comment), or `None`
/// when it is not a flow list on every side or the same item changed two ways.
fn flow_list([b, o, t]: [&Entry<'_>; 3]) -> Option<String> {
    if [b, o, t].iter().any(|e| !e.body.is_empty()) {
        return None;
    }
    let (ib, io, it) = (
        flow_items(b.head)?,
        flow_items(o.head)?,
        flow_items(t.head)?,
    );
    let mut merged: Vec<&str> = Vec::new();
    for chunk in diff3(&ib, &io, &it) {
        match chunk {
            Chunk::Same(u) => merged.extend(u),
            Chunk::Changed { base, ours, theirs } => match resolve(base, ours, theirs) {
                Resolved::Take(u) => merged.extend(u),
                Resolved::Conflict => merged.extend(combine(base, ours, theirs)?),
            },
        }
    }
    let value = inline_value(o.head);
    let start = value.as_ptr() as usize - o.head.as_ptr() as usize;
    Some(format!(
        "{}[{}]{}",
        &o.head[..start],
        merged.join(", "),
        &o.head[start + value.len()..]
    ))
}
