//! The only module that reads the file system: walks a workspace folder and reads its files
//! into memory, refusing symbolic links that leave the workspace or loop.

use std::io;
use std::path::{Path, PathBuf};

use crate::diagnostic::{codes, Diagnostic, Pos};

mod cache;
pub(crate) mod large;
mod names;
pub(crate) mod output;
mod special;
mod threads;

use names::{holds_skill, is_role_file, is_skipped, is_tool_folder};
pub(crate) use names::{is_plugin_manifest, PLUGIN_FOLDER, PLUGIN_MANIFESTS};

use cache::Listing;
pub(crate) use cache::{now_ns, ReadCache, Stamp};
pub(crate) use special::{open_nonblocking, read_regular, special_kind};
use threads::on_io_threads;

/// Largest file of any kind (assets included) the compiler reads: 16 MiB.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// What reading one file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileContent {
    /// The file's bytes (shared: a cached read hands out the same bytes, not a copy).
    Bytes(std::sync::Arc<[u8]>),
    /// A large file without a role, hashed but not held ([`STREAM_ABOVE`](large::STREAM_ABOVE)).
    Large(std::sync::Arc<crate::model::LargeFile>),
    /// The file is larger than [`MAX_FILE_BYTES`]; its size.
    TooLarge(u64),
    /// Reading failed; the reason.
    Unreadable(String),
    /// A skillc artifact (an output, never an input): left out of the workspace.
    Artifact,
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
            content: FileContent::Bytes(bytes.into().into()),
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
/// Symbolic links may point anywhere inside `boundary` (a canonical folder). Hidden folders
/// that hold skills are named in one warning.
pub(crate) fn read_tree(
    root: &Path,
    prefix: &str,
    boundary: &Path,
) -> Result<(Vec<RawFile>, Vec<Diagnostic>), Error> {
    let tree = read_tree_parts(root, prefix, boundary)?;
    let mut diagnostics = tree.diagnostics;
    diagnostics.extend(hidden_warning(&tree.hidden_skills));
    Ok((tree.files, diagnostics))
}

/// What walking a folder found.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tree {
    /// The regular files, read, in path order.
    pub files: Vec<RawFile>,
    /// Problems met on the way.
    pub diagnostics: Vec<Diagnostic>,
    /// Hidden folders skipped although they hold skills (`.curated/`), sorted.
    pub hidden_skills: Vec<String>,
    /// Files and folders skipped as caches, dependencies or hidden (`__pycache__`, `x.pyc`,
    /// `node_modules`, `.setup.sh`), sorted: never read, but a client given the folder may run
    /// them (content safety names them).
    pub skipped: Vec<String>,
    /// Files a [`ReadCache`] knew unchanged since its last read.
    pub unchanged: Unchanged,
    /// Some file or folder was reached through a symbolic link: a change to its target shows
    /// up under another path than the one the workspace reads.
    pub linked: bool,
}

/// Which files of a [`Tree`] hold what the last read of them held, by relative path: a walk
/// lists them, a watcher that knows the few files that changed names those.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unchanged {
    /// These files and no others.
    Only(std::collections::HashSet<String>),
    /// Every file but these.
    AllBut(std::collections::HashSet<String>),
}

impl Default for Unchanged {
    fn default() -> Self {
        Unchanged::Only(Default::default())
    }
}

impl Unchanged {
    /// Whether the file at `rel` is unchanged.
    pub(crate) fn contains(&self, rel: &str) -> bool {
        match self {
            Unchanged::Only(files) => files.contains(rel),
            Unchanged::AllBut(files) => !files.contains(rel),
        }
    }

    /// Counts the file at `rel` as changed.
    pub(crate) fn remove(&mut self, rel: &str) {
        match self {
            Unchanged::Only(files) => {
                files.remove(rel);
            }
            Unchanged::AllBut(files) => {
                files.insert(rel.to_string());
            }
        }
    }
}

/// Like [`read_tree`], with the skipped hidden folders apart (the caller may read some of
/// them after all, as declared roots).
pub(crate) fn read_tree_parts(root: &Path, prefix: &str, boundary: &Path) -> Result<Tree, Error> {
    read_tree_cached(root, prefix, boundary, None)
}

/// [`read_tree_parts`], taking from `cache` the listing of every folder and the content of
/// every file whose status says it has not changed since it was read (see [`ReadCache`]).
pub(crate) fn read_tree_cached(
    root: &Path,
    prefix: &str,
    boundary: &Path,
    cache: Option<&ReadCache>,
) -> Result<Tree, Error> {
    // One pool of I/O threads for the walk and the reads (each would make its own).
    on_io_threads(|| {
        let listed = walk(root, prefix, boundary, cache)?;
        Ok(read_listed(&listed, cache, |_| true))
    })
}

