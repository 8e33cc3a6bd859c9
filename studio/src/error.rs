//! The errors the UI shows, with the diagnostics behind them.

use serde::Serialize;

/// An error the UI shows: a kind, a message, and the diagnostics behind it, if any.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct StudioError {
    /// `io`, `request`, `invalid`, `outside`.
    pub kind: &'static str,
    /// What went wrong.
    pub message: String,
    /// Diagnostics, with file, line and column, for the UI to link to.
    pub diagnostics: Vec<Diag>,
}

impl StudioError {
    pub(crate) fn new(kind: &'static str, message: impl Into<String>) -> Self {
        StudioError {
            kind,
            message: message.into(),
            diagnostics: Vec::new(),
        }
    }

    /// A request the studio cannot answer (no workspace open, an unknown bundle).
    pub(crate) fn request(message: impl Into<String>) -> Self {
        StudioError::new("request", message)
    }

    /// Input that would leave errors, with the diagnostics that say where.
    pub(crate) fn invalid(message: impl Into<String>, diagnostics: &[skillc::Diagnostic]) -> Self {
        StudioError {
            diagnostics: diagnostics.iter().map(Diag::from).collect(),
            ..StudioError::new("invalid", message)
        }
    }
}

impl std::fmt::Display for StudioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// A diagnostic as the UI shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Diag {
    /// `error` or `warning`.
    #[ts(type = r#""error" | "warning""#)]
    pub severity: &'static str,
    /// Stable code.
    pub code: &'static str,
    /// File relative to the workspace.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// Help, if any.
    pub help: Option<String>,
    /// A content-safety finding's level (`low` … `critical`); none for other codes.
    #[ts(type = r#""low" | "medium" | "high" | "critical" | null"#)]
    pub safety: Option<&'static str>,
}

impl From<&skillc::Diagnostic> for Diag {
    fn from(d: &skillc::Diagnostic) -> Self {
        Diag {
            severity: d.severity.as_str(),
            code: d.code,
            file: d.file.clone(),
            line: d.line,
            column: d.column,
            message: d.message.clone(),
            help: d.help.clone(),
            safety: d.safety.map(|l| l.as_str()),
        }
    }
}

/// A refused edit keeps its diagnostics for the UI.
pub(crate) fn edit_err(e: skillc::edit::Error) -> StudioError {
    match e {
        skillc::edit::Error::Refused(diags) => {
            StudioError::invalid("the edit would leave errors; nothing was written", &diags)
        }
        skillc::edit::Error::Invalid(why) => StudioError::new("invalid", why),
        e @ skillc::edit::Error::Io { .. } => io_err(e),
    }
}

pub(crate) fn io_err(e: impl std::fmt::Display) -> StudioError {
    StudioError::new("io", e.to_string())
}
