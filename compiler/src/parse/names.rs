//! Skill names: NFKC normalisation, portability rules and "did you mean" suggestions.

use unicode_normalization::UnicodeNormalization;

/// Longest portable name, in characters.
pub(crate) const MAX_NAME_CHARS: usize = 64;

/// The form names are compared in: NFKC, surrounding white space removed.
pub(crate) fn normalize(name: &str) -> String {
    name.trim().nfkc().collect()
}

/// Why `name` (already normalised) breaks the agentskills.io naming rules; empty when it
/// does not. Letters may be any lowercase Unicode letters, as in the reference validator.
pub fn portability_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        problems.push(format!(
            "it has {chars} characters, over the {MAX_NAME_CHARS} character limit"
        ));
    }
    if name.to_lowercase() != name {
        problems.push("it must be lowercase".to_string());
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push("it cannot start or end with a hyphen".to_string());
    }
    if name.contains("--") {
        problems.push("it cannot contain consecutive hyphens".to_string());
    }
    // Each character once, in order of first use: a title with four spaces is one problem.
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars().filter(|c| !(c.is_alphanumeric() || *c == '-')) {
        if !bad.contains(&c) {
            bad.push(c);
        }
    }
    if !bad.is_empty() {
        let shown: String = bad
            .iter()
            .map(|&c| shown_char(c))
            .collect::<Vec<_>>()
            .join(", ");
        problems.push(format!(
            "it contains {shown}; only letters, digits and hyphens are portable"
        ));
    }
    problems
}

/// A character as a message names it: quoted, or by name or code point when quoting would show
/// nothing (a space, a tab, an invisible character).
fn shown_char(c: char) -> String {
    match c {
        ' ' => "spaces".to_string(),
        '\t' => "tabs".to_string(),
        c if c.is_whitespace() || c.is_control() || is_invisible(c) => {
            format!("U+{:04X}", u32::from(c))
        }
        c => format!("`{c}`"),
    }
}

/// Format characters that draw nothing (zero-width spaces and joiners, the byte-order mark).
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{00AD}')
}

/// A portable spelling of `name` to suggest (lowercase, `_` and spaces to `-`).
pub(crate) fn portable_suggestion(name: &str) -> String {
    let mut out = String::new();
    for c in name.to_lowercase().chars() {
        let c = if c.is_alphanumeric() { c } else { '-' };
        if !(c == '-' && (out.is_empty() || out.ends_with('-'))) {
            out.push(c);
        }
    }
    out.trim_end_matches('-')
        .chars()
        .take(MAX_NAME_CHARS)
        .collect()
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (skillc_runtime::edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfkc_makes_composed_and_decomposed_names_equal() {
        assert_eq!(normalize("cafe\u{301}"), normalize("café"));
    }

    #[test]
    fn underscores_are_not_portable() {
        assert_eq!(portability_problems("demo_offer").len(), 1);
        assert_eq!(portable_suggestion("demo_offer"), "demo-offer");
    }

    #[test]
    fn unicode_lowercase_letters_are_portable() {
        assert!(portability_problems("навык").is_empty());
        assert!(portability_problems("技能").is_empty());
        assert!(!portability_problems("НАВЫК").is_empty());
    }

    #[test]
    fn each_character_is_named_once_and_invisible_ones_by_name_or_code_point() {
        let problems = portability_problems("Academic Paper_Citation Network Mapper");
        assert_eq!(
            problems.last().unwrap(),
            "it contains spaces, `_`; only letters, digits and hyphens are portable"
        );
        let problems = portability_problems("a\u{200B}b\tc");
        assert_eq!(
            problems.last().unwrap(),
            "it contains U+200B, tabs; only letters, digits and hyphens are portable"
        );
    }

    #[test]
    fn hyphen_rules_hold() {
        assert!(!portability_problems("-a").is_empty());
        assert!(!portability_problems("a--b").is_empty());
        assert!(portability_problems("a-b").is_empty());
    }

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("summarise", ["summarize", "pricing"]),
            Some("summarize".into())
        );
        assert_eq!(did_you_mean("xyz", ["pricing"]), None);
    }
}
