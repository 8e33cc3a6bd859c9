//! Limits on workspace templates (`templates/*.tera`), checked on their syntax tree before any
//! rendering, so that no template can recurse, loop without bound or grow its output faster
//! than its input (hostile input is bounded by construction, not by a timeout).
//!
//! An override renders one small fragment (a catalog line, a prompt heading), so the rules
//! cost nothing real: no macros, includes, blocks or `set_global` (recursion and accumulation);
//! loops do not nest and iterate a context value or a literal `range` of at most
//! [`MAX_RANGE`] items; filters come from a list whose output is linear in their input, with
//! literal arguments of at most [`MAX_LITERAL`] characters; no function but `range` (`now`,
//! `get_env` and `get_random` would also make the artifact depend on when and where it was
//! built). Rendered output is capped at [`MAX_OUTPUT`] bytes while it is written.

use tera::ast::{Expr, ExprVal, FunctionCall, Node};

/// Most items a `range(...)` may produce.
pub(crate) const MAX_RANGE: i64 = 10_000;
/// Longest literal string argument of a filter.
pub(crate) const MAX_LITERAL: usize = 256;
/// Most bytes one rendered fragment may have.
pub(crate) const MAX_OUTPUT: usize = 16 << 20;

/// Filters whose output is at most linear in their input when their arguments are literals.
const FILTERS: &[&str] = &[
    "lower",
    "upper",
    "trim",
    "trim_start",
    "trim_end",
    "trim_start_matches",
    "trim_end_matches",
    "truncate",
    "wordcount",
    "capitalize",
    "title",
    "striptags",
    "escape",
    "escape_xml",
    "safe",
    "length",
    "first",
    "last",
    "nth",
    "join",
    "reverse",
    "sort",
    "unique",
    "slice",
    "default",
    "replace",
    "split",
    "linebreaksbr",
    "spaceless",
    "json_encode",
    "as_str",
    "int",
    "float",
    "round",
    "abs",
    "urlencode",
    "urlencode_strict",
    "addslashes",
    "pluralize",
    "get",
    "map",
    "filter",
    "md_cell",
    "xml_escape",
];

/// Most a template may multiply the size of the values it reads: one `replace` that turns a
/// character into 256 passes, two chained do not (each would multiply the other's output).
pub(crate) const MAX_GROWTH: u64 = 256;

/// The first construct of `ast` outside the limits, as a sentence.
pub(crate) fn check(ast: &[Node]) -> Result<(), String> {
    Guard::default().nodes(ast, false)
}

/// What the walk knows at a point of the template: how much each `set` variable (and loop
/// variable) may have grown what it was made of, and the growth of the `filter` sections
/// around it.
struct Guard {
    vars: std::collections::HashMap<String, u64>,
    section: u64,
}

impl Default for Guard {
    fn default() -> Self {
        Guard {
            vars: Default::default(),
            section: 1,
        }
    }
}

fn too_much(growth: u64) -> Result<u64, String> {
    if growth > MAX_GROWTH {
        Err(format!(
            "the filters can make a value more than {MAX_GROWTH} times longer than what it is made of \
             (chained `replace`, `join`, `escape` and the like multiply)"
        ))
    } else {
        Ok(growth)
    }
}

impl Guard {
    fn nodes(&mut self, ast: &[Node], in_loop: bool) -> Result<(), String> {
        ast.iter().try_for_each(|n| self.node(n, in_loop))
    }

