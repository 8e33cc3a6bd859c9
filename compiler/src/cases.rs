//! `skillc test` (SPEC 11.2): the workspace's own cases, `tests/*.yaml`, each a request to a
//! bundle and what its catalog and prompt must (not) hold. Case files are checked like any
//! workspace file: an unknown key, client, locale, tier, consumer or skill is a diagnostic at
//! its line and column, never a case that quietly passes.

use std::path::Path;

use serde::Serialize;
use skillc_runtime::{Artifact, BundleRef, Context, Format};

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::parse::{text, yaml};
use crate::Workspace;

/// Largest case file read (a text file's limit).
const MAX_CASE_BYTES: u64 = 1 << 20;

/// One case of a `tests/*.yaml` file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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
    pub context: Vec<(String, String)>,
    /// Selected skills (names or SK ids); the prompt is assembled when there are any, or when
    /// an expectation is about the prompt.
    pub select: Vec<String>,
}

/// What the catalog and the prompt must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Expect {
    /// Selectable names the catalog shows.
    pub catalog_includes: Vec<String>,
    /// Selectable names the catalog does not show.
    pub catalog_excludes: Vec<String>,
    /// Skills in the prompt (by selectable name or by the skill whose content is used).
    pub prompt_includes: Vec<String>,
    /// Skills not in the prompt, under either name.
    pub prompt_excludes: Vec<String>,
    /// Skills left out, each with the start of its reason (`blocked`, `excluded:x`, …).
    pub removed: Vec<(String, String)>,
    /// Texts the prompt holds (the catalog, when no prompt is assembled).
    pub text_contains: Vec<String>,
    /// Most tokens of the prompt (the catalog, when no prompt is assembled).
    pub max_tokens: Option<u64>,
}

impl Expect {
    fn about_the_prompt(&self) -> bool {
        !(self.prompt_includes.is_empty()
            && self.prompt_excludes.is_empty()
            && self.removed.is_empty())
    }
}

/// A YAML node with the position it is written at.
#[derive(Debug, Clone)]
enum Node {
    Scalar(String, Pos),
    List(Vec<Node>, Pos),
    Map(Vec<(String, Pos, Node)>, Pos),
    /// An alias, an anchor-less null or anything else a case file has no use for.
    Other(Pos),
}

impl Node {
    fn pos(&self) -> Pos {
        match self {
            Node::Scalar(_, p) | Node::List(_, p) | Node::Map(_, p) | Node::Other(p) => *p,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Node::Scalar(..) => "a text",
            Node::List(..) => "a list",
            Node::Map(..) => "a mapping",
            Node::Other(..) => "an alias or nothing",
        }
    }
}

fn pos_of(m: &saphyr_parser::Marker, len: usize) -> Pos {
    Pos {
        line: m.line().max(1),
        column: m.col() + 1,
        len,
    }
}

/// Reads a YAML document into positioned nodes (an event parser: no recursion).
fn read_yaml(file: &str, text: &str) -> Result<Node, Diagnostic> {
    use saphyr_parser::{Event, Parser};
    if let Some((line, _)) = yaml::too_deep(text, yaml::MAX_NESTING) {
        return Err(Diagnostic::new(
            codes::YAML_TOO_COMPLEX,
            file,
            Pos::line(line + 1),
            format!(
                "invalid YAML: nesting deeper than {} levels",
                yaml::MAX_NESTING
            ),
        ));
    }
    enum Open {
        List(Vec<Node>, Pos),
        Map(Vec<(String, Pos, Node)>, Pos, Option<(String, Pos)>),
    }
    let mut open: Vec<Open> = Vec::new();
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| {
            Diagnostic::new(
                codes::YAML_SYNTAX,
                file,
                pos_of(e.marker(), 1),
                format!("invalid YAML: {}", e.info()),
            )
        })?;
        let at = pos_of(&span.start, 0);
        let node = match event {
            Event::Scalar(value, ..) => {
                let len = value.chars().count();
                Node::Scalar(value.into_owned(), Pos { len, ..at })
            }
            Event::Alias(_) => Node::Other(at),
            Event::SequenceStart(..) => {
                open.push(Open::List(Vec::new(), at));
                continue;
            }
            Event::MappingStart(..) => {
                open.push(Open::Map(Vec::new(), at, None));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match open.pop() {
                Some(Open::List(items, p)) => Node::List(items, p),
                Some(Open::Map(entries, p, _)) => Node::Map(entries, p),
                None => continue,
            },
            Event::StreamEnd => break,
            _ => continue,
        };
        match open.last_mut() {
            None => return Ok(node),
            Some(Open::List(items, _)) => items.push(node),
            Some(Open::Map(entries, _, key)) => match key.take() {
                Some((k, p)) => entries.push((k, p, node)),
                None => {
                    *key = Some(match node {
                        Node::Scalar(k, p) => (k, p),
                        other => (String::new(), other.pos()),
                    })
                }
            },
        }
    }
    Ok(Node::Other(Pos::start()))
}

