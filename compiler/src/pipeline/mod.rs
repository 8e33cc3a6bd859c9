//! `skillc build`: check → resolve every bundle → render → write the artifact.

pub(crate) mod artifact;
mod batched;
mod budget;
mod bundles;
mod census;
pub(crate) mod embed;
mod entries;
pub(crate) mod incremental;
mod inputs;
mod progress;
mod rows;
mod session;
pub mod watch;

use std::path::Path;
use std::sync::Arc;

use artifact::MeaningRows;
use rustc_hash::FxHashMap;

use crate::check::{CheckOptions, Recall};
use crate::diagnostic::{codes, Diagnostic, Pos, Severity};
use crate::model::{Mode, Workspace};
use crate::parse::load;
use crate::render::{self, Renderer};
use crate::resolve::pool;
use crate::resolve::{self, EntryKey};
use artifact::Data;
use inputs::input_hash;
use progress::{progress, Meter};
pub(crate) use session::Caches;
pub use session::Session;
use session::{already_written, bundles_as_before, remember, Done};

/// A progress callback: (phase, done, total).
pub type Progress = dyn Fn(&str, usize, usize) + Sync;

/// How to build.
#[derive(Default)]
pub struct BuildOptions<'a> {
    /// Worker threads (`None`: one per core; at most `max_jobs`).
    pub jobs: Option<usize>,
    /// Called with (phase, done, total) as the build goes.
    pub progress: Option<&'a Progress>,
    /// The release label stored in the manifest (`release`), if any: an input like the files,
    /// so the same files and label give the same bytes.
    pub release: Option<String>,
    /// Clients per batch of a one-shot build of more clients than that (`None`:
    /// `batched::CLIENTS_PER_BATCH`): its memory then holds one batch's skills at a time.
    pub clients_per_batch: Option<usize>,
    /// Computes the release label instead of `release`, on a thread of its own while the build
    /// reads, checks and resolves ([`crate::release::git_label`]'s `git status` takes 50-60 ms on the
    /// reference workload, a tenth of the studio's save-to-preview budget).
    pub release_from: Option<&'a (dyn Fn() -> Option<String> + Sync)>,
    /// The command that embeds texts for dense routing (`--embedder`; `None`: the
    /// `SKILLC_EMBEDDER` variable's, if any). Used only when the workspace declares
    /// `routing.embedding_model`.
    pub embedder: Option<&'a str>,
    /// How the build checks the workspace first (`only_errors` for an artifact made to be
    /// read once and removed, whose stored diagnostics nobody reads: `eval`, `test`).
    pub check: CheckOptions,
    /// How many warnings, the first in the report's order, keep their help and source line
    /// in a build of many clients (`None`: every one). The text output shows 20 of a flood:
    /// 50,000 clients' 520,000 warnings held theirs at the end of the build, a third of its
    /// peak memory. Errors always keep them.
    pub warning_details: Option<usize>,
}

/// The release label of a build: given, or still being computed.
struct Label<'s> {
    pending: Option<std::thread::ScopedJoinHandle<'s, Option<String>>>,
    known: Option<String>,
}

impl Label<'_> {
    /// The label, waiting for it if it is still being computed (a failed computation: none).
    fn get(&mut self) -> &Option<String> {
        if let Some(handle) = self.pending.take() {
            self.known = handle.join().unwrap_or(None);
        }
        &self.known
    }
}

/// Figures of a written artifact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Skills in the workspace.
    pub skills: usize,
    /// Bundles built.
    pub bundles: usize,
    /// Distinct resolved entries stored.
    pub entries: usize,
    /// Distinct blobs stored.
    pub blobs: usize,
    /// Bytes of the artifact.
    pub bytes: u64,
    /// Bytes of the workspace's distinct input files.
    pub source_bytes: u64,
    /// Bytes of the built-in meaning (its table and small-talk vectors) the artifact carries (0
    /// without it): the same in every artifact, whatever its workspace.
    pub meaning_bytes: u64,
}

/// The outcome of a build.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    /// Diagnostics of the check and the build, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// Set when the artifact was written (or already held this build).
    pub stats: Option<BuildStats>,
    /// The artifact already held this build, from the same inputs: nothing was written.
    pub unchanged: bool,
}

impl BuildReport {
    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}

