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
    let bad: Vec<char> = name
        .chars()
        .filter(|c| !(c.is_alphanumeric() || *c == '-'))
        .collect();
    if !bad.is_empty() {
        let shown: String = bad
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        problems.push(format!(
            "it contains {shown}; only letters, digits and hyphens are portable"
        ));
    }
    problems
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

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
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
