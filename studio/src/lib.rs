//! Skill Studio's Tauri backend: thin commands over [`session::Session`], which holds the
//! logic (and is what the unit tests drive). Errors reach the UI as `{kind, message,
//! diagnostics}` so it can link each diagnostic to its file and line.

pub mod contract;
pub mod docdiff;
pub mod error;
pub mod form;
pub mod history;
/// What a skill is tied to and whom an edit of it reaches: the compiler's, as `skillc reach`.
pub use skillc::relations;
pub mod releases;
pub mod review;
pub mod session;
pub mod translations;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use session::{
    BuildSummary, ClientPage, DraftCheck, FileState, NewSkill, Overview, Preview, PreviewRequest,
    Saved, Session, StudioError, Toggles, Trashed, WorkspacePage,
};
use tauri::{Emitter, Manager, Runtime, State};

/// The open workspace and the watcher that reports changes made by others.
#[derive(Default)]
pub struct Studio {
    /// The open workspace. Commands share it (each of its caches has its own lock), so a
    /// build does not hold up a keystroke's check, the overview or a preview; opening another
    /// workspace waits for them.
    session: RwLock<Option<Session>>,
    watcher: Mutex<Option<watch::DiskWatcher>>,
}

impl Studio {
    fn with<T>(
        &self,
        f: impl FnOnce(&Session) -> Result<T, StudioError>,
    ) -> Result<T, StudioError> {
        let guard = self
            .session
            .read()
            .map_err(|_| StudioError::request("the studio state is poisoned"))?;
        match guard.as_ref() {
            Some(s) => f(s),
            None => Err(StudioError::request("no workspace is open")),
        }
    }
}

/// Opens a workspace, watching it for changes made outside the studio.
fn open<R: Runtime>(
    app: &tauri::AppHandle<R>,
    studio: &Studio,
    path: &Path,
) -> Result<Overview, StudioError> {
    let session = Session::open(path)?;
    let overview = session.overview()?;
    let root = session.root().to_path_buf();
    let handle = app.clone();
    let watch_root = root.clone();
    let disk = session.disk();
    let watcher = watch::DiskWatcher::start(&root, move |res: notify::Result<notify::Event>| {
        let Ok(ev) = res else {
            disk.changed(); // events were lost (a full queue): assume anything changed
            return;
        };
        // Anything but a read outside `.skillc/` makes the next check and build read again the
        // files it names (or walk the folder, for a rescan or a path it cannot name); the user
        // hears only of content changes.
        let cache = watch_root.join(".skillc");
        let ours = !ev.paths.is_empty() && ev.paths.iter().all(|p| p.starts_with(&cache));
        if !ours && !matches!(ev.kind, notify::EventKind::Access(_)) {
            match files_read(&ev, &watch_root) {
                Some(files) => disk.files_changed(files),
                None => disk.changed(),
            }
        }
        if !skillc::watch::changes_content(&ev.kind) {
            return;
        }
        let changed: Vec<String> = ev
            .paths
            .iter()
            .filter(|p| skillc::watch::is_relevant(p, &watch_root, &watch_root.join(".skillc")))
            .filter_map(|p| Some((p, p.strip_prefix(&watch_root).ok()?)))
            .map(|(path, rel)| (path, rel.to_string_lossy().into_owned()))
            // The studio's own save: the page rebuilt after it already.
            .filter(|(path, rel)| !rel.starts_with(".skillc") && !disk.is_own_save(rel, path))
            .map(|(_, rel)| rel)
            .collect();
        if !changed.is_empty() {
            let _ = handle.emit("disk-changed", changed);
        }
    });
    if let Some(w) = watcher {
        session.disk().watching();
        *studio
            .watcher
            .lock()
            .map_err(|_| StudioError::request("poisoned"))? = Some(w);
    }
    *studio
        .session
        .write()
        .map_err(|_| StudioError::request("poisoned"))? = Some(session);
    Ok(overview)
}

/// The workspace-relative files an event names that a load reads, or `None` when one cannot
/// be named (a rescan notice, a path outside the workspace or not UTF-8).
fn files_read(ev: &notify::Event, root: &Path) -> Option<Vec<String>> {
    if ev.need_rescan() || ev.paths.is_empty() {
        return None;
    }
    skillc::watch::files_read(&ev.paths, root)
}

