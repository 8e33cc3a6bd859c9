//! Three-way merge of workspace files (`skillc merge`, and the studio when the disk changed under
//! an open edit): a SKILL.md by frontmatter field, list item and body paragraph; workspace.yaml
//! and client.yaml by key (at any depth) and list item; any other text by line, as git does.
//! Edits to different fields merge; the same field changed two ways is a conflict that keeps
//! both sides, marked as git marks them, and listed in [`Merged::conflicts`] for a person to pick.
//!
//! Like the other edits, merges work on lines: what neither side changed comes out byte for byte,
//! and a side's change comes out as that side wrote it. Files that are not the shape their name
//! says (a frontmatter that does not close, a YAML file whose top level is a list) are merged by
//! line, never refused.

use std::path::Path;

use serde::Serialize;

mod diff3;
mod yaml;

use diff3::{diff3, resolve, Chunk, Resolved};

use super::{line_ending, lines, Error};

/// How a file is merged, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `SKILL.md` (and its translations, `SKILL.fr.md`) and `CATEGORY.md`: frontmatter by field,
    /// body by paragraph.
    Skill,
    /// YAML settings (`workspace.yaml`, `client.yaml`, any `.yaml`): by key and list item.
    Settings,
    /// Anything else: by line.
    Text,
}

impl Kind {
    /// The kind of the file at `path` (only its name is read).
    pub fn of(path: &Path) -> Kind {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if (name.starts_with("SKILL.") && name.ends_with(".md")) || name == "CATEGORY.md" {
            Kind::Skill
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            Kind::Settings
        } else {
            Kind::Text
        }
    }
}

/// A place both sides changed differently: the output holds both between conflict markers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "MergeConflict"))]
pub struct Conflict {
    /// What it is, in words: `` field `description` ``, `` `routing.min_score` ``, `the body`.
    pub place: String,
    /// The output line of its opening marker (1-based).
    pub line: usize,
    /// The text both started from (empty when both sides added something here).
    pub(crate) base: String,
    /// Our version (empty when we removed it).
    pub ours: String,
    /// Their version (empty when they removed it).
    pub theirs: String,
}

/// The result of a merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Merged {
    /// The merged text, conflicts marked (`<<<<<<< ours`, `=======`, `>>>>>>> theirs`).
    pub text: String,
    /// The conflicts left, in the order of the text; none when the merge is clean.
    pub conflicts: Vec<Conflict>,
}

/// The length of conflict markers git uses (`%L` of a merge driver).
pub const MARKER_SIZE: usize = 7;

/// Merges `ours` and `theirs`, both edits of `base`, as a file of `kind`.
pub fn merge(kind: Kind, base: &str, ours: &str, theirs: &str) -> Merged {
    merge_with(kind, base, ours, theirs, MARKER_SIZE)
}

/// [`merge`] with conflict markers of `marker_size` characters.
pub(crate) fn merge_with(
    kind: Kind,
    base: &str,
    ours: &str,
    theirs: &str,
    marker_size: usize,
) -> Merged {
    let mut out = Out {
        text: String::with_capacity(ours.len().max(theirs.len())),
        conflicts: Vec::new(),
        nl: line_ending(ours),
        marker: marker_size.max(1),
    };
    let done = match kind {
        Kind::Skill => merge_skill(&mut out, base, ours, theirs),
        Kind::Settings => yaml::merge_mapping(&mut out, [base, ours, theirs].map(lines), 0, ""),
        Kind::Text => false,
    };
    if !done {
        merge_lines(&mut out, "the text", base, ours, theirs);
    }
    Merged {
        text: out.text,
        conflicts: out.conflicts,
    }
}

/// Reads the three files and merges them as `kind` (a file that is not UTF-8 text is refused).
pub fn merge_files(
    kind: Kind,
    [base, ours, theirs]: [&Path; 3],
    marker_size: usize,
) -> Result<Merged, Error> {
    let text = |path: &Path| -> Result<String, Error> {
        // A regular file only, of at most the size of any file the compiler reads: git hands
        // the driver temporary files; a pipe or a device would be read forever.
        let cap = crate::discover::fsio::MAX_FILE_BYTES;
        let bytes =
            crate::discover::fsio::read_regular(path, Some(cap)).map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if bytes.contains(&0) {
            return Err(Error::Invalid(format!(
                "`{}` is a binary file: only text merges",
                path.display()
            )));
        }
        String::from_utf8(bytes)
            .map_err(|_| Error::Invalid(format!("`{}` is not UTF-8 text", path.display())))
    };
    let (b, o, t) = (text(base)?, text(ours)?, text(theirs)?);
    Ok(merge_with(kind, &b, &o, &t, marker_size))
}

/// Where the merged text is written, conflicts and all.
pub(super) struct Out {
    text: String,
    conflicts: Vec<Conflict>,
    nl: &'static str,
    marker: usize,
}

