//! `skillc test`: the workspace's own cases, `tests/*.yaml`, each a request to a
//! bundle and what its catalog and prompt must (not) hold. Case files are checked like any
//! workspace file: an unknown key, client, locale, tier, consumer or skill is a diagnostic at
//! its line and column, never a case that quietly passes.

use std::path::Path;

use serde::Serialize;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::parse::text;
use crate::Workspace;

pub mod eval;
pub mod evalsets;
pub mod export;
mod figures;
mod read;
mod run;
pub mod selector;

use read::{names_a_case, read_yaml, Node, Reader};
pub use run::{render_json, render_junit, render_text, run, Outcome};

/// Largest case file read (a text file's limit).
const MAX_CASE_BYTES: u64 = 1 << 20;

/// One case of a `tests/*.yaml` file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Case {
    /// What it checks, in words.
    pub name: String,
    /// Its file, relative to the workspace.
    pub file: String,
    /// The line of its `name`.
    pub line: usize,
    /// The bundle and the request.
    pub request: Request,
    /// What must hold.
    pub expect: Expect,
}

/// Which bundle, in which context, with which skills selected.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CaseRequest"))]
pub struct Request {
    /// Client (none: the global bundle).
    pub client: Option<String>,
    /// Locale (none: the default).
    pub locale: Option<String>,
    /// Tier (none: the default).
    pub tier: Option<String>,
    /// Consumer whose filters apply.
    pub consumer: Option<String>,
    /// Run-time context: `page_url`, `turn`, …
    pub(crate) context: Vec<(String, String)>,
    /// Selected skills (names or SK ids); the prompt is assembled when there are any, or when
    /// an expectation is about the prompt.
    pub(crate) select: Vec<String>,
    /// A visitor's message to route (`skillc route`), for `routes_to` and `routes_not_to`.
    pub message: Option<String>,
    /// The visitor's messages before it, oldest first: each text and how many seconds before
    /// the message it was sent (routing's stage 0 may join the message to them).
    pub(crate) history: Vec<(String, u64)>,
}

/// A case's history as a route takes it, the message being sent at time 0.
pub fn turns(history: &[(String, u64)]) -> Vec<skillc_runtime::route::Turn<'_>> {
    (history.iter())
        .map(|(text, ago)| skillc_runtime::route::Turn {
            text,
            time: -(*ago as f64),
        })
        .collect()
}

/// What the catalog and the prompt must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Expect {
    /// Selectable names the catalog shows.
    pub(crate) catalog_includes: Vec<String>,
    /// Selectable names the catalog does not show.
    pub(crate) catalog_excludes: Vec<String>,
    /// Skills in the prompt (by selectable name or by the skill whose content is used).
    pub(crate) prompt_includes: Vec<String>,
    /// Skills not in the prompt, under either name.
    pub(crate) prompt_excludes: Vec<String>,
    /// Skills left out, each with the start of its reason (`blocked`, `excluded:x`, …).
    pub removed: Vec<(String, String)>,
    /// Texts the prompt holds (the catalog, when no prompt is assembled).
    pub(crate) text_contains: Vec<String>,
    /// Most tokens of the prompt (the catalog, when no prompt is assembled).
    pub(crate) max_tokens: Option<u64>,
    /// Skills the message must reach, each among its candidates (`Some([])`: no candidate at
    /// all).
    pub routes_to: Option<Vec<String>>,
    /// `routes_to` within the first this many candidates.
    pub(crate) within: Option<usize>,
    /// Skills the message must not reach.
    pub routes_not_to: Vec<String>,
}

impl Expect {
    pub(crate) fn about_the_prompt(&self) -> bool {
        !(self.prompt_includes.is_empty()
            && self.prompt_excludes.is_empty()
            && self.removed.is_empty())
    }
}

/// The cases of one file (relative path `file`, content `text`) and what is wrong with them.
pub(crate) fn read_file(file: &str, text: &str, ws: &Workspace) -> (Vec<Case>, Vec<Diagnostic>) {
    let mut reader = Reader {
        file,
        ws,
        diagnostics: Vec::new(),
    };
    let cases = match read_yaml(file, text) {
        Err(d) => {
            reader.diagnostics.push(d);
            Vec::new()
        }
        Ok(Node::List(items, _)) if items.iter().any(names_a_case) => {
            items.iter().filter_map(|c| reader.case(c)).collect()
        }
        // Not shaped like cases (a collection's own test data): not ours to judge.
        Ok(_) => Vec::new(),
    };
    (cases, reader.diagnostics)
}

/// Every case of `<root>/tests/*.yaml` (in file order), then those of each skill's eval sets
/// (`evals/evals.json` and trigger sets, see [`evalsets`]), and what is wrong with them. A
/// workspace without a `tests/` folder or eval sets has no cases.
pub fn load(root: &Path, ws: &Workspace) -> (Vec<Case>, Vec<Diagnostic>) {
    let mut cases = Vec::new();
    let mut diagnostics = Vec::new();
    let mut files: Vec<String> = match std::fs::read_dir(root.join("tests")) {
        Ok(entries) => entries
            .flatten()
            // Regular files only: a link, a pipe or a folder named `x.yaml` is not read.
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".yaml") || name.ends_with(".yml"))
            .map(|name| format!("tests/{name}"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    for rel in files {
        match read_text(root, &rel) {
            Ok((text, warnings)) => {
                diagnostics.extend(warnings);
                let (more, found) = read_file(&rel, &text, ws);
                cases.extend(more);
                diagnostics.extend(found.into_iter().map(|d| d.with_source(&text)));
            }
            Err(d) => diagnostics.push(d),
        }
    }
    for skill in &ws.skills {
        for rel in evalsets::files_of(root, skill) {
            match read_text(root, &rel) {
                Ok((text, warnings)) => {
                    diagnostics.extend(warnings);
                    let (more, found) = evalsets::read(&rel, &text, &skill.name);
                    cases.extend(more);
                    diagnostics.extend(found.into_iter().map(|d| d.with_source(&text)));
                }
                Err(d) => diagnostics.push(d),
            }
        }
    }
    (cases, diagnostics)
}

/// A case file's text (workspace-relative `rel`), within a text file's size limit.
fn read_text(root: &Path, rel: &str) -> Result<(String, Vec<Diagnostic>), Diagnostic> {
    let path = root.join(rel);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_CASE_BYTES {
        return Err(Diagnostic::new(
            codes::TOO_LARGE,
            rel,
            Pos::start(),
            format!("file is {size} bytes, over the {MAX_CASE_BYTES} byte limit of a text file"),
        ));
    }
    std::fs::read(&path)
        .map_err(|e| {
            Diagnostic::new(
                codes::UNREADABLE,
                rel,
                Pos::start(),
                format!("cannot read: {e}"),
            )
        })
        .and_then(|bytes| text::decode(rel, &bytes))
}
