//! A client's version or a variant beside the shared skill it stands in for: what it changes
//! from it (fields and paragraphs, as Review reads a change) and, for a variant, when it is
//! used, in words.

use serde::Serialize;
use skillc::model::{Scope, Skill};

use super::{Session, StudioError};
use crate::docdiff::{document_change, DocChange};

/// A skill beside the one it replaces.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Beside {
    /// The shared skill's name and SKILL.md.
    pub shared_name: String,
    /// Its SKILL.md.
    pub shared_file: String,
    /// `variant` (used where its conditions hold) or `client` (a client's own version).
    #[ts(type = r#""variant" | "client""#)]
    pub kind: &'static str,
    /// A variant's conditions, in words (all must hold).
    pub when: Vec<String>,
    /// What it changes from the shared text (`None`: one side is not a readable SKILL.md).
    pub change: Option<DocChange>,
}

/// The skill `s` stands in for: the one it is a variant of, or the global skill of its name.
fn replaced<'w>(
    skills: &'w [std::sync::Arc<Skill>],
    s: &Skill,
) -> Option<(&'w Skill, &'static str)> {
    if let Some(of) = &s.frontmatter.variant_of {
        let base =
            (skills.iter()).find(|o| o.frontmatter.variant_of.is_none() && o.name == of.text)?;
        return Some((base, "variant"));
    }
    let Scope::Client(_) = s.scope else {
        return None;
    };
    (skills.iter())
        .find(|o| {
            o.scope == Scope::Global && o.name == s.name && o.frontmatter.variant_of.is_none()
        })
        .map(|o| (&**o, "client"))
}

impl Session {
    /// `rel` beside the skill it replaces, or `None` when it replaces none.
    pub fn beside_shared(&self, rel: &str) -> Result<Option<Beside>, StudioError> {
        self.inside(rel)?;
        let report = self.check()?;
        let skills = &report.workspace.skills;
        let Some(s) = skills.iter().find(|s| s.file == rel) else {
            return Err(StudioError::request(format!("`{rel}` is not a skill")));
        };
        let Some((shared, kind)) = replaced(skills, s) else {
            return Ok(None);
        };
        let read = |f: &str| std::fs::read_to_string(self.root.join(f)).ok();
        let when: Vec<String> = s.frontmatter.when.iter().map(|p| p.words()).collect();
        let mut change = document_change(read(&shared.file).as_deref(), read(rel).as_deref());
        // Its conditions in words in the table too, not as the YAML's structure.
        let said = when.join("; ");
        for f in change.iter_mut().flat_map(|c| c.fields.iter_mut()) {
            if f.key == "when" && f.after.is_some() && !said.is_empty() {
                f.after = Some(said.clone());
            }
        }
        Ok(Some(Beside {
            shared_name: shared.name.clone(),
            shared_file: shared.file.clone(),
            kind,
            when,
            change,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn a_clients_version_and_a_variant_are_read_beside_the_shared_skill() {
        let (_d, s) = sample();
        let own = "clients/ibanfirst.com/response_handling/pricing/SKILL.md";
        let b = s.beside_shared(own).unwrap().unwrap();
        assert_eq!((b.kind, b.shared_name.as_str()), ("client", "pricing"));
        assert_eq!(b.shared_file, "public/response_handling/pricing/SKILL.md");
        let change = b.change.unwrap();
        assert!(
            !change.fields.is_empty() || !change.added.is_empty(),
            "{change:?}"
        );
        let variant = s
            .check()
            .unwrap()
            .workspace
            .skills
            .iter()
            .find(|k| k.frontmatter.variant_of.is_some() && !k.frontmatter.when.is_empty())
            .map(|k| k.file.clone())
            .unwrap();
        let b = s.beside_shared(&variant).unwrap().unwrap();
        assert_eq!(b.kind, "variant");
        assert!(!b.when.is_empty(), "its conditions in words");
        // The table of fields says them in the same words, not as JSON.
        let when = (b.change.iter().flat_map(|c| &c.fields))
            .find(|f| f.key == "when")
            .and_then(|f| f.after.clone())
            .unwrap();
        assert_eq!(when, b.when.join("; "));
        assert!(!when.contains('{'), "{when}");
        assert_eq!(
            s.beside_shared("public/response_handling/pricing/SKILL.md")
                .unwrap(),
            None
        );
    }
}