/// Failures of the environment during a build.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading the workspace failed.
    #[error(transparent)]
    Workspace(#[from] crate::discover::fsio::Error),
    /// Writing the artifact failed.
    #[error(transparent)]
    Artifact(#[from] artifact::Error),
    /// The worker threads could not start.
    #[error("cannot start {0} worker threads")]
    Threads(usize),
    /// A build in batches of clients read a file that changed between its two passes.
    #[error(
        "the workspace changed while it was built batch by batch; nothing was written, build again"
    )]
    ChangedDuringBuild,
    /// The output path is one of the workspace's input files.
    #[error("`{0}` is a file of the workspace (an input); write the artifact elsewhere, e.g. outside the workspace folder")]
    OutputIsInput(std::path::PathBuf),
    /// The embedding vectors could not be made (SPEC 13.1's dense routing).
    #[error("{0}")]
    Embed(String),
    /// The output path exists and is not a regular file (a device, a pipe, a folder).
    #[error("`{0}` is {1}: the artifact is written to a file (a new one, or a previous artifact)")]
    OutputNotAFile(std::path::PathBuf, &'static str),
}

/// Refuses an output path that is not a regular file (a device such as `/dev/null`, a pipe, a
/// socket or a folder: the artifact is renamed over it, which would replace the device), or
/// that names an existing file inside the workspace unless it is a previous artifact (a new
/// file there is fine: artifacts are never read as input).
pub fn guard_output(root: &Path, out: &Path) -> Result<(), Error> {
    if let Some(kind) = crate::discover::fsio::output::not_a_file(out) {
        return Err(Error::OutputNotAFile(out.to_path_buf(), kind));
    }
    let Ok(root) = root.canonicalize() else {
        return Ok(()); // reading the workspace reports it
    };
    let Ok(existing) = out.canonicalize() else {
        return Ok(());
    };
    if !existing.starts_with(&root) {
        return Ok(());
    }
    if crate::discover::fsio::is_artifact_file(&existing) {
        Ok(())
    } else {
        Err(Error::OutputIsInput(out.to_path_buf()))
    }
}

pub use crate::discover::fsio::output::output_file;

/// Builds the workspace at `root` into the artifact `out`. Nothing is written when the
/// workspace has errors.
pub fn build(root: &Path, out: &Path, options: &BuildOptions<'_>) -> Result<BuildReport, Error> {
    run(root, out, options, None)
}

/// [`build`] within a session.
pub fn rebuild(
    root: &Path,
    out: &Path,
    options: &BuildOptions<'_>,
    session: &mut Session,
) -> Result<BuildReport, Error> {
    let built = run(root, out, options, Some(&mut *session));
    // Whatever came of it, the next build patches this one's load.
    session.load.prepare_next();
    built
}

/// [`build`] after a check in `session` (`eval`, `test`): takes the check's reads, parses and
/// passes instead of making them again (the passes over 501 catalogs of the reference
/// workload are a second of a build), and prepares nothing for a next build, as there is
/// none. A workspace a one-shot build takes in batches is built so, to bound its memory.
pub(crate) fn build_after_check(
    root: &Path,
    out: &Path,
    options: &BuildOptions<'_>,
    session: &mut Session,
) -> Result<BuildReport, Error> {
    let size = options
        .clients_per_batch
        .unwrap_or(batched::CLIENTS_PER_BATCH);
    match crate::parse::batches::plan(root, size)? {
        Some(_) => build(root, out, options),
        None => run(root, out, options, Some(session)),
    }
}

/// A build, in a session or alone (a one-shot build keeps nothing for a next one).
fn run(
    root: &Path,
    out: &Path,
    options: &BuildOptions<'_>,
    session: Option<&mut Session>,
) -> Result<BuildReport, Error> {
    guard_output(root, out)?;
    let out = &output_file(out);
    std::thread::scope(|scope| {
        let label = Label {
            pending: options.release_from.map(|compute| scope.spawn(compute)),
            known: options.release.clone(),
        };
        let run = move || {
            let mut label = label;
            match in_batches(root, out, options, &mut label, mode_of(&session))? {
                Some(report) => Ok(report),
                None => build_once(root, out, options, label, session),
            }
        };
        match options.jobs {
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n.clamp(1, max_jobs()))
                .build()
                .map_err(|_| Error::Threads(n))?
                .install(run),
            None => run(),
        }
    })
}

/// Most worker threads a build starts: past a few per core, threads only cost (20,000 took a
/// minute to start and stop for a build of a quarter of a second). 64, or the cores if more.
pub(crate) fn max_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.max(64)
}

