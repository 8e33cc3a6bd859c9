//! `skillc watch`: rebuild the artifact when the workspace changes (notify, debounced).
//!
//! [`is_relevant`] is the pure part the tests drive: which changed paths warrant a rebuild
//! (editor temp files, hidden files and the artifact itself do not).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::pipeline::{self, BuildOptions, BuildReport};

/// Quiet time after the last change before a rebuild starts. An editor's save (a temporary
/// file, a rename, a backup removed) reaches inotify within a few milliseconds; a longer
/// burst (a checkout) keeps extending the wait. A change that lands after the rebuild started
/// queues the next one, and a rebuild of unchanged inputs writes nothing, so a short wait
/// costs at most one extra build.
pub const DEBOUNCE: Duration = Duration::from_millis(20);

/// Quiet time instead of [`DEBOUNCE`] once every file the burst wrote was closed again (Linux
/// reports the close of a file opened for writing) and the burst did nothing less certain (a
/// folder made or removed, events that lapsed): the save is complete, and only what it set off
/// at once (a backup removed) is waited for. Where closes are not reported, every written file
/// stays open to the watcher and the debounce holds.
pub const SETTLE: Duration = Duration::from_millis(3);

/// What the watcher reports.
pub enum Event {
    /// A build ran (its report says whether it wrote the artifact).
    Built {
        /// The build's report.
        report: BuildReport,
        /// Wall time of the build, in milliseconds.
        millis: u128,
    },
    /// A build could not run (I/O); the watcher keeps going.
    Failed(pipeline::Error),
}

/// Failures that stop the watcher before it starts.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file watcher could not start.
    #[error("cannot watch `{path}`: {source}")]
    Notify {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: notify::Error,
    },
    /// The output path is refused (one of the workspace's inputs).
    #[error(transparent)]
    Output(pipeline::Error),
}

/// Editor and tool droppings that never warrant a rebuild.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.')
        || name.starts_with('#')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".tmp")
        || name.ends_with(".bak")
        || name == "4913"
}

/// Whether an event can change what a build reads. Reads (the build's own included) and
/// metadata-only changes cannot; reacting to them would rebuild forever.
pub fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::event::{EventKind, ModifyKind};
    match kind {
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Other => false,
    }
}

/// The artifact, or a file named like it (its temporary file is renamed over it).
fn is_output(path: &Path, output: &Path) -> bool {
    path == output
        || output
            .file_name()
            .is_some_and(|n| path.file_name() == Some(n))
}

/// Whether `path` is under `.skillc/external/`, where `skillc fetch` stores the outside
/// skills a build reads (the one hidden folder a build reads).
fn is_stored_copy(path: &Path, root: &Path) -> bool {
    path.strip_prefix(root)
        .is_ok_and(|rel| rel.starts_with(Path::new(".skillc").join("external")))
}

/// Whether a change to `path` should trigger a rebuild of the workspace at `root` into
/// `output`.
pub fn is_relevant(path: &Path, root: &Path, output: &Path) -> bool {
    if is_output(path, output) {
        return false;
    }
    if is_stored_copy(path, root) {
        return true;
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    !rel.components().any(|c| {
        let name = c.as_os_str().to_string_lossy();
        is_temp_name(&name) || name == "node_modules" || name == "__pycache__"
    })
}

/// How often watch looks whether its workspace folder was replaced (moved away, another put at
/// its path): the watcher follows the folder it was given, not the path.
pub const FOLDER_CHECK: Duration = Duration::from_millis(500);

/// A watcher's report: an event's kind and paths, or `None` when the events lapsed.
type Report = Option<(notify::EventKind, Vec<PathBuf>)>;

/// Watches the folder now at `root` (recursively), reporting into a new channel.
fn watch_folder(
    root: &Path,
) -> Result<(notify::RecommendedWatcher, mpsc::Receiver<Report>), Error> {
    let (tx, rx) = mpsc::channel();
    // `None`: the events lapsed (a rescan notice, a watcher error); anything may have changed.
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let _ = match res {
            Ok(ev) if ev.need_rescan() => tx.send(None),
            Ok(ev) if changes_content(&ev.kind) || closes_a_write(&ev.kind) => {
                tx.send(Some((ev.kind, ev.paths)))
            }
            Ok(_) => Ok(()),
            Err(_) => tx.send(None),
        };
    })
    .map_err(|source| Error::Notify {
        path: root.to_path_buf(),
        source,
    })?;
    watcher
        .watch(root, RecursiveMode::Recursive)
        .map_err(|source| Error::Notify {
            path: root.to_path_buf(),
            source,
        })?;
    Ok((watcher, rx))
}