#[tauri::command(async)]
fn open_workspace<R: Runtime>(
    app: tauri::AppHandle<R>,
    studio: State<'_, Studio>,
    path: String,
) -> Result<Overview, StudioError> {
    open(&app, &studio, Path::new(&path))
}

#[tauri::command(async)]
fn overview(studio: State<'_, Studio>) -> Result<Overview, StudioError> {
    studio.with(Session::overview)
}

#[tauri::command(async)]
fn read_file(studio: State<'_, Studio>, file: String) -> Result<FileState, StudioError> {
    studio.with(|s| s.read(&file))
}

#[tauri::command(async)]
fn check_draft(
    studio: State<'_, Studio>,
    file: String,
    text: String,
) -> Result<DraftCheck, StudioError> {
    studio.with(|s| s.check_draft(&file, &text))
}

#[tauri::command(async)]
fn save_file(
    studio: State<'_, Studio>,
    file: String,
    text: String,
    base: Option<String>,
) -> Result<Saved, StudioError> {
    studio.with(|s| s.save(&file, &text, base.as_deref()))
}

/// The editor's unsaved text (`mine`) and the file as a colleague left it on disk (`theirs`),
/// merged three-way from the text both started from (`base`): by field, list item and
/// paragraph; a place both changed keeps both versions, marked. Neither side is lost.
#[tauri::command]
fn merge_texts(
    file: String,
    base: String,
    mine: String,
    theirs: String,
) -> skillc::edit::merge::Merged {
    let kind = skillc::edit::merge::Kind::of(std::path::Path::new(&file));
    skillc::edit::merge::merge(kind, &base, &mine, &theirs)
}

#[tauri::command]
fn decompose(text: String) -> form::Parts {
    form::decompose(&text)
}

#[tauri::command]
fn set_field(
    text: String,
    field: String,
    value: Option<serde_json::Value>,
) -> Result<String, StudioError> {
    form::set_field(&text, &field, value.as_ref())
}

#[tauri::command(async)]
fn create_skill(studio: State<'_, Studio>, skill: NewSkill) -> Result<String, StudioError> {
    studio.with(|s| s.create_skill(&skill))
}

#[tauri::command(async)]
fn rename_skill(
    studio: State<'_, Studio>,
    file: String,
    name: String,
) -> Result<String, StudioError> {
    studio.with(|s| s.rename_skill(&file, &name))
}

#[tauri::command(async)]
fn rename_plan(
    studio: State<'_, Studio>,
    file: String,
    name: String,
) -> Result<skillc::edit::rename::Rename, StudioError> {
    studio.with(|s| s.rename_plan(&file, &name))
}

#[tauri::command(async)]
fn delete_skill(studio: State<'_, Studio>, file: String) -> Result<Trashed, StudioError> {
    studio.with(|s| s.delete_skill(&file))
}

#[tauri::command(async)]
fn removed(studio: State<'_, Studio>) -> Result<Vec<Trashed>, StudioError> {
    studio.with(|s| s.removed())
}

#[tauri::command(async)]
fn restore(studio: State<'_, Studio>, id: String) -> Result<String, StudioError> {
    studio.with(|s| s.restore(&id))
}

#[tauri::command(async)]
fn discard(studio: State<'_, Studio>, file: String) -> Result<(), StudioError> {
    studio.with(|s| s.discard(&file))
}

#[tauri::command(async)]
fn export_package(studio: State<'_, Studio>, file: String) -> Result<String, StudioError> {
    studio.with(|s| s.export_package(&file))
}

#[tauri::command(async)]
fn import_package(studio: State<'_, Studio>, path: String) -> Result<String, StudioError> {
    studio.with(|s| s.import_package(&path))
}

#[tauri::command(async)]
fn relations(studio: State<'_, Studio>, file: String) -> Result<relations::Relations, StudioError> {
    studio.with(|s| s.relations(&file))
}

#[tauri::command(async)]
fn translations(
    studio: State<'_, Studio>,
    file: String,
) -> Result<translations::Translations, StudioError> {
    studio.with(|s| s.translations(&file))
}

#[tauri::command(async)]
fn create_translation(
    studio: State<'_, Studio>,
    file: String,
    locale: String,
) -> Result<String, StudioError> {
    studio.with(|s| s.create_translation(&file, &locale))
}

