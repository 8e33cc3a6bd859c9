//! `{{NAME}}` and `${NAME}` placeholders: found and substituted the same way by the compiler
//! (variables in bodies and MCP settings) and by runtimes (`${VAR}` at start-up).
//!
//! A name is letters, digits and `_`, not starting with a digit; anything else between the
//! delimiters (`{{ user.name }}` in a code example) is left as written.

/// Whether `s` can name a variable.
pub fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Calls `visit` with the text before each placeholder and its name, and returns the rest.
fn scan<'t>(
    text: &'t str,
    open: &str,
    close: &str,
    mut visit: impl FnMut(&'t str, &'t str, &'t str),
) -> &'t str {
    let mut rest = text;
    while let Some(i) = rest.find(open) {
        let after = &rest[i + open.len()..];
        match after.find(close) {
            Some(j) if is_var_name(&after[..j]) => {
                // (text before, the placeholder as written, its name)
                visit(
                    &rest[..i],
                    &rest[i..i + open.len() + j + close.len()],
                    &after[..j],
                );
                rest = &after[j + close.len()..];
            }
            _ => {
                visit(&rest[..i + open.len()], "", "");
                rest = after;
            }
        }
    }
    rest
}

/// The names of the placeholders in `text`, in order (repeats included).
pub fn names<'t>(text: &'t str, open: &str, close: &str) -> Vec<&'t str> {
    let mut out = Vec::new();
    scan(text, open, close, |_, _, name| {
        if !name.is_empty() {
            out.push(name);
        }
    });
    out
}

/// Replaces each placeholder that `value` resolves; the others stay as written.
pub fn substitute(
    text: &str,
    open: &str,
    close: &str,
    value: impl Fn(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let rest = scan(text, open, close, |before, written, name| {
        out.push_str(before);
        if !name.is_empty() {
            match value(name) {
                Some(v) => out.push_str(&v),
                None => out.push_str(written),
            }
        }
    });
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_only_variable_names() {
        assert_eq!(
            names("{{A}} {{ b.c }} {{_x1}} {{}} {{A}}", "{{", "}}"),
            ["A", "_x1", "A"]
        );
        assert_eq!(names("${A}-${1x}-${B", "${", "}"), ["A"]);
    }

    #[test]
    fn substitutes_known_names_and_keeps_the_rest() {
        let v = |n: &str| (n == "X").then(|| "1".to_string());
        assert_eq!(
            substitute("a {{X}} b {{Y}} c {{ z }} {{", "{{", "}}", v),
            "a 1 b {{Y}} c {{ z }} {{"
        );
        assert_eq!(substitute("${X}-${Y}-${", "${", "}", v), "1-${Y}-${");
    }
}
