//! Frontmatter splitting and YAML parsing with positions in the file's own lines.
//!
//! serde_yaml gives values without spans, so [`YamlDoc`] keeps the source lines and finds the
//! line and column of a key or value by looking at the text of that key's block. That is exact
//! for the block-style YAML skills are written in, and falls back to the key's line otherwise.

use serde_yaml::{Mapping, Value};

use crate::diagnostic::{codes, Diagnostic, Pos};

/// A file split at its frontmatter fences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the fences.
    pub yaml: &'a str,
    /// File line number of the first YAML line.
    pub yaml_first_line: usize,
    /// Everything after the closing fence.
    pub body: &'a str,
    /// File line number of the body's first line.
    pub body_first_line: usize,
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Splits `text` into frontmatter and body. Fences are whole lines holding `---`, so a `---`
/// inside a value (`description: a---b`) never ends the frontmatter.
pub fn split_frontmatter<'a>(file: &str, text: &'a str) -> Result<Split<'a>, Diagnostic> {
    let first_end = text.find('\n').unwrap_or(text.len());
    if !is_fence(&text[..first_end]) {
        return Err(Diagnostic::new(
            codes::MISSING_FRONTMATTER,
            file,
            Pos::start(),
            "file does not start with YAML frontmatter (a `---` line)",
        )
        .with_help("start the file with `---`, the YAML fields, then another `---` line")
        .with_source(text));
    }
    let yaml_start = (first_end + 1).min(text.len());
    let mut offset = yaml_start;
    let mut line_no = 2;
    while offset < text.len() {
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        if is_fence(&text[offset..end]) {
            let body_start = (end + 1).min(text.len());
            return Ok(Split {
                yaml: &text[yaml_start..offset],
                yaml_first_line: 2,
                body: &text[body_start..],
                body_first_line: line_no + 1,
            });
        }
        offset = end + 1;
        line_no += 1;
    }
    Err(Diagnostic::new(
        codes::UNCLOSED_FRONTMATTER,
        file,
        Pos {
            line: 1,
            column: 1,
            len: 3,
        },
        "frontmatter is never closed: no `---` line after the opening one",
    )
    .with_help("add a line holding only `---` after the last YAML field")
    .with_source(text))
}

/// A parsed YAML mapping that remembers its source lines for positions.
#[derive(Debug, Clone, Default)]
pub(crate) struct YamlDoc {
    /// The parsed mapping (empty for an empty document).
    pub map: Mapping,
    lines: Vec<String>,
    first_line: usize,
    /// Scalars as written, parsed on first need (see [`YamlDoc::text`]).
    written: std::sync::OnceLock<Option<Written>>,
}

/// One step of a path into a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg<'a> {
    /// The value of a mapping key.
    Key(&'a str),
    /// An item of a list.
    Index(usize),
}

/// The document's shape with every scalar as written (`0x1F`, `1.10`, `True`).
#[derive(Debug, Clone, PartialEq)]
enum Written {
    Scalar(String),
    List(Vec<Written>),
    Map(Vec<(String, Written)>),
    Other,
}