    fn node(&mut self, n: &Node, in_loop: bool) -> Result<(), String> {
        match n {
            Node::Text(_)
            | Node::Raw(..)
            | Node::Comment(..)
            | Node::Break(_)
            | Node::Continue(_) => Ok(()),
            Node::VariableBlock(_, e) => too_much(self.expr(e)?.saturating_mul(self.section)).map(drop),
            Node::If(i, _) => {
                for (_, cond, body) in &i.conditions {
                    self.expr(cond)?;
                    self.nodes(body, in_loop)?;
                }
                match &i.otherwise {
                    Some((_, body)) => self.nodes(body, in_loop),
                    None => Ok(()),
                }
            }
            Node::Forloop(_, f, _) => self.forloop(f, in_loop),
            Node::Set(_, s) if s.global => Err("`set_global` is not allowed in templates".into()),
            Node::Set(..) if in_loop => {
                Err("`set` inside a loop is not allowed in templates".into())
            }
            Node::Set(_, s) => {
                let growth = self.expr(&s.value)?;
                self.vars.insert(s.key.clone(), growth);
                Ok(())
            }
            Node::FilterSection(_, section, _) => {
                if section.body.iter().any(|n| matches!(n, Node::Forloop(..))) {
                    return Err("a loop inside a `filter` section is not allowed in templates".into());
                }
                let outer = self.section;
                self.section = too_much(outer.saturating_mul(filter(&section.filter)?))?;
                let inside = self.nodes(&section.body, in_loop);
                self.section = outer;
                inside
            }
            Node::MacroDefinition(..) | Node::ImportMacro(..) => {
                Err("macros are not allowed in templates (they can recurse without end)".into())
            }
            Node::Include(..) | Node::Extends(..) | Node::Block(..) | Node::Super => Err(
                "`include`, `extends` and `block` are not allowed: each template renders one fragment"
                    .into(),
            ),
        }
    }

    fn forloop(&mut self, f: &tera::ast::Forloop, in_loop: bool) -> Result<(), String> {
        if in_loop {
            return Err("loops inside loops are not allowed in templates".into());
        }
        match &f.container.val {
            ExprVal::Ident(_) => {}
            ExprVal::FunctionCall(call) if call.name == "range" => range(call)?,
            _ => {
                return Err(
                    "a loop iterates a value of the context or a literal `range(...)`".into(),
                )
            }
        }
        let growth = self.expr(&f.container)?;
        let names: Vec<&String> = std::iter::once(&f.value).chain(&f.key).collect();
        let shadowed: Vec<Option<u64>> = names
            .iter()
            .map(|n| self.vars.insert((*n).clone(), growth))
            .collect();
        let body = self
            .nodes(&f.body, true)
            .and_then(|()| match &f.empty_body {
                Some(body) => self.nodes(body, true),
                None => Ok(()),
            });
        for (name, before) in names.into_iter().zip(shadowed) {
            match before {
                Some(g) => self.vars.insert(name.clone(), g),
                None => self.vars.remove(name),
            };
        }
        body
    }

    /// How much longer than the values it reads `e` can be, or why it is refused.
    fn expr(&self, e: &Expr) -> Result<u64, String> {
        let mut growth = self.val(&e.val)?;
        for f in &e.filters {
            growth = too_much(growth.saturating_mul(filter(f)?))?;
        }
        Ok(growth)
    }

    fn val(&self, v: &ExprVal) -> Result<u64, String> {
        let sum =
            |parts: Vec<u64>| too_much(parts.into_iter().fold(0u64, u64::saturating_add).max(1));
        match v {
            ExprVal::Float(f) if !f.is_finite() || f.abs() > MAX_NUMBER => {
                Err(format!("numbers in templates are at most {MAX_NUMBER:e}"))
            }
            ExprVal::String(_) | ExprVal::Int(_) | ExprVal::Float(_) | ExprVal::Bool(_) => Ok(1),
            ExprVal::Ident(name) => Ok(self.vars.get(name).copied().unwrap_or(1)),
            ExprVal::Math(m) => {
                self.expr(&m.lhs)?;
                self.expr(&m.rhs)?;
                let positive_literal = match &m.rhs.val {
                    ExprVal::Int(n) => *n > 0,
                    ExprVal::Float(f) => *f > 0.0,
                    _ => false,
                };
                if m.operator == tera::ast::MathOperator::Modulo && !positive_literal {
                    return Err("`%` takes a positive number written out on its right".into());
                }
                Ok(1)
            }
            ExprVal::Logic(l) => {
                self.expr(&l.lhs)?;
                self.expr(&l.rhs)?;
                Ok(1)
            }
            ExprVal::Test(t) => {
                for a in &t.args {
                    self.expr(a)?;
                }
                Ok(1)
            }
            ExprVal::MacroCall(_) => Err("macros are not allowed in templates".into()),
            ExprVal::FunctionCall(call) if call.name == "range" => range(call).map(|()| 1),
            ExprVal::FunctionCall(call) => Err(format!(
                "the function `{}` is not allowed in templates",
                call.name
            )),
            ExprVal::Array(items) => sum(items
                .iter()
                .map(|i| self.expr(i))
                .collect::<Result<_, _>>()?),
            ExprVal::StringConcat(c) => sum(c
                .values
                .iter()
                .map(|v| self.val(v))
                .collect::<Result<_, _>>()?),
            ExprVal::In(i) => {
                self.expr(&i.lhs)?;
                self.expr(&i.rhs)?;
                Ok(1)
            }
        }
    }
}

