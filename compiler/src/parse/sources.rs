//! Citation sources (002): `sources.yaml` and the `[[S:…]]` tokens in bodies.

use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::model::Source;
use crate::parse::fields::Fields;
use crate::parse::yaml::scalar_string;

/// Largest range a token may span (`[[S:1-50]]`), so a typo cannot expand to millions of ids.
pub(crate) const MAX_RANGE: u32 = 1000;

/// A citation token found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Byte offset of `[[` in the text.
    pub start: usize,
    /// Byte offset just after `]]`.
    pub end: usize,
    /// The source ids it cites, in written order (ranges expanded).
    pub sids: Vec<u32>,
}

/// A malformed token: byte offset and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadToken {
    /// Byte offset of `[[`.
    pub start: usize,
    /// Length in bytes.
    pub len: usize,
    /// Why it is malformed.
    pub reason: String,
}

fn parse_list(inner: &str) -> Result<Vec<u32>, String> {
    let mut sids = Vec::new();
    for part in inner.split(',') {
        let part = part.trim();
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let parse = |s: &str| {
            s.parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("`{s}` is not a source id (a whole number from 1)"))
        };
        let (a, b) = (parse(a)?, parse(b)?);
        if b < a {
            return Err(format!("range `{part}` runs backwards"));
        }
        if b - a >= MAX_RANGE {
            return Err(format!("range `{part}` spans more than {MAX_RANGE} ids"));
        }
        sids.extend(a..=b);
    }
    Ok(sids)
}

/// Finds every `[[S:…]]` token in `text`: ids (`1`), ranges (`1-3`), lists (`1,3`) and mixes.
pub fn scan(text: &str) -> (Vec<Token>, Vec<BadToken>) {
    let mut tokens = Vec::new();
    let mut bad = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("[[S:") {
        let start = from + i;
        let inner_start = start + 4;
        match text[inner_start..].find("]]") {
            Some(j) if !text[inner_start..inner_start + j].contains('\n') => {
                let end = inner_start + j + 2;
                match parse_list(&text[inner_start..inner_start + j]) {
                    Ok(sids) => tokens.push(Token { start, end, sids }),
                    Err(reason) => bad.push(BadToken {
                        start,
                        len: end - start,
                        reason,
                    }),
                }
                from = end;
            }
            _ => {
                bad.push(BadToken {
                    start,
                    len: 4,
                    reason: "token is not closed with `]]` on the same line".to_string(),
                });
                from = inner_start;
            }
        }
    }
    (tokens, bad)
}

/// Line and column (1-based, characters) of byte `offset` in `text`, whose first line is
/// `first_line` of its file.
pub(crate) fn pos_of(text: &str, offset: usize, first_line: usize, len: usize) -> Pos {
    let before = &text[..offset];
    let line = first_line + before.matches('\n').count();
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let len = text[offset..offset + len].chars().count();
    Pos { line, column, len }
}

/// Checks that every token of `text` cites a defined source.
pub(crate) fn check_tokens(
    file: &str,
    text: &str,
    first_line: usize,
    defined: &[u32],
    out: &mut Vec<Diagnostic>,
) {
    let (tokens, bad) = scan(text);
    for b in bad {
        out.push(Diagnostic::new(
            codes::BAD_SOURCE,
            file,
            pos_of(text, b.start, first_line, b.len),
            format!("malformed citation token: {}", b.reason),
        ));
    }
    for t in tokens {
        for sid in &t.sids {
            if !defined.contains(sid) {
                let mut d = Diagnostic::new(
                    codes::UNDEFINED_SOURCE,
                    file,
                    pos_of(text, t.start, first_line, t.end - t.start),
                    format!(
                        "citation `{}` names source {sid}, which this skill does not define",
                        &text[t.start..t.end]
                    ),
                );
                d = if defined.is_empty() {
                    d.with_help("add the source to the skill's sources.yaml")
                } else {
                    d.with_help(format!(
                        "sources.yaml defines {}",
                        defined
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                };
                out.push(d);
                break;
            }
        }
    }
}

/// Reads `sources.yaml`: `sources: [{sid, url, title, text, …}]`.
pub(crate) fn parse_sources(f: &mut Fields<'_>) -> Vec<Source> {
    f.unknown_keys(&["sources"], codes::UNKNOWN_CONFIG_FIELD, "sources.yaml");
    let Some(Value::Sequence(items)) = f.doc.get("sources").cloned() else {
        if f.doc.get("sources").is_some_and(|v| !v.is_null()) {
            let d = f.diag(
                codes::BAD_SOURCE,
                f.doc.key_pos("sources"),
                "`sources` must be a list",
            );
            f.report(d);
        }
        return Vec::new();
    };
    let mut out: Vec<Source> = Vec::new();
    for item in &items {
        let Value::Mapping(m) = item else {
            let d = f.diag(
                codes::BAD_SOURCE,
                f.doc.key_pos("sources"),
                "each source must be a map",
            );
            f.report(d);
            continue;
        };
        let sid = m
            .get("sid")
            .and_then(|v| v.as_u64())
            .filter(|n| *n > 0 && *n <= u32::MAX as u64);
        let url = m
            .get("url")
            .and_then(scalar_string)
            .filter(|u| !u.trim().is_empty());
        let pos = match &url {
            Some(u) => f.doc.value_pos("sources", u),
            None => f.doc.key_pos("sources"),
        };
        let (Some(sid), Some(url)) = (sid, url) else {
            let d = f.diag(
                codes::BAD_SOURCE,
                pos,
                "each source needs a positive whole-number `sid` and a `url`",
            );
            f.report(d);
            continue;
        };
        let sid = sid as u32;
        if out.iter().any(|s| s.sid == sid) {
            let d = f.diag(
                codes::BAD_SOURCE,
                pos,
                format!("source id {sid} is defined twice"),
            );
            f.report(d);
            continue;
        }
        let mut extra = BTreeMap::new();
        for (k, v) in m {
            let Some(k) = scalar_string(k) else { continue };
            if !matches!(k.as_str(), "sid" | "url" | "title" | "text") {
                if let Ok(j) = serde_json::to_value(v) {
                    extra.insert(k, j);
                }
            }
        }
        out.push(Source {
            sid,
            url,
            title: m.get("title").and_then(scalar_string),
            text: m.get("text").and_then(scalar_string),
            extra,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_ids_ranges_lists_and_mixes() {
        let (tokens, bad) = scan("a [[S:1]] b [[S:2-4]] c [[S:1,3]] d [[S:1-2, 5]]");
        assert!(bad.is_empty());
        let sids: Vec<Vec<u32>> = tokens.into_iter().map(|t| t.sids).collect();
        assert_eq!(
            sids,
            vec![vec![1], vec![2, 3, 4], vec![1, 3], vec![1, 2, 5]]
        );
    }

    #[test]
    fn reports_malformed_tokens() {
        let (_, bad) = scan("[[S:x]] [[S:3-1]] [[S:1");
        assert_eq!(bad.len(), 3);
    }

    #[test]
    fn undefined_ids_are_errors_at_the_token() {
        let mut out = Vec::new();
        check_tokens("f", "line\nsee [[S:2]]", 10, &[1], &mut out);
        assert_eq!(
            (out[0].code, out[0].line, out[0].column),
            (codes::UNDEFINED_SOURCE, 11, 5)
        );
    }
}