/// Reads the files of a walk's listing that `keep` selects by relative path (a batch of
/// clients), taking from `cache` what it knows unchanged.
pub(crate) fn read_listed(
    listed: &Listed,
    cache: Option<&ReadCache>,
    keep: impl Fn(&str) -> bool + Sync,
) -> Tree {
    use rayon::prelude::*;
    let read: Vec<(RawFile, bool)> = on_io_threads(|| {
        (listed.found.par_iter())
            .filter(|(rel, _)| keep(rel))
            .map(|(rel, path)| {
                let streamed = !large::may_have_role(rel);
                let (content, unchanged) = match cache {
                    Some(c) => c.read(path, streamed),
                    None => (read_file(path, streamed), false),
                };
                let rel = rel.clone();
                (RawFile { rel, content }, unchanged)
            })
            .collect()
    });
    let unchanged = Unchanged::Only(
        read.iter()
            .filter(|(_, unchanged)| *unchanged)
            .map(|(f, _)| f.rel.clone())
            .collect(),
    );
    let mut files: Vec<RawFile> = read.into_iter().map(|(f, _)| f).collect();
    files.retain(|f| f.content != FileContent::Artifact);
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Tree {
        files,
        diagnostics: listed.diagnostics.clone(),
        hidden_skills: listed.hidden_skills.clone(),
        skipped: listed.skipped.clone(),
        unchanged,
        linked: listed.linked,
    }
}

/// The canonical folder of a workspace: symbolic links inside it may point anywhere below it.
pub(crate) fn canonical_root(root: &Path) -> Result<PathBuf, Error> {
    root.canonicalize().map_err(|source| Error::Workspace {
        path: root.to_path_buf(),
        source,
    })
}

/// What a walk found before reading any file.
#[derive(Debug, Default)]
pub(crate) struct Listed {
    /// The files a read would read: relative path and path on disk, in path order.
    pub found: Vec<(String, PathBuf)>,
    /// Problems met on the way.
    pub diagnostics: Vec<Diagnostic>,
    /// Hidden folders skipped although they hold skills, sorted.
    pub hidden_skills: Vec<String>,
    /// See [`Tree::skipped`].
    pub skipped: Vec<String>,
    /// Some file or folder was reached through a symbolic link.
    pub linked: bool,
}

/// The files [`read_tree_parts`] would read, without reading them.
pub(crate) fn list_tree(root: &Path, prefix: &str, boundary: &Path) -> Result<Listed, Error> {
    walk(root, prefix, boundary, None)
}

fn walk(
    root: &Path,
    prefix: &str,
    boundary: &Path,
    cache: Option<&ReadCache>,
) -> Result<Listed, Error> {
    let canonical = canonical_root(root)?;
    if !canonical.is_dir() {
        return Err(Error::Workspace {
            path: root.to_path_buf(),
            source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
        });
    }
    let mut walk = Walk {
        cache,
        boundary: boundary.to_path_buf(),
        root: canonical,
        found: Vec::new(),
        diagnostics: Vec::new(),
        hidden_skills: Vec::new(),
        skipped: Vec::new(),
        linked: false,
        stack: vec![root.to_path_buf()],
    };
    on_io_threads(|| walk.dir(root, prefix));
    walk.found.sort();
    walk.hidden_skills.sort();
    walk.skipped.sort();
    Ok(Listed {
        found: walk.found,
        diagnostics: walk.diagnostics,
        hidden_skills: walk.hidden_skills,
        skipped: walk.skipped,
        linked: walk.linked,
    })
}

/// Files editors and systems leave beside what is edited (swap files, backups, lock files,
/// Finder's `.DS_Store`): skipped and not worth naming.
fn is_editor_litter(name: &str) -> bool {
    name == ".DS_Store"
        || name.starts_with(".#")
        || name.ends_with('~')
        || [".swp", ".swo", ".swx", ".tmp", ".bak"]
            .iter()
            .any(|e| name.ends_with(e))
}

/// Reads a regular file unless it is over [`MAX_FILE_BYTES`] (checked on the open file, so a
/// file swapped for a pipe after the walk is still refused rather than read forever).
pub(crate) fn read_capped(path: &Path) -> FileContent {
    read_file(path, false)
}

