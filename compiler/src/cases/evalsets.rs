//! Eval sets beside a skill, read as routing cases: the files other tools keep in a skill's
//! `evals/` folder, so `skillc test` and `skillc eval` run the messages a team already wrote.
//!
//! - `evals/evals.json`, the Agent Skills evaluation format (agentskills.io, "Evaluating skill
//!   output quality"; skill-creator's `references/schemas.md`): `{"skill_name", "evals": [{"id",
//!   "prompt", "expected_output", "files", "assertions" | "expectations"}]}`. Each eval's
//!   `prompt` is a message that must reach the skill (the case is named by the eval's `name`,
//!   else `<skill>: eval <id>`); its assertions (or `expectations`, the
//!   name skill-creator's schema and agentskills PR #506 use) are graded by a model, so they
//!   are checked for shape only.
//! - Trigger sets, any other `evals/*.json` shaped as skill-creator's and agentskills.io's
//!   description-optimization queries (`[{"query", "should_trigger"}]`): `true` must reach
//!   the skill, `false` must not.
//!
//! Other JSON in `evals/` (a grader's output, a benchmark) is not an eval set and is left
//! alone; a file that is not JSON at all, or an eval set with a wrong shape, is a diagnostic at
//! its line.

use std::path::Path;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::model::Skill;

use super::read::{read_yaml, Node};
use super::{Case, Expect, Request};

/// The folder of a skill that holds its eval sets.
pub(crate) const EVALS_DIR: &str = "evals";
/// The Agent Skills evaluation file.
pub(crate) const EVALS_FILE: &str = "evals.json";

/// The eval-set files of a skill, workspace-relative, `evals.json` first, then the others by
/// name: regular `.json` files directly in its `evals/` folder.
pub(super) fn files_of(root: &Path, skill: &Skill) -> Vec<String> {
    let dir = Path::new(&skill.dir).join(EVALS_DIR);
    let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort_by_key(|n| (n != EVALS_FILE, n.clone()));
    let rel = |n: &String| dir.join(n).to_string_lossy().replace('\\', "/");
    names.iter().map(rel).collect()
}

/// The cases of one eval-set file (`file` relative to the workspace, content `text`) of
/// `skill`, and what is wrong with them.
pub(super) fn read(file: &str, text: &str, skill: &str) -> (Vec<Case>, Vec<Diagnostic>) {
    let mut set = EvalSet {
        file,
        skill,
        cases: Vec::new(),
        diagnostics: Vec::new(),
    };
    // JSON's own parser says whether it is JSON (YAML would take more); the positioned YAML
    // reader gives each value its line (JSON is YAML), or the values' shape alone when a file
    // is JSON that YAML refuses (tabs where YAML wants none).
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let at = Pos {
                line: e.line().max(1),
                column: e.column().max(1),
                len: 1,
            };
            let why = format!("not JSON: {e}");
            set.problem(at, why, "an eval set is JSON");
            return (set.cases, set.diagnostics);
        }
    };
    let node = read_yaml(file, text).unwrap_or_else(|_| unpositioned(&value));
    let is_evals = file.ends_with(&format!("/{EVALS_FILE}")) || file == EVALS_FILE;
    match &node {
        Node::Map(entries, _) if entries.iter().any(|(k, _, _)| k == "evals") => {
            set.agent_skills(entries)
        }
        Node::List(items, _) if items.iter().any(is_trigger) => set.triggers(items),
        // The `evals` list alone, without its mapping (aiskillstore's ddd-check): read the same.
        Node::List(items, _) if is_evals && items.iter().any(is_eval) => set.evals(items),
        other if is_evals => set.problem(
            other.pos(),
            format!("`{EVALS_FILE}` should be a mapping with an `evals` list, not {}", other.kind()),
            "Agent Skills: {\"skill_name\": …, \"evals\": [{\"id\": 1, \"prompt\": …, \"assertions\": […]}]}",
        ),
        // Not shaped like an eval set (a grader's output, a benchmark): not ours to judge.
        _ => {}
    }
    (set.cases, set.diagnostics)
}

const EVAL_HELP: &str = "an eval is {\"id\": 1, \"prompt\": \"…\", \"expected_output\": \"…\", \"files\": […], \"assertions\": [\"…\"]} (or `expectations`)";

/// An Agent Skills eval: a mapping with a `prompt`.
fn is_eval(item: &Node) -> bool {
    matches!(item, Node::Map(entries, _) if entries.iter().any(|(k, _, _)| k == "prompt"))
}

