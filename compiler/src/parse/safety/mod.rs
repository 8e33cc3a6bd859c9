//! Content safety (SPEC 14.3): what a hostile or careless skill hides, found before it reaches
//! an agent. Every text file of every skill is read whole, line by line (a payload past 100,000
//! blank lines is found like one on line 1); files that are not text are named by what they
//! are; each finding is an `S…` diagnostic with a [`SafetyLevel`].
//!
//! The rules are plain data compiled once per scan ([`Rules`]); the scan is a function of the
//! workspace's files and keeps nothing between calls.

mod blobs;
mod chars;
mod fields;
mod opaque;
mod patterns;

use std::io::BufRead as _;

use crate::diagnostic::{codes, Diagnostic, Pos, SafetyLevel, Severity};
use crate::model::{AssetData, Skill, Workspace};
use crate::parse::load::Texts;

pub(crate) use patterns::Rules;

/// One thing found at a place in a file.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub code: &'static str,
    pub level: SafetyLevel,
    pub pos: Pos,
    pub message: String,
    pub help: &'static str,
}

/// Findings of one code shown per file; past it, one more finding says how many were left.
const SHOWN_PER_CODE: usize = 8;

/// The rules, compiled once: constant tables, not memory of any run.
static RULES: std::sync::LazyLock<Rules> = std::sync::LazyLock::new(Rules::new);

/// Every content-safety finding of one skill folder: its text files among `texts` (loading a
/// skill puts them there), the files carried with it, and its fields. Run when the folder is
/// parsed, so a session's load cache keeps the findings of an unchanged folder.
pub(crate) fn scan_skill(skill: &Skill, texts: &Texts) -> Vec<Diagnostic> {
    let rules = &*RULES;
    let mut out = Vec::new();
    let prefix = format!("{}/", skill.dir);
    let mine = |path: &str| skill.dir.is_empty() || path.starts_with(&prefix);
    for (path, text) in texts.iter().filter(|(p, _)| mine(p)) {
        push_capped(&mut out, path, scan_lines(rules, path, text.lines()));
    }
    for asset in &skill.assets {
        let path = match skill.dir.as_str() {
            "" => asset.path.clone(),
            dir => format!("{dir}/{}", asset.path),
        };
        push_capped(&mut out, &path, scan_asset(rules, &asset.path, &asset.data));
    }
    push_capped(&mut out, &skill.file, fields::scan(skill, texts, rules));
    out
}

/// Dotfiles that configure tools and hold no code an agent runs.
const TOOL_DOTFILES: &[&str] = &[
    ".gitignore",
    ".gitattributes",
    ".gitkeep",
    ".keep",
    ".editorconfig",
    ".npmignore",
    ".nvmrc",
    ".node-version",
    ".python-version",
    ".prettierrc",
    ".prettierignore",
    ".eslintrc",
    ".eslintrc.json",
    ".eslintignore",
    ".markdownlint.json",
    ".dockerignore",
];

/// Findings for what the walk skipped inside skill folders (`skipped`: workspace-relative,
/// folders ending in `/`): never read nor built into the artifact, but a client given the
/// folder can run them, and skipping `__pycache__` is a known scanner evasion.
pub(crate) fn skipped(ws: &Workspace, skipped: &[String]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for path in skipped {
        let Some(skill) = ws
            .skills
            .iter()
            .find(|s| path.starts_with(&format!("{}/", s.dir)))
        else {
            continue;
        };
        let inner = &path[skill.dir.len() + 1..];
        let name = inner
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(inner);
        let folder = path.ends_with('/');
        let (level, what) = if name == "__pycache__" {
            (SafetyLevel::Medium, "holds compiled Python (`__pycache__`), which Python runs in place of the source beside it".to_string())
        } else if name.ends_with(".pyc") || name.ends_with(".pyo") {
            let source = inner.trim_end_matches(['c', 'o']);
            match skill.assets.iter().any(|a| a.path == source) {
                true => (
                    SafetyLevel::Medium,
                    format!("is compiled Python, which Python may run in place of `{source}`"),
                ),
                false => (
                    SafetyLevel::High,
                    "is compiled Python without its source".to_string(),
                ),
            }
        } else if name == "node_modules" {
            (
                SafetyLevel::Low,
                "holds dependencies (`node_modules`)".to_string(),
            )
        } else if TOOL_DOTFILES.contains(&name) {
            continue;
        } else if folder {
            (SafetyLevel::Low, "is a hidden folder".to_string())
        } else {
            (SafetyLevel::Medium, "is a hidden file".to_string())
        };
        let f = Finding {
            code: codes::OPAQUE_FILE,
            level,
            pos: Pos::start(),
            message: format!("this {} {what}: skillc skips it (never read, never in the artifact), but a client given the folder can run it", if folder { "folder" } else { "file" }),
            help: "remove it from the skill folder, or ship what it does as a readable file",
        };
        out.push(diagnostic(path.trim_end_matches('/'), &f));
    }
    out
}