/// A build with a session is one of many; without, a one-shot build.
fn mode_of(session: &Option<&mut Session>) -> Mode {
    match session {
        Some(_) => Mode::Session,
        None => Mode::OneShot,
    }
}

fn build_once(
    root: &Path,
    out: &Path,
    options: &BuildOptions<'_>,
    mut label: Label<'_>,
    mut session: Option<&mut Session>,
) -> Result<BuildReport, Error> {
    progress(options, "reading", 0, 1);
    let loaded = load::load_dir(root, session.as_mut().map(|s| &mut s.load), &[])?;
    let digests = session.as_mut().map(|s| &mut s.digests);
    let (input_hash, source_bytes) = input_hash(&loaded, digests);
    if let Some(report) = already_written(session.as_deref(), &input_hash, &mut label, out) {
        return Ok(report);
    }
    progress(options, "checking", 0, 1);
    let previous = session.as_ref().and_then(|s| s.previous.as_ref());
    let mode = mode_of(&session);
    let checked = match check_and_draw(loaded, &input_hash, options, session.as_deref()) {
        Ok(checked) => checked,
        Err(report) => return Ok(report),
    };
    let Checked {
        ws,
        mut diagnostics,
        drawn,
    } = checked;
    let skills = ws.skills.len();
    // A one-shot build needs the workspace no more: its memory is the budgets' and the
    // tables' to use.
    let ws = mode.keeps().then_some(ws);
    let shaped = match drawn.and_then(|drawn| fit(drawn, options, previous, mode)) {
        Ok(shaped) => shaped,
        Err(errors) => {
            diagnostics.extend(errors);
            crate::diagnostic::sort(&mut diagnostics);
            return Ok(failed(diagnostics));
        }
    };
    let bundles_before = session
        .as_deref()
        .and_then(|s| bundles_as_before(s, &shaped));
    if let Some(s) = session.as_mut() {
        // Not needed past this point: freed beside laying out and writing.
        drop_aside(s.previous.take());
    }
    let release = label.get().clone();
    let (mut data, warnings, kept) = lay_out(shaped, options, &release, mode, bundles_before);
    let memo = session.as_mut().map(|s| &mut s.meaning);
    embed::attach(&mut data, options.embedder, root, memo).map_err(Error::Embed)?;
    diagnostics.extend(warnings);
    crate::diagnostic::sort(&mut diagnostics);
    progress(options, "writing", 0, 1);
    let mut stats = BuildStats {
        skills,
        bundles: data.bundles.rows.len(),
        entries: data.entries.len(),
        blobs: data.blobs.len(),
        bytes: 0,
        source_bytes,
        meaning_bytes: data.meaning.as_ref().map_or(0, MeaningRows::bytes),
    };
    let written = write_artifact(out, data, &diagnostics, session.as_deref_mut())?;
    stats.bytes = written.bytes;
    progress(options, "writing", 1, 1);
    let report = BuildReport {
        diagnostics,
        stats: Some(stats),
        unchanged: false,
    };
    if let (Some(s), Some(ws)) = (session, ws) {
        let done = Done {
            input_hash,
            release,
            report: &report,
            rows: written.rows,
        };
        remember(s, ws, kept, done, out);
    }
    Ok(report)
}

/// A one-shot build of more clients than a batch holds, run batch by batch ([`batched`]);
/// `None` for any other build.
fn in_batches(
    root: &Path,
    out: &Path,
    options: &BuildOptions<'_>,
    label: &mut Label<'_>,
    mode: Mode,
) -> Result<Option<BuildReport>, Error> {
    let size = options
        .clients_per_batch
        .unwrap_or(batched::CLIENTS_PER_BATCH);
    let batches = match mode {
        Mode::OneShot => {
            progress::timing(&"planning batches");
            crate::parse::batches::plan(root, size)?
        }
        Mode::Session => None,
    };
    let Some(batches) = batches else {
        return Ok(None);
    };
    progress::timing(&"planned; the release label next");
    let release = label.get().clone();
    batched::build(root, &batches, out, options, &release).map(Some)
}

/// What checking leaves a build: the workspace, the check's diagnostics ready to show, and
/// what the phases that read the workspace made of it (or their errors).
struct Checked {
    ws: Workspace,
    diagnostics: Vec<Diagnostic>,
    drawn: Result<Drawn, Vec<Diagnostic>>,
}