/// [`read_capped`]; with `streamed`, a file over [`STREAM_ABOVE`](large::STREAM_ABOVE) bytes is hashed in chunks and
/// not held ([`FileContent::Large`]).
pub(crate) fn read_file(path: &Path, streamed: bool) -> FileContent {
    use large::STREAM_ABOVE;
    use std::io::Read;
    let mut f = match open_nonblocking(path) {
        Ok(f) => f,
        Err(e) => return FileContent::Unreadable(e.to_string()),
    };
    let meta = match f.metadata() {
        Ok(m) => m,
        Err(e) => return FileContent::Unreadable(e.to_string()),
    };
    if !meta.file_type().is_file() {
        return FileContent::Unreadable(format!(
            "it is {}; only regular files are read",
            special_kind(&meta.file_type())
        ));
    }
    let size = meta.len();
    if size > MAX_FILE_BYTES {
        // An artifact is often larger than any input may be: it is left out, not refused.
        let mut header = [0u8; 100];
        if f.read_exact(&mut header).is_ok() && skillc_runtime::is_artifact_header(&header) {
            return FileContent::Artifact;
        }
        return FileContent::TooLarge(size);
    }
    if streamed && size > STREAM_ABOVE {
        return large::hash(f, path, size);
    }
    let mut bytes = Vec::with_capacity(size as usize);
    match f.read_to_end(&mut bytes) {
        Ok(_) if skillc_runtime::is_artifact_header(&bytes) => FileContent::Artifact,
        Ok(_) => FileContent::Bytes(bytes.into()),
        Err(e) => FileContent::Unreadable(e.to_string()),
    }
}

/// Whether the file at `path` is a skillc artifact (by its SQLite header).
pub(crate) fn is_artifact_file(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 100];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| skillc_runtime::is_artifact_header(&header))
}

/// Whether no load of the workspace reads `rel` (relative to the workspace): a skipped file
/// name, or a part that is a tool's folder. A path in another hidden folder, which a walk
/// skips, is read when the workspace declares that folder a root.
pub(crate) fn never_read(rel: &Path) -> bool {
    let names: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let tool = |n: &String| is_tool_folder(n) || n == "node_modules" || n == "__pycache__";
    names.last().is_some_and(|n| is_skipped(n)) || names.iter().any(tool)
}

struct Walk<'c> {
    cache: Option<&'c ReadCache>,
    boundary: PathBuf,
    /// The canonical folder being walked.
    root: PathBuf,
    /// Files to read: relative path and path on disk.
    found: Vec<(String, PathBuf)>,
    diagnostics: Vec<Diagnostic>,
    /// Hidden folders skipped although they hold skills (workspace-relative, with `/`).
    hidden_skills: Vec<String>,
    /// See [`Tree::skipped`].
    skipped: Vec<String>,
    /// A symbolic link was followed.
    linked: bool,
    /// Folders being walked, outermost first (canonicalised only when a link needs it).
    stack: Vec<PathBuf>,
}

/// The one warning that names every skipped hidden folder holding skills, if any.
pub(crate) fn hidden_warning(folders: &[String]) -> Option<Diagnostic> {
    let first = folders.first()?.trim_end_matches('/');
    let warning = Diagnostic::new(
        codes::HIDDEN_SKIPPED,
        "",
        Pos::start(),
        format!(
            "hidden folders hold skills and are skipped: {}",
            folders.join(", ")
        ),
    )
    .with_help(format!(
        "to include its skills, declare the folder as the custom root in workspace.yaml: `roots: {{ custom: {first} }}`"
    ));
    Some(warning)
}

