//! What a session's loads keep between them: the files read (with the folder walk a watcher
//! can vouch for) and the parse of every skill folder, taken again while its files are unchanged.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use super::{Loaded, Texts};
use crate::diagnostic::Diagnostic;
use crate::discover::fsio;
use crate::discover::fsio::RawFile;
use crate::discover::layout::SkillDir;
use crate::model::{Skill, WorkspaceConfig};
/// What earlier loads of the same workspace read and parsed (`watch`, Skill Studio).
#[derive(Debug, Default)]
pub struct LoadCache {
    pub(super) read: fsio::ReadCache,
    pub(super) parsed: ParseCache,
    /// The workspace's files as the last load found them on disk (drafts not applied).
    pub(super) tree: Option<fsio::Tree>,
    /// The next load may take `tree` instead of walking the folder, reading again only these
    /// files (workspace-relative paths).
    pub(super) trust_tree: Option<Vec<String>>,
}

impl LoadCache {
    /// The caller watches the workspace and knows nothing in it changed since the last load:
    /// the next load takes that load's files instead of walking the folder again (10,000
    /// `stat` calls on the reference workload, a third of a keystroke's check in the studio).
    pub fn assume_unchanged(&mut self) {
        self.assume_changed_only([]);
    }

    /// The caller watches the workspace and knows that since the last load only the contents
    /// of `files` (workspace-relative, `/`-separated) changed: the next load takes that load's
    /// files and reads only these again. When one of them is not a file the last load read (a
    /// new file, a folder), or is gone, or some file is read through a symbolic link (whose
    /// target can change under another name), the next load walks the folder after all.
    pub fn assume_changed_only(&mut self, files: impl IntoIterator<Item = String>) {
        // Added to what a load that failed before taking them was told.
        self.trust_tree.get_or_insert_with(Vec::new).extend(files);
    }

    /// The caller has nothing to do until the next change: the next load's copy of this one
    /// is made now, on a thread of its own, instead of while a person waits for the artifact.
    /// On the reference workload that copy (500 clients, 7,000 diagnostics, 4,560 texts)
    /// took 5-10 ms warm and 25-100 ms with memory gone cold after seconds of quiet.
    pub fn prepare_next(&mut self) {
        if let Some(last) = &mut self.parsed.last {
            if last.spare.is_none() {
                let loaded = Arc::clone(&last.loaded);
                last.spare = Some(std::thread::spawn(move || Loaded::clone(&loaded)));
            }
        }
    }

    /// The last load's files with `changed` read again, if that is the workspace as it is.
    pub(super) fn trusted_tree(&mut self, root: &Path) -> Option<fsio::Tree> {
        let changed = self.trust_tree.take()?;
        // Taken, not copied: the load puts the tree it used back.
        let mut tree = self.tree.take()?;
        if tree.linked && !changed.is_empty() {
            return None;
        }
        // Every other file is as the last load read and parsed it.
        tree.unchanged = fsio::Unchanged::AllBut(Default::default());
        for rel in &changed {
            let Ok(i) = tree.files.binary_search_by(|f| f.rel.as_str().cmp(rel)) else {
                // Neither read last time nor there now (an editor's short-lived file).
                let gone = std::fs::symlink_metadata(root.join(rel))
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
                if gone {
                    continue;
                }
                return None;
            };
            let (content, same) = self.read.read(
                &root.join(rel),
                !crate::discover::fsio::large::may_have_role(rel),
            );
            if matches!(
                content,
                fsio::FileContent::Unreadable(_) | fsio::FileContent::Artifact
            ) {
                return None;
            }
            if !same {
                tree.unchanged.remove(rel);
            }
            tree.files[i].content = content;
        }
        Some(tree)
    }
}

/// What the loads of a batched build share, as every batch loads the files outside client
/// folders again: those files' digests as last read, and the parses of their skill folders.
/// A file read again with the same bytes is unchanged, and a folder of unchanged files is not
/// parsed again (a 5,000-client build parsed its thousand global skills twenty times).
#[derive(Debug, Default)]
pub(crate) struct BatchLoads {
    digests: HashMap<String, [u8; 32]>,
    pub(super) parsed: ParseCache,
}

impl BatchLoads {
    /// The files of `files` that `shared` selects whose bytes are those the last load read;
    /// each one's digest is kept for the next load.
    pub(super) fn unchanged(
        &mut self,
        files: &[RawFile],
        shared: &(dyn Fn(&str) -> bool + Sync),
    ) -> fsio::Unchanged {
        use rayon::prelude::*;
        let read: Vec<(&str, [u8; 32])> = (files.par_iter())
            .filter(|f| shared(&f.rel))
            .filter_map(|f| Some((f.rel.as_str(), digest(&f.content)?)))
            .collect();
        let mut same = std::collections::HashSet::new();
        let mut next = HashMap::with_capacity(read.len());
        for (rel, d) in read {
            if self.digests.get(rel) == Some(&d) {
                same.insert(rel.to_string());
            }
            next.insert(rel.to_string(), d);
        }
        self.digests = next;
        fsio::Unchanged::Only(same)
    }
}

/// The SHA-256 of a file's bytes, if it was read (a large file's, taken as it was streamed).
fn digest(content: &fsio::FileContent) -> Option<[u8; 32]> {
    use sha2::{Digest, Sha256};
    match content {
        fsio::FileContent::Bytes(b) => Some(Sha256::digest(b).into()),
        fsio::FileContent::Large(l) => Some(l.sha256),
        _ => None,
    }
}