/// Checks the loaded workspace and, when it has no error, runs the phases that read it
/// ([`run_phases`]); `Err`: the report of a workspace with errors.
fn check_and_draw(
    mut loaded: load::Loaded,
    input_hash: &str,
    options: &BuildOptions<'_>,
    session: Option<&Session>,
) -> Result<Checked, BuildReport> {
    let one_shot = Caches::one_shot();
    let (recall, caches, previous, mode) = match session {
        Some(s) => (
            Recall::Session(&s.checks),
            &s.caches,
            s.previous.as_ref(),
            Mode::Session,
        ),
        None => (Recall::OneShot, &one_shot, None, Mode::OneShot),
    };
    let mut diagnostics = crate::check::diagnose(&mut loaded, &options.check, recall);
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        crate::check::ready_to_show(&mut diagnostics, &loaded.texts);
        return Err(failed(diagnostics));
    }
    let drawn = if mode.keeps() {
        // A session's check diagnostics are made ready to show on the other core meanwhile.
        let (drawn, ()) = rayon::join(
            || {
                run_phases(
                    &loaded.workspace,
                    input_hash,
                    options,
                    caches,
                    previous,
                    mode,
                )
            },
            || crate::check::ready_to_show(&mut diagnostics, &loaded.texts),
        );
        drawn
    } else {
        // The texts are kept for the source lines only: a one-shot build frees them before
        // the phases (at 5,000 clients, every file's text).
        crate::check::ready_to_show(&mut diagnostics, &loaded.texts);
        loaded.texts = Default::default();
        run_phases(
            &loaded.workspace,
            input_hash,
            options,
            caches,
            previous,
            mode,
        )
    };
    Ok(Checked {
        ws: loaded.workspace,
        diagnostics,
        drawn,
    })
}

/// The report of a build that wrote nothing: its workspace or its templates have errors.
fn failed(diagnostics: Vec<Diagnostic>) -> BuildReport {
    BuildReport {
        diagnostics,
        stats: None,
        unchanged: false,
    }
}

/// Writes the artifact; a session copies unchanged tables from the artifact it wrote last, if
/// still in place, and after a failure writes the whole file afresh next time.
fn write_artifact(
    out: &Path,
    data: artifact::Data,
    diagnostics: &[Diagnostic],
    session: Option<&mut Session>,
) -> Result<artifact::Written, Error> {
    let mode = mode_of(&session);
    let previous = session
        .as_deref()
        .and_then(|s| s.written.as_ref().and_then(|w| w.previous(out)));
    let written = artifact::write(out, data, diagnostics, mode, previous);
    if let (Err(_), Some(s)) = (&written, session) {
        s.written = None;
    }
    Ok(written?)
}

/// Drops `value` on a thread of its own: freeing what a session kept of its previous artifact
/// (its report and rows, the replaced file's pages) takes milliseconds the rebuild need not
/// wait for.
pub(crate) fn drop_aside<T: Send + 'static>(value: T) {
    std::thread::spawn(move || drop(value));
}

