//! An artifact that follows its path: a new artifact swapped in by rename is served from the
//! next call on, without a restart and without a torn read.
//!
//! Each call compares the path's file identity (device, inode, size, modification time: one
//! `stat`, about a microsecond) with the file that was opened. A build replaces the artifact by
//! renaming a complete file over it, so the path always names a whole artifact; the one already
//! opened stays readable through its own file handle until its last request is answered.
//!
//! With a key, each artifact served is an in-memory copy of the bytes whose signature was
//! checked ([`Artifact::open_verified`]): a write into the file in place changes its stamp, the
//! changed file is checked and refused, and the previous verified bytes stay in service.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use crate::signature::PublicKey;
use crate::{Artifact, Error};

/// What identifies the file a path names at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    device: u64,
    inode: u64,
    len: u64,
    modified_ns: i128,
}

fn stamp(path: &Path) -> std::io::Result<Stamp> {
    Ok(stamp_of_meta(&std::fs::metadata(path)?))
}

/// The stamp of a file's metadata.
fn stamp_of_meta(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            device: meta.dev(),
            inode: meta.ino(),
            len: meta.len(),
            modified_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }
    #[cfg(not(unix))]
    {
        let modified_ns = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Stamp {
            device: 0,
            inode: 0,
            len: meta.len(),
            modified_ns,
        }
    }
}

/// What identifies the files a live artifact reads at one moment: the artifact's stamp, and
/// with a key its signature's (a new signature for a refused file is tried again).
type Stamps = (Stamp, Option<Stamp>);

struct Loaded {
    stamps: Stamps,
    artifact: Arc<Artifact>,
    /// Why the file now at the path could not be opened (the previous artifact is kept).
    refused: Option<(Stamps, String)>,
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
    /// With a key, only artifacts whose signature it verifies are served.
    key: Option<PublicKey>,
    loaded: RwLock<Loaded>,
    /// How many bundles each artifact served keeps loaded ([`Artifact::set_max_bundles`]).
    max_bundles: AtomicUsize,
}

impl LiveArtifact {
    /// Opens the artifact at `path` (errors as [`Artifact::open`]).
    pub fn open(path: impl AsRef<Path>) -> Result<LiveArtifact, Error> {
        LiveArtifact::open_with(path.as_ref(), None)
    }

    /// Opens the artifact at `path` if its signature verifies with `key`, and from then on
    /// serves a new file only if its signature does (errors as [`Artifact::open_verified`]).
    pub fn open_verified(path: impl AsRef<Path>, key: PublicKey) -> Result<LiveArtifact, Error> {
        LiveArtifact::open_with(path.as_ref(), Some(key))
    }

    fn open_with(path: &Path, key: Option<PublicKey>) -> Result<LiveArtifact, Error> {
        let path = path.to_path_buf();
        // The stamps are taken before opening: if a swap slips in between, the next call sees
        // stamps that differ and opens again, which costs one open and is never wrong.
        let before = stamps(&path, key.is_some());
        let artifact = Arc::new(open(&path, key.as_ref())?);
        let stamps = before.ok_or_else(|| Error::Missing {
            path: path.clone(),
            what: "does not exist",
        })?;
        Ok(LiveArtifact {
            path,
            key,
            loaded: RwLock::new(Loaded {
                stamps,
                artifact,
                refused: None,
            }),
            max_bundles: AtomicUsize::new(crate::DEFAULT_MAX_BUNDLES),
        })
    }

    /// Keeps at most `max` bundles loaded in the artifact served now and in each one served
    /// after it ([`Artifact::set_max_bundles`]).
    pub fn set_max_bundles(&self, max: usize) {
        self.max_bundles.store(max, Ordering::Relaxed);
        self.loaded
            .read()
            .expect("lock")
            .artifact
            .set_max_bundles(max);
    }

    /// The path followed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The artifact now at the path: the one already open when the file is the same, else the
    /// new file, opened once. A new file that cannot be opened (a wrong schema version, not an
    /// artifact, with a key a signature that does not verify) and a path that names no file
    /// leave the previous artifact in service; see [`LiveArtifact::refused`].
    pub fn current(&self) -> Arc<Artifact> {
        let now = stamps(&self.path, self.key.is_some());
        {
            let loaded = self.loaded.read().expect("lock");
            let same = now.is_none_or(|s| {
                s == loaded.stamps || loaded.refused.as_ref().is_some_and(|(r, _)| *r == s)
            });
            if same {
                return loaded.artifact.clone();
            }
        }
        let Some(now) = now else {
            return self.loaded.read().expect("lock").artifact.clone();
        };
        let mut loaded = self.loaded.write().expect("lock");
        if loaded.stamps == now {
            return loaded.artifact.clone(); // another caller reopened it meanwhile
        }
        match open(&self.path, self.key.as_ref()) {
            Ok(a) => {
                a.set_max_bundles(self.max_bundles.load(Ordering::Relaxed));
                loaded.stamps = now;
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

/// The stamps of the artifact at `path` and, when `signed`, of its signature; `None` when the
/// path names no file.
fn stamps(path: &Path, signed: bool) -> Option<Stamps> {
    let file = stamp(path).ok()?;
    let signature = signed
        .then(|| stamp(&crate::signature::signature_path(path)).ok())
        .flatten();
    Some((file, signature))
}

fn open(path: &Path, key: Option<&PublicKey>) -> Result<Artifact, Error> {
    match key {
        Some(k) => Artifact::open_verified(path, k),
        None => Artifact::open(path),
    }
}
