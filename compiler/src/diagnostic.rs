//! Diagnostics: problems in the user's files, as plain data.
//!
//! Every check produces [`Diagnostic`] values; they are collected from all files, sorted, and
//! handed to an emitter ([`render_text`] for people, [`render_json`] for machines and the studio).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// How bad a problem is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The workspace cannot be built as it is.
    Error,
    /// The workspace builds, but something is likely wrong or not portable.
    Warning,
}

impl Severity {
    /// The lowercase word used in text and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A position in a file: 1-based line and column (columns count characters), and the length
/// in characters of the span to underline (0 when there is nothing to underline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Characters to underline from `column`.
    pub(crate) len: usize,
}

impl Pos {
    /// A position at the start of `line` with nothing underlined.
    pub(crate) fn line(line: usize) -> Pos {
        Pos {
            line: line.max(1),
            column: 1,
            len: 0,
        }
    }

    /// The start of a file.
    pub(crate) fn start() -> Pos {
        Pos::line(1)
    }
}

/// One problem found in a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error or warning (after the profile is applied).
    pub severity: Severity,
    /// Stable code, e.g. `E012`; see [`codes`].
    pub code: &'static str,
    /// Path of the file, relative to the workspace, with `/` separators.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// Characters underlined in the snippet.
    #[serde(skip)]
    pub(crate) span_len: usize,
    /// How to fix it, where a hint helps.
    #[serde(skip)]
    pub help: Option<String>,
    /// The text of the line, for the snippet.
    #[serde(skip)]
    pub(crate) source_line: Option<String>,
    /// How much harm a content-safety finding (an `S…` code) could do; `None` for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safety: Option<SafetyLevel>,
}

/// How much harm a content-safety finding could do, as code scanning ranks it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SafetyLevel {
    /// Worth a look: usually harmless.
    Low,
    /// Could hide or enable harm; read it before trusting the skill.
    Medium,
    /// Likely harmful or dangerously careless.
    High,
    /// An attack as written: code run from the network, a credential sent out.
    Critical,
}

impl SafetyLevel {
    /// The lowercase word used in output and in `workspace.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyLevel::Low => "low",
            SafetyLevel::Medium => "medium",
            SafetyLevel::High => "high",
            SafetyLevel::Critical => "critical",
        }
    }

    /// The level a word names.
    pub(crate) fn parse(word: &str) -> Option<SafetyLevel> {
        [
            SafetyLevel::Low,
            SafetyLevel::Medium,
            SafetyLevel::High,
            SafetyLevel::Critical,
        ]
        .into_iter()
        .find(|l| l.as_str() == word)
    }

    /// SARIF's `security-severity` (GitHub ranks 9.0+ critical, 7.0+ high, 4.0+ medium).
    pub(crate) fn security_severity(self) -> &'static str {
        match self {
            SafetyLevel::Low => "2.0",
            SafetyLevel::Medium => "5.0",
            SafetyLevel::High => "8.0",
            SafetyLevel::Critical => "9.5",
        }
    }
}

impl Diagnostic {
    /// A diagnostic of `code` at `pos` in `file`; its severity comes from the code.
    pub(crate) fn new(
        code: &'static str,
        file: &str,
        pos: Pos,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: codes::default_severity(code),
            code,
            file: file.to_string(),
            line: pos.line.max(1),
            column: pos.column.max(1),
            message: message.into(),
            span_len: pos.len,
            help: None,
            source_line: None,
            safety: None,
        }
    }

    /// Marks a content-safety finding with its level.
    pub(crate) fn with_safety(mut self, level: SafetyLevel) -> Self {
        self.safety = Some(level);
        self
    }

    /// Without its help and source line: what a build of many clients keeps of a warning its
    /// output does not show (`BuildOptions::warning_details`).
    pub fn without_details(mut self) -> Self {
        self.help = None;
        self.source_line = None;
        self
    }

    /// Adds a `help:` line.
    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Attaches the text of the diagnostic's line from `text` (the whole file).
    pub(crate) fn with_source(mut self, text: &str) -> Self {
        self.attach_source(text);
        self
    }

    /// [`Diagnostic::with_source`] in place.
    pub(crate) fn attach_source(&mut self, text: &str) {
        self.source_line = self
            .line
            .checked_sub(1)
            .and_then(|i| text.lines().nth(i))
            .map(|l| l.trim_end_matches('\r').to_string());
    }

    pub(crate) fn sort_key(&self) -> (&str, usize, usize, Severity, &str, &str) {
        (
            &self.file,
            self.line,
            self.column,
            self.severity,
            self.code,
            &self.message,
        )
    }
}