impl Written {
    /// Reads `yaml` again with an event parser, which keeps scalars as written (serde_yaml
    /// turns `1.10` into the number 1.1). Built without recursion; `None` if it disagrees
    /// with serde_yaml about the document.
    fn parse(yaml: &str) -> Option<Written> {
        use saphyr_parser::{Event, Parser};
        enum Open {
            List(Vec<Written>),
            Map(Vec<(String, Written)>, Option<String>),
        }
        let mut open: Vec<Open> = Vec::new();
        for event in Parser::new_from_str(yaml) {
            let node = match event.ok()?.0 {
                Event::Scalar(text, ..) => Written::Scalar(text.into_owned()),
                Event::Alias(_) => Written::Other,
                Event::SequenceStart(..) => {
                    open.push(Open::List(Vec::new()));
                    continue;
                }
                Event::MappingStart(..) => {
                    open.push(Open::Map(Vec::new(), None));
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => match open.pop()? {
                    Open::List(items) => Written::List(items),
                    Open::Map(entries, _) => Written::Map(entries),
                },
                _ => continue,
            };
            match open.last_mut() {
                None => return Some(node),
                Some(Open::List(items)) => items.push(node),
                Some(Open::Map(entries, key)) => match key.take() {
                    Some(k) => entries.push((k, node)),
                    None => {
                        *key = Some(match node {
                            Written::Scalar(k) => k,
                            _ => String::new(),
                        })
                    }
                },
            }
        }
        None
    }

    fn at(&self, path: &[Seg<'_>]) -> Option<&Written> {
        let mut node = self;
        for seg in path {
            node = match (node, seg) {
                (Written::Map(entries), Seg::Key(k)) => {
                    &entries.iter().find(|(name, _)| name == k)?.1
                }
                (Written::List(items), Seg::Index(i)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(node)
    }
}

/// Deepest nesting accepted: serde_yaml refuses deeper documents itself (its recursion limit is
/// 128), but only after its scanner has spent time quadratic in the depth getting there.
pub(crate) const MAX_NESTING: usize = 128;

/// Where `yaml` first nests deeper than `limit` flow collections (`[`, `{`) or compact block
/// sequences (`- - -`), as a 0-based line and byte column; one pass, linear in the input.
/// Quoted scalars, comments and block scalars (`|`, `>`) are skipped, so brackets written
/// inside text never count.
pub(crate) fn too_deep(yaml: &str, limit: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    // Inside a block scalar: lines indented more than this are its text.
    let mut block_scalar_indent: Option<usize> = None;
    let mut quote: Option<u8> = None;
    for (line_no, line) in yaml.lines().enumerate() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|b| **b == b' ').count();
        if let Some(parent) = block_scalar_indent {
            if quote.is_none() && (line.trim().is_empty() || indent > parent) {
                continue;
            }
            block_scalar_indent = None;
        }
        let mut i = indent;
        // Compact nested block sequences on one line: `- - - x`.
        if quote.is_none() && depth == 0 {
            let mut dashes = 0;
            while i + 1 < bytes.len() && bytes[i] == b'-' && bytes[i + 1] == b' ' {
                dashes += 1;
                i += 2;
                while i < bytes.len() && bytes[i] == b' ' {
                    i += 1;
                }
                if dashes > limit {
                    return Some((line_no, i));
                }
            }
        }
        let mut token_start = true;
        while i < bytes.len() {
            let b = bytes[i];
            if let Some(q) = quote {
                if q == b'"' && b == b'\\' {
                    i += 2;
                    continue;
                }
                if b == q {
                    if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    quote = None;
                    token_start = false;
                }
                i += 1;
                continue;
            }
            match b {
                b'#' if token_start => break,
                b'"' | b'\'' if token_start => quote = Some(b),
                b'[' | b'{' if token_start || depth > 0 => {
                    depth += 1;
                    if depth > limit {
                        return Some((line_no, i));
                    }
                }
                b']' | b'}' if depth > 0 => depth -= 1,
                b'|' | b'>' if token_start && depth == 0 => {
                    let rest = line[i + 1..]
                        .trim_start_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
                    if rest.trim().is_empty() || rest.trim_start().starts_with('#') {
                        block_scalar_indent = Some(indent);
                        break;
                    }
                }
                _ => {}
            }
            token_start = matches!(b, b' ' | b'\t' | b'[' | b'{' | b',' | b':' | b'-' | b'?');
            i += 1;
        }
    }
    None
}

/// Parses `yaml` (whose first line is line `first_line` of `file`) into a mapping.
pub(crate) fn parse_mapping(
    file: &str,
    yaml: &str,
    first_line: usize,
) -> Result<YamlDoc, Diagnostic> {
    if let Some((line, byte)) = too_deep(yaml, MAX_NESTING) {
        let text = yaml.lines().nth(line).unwrap_or("");
        return Err(Diagnostic::new(
            codes::YAML_TOO_COMPLEX,
            file,
            Pos {
                line: first_line + line,
                column: text[..byte.min(text.len())].chars().count() + 1,
                len: 1,
            },
            format!("invalid YAML: nesting deeper than {MAX_NESTING} levels"),
        )
        .with_help("YAML aliases or nesting expand past the safety limit; write the values out"));
    }
    let value: Value = match serde_yaml::from_str(yaml) {
        Ok(v) => v,
        Err(e) => return Err(yaml_error(file, yaml, &e, first_line)),
    };
    let lines = yaml.lines().map(str::to_string).collect();
    match value {
        Value::Mapping(map) => Ok(YamlDoc {
            map,
            lines,
            first_line,
            written: Default::default(),
        }),
        Value::Null => Ok(YamlDoc {
            map: Mapping::new(),
            lines,
            first_line,
            written: Default::default(),
        }),
        other => Err(Diagnostic::new(
            codes::NOT_A_MAPPING,
            file,
            Pos::line(first_line),
            format!(
                "expected a YAML mapping of `key: value` fields, found {}",
                value_kind(&other)
            ),
        )),
    }
}

/// Converts a serde_yaml error to a diagnostic on the file's own line numbers.
fn yaml_error(file: &str, yaml: &str, e: &serde_yaml::Error, first_line: usize) -> Diagnostic {
    let full = e.to_string();
    // serde_yaml appends " at line L column C"; the diagnostic carries the position itself.
    let message = match full.find(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full.clone(),
    };
    let pos = e.location().map_or(Pos::line(first_line), |loc| Pos {
        line: first_line + loc.line().saturating_sub(1),
        column: loc.column().max(1),
        len: 1,
    });
    let (code, help) = if message.contains("duplicate entry") {
        let pos = duplicate_key_pos(yaml, &message, pos.line - first_line)
            .map(|(line, column, len)| Pos {
                line: first_line + line,
                column,
                len,
            })
            .unwrap_or(pos);
        return Diagnostic::new(
            codes::DUPLICATE_KEY,
            file,
            pos,
            format!("invalid YAML: {message}"),
        )
        .with_help("remove or rename one of the two keys");
    } else if message.contains("recursion limit") || message.contains("repetition limit") {
        (
            codes::YAML_TOO_COMPLEX,
            "YAML aliases or nesting expand past the safety limit; write the values out",
        )
    } else {
        (
            codes::YAML_SYNTAX,
            "quote values that contain `: `, `#` or start with a special character",
        )
    };
    Diagnostic::new(code, file, pos, format!("invalid YAML: {message}")).with_help(help)
}

/// serde_yaml places a duplicate key at its mapping's start; find the repeated key itself:
/// the second line, at or after `from` (0-based), that writes the key at the same indent.
fn duplicate_key_pos(yaml: &str, message: &str, from: usize) -> Option<(usize, usize, usize)> {
    let key = message.split('"').nth(1)?;
    let mut first_indent: Vec<usize> = Vec::new();
    for (i, line) in yaml.lines().enumerate().skip(from) {
        let trimmed = line.trim_start().trim_start_matches("- ");
        let indent = line.len() - trimmed.len();
        let bare = trimmed.trim_start_matches(['"', '\'']);
        if bare.starts_with(key)
            && bare[key.len()..]
                .trim_start_matches(['"', '\''])
                .starts_with(':')
        {
            if first_indent.contains(&indent) {
                return Some((i, line[..indent].chars().count() + 1, key.chars().count()));
            }
            first_indent.push(indent);
        }
    }
    None
}

/// A short name for the kind of a YAML value, for messages.
pub(crate) fn value_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

/// The key text of a top-level `key:` line, if the line is one.
fn top_level_key(line: &str) -> Option<&str> {
    let first = line.chars().next()?;
    if first.is_whitespace() || first == '#' || first == '-' {
        return None;
    }
    let colon = line.find(':')?;
    let after = &line[colon + 1..];
    if !(after.is_empty() || after.starts_with(' ') || after.starts_with('\t')) {
        return None;
    }
    Some(line[..colon].trim().trim_matches(|c| c == '"' || c == '\''))
}

impl YamlDoc {
    /// The text of the scalar `v` found at `path`, as written: YAML reads `0x1F`, `1.10` and
    /// `1e3` as numbers, but where a string is expected the author meant those characters
    /// (skills-ref keeps them too). `None` for lists, mappings and null.
    pub(crate) fn text(&self, path: &[Seg<'_>], v: &Value) -> Option<String> {
        let untagged = match v {
            Value::Tagged(t) => &t.value,
            v => v,
        };
        if !matches!(untagged, Value::Number(_) | Value::Bool(_)) {
            return scalar_string(v);
        }
        let written = self
            .written
            .get_or_init(|| Written::parse(&self.lines.join("\n")));
        match written.as_ref().and_then(|w| w.at(path)) {
            Some(Written::Scalar(text)) => Some(text.clone()),
            _ => scalar_string(v),
        }
    }

    /// The top-level string keys, in document order.
    pub(crate) fn keys(&self) -> Vec<String> {
        self.map.keys().filter_map(scalar_string).collect()
    }

    /// The value of a top-level key.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    fn key_line_index(&self, key: &str) -> Option<usize> {
        self.lines
            .iter()
            .position(|l| top_level_key(l) == Some(key))
    }

    fn block(&self, key: &str) -> Option<(usize, usize)> {
        let start = self.key_line_index(key)?;
        let end = self.lines[start + 1..]
            .iter()
            .position(|l| top_level_key(l).is_some())
            .map_or(self.lines.len(), |i| start + 1 + i);
        Some((start, end))
    }

    /// The top-level key whose block holds file line `line` (1-based, as diagnostics count).
    pub(crate) fn key_at_line(&self, line: usize) -> Option<String> {
        let index = line.checked_sub(self.first_line)?;
        let owner = self
            .lines
            .get(..=index)?
            .iter()
            .rev()
            .find_map(|l| top_level_key(l))?;
        Some(owner.to_string())
    }

    fn pos_at(&self, index: usize, byte_col: usize, len: usize) -> Pos {
        let line = &self.lines[index];
        Pos {
            line: self.first_line + index,
            column: line[..byte_col].chars().count() + 1,
            len,
        }
    }

    /// Where a top-level key is written (its first line if it is not found).
    pub(crate) fn key_pos(&self, key: &str) -> Pos {
        match self.key_line_index(key) {
            Some(i) => self.pos_at(i, 0, key.chars().count()),
            None => Pos::line(self.first_line),
        }
    }

    /// Where `needle` is written inside the block of top-level `key` (the `n`-th occurrence,
    /// from 0), or the key's position when it cannot be found.
    pub(crate) fn value_pos_nth(&self, key: &str, needle: &str, n: usize) -> Pos {
        self.find_value(key, needle, n)
            .unwrap_or_else(|| self.key_pos(key))
    }

    /// Where the `n`-th occurrence of `needle` is written inside the block of `key`, if it is
    /// (comments apart).
    pub(crate) fn find_value(&self, key: &str, needle: &str, n: usize) -> Option<Pos> {
        let (start, end) = self.block(key)?;
        if needle.is_empty() {
            return None;
        }
        let mut seen = 0;
        for i in start..end {
            // A value is never in a comment: `into: a # was b` names `a` only.
            let line = &self.lines[i][..comment_start(&self.lines[i])];
            let mut search_from = if i == start {
                line.find(':').map_or(0, |c| c + 1)
            } else {
                0
            };
            while let Some(found) = line[search_from..].find(needle) {
                let at = search_from + found;
                if seen == n {
                    return Some(self.pos_at(i, at, needle.chars().count()));
                }
                seen += 1;
                search_from = at + needle.len();
            }
        }
        None
    }

    /// Where `needle` is first written inside the block of top-level `key`.
    pub(crate) fn value_pos(&self, key: &str, needle: &str) -> Pos {
        self.value_pos_nth(key, needle, 0)
    }

    /// Where the nested key `path[1..]` is written inside top-level `path[0]`.
    pub(crate) fn path_pos(&self, path: &[&str]) -> Pos {
        let Some((first, rest)) = path.split_first() else {
            return Pos::line(self.first_line);
        };
        let Some((start, end)) = self.block(first) else {
            return Pos::line(self.first_line);
        };
        let mut best = self.key_pos(first);
        let mut from = start + 1;
        for key in rest {
            let found = (from..end).find(|&i| {
                let t = self.lines[i].trim_start().trim_start_matches("- ");
                let t = t.trim_start_matches(['"', '\'']);
                t.starts_with(key)
                    && t[key.len()..]
                        .trim_start_matches(['"', '\''])
                        .starts_with(':')
            });
            match found {
                Some(i) => {
                    let col = self.lines[i].find(key).unwrap_or(0);
                    best = self.pos_at(i, col, key.chars().count());
                    from = i + 1;
                }
                None => break,
            }
        }
        best
    }
}

/// The string form of a scalar (YAML `1.0` → `"1.0"`, `true` → `"true"`), as strict YAML
/// readers see it; `None` for lists, mappings and null.
pub(crate) fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Tagged(t) => scalar_string(&t.value),
        _ => None,
    }
}

/// Where a line's comment starts (its length when it has none): a `#` at the start of a word,
/// outside quotes.
fn comment_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut word_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(b'"') if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'#' && word_start => return i,
            None if (b == b'"' || b == b'\'') && word_start => quote = Some(b),
            None => {}
        }
        word_start = matches!(b, b' ' | b'\t' | b'[' | b'{' | b',');
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_inside_a_value_does_not_end_the_frontmatter() {
        let text = "---\nname: x\ndescription: a---b\n---\nBody\n";
        let split = split_frontmatter("f", text).unwrap();
        assert_eq!(split.yaml, "name: x\ndescription: a---b\n");
        assert_eq!(split.body, "Body\n");
        assert_eq!(split.body_first_line, 5);
    }

    #[test]
    fn unclosed_frontmatter_is_an_error() {
        let err = split_frontmatter("f", "---\nname: x\n").unwrap_err();
        assert_eq!(err.code, codes::UNCLOSED_FRONTMATTER);
    }

    #[test]
    fn missing_frontmatter_is_an_error() {
        let err = split_frontmatter("f", "# Title\n").unwrap_err();
        assert_eq!(err.code, codes::MISSING_FRONTMATTER);
    }

    #[test]
    fn yaml_errors_are_reported_on_file_lines() {
        let err = parse_mapping("f", "name: x\ndescription: [unclosed\n", 2).unwrap_err();
        assert_eq!(err.code, codes::YAML_SYNTAX);
        assert!(err.line >= 3, "line {}", err.line);
    }

    #[test]
    fn duplicate_keys_are_reported() {
        let err = parse_mapping("f", "name: a\nname: b\n", 2).unwrap_err();
        assert_eq!((err.code, err.line), (codes::DUPLICATE_KEY, 3));
    }

    #[test]
    fn finds_positions_of_keys_and_values() {
        let doc = parse_mapping("f", "name: x\ndependencies:\n  - alpha\n  - beta\n", 2).unwrap();
        assert_eq!(doc.key_pos("dependencies").line, 3);
        let p = doc.value_pos("dependencies", "beta");
        assert_eq!((p.line, p.column, p.len), (5, 5, 4));
        let p = doc.value_pos("name", "x");
        assert_eq!((p.line, p.column), (2, 7));
    }

    #[test]
    fn values_are_never_found_in_comments() {
        let yaml = "external:\n  # was vendor__more, now:\n  - into: vendor__more # vendor__more\n  - into: 'a # b'\n";
        let doc = parse_mapping("f", yaml, 1).unwrap();
        let p = doc.value_pos("external", "vendor__more");
        assert_eq!((p.line, p.column), (3, 11));
        assert_eq!(doc.find_value("external", "vendor__more", 1), None);
        assert_eq!(doc.value_pos("external", "# b").line, 4);
    }

    #[test]
    fn finds_nested_keys() {
        let doc = parse_mapping("f", "mcp:\n  env:\n    A: 1\n  command: x\n", 1).unwrap();
        assert_eq!(doc.path_pos(&["mcp", "command"]).line, 4);
    }

    #[test]
    fn nesting_is_measured_outside_text() {
        assert_eq!(too_deep("a: [[[1]]]\n", 3), None);
        assert!(too_deep("a: [[[[1]]]]\n", 3).is_some());
        assert_eq!(too_deep("a: '[[[[['\nb: \"{{{{\"\n", 3), None);
        assert_eq!(too_deep("a: |\n  [[[[[\n  {{{{{\nb: x # [[[[[\n", 3), None);
        assert_eq!(too_deep("d: it's [[[[ text\n", 3).map(|p| p.0), Some(0));
        assert!(too_deep("a:\n  - - - - - x\n", 3).is_some());
        assert_eq!(too_deep("a:\n  - - - x\n", 3), None);
    }

    #[test]
    fn deep_nesting_fails_fast_with_its_position() {
        let n = 200_000;
        let yaml = format!("name: a\nmetadata: {}{}\n", "[".repeat(n), "]".repeat(n));
        let started = std::time::Instant::now();
        let err = parse_mapping("f", &yaml, 2).unwrap_err();
        assert_eq!((err.code, err.line), (codes::YAML_TOO_COMPLEX, 3));
        assert_eq!(err.column, "metadata: ".len() + MAX_NESTING + 1);
        // Linear: a 400 KB line is refused in well under a second even unoptimised.
        assert!(started.elapsed().as_secs() < 5);
    }

    #[test]
    fn scalars_keep_their_written_text() {
        let doc = parse_mapping(
            "f",
            "description: 0x1F\nversion: 1.10\nname: 1e3\nok: True\nmetadata: {version: 1.10, n: 007}\ntags:\n  - 1.20\n  - x\n",
            2,
        )
        .unwrap();
        let text = |path: &[Seg<'_>]| {
            let mut v = &Value::Mapping(doc.map.clone());
            for seg in path {
                v = match seg {
                    Seg::Key(k) => v.get(*k).unwrap(),
                    Seg::Index(i) => v.get(*i).unwrap(),
                };
            }
            doc.text(path, v)
        };
        assert_eq!(text(&[Seg::Key("description")]).as_deref(), Some("0x1F"));
        assert_eq!(text(&[Seg::Key("version")]).as_deref(), Some("1.10"));
        assert_eq!(text(&[Seg::Key("name")]).as_deref(), Some("1e3"));
        assert_eq!(text(&[Seg::Key("ok")]).as_deref(), Some("True"));
        let meta = [Seg::Key("metadata"), Seg::Key("version")];
        assert_eq!(text(&meta).as_deref(), Some("1.10"));
        let tag = [Seg::Key("tags"), Seg::Index(0)];
        assert_eq!(text(&tag).as_deref(), Some("1.20"));
    }
}
