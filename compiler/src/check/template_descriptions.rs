//! Template descriptions (W132): many skills whose descriptions are one sentence around each
//! skill's name ("Automate Ably tasks via Rube MCP", "Automate Brex tasks via Rube MCP", …).
//! Such a description tells a selector which app a skill is for and nothing of what the app
//! does, so a request that names the task but not the app ("purge the cdn cache") finds none of
//! them by its catalog line. Measured on a public tool catalog of 860 skills, 721 of them one
//! template: requests naming their app reached it first 0.84 of the time, requests naming only
//! the task 0.36 (docs/routing.md).

use std::collections::{BTreeSet, HashMap};

use crate::diagnostic::{codes, Diagnostic};
use crate::model::{Skill, Workspace};

use super::catalogs::listed;

/// Fewest skills that share a description but for their names to be reported: two or three
/// alike are near-duplicates (W118's concern), five or more a template.
pub(crate) const MIN_SKILLS: usize = 5;

/// How many of a template's other skills the warning names.
const NAMED: usize = 3;

/// A text's words: its runs of letters and digits.
fn parts(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// A text's words, lowercased as [`lower_into`] lowercases (character by character).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    parts(text).map(|w| w.chars().flat_map(char::to_lowercase).collect())
}

/// The words a skill is called by: those of its name (not its folder's, which a collection
/// may prefix with its own: `composio-skills-ably-automation`).
fn name_words(s: &Skill) -> BTreeSet<String> {
    words(&s.name).collect()
}

fn description(s: &Skill) -> &str {
    s.frontmatter.description.as_deref().unwrap_or("").trim()
}

/// A lowercased description's words joined by spaces, with the skill's name words (`names`)
/// left out, when it holds at least one of them (a sentence written around the name); None
/// otherwise.
fn around_name(names: &BTreeSet<String>, lowered: &str) -> Option<String> {
    let mut named = false;
    let mut rest = String::with_capacity(lowered.len());
    for w in parts(lowered) {
        if names.contains(w) {
            named = true;
        } else {
            if !rest.is_empty() {
                rest.push(' ');
            }
            rest.push_str(w);
        }
    }
    named.then_some(rest)
}

/// `text` lowercased into `out`.
fn lower_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
    } else {
        out.extend(text.chars().flat_map(char::to_lowercase));
    }
}

/// A description as the template it follows: each run of the name words (`names`), with the
/// spaces, `-` and `_` between them, written `…`.
fn template_of(names: &BTreeSet<String>, description: &str) -> String {
    let mut out = String::new();
    // What came since the last word, and whether that word was a name's.
    let mut between = String::new();
    let mut after_name = false;
    let mut rest = description;
    while let Some(c) = rest.chars().next() {
        let len = rest
            .find(|d: char| d.is_alphanumeric() != c.is_alphanumeric())
            .unwrap_or(rest.len());
        let (token, tail) = rest.split_at(len);
        rest = tail;
        if !c.is_alphanumeric() {
            between.push_str(token);
            continue;
        }
        let is_name = words(token).next().is_some_and(|w| names.contains(&w));
        let joins = after_name
            && is_name
            && between
                .chars()
                .all(|d| d.is_whitespace() || "-_".contains(d));
        if !joins {
            out.push_str(&between);
            out.push_str(if is_name { "…" } else { token });
        }
        between.clear();
        after_name = is_name;
    }
    out.push_str(&between);
    out
}