/// Checks a file's cases as it reads them; what it cannot use is a diagnostic.
struct Reader<'a> {
    file: &'a str,
    ws: &'a Workspace,
    diagnostics: Vec<Diagnostic>,
}

impl Reader<'_> {
    fn problem(&mut self, code: &'static str, pos: Pos, message: String) {
        self.diagnostics
            .push(Diagnostic::new(code, self.file, pos, message));
    }

    fn text(&mut self, key: &str, node: &Node) -> Option<String> {
        match node {
            Node::Scalar(s, _) => Some(s.clone()),
            other => {
                self.problem(
                    codes::INVALID_VALUE,
                    other.pos(),
                    format!("`{key}` takes a text, not {}", other.kind()),
                );
                None
            }
        }
    }

    /// A list of texts (a single text counts as a list of one).
    fn texts(&mut self, key: &str, node: &Node) -> Vec<(String, Pos)> {
        match node {
            Node::Scalar(s, p) => vec![(s.clone(), *p)],
            Node::List(items, _) => items
                .iter()
                .filter_map(|n| match n {
                    Node::Scalar(s, p) => Some((s.clone(), *p)),
                    other => {
                        self.problem(
                            codes::INVALID_VALUE,
                            other.pos(),
                            format!("`{key}` lists texts, not {}", other.kind()),
                        );
                        None
                    }
                })
                .collect(),
            other => {
                self.problem(
                    codes::INVALID_VALUE,
                    other.pos(),
                    format!("`{key}` takes a list of texts, not {}", other.kind()),
                );
                Vec::new()
            }
        }
    }

    fn unknown_key(&mut self, key: &str, pos: Pos, within: &str, known: &[&str]) {
        self.diagnostics.push(
            Diagnostic::new(
                codes::BAD_TEST_CASE,
                self.file,
                pos,
                format!("unknown key `{key}` in {within}"),
            )
            .with_help(format!("{within} takes {}", known.join(", "))),
        );
    }

    fn unknown_name(&mut self, what: &str, name: &str, pos: Pos, known: Vec<&str>) {
        let mut d = Diagnostic::new(
            codes::UNKNOWN_IN_TEST,
            self.file,
            pos,
            format!("unknown {what} `{name}`"),
        );
        if let Some(near) = crate::parse::names::did_you_mean(name, known.iter().copied()) {
            d = d.with_help(format!("did you mean `{near}`?"));
        }
        self.diagnostics.push(d);
    }

    /// A skill named by a case: any skill of the workspace, by name or qualified name, or
    /// (where `sk_ids`) a catalog id `SK3`.
    fn skill(&mut self, name: &str, pos: Pos, sk_ids: bool) {
        let bare = name.strip_prefix("skills.").unwrap_or(name);
        let known = self
            .ws
            .skills
            .iter()
            .any(|s| s.name == bare || s.qualified_name() == bare);
        let sk = sk_ids
            && bare
                .strip_prefix("SK")
                .is_some_and(|n| n.parse::<usize>().is_ok());
        if !known && !sk {
            let names = self.ws.skills.iter().map(|s| s.name.as_str()).collect();
            self.unknown_name("skill", name, pos, names);
        }
    }

    fn case(&mut self, node: &Node) -> Option<Case> {
        let Node::Map(entries, at) = node else {
            self.problem(
                codes::BAD_TEST_CASE,
                node.pos(),
                format!(
                    "a case is a mapping with `name`, `request` and `expect`, not {}",
                    node.kind()
                ),
            );
            return None;
        };
        let mut case = Case {
            file: self.file.to_string(),
            line: at.line,
            ..Case::default()
        };
        let mut named = false;
        for (key, key_pos, value) in entries {
            match key.as_str() {
                "name" => {
                    if let Some(n) = self.text(key, value) {
                        case.name = n;
                        case.line = key_pos.line;
                        named = true;
                    }
                }
                "request" => case.request = self.request(value),
                "expect" => case.expect = self.expect(value),
                _ => self.unknown_key(key, *key_pos, "a case", &["name", "request", "expect"]),
            }
        }
        if !named {
            self.problem(
                codes::BAD_TEST_CASE,
                *at,
                "a case needs a `name`".to_string(),
            );
            return None;
        }
        Some(case)
    }

    fn request(&mut self, node: &Node) -> Request {
        const KEYS: &[&str] = &["client", "locale", "tier", "consumer", "context", "select"];
        let mut r = Request::default();
        let Node::Map(entries, _) = node else {
            self.problem(
                codes::INVALID_VALUE,
                node.pos(),
                format!("`request` takes a mapping, not {}", node.kind()),
            );
            return r;
        };
        let mut places: Vec<(&str, String, Pos)> = Vec::new();
        for (key, key_pos, value) in entries {
            match key.as_str() {
                "client" | "locale" | "tier" | "consumer" => {
                    if let Some(v) = self.text(key, value) {
                        places.push((key.as_str(), v.clone(), value.pos()));
                        let slot = match key.as_str() {
                            "client" => &mut r.client,
                            "locale" => &mut r.locale,
                            "tier" => &mut r.tier,
                            _ => &mut r.consumer,
                        };
                        *slot = Some(v);
                    }
                }
                "context" => match value {
                    Node::Map(pairs, _) => {
                        for (k, _, v) in pairs {
                            if let Some(v) = self.text(k, v) {
                                r.context.push((k.clone(), v));
                            }
                        }
                    }
                    other => self.problem(
                        codes::INVALID_VALUE,
                        other.pos(),
                        format!(
                            "`context` takes a mapping of keys to values, not {}",
                            other.kind()
                        ),
                    ),
                },
                "select" => {
                    for (name, pos) in self.texts(key, value) {
                        self.skill(&name, pos, true);
                        r.select.push(name);
                    }
                }
                _ => self.unknown_key(key, *key_pos, "`request`", KEYS),
            }
        }
        self.bundle_exists(&r, &places);
        r
    }

    /// The client, locale, tier and consumer name a bundle that is built.
    fn bundle_exists(&mut self, r: &Request, places: &[(&str, String, Pos)]) {
        let ws = self.ws;
        let pos = |what: &str| {
            places
                .iter()
                .find(|(k, _, _)| *k == what)
                .map_or(Pos::start(), |(_, _, p)| *p)
        };
        let client = match &r.client {
            Some(id) => match ws.clients.get(id) {
                Some(c) => Some(c),
                None => {
                    self.unknown_name(
                        "client",
                        id,
                        pos("client"),
                        ws.clients.keys().map(String::as_str).collect(),
                    );
                    None
                }
            },
            None => None,
        };
        let tiers: Vec<&str> = ws.config.tiers.iter().map(|t| t.name.as_str()).collect();
        let locales: Vec<&str> = client
            .and_then(|c| c.locales.as_ref())
            .unwrap_or(&ws.config.locales)
            .iter()
            .map(String::as_str)
            .collect();
        let client_tiers: Vec<&str> = client
            .and_then(|c| c.tiers.as_ref())
            .map(|t| t.iter().map(String::as_str).collect())
            .unwrap_or(tiers);
        if let Some(l) = &r.locale {
            if !locales.contains(&l.as_str()) {
                self.unknown_name("locale", l, pos("locale"), locales);
            }
        }
        if let Some(t) = &r.tier {
            if !client_tiers.contains(&t.as_str()) {
                self.unknown_name("tier", t, pos("tier"), client_tiers);
            }
        }
        if let Some(c) = &r.consumer {
            if !ws.config.consumers.contains_key(c) {
                let known = ws.config.consumers.keys().map(String::as_str).collect();
                self.unknown_name("consumer", c, pos("consumer"), known);
            }
        }
    }

    fn expect(&mut self, node: &Node) -> Expect {
        const KEYS: &[&str] = &[
            "catalog_includes",
            "catalog_excludes",
            "prompt_includes",
            "prompt_excludes",
            "removed",
            "text_contains",
            "max_tokens",
        ];
        let mut e = Expect::default();
        let Node::Map(entries, _) = node else {
            self.problem(
                codes::INVALID_VALUE,
                node.pos(),
                format!("`expect` takes a mapping, not {}", node.kind()),
            );
            return e;
        };
        for (key, key_pos, value) in entries {
            match key.as_str() {
                "catalog_includes" | "catalog_excludes" | "prompt_includes" | "prompt_excludes" => {
                    let names: Vec<String> = self
                        .texts(key, value)
                        .into_iter()
                        .map(|(name, pos)| {
                            self.skill(&name, pos, false);
                            name
                        })
                        .collect();
                    match key.as_str() {
                        "catalog_includes" => e.catalog_includes = names,
                        "catalog_excludes" => e.catalog_excludes = names,
                        "prompt_includes" => e.prompt_includes = names,
                        _ => e.prompt_excludes = names,
                    }
                }
                "removed" => match value {
                    Node::Map(pairs, _) => {
                        for (name, pos, reason) in pairs {
                            self.skill(name, *pos, false);
                            if let Some(r) = self.text(name, reason) {
                                e.removed.push((name.clone(), r));
                            }
                        }
                    }
                    other => self.problem(
                        codes::INVALID_VALUE,
                        other.pos(),
                        format!(
                            "`removed` maps skills to the start of their reason, not {}",
                            other.kind()
                        ),
                    ),
                },
                "text_contains" => {
                    e.text_contains = self.texts(key, value).into_iter().map(|(t, _)| t).collect()
                }
                "max_tokens" => match self.text(key, value).map(|t| t.parse::<u64>()) {
                    Some(Ok(n)) => e.max_tokens = Some(n),
                    Some(Err(_)) => self.problem(
                        codes::INVALID_VALUE,
                        value.pos(),
                        "`max_tokens` takes a whole number".to_string(),
                    ),
                    None => {}
                },
                _ => self.unknown_key(key, *key_pos, "`expect`", KEYS),
            }
        }
        e
    }
}

