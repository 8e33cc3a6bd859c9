//! A skill's translations (`SKILL.<locale>.md`) for the studio: which of the workspace's
//! locales have one, which are stale (made from an older default text: the compiler's W121
//! measure) and which are missing; and a new translation started from the default text.

use serde::Serialize;
use skillc::model::Skill;
use skillc::Workspace;

use crate::error::StudioError;

/// One locale of a skill.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Translation {
    /// The locale.
    pub locale: String,
    /// Its file (where it would be, when missing).
    pub file: String,
    /// `current` (made from today's default text), `stale` (from an older one), `unmarked`
    /// (no `translated_from`: nobody said which text it follows) or `missing`.
    pub state: &'static str,
}

/// The translations of one skill, and what a translation saved now is made from.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
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
pub fn of(ws: &Workspace, file: &str) -> Option<Translations> {
    let (skill, open_locale) = owner(ws, file)?;
    let digest = skill.translation_digest();
    let locales = ws
        .config
        .locales
        .iter()
        .filter(|l| **l != ws.config.default_locale)
        .map(|locale| match skill.localized.get(locale) {
            Some(l) => Translation {
                locale: locale.clone(),
                file: l.file.clone(),
                state: match &l.translated_from {
                    Some((d, _)) if *d == digest => "current",
                    Some(_) => "stale",
                    None => "unmarked",
                },
            },
            None => Translation {
                locale: locale.clone(),
                file: translation_file(skill, locale),
                state: "missing",
            },
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
    let t = of(ws, file).ok_or_else(|| StudioError::request(format!("`{file}` is not a skill")))?;
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
