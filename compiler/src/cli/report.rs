//! How diagnostics are printed: machine formats whole, text summarised past a flood (a public
//! collection gave 832 identical errors), and a progress line on a terminal.

use std::io::Write;

use super::args::DiagFormat;

/// Diagnostics in a machine format (`None` for text, which each command words itself).
pub(crate) fn render_machine(
    diagnostics: &[skillc::Diagnostic],
    root: &str,
    format: DiagFormat,
) -> Option<String> {
    match format {
        DiagFormat::Text => None,
        DiagFormat::Json => Some(format!("{}\n", skillc::render_json(diagnostics))),
        DiagFormat::Github => Some(skillc::diagnostic::render_github(diagnostics, root)),
        DiagFormat::Sarif => Some(format!(
            "{}\n",
            skillc::diagnostic::render_sarif(diagnostics, root)
        )),
    }
}

/// A one-line progress display on stderr (used only when stderr is a terminal).
pub(crate) fn progress_line(phase: &str, done: usize, total: usize) {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K{phase}: {}/{total}", done.min(total));
    let _ = err.flush();
}

/// "12 skills", or "10 skills (2 more could not be read)" when some SKILL.md failed to load.
pub(crate) fn skill_count(diagnostics: &[skillc::Diagnostic], skill_files: &[String]) -> String {
    let loaded = skill_files.len();
    let unread: std::collections::BTreeSet<&str> = diagnostics
        .iter()
        .filter(|d| d.severity == skillc::Severity::Error)
        .filter(|d| {
            d.file.ends_with("/SKILL.md") || d.file.ends_with("/skill.md") || d.file == "SKILL.md"
        })
        .filter(|d| !skill_files.contains(&d.file))
        .map(|d| d.file.as_str())
        .collect();
    match unread.len() {
        0 => format!("{loaded} skills"),
        n => format!("{loaded} skills ({n} more could not be read)"),
    }
}

/// Warnings shown in full before the rest are summarised.
pub(crate) const SHOWN_WARNINGS: usize = 20;

/// More warnings than this are summarised (unless `--all-warnings`).
pub(crate) const SUMMARY_ABOVE: usize = 50;

/// What the text form prints in full.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Shown {
    pub all_warnings: bool,
    pub all_errors: bool,
}

/// How many warnings of a build of many clients the output `format` shows with their help and
/// source line (`None`: every one): the text the first [`SHOWN_WARNINGS`] past
/// [`SUMMARY_ABOVE`] (so the first [`SUMMARY_ABOVE`] cover it), every one with
/// `--all-warnings`; JSON neither; GitHub's and SARIF's forms the help of each.
pub(crate) fn warning_details(format: DiagFormat, all_warnings: bool) -> Option<usize> {
    match format {
        DiagFormat::Text if all_warnings => None,
        DiagFormat::Text => Some(SUMMARY_ABOVE),
        DiagFormat::Json => Some(0),
        DiagFormat::Github | DiagFormat::Sarif => None,
    }
}

/// Places listed for an error message that repeats.
pub(crate) const SHOWN_PLACES: usize = 3;