/// A parsed skill folder: the skill (if it parsed), its diagnostics and its texts.
pub(super) type Parsed = (Option<Arc<Skill>>, Vec<Diagnostic>, Texts);

/// What a skill's parse reads besides its own folder.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ParseContext {
    pub(super) config: WorkspaceConfig,
    pub(super) categories: BTreeMap<String, crate::model::Category>,
    pub(super) plugins: Vec<crate::model::Plugin>,
    pub(super) category_dirs: BTreeMap<String, String>,
    pub(super) root_name: String,
}

/// Skills parsed by the previous load, by folder, with the files each was parsed from.
#[derive(Debug, Default)]
pub(super) struct ParseCache {
    pub(super) context: Option<ParseContext>,
    pub(super) skills: HashMap<String, (Vec<String>, Arc<Parsed>)>,
    /// The settings the clients were parsed with.
    pub(super) client_config: Option<WorkspaceConfig>,
    /// Each `client.yaml`'s parse, by relative path.
    pub(super) clients: HashMap<String, Arc<ClientParse>>,
    /// The last load from the files on disk, to patch when only files inside skill folders
    /// changed since (see [`patch_last`]).
    pub(super) last: Option<LastLoad>,
}

/// The files of a skill folder.
pub(super) fn files_of<'d>(dir: &'d SkillDir<'_>) -> impl Iterator<Item = &'d RawFile> {
    [Some(dir.main), dir.shadowed]
        .into_iter()
        .flatten()
        .chain(dir.files.iter().map(|(_, f)| *f))
}

/// The files of a skill folder, by relative path, sorted.
pub(super) fn dir_files(dir: &SkillDir<'_>) -> Vec<String> {
    let mut rels: Vec<String> = files_of(dir).map(|f| f.rel.clone()).collect();
    rels.sort();
    rels
}

impl ParseCache {
    /// The previous parse of `dir`, if the settings it read are the same (`same_context`) and
    /// it has the same files, each read unchanged.
    pub(super) fn reuse(
        &self,
        same_context: bool,
        dir: &SkillDir<'_>,
        unchanged: &fsio::Unchanged,
    ) -> Option<Arc<Parsed>> {
        if !same_context {
            return None;
        }
        let (files, parsed) = self.skills.get(&dir.dir)?;
        // `files` is sorted and a folder's files are distinct: the same count, each of them
        // among `files`, is the same files.
        let mut count = 0;
        for f in files_of(dir) {
            count += 1;
            let known = files.binary_search_by(|k| k.as_str().cmp(&f.rel)).is_ok();
            if !known || !unchanged.contains(&f.rel) {
                return None;
            }
        }
        (count == files.len()).then(|| parsed.clone())
    }

    /// Drops the parses that read any of `files`.
    pub(super) fn forget_files(&mut self, files: &[RawFile]) {
        self.skills
            .retain(|_, (read, _)| !files.iter().any(|f| read.contains(&f.rel)));
        for f in files {
            self.clients.remove(&f.rel);
        }
    }

    /// Keeps this load's parses for the next one: in place when the settings are the same
    /// (`same_context`), as only the parses not `reused` from it are new.
    pub(super) fn keep(
        &mut self,
        context: ParseContext,
        same_context: bool,
        dirs: &[&SkillDir<'_>],
        parsed: &[(Arc<Parsed>, bool)],
    ) {
        if !same_context {
            self.context = Some(context);
            self.skills.clear();
        }
        for (d, (p, reused)) in dirs.iter().zip(parsed) {
            if !reused {
                self.skills.insert(d.dir.clone(), (dir_files(d), p.clone()));
            }
        }
        // Every folder of this load is in; any other is a folder gone since.
        if self.skills.len() != dirs.len() {
            let now: std::collections::HashSet<&str> =
                dirs.iter().map(|d| d.dir.as_str()).collect();
            self.skills.retain(|dir, _| now.contains(dir.as_str()));
        }
    }
}

/// A `client.yaml` parsed: the client, the file's diagnostics and its text.
#[derive(Debug)]
pub(super) struct ClientParse {
    pub(super) client: crate::model::Client,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) text: Option<Arc<str>>,
}

/// A load as [`super::patch::patch_last`] patches it: the result, and how it was put together.
#[derive(Debug)]
pub(super) struct LastLoad {
    /// Shared with the thread making [`LastLoad::spare`].
    pub(super) loaded: Arc<Loaded>,
    /// A copy of `loaded` being made ahead, while the session waits for the next edit (see
    /// [`LoadCache::prepare_next`]): the patched load handed out.
    pub(super) spare: Option<std::thread::JoinHandle<Loaded>>,
    /// The diagnostics before the skills' (settings, clients, categories); the walk's follow
    /// the skills'.
    pub(super) head: Vec<Diagnostic>,
    /// Each skill folder, the prefix of the root it was classified under (`""` for the
    /// workspace's own) and its parse, in folder order.
    pub(super) dirs: Vec<(String, String, Arc<Parsed>)>,
    /// Each folder's place in `dirs`.
    pub(super) dir_index: HashMap<String, usize>,
    pub(super) category_dirs: BTreeMap<String, String>,
    pub(super) root_name: String,
}