/// Largest number a template may write out (sums of such numbers stay finite).
const MAX_NUMBER: f64 = 1e15;

/// Checks a filter and its literal arguments; returns how many times longer than its input
/// its output can be.
fn filter(f: &FunctionCall) -> Result<u64, String> {
    if !FILTERS.contains(&f.name.as_str()) {
        return Err(format!(
            "the filter `{}` is not allowed in templates",
            f.name
        ));
    }
    for arg in f.args.values() {
        match &arg.val {
            ExprVal::String(s) if s.chars().count() > MAX_LITERAL => {
                return Err(format!(
                    "an argument of `{}` is longer than {MAX_LITERAL} characters",
                    f.name
                ))
            }
            ExprVal::Float(x) if !x.is_finite() || x.abs() > MAX_NUMBER => {
                return Err(format!("numbers in templates are at most {MAX_NUMBER:e}"))
            }
            ExprVal::String(_) | ExprVal::Int(_) | ExprVal::Float(_) | ExprVal::Bool(_) => {}
            _ => {
                return Err(format!(
                    "the arguments of `{}` must be written out (strings or numbers)",
                    f.name
                ))
            }
        }
    }
    let text = |key: &str| match f.args.get(key).map(|e| &e.val) {
        Some(ExprVal::String(s)) => s.len() as u64,
        _ => 0,
    };
    let int = |key: &str| match f.args.get(key).map(|e| &e.val) {
        Some(ExprVal::Int(n)) => Some(*n),
        _ => None,
    };
    Ok(match f.name.as_str() {
        "int"
            if f.args.contains_key("base")
                && !int("base").is_some_and(|b| (2..=36).contains(&b)) =>
        {
            return Err("`int(base=…)` takes a base from 2 to 36".into())
        }
        "round" if int("precision").is_some_and(|p| !(0..=15).contains(&p)) => {
            return Err("`round(precision=…)` takes 0 to 15 digits".into())
        }
        // `replace` of an empty string puts `to` between every two characters.
        "replace" => match text("from") {
            0 => text("to") + 1,
            from => text("to").div_ceil(from).max(1),
        },
        "join" => text("sep") + 1,
        // `&` → `&amp;`, `'` → `&#x27;`; a control character → `\u0000`; `<` … `\` → `\\`.
        "escape" | "escape_xml" | "xml_escape" | "json_encode" => 6,
        "linebreaksbr" => 4,
        "urlencode" | "urlencode_strict" | "as_str" => 3,
        // Case mapping: one character can become three (`ŉ` → `ʼN`).
        "upper" | "lower" | "capitalize" | "title" => 3,
        "addslashes" | "md_cell" => 2,
        _ => 1,
    })
}

fn range(call: &FunctionCall) -> Result<(), String> {
    let int = |key: &str, default: i64| match call.args.get(key).map(|e| &e.val) {
        None => Ok(default),
        Some(ExprVal::Int(n)) => Ok(*n),
        Some(_) => Err("the arguments of `range` must be written out as numbers".to_string()),
    };
    let start = int("start", 0)?;
    let end = int("end", 0)?;
    let step = int("step_by", 1)?;
    if step < 1 {
        return Err("`range(step_by=…)` takes a step of at least 1".into());
    }
    if start < 0 || end < 0 {
        return Err("`range` counts from 0 up".into());
    }
    if end.saturating_sub(start) / step > MAX_RANGE {
        return Err(format!("`range` may produce at most {MAX_RANGE} items"));
    }
    Ok(())
}