/// A trigger-set item: a mapping with `query` or `should_trigger`.
fn is_trigger(item: &Node) -> bool {
    matches!(item, Node::Map(entries, _)
        if entries.iter().any(|(k, _, _)| k == "query" || k == "should_trigger"))
}

/// A JSON value as nodes all placed at line 1 (its shape without its places).
fn unpositioned(value: &serde_json::Value) -> Node {
    use serde_json::Value;
    let at = Pos::start();
    match value {
        Value::Array(items) => Node::List(items.iter().map(unpositioned).collect(), at),
        Value::Object(map) => Node::Map(
            map.iter()
                .map(|(k, v)| (k.clone(), at, unpositioned(v)))
                .collect(),
            at,
        ),
        Value::String(s) => Node::Scalar(s.clone(), at),
        Value::Null => Node::Other(at),
        other => Node::Scalar(other.to_string(), at),
    }
}

/// One file's reading: its cases and problems.
struct EvalSet<'a> {
    file: &'a str,
    skill: &'a str,
    cases: Vec<Case>,
    diagnostics: Vec<Diagnostic>,
}

impl EvalSet<'_> {
    fn problem(&mut self, at: Pos, message: String, help: &str) {
        self.diagnostics.push(
            Diagnostic::new(codes::BAD_EVAL_SET, self.file, at, message)
                .with_help(help.to_string()),
        );
    }

    /// A routing case of this file: `message` must (`reach`) or must not reach the skill.
    fn push(&mut self, name: String, line: usize, message: String, reach: bool) {
        let skill = vec![self.skill.to_string()];
        let expect = if reach {
            Expect {
                routes_to: Some(skill),
                ..Expect::default()
            }
        } else {
            Expect {
                routes_not_to: skill,
                ..Expect::default()
            }
        };
        self.cases.push(Case {
            name,
            file: self.file.to_string(),
            line,
            request: Request {
                message: Some(message),
                ..Request::default()
            },
            expect,
        });
    }

    /// A non-empty text, or a problem at its place.
    fn text(&mut self, key: &str, node: &Node, help: &str) -> Option<String> {
        match node {
            Node::Scalar(s, _) if !s.trim().is_empty() => Some(s.clone()),
            other => {
                let what = match other {
                    Node::Scalar(..) => "an empty text",
                    _ => other.kind(),
                };
                self.problem(
                    other.pos(),
                    format!("`{key}` takes a text, not {what}"),
                    help,
                );
                None
            }
        }
    }

    /// `{"skill_name", "evals": [...]}`: each eval's prompt must reach the skill.
    fn agent_skills(&mut self, entries: &[(String, Pos, Node)]) {
        for (key, _, value) in entries {
            match key.as_str() {
                "skill_name" => {
                    self.text(key, value, "`skill_name` names the skill the evals are for");
                }
                "evals" => match value {
                    Node::List(items, _) => self.evals(items),
                    other => {
                        let why = format!("`evals` takes a list of evals, not {}", other.kind());
                        self.problem(other.pos(), why, EVAL_HELP);
                    }
                },
                // Other tools add their own keys (`$schema`, `version`, …): theirs.
                _ => {}
            }
        }
    }

    /// The evals of an `evals` list.
    fn evals(&mut self, items: &[Node]) {
        for (n, item) in items.iter().enumerate() {
            self.agent_skills_eval(n + 1, item, EVAL_HELP);
        }
    }

    /// One eval of `evals`, the `n`th.
    fn agent_skills_eval(&mut self, n: usize, item: &Node, help: &str) {
        let Node::Map(entries, at) = item else {
            let why = format!("an eval is a mapping, not {}", item.kind());
            return self.problem(item.pos(), why, help);
        };
        let (mut prompt, mut id, mut label, mut reach) = (None, None, None, true);
        for (key, _, value) in entries {
            match key.as_str() {
                "prompt" => prompt = self.text(key, value, help),
                // A trigger set kept under `evals` (some runners take either shape).
                "should_trigger" => reach = !matches!(value, Node::Scalar(s, _) if s == "false"),
                "id" => id = self.text(key, value, help),
                "name" => label = self.text(key, value, help),
                "expected_output" => {
                    self.text(key, value, help);
                }
                "files" | "assertions" | "expectations" => self.checks(key, value, help),
                _ => {}
            }
        }
        let Some(prompt) = prompt else {
            if !entries.iter().any(|(k, _, _)| k == "prompt") {
                self.problem(*at, format!("eval {n} has no `prompt`"), help);
            }
            return;
        };
        let name = match (label, id) {
            (Some(label), _) => label,
            (None, Some(id)) => format!("{}: eval {id}", self.skill),
            (None, None) => format!("{}: eval #{n}", self.skill),
        };
        self.push(name, at.line, prompt, reach);
    }

    /// `files`, `assertions` or `expectations`: a list of texts (or, for assertions, of
    /// mappings some tools write: `{"name", "description"}`).
    fn checks(&mut self, key: &str, value: &Node, help: &str) {
        let Node::List(items, _) = value else {
            let why = format!("`{key}` takes a list, not {}", value.kind());
            return self.problem(value.pos(), why, help);
        };
        for item in items {
            match item {
                Node::Scalar(..) => {}
                Node::Map(..) if key != "files" => {}
                other => {
                    let why = format!("`{key}` lists texts, not {}", other.kind());
                    self.problem(other.pos(), why, help);
                }
            }
        }
    }

    /// `[{"query", "should_trigger"}]`: `true` must reach the skill, `false` must not.
    fn triggers(&mut self, items: &[Node]) {
        const HELP: &str =
            "a trigger set lists {\"query\": \"…\", \"should_trigger\": true | false}";
        for (n, item) in items.iter().enumerate() {
            let Node::Map(entries, at) = item else {
                let why = format!("a trigger query is a mapping, not {}", item.kind());
                self.problem(item.pos(), why, HELP);
                continue;
            };
            let (mut query, mut should) = (None, None);
            for (key, _, value) in entries {
                match key.as_str() {
                    "query" => query = self.text(key, value, HELP),
                    "should_trigger" => match value {
                        Node::Scalar(s, _) if s == "true" || s == "false" => {
                            should = Some(s == "true")
                        }
                        other => {
                            let why = "`should_trigger` takes true or false".to_string();
                            self.problem(other.pos(), why, HELP);
                        }
                    },
                    _ => {}
                }
            }
            let has = |k: &str| entries.iter().any(|(key, _, _)| key == k);
            if !has("query") || !has("should_trigger") {
                let why = format!("trigger query {} needs `query` and `should_trigger`", n + 1);
                self.problem(*at, why, HELP);
            }
            if let (Some(query), Some(reach)) = (query, should) {
                let verb = if reach {
                    "triggers"
                } else {
                    "does not trigger"
                };
                self.push(
                    format!("{} {verb}: #{}", self.skill, n + 1),
                    at.line,
                    query,
                    reach,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (message, must reach) of each case read from `text` as `file` of skill `pdf`.
    fn read_ok(file: &str, text: &str) -> Vec<(String, bool)> {
        let (cases, problems) = read(file, text, "pdf");
        assert!(problems.is_empty(), "{problems:?}");
        let reach = |c: &Case| c.expect.routes_to.is_some();
        cases
            .iter()
            .map(|c| (c.request.message.clone().unwrap(), reach(c)))
            .collect()
    }

    #[test]
    fn the_shapes_collections_write_are_read() {
        // Assertions as {name, type, value} mappings (a collection's runner writes these).
        let objects = r#"{"evals": [{"id": 0, "prompt": "fill the form", "assertions": [{"name": "a", "type": "contains", "value": "x"}]}]}"#;
        assert_eq!(
            read_ok("pdf/evals/evals.json", objects),
            [("fill the form".into(), true)]
        );
        // Trigger queries kept under `evals`.
        let under = r#"{"evals": [{"prompt": "merge these", "should_trigger": true}, {"prompt": "write a poem", "should_trigger": false}]}"#;
        let read = read_ok("pdf/evals/triggers.json", under);
        assert_eq!(
            read,
            [("merge these".into(), true), ("write a poem".into(), false)]
        );
        // JSON indented with tabs (where YAML may refuse tabs) is still read.
        let tabs = "[\n\t{\"query\": \"split the pdf\",\n\t\"should_trigger\": true}\n]";
        assert_eq!(
            read_ok("pdf/evals/q.json", tabs),
            [("split the pdf".into(), true)]
        );
        // Another tool's output is no eval set.
        assert!(read_ok(
            "pdf/evals/grading.json",
            r#"{"expectations": [{"text": "x", "passed": true}]}"#
        )
        .is_empty());
    }
}