/// Compiles a checked workspace and writes its artifact to `out` with the check's `diagnostics`
/// and the build's own warnings: a one-shot build from memory, no file read. The tests build
/// one workspace given in different orders and on different thread counts with it; an error
/// is the diagnostics or the write's failure, as text.
pub fn compile_to(
    ws: &Workspace,
    input_hash: &str,
    mut diagnostics: Vec<Diagnostic>,
    out: &Path,
) -> Result<(), String> {
    let (data, warnings) =
        compile(ws, input_hash, &BuildOptions::default()).map_err(|e| format!("{e:?}"))?;
    diagnostics.extend(warnings);
    crate::diagnostic::sort(&mut diagnostics);
    artifact::write(out, data, &diagnostics, Mode::OneShot, None)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Resolves, renders and lays out every table of the artifact.
pub(crate) fn compile(
    ws: &Workspace,
    input_hash: &str,
    options: &BuildOptions<'_>,
) -> Result<(Data, Vec<Diagnostic>), Vec<Diagnostic>> {
    let caches = Caches::one_shot();
    let drawn = run_phases(ws, input_hash, options, &caches, None, Mode::OneShot)?;
    let shaped = fit(drawn, options, None, Mode::OneShot)?;
    let (data, warnings, _) = lay_out(shaped, options, &options.release, Mode::OneShot, None);
    Ok((data, warnings))
}

/// What the phases that read the workspace make: everything the rest is made from, owned
/// (nothing borrows the workspace), so a one-shot build frees the workspace before the
/// budgets and the tables.
pub(crate) struct Drawn {
    warnings: Vec<Diagnostic>,
    renderer: Renderer,
    /// The workspace's tiers (their catalog budgets).
    tiers: Vec<crate::model::Tier>,
    /// Whether this build took from the previous one (its card texts are then valid too).
    reused: bool,
    header: rows::Header,
    /// What was prepared of each skill (a session's next build takes from it).
    per_skill: Option<resolve::PerSkill>,
    pool: pool::Pool,
    plan: bundles::Plan,
    resolved: bundles::Resolved,
    /// Each distinct entry key's index in `entries.list`.
    key_index: FxHashMap<std::sync::Arc<EntryKey>, usize>,
    entries: entries::Entries,
    categories: Vec<skillc_runtime::schema::CategoryRow>,
    sources: Vec<skillc_runtime::schema::SourceRow>,
    asset_rows: Vec<skillc_runtime::schema::AssetRow>,
    /// The assets' contents by hash.
    asset_blobs: std::collections::BTreeMap<String, std::sync::Arc<artifact::Blob>>,
}

/// What the phases make: [`Drawn`] and the catalog budgets fitted to it.
pub(crate) struct Shaped {
    drawn: Drawn,
    card_fragments: Vec<budget::Fragments>,
    card_texts: budget::CardTextMemo,
    /// Each bundle's catalog level and what was cut (a session's memo keeps them).
    budgets: budget::Budgets,
}

/// The phases over the workspace, taking from `previous` (a build of an earlier state of the
/// same workspace) what the changes cannot have touched, and counting tokens and compressing
/// assets through `caches`. A row of phases, each a function over the plain data of the ones
/// before it.
pub(crate) fn run_phases(
    ws: &Workspace,
    input_hash: &str,
    options: &BuildOptions<'_>,
    caches: &Caches,
    previous: Option<&incremental::Memo>,
    mode: Mode,
) -> Result<Drawn, Vec<Diagnostic>> {
    let (renderer, warnings) = Renderer::new(ws, caches.tokens.clone());
    if warnings.iter().any(|d| d.severity == Severity::Error) {
        return Err(warnings);
    }
    let fail = |e: render::RenderError| vec![render_failure(e)];
    let earlier = previous.map(|m| resolve::Earlier {
        ws: &m.ws,
        per_skill: &m.kept.per_skill,
    });
    // Three phases over the workspace alone, side by side.
    let (prepared, (pool, plan)) = rayon::join(
        || resolve::prepare_from(ws, earlier),
        || rayon::join(|| pool::build(ws), || bundles::plan(ws)),
    );
    let reuse = incremental::reuse(previous, ws, &prepared, &pool, &plan);
    let meter = Meter::new(options, "resolving bundles", plan.specs.len());
    let kept_slots = reuse.as_ref().map(|r| r as &dyn bundles::KeptSlots);
    let resolved = bundles::resolve_all(&prepared, &plan, &meter, kept_slots);
    let keys = resolved.distinct_keys();
    let key_index: FxHashMap<std::sync::Arc<EntryKey>, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.clone(), i))
        .collect();
    let categories = rows::categories(ws, &renderer).map_err(fail)?;
    let meter = Meter::new(options, "rendering entries", keys.len());
    let input = entries::EntryInput {
        prepared: &prepared,
        pool: &pool,
        renderer: &renderer,
        reuse: reuse.as_ref().map(|r| r as &dyn entries::KeptEntries),
    };
    let entries = entries::render_all(&input, &keys, &meter).map_err(fail)?;
    let (asset_rows, asset_blobs) = rows::assets(ws, caches.encoded.as_ref());
    let header = rows::header(ws, &prepared, input_hash);
    Ok(Drawn {
        per_skill: mode.keeps().then(|| prepared.into_per_skill()),
        header,
        sources: rows::sources(&pool, &renderer).map_err(fail)?,
        warnings,
        renderer,
        tiers: ws.config.tiers.clone(),
        reused: reuse.is_some(),
        asset_rows,
        asset_blobs,
        pool,
        plan,
        resolved,
        key_index,
        entries,
        categories,
    })
}

