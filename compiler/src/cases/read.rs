//! Reading a case file: YAML parsed with the position of every value, so a case that names a
//! skill, a client or a field wrongly is reported at its line and column.

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::parse::yaml;
use crate::Workspace;

use super::{Case, Expect, Request};

/// A YAML node with the position it is written at.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Scalar(String, Pos),
    List(Vec<Node>, Pos),
    Map(Vec<(String, Pos, Node)>, Pos),
    /// An alias, an anchor-less null or anything else a case file has no use for.
    Other(Pos),
}

impl Node {
    pub(super) fn pos(&self) -> Pos {
        match self {
            Node::Scalar(_, p) | Node::List(_, p) | Node::Map(_, p) | Node::Other(p) => *p,
        }
    }

    pub(super) fn kind(&self) -> &'static str {
        match self {
            Node::Scalar(..) => "a text",
            Node::List(..) => "a list",
            Node::Map(..) => "a mapping",
            Node::Other(..) => "an alias or nothing",
        }
    }
}

pub(super) fn pos_of(m: &saphyr_parser::Marker, len: usize) -> Pos {
    Pos {
        line: m.line().max(1),
        column: m.col() + 1,
        len,
    }
}

/// Reads a YAML document into positioned nodes (an event parser: no recursion).
pub(super) fn read_yaml(file: &str, text: &str) -> Result<Node, Diagnostic> {
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
pub(super) struct Reader<'a> {
    pub(super) file: &'a str,
    pub(super) ws: &'a Workspace,
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl Reader<'_> {
    pub(super) fn problem(&mut self, code: &'static str, pos: Pos, message: String) {
        self.diagnostics
            .push(Diagnostic::new(code, self.file, pos, message));
    }

    pub(super) fn text(&mut self, key: &str, node: &Node) -> Option<String> {
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
    pub(super) fn texts(&mut self, key: &str, node: &Node) -> Vec<(String, Pos)> {
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

    pub(super) fn unknown_key(&mut self, key: &str, pos: Pos, within: &str, known: &[&str]) {
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

    pub(super) fn unknown_name(&mut self, what: &str, name: &str, pos: Pos, known: Vec<&str>) {
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
    pub(super) fn skill(&mut self, name: &str, pos: Pos, sk_ids: bool) {
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

    pub(super) fn case(&mut self, node: &Node) -> Option<Case> {
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

    pub(super) fn request(&mut self, node: &Node) -> Request {
        const KEYS: &[&str] = &[
            "client", "locale", "tier", "consumer", "context", "select", "message", "history",
        ];
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
                "message" => r.message = self.text(key, value),
                "history" => r.history = self.history(value),
                _ => self.unknown_key(key, *key_pos, "`request`", KEYS),
            }
        }
        if !r.history.is_empty() && r.message.is_none() {
            let why = "`history` is what came before a `message`: give the message too";
            self.problem(codes::INVALID_VALUE, node.pos(), why.to_string());
        }
        self.bundle_exists(&r, &places);
        r
    }

    /// A request's `history`: a list of `{text, ago}` mappings (`ago`: seconds before the
    /// message), oldest first.
    fn history(&mut self, node: &Node) -> Vec<(String, u64)> {
        let Node::List(items, _) = node else {
            let why = format!(
                "`history` takes a list of {{text, ago}} messages, oldest first, not {}",
                node.kind()
            );
            self.problem(codes::INVALID_VALUE, node.pos(), why);
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let Node::Map(entries, at) = item else {
                let why = format!(
                    "a `history` message is a {{text, ago}} mapping, not {}",
                    item.kind()
                );
                self.problem(codes::INVALID_VALUE, item.pos(), why);
                continue;
            };
            let (mut text, mut ago) = (None, None);
            for (key, key_pos, value) in entries {
                match key.as_str() {
                    "text" => text = self.text(key, value),
                    "ago" => ago = self.whole_number(key, value, 0),
                    _ => self.unknown_key(key, *key_pos, "a `history` message", &["text", "ago"]),
                }
            }
            match (text, ago) {
                (Some(text), Some(ago)) => out.push((text, ago)),
                _ => {
                    let why = "a `history` message needs its `text` and `ago` (seconds before the message)";
                    self.problem(codes::INVALID_VALUE, *at, why.to_string());
                }
            }
        }
        out
    }

    /// The client, locale, tier and consumer name a bundle that is built.
    pub(super) fn bundle_exists(&mut self, r: &Request, places: &[(&str, String, Pos)]) {
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

    /// Skill names of an expectation, each checked to exist.
    fn skill_names(&mut self, key: &str, value: &Node) -> Vec<String> {
        self.texts(key, value)
            .into_iter()
            .map(|(name, pos)| {
                self.skill(&name, pos, false);
                name
            })
            .collect()
    }

    /// A whole number of at least `least`, or a problem at its place.
    fn whole_number(&mut self, key: &str, value: &Node, least: u64) -> Option<u64> {
        match self.text(key, value).map(|t| t.parse::<u64>()) {
            Some(Ok(n)) if n >= least => Some(n),
            Some(_) if least > 0 => {
                let why = format!("`{key}` takes a whole number of at least {least}");
                self.problem(codes::INVALID_VALUE, value.pos(), why);
                None
            }
            Some(_) => {
                let why = format!("`{key}` takes a whole number");
                self.problem(codes::INVALID_VALUE, value.pos(), why);
                None
            }
            None => None,
        }
    }

    pub(super) fn expect(&mut self, node: &Node) -> Expect {
        const KEYS: &[&str] = &[
            "catalog_includes",
            "catalog_excludes",
            "prompt_includes",
            "prompt_excludes",
            "removed",
            "text_contains",
            "max_tokens",
            "routes_to",
            "within",
            "routes_not_to",
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
                "routes_to" | "routes_not_to" => {
                    let names = self.skill_names(key, value);
                    if key == "routes_to" {
                        e.routes_to = Some(names);
                    } else {
                        e.routes_not_to = names;
                    }
                }
                "within" => e.within = self.whole_number(key, value, 1).map(|n| n as usize),
                "catalog_includes" | "catalog_excludes" | "prompt_includes" | "prompt_excludes" => {
                    let names = self.skill_names(key, value);
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
                "max_tokens" => e.max_tokens = self.whole_number(key, value, 0),
                _ => self.unknown_key(key, *key_pos, "`expect`", KEYS),
            }
        }
        e
    }
}

/// A file is a case file when it is a list holding at least one mapping with a `name`: other
/// YAML under `tests/` (a public collection's own test data) is left alone.
pub(super) fn names_a_case(item: &Node) -> bool {
    matches!(item, Node::Map(entries, _) if entries.iter().any(|(k, _, _)| k == "name"))
}
