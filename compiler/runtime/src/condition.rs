//! Run-time conditions, evaluated against a request's context. Fail-closed: a
//! condition whose value is missing does not hold.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The run-time context of a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// The page URL (a full URL or a path).
    pub page_url: Option<String>,
    /// The conversation turn.
    pub turn: Option<i64>,
    /// `<skill>_availability` values by skill name.
    pub availability: BTreeMap<String, String>,
    /// Other keys, for `context_has`.
    pub values: BTreeMap<String, String>,
}

impl Context {
    /// Reads `KEY=VALUE` pairs: `page_url`, `turn`, `<skill>_availability`, anything else.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Context, String> {
        let mut c = Context::default();
        for (k, v) in pairs {
            match k {
                "page_url" => c.page_url = Some(v.to_string()),
                "" => return Err(format!("context `={v}` has no key (write KEY=VALUE)")),
                "turn" => {
                    c.turn = Some(v.parse().map_err(|e: std::num::ParseIntError| {
                        use std::num::IntErrorKind::PosOverflow;
                        if *e.kind() == PosOverflow {
                            format!("turn `{v}` is too large")
                        } else {
                            format!("turn must be a whole number, not `{v}`")
                        }
                    })?)
                }
                k if k.ends_with("_availability") && k.len() > "_availability".len() => {
                    c.availability.insert(
                        k[..k.len() - "_availability".len()].to_string(),
                        v.to_string(),
                    );
                }
                k => {
                    c.values.insert(k.to_string(), v.to_string());
                }
            }
        }
        Ok(c)
    }
}

/// A condition as the artifact stores it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// The page URL starts with one of these at a `/` boundary.
    StartsWithAny(Vec<String>),
    /// The page URL starts with none of these.
    DoesNotStartWithAny(Vec<String>),
    /// A regex search over the page URL hits.
    PageUrlMatches(String),
    /// A regex search over the page URL misses.
    PageUrlNotMatches(String),
    /// Decided at build time; never stored, accepted for completeness.
    ConversationLanguage(String),
    /// The availability value of a skill.
    Availability {
        /// Skill name.
        skill: String,
        /// Required value.
        value: String,
    },
    /// The turn is at least this.
    TurnAtLeast(i64),
    /// The context has a non-empty value for this key.
    ContextHas(String),
}

/// A condition ready to evaluate (regexes compiled once, when the bundle loads).
#[derive(Debug, Clone)]
pub enum Compiled {
    /// Prefixes, and whether the condition is negated.
    Prefixes(Vec<String>, bool),
    /// A regex, and whether the condition is negated.
    Regex(regex::Regex, bool),
    /// `<skill>_availability`.
    Availability(String, String),
    /// `turn_at_least`.
    TurnAtLeast(i64),
    /// `context_has`.
    ContextHas(String),
    /// Always holds (decided at build time).
    Always,
}

impl Condition {
    /// The condition in words (`skillc explain`).
    pub fn words(&self) -> String {
        let list = |p: &[String]| p.join(" or ");
        match self {
            Condition::StartsWithAny(p) => format!("the page URL starts with {}", list(p)),
            Condition::DoesNotStartWithAny(p) => {
                format!("the page URL starts with none of {}", p.join(", "))
            }
            Condition::PageUrlMatches(r) => format!("the page URL matches /{r}/"),
            Condition::PageUrlNotMatches(r) => format!("the page URL does not match /{r}/"),
            Condition::ConversationLanguage(l) => format!("the conversation language is {l}"),
            Condition::Availability { skill, value } => {
                format!("{skill}_availability is {value}")
            }
            Condition::TurnAtLeast(n) => format!("the turn is at least {n}"),
            Condition::ContextHas(k) => format!("the context has a value for {k}"),
        }
    }

    /// Compiles the condition. The build compiled every regex already, so a failure here means
    /// the artifact was tampered with; such a condition never holds.
    pub fn compile(&self) -> Compiled {
        match self {
            Condition::StartsWithAny(p) => Compiled::Prefixes(p.clone(), false),
            Condition::DoesNotStartWithAny(p) => Compiled::Prefixes(p.clone(), true),
            Condition::PageUrlMatches(r) | Condition::PageUrlNotMatches(r) => {
                let negated = matches!(self, Condition::PageUrlNotMatches(_));
                match regex::Regex::new(r) {
                    Ok(re) => Compiled::Regex(re, negated),
                    Err(_) => Compiled::Prefixes(Vec::new(), false),
                }
            }
            Condition::ConversationLanguage(_) => Compiled::Always,
            Condition::Availability { skill, value } => {
                Compiled::Availability(skill.clone(), value.clone())
            }
            Condition::TurnAtLeast(n) => Compiled::TurnAtLeast(*n),
            Condition::ContextHas(k) => Compiled::ContextHas(k.clone()),
        }
    }
}

