//! Limits on workspace templates (`templates/*.tera`), checked on their syntax tree before any
//! rendering, so that no template can recurse, loop without bound or grow its output faster
//! than its input (SPEC 10: hostile input is bounded by construction).
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
pub const MAX_RANGE: i64 = 10_000;
/// Longest literal string argument of a filter.
pub const MAX_LITERAL: usize = 256;
/// Most bytes one rendered fragment may have.
pub const MAX_OUTPUT: usize = 16 << 20;

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

/// The first construct of `ast` outside the limits, as a sentence.
pub fn check(ast: &[Node]) -> Result<(), String> {
    nodes(ast, false)
}

fn nodes(ast: &[Node], in_loop: bool) -> Result<(), String> {
    ast.iter().try_for_each(|n| node(n, in_loop))
}

fn node(n: &Node, in_loop: bool) -> Result<(), String> {
    match n {
        Node::Text(_) | Node::Raw(..) | Node::Comment(..) | Node::Break(_) | Node::Continue(_) => {
            Ok(())
        }
        Node::VariableBlock(_, e) => expr(e),
        Node::If(i, _) => {
            for (_, cond, body) in &i.conditions {
                expr(cond)?;
                nodes(body, in_loop)?;
            }
            match &i.otherwise {
                Some((_, body)) => nodes(body, in_loop),
                None => Ok(()),
            }
        }
        Node::Forloop(_, f, _) => {
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
            filters(&f.container)?;
            nodes(&f.body, true)?;
            match &f.empty_body {
                Some(body) => nodes(body, true),
                None => Ok(()),
            }
        }
        Node::Set(_, s) if s.global => Err("`set_global` is not allowed in templates".into()),
        Node::Set(..) if in_loop => Err("`set` inside a loop is not allowed in templates".into()),
        Node::Set(_, s) => expr(&s.value),
        Node::FilterSection(_, section, _) => {
            filter(&section.filter)?;
            nodes(&section.body, in_loop)
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

fn expr(e: &Expr) -> Result<(), String> {
    val(&e.val)?;
    filters(e)
}

fn filters(e: &Expr) -> Result<(), String> {
    e.filters.iter().try_for_each(filter)
}

fn filter(f: &FunctionCall) -> Result<(), String> {
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
            ExprVal::String(_) | ExprVal::Int(_) | ExprVal::Float(_) | ExprVal::Bool(_) => {}
            _ => {
                return Err(format!(
                    "the arguments of `{}` must be written out (strings or numbers)",
                    f.name
                ))
            }
        }
    }
    Ok(())
}

fn range(call: &FunctionCall) -> Result<(), String> {
    let int = |key: &str, default: i64| match call.args.get(key).map(|e| &e.val) {
        None => Ok(default),
        Some(ExprVal::Int(n)) => Ok(*n),
        Some(_) => Err("the arguments of `range` must be written out as numbers".to_string()),
    };
    let start = int("start", 0)?;
    let end = int("end", 0)?;
    let step = int("step_by", 1)?.max(1);
    if (end - start) / step > MAX_RANGE {
        return Err(format!("`range` may produce at most {MAX_RANGE} items"));
    }
    Ok(())
}

fn val(v: &ExprVal) -> Result<(), String> {
    match v {
        ExprVal::String(_)
        | ExprVal::Int(_)
        | ExprVal::Float(_)
        | ExprVal::Bool(_)
        | ExprVal::Ident(_) => Ok(()),
        ExprVal::Math(m) => {
            expr(&m.lhs)?;
            expr(&m.rhs)
        }
        ExprVal::Logic(l) => {
            expr(&l.lhs)?;
            expr(&l.rhs)
        }
        ExprVal::Test(t) => t.args.iter().try_for_each(expr),
        ExprVal::MacroCall(_) => Err("macros are not allowed in templates".into()),
        ExprVal::FunctionCall(call) if call.name == "range" => range(call),
        ExprVal::FunctionCall(call) => Err(format!(
            "the function `{}` is not allowed in templates",
            call.name
        )),
        ExprVal::Array(items) => items.iter().try_for_each(expr),
        ExprVal::StringConcat(c) => c.values.iter().try_for_each(val),
        ExprVal::In(i) => {
            expr(&i.lhs)?;
            expr(&i.rhs)
        }
    }
}

/// A writer that fails once more than [`MAX_OUTPUT`] bytes were written to it.
#[derive(Default)]
pub struct CappedOutput(pub Vec<u8>);

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
        ] {
            assert!(verdict(bad).is_err(), "{bad}");
        }
    }
}
