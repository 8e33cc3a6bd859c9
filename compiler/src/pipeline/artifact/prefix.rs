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
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

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
    /// A copy of it being made ahead, once a build is done, for the next one (see
    /// [`Prefix::make_spare`]).
    spare: Mutex<Option<JoinHandle<Option<File>>>>,
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
            spare: Mutex::new(None),
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

    /// Starts a copy of the prefix in the folder `dir` on a thread of its own, as a file
    /// without a name: the next build gives it the name of its temporary file instead of
    /// copying 17 MB while a person waits for the artifact (9 ms on the reference workload),
    /// and a session stopped meanwhile leaves nothing behind. Linux only (`O_TMPFILE`);
    /// elsewhere the next build copies.
    pub(super) fn make_spare(&self, dir: &Path) {
        #[cfg(target_os = "linux")]
        if let (Ok(from), Ok(mut spare)) = (self.file.try_clone(), self.spare.lock()) {
            let dir = dir.to_path_buf();
            *spare = Some(std::thread::spawn(move || unnamed_copy(&from, &dir)));
        }
        #[cfg(not(target_os = "linux"))]
        let _ = dir;
    }

    /// Puts the prefix at `path` (no file there yet), where the build goes on writing: the
    /// spare made ahead, named, or else a copy made now. Whether it is there (a failed copy
    /// is removed, and the build writes every table).
    pub(super) fn place_at(&self, path: &Path) -> bool {
        let spare = self.spare.lock().ok().and_then(|mut s| s.take());
        let spare = spare.and_then(|copying| copying.join().ok().flatten());
        #[cfg(target_os = "linux")]
        if spare.is_some_and(|file| give_name(&file, path)) {
            return true;
        }
        #[cfg(not(target_os = "linux"))]
        drop(spare);
        self.copy_to(path)
    }

    /// Puts a copy of the prefix at `path` (a new file); whether it is there (a failed copy
    /// is removed).
    fn copy_to(&self, path: &Path) -> bool {
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

/// A copy of `from` in the folder `dir`, as a file without a name; offsets are given, so
/// `from`'s own (shared with the prefix's handle) does not move.
#[cfg(target_os = "linux")]
fn unnamed_copy(from: &File, dir: &Path) -> Option<File> {
    use rustix::fs::{copy_file_range, openat, Mode, OFlags, CWD};
    let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
    let to = openat(CWD, dir, flags, Mode::from_raw_mode(0o644)).ok()?;
    let len = from.metadata().ok()?.len();
    let (mut read, mut written) = (0u64, 0u64);
    while read < len {
        let left = (len - read) as usize;
        let n = copy_file_range(from, Some(&mut read), &to, Some(&mut written), left).ok()?;
        if n == 0 {
            return None;
        }
    }
    Some(File::from(to))
}

/// Gives the file without a name `file` the name `path` (through `/proc`, which needs no
/// privilege where `AT_EMPTY_PATH` would).
#[cfg(target_os = "linux")]
fn give_name(file: &File, path: &Path) -> bool {
    use rustix::fs::{linkat, AtFlags, CWD};
    use std::os::fd::AsRawFd;
    let open = format!("/proc/self/fd/{}", file.as_raw_fd());
    linkat(CWD, open.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW).is_ok()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn a_copy_without_a_name_is_named_whole_and_nothing_else_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&from, &bytes).unwrap();
        let file = std::fs::File::open(&from).unwrap();
        let copy = super::unnamed_copy(&file, dir.path()).unwrap();
        let names = || std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names(), 1, "the copy has no name yet");
        let to = dir.path().join("to");
        assert!(super::give_name(&copy, &to));
        assert_eq!(std::fs::read(&to).unwrap(), bytes);
        // A name already taken is not replaced.
        assert!(!super::give_name(&copy, &from));
        assert_eq!(names(), 2);
    }
}