/// Which folder is at `path` (device and inode), if one is.
fn folder_at(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_dir())
            .map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Builds once, then after every relevant change, until the process ends. A workspace folder
/// replaced at its path is watched anew and built again.
pub fn watch(root: &Path, output: &Path, mut on_event: impl FnMut(Event)) -> Result<(), Error> {
    pipeline::guard_output(root, output).map_err(Error::Output)?;
    let output = &pipeline::output_file(output);
    let mut root_abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let out_abs = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let mut watched = folder_at(&root_abs);
    let (mut watcher, mut rx) = watch_folder(&root_abs)?;
    // Rebuilds take from the previous build what an edit cannot have changed.
    let mut session = pipeline::Session::default();
    let run = |session: &mut pipeline::Session, on_event: &mut dyn FnMut(Event)| {
        let started = Instant::now();
        match pipeline::rebuild(root, output, &BuildOptions::default(), session) {
            Ok(report) => on_event(Event::Built {
                report,
                millis: started.elapsed().as_millis(),
            }),
            Err(e) => on_event(Event::Failed(e)),
        }
    };
    run(&mut session, &mut on_event);
    // Changes gathered until a rebuild (one that warrants none still counts for the next).
    let mut burst = Burst::default();
    loop {
        match rx.recv_timeout(FOLDER_CHECK) {
            Ok(first) => {
                burst.add(first, &root_abs, &out_abs);
                // Debounce: gather the burst an editor's save makes.
                while let Ok(more) = rx.recv_timeout(burst.quiet_time()) {
                    burst.add(more, &root_abs, &out_abs);
                }
                if burst.relevant {
                    if let Some(files) = std::mem::take(&mut burst).files {
                        // The load reads these again instead of walking the whole folder.
                        session.assume_changed_only(files);
                    }
                    run(&mut session, &mut on_event);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        }
        let now = folder_at(root);
        if now.is_some() && now != watched {
            // Another folder is at the path: watch it, and build it from scratch.
            root_abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            drop(watcher);
            (watcher, rx) = watch_folder(&root_abs)?;
            watched = now;
            session = pipeline::Session::default();
            burst = Burst::default();
            run(&mut session, &mut on_event);
        }
    }
}

/// Whether an event is the close of a file that was open for writing: its writes are done.
fn closes_a_write(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, EventKind};
    matches!(
        kind,
        EventKind::Access(AccessKind::Close(AccessMode::Write))
    )
}

/// What a burst of file events says changed.
#[derive(Debug, PartialEq)]
struct Burst {
    /// A change a build reads: a rebuild is due.
    relevant: bool,
    /// The workspace-relative paths of the changes a load reads (an editor's backup in a skill
    /// folder warrants no rebuild but is read as an asset), or `None` when one cannot be named
    /// (the events lapsed, a path outside the workspace): the load then walks the folder.
    files: Option<BTreeSet<String>>,
    /// Relevant files written or made and not closed since: their writer may not be done.
    open: BTreeSet<PathBuf>,
    /// An event whose end cannot be told (a folder made or removed, lapsed events).
    unsure: bool,
}

impl Default for Burst {
    fn default() -> Self {
        Burst {
            relevant: false,
            files: Some(BTreeSet::new()),
            open: BTreeSet::new(),
            unsure: false,
        }
    }
}

impl Burst {
    /// How long a quiet spell ends the burst: [`SETTLE`] once it is known complete, else
    /// [`DEBOUNCE`].
    fn quiet_time(&self) -> Duration {
        if self.unsure || !self.open.is_empty() {
            DEBOUNCE
        } else {
            SETTLE
        }
    }

    /// Follows which files are open for writing through one event.
    fn track(&mut self, kind: &notify::EventKind, paths: &[PathBuf]) {
        use notify::event::{CreateKind, EventKind, ModifyKind, RemoveKind};
        if paths.is_empty() {
            return;
        }
        match kind {
            EventKind::Create(CreateKind::File)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any) => {
                self.open.extend(paths.iter().cloned());
            }
            EventKind::Access(_) | EventKind::Remove(RemoveKind::File) => {
                for p in paths {
                    self.open.remove(p);
                }
            }
            // A rename is complete when reported; metadata changes no content.
            EventKind::Modify(ModifyKind::Name(_) | ModifyKind::Metadata(_)) => {}
            _ => self.unsure = true,
        }
    }

    /// Adds one watcher's report.
    fn add(&mut self, report: Report, root: &Path, output: &Path) {
        let Some((kind, paths)) = report else {
            self.relevant = true;
            self.files = None;
            self.unsure = true;
            return;
        };
        let paths: Vec<PathBuf> = paths
            .into_iter()
            .filter(|p| !is_output(p, output))
            .collect();
        // Only what warrants a rebuild: an editor keeps its swap file open as long as it runs.
        let watched: Vec<PathBuf> = paths
            .iter()
            .filter(|p| is_relevant(p, root, output))
            .cloned()
            .collect();
        self.track(&kind, &watched);
        if closes_a_write(&kind) {
            return; // the writes before it were reported by their own events
        }
        self.relevant |= !watched.is_empty();
        // A fetch's stored copies are no files of the walk: the load reads them all again.
        let stored = paths.iter().any(|p| is_stored_copy(p, root));
        match (files_read(&paths, root), self.files.as_mut()) {
            (Some(read), Some(files)) if !stored => files.extend(read),
            _ => self.files = None,
        }
    }
}

