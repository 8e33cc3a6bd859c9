//! Where a YAML text names a skill: its scalars with their key paths and byte spans (read with
//! the event parser, which keeps positions), and the spans of a name inside them, so a rename
//! replaces those bytes and nothing else.

use std::ops::Range;

use saphyr_parser::{Event, Parser};

/// One scalar of a YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Scalar {
    /// The keys above it; `-` for a list item.
    pub path: Vec<String>,
    /// It is a mapping's key (its path is the mapping's).
    pub(crate) key: bool,
    /// Its value.
    pub(crate) value: String,
    /// Its bytes in the text (quotes included).
    pub(crate) span: Range<usize>,
}

/// A mapping or list being read.
struct Open {
    /// Its label in what holds it (a key, `-`, or nothing at the top).
    label: Option<String>,
    /// For a mapping: the key whose value comes next (`None`: a key comes next).
    key: Option<Option<String>>,
}

impl Open {
    /// The label of the node that comes next inside it.
    fn next_label(&self) -> Option<String> {
        match &self.key {
            Some(Some(k)) => Some(k.clone()),
            Some(None) => None,
            None => Some("-".to_string()),
        }
    }

    /// A node ended inside it: a mapping expects its next key.
    fn done_one(&mut self) {
        if let Some(k) = &mut self.key {
            *k = None;
        }
    }
}

/// The scalars of `yaml`, or `None` when it does not parse.
pub(super) fn scalars(yaml: &str) -> Option<Vec<Scalar>> {
    // The parser counts characters; spans here are bytes.
    let bytes: Vec<usize> = yaml
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(yaml.len()))
        .collect();
    let byte = |chars: usize| bytes.get(chars).copied().unwrap_or(yaml.len());
    let mut open: Vec<Open> = Vec::new();
    let mut out = Vec::new();
    for event in Parser::new_from_str(yaml) {
        let (event, span) = event.ok()?;
        match event {
            Event::Scalar(text, ..) => {
                let span = byte(span.start.index())..byte(span.end.index());
                let value = text.into_owned();
                let mut path: Vec<String> = open.iter().filter_map(|o| o.label.clone()).collect();
                let key = open.last().is_some_and(|o| matches!(o.key, Some(None)));
                if !key {
                    path.extend(open.last().and_then(Open::next_label));
                }
                if let Some(top) = open.last_mut() {
                    if key {
                        top.key = Some(Some(value.clone()));
                    } else {
                        top.done_one();
                    }
                }
                out.push(Scalar {
                    path,
                    key,
                    value,
                    span,
                });
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let label = open.last().and_then(Open::next_label);
                let key = matches!(event, Event::MappingStart(..)).then_some(None);
                open.push(Open { label, key });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                open.pop()?;
                if let Some(top) = open.last_mut() {
                    top.done_one();
                }
            }
            Event::Alias(_) => {
                if let Some(top) = open.last_mut() {
                    top.done_one();
                }
            }
            _ => {}
        }
    }
    Some(out)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Where `name` occurs in `text` as a whole word (not inside a longer name: `pricing` is not
/// in `pricing-uk` or `regional_pricing`).
pub(super) fn words(text: &str, name: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(name).map(|i| i + from) {
        let end = i + name.len();
        let before = text[..i].chars().next_back().is_some_and(is_word_char);
        let after = text[end..].chars().next().is_some_and(is_word_char);
        if !before && !after {
            out.push(i..end);
        }
        from = end;
    }
    out
}

/// Whether `value` refers to the skill `name`: `name`, `ns.name` or `skills.ns.name`.
pub(super) fn refers_to(value: &str, name: &str) -> bool {
    let v = value.trim();
    let v = v.strip_prefix("skills.").unwrap_or(v);
    v == name
        || v.strip_suffix(name)
            .and_then(|ns| ns.strip_suffix('.'))
            .is_some_and(|ns| crate::parse::frontmatter::NAMESPACES.contains(&ns))
}

/// The span of the name in a scalar that refers to it: its last whole-word occurrence (after
/// any namespace), in `text` coordinates.
pub(super) fn name_span(text: &str, s: &Scalar, name: &str) -> Option<Range<usize>> {
    let raw = &text[s.span.clone()];
    let at = words(raw, name).pop()?;
    Some(s.span.start + at.start..s.span.start + at.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_carry_their_key_paths_and_spans() {
        let yaml = "a: [x, 'y']\nb:\n  c: z\nd: {e: f}\n";
        let s = scalars(yaml).unwrap();
        let find = |v: &str| s.iter().find(|s| s.value == v).unwrap();
        assert_eq!(find("x").path, ["a", "-"]);
        assert_eq!(&yaml[find("y").span.clone()], "'y'");
        assert_eq!(find("z").path, ["b", "c"]);
        assert!(find("c").key && find("c").path == ["b"]);
        assert_eq!(find("f").path, ["d", "e"]);
        assert_eq!(find("d").path, Vec::<String>::new());
    }

    #[test]
    fn names_are_found_as_whole_words_only() {
        let t = "pricing, pricing-uk, regional_pricing, `pricing`.";
        assert_eq!(words(t, "pricing"), [0..7, 40..47]);
        assert!(refers_to("public.pricing", "pricing"));
        assert!(refers_to("skills.internal.pricing", "pricing"));
        assert!(!refers_to("x.pricing", "pricing"));
    }
}
