//! A skill's translations (`SKILL.<locale>.md`) for the studio: which of the workspace's
//! locales have one, which are stale (made from an older default text: the compiler's W121
//! measure) and which are missing; and a new translation started from the default text.

use serde::Serialize;
use skillc::model::Skill;
use skillc::Workspace;

use crate::error::StudioError;

/// One locale of a skill.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Translation {
    /// The locale.
    pub locale: String,
    /// Its file (where it would be, when missing).
    pub file: String,
    /// `untranslated` (still the default's words: a copy nobody has translated yet),
    /// `current` (made from today's default text), `stale` (from an older one), `unmarked`
    /// (no `translated_from`: nobody said which text it follows) or `missing`.
    #[ts(type = r#""untranslated" | "current" | "stale" | "unmarked" | "missing""#)]
    pub state: &'static str,
    /// The clients whose visitors are served this locale (besides visitors of no client, who
    /// are served every locale of the workspace).
    pub serving: Vec<String>,
}

/// A translation's state: a copy of the default's words (`copy`, the compiler's
/// `Localized::is_copy_of`, which `check` reports as W131) is `untranslated` whatever it says
/// it was made from; else `current` when made from today's default (`digest`), `stale` from an
/// older one (W121), `unmarked` when it does not say.
pub fn state(copy: bool, digest: &str, translated_from: Option<&str>) -> &'static str {
    match translated_from {
        _ if copy => "untranslated",
        Some(d) if d == digest => "current",
        Some(_) => "stale",
        None => "unmarked",
    }
}

/// The clients served `locale`: those whose `locales` name it, and those without `locales`
/// (served the workspace's) when the workspace's do.
pub fn serving<'a>(
    locale: &str,
    clients: impl IntoIterator<Item = (&'a str, Option<&'a [String]>)>,
    workspace: &[String],
) -> Vec<String> {
    (clients.into_iter())
        .filter(|(_, own)| own.unwrap_or(workspace).iter().any(|l| l == locale))
        .map(|(id, _)| id.to_string())
        .collect()
}

/// The translations of one skill, and what a translation saved now is made from.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Translations {
    /// The skill's name.
    pub name: String,
    /// Its default SKILL.md.
    pub default_file: String,
    /// The workspace's default locale (the default text's language).
    pub default_locale: String,
    /// The default text's digest: a translation saved now says `translated_from: <this>`.
    pub digest: String,
    /// Every other locale of the workspace, in its order.
    pub locales: Vec<Translation>,
    /// The locale of the file asked about, when it is a translation.
    pub open_locale: Option<String>,
}

/// The skill `file` belongs to: its SKILL.md or one of its translations.
fn owner<'a>(ws: &'a Workspace, file: &str) -> Option<(&'a Skill, Option<String>)> {
    ws.skills.iter().find_map(|s| {
        if s.file == file {
            return Some((&**s, None));
        }
        let l = s.localized.values().find(|l| l.file == file)?;
        Some((&**s, Some(l.locale.clone())))
    })
}

/// The translations of the skill that `file` (its SKILL.md or a translation) belongs to.
/// `stale_by_history`: the translation files `check` found stale by git history (W121 of a
/// translation without `translated_from`): unmarked by their text, stale by their commits.
pub fn of(
    ws: &Workspace,
    file: &str,
    stale_by_history: &dyn Fn(&str) -> bool,
) -> Option<Translations> {
    let (skill, open_locale) = owner(ws, file)?;
    let digest = skill.translation_digest();
    let clients = || (ws.clients.values()).map(|c| (c.id.as_str(), c.locales.as_deref()));
    let locales = ws
        .config
        .locales
        .iter()
        .filter(|l| **l != ws.config.default_locale)
        .map(|locale| {
            let serving = serving(locale, clients(), &ws.config.locales);
            match skill.localized.get(locale) {
                Some(l) => Translation {
                    locale: locale.clone(),
                    file: l.file.clone(),
                    state: match state(
                        l.is_copy_of(skill),
                        &digest,
                        l.translated_from.as_ref().map(|(d, _)| d.as_str()),
                    ) {
                        "unmarked" if stale_by_history(&l.file) => "stale",
                        said => said,
                    },
                    serving,
                },
                None => Translation {
                    locale: locale.clone(),
                    file: translation_file(skill, locale),
                    state: "missing",
                    serving,
                },
            }
        })
        .collect();
    Some(Translations {
        name: skill.name.clone(),
        default_file: skill.file.clone(),
        default_locale: ws.config.default_locale.clone(),
        digest,
        locales,
        open_locale,
    })
}

fn translation_file(skill: &Skill, locale: &str) -> String {
    let dir = skill.file.rsplit_once('/').map_or("", |(d, _)| d);
    if dir.is_empty() {
        format!("SKILL.{locale}.md")
    } else {
        format!("{dir}/SKILL.{locale}.md")
    }
}

/// The text of a new translation: the default's translatable fields and body, to be
/// translated in place, marked as made from today's default.
pub fn starting_text(
    ws: &Workspace,
    file: &str,
    locale: &str,
) -> Result<(String, String), StudioError> {
    let t = of(ws, file, &|_| false)
        .ok_or_else(|| StudioError::request(format!("`{file}` is not a skill")))?;
    let Some(slot) = t.locales.iter().find(|l| l.locale == locale) else {
        return Err(StudioError::request(format!(
            "`{locale}` is not one of the workspace's other locales ({})",
            t.locales
                .iter()
                .map(|l| l.locale.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    if slot.state != "missing" {
        return Err(StudioError::request(format!(
            "`{}` exists already",
            slot.file
        )));
    }
    let (skill, _) = owner(ws, file).ok_or_else(|| StudioError::request("no skill"))?;
    let fm = &skill.frontmatter;
    let mut text = format!("---\n---\n{}", skill.body);
    let mut fields = vec![(
        "description",
        serde_json::json!(fm.description.clone().unwrap_or_default()),
    )];
    if !fm.trigger_examples.is_empty() {
        fields.push(("trigger_examples", serde_json::json!(fm.trigger_examples)));
    }
    if !fm.when_to_use.is_empty() {
        fields.push(("when_to_use", serde_json::json!(fm.when_to_use)));
    }
    fields.push(("translated_from", serde_json::json!(t.digest)));
    for (field, value) in fields {
        text = crate::form::set_field(&text, field, Some(&value))?;
    }
    Ok((slot.file.clone(), text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_untranslated_whatever_it_says_it_follows() {
        assert_eq!(state(true, "d1", Some("d1")), "untranslated");
        assert_eq!(state(true, "d1", Some("d0")), "untranslated");
        assert_eq!(state(true, "d1", None), "untranslated");
        assert_eq!(state(false, "d1", Some("d1")), "current");
        assert_eq!(state(false, "d1", Some("d0")), "stale");
        assert_eq!(state(false, "d1", None), "unmarked");
    }

    #[test]
    fn a_locale_is_served_to_the_clients_that_name_it_or_take_the_workspaces() {
        let workspace = ["en".to_string(), "de".to_string()];
        let own = ["en".to_string(), "fr".to_string()];
        let clients = [
            ("a.com", None),
            ("b.com", Some(&own[..])),
            ("c.com", Some(&workspace[..1])),
        ];
        assert_eq!(serving("de", clients, &workspace), ["a.com"]);
        assert_eq!(serving("fr", clients, &workspace), ["b.com"]);
        assert_eq!(
            serving("en", clients, &workspace),
            ["a.com", "b.com", "c.com"]
        );
    }
}