/// A file is a case file when it is a list holding at least one mapping with a `name`: other
/// YAML under `tests/` (a public collection's own test data) is left alone.
fn names_a_case(item: &Node) -> bool {
    matches!(item, Node::Map(entries, _) if entries.iter().any(|(k, _, _)| k == "name"))
}

/// The cases of one file (relative path `file`, content `text`) and what is wrong with them.
pub fn read_file(file: &str, text: &str, ws: &Workspace) -> (Vec<Case>, Vec<Diagnostic>) {
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

/// Every case of `<root>/tests/*.yaml` (in file order), and what is wrong with them. A
/// workspace without a `tests/` folder has no cases.
pub fn load(root: &Path, ws: &Workspace) -> (Vec<Case>, Vec<Diagnostic>) {
    let mut cases = Vec::new();
    let mut diagnostics = Vec::new();
    let Ok(entries) = std::fs::read_dir(root.join("tests")) else {
        return (cases, diagnostics);
    };
    let mut files: Vec<(String, std::path::PathBuf)> = entries
        .flatten()
        // Regular files only: a link, a pipe or a folder named `x.yaml` is not read.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.ends_with(".yaml") || name.ends_with(".yml"))
                .then(|| (format!("tests/{name}"), e.path()))
        })
        .collect();
    files.sort();
    for (rel, path) in files {
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if size > MAX_CASE_BYTES {
            diagnostics.push(Diagnostic::new(
                codes::TOO_LARGE,
                &rel,
                Pos::start(),
                format!(
                    "file is {size} bytes, over the {MAX_CASE_BYTES} byte limit of a text file"
                ),
            ));
            continue;
        }
        let decoded = std::fs::read(&path)
            .map_err(|e| {
                Diagnostic::new(
                    codes::UNREADABLE,
                    &rel,
                    Pos::start(),
                    format!("cannot read: {e}"),
                )
            })
            .and_then(|bytes| text::decode(&rel, &bytes));
        match decoded {
            Ok((text, warnings)) => {
                diagnostics.extend(warnings);
                let (more, found) = read_file(&rel, &text, ws);
                cases.extend(more);
                diagnostics.extend(found.into_iter().map(|d| d.with_source(&text)));
            }
            Err(d) => diagnostics.push(d),
        }
    }
    (cases, diagnostics)
}

