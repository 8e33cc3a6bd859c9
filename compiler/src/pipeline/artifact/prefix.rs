//! The first part of a session's artifact, kept as a file between its builds.
//!
//! The writer puts first, and commits on their own, the tables an edit of a skill's body or
//! of a client's texts leaves as they were: the vectors and the meaning table, the cards and
//! the bundles (17 MB of the reference workload's artifact). A session keeps a copy of the file
//! at that point; its next build, when those tables are the same, starts from a copy of that
//! copy and writes only the rest. Those are the bytes a clean build writes: the same
//! transactions leave the same pages, whichever connection commits them.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::{Copyable, MeaningRows};

/// A copy of an artifact as its first transaction left it. Its name is removed as soon as it
/// is made: the file lives as long as the handle, and a session stopped by Ctrl-C or a kill
/// leaves nothing beside the artifact.
#[derive(Debug)]
pub(crate) struct Prefix {
    file: File,
    /// Its name, where the file system keeps it while it is open (Windows): removed on drop.
    named: Option<PathBuf>,
    /// The meaning table it holds (the other tables are the rows of the [`Copyable`] that
    /// holds it).
    meaning: Option<MeaningRows>,
}

impl Drop for Prefix {
    fn drop(&mut self) {
        if let Some(path) = &self.named {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Numbers the prefix files of a process: a build makes a new one while the one it replaces
/// is still held by the build before, beside the same artifact.
static MADE: AtomicU64 = AtomicU64::new(0);

impl Prefix {
    /// A copy of `path` (an artifact whose first transaction was just committed) beside it;
    /// none when it cannot be made (the next build then writes every table).
    pub(super) fn keep(path: &Path, meaning: Option<&MeaningRows>) -> Option<Arc<Prefix>> {
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let (_, name) = super::beside(path, &format!("{n}.prefix"));
        let made = std::fs::copy(path, &name).and_then(|_| File::open(&name));
        let named = std::fs::remove_file(&name).is_err().then_some(name);
        Some(Arc::new(Prefix {
            file: made.ok()?,
            named,
            meaning: meaning.cloned(),
        }))
    }

    /// Whether this prefix, held by the rows `kept` of the build before, is the first part of
    /// the artifact of `rows` and `meaning`.
    pub(super) fn fits(
        &self,
        kept: &Copyable,
        rows: &Copyable,
        meaning: Option<&MeaningRows>,
    ) -> bool {
        let same_vectors = Arc::ptr_eq(&kept.vectors, &rows.vectors)
            || (kept.vectors.is_empty() && rows.vectors.is_empty());
        let same_bundles =
            Arc::ptr_eq(&kept.bundles, &rows.bundles) || *kept.bundles == *rows.bundles;
        let same_meaning = match (&self.meaning, meaning) {
            (None, None) => true,
            (Some(a), Some(b)) => a.is(b),
            _ => false,
        };
        same_meaning && same_vectors && same_bundles && kept.cards == rows.cards
    }

    /// Puts a copy of the prefix at `path` (a new file), where the build goes on writing;
    /// whether it is there (a failed copy is removed, and the build writes every table).
    pub(super) fn copy_to(&self, path: &Path) -> bool {
        // The kernel copies between the two files (copy_file_range): 17 MB in a few ms.
        let copied = (|| {
            let mut from = &self.file;
            from.seek(SeekFrom::Start(0))?;
            std::io::copy(&mut from, &mut File::create_new(path)?)
        })()
        .is_ok();
        if !copied {
            let _ = std::fs::remove_file(path);
        }
        copied
    }
}
