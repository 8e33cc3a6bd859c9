//! Variables (SPEC 2.6): `{{VAR}}` placeholders and their six-level resolution.

use std::collections::BTreeSet;

/// Names of the `{{NAME}}` placeholders in `text` (`NAME`: letters, digits, `_`; no spaces,
/// so template syntax such as `{{ user.name }}` in code examples is never touched).
pub fn placeholders(text: &str) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) if is_var_name(&after[..j]) => {
                out.insert(&after[..j]);
                rest = &after[j + 2..];
            }
            _ => rest = after,
        }
    }
    out
}

fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Replaces each `{{NAME}}` that `value` resolves; others stay as written.
pub fn substitute<'v>(text: &str, value: impl Fn(&str) -> Option<&'v str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) if is_var_name(&after[..j]) => {
                match value(&after[..j]) {
                    Some(v) => out.push_str(v),
                    None => out.push_str(&rest[i..i + 4 + j]),
                }
                rest = &after[j + 2..];
            }
            _ => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Replaces each `${NAME}` that `value` resolves (MCP `env` values); others stay.
pub fn substitute_dollar<'v>(text: &str, value: impl Fn(&str) -> Option<&'v str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if is_var_name(&after[..j]) => {
                match value(&after[..j]) {
                    Some(v) => out.push_str(v),
                    None => out.push_str(&rest[i..i + 3 + j]),
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_only_variable_placeholders() {
        let p = placeholders("{{A}} {{ b.c }} {{_x1}} {{}} {{A}}");
        assert_eq!(p.into_iter().collect::<Vec<_>>(), ["A", "_x1"]);
    }

    #[test]
    fn substitutes_known_and_keeps_unknown() {
        let out = substitute("a {{X}} b {{Y}} c {{ z }}", |n| (n == "X").then_some("1"));
        assert_eq!(out, "a 1 b {{Y}} c {{ z }}");
    }

    #[test]
    fn substitutes_dollar_placeholders() {
        let out = substitute_dollar("${A}-${B}", |n| (n == "A").then_some("x"));
        assert_eq!(out, "x-${B}");
    }
}