#[tauri::command(async)]
fn client_page(studio: State<'_, Studio>, client: String) -> Result<ClientPage, StudioError> {
    studio.with(|s| s.client_page(&client))
}

#[tauri::command(async)]
fn set_client_value(
    studio: State<'_, Studio>,
    client: String,
    path: Vec<String>,
    value: Option<serde_json::Value>,
) -> Result<ClientPage, StudioError> {
    studio.with(|s| s.set_client_value(&client, &path, value.as_ref()))
}

#[tauri::command(async)]
fn file_history(
    studio: State<'_, Studio>,
    file: String,
) -> Result<Vec<history::Version>, StudioError> {
    studio.with(|s| s.file_history(&file))
}

#[tauri::command(async)]
fn version_text(
    studio: State<'_, Studio>,
    file: String,
    commit: String,
) -> Result<String, StudioError> {
    studio.with(|s| s.version_text(&file, &commit))
}

#[tauri::command(async)]
fn releases(studio: State<'_, Studio>) -> Result<Vec<releases::Release>, StudioError> {
    studio.with(|s| s.releases())
}

#[tauri::command(async)]
fn compare_releases(
    studio: State<'_, Studio>,
    old: String,
    new: String,
) -> Result<skillc::interop::diff::Diff, StudioError> {
    studio.with(|s| s.compare_releases(&old, &new))
}

#[tauri::command(async)]
fn roll_back(studio: State<'_, Studio>, commit: String) -> Result<(), StudioError> {
    studio.with(|s| s.roll_back(&commit))
}

#[tauri::command(async)]
fn beside_shared(
    studio: State<'_, Studio>,
    file: String,
) -> Result<Option<session::Beside>, StudioError> {
    studio.with(|s| s.beside_shared(&file))
}

#[tauri::command(async)]
fn workspace_page(studio: State<'_, Studio>) -> Result<WorkspacePage, StudioError> {
    studio.with(|s| s.workspace_page())
}

#[tauri::command(async)]
fn set_workspace_value(
    studio: State<'_, Studio>,
    path: Vec<String>,
    value: Option<serde_json::Value>,
) -> Result<WorkspacePage, StudioError> {
    studio.with(|s| s.set_workspace_value(&path, value.as_ref()))
}

#[tauri::command(async)]
fn toggles(studio: State<'_, Studio>) -> Result<Toggles, StudioError> {
    studio.with(Session::toggles)
}

#[tauri::command(async)]
fn set_toggles(
    studio: State<'_, Studio>,
    changes: Vec<session::ToggleChange>,
) -> Result<session::Applied, StudioError> {
    studio.with(|s| s.set_toggles(&changes))
}

#[tauri::command(async)]
fn undo_toggles(studio: State<'_, Studio>, undo: u64) -> Result<usize, StudioError> {
    studio.with(|s| s.undo_toggles(undo))
}

#[tauri::command(async)]
fn select_toggles(
    studio: State<'_, Studio>,
    filter: session::ToggleFilter,
) -> Result<session::Selection, StudioError> {
    studio.with(|s| s.select_toggles(&filter))
}

#[tauri::command(async)]
fn plan_toggles(
    studio: State<'_, Studio>,
    filter: session::ToggleFilter,
    value: Option<bool>,
) -> Result<session::BulkPlan, StudioError> {
    studio.with(|s| s.plan_toggles(&filter, value))
}

#[tauri::command(async)]
fn cases_broken_since(
    studio: State<'_, Studio>,
    before: Vec<String>,
) -> Result<Vec<skillc::cases::Outcome>, StudioError> {
    studio.with(|s| s.cases_broken_since(&before))
}

#[tauri::command]
async fn build<R: Runtime>(app: tauri::AppHandle<R>) -> Result<BuildSummary, StudioError> {
    // Builds take seconds on big workspaces: off the main thread, with progress events.
    tauri::async_runtime::spawn_blocking(move || {
        let studio = app.state::<Studio>();
        let emitter = app.clone();
        // At most one event every 100 ms (and each phase's end): each goes through the
        // window's main thread, and a rebuild of 100 ms sent a hundred of them.
        let last = Mutex::new(None::<std::time::Instant>);
        let progress = move |phase: &str, done: usize, total: usize| {
            let Ok(mut last) = last.lock() else { return };
            let due = last.is_none_or(|t| t.elapsed() >= std::time::Duration::from_millis(100));
            if due || done == total {
                *last = Some(std::time::Instant::now());
                let _ = emitter.emit("build-progress", (phase.to_string(), done, total));
            }
        };
        studio.with(|s| s.build(Some(&progress)))
    })
    .await
    .map_err(|e| StudioError::request(e.to_string()))?
}