/// Sorts diagnostics by file, line, column, severity, code and message, and drops exact
/// duplicates, so output never depends on walk or thread order.
pub fn sort(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diagnostics.dedup();
}

/// Stable diagnostic codes. `E…` are always errors, `W…` always warnings, `P…` portability
/// issues: warnings by default, errors under `--strict-spec`; `S…` content-safety findings:
/// warnings unless `safety.deny` (or `check --deny`) names them.
pub mod codes {
    use super::Severity;

    /// A file could not be read.
    pub(crate) const UNREADABLE: &str = "E001";
    /// A text file is not valid UTF-8.
    pub const INVALID_UTF8: &str = "E002";
    /// A file is larger than the size limit.
    pub(crate) const TOO_LARGE: &str = "E003";
    /// A SKILL.md or CATEGORY.md has no frontmatter.
    pub const MISSING_FRONTMATTER: &str = "E004";
    /// The frontmatter's closing `---` line is missing.
    pub const UNCLOSED_FRONTMATTER: &str = "E005";
    /// YAML syntax error.
    pub(crate) const YAML_SYNTAX: &str = "E006";
    /// The YAML document is not a mapping.
    pub const NOT_A_MAPPING: &str = "E007";
    /// A mapping repeats a key.
    pub(crate) const DUPLICATE_KEY: &str = "E008";
    /// YAML aliases or nesting exceed the safety limits.
    pub const YAML_TOO_COMPLEX: &str = "E009";
    /// A field has the wrong type or an invalid value.
    pub(crate) const INVALID_VALUE: &str = "E010";
    /// A required field is missing.
    pub const MISSING_FIELD: &str = "E011";
    /// A reference names a skill that does not exist.
    pub const UNKNOWN_SKILL: &str = "E012";
    /// Two skills share a name in one scope.
    pub(crate) const DUPLICATE_SKILL: &str = "E013";
    /// A regular expression does not compile.
    pub(crate) const BAD_REGEX: &str = "E014";
    /// A citation token names a source the skill does not define.
    pub(crate) const UNDEFINED_SOURCE: &str = "E015";
    /// A symbolic link points outside the workspace.
    pub(crate) const SYMLINK_ESCAPE: &str = "E016";
    /// A symbolic link loops back on itself.
    pub(crate) const SYMLINK_LOOP: &str = "E017";
    /// A JSON file does not parse or has the wrong shape.
    pub(crate) const BAD_JSON: &str = "E018";
    /// A configuration file has a field it does not know.
    pub(crate) const UNKNOWN_CONFIG_FIELD: &str = "E019";
    /// A locale, tier, client or consumer that the workspace does not declare.
    pub(crate) const UNKNOWN_NAME: &str = "E020";
    /// A condition has an unknown key or a malformed value.
    pub(crate) const BAD_CONDITION: &str = "E021";
    /// A variant declaration is malformed.
    pub(crate) const BAD_VARIANT: &str = "E022";
    /// A source is defined twice or is malformed.
    pub(crate) const BAD_SOURCE: &str = "E023";

    /// A template in `templates/` does not parse or overrides nothing.
    pub(crate) const BAD_TEMPLATE: &str = "E024";
    /// A rendering or writing step of a build failed on the workspace's content.
    pub(crate) const BUILD_FAILED: &str = "E025";
    /// A `tests/*.yaml` case file is not a list of cases, or a case has an unknown key.
    pub(crate) const BAD_TEST_CASE: &str = "E026";
    /// A test case names a client, locale, tier, consumer or skill that does not exist.
    pub(crate) const UNKNOWN_IN_TEST: &str = "E027";
    pub(crate) const EXTERNAL_NOT_USABLE: &str = "E028";
    /// A skill's eval set (`evals/evals.json`, a trigger set in `evals/`) is not JSON or has
    /// the wrong shape.
    pub(crate) const BAD_EVAL_SET: &str = "E029";

