//! Variables: the `{{VAR}}` placeholders of bodies and the `${VAR}` ones of MCP
//! settings, through the runtime's own placeholder rules so both sides read them alike.

use std::collections::BTreeSet;

use skillc_runtime::placeholder;

/// Names of the `{{NAME}}` placeholders in `text` (`NAME`: letters, digits, `_`; no spaces,
/// so template syntax such as `{{ user.name }}` in code examples is never touched).
pub(crate) fn placeholders(text: &str) -> BTreeSet<&str> {
    placeholder::names(text, "{{", "}}").into_iter().collect()
}

/// Names of the `${NAME}` placeholders in `text`.
pub(crate) fn dollar_placeholders(text: &str) -> Vec<&str> {
    placeholder::names(text, "${", "}")
}

/// Replaces each `{{NAME}}` that `value` resolves; others stay as written.
pub(crate) fn substitute<'v>(text: &str, value: impl Fn(&str) -> Option<&'v str>) -> String {
    placeholder::substitute(text, "{{", "}}", |n| value(n).map(str::to_string))
}

/// Replaces each `${NAME}` that `value` resolves (MCP `env` values); others stay.
pub(crate) fn substitute_dollar<'v>(text: &str, value: impl Fn(&str) -> Option<&'v str>) -> String {
    placeholder::substitute(text, "${", "}", |n| value(n).map(str::to_string))
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
