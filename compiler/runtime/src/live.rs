//! An artifact that follows its path: a new artifact swapped in by rename is served from the
//! next call on, without a restart and without a torn read.
//!
//! Each call compares the path's file identity (device, inode, size, modification time: one
//! `stat`, about a microsecond) with the file that was opened. A build replaces the artifact by
//! renaming a complete file over it, so the path always names a whole artifact; the one already
//! opened stays readable through its own file handle until its last request is answered.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::{Artifact, Error};

/// What identifies the file a path names at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: u64,
    inode: u64,
    len: u64,
    modified_ns: i128,
}

fn stamp(path: &Path) -> std::io::Result<Stamp> {
    let meta = std::fs::metadata(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok(Stamp {
            device: meta.dev(),
            inode: meta.ino(),
            len: meta.len(),
            modified_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        })
    }
    #[cfg(not(unix))]
    {
        let modified_ns = meta
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        Ok(Stamp {
            device: 0,
            inode: 0,
            len: meta.len(),
            modified_ns,
        })
    }
}

struct Loaded {
    stamp: Stamp,
    artifact: Arc<Artifact>,
    /// Why the file now at the path could not be opened (the previous artifact is kept).
    refused: Option<(Stamp, String)>,
}

/// An artifact reopened whenever another file is renamed over its path.
///
/// ```no_run
/// let live = skillc_runtime::LiveArtifact::open("out.db").unwrap();
/// let artifact = live.current(); // the newest artifact, as of this call
/// # let _ = artifact;
/// ```
pub struct LiveArtifact {
    path: PathBuf,
    loaded: RwLock<Loaded>,
}

impl LiveArtifact {
    /// Opens the artifact at `path` (errors as [`Artifact::open`]).
    pub fn open(path: impl AsRef<Path>) -> Result<LiveArtifact, Error> {
        let path = path.as_ref().to_path_buf();
        // The stamp is taken before opening: if a swap slips in between, the next call sees a
        // stamp that differs and opens again, which costs one open and is never wrong.
        let before = stamp(&path);
        let artifact = Arc::new(Artifact::open(&path)?);
        let stamp = before.map_err(|_| Error::Missing {
            path: path.clone(),
            what: "does not exist",
        })?;
        Ok(LiveArtifact {
            path,
            loaded: RwLock::new(Loaded {
                stamp,
                artifact,
                refused: None,
            }),
        })
    }

    /// The path followed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The artifact now at the path: the one already open when the file is the same, else the
    /// new file, opened once. A new file that cannot be opened (a wrong schema version, not an
    /// artifact) and a path that names no file leave the previous artifact in service; see
    /// [`LiveArtifact::refused`].
    pub fn current(&self) -> Arc<Artifact> {
        let now = stamp(&self.path).ok();
        {
            let loaded = self.loaded.read().expect("lock");
            let same = now.is_none_or(|s| {
                s == loaded.stamp || loaded.refused.as_ref().is_some_and(|(r, _)| *r == s)
            });
            if same {
                return loaded.artifact.clone();
            }
        }
        let Some(now) = now else {
            return self.loaded.read().expect("lock").artifact.clone();
        };
        let mut loaded = self.loaded.write().expect("lock");
        if loaded.stamp == now {
            return loaded.artifact.clone(); // another caller reopened it meanwhile
        }
        match Artifact::open(&self.path) {
            Ok(a) => {
                loaded.stamp = now;
                loaded.artifact = Arc::new(a);
                loaded.refused = None;
            }
            Err(e) => loaded.refused = Some((now, e.to_string())),
        }
        loaded.artifact.clone()
    }

    /// Why the file now at the path is not served, when it could not be opened.
    pub fn refused(&self) -> Option<String> {
        let loaded = self.loaded.read().expect("lock");
        loaded.refused.as_ref().map(|(_, why)| why.clone())
    }
}
