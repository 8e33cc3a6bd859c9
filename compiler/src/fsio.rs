//! The only module that reads the file system: walks a workspace folder and reads its files
//! into memory, refusing symbolic links that leave the workspace or loop.

use std::io;
use std::path::{Path, PathBuf};

use crate::diagnostic::{codes, Diagnostic, Pos};

/// Largest file of any kind (assets included) the compiler reads: 16 MiB.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// What reading one file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileContent {
    /// The file's bytes.
    Bytes(Vec<u8>),
    /// The file is larger than [`MAX_FILE_BYTES`]; its size.
    TooLarge(u64),
    /// Reading failed; the reason.
    Unreadable(String),
}

/// One file found in a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawFile {
    /// Path relative to the workspace, `/`-separated.
    pub rel: String,
    /// Its content.
    pub content: FileContent,
}

impl RawFile {
    /// A file with the given bytes (for in-memory workspaces and tests).
    pub fn new(rel: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        RawFile {
            rel: rel.into(),
            content: FileContent::Bytes(bytes.into()),
        }
    }
}

/// Failures of the environment (as opposed to problems in the user's files).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The workspace folder is missing or not a folder.
    #[error("workspace `{path}` is not a readable folder: {source}")]
    Workspace {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// Every file below `root`, in sorted order, with `prefix` put before each relative path.
/// Symbolic links may point anywhere inside `boundary` (a canonical folder).
pub fn read_tree(
    root: &Path,
    prefix: &str,
    boundary: &Path,
) -> Result<(Vec<RawFile>, Vec<Diagnostic>), Error> {
    let canonical = root.canonicalize().map_err(|source| Error::Workspace {
        path: root.to_path_buf(),
        source,
    })?;
    if !canonical.is_dir() {
        return Err(Error::Workspace {
            path: root.to_path_buf(),
            source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
        });
    }
    let mut walk = Walk {
        boundary: boundary.to_path_buf(),
        files: Vec::new(),
        diagnostics: Vec::new(),
        stack: vec![canonical],
    };
    walk.dir(root, prefix);
    walk.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok((walk.files, walk.diagnostics))
}

/// Names never looked into: version control, dependencies, caches, hidden files.
fn is_skipped(name: &str) -> bool {
    name.starts_with('.')
        || name == "node_modules"
        || name == "__pycache__"
        || name.ends_with(".pyc")
        || name.ends_with('~')
}

struct Walk {
    boundary: PathBuf,
    files: Vec<RawFile>,
    diagnostics: Vec<Diagnostic>,
    /// Canonical folders being walked, outermost first, to detect loops.
    stack: Vec<PathBuf>,
}

impl Walk {
    fn dir(&mut self, dir: &Path, prefix: &str) {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                self.problem(
                    codes::UNREADABLE,
                    prefix,
                    format!("cannot list folder: {e}"),
                );
                return;
            }
        };
        let mut names: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        names.sort();
        for (name, path) in names {
            if is_skipped(&name) {
                continue;
            }
            let rel = format!("{prefix}{name}");
            self.entry(&path, &rel);
        }
    }

    fn entry(&mut self, path: &Path, rel: &str) {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) => return self.problem(codes::UNREADABLE, rel, format!("cannot read: {e}")),
        };
        let (is_dir, canonical) = if meta.file_type().is_symlink() {
            match path.canonicalize() {
                Ok(target) if !target.starts_with(&self.boundary) => {
                    return self.problem(
                        codes::SYMLINK_ESCAPE,
                        rel,
                        format!(
                            "symbolic link points outside the workspace, to `{}`",
                            target.display()
                        ),
                    );
                }
                Ok(target) => (target.is_dir(), target),
                Err(e) if e.raw_os_error() == Some(40) => {
                    return self.problem(
                        codes::SYMLINK_LOOP,
                        rel,
                        "symbolic link loops back on itself".to_string(),
                    );
                }
                Err(e) => {
                    return self.problem(
                        codes::UNREADABLE,
                        rel,
                        format!("symbolic link cannot be followed: {e}"),
                    )
                }
            }
        } else if meta.is_dir() {
            (
                true,
                path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
            )
        } else {
            (false, path.to_path_buf())
        };
        if is_dir {
            if self.stack.contains(&canonical) {
                return self.problem(
                    codes::SYMLINK_LOOP,
                    rel,
                    "symbolic link leads back into a folder that contains it".to_string(),
                );
            }
            self.stack.push(canonical);
            self.dir(path, &format!("{rel}/"));
            self.stack.pop();
            return;
        }
        let content = match std::fs::metadata(path) {
            Ok(m) if m.len() > MAX_FILE_BYTES => FileContent::TooLarge(m.len()),
            Ok(_) => match std::fs::read(path) {
                Ok(bytes) => FileContent::Bytes(bytes),
                Err(e) => FileContent::Unreadable(e.to_string()),
            },
            Err(e) => FileContent::Unreadable(e.to_string()),
        };
        self.files.push(RawFile {
            rel: rel.to_string(),
            content,
        });
    }

    fn problem(&mut self, code: &'static str, rel: &str, message: String) {
        self.diagnostics.push(Diagnostic::new(
            code,
            rel.trim_end_matches('/'),
            Pos::start(),
            message,
        ));
    }
}

/// A file's bytes, or the diagnostic that says why they are unusable.
pub fn bytes_of(file: &RawFile) -> Result<&[u8], Diagnostic> {
    match &file.content {
        FileContent::Bytes(b) => Ok(b),
        FileContent::TooLarge(size) => Err(Diagnostic::new(
            codes::TOO_LARGE,
            &file.rel,
            Pos::start(),
            format!("file is {size} bytes, over the {MAX_FILE_BYTES} byte limit"),
        )),
        FileContent::Unreadable(why) => Err(Diagnostic::new(
            codes::UNREADABLE,
            &file.rel,
            Pos::start(),
            format!("cannot read file: {why}"),
        )),
    }
}