/// What running a case found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The case.
    pub case: Case,
    /// Each expectation that did not hold, with what was seen (empty: the case passed).
    pub failures: Vec<String>,
}

impl Outcome {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

fn listed(names: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = names.collect();
    if all.is_empty() {
        "nothing".to_string()
    } else {
        all.join(", ")
    }
}

/// Runs one case against a built artifact.
pub fn run(artifact: &Artifact, case: &Case) -> Outcome {
    let mut failures = Vec::new();
    if let Err(e) = run_into(artifact, case, &mut failures) {
        failures.push(format!("the request failed: {e}"));
    }
    Outcome {
        case: case.clone(),
        failures,
    }
}

fn run_into(
    artifact: &Artifact,
    case: &Case,
    failures: &mut Vec<String>,
) -> Result<(), skillc_runtime::Error> {
    let r = &case.request;
    let e = &case.expect;
    let bundle = BundleRef {
        client: r.client.as_deref(),
        locale: r.locale.as_deref(),
        tier: r.tier.as_deref(),
    };
    let ctx = Context::from_pairs(r.context.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(skillc_runtime::Error::Request)?;
    let consumer = r.consumer.as_deref();
    let catalog = artifact.catalog(&bundle, consumer, &ctx, Format::Markdown)?;
    check_catalog(&catalog, e, failures);
    let (text, tokens, what) = if r.select.is_empty() && !e.about_the_prompt() {
        (catalog.text.clone(), u64::from(catalog.tokens), "catalog")
    } else {
        let picked: Vec<&str> = r.select.iter().map(String::as_str).collect();
        let prompt = artifact.prompt(&bundle, consumer, &ctx, &picked)?;
        check_prompt(&prompt, e, failures);
        (prompt.text.clone(), u64::from(prompt.tokens), "prompt")
    };
    for t in &e.text_contains {
        if !text.contains(t.as_str()) {
            failures.push(format!("expected the {what} to contain {t:?}; it does not"));
        }
    }
    if let Some(max) = e.max_tokens {
        if tokens > max {
            failures.push(format!(
                "expected the {what} within {max} tokens; it has {tokens}"
            ));
        }
    }
    Ok(())
}

/// `catalog_includes` and `catalog_excludes`.
fn check_catalog(catalog: &skillc_runtime::Catalog, e: &Expect, failures: &mut Vec<String>) {
    let shown = |n: &str| {
        catalog
            .skills
            .iter()
            .any(|s| s.name == n || s.qualified_name == n)
    };
    let names = || listed(catalog.skills.iter().map(|s| s.name.clone()));
    for n in &e.catalog_includes {
        if !shown(n) {
            failures.push(format!(
                "expected `{n}` in the catalog; it shows {}",
                names()
            ));
        }
    }
    for n in &e.catalog_excludes {
        if shown(n) {
            failures.push(format!("expected `{n}` not in the catalog; it is there"));
        }
    }
}

/// `prompt_includes`, `prompt_excludes` and `removed`.
fn check_prompt(prompt: &skillc_runtime::Prompt, e: &Expect, failures: &mut Vec<String>) {
    let has = |n: &str| prompt.skills.iter().any(|s| s.name == n || s.resolved == n);
    let seen = || {
        listed(prompt.skills.iter().map(|s| {
            if s.name == s.resolved {
                s.name.clone()
            } else {
                format!("{} (as {})", s.name, s.resolved)
            }
        }))
    };
    for n in &e.prompt_includes {
        if !has(n) {
            failures.push(format!("expected `{n}` in the prompt; it has {}", seen()));
        }
    }
    for n in &e.prompt_excludes {
        if has(n) {
            failures.push(format!("expected `{n}` not in the prompt; it is there"));
        }
    }
    for (n, why) in &e.removed {
        match prompt.removed.iter().find(|x| &x.name == n) {
            Some(x) if x.reason.starts_with(why.as_str()) => {}
            Some(x) => failures.push(format!(
                "expected `{n}` removed as `{why}…`; it was removed as `{}`",
                x.reason
            )),
            None => failures.push(format!(
                "expected `{n}` removed as `{why}…`; it was not removed (removed: {})",
                listed(
                    prompt
                        .removed
                        .iter()
                        .map(|x| format!("{} ({})", x.name, x.reason))
                )
            )),
        }
    }
}

/// The outcomes as text: a line per case, each failure under its case, then the counts.
pub fn render_text(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let verdict = if o.passed() { "ok  " } else { "FAIL" };
        out.push_str(&format!(
            "{verdict} {}:{}: {}\n",
            o.case.file, o.case.line, o.case.name
        ));
        for f in &o.failures {
            out.push_str(&format!("       {f}\n"));
        }
    }
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    out.push_str(&format!(
        "{} cases: {} passed, {failed} failed\n",
        outcomes.len(),
        outcomes.len() - failed
    ));
    out
}

/// The outcomes as JSON: `{"passed", "failed", "cases": [{"file", "line", "name", "passed",
/// "failures"}]}`.
pub fn render_json(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    let cases: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| {
            serde_json::json!({
                "file": o.case.file,
                "line": o.case.line,
                "name": o.case.name,
                "passed": o.passed(),
                "failures": o.failures,
            })
        })
        .collect();
    let v = serde_json::json!({
        "passed": outcomes.len() - failed,
        "failed": failed,
        "cases": cases,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The outcomes as JUnit XML, which CI systems show per test: one suite, a test case per case
/// (its file as the class), a `<failure>` holding each expectation that did not hold.
pub fn render_junit(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites tests=\"{}\" failures=\"{failed}\">\n  <testsuite name=\"skillc\" tests=\"{}\" failures=\"{failed}\">\n",
        outcomes.len(),
        outcomes.len()
    ));
    for o in outcomes {
        let head = format!(
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\"",
            xml_escape(&o.case.file),
            xml_escape(&o.case.name),
            xml_escape(&o.case.file),
            o.case.line
        );
        if o.passed() {
            out.push_str(&format!("{head}/>\n"));
        } else {
            out.push_str(&format!(
                "{head}>\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                xml_escape(&o.failures[0]),
                xml_escape(&o.failures.join("\n"))
            ));
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