/// The templates that [`MIN_SKILLS`] or more listed skills share: each the indices into
/// `ws.skills` of its skills, in workspace order, a client's skill of a global skill's name,
/// written alike, among them (the same skill, counted once); the templates in workspace order
/// of their first skills.
pub(crate) fn templates(ws: &Workspace) -> Vec<Vec<usize>> {
    let mut by_template: HashMap<String, Vec<usize>> = HashMap::new();
    // Most descriptions hold no word of their name at all: seen without splitting them, in
    // their lowercase (one buffer for all).
    let (mut lowered, mut name) = (String::new(), String::new());
    for (i, s) in ws.skills.iter().enumerate() {
        let text = description(s);
        lower_into(text, &mut lowered);
        lower_into(&s.name, &mut name);
        if !parts(&name).any(|n| lowered.contains(n)) || !listed(ws, s) {
            continue;
        }
        if let Some(key) = around_name(&name_words(s), &lowered) {
            by_template.entry(key).or_default().push(i);
        }
    }
    let mut templates: Vec<Vec<usize>> = (by_template.into_values())
        .filter(|v| {
            let names: BTreeSet<&str> = v.iter().map(|&i| ws.skills[i].name.as_str()).collect();
            names.len() >= MIN_SKILLS
        })
        .collect();
    // In workspace order (by each template's first skill), whatever the map's.
    templates.sort_by_key(|v| (&ws.skills[v[0]].file, &ws.skills[v[0]].name));
    templates
}

/// Which template of [`templates`] each skill of `ws` follows, by index into `ws.skills`.
pub(crate) fn template_of_each(ws: &Workspace) -> Vec<Option<usize>> {
    let mut of = vec![None; ws.skills.len()];
    for (t, skills) in templates(ws).into_iter().enumerate() {
        for i in skills {
            of[i] = Some(t);
        }
    }
    of
}

/// W132: one warning per template that [`MIN_SKILLS`] or more listed skills share, at the
/// description of the first of them in workspace order.
pub(crate) fn warnings(ws: &Workspace) -> Vec<Diagnostic> {
    let templates = templates(ws).into_iter().map(|v| {
        // Each skill once: a client's copy of a global skill is not another.
        let mut seen = BTreeSet::new();
        let skills: Vec<&Skill> = v.iter().map(|&i| &*ws.skills[i]).collect();
        skills
            .into_iter()
            .filter(|s| seen.insert(s.name.as_str()))
            .collect::<Vec<&Skill>>()
    });
    let mut out = Vec::new();
    for skills in templates {
        let first = skills[0];
        let others: Vec<String> = (skills[1..].iter().take(NAMED))
            .map(|s| format!("`{}`", s.name))
            .collect();
        let more = skills.len() - 1 - others.len();
        let others = match more {
            0 => others.join(", "),
            n => format!("{}, and {n} more", others.join(", ")),
        };
        out.push(
            Diagnostic::new(
                codes::TEMPLATE_DESCRIPTION,
                &first.file,
                first.description_pos,
                format!(
                    "`{}` and {} other skills ({others}) have one description but for their names (\"{}\"): it says which skill each is, not what it does, so a request that names the task but not the skill finds none of them by it",
                    first.name,
                    skills.len() - 1,
                    template_of(&name_words(first), description(first))
                ),
            )
            .with_help("say in each description what the skill does and for which tasks, in the words visitors use for them"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_of(name: &str) -> BTreeSet<String> {
        words(name).collect()
    }

    #[test]
    fn a_template_is_the_description_with_each_run_of_name_words_left_out() {
        let sheets = names_of("google-sheets");
        let text = "Automate Google Sheets tasks via the hub (Google-Sheets, sheets).";
        assert_eq!(
            around_name(&sheets, &text.to_lowercase()).as_deref(),
            Some("automate tasks via the hub")
        );
        assert_eq!(
            template_of(&sheets, text),
            "Automate … tasks via the hub (…, …)."
        );
        // Any case of any script, lowered the same way for the name and the description.
        let (mut lowered, text) = (String::new(), "Automate ÜBERWEISUNG-Hub tasks");
        lower_into(text, &mut lowered);
        let names = names_of("Überweisung hub");
        assert_eq!(
            around_name(&names, &lowered).as_deref(),
            Some("automate tasks")
        );
        assert_eq!(template_of(&names, text), "Automate … tasks");
        // A description that never says the name is not written around it.
        assert_eq!(
            around_name(&names_of("brex"), "track company spending"),
            None
        );
    }
}