#[tauri::command(async)]
fn preview(studio: State<'_, Studio>, request: PreviewRequest) -> Result<Preview, StudioError> {
    studio.with(|s| s.preview(&request))
}

#[tauri::command(async)]
fn save_route_case(
    studio: State<'_, Studio>,
    request: PreviewRequest,
    name: String,
    routes_to: Vec<String>,
) -> Result<String, StudioError> {
    studio.with(|s| s.save_route_case(&request, &name, &routes_to))
}

#[tauri::command(async)]
fn diff(studio: State<'_, Studio>) -> Result<skillc::interop::diff::Diff, StudioError> {
    studio.with(Session::diff)
}

#[tauri::command]
async fn review<R: Runtime>(app: tauri::AppHandle<R>) -> Result<review::Review, StudioError> {
    // Building the last commit takes seconds on big workspaces: off the main thread.
    tauri::async_runtime::spawn_blocking(move || app.state::<Studio>().with(Session::review))
        .await
        .map_err(|e| StudioError::request(e.to_string()))?
}

#[tauri::command(async)]
fn routing(studio: State<'_, Studio>) -> Result<session::RoutingView, StudioError> {
    studio.with(Session::routing)
}

#[tauri::command(async)]
fn routing_clients(
    studio: State<'_, Studio>,
    from: usize,
    count: usize,
) -> Result<Vec<skillc::cases::eval::BundleEval>, StudioError> {
    studio.with(|s| s.routing_clients(from, count))
}

#[tauri::command(async)]
fn test_cases(studio: State<'_, Studio>) -> Result<session::TestRun, StudioError> {
    studio.with(Session::test_cases)
}

#[tauri::command(async)]
fn publish(
    studio: State<'_, Studio>,
    token: String,
    files: Vec<String>,
    message: String,
    anyway: Option<String>,
) -> Result<String, StudioError> {
    studio.with(|s| s.publish(&token, &files, &message, anyway.as_deref()))
}

/// The workspace to open: the first argument, else (in a development build: `cargo run`, not a
/// bundle of `tauri build`, whose debug bundles included) the sample of the checkout it was
/// built in, else none: an installed studio started from a menu asks for a folder rather than
/// opening whatever folder it was started in.
fn workspace_from_args() -> Option<PathBuf> {
    std::env::args_os().nth(1).map(PathBuf::from).or_else(|| {
        let sample = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"));
        (tauri::is_dev() && sample.join("workspace.yaml").is_file()).then_some(sample)
    })
}

/// Registers state and commands on a builder (the app and the tests share this wiring).
pub fn wire<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder
        .manage(Studio::default())
        .setup(|app| {
            if let Some(path) = workspace_from_args() {
                let handle = app.handle().clone();
                let studio = app.state::<Studio>();
                if let Err(e) = open(&handle, &studio, &path) {
                    eprintln!("skill-studio: {e}");
                }
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            open_workspace,
            overview,
            read_file,
            check_draft,
            save_file,
            merge_texts,
            decompose,
            set_field,
            create_skill,
            rename_skill,
            rename_plan,
            delete_skill,
            removed,
            restore,
            discard,
            export_package,
            import_package,
            toggles,
            set_toggles,
            undo_toggles,
            select_toggles,
            plan_toggles,
            cases_broken_since,
            relations,
            translations,
            create_translation,
            client_page,
            set_client_value,
            workspace_page,
            set_workspace_value,
            file_history,
            version_text,
            beside_shared,
            releases,
            compare_releases,
            roll_back,
            build,
            preview,
            save_route_case,
            diff,
            review,
            publish,
            routing,
            routing_clients,
            test_cases
        ])
}

/// Starts the studio.
pub fn run() {
    wire(tauri::Builder::default())
        .run(tauri::generate_context!())
        .expect("error while running Skill Studio");
}