thread_local! {
    static IN_ENGINE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs the template engine on `work`, turning a panic inside it into an error: the checks
/// above refuse every construct known to panic (a radix, an overflowing `%`), and this keeps
/// one we do not know of a diagnostic rather than an abort. The panic's message is not
/// printed: it is reported as a diagnostic instead.
pub(crate) fn contained<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_ENGINE.with(|flag| flag.get()) {
                previous(info);
            }
        }));
    });
    IN_ENGINE.with(|flag| flag.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    IN_ENGINE.with(|flag| flag.set(false));
    result.map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        format!("the template engine failed on it ({what})")
    })
}

/// A writer that fails once more than [`MAX_OUTPUT`] bytes were written to it.
#[derive(Default)]
pub(crate) struct CappedOutput(pub Vec<u8>);

impl std::io::Write for CappedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_OUTPUT {
            return Err(std::io::Error::other(format!(
                "the output is over {MAX_OUTPUT} bytes"
            )));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(text: &str) -> Result<(), String> {
        let mut tera = tera::Tera::default();
        tera.add_raw_template("t", text).unwrap();
        check(&tera.get_template("t").unwrap().ast)
    }

    #[test]
    fn the_built_in_shapes_pass() {
        for (_, text) in crate::render::TEMPLATES {
            assert_eq!(verdict(text), Ok(()), "{text}");
        }
        assert_eq!(
            verdict("{% for i in range(end=3) %}{{ i }}{% endfor %}{{ name | replace(from=\"a\", to=\"b\") }}"),
            Ok(())
        );
        // One 256-fold replace is within the limits; linear filters chain freely.
        let one = format!(
            "{{{{ description | replace(from=\"a\", to=\"{}\") }}}}",
            "a".repeat(256)
        );
        assert_eq!(verdict(&one), Ok(()));
        assert_eq!(
            verdict("{{ description | trim | lower | truncate(length=10) | escape | trim }}{{ 7 % 3 }}{{ description | int(base=16) }}"),
            Ok(())
        );
    }

    #[test]
    fn recursion_loops_and_growth_are_refused() {
        for bad in [
            "{% macro r(n) %}{{ self::r(n=n+1) }}{% endmacro r %}{{ self::r(n=0) }}",
            "{% for i in range(end=100000000) %}x{% endfor %}",
            "{% for a in body %}{% for b in body %}x{% endfor %}{% endfor %}",
            "{% for a in triggers %}{% set x = body ~ body %}{% endfor %}",
            "{% set_global x = 1 %}",
            "{{ body | replace(from=\"a\", to=body) }}",
            "{% include \"prompt_skill\" %}",
            "{{ now() }}",
            "{{ get_env(name=\"HOME\") }}",
            // Growth that compounds: chained, through `set`, through `filter` sections.
            "{{ description | replace(from=\"a\", to=\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\") | replace(from=\"A\", to=\"aaaaaaaaaaaaaaaaaaaa\") }}",
            "{{ description | addslashes | addslashes | addslashes | addslashes | addslashes | addslashes | addslashes | addslashes | addslashes }}",
            "{% set a = description ~ description %}{% set b = a ~ a %}{% set c = b ~ b %}{% set d = c ~ c %}{% set e = d ~ d %}{% set f = e ~ e %}{% set g = f ~ f %}{% set h = g ~ g %}{{ h ~ h }}",
            "{% filter replace(from=\"a\", to=\"aaaaaaaaaaaaaaaaaaaa\") %}{% filter replace(from=\"a\", to=\"aaaaaaaaaaaaaaaaaaaa\") %}{{ description }}{% endfilter %}{% endfilter %}",
            "{% filter upper %}{% for t in triggers %}{{ t }}{% endfor %}{% endfilter %}",
            "{{ description | split(pat=\"\") | join(sep=\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\") | upper }}",
            // Loops and panics inside the engine.
            "{% for i in range(end=1, step_by=0) %}x{% endfor %}",
            "{{ description | int(base=1) }}",
            "{{ description | int(base=37) }}",
            "{{ (-9223372036854775807 - 1) % -1 }}",
            "{{ priority % 0 }}",
            "{{ 1.5 | round(precision=400) }}",
        ] {
            assert!(verdict(bad).is_err(), "{bad}");
        }
    }
}
