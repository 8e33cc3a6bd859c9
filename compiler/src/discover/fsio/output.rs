//! Files a command writes where it is told (`-o`): a regular file or nothing there before,
//! replaced whole or not at all.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What an output path holds when it must not be written over (a device, a pipe, a socket or
/// a folder, directly or through a link); `None` for a regular file or nothing.
pub(crate) fn not_a_file(out: &Path) -> Option<&'static str> {
    let meta = std::fs::metadata(out).ok()?;
    (!meta.is_file()).then(|| super::special_kind(&meta.file_type()))
}

/// The file an output path names: a link to a regular file is followed, so that the output
/// replaces the file it points to and the link stays.
pub fn output_file(out: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink());
    match out.canonicalize() {
        Ok(target) if is_link && target.is_file() => target,
        _ => out.to_path_buf(),
    }
}

/// The first part of `rel` below `root` that is a symbolic link (`.skillc` linked elsewhere),
/// as a path below `root`; `None` when every part that exists is a real folder or file. What
/// skillc keeps in the workspace (`.skillc/`) is written and removed only through real
/// folders: a link there, which a cloned repository can commit, would send the writes and
/// removals anywhere.
pub(crate) fn linked_part(root: &Path, rel: &Path) -> Option<PathBuf> {
    let mut below = PathBuf::new();
    for part in rel.components() {
        below.push(part);
        match std::fs::symlink_metadata(root.join(&below)) {
            Ok(m) if m.file_type().is_symlink() => return Some(below),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Writes `bytes` to `path` unless something is there already, a link included (a dangling
/// one would have the write create its target); best effort, as for a `.gitignore`.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    if let Ok(mut f) = file {
        let _ = f.write_all(bytes);
    }
}

/// Replaces `path` with `bytes` (see [`replace_with`]).
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(path, |file| file.write_all(bytes))
}

/// Replaces `path` with what `write` puts in a new file beside it, synced, then renamed over
/// `path`: a reader sees the old file or the new one, and a failure anywhere leaves the old file
/// and no temporary one. A link to a file is written through, as editors do: the file it
/// points to changes and the link stays.
pub(crate) fn replace_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let mut staged = stage(path)?;
    write(&mut staged.file)?;
    staged.commit()
}

/// A new file beside the file `path` names, to be written through [`Staged::file`] and then
/// put in place by [`Staged::commit`]; dropped before that, it is removed. Two files that must
/// change together (an artifact and its signature) are both staged before either is renamed.
pub(crate) struct Staged {
    /// The temporary file, open for writing.
    pub file: std::fs::File,
    tmp: PathBuf,
    path: PathBuf,
    committed: bool,
}

/// Stages a new content for `path` (see [`Staged`]; a link to a file is written through).
pub(crate) fn stage(path: &Path) -> io::Result<Staged> {
    let path = output_file(path);
    let (tmp, file) = create_beside(&path)?;
    Ok(Staged {
        file,
        tmp,
        path,
        committed: false,
    })
}

impl Staged {
    /// Syncs the new content and renames it over the file: a reader sees the old file or the
    /// new one. On failure the old file stays and the temporary one is removed.
    pub(crate) fn commit(mut self) -> io::Result<()> {
        self.file.sync_all()?;
        std::fs::rename(&self.tmp, &self.path)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The previous content of a file about to be replaced, kept under a second name (a hard link:
/// no space needed, so it holds on a full disk) until [`Kept::restore`] puts it back; dropped,
/// the second name is removed.
pub(crate) struct Kept {
    link: PathBuf,
    path: PathBuf,
    restored: bool,
}

/// Keeps the file `path` names (a link is followed), or `None` when there is none.
pub(crate) fn keep(path: &Path) -> io::Result<Option<Kept>> {
    let path = output_file(path);
    if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    loop {
        let (link, file) = create_beside(&path)?;
        drop(file);
        std::fs::remove_file(&link)?;
        match std::fs::hard_link(&path, &link) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
            Ok(()) => {
                return Ok(Some(Kept {
                    link,
                    path,
                    restored: false,
                }))
            }
        }
    }
}

impl Kept {
    /// Puts the kept content back in place of whatever the file holds now.
    pub(crate) fn restore(mut self) -> io::Result<()> {
        std::fs::rename(&self.link, &self.path)?;
        self.restored = true;
        Ok(())
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        if !self.restored {
            let _ = std::fs::remove_file(&self.link);
        }
    }
}

/// Why an output path that does not exist yet cannot become a file (a usage error, found
/// before any work): it ends in `/`, its folder does not exist, or it is a link to nothing
/// (which a rename would replace by a file instead of writing where it points).
pub(crate) fn cannot_be_created(out: &Path) -> Option<String> {
    let shown = out.display();
    if out.as_os_str().to_string_lossy().ends_with('/') {
        return Some(format!(
            "`{shown}` names a folder (it ends in `/`); give a file name"
        ));
    }
    let meta = std::fs::symlink_metadata(out);
    if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) && std::fs::metadata(out).is_err() {
        let target = std::fs::read_link(out).unwrap_or_default();
        return Some(format!(
            "`{shown}` is a link to `{}`, which does not exist; give the file itself or create it",
            target.display()
        ));
    }
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    match parent {
        Some(dir) if meta.is_err() && !dir.is_dir() => Some(format!(
            "the folder `{}` of `{shown}` does not exist",
            dir.display()
        )),
        _ => None,
    }
}

/// Tells apart the temporary files of one process's writers (threads of the studio, say).
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A new file next to `path`, under a name no other writer (another process, or another
/// thread of this one) uses, and never over an existing file.
fn create_beside(path: &Path) -> io::Result<(PathBuf, std::fs::File)> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy());
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            opened => return opened.map(|f| (tmp, f)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.zip");
        std::fs::write(&path, "old").unwrap();
        let failed = replace_with(&path, |f| {
            f.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names_in(dir.path()), ["out.zip"]);
        replace(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names_in(dir.path()), ["out.zip"]);
    }

    #[test]
    fn a_folder_is_not_replaced_and_nothing_is_left_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("out");
        std::fs::create_dir(&folder).unwrap();
        assert_eq!(not_a_file(&folder), Some("a folder"));
        assert!(replace(&folder, b"x").is_err());
        assert!(folder.is_dir());
        assert_eq!(names_in(dir.path()), ["out"]);
    }

    #[test]
    fn a_file_of_the_same_name_as_the_temporary_one_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.zip");
        // The counter is shared with the other tests of this process: every name it can give
        // next is taken, so the writes below meet them whatever ran before.
        let next = COUNTER.load(Ordering::Relaxed);
        let theirs: Vec<PathBuf> = (next..next + 64)
            .map(|n| {
                dir.path()
                    .join(format!(".a.zip.{}.{n}.tmp", std::process::id()))
            })
            .collect();
        for t in &theirs {
            std::fs::write(t, "theirs").unwrap();
        }
        for _ in 0..3 {
            replace(&path, b"ours").unwrap();
        }
        for t in &theirs {
            assert_eq!(std::fs::read_to_string(t).unwrap(), "theirs");
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "ours");
    }

    #[cfg(unix)]
    #[test]
    fn pipes_and_links_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(not_a_file(&fifo), Some("a named pipe"));
        }
        let real = dir.path().join("real.db");
        std::fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(not_a_file(&link), None);
        assert_eq!(output_file(&link), real.canonicalize().unwrap());
        assert_eq!(not_a_file(&dir.path().join("absent")), None);
        replace(&link, b"through").unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "through");
    }
}
