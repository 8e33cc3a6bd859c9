//! What changed on disk since the studio last looked: the watcher's reports, told apart from
//! the studio's own saves, so checks and builds read again only the files that changed.

use crate::session::hash;
use crate::session::BTreeSet;
use crate::Path;

/// What the studio knows of changes on disk. The folder's watcher reports every change; until
/// it runs (or when it cannot), every check and every build walks the folder.
#[derive(Debug)]
pub struct DiskWatch {
    pub(super) watching: std::sync::atomic::AtomicBool,
    /// What changed since the checks, and since the builds, last looked.
    pub(super) since: std::sync::Mutex<[Seen; 2]>,
    /// The files the studio saved, with the digest of what it wrote: the watcher's report of
    /// a save is not news to the page (it rebuilt already).
    pub(super) saved: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

/// What changed on disk since a reader last looked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Seen {
    /// These files (workspace-relative; none: nothing changed).
    Files(BTreeSet<String>),
    /// Anything: the folder must be walked.
    Anything,
}

/// The readers of [`DiskWatch`].
#[derive(Debug, Clone, Copy)]
pub(super) enum Reader {
    Checks = 0,
    Builds = 1,
}

/// Reports the session's own write when it is over, whichever way it ends: the files it names,
/// or (none named) anything.
pub(super) struct WritesOnDisk<'a>(pub(super) &'a DiskWatch, pub(super) Option<&'a str>);

impl Drop for WritesOnDisk<'_> {
    fn drop(&mut self) {
        match self.1 {
            Some(file) => self.0.files_changed([file.to_string()]),
            None => self.0.changed(),
        }
    }
}

impl DiskWatch {
    /// The folder is watched from now on.
    pub fn watching(&self) {
        self.changed();
        self.watching
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Anything in the folder may have changed (events were lost, the studio moved files).
    pub fn changed(&self) {
        if let Ok(mut since) = self.since.lock() {
            *since = [Seen::Anything, Seen::Anything];
        }
    }

    /// These files changed (workspace-relative, `/`-separated).
    pub fn files_changed(&self, files: impl IntoIterator<Item = String>) {
        let files: Vec<String> = files.into_iter().collect();
        if let Ok(mut since) = self.since.lock() {
            for seen in since.iter_mut() {
                if let Seen::Files(known) = seen {
                    known.extend(files.iter().cloned());
                }
            }
        }
    }

    /// The studio saved `file` (workspace-relative) with content of this digest.
    pub(super) fn saved(&self, file: &str, digest: String) {
        if let Ok(mut saved) = self.saved.lock() {
            saved.insert(file.to_string(), digest);
        }
    }

    /// Whether `file` (workspace-relative, at `path`) holds what the studio saved there last:
    /// a change the watcher reports for it is the studio's own save. Another content (someone
    /// else's edit) ends that, and so does a file gone.
    pub fn is_own_save(&self, file: &str, path: &Path) -> bool {
        let Ok(mut saved) = self.saved.lock() else {
            return false;
        };
        let Some(digest) = saved.get(file) else {
            return false;
        };
        let same = std::fs::read(path).is_ok_and(|bytes| hash(&bytes) == *digest);
        if !same {
            saved.remove(file);
        }
        same
    }

    /// What changed since `reader` last looked (everything while the folder is not watched).
    pub(super) fn look(&self, reader: Reader) -> Seen {
        use std::sync::atomic::Ordering::SeqCst;
        let fresh = Seen::Files(BTreeSet::new());
        let seen = match self.since.lock() {
            Ok(mut since) => std::mem::replace(&mut since[reader as usize], fresh),
            Err(_) => Seen::Anything,
        };
        if self.watching.load(SeqCst) {
            seen
        } else {
            Seen::Anything
        }
    }
}

#[cfg(test)]
mod own_save_tests {
    use crate::session::Saved;

    #[test]
    fn the_watchers_report_of_a_save_is_the_studios_own_until_someone_else_writes() {
        let (_d, s) = crate::session::testing::sample();
        let rel = "public/assistant/greeting/SKILL.md";
        let path = s.root().join(rel);
        let text = std::fs::read_to_string(&path).unwrap() + "\nSaved here.\n";
        let disk = s.disk();
        assert!(!disk.is_own_save(rel, &path), "not saved by the studio yet");
        assert!(matches!(
            s.save(rel, &text, None).unwrap(),
            Saved::Saved { .. }
        ));
        assert!(disk.is_own_save(rel, &path));
        assert!(
            disk.is_own_save(rel, &path),
            "a save reported twice is still the studio's"
        );
        std::fs::write(&path, text + "Someone else.\n").unwrap();
        assert!(
            !disk.is_own_save(rel, &path),
            "another writer's change is news"
        );
    }
}