/// The path part of a URL (`https://a.com/x?y` → `/x`), or the text itself when it is a path.
fn path_of(url: &str) -> &str {
    match url.split_once("://") {
        Some((_, rest)) => match rest.find(['/', '?', '#']) {
            Some(i) if rest[i..].starts_with('/') => {
                let p = &rest[i..];
                p.split(['?', '#']).next().unwrap_or(p)
            }
            _ => "/",
        },
        None => url.split(['?', '#']).next().unwrap_or(url),
    }
}

/// Whether `text` starts with `prefix` at a `/` boundary, trailing slashes ignored.
pub(crate) fn starts_at_boundary(text: &str, prefix: &str) -> bool {
    let p = prefix.trim_end_matches('/');
    if p.is_empty() {
        return true;
    }
    match text.strip_prefix(p) {
        Some(rest) => rest.is_empty() || rest.starts_with(['/', '?', '#']),
        None => false,
    }
}

fn prefix_matches(url: &str, prefix: &str) -> bool {
    if prefix.starts_with('/') {
        starts_at_boundary(path_of(url), prefix)
    } else {
        starts_at_boundary(url, prefix)
    }
}

impl Compiled {
    /// Whether the condition holds in `ctx`.
    pub fn holds(&self, ctx: &Context) -> bool {
        match self {
            Compiled::Prefixes(prefixes, negated) => match &ctx.page_url {
                None => false,
                Some(url) => prefixes.iter().any(|p| prefix_matches(url, p)) != *negated,
            },
            Compiled::Regex(re, negated) => match &ctx.page_url {
                None => false,
                Some(url) => re.is_match(url) != *negated,
            },
            Compiled::Availability(skill, value) => ctx.availability.get(skill) == Some(value),
            Compiled::TurnAtLeast(n) => ctx.turn.is_some_and(|t| t >= *n),
            Compiled::ContextHas(k) => ctx.values.get(k).is_some_and(|v| !v.is_empty()),
            Compiled::Always => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(url: &str) -> Context {
        Context {
            page_url: Some(url.to_string()),
            ..Context::default()
        }
    }

    #[test]
    fn a_url_without_a_path_is_the_root_whatever_follows_its_host() {
        assert_eq!(path_of("https://a.com/x/y?q=1#f"), "/x/y");
        assert_eq!(path_of("https://a.com?next=/pricing"), "/");
        assert_eq!(path_of("https://a.com#/pricing"), "/");
        assert_eq!(path_of("https://a.com"), "/");
        assert_eq!(path_of("/en-gb/pricing?x"), "/en-gb/pricing");
    }

    #[test]
    fn prefixes_match_at_a_slash_boundary() {
        let c = Condition::StartsWithAny(vec!["/en-gb".into()]).compile();
        assert!(c.holds(&ctx("/en-gb")));
        assert!(c.holds(&ctx("/en-gb/compare")));
        assert!(c.holds(&ctx("https://www.x.com/en-gb/compare?a=1")));
        assert!(!c.holds(&ctx("/en-gbexit")));
        assert!(!c.holds(&ctx("/fr/en-gb")));
        let trailing = Condition::StartsWithAny(vec!["/en-gb/".into()]).compile();
        assert!(trailing.holds(&ctx("/en-gb")));
    }

    #[test]
    fn absolute_prefixes_match_the_whole_url() {
        let c = Condition::StartsWithAny(vec!["https://uk.x.com".into()]).compile();
        assert!(c.holds(&ctx("https://uk.x.com/pricing")));
        assert!(!c.holds(&ctx("https://uk.x.company/")));
    }

    #[test]
    fn missing_values_fail_closed() {
        let empty = Context::default();
        for c in [
            Condition::StartsWithAny(vec!["/a".into()]),
            Condition::DoesNotStartWithAny(vec!["/a".into()]),
            Condition::PageUrlNotMatches("x".into()),
            Condition::TurnAtLeast(0),
            Condition::ContextHas("company".into()),
            Condition::Availability {
                skill: "a".into(),
                value: "allowed".into(),
            },
        ] {
            assert!(!c.compile().holds(&empty), "{c:?}");
        }
    }

    #[test]
    fn reads_context_pairs() {
        let c = Context::from_pairs([
            ("page_url", "/x"),
            ("turn", "2"),
            ("content_gating_availability", "allowed"),
            ("company", "Acme"),
        ])
        .unwrap();
        assert_eq!(c.turn, Some(2));
        assert_eq!(c.availability["content_gating"], "allowed");
        assert_eq!(c.values["company"], "Acme");
        assert!(Context::from_pairs([("turn", "x")]).is_err());
    }
}
