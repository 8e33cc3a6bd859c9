//! W121 from git history: a translation without `translated_from` (written before the field
//! existed, or by hand) is stale when the default SKILL.md changed after the last commit that
//! changed the translation. [`stale`] is a pure function of the loaded workspace and the
//! history facts [`crate::git`] read; [`facts`] reads them, at most once per commit of a
//! session (`check` and the studio; a build never reads history, so an artifact never
//! depends on it).
//!
//! A translation with changes not committed yet is taken as written against the default as
//! it is now (no W121 from history): the person editing it sees today's default, and
//! committing both files together gives the same answer.

use std::path::Path;
use std::sync::Arc;

use super::Recall;
use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::git::History;
use crate::model::{Localized, Skill, Workspace};
use crate::parse::fields::Fields;
use crate::parse::load::Texts;
use crate::parse::{frontmatter, text, yaml};

/// The (translation, default) file pairs of the workspace's own folder whose staleness
/// history may tell, when a translation has no `translated_from` (else history has nothing
/// to tell): every translation, so that a `translated_from` added or removed reads no history
/// again. Files of roots outside the folder are not in its history here.
pub(crate) fn wanted(ws: &Workspace) -> Option<Vec<(String, String)>> {
    let unmarked =
        (ws.skills.iter()).any(|s| s.localized.values().any(|l| l.translated_from.is_none()));
    if !unmarked {
        return None;
    }
    let mut pairs: Vec<(String, String)> = (ws.skills.iter())
        .flat_map(|s| {
            s.localized
                .values()
                .map(|l| (l.file.clone(), s.file.clone()))
        })
        .filter(|(t, d)| !t.starts_with("../") && !d.starts_with("../"))
        .collect();
    pairs.sort();
    Some(pairs)
}

/// The history facts of the `wanted` pairs for the workspace at `root`, from the session's
/// memory when HEAD is where it was (a check of unsaved edits does not even ask: HEAD moves
/// by commits, and the next save's check reads it); `None` when history cannot tell (see
/// [`crate::git`]).
pub(crate) fn facts(
    root: &Path,
    wanted: Vec<(String, String)>,
    recall: Recall<'_>,
) -> Option<Arc<History>> {
    let memory = recall.memory().map(|m| &m.history);
    let held = || -> Option<Arc<History>> {
        let held = memory?.lock().ok()?.clone()?;
        (held.wanted == wanted).then_some(held)
    };
    if let (Recall::Draft(_), Some(h)) = (recall, held()) {
        return Some(h);
    }
    let head = crate::git::head(root)?;
    if let Some(h) = held().filter(|h| h.head == head.commit) {
        return Some(h);
    }
    let read = Arc::new(crate::git::history(root, &head, &wanted)?);
    if let Some(mut m) = memory.and_then(|m| m.lock().ok()) {
        *m = Some(read.clone());
    }
    Some(read)
}

/// W121 for each translation of `ws` without `translated_from` that `history` says was last
/// changed against another default text than today's (`texts`: the workspace's decoded
/// files). A copy of the default is W131's, not this.
pub(crate) fn stale(ws: &Workspace, texts: &Texts, history: &History) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let collection = !ws.config.authored;
    for skill in &ws.skills {
        let now = skill.translation_digest();
        for l in skill.localized.values() {
            if l.translated_from.is_some() || l.is_copy_of(skill) {
                continue;
            }
            if let Some(d) = stale_one(skill, l, (&now, collection), texts, history) {
                out.push(d);
            }
        }
    }
    out
}

/// W121 for one translation `l` of `skill`, whose default has the digest `now` (read as a
/// `collection` or not).
fn stale_one(
    skill: &Skill,
    l: &Localized,
    (now, collection): (&str, bool),
    texts: &Texts,
    history: &History,
) -> Option<Diagnostic> {
    let change = history.files.get(&l.file)?;
    let decoded = |file: &str, bytes: &Option<Vec<u8>>| {
        text::decode(file, bytes.as_deref()?).ok().map(|(t, _)| t)
    };
    // Changes not committed yet: written against the default as it is now.
    let committed = decoded(&l.file, &change.at_head)?;
    if texts.get(l.file.as_str()).map(|t| &**t) != Some(committed.as_str()) {
        return None;
    }
    let then = decoded(&skill.file, &change.default_then)?;
    if texts.get(skill.file.as_str()).map(|t| &**t) == Some(then.as_str()) {
        return None;
    }
    let was = digest_of(&skill.file, &then, collection)?;
    if was == now {
        return None;
    }
    let short = &change.commit[..change.commit.len().min(7)];
    Some(
        Diagnostic::new(
            codes::STALE_TRANSLATION,
            &l.file,
            Pos::line(1),
            format!(
                "the `{}` text of `{}` was translated from an older default, as git history tells: the default's description, trigger examples or body changed after commit {short} ({}), the last commit that changed this translation",
                l.locale, skill.name, change.date
            ),
        )
        .with_help(format!(
            "bring the translation up to date, then set `translated_from: {now}` in its frontmatter (the studio does this when you save the translation); history is not read for a translation that says `translated_from`"
        )),
    )
}

/// The translation digest of a default SKILL.md's text, read as the workspace reads its
/// skills (a `collection` sets foreign fields aside); `None` when it cannot be read: a default
/// broken then says nothing of what was translated.
fn digest_of(file: &str, text: &str, collection: bool) -> Option<String> {
    let split = yaml::split_frontmatter(file, text).ok()?;
    let doc = yaml::parse_mapping(file, split.yaml, split.yaml_first_line).ok()?;
    let mut ignored = Vec::new();
    let mut f = Fields {
        file,
        doc: &doc,
        diagnostics: &mut ignored,
    };
    let fm = frontmatter::parse(&mut f, collection);
    Some(crate::model::translation_digest(&fm, split.body))
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;
    use crate::check::Memory;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(["-c", "user.name=Ada", "-c", "user.email=ada@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_sessions_history_is_read_once_a_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(root, "workspace.yaml", "locales: [en, fr]\n");
        write(
            root,
            "g/SKILL.md",
            "---\nname: g\ndescription: Greets.\n---\nHi.\n",
        );
        write(
            root,
            "g/SKILL.fr.md",
            "---\ndescription: Salue.\n---\nSalut.\n",
        );
        git(root, &["init", "-q"]);
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "one"]);
        let ws = crate::parse::load::load_dir(root, None, &[])
            .unwrap()
            .workspace;
        let memory = Memory::default();
        let read = facts(root, wanted(&ws).unwrap(), Recall::Session(&memory)).expect("a history");
        assert_eq!(read.files.len(), 1);
        // What the memory holds for this commit is taken as it is: git is not asked again.
        let marked = Arc::new(History {
            files: Default::default(),
            ..(*read).clone()
        });
        *memory.history.lock().unwrap() = Some(marked.clone());
        let again = facts(root, wanted(&ws).unwrap(), Recall::Session(&memory)).unwrap();
        assert!(Arc::ptr_eq(&again, &marked), "taken from the memory");
        // A new commit reads history again.
        write(
            root,
            "g/SKILL.md",
            "---\nname: g\ndescription: Greets warmly.\n---\nHi.\n",
        );
        git(root, &["commit", "-q", "-am", "two"]);
        let after = facts(root, wanted(&ws).unwrap(), Recall::Session(&memory)).unwrap();
        assert_ne!(after.head, read.head);
        assert_eq!(after.files.len(), 1, "read again");
        // A one-shot check neither takes nor leaves anything.
        assert!(facts(root, wanted(&ws).unwrap(), Recall::OneShot).is_some());
    }
}
