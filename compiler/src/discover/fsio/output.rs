//! Files a command writes where it is told (`-o`): a regular file or nothing there before,
//! replaced whole or not at all.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What an output path holds when it must not be written over (a device, a pipe, a socket or
/// a folder, directly or through a link); `None` for a regular file or nothing.
pub fn not_a_file(out: &Path) -> Option<&'static str> {
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
pub fn linked_part(root: &Path, rel: &Path) -> Option<PathBuf> {
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
pub fn write_new(path: &Path, bytes: &[u8]) {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    if let Ok(mut f) = file {
        let _ = f.write_all(bytes);
    }
}

/// Replaces `path` with `bytes` (see [`replace_with`]).
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(path, |file| file.write_all(bytes))
}

/// Replaces `path` with what `write` puts in a new file beside it, synced, then renamed over
/// `path`: a reader sees the old file or the new one, and a failure anywhere leaves the old file
/// and no temporary one. A link to a file is written through, as editors do: the file it
/// points to changes and the link stays.
pub fn replace_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let path = &output_file(path);
    let (tmp, mut file) = create_beside(path)?;
    let result = write(&mut file)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
