//! Checks of a skill's instruction body: examples and length (000, 003 best practice).

use crate::diagnostic::{codes, Diagnostic, Pos};

/// Lines beyond which a body is too long for portable skills.
pub(crate) const MAX_BODY_LINES: usize = 500;
/// Estimated tokens beyond which a body is too long for portable skills.
pub(crate) const MAX_BODY_TOKENS: usize = 5000;

/// A rough token estimate (one token per four bytes), enough for a length warning.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

fn is_example_heading(line: &str, word: &str) -> bool {
    let t = line.trim_start().trim_start_matches(['*', '#', '_', ' ']);
    t.starts_with(word)
        && t[word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric())
}

/// Reports BAD examples without a "Why bad" line, and over-long bodies.
pub(crate) fn check(file: &str, body: &str, first_line: usize, out: &mut Vec<Diagnostic>) {
    let lines: Vec<&str> = body.lines().collect();
    let mut in_code = false;
    let mut open_bad: Option<(usize, usize)> = None;
    let close = |open: &mut Option<(usize, usize)>, out: &mut Vec<Diagnostic>| {
        if let Some((line, len)) = open.take() {
            out.push(
                Diagnostic::new(
                    codes::BAD_EXAMPLE_WITHOUT_WHY,
                    file,
                    Pos { line, column: 1, len },
                    "BAD example has no \"Why bad\" line",
                )
                .with_help("explain the mistake on a `**Why bad:**` line so the model learns what to avoid"),
            );
        }
    };
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if line
            .as_bytes()
            .windows(7)
            .any(|w| w.eq_ignore_ascii_case(b"why bad"))
        {
            open_bad = None;
        } else if is_example_heading(line, "BAD") {
            close(&mut open_bad, out);
            open_bad = Some((first_line + i, line.trim_end().chars().count()));
        } else if is_example_heading(line, "GOOD") || line.starts_with('#') {
            close(&mut open_bad, out);
        }
    }
    close(&mut open_bad, out);

    let tokens = estimate_tokens(body);
    if lines.len() > MAX_BODY_LINES || tokens > MAX_BODY_TOKENS {
        out.push(
            Diagnostic::new(
                codes::LONG_BODY,
                file,
                Pos::line(first_line),
                format!(
                    "body has {} lines and about {tokens} tokens; portable skills stay under {MAX_BODY_LINES} lines and {MAX_BODY_TOKENS} tokens",
                    lines.len()
                ),
            )
            .with_help("move detail into references/ files that the agent reads on demand"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes_of(body: &str) -> Vec<(&'static str, usize)> {
        let mut out = Vec::new();
        check("f", body, 10, &mut out);
        out.into_iter().map(|d| (d.code, d.line)).collect()
    }

    #[test]
    fn bad_example_with_why_bad_is_fine() {
        assert!(codes_of("**BAD - x:**\n**Agent:** y\n**Why bad:** z\n").is_empty());
    }

    #[test]
    fn bad_example_without_why_bad_is_reported_at_its_line() {
        assert_eq!(
            codes_of("intro\n**BAD - x:**\n**Agent:** y\n\n**GOOD - z:**\n"),
            vec![(codes::BAD_EXAMPLE_WITHOUT_WHY, 11)]
        );
    }

    #[test]
    fn examples_inside_code_blocks_are_ignored() {
        assert!(codes_of("```\n**BAD**\n```\n").is_empty());
    }

    #[test]
    fn long_bodies_are_reported() {
        let body = "x\n".repeat(MAX_BODY_LINES + 1);
        assert_eq!(codes_of(&body), vec![(codes::LONG_BODY, 10)]);
    }
}
