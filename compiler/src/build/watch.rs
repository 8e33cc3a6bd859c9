//! `skillc watch`: rebuild the artifact when the workspace changes (notify, debounced).
//!
//! [`is_relevant`] is the pure part the tests drive: which changed paths warrant a rebuild
//! (editor temp files, hidden files and the artifact itself do not).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::build::{self, BuildOptions, BuildReport};

/// Quiet time after the last change before a rebuild starts. An editor's save (a temporary
/// file, a rename, a backup removed) reaches inotify within a few milliseconds; a longer
/// burst (a checkout) keeps extending the wait. A change that lands after the rebuild started
/// queues the next one, and a rebuild of unchanged inputs writes nothing, so a short wait
/// costs at most one extra build.
pub const DEBOUNCE: Duration = Duration::from_millis(20);

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
    Failed(build::Error),
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
    Output(build::Error),
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

/// Whether a change to `path` should trigger a rebuild of the workspace at `root` into
/// `output`.
pub fn is_relevant(path: &Path, root: &Path, output: &Path) -> bool {
    if is_output(path, output) {
        return false;
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    !rel.components().any(|c| {
        let name = c.as_os_str().to_string_lossy();
        is_temp_name(&name) || name == "node_modules" || name == "__pycache__"
    })
}

/// Builds once, then after every relevant change, until the process ends.
pub fn watch(root: &Path, output: &Path, mut on_event: impl FnMut(Event)) -> Result<(), Error> {
    build::guard_output(root, output).map_err(Error::Output)?;
    let root_abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let out_abs = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let (tx, rx) = mpsc::channel();
    // `None`: the events lapsed (a rescan notice, a watcher error); anything may have changed.
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let _ = match res {
            Ok(ev) if ev.need_rescan() => tx.send(None),
            Ok(ev) if changes_content(&ev.kind) => tx.send(Some(ev.paths)),
            Ok(_) => Ok(()),
            Err(_) => tx.send(None),
        };
    })
    .map_err(|source| Error::Notify {
        path: root.to_path_buf(),
        source,
    })?;
    watcher
        .watch(&root_abs, RecursiveMode::Recursive)
        .map_err(|source| Error::Notify {
            path: root.to_path_buf(),
            source,
        })?;
    // Rebuilds take from the previous build what an edit cannot have changed.
    let mut session = build::Session::default();
    let run = |session: &mut build::Session, on_event: &mut dyn FnMut(Event)| {
        let started = Instant::now();
        match build::rebuild(root, output, &BuildOptions::default(), session) {
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
    while let Ok(first) = rx.recv() {
        burst.add(first, &root_abs, &out_abs);
        // Debounce: gather the burst an editor's save makes.
        while let Ok(more) = rx.recv_timeout(DEBOUNCE) {
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
    Ok(())
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
}

impl Default for Burst {
    fn default() -> Self {
        Burst {
            relevant: false,
            files: Some(BTreeSet::new()),
        }
    }
}

impl Burst {
    /// Adds one event's paths (`None`: the events lapsed).
    fn add(&mut self, paths: Option<Vec<PathBuf>>, root: &Path, output: &Path) {
        let Some(paths) = paths else {
            self.relevant = true;
            self.files = None;
            return;
        };
        let paths: Vec<PathBuf> = paths
            .into_iter()
            .filter(|p| !is_output(p, output))
            .collect();
        self.relevant |= paths.iter().any(|p| is_relevant(p, root, output));
        match (files_read(&paths, root), self.files.as_mut()) {
            (Some(read), Some(files)) => files.extend(read),
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
        let paths = |ps: &[&str]| Some(ps.iter().map(PathBuf::from).collect());
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
        ] {
            assert!(!is_relevant(Path::new(p), root, out), "{p}");
        }
    }
}
