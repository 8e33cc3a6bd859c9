//! What a session remembers of the files it read: each file's stamp (size, times, inode), so a
//! file whose stamp has not moved is not read again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{read_file, FileContent};

/// A folder's entries: name, path and type.
pub(super) type Listing = Vec<(String, PathBuf, Option<std::fs::FileType>)>;

/// What identifies a version of a file or folder without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    /// The stamp of `path` (following links), if it can be read.
    pub(crate) fn read(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }

    /// Whether the file had settled before `read_at` (nanoseconds since the epoch): changes
    /// within a clock tick of a read may not move the stamp.
    pub(crate) fn settled_before(&self, read_at: i128) -> bool {
        self.mtime_ns.max(self.ctime_ns) < read_at - CLOCK_TICK_NS
    }

    #[cfg(unix)]
    fn of(m: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            ctime_ns: m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
        }
    }

    #[cfg(not(unix))]
    fn of(m: &std::fs::Metadata) -> Stamp {
        let ns = |t: std::io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128)
        };
        Stamp {
            dev: 0,
            ino: 0,
            size: m.len(),
            mtime_ns: ns(m.modified()),
            ctime_ns: ns(m.created()),
        }
    }
}

/// File systems stamp changes with a clock that ticks every few milliseconds, so a change made
/// within a tick of a read can leave the stamp as it was: a stamp this close to the time of
/// the read is not trusted, and the file is read again next time.
const CLOCK_TICK_NS: i128 = 50_000_000;

/// Now, in nanoseconds since the epoch.
pub(crate) fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// What earlier walks of the same workspace read (`watch`, Skill Studio), by path: a folder
/// whose status is unchanged is not listed again and a file whose status is unchanged is not
/// opened again (as git and make decide, on device, inode, size and change times). Besides
/// the system calls, this spares the file watcher an event for every file a rebuild opens.
#[derive(Debug, Default)]
pub(crate) struct ReadCache {
    dirs: std::sync::Mutex<HashMap<PathBuf, (Stamp, Listing)>>,
    pub(super) files: std::sync::Mutex<HashMap<PathBuf, (Stamp, FileContent)>>,
}

impl ReadCache {
    /// The stamp of `path` if it can be trusted to change with its content.
    fn stamp(path: &Path, read_at: i128) -> Option<Stamp> {
        Stamp::read(path).filter(|s| s.settled_before(read_at))
    }

    pub(super) fn list(
        &self,
        dir: &Path,
        list: impl FnOnce(&Path) -> Option<Listing>,
    ) -> Option<Listing> {
        let read_at = now_ns();
        let stamp = Self::stamp(dir, read_at);
        if let (Some(s), Ok(dirs)) = (stamp, self.dirs.lock()) {
            if let Some((cached, names)) = dirs.get(dir) {
                if *cached == s {
                    return Some(names.clone());
                }
            }
        }
        let names = list(dir)?;
        if let (Some(s), Ok(mut dirs)) = (stamp, self.dirs.lock()) {
            dirs.insert(dir.to_path_buf(), (s, names.clone()));
        }
        Some(names)
    }

    /// The file's content, and whether it is the content this cache held (unchanged).
    pub(crate) fn read(&self, path: &Path, streamed: bool) -> (FileContent, bool) {
        let read_at = now_ns();
        let stamp = Self::stamp(path, read_at);
        if let (Some(s), Ok(files)) = (stamp, self.files.lock()) {
            if let Some((cached, content)) = files.get(path) {
                if *cached == s {
                    return (content.clone(), true);
                }
            }
        }
        let content = read_file(path, streamed);
        if let (Some(s), Ok(mut files)) = (stamp, self.files.lock()) {
            files.insert(path.to_path_buf(), (s, content.clone()));
        }
        (content, false)
    }
}
