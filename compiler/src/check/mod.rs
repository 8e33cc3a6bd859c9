//! Checking a workspace: the per-file diagnostics of [`crate::parse`], the checks
//! across files of [`validate`], the profile (`--strict-spec`) and the templates' limits.

mod catalogs;
pub(crate) mod clients;
pub(crate) mod history;
mod memory;
pub(crate) mod overlap;
mod route_meaning;
pub(crate) mod routing;
pub(crate) mod targets;
mod template_descriptions;
pub(crate) mod template_guard;
pub(crate) mod validate;

use crate::diagnostic::{self, codes, Severity};
use crate::parse::{load, safety};
use crate::{Diagnostic, Workspace};

pub(crate) use memory::{Memory, Recall};

/// How to check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Apply exactly the agentskills.io rules: portability issues become errors.
    pub strict_spec: bool,
    /// The caller reads the errors alone (`eval`, `test`): the passes over whole catalogs that
    /// can only warn (W118 overlaps, W119 examples routed elsewhere; a third of `eval`'s time
    /// on the reference workload) are left out.
    pub only_errors: bool,
}

/// The result of checking a workspace.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// The loaded model (skills that failed to parse are absent).
    pub workspace: Workspace,
    /// Every diagnostic, sorted, with the profile applied.
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckReport {
    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Number of warnings.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }

    /// Whether the workspace has no errors.
    pub fn is_ok(&self) -> bool {
        self.error_count() == 0
    }
}

/// Applies the profile, attaches source lines and sorts.
/// In a session (watch, the studio), which checks the same workspace again soon, the
/// cross-file checks and the passes over catalogs take their last result from its memory.
pub(crate) fn finish(
    mut loaded: load::Loaded,
    options: &CheckOptions,
    recall: Recall<'_>,
) -> CheckReport {
    let mut diagnostics = diagnose(&mut loaded, options, recall);
    ready_to_show(&mut diagnostics, &loaded.texts);
    CheckReport {
        workspace: loaded.workspace,
        diagnostics,
    }
}

/// The diagnostics of loading and validating `loaded` (taken from it), with the profile
/// applied: whether there are errors is known, and [`ready_to_show`] attaches their source lines and sorts them.
pub(crate) fn diagnose(
    loaded: &mut load::Loaded,
    options: &CheckOptions,
    recall: Recall<'_>,
) -> Vec<Diagnostic> {
    let mut diagnostics = std::mem::take(&mut loaded.diagnostics);
    diagnostics.extend(validate::validate(&loaded.workspace, recall, options));
    // Skill folders are scanned as they are parsed (their findings came with loading);
    // category guidance, which agents read too, here.
    for (path, text) in loaded.texts.iter() {
        if path.ends_with("CATEGORY.md") {
            diagnostics.extend(safety::scan_text_file(path, text));
        }
    }
    let ws = &loaded.workspace;
    diagnostics.extend(safety::skipped(ws, &loaded.skipped));
    safety::apply_deny(&mut diagnostics, &ws.config.safety.deny);
    loaded.workspace.withheld = safety::withheld(ws, &diagnostics, ws.config.safety.withhold);
    diagnostics.retain(|d| {
        options.strict_spec || !(d.code == codes::NOT_IN_SPEC || d.code == codes::NAME_MISSING)
    });
    if options.strict_spec {
        for d in &mut diagnostics {
            if codes::is_portability(d.code) {
                d.severity = Severity::Error;
            }
        }
    }
    diagnostics
}

/// Attaches each diagnostic's source line from `texts` and sorts them (a build does this
/// beside its phases, which need only know there is no error).
pub(crate) fn ready_to_show(diagnostics: &mut Vec<Diagnostic>, texts: &load::Texts) {
    for d in diagnostics.iter_mut() {
        if d.source_line.is_none() {
            if let Some(text) = texts.get(d.file.as_str()) {
                d.attach_source(text);
            }
        }
    }
    diagnostic::sort(diagnostics);
}