impl Out {
    fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn extend<S: AsRef<str>>(&mut self, parts: &[S]) {
        for p in parts {
            self.text.push_str(p.as_ref());
        }
    }

    /// Writes both sides between markers, each ending its last line so a marker starts a line.
    fn conflict(&mut self, place: String, [base, ours, theirs]: [&str; 3]) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push_str(self.nl);
        }
        let line = self.text.matches('\n').count() + 1;
        let (nl, m) = (self.nl, self.marker);
        let mut side = |text: &str| {
            self.text.push_str(text);
            if !text.is_empty() && !text.ends_with('\n') {
                self.text.push_str(nl);
            }
        };
        side(&format!("{} ours{nl}", "<".repeat(m)));
        side(ours);
        side(&format!("{}{nl}", "=".repeat(m)));
        side(theirs);
        side(&format!("{} theirs{nl}", ">".repeat(m)));
        self.conflicts.push(Conflict {
            place,
            line,
            base: base.to_string(),
            ours: ours.to_string(),
            theirs: theirs.to_string(),
        });
    }
}

/// Merges by line, as git does.
fn merge_lines(out: &mut Out, place: &str, base: &str, ours: &str, theirs: &str) {
    let [b, o, t] = [base, ours, theirs].map(lines);
    for chunk in diff3(&b, &o, &t) {
        match chunk {
            Chunk::Same(u) => out.extend(u),
            Chunk::Changed { base, ours, theirs } => match resolve(base, ours, theirs) {
                Resolved::Take(u) => out.extend(u),
                Resolved::Conflict => out.conflict(
                    place.to_string(),
                    [base.concat(), ours.concat(), theirs.concat()]
                        .each_ref()
                        .map(String::as_str),
                ),
            },
        }
    }
}

/// A text's paragraphs, each with the blank lines after it (joined, they are the text).
fn paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut offset, mut after_blank) = (0, 0, false);
    for line in lines(text) {
        let blank = line.trim().is_empty();
        if !blank && after_blank && offset > start {
            out.push(&text[start..offset]);
            start = offset;
        }
        after_blank = blank;
        offset += line.len();
    }
    if offset > start {
        out.push(&text[start..offset]);
    }
    out
}

/// Merges a markdown body by paragraph; where both sides changed the same paragraphs, by line.
fn merge_body(out: &mut Out, base: &str, ours: &str, theirs: &str) {
    let [b, o, t] = [base, ours, theirs].map(paragraphs);
    for chunk in diff3(&b, &o, &t) {
        match chunk {
            Chunk::Same(u) => out.extend(u),
            Chunk::Changed { base, ours, theirs } => match resolve(base, ours, theirs) {
                Resolved::Take(u) => out.extend(u),
                Resolved::Conflict => match diff3::combine(base, ours, theirs) {
                    Some(both) => out.extend(&both),
                    None => {
                        let [b, o, t] = [base, ours, theirs].map(|p| p.concat());
                        merge_lines(out, "the body", &b, &o, &t);
                    }
                },
            },
        }
    }
}

/// A SKILL.md cut at its fences: the opening fence (with any byte order mark), the frontmatter,
/// the closing fence and the body.
fn skill_parts(text: &str) -> Option<[&str; 4]> {
    let unmarked = text.strip_prefix('\u{feff}').unwrap_or(text);
    let split = crate::parse::yaml::split_frontmatter("SKILL.md", unmarked).ok()?;
    let at = |part: &str| part.as_ptr() as usize - text.as_ptr() as usize;
    let (yaml, body) = (at(split.yaml), at(split.body));
    let yaml_end = yaml + split.yaml.len();
    Some([&text[..yaml], split.yaml, &text[yaml_end..body], split.body])
}

/// Merges a SKILL.md; false (nothing written) when a side has no frontmatter to merge by field.
fn merge_skill(out: &mut Out, base: &str, ours: &str, theirs: &str) -> bool {
    let (Some(b), Some(o), Some(t)) = (skill_parts(base), skill_parts(ours), skill_parts(theirs))
    else {
        return false;
    };
    let fences = |i: usize| match resolve(&[b[i]], &[o[i]], &[t[i]]) {
        Resolved::Take(f) => Some(f[0]),
        Resolved::Conflict => None,
    };
    let (Some(open), Some(close)) = (fences(0), fences(2)) else {
        return false;
    };
    let frontmatter = [b[1], o[1], t[1]].map(lines);
    if !yaml::parses(&frontmatter, 0) {
        return false;
    }
    out.push(open);
    yaml::merge_mapping(out, frontmatter, 0, "field ");
    if !out.text.is_empty() && !out.text.ends_with('\n') {
        out.push(out.nl);
    }
    out.push(close);
    merge_body(out, b[3], o[3], t[3]);
    true
}
