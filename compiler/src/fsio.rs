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
        found: Vec::new(),
        diagnostics: Vec::new(),
        stack: vec![root.to_path_buf()],
    };
    walk.dir(root, prefix);
    use rayon::prelude::*;
    let mut files: Vec<RawFile> = walk
        .found
        .par_iter()
        .map(|(rel, path)| RawFile {
            rel: rel.clone(),
            content: read_capped(path),
        })
        .collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok((files, walk.diagnostics))
}

/// Reads a file unless it is over [`MAX_FILE_BYTES`] (checked on the open file).
fn read_capped(path: &Path) -> FileContent {
    use std::io::Read;
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return FileContent::Unreadable(e.to_string()),
    };
    let size = match f.metadata() {
        Ok(m) => m.len(),
        Err(e) => return FileContent::Unreadable(e.to_string()),
    };
    if size > MAX_FILE_BYTES {
        return FileContent::TooLarge(size);
    }
    let mut bytes = Vec::with_capacity(size as usize);
    match f.read_to_end(&mut bytes) {
        Ok(_) => FileContent::Bytes(bytes),
        Err(e) => FileContent::Unreadable(e.to_string()),
    }
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
    /// Files to read: relative path and path on disk.
    found: Vec<(String, PathBuf)>,
    diagnostics: Vec<Diagnostic>,
    /// Folders being walked, outermost first (canonicalised only when a link needs it).
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
        let mut names: Vec<(String, PathBuf, Option<std::fs::FileType>)> = entries
            .filter_map(Result::ok)
            .map(|e| {
                let kind = e.file_type().ok();
                (e.file_name().to_string_lossy().into_owned(), e.path(), kind)
            })
            .collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let mut subdirs = Vec::new();
        for (name, path, kind) in names {
            if is_skipped(&name) {
                continue;
            }
            let rel = format!("{prefix}{name}");
            match kind {
                Some(k) if k.is_symlink() => self.link(&path, &rel),
                Some(k) if k.is_dir() => subdirs.push((path, format!("{rel}/"))),
                Some(_) => self.found.push((rel, path)),
                None => self.problem(codes::UNREADABLE, &rel, "cannot read its type".to_string()),
            }
        }
        // Sub-folders are listed in parallel; the caller sorts what they find.
        use rayon::prelude::*;
        let parts: Vec<Walk> = subdirs
            .into_par_iter()
            .map(|(path, prefix)| {
                let mut stack = self.stack.clone();
                stack.push(path.clone());
                let mut w = Walk {
                    boundary: self.boundary.clone(),
                    found: Vec::new(),
                    diagnostics: Vec::new(),
                    stack,
                };
                w.dir(&path, &prefix);
                w
            })
            .collect();
        for w in parts {
            self.found.extend(w.found);
            self.diagnostics.extend(w.diagnostics);
        }
    }

    /// A symbolic link: followed only inside the boundary, and never into a folder that
    /// contains it.
    fn link(&mut self, path: &Path, rel: &str) {
        let target = match path.canonicalize() {
            Ok(t) => t,
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
        };
        if !target.starts_with(&self.boundary) {
            return self.problem(
                codes::SYMLINK_ESCAPE,
                rel,
                format!(
                    "symbolic link points outside the workspace, to `{}`",
                    target.display()
                ),
            );
        }
        if !target.is_dir() {
            self.found.push((rel.to_string(), path.to_path_buf()));
            return;
        }
        let loops = self
            .stack
            .iter()
            .any(|d| d.canonicalize().is_ok_and(|c| c == target));
        if loops {
            return self.problem(
                codes::SYMLINK_LOOP,
                rel,
                "symbolic link leads back into a folder that contains it".to_string(),
            );
        }
        self.stack.push(target);
        self.dir(path, &format!("{rel}/"));
        self.stack.pop();
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