impl Walk<'_> {
    fn dir(&mut self, dir: &Path, prefix: &str) {
        let names = match self.cache {
            Some(c) => c.list(dir, |d| self.list(d, prefix)),
            None => self.list(dir, prefix),
        };
        self.walk_entries(names, prefix);
    }

    /// A folder's entries, sorted by name (names that are not UTF-8 are reported and left out).
    fn list(&mut self, dir: &Path, prefix: &str) -> Option<Listing> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                self.problem(
                    codes::UNREADABLE,
                    prefix,
                    format!("cannot list folder: {e}"),
                );
                return None;
            }
        };
        let mut names: Listing = Vec::new();
        for e in entries.filter_map(Result::ok) {
            let path = e.path();
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                // Two names that differ only in bytes that are not UTF-8 would read alike:
                // each is reported and left out, never merged or silently dropped.
                let lossy = e.file_name().to_string_lossy().into_owned();
                let escaped = escape_name(&e.file_name());
                self.diagnostics.push(
                    Diagnostic::new(
                        codes::INVALID_UTF8,
                        &format!("{prefix}{lossy}"),
                        Pos::start(),
                        format!("the name `{escaped}` is not valid UTF-8; it is not read"),
                    )
                    .with_help("rename it with UTF-8 characters"),
                );
                continue;
            };
            if name.chars().any(char::is_control) {
                // Printed raw, a name holding ESC or BEL would drive the terminal or CI log
                // that shows it: reported escaped and left out.
                let escaped = name.escape_debug().to_string();
                self.diagnostics.push(
                    Diagnostic::new(
                        codes::UNREADABLE,
                        &format!("{prefix}{escaped}"),
                        Pos::start(),
                        format!("the name `{escaped}` holds control characters; it is not read"),
                    )
                    .with_help("rename it without control characters"),
                );
                continue;
            }
            names.push((name, path, e.file_type().ok()));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        Some(names)
    }

    fn walk_entries(&mut self, names: Option<Listing>, prefix: &str) {
        let Some(names) = names else { return };
        let mut subdirs = Vec::new();
        for (name, path, kind) in names {
            let rel = format!("{prefix}{name}");
            if name == PLUGIN_FOLDER && kind.is_some_and(|k| k.is_dir()) {
                self.plugin_manifests(&path, &rel);
                continue;
            }
            if is_skipped(&name) {
                let hidden_dir = name.starts_with('.') && kind.is_some_and(|k| k.is_dir());
                if hidden_dir && !is_tool_folder(&name) && holds_skill(&path) {
                    self.hidden_skills.push(format!("{rel}/"));
                }
                if !is_tool_folder(&name) && !is_editor_litter(&name) {
                    let folder = kind.is_some_and(|k| k.is_dir());
                    self.skipped
                        .push(if folder { format!("{rel}/") } else { rel });
                }
                continue;
            }
            match kind {
                Some(k) if k.is_symlink() => self.link(&path, &rel),
                Some(k) if k.is_dir() && is_role_file(&name) => self.problem(
                    codes::UNREADABLE,
                    &rel,
                    format!("`{name}` is a folder, not a file; it is not read"),
                ),
                Some(k) if k.is_dir() => subdirs.push((path, format!("{rel}/"))),
                Some(k) if k.is_file() => self.found.push((rel, path)),
                Some(k) => self.not_regular(&rel, &k),
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
                    cache: self.cache,
                    boundary: self.boundary.clone(),
                    root: self.root.clone(),
                    found: Vec::new(),
                    diagnostics: Vec::new(),
                    hidden_skills: Vec::new(),
                    skipped: Vec::new(),
                    linked: false,
                    stack,
                };
                w.dir(&path, &prefix);
                w
            })
            .collect();
        for w in parts {
            self.found.extend(w.found);
            self.diagnostics.extend(w.diagnostics);
            self.hidden_skills.extend(w.hidden_skills);
            self.skipped.extend(w.skipped);
            self.linked |= w.linked;
        }
    }

    /// The manifests of a Claude Code plugin folder (`.claude-plugin/`), the only files of a
    /// hidden folder a walk reads: regular files, never links.
    fn plugin_manifests(&mut self, dir: &Path, rel: &str) {
        for file in PLUGIN_MANIFESTS {
            let path = dir.join(file);
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                self.found.push((format!("{rel}/{file}"), path));
            }
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
        let kind = match std::fs::metadata(&target) {
            Ok(m) => m.file_type(),
            Err(e) => {
                return self.problem(
                    codes::UNREADABLE,
                    rel,
                    format!("symbolic link cannot be followed: {e}"),
                )
            }
        };
        self.linked = true;
        if kind.is_file() {
            self.found.push((rel.to_string(), path.to_path_buf()));
            return;
        }
        if !kind.is_dir() {
            return self.not_regular(rel, &kind);
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
        // An alias of a folder that the walk reaches by its own path (`docx -> docx-official`)
        // is the same skill, read once: under its real path.
        let walked_directly = target.strip_prefix(&self.root).is_ok_and(|inner| {
            inner.components().all(|c| match c {
                std::path::Component::Normal(n) => n.to_str().is_some_and(|n| !is_skipped(n)),
                _ => false,
            })
        });
        if walked_directly {
            return;
        }
        self.stack.push(target);
        self.dir(path, &format!("{rel}/"));
        self.stack.pop();
    }

    fn not_regular(&mut self, rel: &str, kind: &std::fs::FileType) {
        let what = special_kind(kind);
        self.diagnostics.push(
            Diagnostic::new(
                codes::UNREADABLE,
                rel,
                Pos::start(),
                format!("`{rel}` is {what}, not a regular file; it is not read"),
            )
            .with_help("skills are made of regular files; remove it or replace it with a file"),
        );
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

/// A file name with bytes that are not UTF-8 written as `\xNN`.
fn escape_name(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes().escape_ascii().to_string()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned()
    }
}

/// A file's bytes, or the diagnostic that says why they are unusable.
pub(crate) fn bytes_of(file: &RawFile) -> Result<&[u8], Diagnostic> {
    match &file.content {
        FileContent::Bytes(b) => Ok(b),
        FileContent::TooLarge(size) => Err(Diagnostic::new(
            codes::TOO_LARGE,
            &file.rel,
            Pos::start(),
            format!("file is {size} bytes, over the {MAX_FILE_BYTES} byte limit"),
        )),
        FileContent::Artifact => Err(Diagnostic::new(
            codes::UNREADABLE,
            &file.rel,
            Pos::start(),
            "a skillc artifact is an output, not an input",
        )),
        FileContent::Unreadable(why) => Err(Diagnostic::new(
            codes::UNREADABLE,
            &file.rel,
            Pos::start(),
            format!("cannot read file: {why}"),
        )),
        // Only files without a role are read in passing, and those are assets.
        FileContent::Large(large) => Err(Diagnostic::new(
            codes::UNREADABLE,
            &file.rel,
            Pos::start(),
            format!("file of {} bytes was not held in memory", large.size),
        )),
    }
}

/// A file's bytes, read again from disk if it was read in passing ([`FileContent::Large`]).
pub(crate) fn contents_of(file: &RawFile) -> Result<std::borrow::Cow<'_, [u8]>, Diagnostic> {
    match &file.content {
        FileContent::Large(large) => {
            let mut bytes = Vec::with_capacity(large.size as usize);
            large
                .stream(|chunk| {
                    bytes.extend_from_slice(chunk);
                    Ok(())
                })
                .map_err(|e| {
                    Diagnostic::new(
                        codes::UNREADABLE,
                        &file.rel,
                        Pos::start(),
                        format!("cannot read file: {e}"),
                    )
                })?;
            Ok(std::borrow::Cow::Owned(bytes))
        }
        _ => bytes_of(file).map(std::borrow::Cow::Borrowed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_hidden_folder_may_be_read_one_in_a_tool_folder_never() {
        for never in [
            ".git/index",
            "a/.SKILL.md.swp",
            "a/notes~",
            "node_modules/x/y.md",
            ".skillc/a.db",
        ] {
            assert!(never_read(Path::new(never)), "{never}");
        }
        // `.curated/` may be a declared root; a skill's own file is read.
        for maybe in [
            ".curated/x/SKILL.md",
            "public/x/SKILL.md",
            "public/x/notes.bak",
        ] {
            assert!(!never_read(Path::new(maybe)), "{maybe}");
        }
    }

    fn contents(tree: &Tree) -> Vec<(String, Vec<u8>)> {
        tree.files
            .iter()
            .map(|f| match &f.content {
                FileContent::Bytes(b) => (f.rel.clone(), b.to_vec()),
                other => panic!("{}: {other:?}", f.rel),
            })
            .collect()
    }

    #[test]
    fn cached_reads_see_every_change() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let read =
            |cache: &ReadCache| contents(&read_tree_cached(&root, "", &root, Some(cache)).unwrap());
        std::fs::write(root.join("a.md"), "one").unwrap();
        let pause = || std::thread::sleep(std::time::Duration::from_millis(60));
        pause();
        let cache = ReadCache::default();
        assert_eq!(read(&cache), [("a.md".to_string(), b"one".to_vec())]);
        assert_eq!(read(&cache), [("a.md".to_string(), b"one".to_vec())]);
        assert_eq!(
            cache.files.lock().unwrap().len(),
            1,
            "a settled file is kept"
        );
        // Same size, right after a read: the change time gives it away.
        std::fs::write(root.join("a.md"), "two").unwrap();
        assert_eq!(read(&cache), [("a.md".to_string(), b"two".to_vec())]);
        std::fs::write(root.join("b.md"), "new").unwrap();
        let with_b = [
            ("a.md".to_string(), b"two".to_vec()),
            ("b.md".to_string(), b"new".to_vec()),
        ];
        assert_eq!(read(&cache), with_b);
        pause();
        assert_eq!(read(&cache), with_b);
        std::fs::remove_file(root.join("a.md")).unwrap();
        assert_eq!(read(&cache), [("b.md".to_string(), b"new".to_vec())]);
    }
}