/// The diagnostics as text. Past [`SUMMARY_ABOVE`] errors, each distinct error (code and
/// message) is shown once, with its count and its first places (a public collection gave
/// 832 identical errors, 5,135 lines); past [`SUMMARY_ABOVE`] warnings, the first
/// [`SHOWN_WARNINGS`] and a count per code of the others (a flood hides the errors).
pub(crate) fn render_summarised(
    diagnostics: &[skillc::Diagnostic],
    display: &str,
    shown: Shown,
) -> String {
    let is_error = |d: &skillc::Diagnostic| d.severity == skillc::Severity::Error;
    let errors = diagnostics.iter().filter(|d| is_error(d)).count();
    let warnings = diagnostics.len() - errors;
    let fold_errors = !shown.all_errors && errors > SUMMARY_ABOVE;
    let fold_warnings = !shown.all_warnings && warnings > SUMMARY_ABOVE;
    if !fold_errors && !fold_warnings {
        return skillc::render_text(diagnostics, display);
    }
    // Each distinct error: where it first appears in the list, and every place it appears.
    let mut places: std::collections::HashMap<(&str, &str), Vec<String>> = Default::default();
    if fold_errors {
        for d in diagnostics.iter().filter(|d| is_error(d)) {
            let at = format!("{}:{}:{}", d.file, d.line, d.column);
            places
                .entry((d.code, d.message.as_str()))
                .or_default()
                .push(at);
        }
    }
    let mut out = Vec::new();
    let mut hidden: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut seen_warnings = 0;
    let mut said = std::collections::HashSet::new();
    for d in diagnostics {
        if is_error(d) && fold_errors {
            if !said.insert((d.code, d.message.as_str())) {
                continue;
            }
            out.push(with_places(d, &places[&(d.code, d.message.as_str())]));
        } else if is_error(d) || !fold_warnings || seen_warnings < SHOWN_WARNINGS {
            seen_warnings += usize::from(!is_error(d));
            out.push(d.clone());
        } else {
            *hidden.entry(d.code).or_default() += 1;
        }
    }
    let mut text = skillc::render_text(&out, display);
    if fold_errors {
        text.push_str(&format!(
            "{errors} errors, {} distinct; `--all-errors` or `--format json` lists every one\n\n",
            said.len()
        ));
    }
    if fold_warnings {
        let counts: Vec<String> = hidden.iter().map(|(c, n)| format!("{c} x{n}")).collect();
        text.push_str(&format!(
            "... and {} more warnings ({}); `--all-warnings` or `--format json` lists every one\n\n",
            warnings - seen_warnings,
            counts.join(", ")
        ));
    }
    text
}

/// An error that repeats, shown once: its message says how many times, and where else first
/// (`all`: every place it appears, its own first).
fn with_places(d: &skillc::Diagnostic, all: &[String]) -> skillc::Diagnostic {
    let mut d = d.clone();
    if all.len() > 1 {
        let also: Vec<&str> = all[1..]
            .iter()
            .take(SHOWN_PLACES)
            .map(String::as_str)
            .collect();
        let more = all.len() - 1 - also.len();
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        d.message = format!(
            "{} ({} times; also at {}{more})",
            d.message,
            all.len(),
            also.join(", ")
        );
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build of many clients may leave out the help and snippet of every warning past
    /// `warning_details` for the output's format: each format shows the same then.
    #[test]
    fn past_the_details_a_build_keeps_no_format_shows_more() {
        let overlap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/overlap/workspace");
        let checked = skillc::check(&overlap, &skillc::CheckOptions::default()).unwrap();
        let helped = (checked.diagnostics.iter())
            .find(|d| d.help.is_some() && d.severity == skillc::Severity::Warning)
            .expect("the fixture warns with help")
            .clone();
        assert!(skillc::render_text(std::slice::from_ref(&helped), "").contains(" | "));
        // What the text and JSON show lets a build drop the rest (50,000 clients: 127 MB).
        assert_eq!(
            warning_details(DiagFormat::Text, false),
            Some(SUMMARY_ABOVE)
        );
        assert_eq!(warning_details(DiagFormat::Json, false), Some(0));
        for count in [3, SUMMARY_ABOVE, SUMMARY_ABOVE + 1, 120] {
            let all: Vec<skillc::Diagnostic> = (1..=count)
                .map(|line| {
                    let mut d = helped.clone();
                    d.line = line;
                    d
                })
                .collect();
            for format in [
                DiagFormat::Text,
                DiagFormat::Json,
                DiagFormat::Github,
                DiagFormat::Sarif,
            ] {
                for all_warnings in [false, true] {
                    let kept = warning_details(format, all_warnings).unwrap_or(usize::MAX);
                    let bare: Vec<skillc::Diagnostic> = (all.iter().enumerate())
                        .map(|(i, d)| {
                            if i < kept {
                                d.clone()
                            } else {
                                d.clone().without_details()
                            }
                        })
                        .collect();
                    let shown = |ds: &[skillc::Diagnostic]| match format {
                        DiagFormat::Text => {
                            let shown = Shown {
                                all_warnings,
                                all_errors: false,
                            };
                            render_summarised(ds, "ws", shown)
                        }
                        _ => render_machine(ds, "ws", format).unwrap_or_default(),
                    };
                    let what =
                        format!("{format:?}, {count} warnings, --all-warnings {all_warnings}");
                    assert_eq!(shown(&bare), shown(&all), "{what}");
                }
            }
        }
    }
}