/// The findings of a text file outside skill folders that agents read (`CATEGORY.md`).
pub(crate) fn scan_text_file(path: &str, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    push_capped(&mut out, path, scan_lines(&RULES, path, text.lines()));
    out
}

/// The findings of a text, given as lines.
pub(crate) fn scan_lines<'a>(
    rules: &Rules,
    path: &str,
    lines: impl Iterator<Item = &'a str>,
) -> Vec<Finding> {
    let mut scan = TextScan::new(rules, path);
    for line in lines {
        scan.line(line);
    }
    scan.finish()
}

/// A scan of one text file fed line by line (a large file is never held whole).
struct TextScan<'r> {
    rules: &'r Rules,
    kind: patterns::FileKind,
    wrapped: blobs::Wrapped,
    number: usize,
    before: String,
    /// A private key's header just found: the next line says whether a key follows it.
    key_header: Option<usize>,
    found: Vec<Finding>,
}

impl<'r> TextScan<'r> {
    fn new(rules: &'r Rules, path: &str) -> Self {
        TextScan {
            rules,
            kind: patterns::FileKind::of(path),
            wrapped: blobs::Wrapped::default(),
            number: 0,
            before: String::new(),
            key_header: None,
            found: Vec::new(),
        }
    }

    fn line(&mut self, line: &str) {
        self.number += 1;
        // A key's header over `...` or prose is a documentation example.
        if let Some(i) = self.key_header.take() {
            let t = line.trim();
            let body = t.len() >= 16
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
            if !body && !t.starts_with("Proc-Type") {
                self.found[i].level = SafetyLevel::Low;
            }
        }
        let first_new = self.found.len();
        let (n, found) = (self.number, &mut self.found);
        chars::scan(line, n, found);
        let at = patterns::Line {
            text: line,
            before: &self.before,
            kind: self.kind,
        };
        self.rules.scan_line(&at, n, found);
        blobs::scan_line(self.rules, line, n, found);
        self.wrapped.push(self.rules, line, n, found);
        self.key_header = (first_new..self.found.len()).find(|&i| {
            let f = &self.found[i];
            f.code == codes::SECRET_IN_FILE
                && f.level > SafetyLevel::Low
                && f.message.starts_with("a private key")
        });
        self.before.clear();
        self.before.push_str(line);
    }

    fn finish(mut self) -> Vec<Finding> {
        self.wrapped.finish(self.rules, &mut self.found);
        self.found
    }
}

/// The findings of a file carried with a skill: as text when it is text, else by what it is.
fn scan_asset(rules: &Rules, rel: &str, data: &AssetData) -> Vec<Finding> {
    match data {
        AssetData::Bytes(bytes) => match text_of(bytes) {
            Some(text) => scan_lines(rules, rel, text.lines()),
            None => opaque::scan(rules, rel, bytes),
        },
        AssetData::File(large) => scan_large(rules, rel, &large.path),
    }
}

/// A file's bytes as text: UTF-8 without NUL bytes (a binary file is rarely valid UTF-8,
/// and one with NULs is not text a person reads).
fn text_of(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    (!text.contains('\0')).then_some(text)
}

/// A large file, read again in pieces: its lines when it is text, its head when it is not.
fn scan_large(rules: &Rules, rel: &str, path: &std::path::Path) -> Vec<Finding> {
    let unreadable = |e: std::io::Error| {
        vec![Finding {
            code: codes::OPAQUE_FILE,
            level: SafetyLevel::Medium,
            pos: Pos::start(),
            message: format!("could not be read again to be scanned: {e}"),
            help: "a file that is not scanned is not known to be safe",
        }]
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return unreadable(e),
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let head = match reader.fill_buf() {
        Ok(head) => head.to_vec(),
        Err(e) => return unreadable(e),
    };
    if opaque::looks_binary(&head) {
        return opaque::scan(rules, rel, &head);
    }
    // Lines decoded lossily: a stray invalid byte must not end the scan of what follows.
    let mut scan = TextScan::new(rules, rel);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => scan.line(String::from_utf8_lossy(&buf).trim_end_matches(['\n', '\r'])),
            Err(e) => return unreadable(e),
        }
    }
    scan.finish()
}

