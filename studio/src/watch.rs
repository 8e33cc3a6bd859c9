//! Watching a workspace for changes made outside the studio: its top folder, and every folder
//! in it but the studio's own output (`.skillc/`) and git's (`.git/`). A build writes its
//! artifact in a thousand writes, each an event the watcher's thread woke up for: a fifth of
//! a rebuild's time on two cores. A folder made at the top later is watched from then on.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, Weak};

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// Top folders never watched.
const UNWATCHED: &[&str] = &[".skillc", ".git"];

/// A running watch; dropping it stops it.
pub struct DiskWatcher {
    _watcher: Arc<Mutex<RecommendedWatcher>>,
}

/// Whether `path` is a folder at the top of `root` that is watched.
fn watched_top_folder(root: &Path, path: &Path) -> bool {
    path.parent() == Some(root)
        && path.is_dir()
        && path
            .file_name()
            .is_some_and(|n| !UNWATCHED.iter().any(|u| n == *u))
}

impl DiskWatcher {
    /// Watches `root`, handing every event to `on_event`; `None` when the system refuses.
    pub fn start(
        root: &Path,
        on_event: impl Fn(notify::Result<Event>) + Send + 'static,
    ) -> Option<DiskWatcher> {
        let (new_folders, arrived) = mpsc::channel::<PathBuf>();
        let top = root.to_path_buf();
        let watcher = notify::recommended_watcher(move |res: notify::Result<Event>| {
            if let Ok(ev) = &res {
                let made = matches!(ev.kind, EventKind::Create(_) | EventKind::Modify(_));
                for p in ev
                    .paths
                    .iter()
                    .filter(|p| made && watched_top_folder(&top, p))
                {
                    let _ = new_folders.send(p.clone());
                }
            }
            on_event(res);
        })
        .ok()?;
        let watcher = Arc::new(Mutex::new(watcher));
        {
            let mut w = watcher.lock().ok()?;
            w.watch(root, RecursiveMode::NonRecursive).ok()?;
            for entry in std::fs::read_dir(root).ok()?.flatten() {
                let path = entry.path();
                if watched_top_folder(root, &path) {
                    w.watch(&path, RecursiveMode::Recursive).ok()?;
                }
            }
        }
        // Watches folders made at the top from another thread: the watcher's own thread runs
        // the callback and would wait for itself. The thread ends with the watcher.
        let weak: Weak<Mutex<RecommendedWatcher>> = Arc::downgrade(&watcher);
        std::thread::spawn(move || {
            for folder in arrived {
                let Some(watcher) = weak.upgrade() else { break };
                let mut w = watcher.lock().unwrap_or_else(|e| e.into_inner());
                let _ = w.watch(&folder, RecursiveMode::Recursive);
            }
        });
        Some(DiskWatcher { _watcher: watcher })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn seen_within(seen: &Mutex<Vec<PathBuf>>, what: &Path) -> bool {
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if seen.lock().unwrap().iter().any(|p| p.starts_with(what)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[test]
    fn the_studio_s_output_is_not_watched_and_new_folders_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("public/a")).unwrap();
        std::fs::create_dir_all(root.join(".skillc")).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let _w = DiskWatcher::start(&root, move |res| {
            if let Ok(ev) = res {
                log.lock().unwrap().extend(ev.paths);
            }
        })
        .expect("the watch starts");
        std::fs::write(root.join(".skillc/artifact.db"), "x").unwrap();
        std::fs::write(root.join("public/a/SKILL.md"), "x").unwrap();
        assert!(seen_within(&seen, &root.join("public/a/SKILL.md")));
        // A folder made at the top after the watch started: what is written in it is seen.
        std::fs::create_dir_all(root.join("clients")).unwrap();
        assert!(seen_within(&seen, &root.join("clients")));
        std::thread::sleep(Duration::from_millis(200));
        std::fs::write(root.join("clients/README.md"), "x").unwrap();
        assert!(seen_within(&seen, &root.join("clients/README.md")));
        assert!(!seen
            .lock()
            .unwrap()
            .iter()
            .any(|p| p.starts_with(root.join(".skillc"))));
    }
}
