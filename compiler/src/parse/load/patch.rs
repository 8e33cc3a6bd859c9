//! Patching the last load of a session after edits inside skill folders, instead of
//! loading the whole workspace again.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::cache::{dir_files, LastLoad, ParseCache, Parsed};
use super::skill::load_skill;
use super::{read_apart, root_prefix, Loaded};
use crate::diagnostic::Diagnostic;
use crate::discover::fsio::{self, RawFile};
use crate::discover::layout;
use crate::model::Skill;

/// Each skill folder with the prefix of its root and its parse, as [`LastLoad`] keeps them.
pub(super) fn folder_parses(
    skill_dirs: &[&layout::SkillDir<'_>],
    bases: &[&str],
    parsed: &[Arc<Parsed>],
) -> Vec<(String, String, Arc<Parsed>)> {
    let folders = skill_dirs.iter().zip(bases).zip(parsed);
    folders
        .map(|((d, base), p)| (d.dir.clone(), base.to_string(), p.clone()))
        .collect()
}

impl LastLoad {
    pub(super) fn new(
        loaded: &Loaded,
        head: Vec<Diagnostic>,
        dirs: Vec<(String, String, Arc<Parsed>)>,
        category_dirs: BTreeMap<String, String>,
        root_name: &str,
    ) -> Self {
        let dir_index = dirs
            .iter()
            .enumerate()
            .map(|(i, (dir, _, _))| (dir.clone(), i))
            .collect();
        LastLoad {
            loaded: Arc::new(loaded.clone()),
            spare: None,
            head,
            dirs,
            dir_index,
            category_dirs,
            root_name: root_name.to_string(),
        }
    }

    /// The walk's diagnostics, added after the load's own.
    pub(super) fn set_tail(&mut self, tail: &[Diagnostic]) {
        Arc::make_mut(&mut self.loaded)
            .diagnostics
            .extend_from_slice(tail);
    }

    /// The skill folder holding the file `rel`, if it is an ordinary file of one (not a file
    /// with a role of its own in the workspace, which only a full load places).
    fn folder_of(&self, rel: &str) -> Option<usize> {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let roles = [
            "workspace.yaml",
            "variables.json",
            "client.yaml",
            "CATEGORY.md",
        ];
        if roles.contains(&name) || rel.starts_with("templates/") {
            return None;
        }
        let mut dir = rel;
        while let Some((up, _)) = dir.rsplit_once('/') {
            if let Some(&i) = self.dir_index.get(up) {
                return Some(i);
            }
            dir = up;
        }
        None
    }
}

/// The last load with the skill folders whose files changed (`unchanged` names every other
/// file) parsed again, when nothing else can have changed: the same files are there, and
/// only ordinary files of known skill folders changed. `None`: a full load is needed. After a
/// body edit, putting the whole workspace together again was a seventh of a rebuild of the
/// reference workload (sorting 4,560 files into folders, merging 3,500 parses).
pub(super) fn patch_last(
    cache: &mut ParseCache,
    tree: &fsio::Tree,
    unchanged: &fsio::Unchanged,
) -> Option<Loaded> {
    let fsio::Unchanged::AllBut(changed) = unchanged else {
        return None;
    };
    let last = cache.last.as_ref()?;
    // A collection's skills may be renamed after their folders across folders
    // (`collection::tell_apart_by_folder`): loaded whole.
    if !last.loaded.workspace.config.authored {
        return None;
    }
    // Files outside the workspace are read on every full load.
    if last
        .loaded
        .workspace
        .config
        .roots
        .values()
        .any(|p| read_apart(&root_prefix(p)))
    {
        return None;
    }
    let mut folders: Vec<usize> = Vec::new();
    for rel in changed {
        folders.push(last.folder_of(rel)?);
    }
    folders.sort_unstable();
    folders.dedup();
    let mut last = cache.last.take()?;
    // The copy made ahead, if any, is patched beside the kept load and handed out. Joined
    // first: the kept load is then no longer shared, and is patched in place.
    let mut spare = last.spare.take().and_then(|copying| copying.join().ok());
    for i in folders {
        let (files, fresh) = reparse(&last, tree, i)?;
        let (dir, _, before) = &last.dirs[i];
        cache.skills.insert(dir.clone(), (files, fresh.clone()));
        // Its diagnostics sit after the head's and those of the folders before it.
        let diagnostics = (before.1 != fresh.1).then(|| {
            let before_it: usize = last.dirs[..i].iter().map(|d| d.2 .1.len()).sum();
            let at = last.head.len() + before_it;
            at..at + before.1.len()
        });
        let kept = Arc::make_mut(&mut last.loaded);
        for loaded in std::iter::once(kept).chain(spare.as_mut()) {
            replace_parse(loaded, before, &fresh);
            if let Some(range) = &diagnostics {
                let new = fresh.1.iter().cloned();
                loaded.diagnostics.splice(range.clone(), new);
            }
        }
        last.dirs[i].2 = fresh;
    }
    let loaded = spare.unwrap_or_else(|| Loaded::clone(&last.loaded));
    cache.last = Some(last);
    Some(loaded)
}

/// Skill folder `i` of the last load parsed again from `tree`: its sorted file list (as the
/// parse cache keeps it) and its parse; `None` if its files no longer make that one folder.
fn reparse(last: &LastLoad, tree: &fsio::Tree, i: usize) -> Option<(Vec<String>, Arc<Parsed>)> {
    let (dir, base, _) = &last.dirs[i];
    let inside = format!("{dir}/");
    let start = tree
        .files
        .partition_point(|f| f.rel.as_str() < inside.as_str());
    let files: Vec<RawFile> = tree.files[start..]
        .iter()
        .take_while(|f| f.rel.starts_with(&inside))
        .cloned()
        .collect();
    let layout = layout::classify(&files, base);
    let [skill_dir] = layout.skills.as_slice() else {
        return None;
    };
    if skill_dir.dir != *dir {
        return None;
    }
    let mut diags = Vec::new();
    let mut texts = BTreeMap::new();
    let ws = &last.loaded.workspace;
    let skill = load_skill(
        skill_dir,
        &last.root_name,
        ws,
        &last.category_dirs,
        &mut diags,
        &mut texts,
    );
    Some((
        dir_files(skill_dir),
        Arc::new((skill.map(Arc::new), diags, texts)),
    ))
}

/// Puts the parse `now` of a skill folder in place of `before` in `loaded` (its skill among
/// the sorted skills, its texts).
fn replace_parse(loaded: &mut Loaded, before: &Parsed, now: &Parsed) {
    let skills = &mut loaded.workspace.skills;
    let place = |skills: &[Arc<Skill>], x: &Skill| {
        skills.binary_search_by(|s| (&s.scope, &s.file).cmp(&(&x.scope, &x.file)))
    };
    if let Some(old) = &before.0 {
        if let Ok(at) = place(skills, old) {
            skills.remove(at);
        }
    }
    if let Some(new) = &now.0 {
        let at = place(skills, new).unwrap_or_else(|at| at);
        skills.insert(at, new.clone());
    }
    for rel in before.2.keys() {
        loaded.texts.remove(rel);
    }
    for (rel, text) in &now.2 {
        loaded.texts.insert(rel.clone(), text.clone());
    }
}