    /// A byte-order mark was stripped.
    pub(crate) const BOM: &str = "W101";
    /// CRLF line endings were normalised.
    pub const CRLF: &str = "W102";
    /// A frontmatter field that no part of the format knows (probably a typo).
    pub(crate) const UNKNOWN_FIELD: &str = "W103";
    /// Skills import each other in a cycle (handled: each is included once).
    pub(crate) const IMPORT_CYCLE: &str = "W104";
    /// Pipeline transitions form a cycle (handled by the depth limit).
    pub(crate) const PIPELINE_CYCLE: &str = "W105";
    /// A BAD instruction example has no "Why bad" line.
    pub(crate) const BAD_EXAMPLE_WITHOUT_WHY: &str = "W106";
    /// More trigger examples than catalogs show.
    pub(crate) const TOO_MANY_TRIGGERS: &str = "W107";
    /// `allowed-tools` given as a YAML list rather than a space-separated string.
    pub(crate) const ALLOWED_TOOLS_LIST: &str = "W108";
    /// A client configuration names a skill that does not exist.
    pub const UNKNOWN_TOGGLE: &str = "W109";
    /// A required variable has no value: the skill will be unavailable.
    pub const UNRESOLVED_VARIABLE: &str = "W110";
    /// A localized file carries something it cannot override, or an undeclared locale.
    pub(crate) const LOCALIZED_FILE: &str = "W111";
    /// A body over 500 lines or about 5,000 tokens.
    pub(crate) const LONG_BODY: &str = "W112";
    /// Both SKILL.md and skill.md exist in one folder.
    pub(crate) const TWO_SKILL_FILES: &str = "W113";
    /// A catalog was over its tier's token budget and was cut.
    pub(crate) const OVER_BUDGET: &str = "W114";
    /// Hidden folders hold skills and were skipped.
    pub(crate) const HIDDEN_SKIPPED: &str = "W115";
    /// A field named like one of ours has another shape (another tool's field): ignored.
    pub(crate) const FOREIGN_FIELD: &str = "W116";
    /// The workspace holds no skill at all.
    pub(crate) const NO_SKILLS: &str = "W117";
    /// Two skills of one catalog have catalog texts so alike that a selector may not tell them
    /// apart.
    pub(crate) const OVERLAP: &str = "W118";
    /// A skill's own trigger example routes first to another skill of its catalog (scored
    /// leave-one-out, as `skillc eval` does).
    pub const EXAMPLE_ROUTES_ELSEWHERE: &str = "W119";
    /// A variable some skill declares secret is used, or declared, by a skill that does not
    /// declare it secret (it stays a placeholder there too).
    pub(crate) const SECRET_ELSEWHERE: &str = "W120";
    /// A translation (`SKILL.<locale>.md`) made from an older default text: its
    /// `translated_from` names another digest than the default's now.
    pub const STALE_TRANSLATION: &str = "W121";
    /// In a collection (no workspace.yaml), several folders declare the same name: they are
    /// as many skills, each named after its folder.
    pub(crate) const SAME_NAME_FOLDERS: &str = "W122";
    pub(crate) const PLUGIN_MANIFEST: &str = "W123";
    pub(crate) const OVER_TARGET_BUDGET: &str = "W124";
    pub(crate) const LOCK_OUT_OF_DATE: &str = "W125";
    /// An array `argument-hint` with Copilot declared (`targets:`): Copilot CLI refuses to load
    /// the skill.
    pub(crate) const ARRAY_ARGUMENT_HINT: &str = "W126";
    /// A frontmatter key outside the six of the specification with `claude-api` declared:
    /// claude.ai and the Skills API refuse the upload.
    pub(crate) const KEY_OUTSIDE_SIX: &str = "W127";
    /// Two skill names that Claude Code folds to one (case, spaces, invisible characters,
    /// fullwidth and dash variants), with Claude Code declared.
    pub(crate) const NAMES_FOLD_TOGETHER: &str = "W128";
    /// A skill name Claude Code keeps for itself (`synced`, `anthropic-skills`).
    pub(crate) const RESERVED_NAME: &str = "W129";
    /// A description past a declared client's limit, which then does not load the skill.
    pub(crate) const OVER_CLIENT_LIMIT: &str = "W130";
    /// A translation (`SKILL.<locale>.md`) that is still the default text word for word:
    /// visitors of that locale read the default's language.
    pub(crate) const UNTRANSLATED_COPY: &str = "W131";
    /// Five or more skills whose descriptions are one sentence around each one's name: they
    /// say which skill each is, not what it does.
    pub(crate) const TEMPLATE_DESCRIPTION: &str = "W132";