/// Turns findings into diagnostics, at most [`SHOWN_PER_CODE`] of each code per file.
fn push_capped(out: &mut Vec<Diagnostic>, file: &str, found: Vec<Finding>) {
    let mut shown: std::collections::BTreeMap<&'static str, (usize, Option<Finding>)> =
        Default::default();
    for f in found {
        let (count, _) = shown.entry(f.code).or_insert((0, None));
        *count += 1;
        if *count <= SHOWN_PER_CODE {
            out.push(diagnostic(file, &f));
        } else {
            let (_, worst) = shown.get_mut(f.code).expect("entry made above");
            if worst.as_ref().is_none_or(|w| w.level < f.level) {
                *worst = Some(f);
            }
        }
    }
    for (count, worst) in shown.into_values() {
        if let Some(mut f) = worst {
            f.message = format!(
                "{} more like this in this file, the worst: {}",
                count - SHOWN_PER_CODE,
                f.message
            );
            out.push(diagnostic(file, &f));
        }
    }
}

fn diagnostic(file: &str, f: &Finding) -> Diagnostic {
    Diagnostic::new(
        f.code,
        file,
        f.pos,
        format!("{} ({})", f.message, f.level.as_str()),
    )
    .with_help(f.help)
    .with_safety(f.level)
}

/// The skills (by SKILL.md path) whose worst finding among `diagnostics` is at `at` or
/// above, with that finding in words.
pub(crate) fn withheld(
    ws: &Workspace,
    diagnostics: &[Diagnostic],
    at: SafetyLevel,
) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    // Few findings reach `at`, against thousands of warnings: those first, then their skills.
    let flagged: Vec<&Diagnostic> = (diagnostics.iter())
        .filter(|d| d.safety.is_some_and(|l| l >= at))
        .collect();
    if flagged.is_empty() {
        return out;
    }
    for skill in &ws.skills {
        let dir = format!("{}/", skill.dir);
        let worst = (flagged.iter())
            .filter(|d| d.file.starts_with(&dir) || d.file == skill.file)
            .max_by_key(|d| d.safety);
        if let Some(d) = worst {
            let reason = format!(
                "withheld: an untrusted skill with a content-safety finding, {} at {}:{}: {}",
                d.code, d.file, d.line, d.message
            );
            out.insert(skill.file.clone(), reason);
        }
    }
    out
}

/// Whether `deny` (codes `S301`, families `S3xx`, levels `high`: that level and above; from
/// `workspace.yaml` `safety.deny` and `check --deny`) makes a finding of `code` at `level` an
/// error.
pub(crate) fn denies(deny: &[String], code: &str, level: SafetyLevel) -> bool {
    deny.iter().any(|e| {
        let e = e.trim();
        match SafetyLevel::parse(&e.to_ascii_lowercase()) {
            Some(at) => level >= at,
            None if is_family(e) => code.starts_with(&e[..2].to_ascii_uppercase()),
            None => e.eq_ignore_ascii_case(code),
        }
    })
}

fn is_family(e: &str) -> bool {
    e.len() == 4
        && e.starts_with(['S', 's'])
        && e[1..2].chars().all(|c| c.is_ascii_digit())
        && e[2..].eq_ignore_ascii_case("xx")
}

/// Whether an entry of `deny` is a code, a family or a level.
pub fn is_deny_entry(entry: &str) -> bool {
    let e = entry.trim();
    is_family(e)
        || SafetyLevel::parse(&e.to_ascii_lowercase()).is_some()
        || codes::ALL
            .iter()
            .any(|c| c.starts_with('S') && c.eq_ignore_ascii_case(e))
}

/// Makes the findings `deny` names errors.
pub fn apply_deny(diagnostics: &mut [Diagnostic], deny: &[String]) {
    for d in diagnostics {
        if let Some(level) = d.safety {
            if denies(deny, d.code, level) {
                d.severity = Severity::Error;
            }
        }
    }
}