/// The workspace-relative names of the `paths` a load reads (those no load reads left out:
/// a tool's folder, a hidden or backup file name), or `None` when one cannot be named (outside
/// the workspace, not UTF-8). A change that warrants no rebuild can still be read (an editor's
/// backup in a skill folder is an asset), so this is wider than [`is_relevant`].
pub fn files_read(paths: &[PathBuf], root: &Path) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for path in paths {
        let rel = path.strip_prefix(root).ok()?;
        if !crate::discover::fsio::never_read(rel) {
            names.push(relative_name(rel)?);
        }
    }
    Some(names)
}

/// `a/b/SKILL.md` for a path below the workspace, if every part is plain UTF-8.
fn relative_name(rel: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = rel
        .components()
        .map(|c| match c {
            std::path::Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    parts.filter(|p| !p.is_empty()).map(|p| p.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_metadata_changes_are_not_content_changes() {
        use notify::event::{AccessKind, CreateKind, EventKind, MetadataKind, ModifyKind};
        assert!(!changes_content(&EventKind::Access(AccessKind::Any)));
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Any
        ))));
        assert!(changes_content(&EventKind::Modify(ModifyKind::Any)));
        assert!(changes_content(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn skill_edits_are_relevant() {
        let root = Path::new("/w");
        let out = Path::new("/out/a.db");
        assert!(is_relevant(Path::new("/w/public/x/SKILL.md"), root, out));
        assert!(is_relevant(Path::new("/w/workspace.yaml"), root, out));
    }

    #[test]
    fn a_burst_names_the_files_it_changed_or_asks_for_a_walk() {
        let (root, out) = (Path::new("/w"), Path::new("/w/a.db"));
        let paths = |ps: &[&str]| Some((written(), ps.iter().map(PathBuf::from).collect()));
        let mut burst = Burst::default();
        burst.add(paths(&["/w/public/x/.SKILL.md.swp", "/w/a.db"]), root, out);
        assert_eq!(burst, Burst::default(), "nothing a build reads");
        // A backup in a skill folder is read as an asset: no rebuild for it, but the next
        // rebuild reads it again.
        burst.add(paths(&["/w/public/x/notes.bak"]), root, out);
        assert!(!burst.relevant);
        assert_eq!(
            burst.files,
            Some(BTreeSet::from(["public/x/notes.bak".to_string()]))
        );
        let mut burst = Burst::default();
        burst.add(paths(&["/w/public/x/SKILL.md"]), root, out);
        burst.add(
            paths(&["/w/public/x/SKILL.md", "/w/workspace.yaml"]),
            root,
            out,
        );
        let named = ["public/x/SKILL.md", "workspace.yaml"].map(String::from);
        assert!(burst.relevant);
        assert_eq!(burst.files, Some(BTreeSet::from(named)));
        // Events that lapsed, or a path that is not below the workspace, cannot be named.
        for lost in [None, paths(&["/elsewhere/SKILL.md"])] {
            let mut burst = Burst::default();
            burst.add(paths(&["/w/public/x/SKILL.md"]), root, out);
            burst.add(lost, root, out);
            assert!(burst.relevant);
            assert_eq!(burst.files, None);
        }
    }

    fn written() -> notify::EventKind {
        use notify::event::{DataChange, ModifyKind};
        notify::EventKind::Modify(ModifyKind::Data(DataChange::Any))
    }

    #[test]
    fn a_burst_waits_the_debounce_until_every_written_file_is_closed() {
        use notify::event::{
            AccessKind, AccessMode, CreateKind, EventKind, ModifyKind, RenameMode,
        };
        let (root, out) = (Path::new("/w"), Path::new("/w/a.db"));
        let report = |kind, p: &str| Some((kind, vec![PathBuf::from(p)]));
        let closed = EventKind::Access(AccessKind::Close(AccessMode::Write));
        let mut burst = Burst::default();
        burst.add(report(written(), "/w/public/x/SKILL.md"), root, out);
        burst.add(report(written(), "/w/public/y/SKILL.md"), root, out);
        assert_eq!(burst.quiet_time(), DEBOUNCE, "two files being written");
        burst.add(report(closed, "/w/public/x/SKILL.md"), root, out);
        assert_eq!(burst.quiet_time(), DEBOUNCE, "one is still open");
        burst.add(report(closed, "/w/public/y/SKILL.md"), root, out);
        assert_eq!(
            burst.quiet_time(),
            SETTLE,
            "both closed: the save is complete"
        );
        let renamed = EventKind::Modify(ModifyKind::Name(RenameMode::To));
        burst.add(report(renamed, "/w/public/z/SKILL.md"), root, out);
        assert_eq!(
            burst.quiet_time(),
            SETTLE,
            "a rename is complete as reported"
        );
        assert!(burst.relevant);
        // A new file is open until closed; a new folder may be filled yet; lapsed events may
        // hide anything.
        let mut burst = Burst::default();
        burst.add(
            report(EventKind::Create(CreateKind::File), "/w/n/SKILL.md"),
            root,
            out,
        );
        assert_eq!(burst.quiet_time(), DEBOUNCE);
        burst.add(
            report(EventKind::Create(CreateKind::Folder), "/w/m"),
            root,
            out,
        );
        burst.add(report(closed, "/w/n/SKILL.md"), root, out);
        assert_eq!(burst.quiet_time(), DEBOUNCE, "a folder was made");
        let mut burst = Burst::default();
        burst.add(None, root, out);
        assert_eq!(burst.quiet_time(), DEBOUNCE, "events lapsed");
    }

    #[test]
    fn editor_temp_files_and_the_artifact_are_not() {
        let root = Path::new("/w");
        let out = Path::new("/w/a.db");
        for p in [
            "/w/public/x/.SKILL.md.swp",
            "/w/public/x/SKILL.md~",
            "/w/public/x/4913",
            "/w/public/x/#SKILL.md#",
            "/w/.git/index",
            "/w/a.db",
            "/w/.a.db.123.tmp",
            "/w/.skillc/check-cache.json",
        ] {
            assert!(!is_relevant(Path::new(p), root, out), "{p}");
        }
        // What `skillc fetch` stores, and its lock, are read by a build.
        for p in ["/w/.skillc/external/vendor__a/x/SKILL.md", "/w/skillc.lock"] {
            assert!(is_relevant(Path::new(p), root, out), "{p}");
        }
        let mut burst = Burst::default();
        let stored = "/w/.skillc/external/vendor__a/x/SKILL.md";
        burst.add(Some((written(), vec![PathBuf::from(stored)])), root, out);
        assert!(burst.relevant && burst.files.is_none(), "{burst:?}");
    }
}