    /// A name outside the portable rules (length, case, characters, hyphens).
    pub(crate) const NAME_NOT_PORTABLE: &str = "P201";
    /// A name that differs from its folder name.
    pub(crate) const NAME_FOLDER_MISMATCH: &str = "P202";
    /// A description longer than 1,024 characters (or empty).
    pub(crate) const DESCRIPTION_LENGTH: &str = "P203";
    /// A compatibility string longer than 500 characters (or empty).
    pub(crate) const COMPATIBILITY_LENGTH: &str = "P204";
    /// A metadata value that is not a string.
    pub(crate) const METADATA_NOT_STRING: &str = "P205";
    /// A field outside the portable core (reported only under `--strict-spec`).
    pub(crate) const NOT_IN_SPEC: &str = "P206";
    /// No `name` in the frontmatter (reported only under `--strict-spec`).
    pub(crate) const NAME_MISSING: &str = "P207";

    /// Invisible or direction-changing characters (bidi controls, zero-width, tag characters,
    /// other controls): text a person does not see and a model reads.
    pub(crate) const HIDDEN_CHARACTERS: &str = "S101";
    /// Markup or angle brackets in a description (catalogs embed it in XML and prompts).
    pub(crate) const DESCRIPTION_MARKUP: &str = "S102";
    /// Wording that tells the agent to set aside earlier instructions (or a scanner to pass it).
    pub(crate) const OVERRIDE_INSTRUCTIONS: &str = "S201";
    /// Wording that tells the agent to hide what it does from its user.
    pub(crate) const HIDE_FROM_USER: &str = "S202";
    /// Reading credentials: SSH and cloud keys, keychains, browser stores.
    pub(crate) const READ_CREDENTIALS: &str = "S203";
    /// Sending files or the environment out to a URL.
    pub(crate) const SEND_DATA_OUT: &str = "S204";
    /// Code fetched and run in one step, or a remote shell.
    pub(crate) const FETCH_AND_RUN: &str = "S301";
    /// A long encoded blob (base64, hex) in text or scripts.
    pub(crate) const ENCODED_BLOB: &str = "S302";
    /// A URL to a bare IP address, a paste site or a webhook collector.
    pub(crate) const SUSPICIOUS_URL: &str = "S303";
    /// A secret written in a file: a private key, a token with a known prefix.
    pub(crate) const SECRET_IN_FILE: &str = "S401";
    /// A file that cannot be read as text and could carry code.
    pub(crate) const OPAQUE_FILE: &str = "S501";
    /// A description stuffed with keywords (to win routing).
    pub(crate) const KEYWORD_STUFFING: &str = "S601";
    /// `allowed-tools` granting an unrestricted shell.
    pub(crate) const UNRESTRICTED_TOOLS: &str = "S701";

    /// Every code, for documentation and for tests that each one is exercised.
    pub const ALL: &[&str] = &[
        UNREADABLE,
        INVALID_UTF8,
        TOO_LARGE,
        MISSING_FRONTMATTER,
        UNCLOSED_FRONTMATTER,
        YAML_SYNTAX,
        NOT_A_MAPPING,
        DUPLICATE_KEY,
        YAML_TOO_COMPLEX,
        INVALID_VALUE,
        MISSING_FIELD,
        UNKNOWN_SKILL,
        DUPLICATE_SKILL,
        BAD_REGEX,
        UNDEFINED_SOURCE,
        SYMLINK_ESCAPE,
        SYMLINK_LOOP,
        BAD_JSON,
        UNKNOWN_CONFIG_FIELD,
        UNKNOWN_NAME,
        BAD_CONDITION,
        BAD_VARIANT,
        BAD_SOURCE,
        BAD_TEMPLATE,
        BUILD_FAILED,
        BAD_TEST_CASE,
        UNKNOWN_IN_TEST,
        EXTERNAL_NOT_USABLE,
        BAD_EVAL_SET,
        BOM,
        CRLF,
        UNKNOWN_FIELD,
        IMPORT_CYCLE,
        PIPELINE_CYCLE,
        BAD_EXAMPLE_WITHOUT_WHY,
        TOO_MANY_TRIGGERS,
        ALLOWED_TOOLS_LIST,
        UNKNOWN_TOGGLE,
        UNRESOLVED_VARIABLE,
        LOCALIZED_FILE,
        LONG_BODY,
        TWO_SKILL_FILES,
        OVER_BUDGET,
        HIDDEN_SKIPPED,
        FOREIGN_FIELD,
        SECRET_ELSEWHERE,
        NO_SKILLS,
        OVERLAP,
        EXAMPLE_ROUTES_ELSEWHERE,
        STALE_TRANSLATION,
        SAME_NAME_FOLDERS,
        PLUGIN_MANIFEST,
        OVER_TARGET_BUDGET,
        LOCK_OUT_OF_DATE,
        ARRAY_ARGUMENT_HINT,
        KEY_OUTSIDE_SIX,
        NAMES_FOLD_TOGETHER,
        RESERVED_NAME,
        OVER_CLIENT_LIMIT,
        UNTRANSLATED_COPY,
        TEMPLATE_DESCRIPTION,
        NAME_NOT_PORTABLE,
        NAME_FOLDER_MISMATCH,
        DESCRIPTION_LENGTH,
        COMPATIBILITY_LENGTH,
        METADATA_NOT_STRING,
        NOT_IN_SPEC,
        NAME_MISSING,
        HIDDEN_CHARACTERS,
        DESCRIPTION_MARKUP,
        OVERRIDE_INSTRUCTIONS,
        HIDE_FROM_USER,
        READ_CREDENTIALS,
        SEND_DATA_OUT,
        FETCH_AND_RUN,
        ENCODED_BLOB,
        SUSPICIOUS_URL,
        SECRET_IN_FILE,
        OPAQUE_FILE,
        KEYWORD_STUFFING,
        UNRESTRICTED_TOOLS,
    ];