/// Fits every catalog to its tier's budget (taking the card texts of `previous` when the
/// build took from it); a session keeps the card texts for the next build.
pub(crate) fn fit(
    drawn: Drawn,
    options: &BuildOptions<'_>,
    previous: Option<&incremental::Memo>,
    mode: Mode,
) -> Result<Shaped, Vec<Diagnostic>> {
    progress(options, "fitting catalog budgets", 0, 1);
    let fail = |e: render::RenderError| vec![render_failure(e)];
    let d = drawn;
    // What the previous build fitted is valid only if this build took from it.
    let previous = previous.filter(|_| d.reused);
    let previous_texts = previous.map(|m| &m.kept.card_texts);
    let mut texts =
        budget::CardTexts::full(&d.renderer, &d.entries.cards, previous_texts).map_err(fail)?;
    let input = budget::BudgetInput {
        tiers: &d.tiers,
        plan: &d.plan,
        resolved: &d.resolved,
        key_index: &d.key_index,
        entries: &d.entries,
        categories: &d.categories,
    };
    let previous_budgets = previous.map(|m| budget::Previous {
        resolved: &m.kept.resolved,
        budgets: &m.kept.budgets,
    });
    let budgets = budget::apply(&input, &mut texts, previous_budgets.as_ref()).map_err(fail)?;
    let (card_fragments, card_texts) = texts.into_memo(mode);
    let mut shaped = Shaped {
        drawn: d,
        card_fragments,
        card_texts,
        budgets,
    };
    let cut = shaped.budgets.warnings.values().cloned();
    shaped.drawn.warnings.extend(cut);
    Ok(shaped)
}

/// Lays out the artifact's tables from what [`run_phases`] and [`fit`] made, taking the bundle
/// tables when they are known to be `bundles_before`; in a session, also returns what the
/// next build may take.
pub(crate) fn lay_out(
    s: Shaped,
    options: &BuildOptions<'_>,
    release: &Option<String>,
    mode: Mode,
    bundles_before: Option<Arc<artifact::BundleTables>>,
) -> (Data, Vec<Diagnostic>, Option<incremental::Kept>) {
    progress(options, "laying out tables", 0, 1);
    let Shaped {
        drawn: mut d,
        card_fragments,
        card_texts,
        mut budgets,
    } = s;
    // Rows are moved out of the entries, copied only when a session's memo keeps them.
    let kept_list = mode.keeps().then(|| d.entries.list.clone());
    let listed = d.entries.list.into_iter().zip(d.entries.card_of).collect();
    let (entry_rows, mut blobs) = rows::entries(listed, &d.categories);
    let bundle_rows = bundles_before.unwrap_or_else(|| {
        // A session's memo keeps the plan and the budgets; a one-shot build moves their texts.
        let (specs, levels) = match mode {
            Mode::Session => (d.plan.specs.clone(), budgets.levels.clone()),
            Mode::OneShot => (
                std::mem::take(&mut d.plan.specs),
                std::mem::take(&mut budgets.levels),
            ),
        };
        Arc::new(rows::bundles(
            specs,
            &d.plan.base_of,
            &d.resolved,
            &d.key_index,
            levels,
        ))
    });
    for (hash, blob) in d.asset_blobs {
        blobs.entry(hash).or_insert(blob);
    }
    // The slots, the plan, the pool and the entry keys go to the session's memo, or are freed
    // here, before the other tables' rows are laid out.
    let kept = kept_list.map(|list| incremental::Kept {
        entries: d
            .key_index
            .into_iter()
            .map(|(key, i)| (key, list[i].clone()))
            .collect(),
        per_skill: d.per_skill.unwrap_or_default(),
        pool: d.pool,
        plan: d.plan,
        resolved: d.resolved,
        card_texts,
        budgets,
    });
    let tables = rows::Tables {
        sources: d.sources,
        bundles: bundle_rows,
        card_route: d.entries.card_route,
        cards: rows::cards(d.entries.cards, card_fragments),
        assets: d.asset_rows,
        entries: entry_rows,
        blobs,
        categories: d.categories,
    };
    let mut data = rows::data(d.header, tables);
    if let Some(label) = release {
        data.manifest.insert("release".to_string(), label.clone());
    }
    (data, d.warnings, kept)
}

/// A template that failed on some content (BUILD_FAILED, at the template's file).
fn render_failure(e: render::RenderError) -> Diagnostic {
    Diagnostic::new(codes::BUILD_FAILED, &e.file, Pos::start(), e.message)
}