    /// The severity a code has in the default profile.
    pub(crate) fn default_severity(code: &str) -> Severity {
        if code.starts_with('E') {
            Severity::Error
        } else {
            Severity::Warning
        }
    }

    /// Whether `--strict-spec` turns this code into an error.
    pub(crate) fn is_portability(code: &str) -> bool {
        code.starts_with('P')
    }
}

/// Longest source line shown in a snippet; longer ones are cut around the column.
const SNIPPET_CHARS: usize = 120;

/// The part of a source line a snippet shows, and the column within it: a 120 KB line of
/// brackets would otherwise be printed whole.
fn snippet_window(src: &str, column: usize) -> (String, usize) {
    let len = src.chars().count();
    if len <= SNIPPET_CHARS {
        return (src.to_string(), column);
    }
    let start = column
        .saturating_sub(SNIPPET_CHARS / 2)
        .min(len - SNIPPET_CHARS);
    let mut shown: String = src.chars().skip(start).take(SNIPPET_CHARS).collect();
    let mut column = column - start;
    if start > 0 {
        shown.insert_str(0, "...");
        column += 3;
    }
    if start + SNIPPET_CHARS < len {
        shown.push_str("...");
    }
    (shown, column.max(1))
}

/// A diagnostic with every field, to keep it aside and take it back (the JSON output leaves the
/// snippet and the help out): the check's cache and a batched build's staged warnings.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WholeDiagnostic {
    severity: Severity,
    code: String,
    file: String,
    line: usize,
    column: usize,
    message: String,
    span_len: usize,
    help: Option<String>,
    source_line: Option<String>,
    #[serde(default)]
    safety: Option<SafetyLevel>,
}

impl WholeDiagnostic {
    /// Every field of `d`.
    pub(crate) fn of(d: &Diagnostic) -> Self {
        WholeDiagnostic {
            severity: d.severity,
            code: d.code.to_string(),
            file: d.file.clone(),
            line: d.line,
            column: d.column,
            message: d.message.clone(),
            span_len: d.span_len,
            help: d.help.clone(),
            source_line: d.source_line.clone(),
            safety: d.safety,
        }
    }

    /// The diagnostic, if its code is one this skillc knows.
    pub(crate) fn restore(self) -> Option<Diagnostic> {
        let code = codes::ALL.iter().find(|c| **c == self.code)?;
        Some(Diagnostic {
            severity: self.severity,
            code,
            file: self.file,
            line: self.line,
            column: self.column,
            message: self.message,
            span_len: self.span_len,
            help: self.help,
            source_line: self.source_line,
            safety: self.safety,
        })
    }
}

/// Renders diagnostics in the rustc style, with `display_root` joined to each file path.
pub fn render_text(diagnostics: &[Diagnostic], display_root: &str) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let path = if display_root.is_empty() || display_root == "." {
            d.file.clone()
        } else {
            format!("{}/{}", display_root.trim_end_matches('/'), d.file)
        };
        let _ = writeln!(out, "{}[{}]: {}", d.severity.as_str(), d.code, d.message);
        let gutter = d.line.to_string().len();
        let pad = " ".repeat(gutter);
        let _ = writeln!(out, "{pad}--> {path}:{}:{}", d.line, d.column);
        if let Some(src) = &d.source_line {
            let (shown, column) = snippet_window(src, d.column);
            // A file's raw ESC or BEL would drive the terminal or CI log showing the snippet:
            // one U+FFFD each, so the underline stays under its column.
            let shown: String = shown
                .chars()
                .map(|c| match c.is_control() && c != '\t' {
                    true => '\u{fffd}',
                    false => c,
                })
                .collect();
            let _ = writeln!(out, "{pad} |");
            let _ = writeln!(out, "{} | {}", d.line, shown);
            if d.span_len > 0 {
                let indent: String = shown
                    .chars()
                    .take(column - 1)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let width = d.span_len.min(SNIPPET_CHARS);
                let _ = writeln!(out, "{pad} | {indent}{}", "^".repeat(width));
            }
        }
        if let Some(help) = &d.help {
            let _ = writeln!(out, "{pad} = help: {help}");
        }
        out.push('\n');
    }
    out
}

/// The JSON form of a check: `{"errors", "warnings", "diagnostics": [...]}`.
pub fn render_json(diagnostics: &[Diagnostic]) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        errors: usize,
        warnings: usize,
        diagnostics: &'a [Diagnostic],
    }
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let report = Report {
        errors,
        warnings: diagnostics.len() - errors,
        diagnostics,
    };
    serde_json::to_string_pretty(&report).expect("diagnostics serialise")
}

/// The path a CI system knows a diagnostic's file by: the workspace folder as given on the
/// command line, then the file (`./` and empty parts dropped).
fn ci_path(root: &str, file: &str) -> String {
    let joined = std::path::Path::new(root).join(file);
    let parts: Vec<String> = joined
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.join("/") {
        p if p.is_empty() => ".".to_string(),
        p => p.replace("//", "/"),
    }
}

/// GitHub Actions workflow commands (`--format github`): one `::error …::` or `::warning …::`
/// line per diagnostic, which GitHub shows as an annotation on the file's line. `root` is the
/// workspace as given on the command line, so paths are relative to where the job runs.
pub fn render_github(diagnostics: &[Diagnostic], root: &str) -> String {
    // The escapes GitHub's runner undoes: in the message `%`, CR and LF; in properties also
    // `:` and `,`.
    let data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    let mut out = String::new();
    for d in diagnostics {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let _ = writeln!(
            out,
            "::{level} file={},line={},col={},title={}::{}",
            property(&ci_path(root, &d.file)),
            d.line.max(1),
            d.column.max(1),
            property(&format!("skillc {}", d.code)),
            data(&message)
        );
    }
    out
}

/// SARIF 2.1.0 (`--format sarif`), the format code-scanning tools read: one run of `skillc`
/// with a rule per code met and a result per diagnostic.
pub fn render_sarif(diagnostics: &[Diagnostic], root: &str) -> String {
    // A rule per code met; a safety rule is ranked by the worst of its findings.
    let mut codes: std::collections::BTreeMap<&str, Option<SafetyLevel>> = Default::default();
    for d in diagnostics {
        let worst = codes.entry(d.code).or_default();
        *worst = (*worst).max(d.safety);
    }
    let rules: Vec<serde_json::Value> = codes
        .iter()
        .map(|(c, level)| match level {
            Some(level) => serde_json::json!({
                "id": c,
                "properties": {
                    "security-severity": level.security_severity(),
                    "tags": ["security"],
                },
            }),
            None => serde_json::json!({ "id": c }),
        })
        .collect();
    let results: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let mut text = d.message.clone();
            if let Some(help) = &d.help {
                text.push_str(&format!(" (help: {help})"));
            }
            serde_json::json!({
                "ruleId": d.code,
                "level": match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": ci_path(root, &d.file) },
                        "region": {
                            "startLine": d.line.max(1),
                            "startColumn": d.column.max(1),
                        },
                    },
                }],
            })
        })
        .collect();
    let log = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "skillc",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                },
            },
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("SARIF serialises")
}
