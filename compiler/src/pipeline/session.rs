//! A session: successive checks and builds of one workspace (`watch`, Skill Studio), and
//! everything it remembers between them. Nothing of it lives in the process.

use std::path::Path;
use std::sync::Arc;

use super::inputs::TextDigests;
use super::{artifact, drop_aside, embed, incremental, BuildReport, Label, Shaped};
use crate::model::Workspace;
use crate::parse::load;
use crate::render;

/// Successive checks and builds of one workspace (`watch`, Skill Studio): each takes from the
/// ones before what its edits cannot have changed. The artifact is the one a clean build
/// writes, the diagnostics a clean check's. Everything a session remembers is here, and
/// nothing of it in the process: two sessions remember apart.
#[derive(Debug, Default)]
pub struct Session {
    /// Files read and skills parsed.
    pub(crate) load: load::LoadCache,
    /// The sha256 of each text the last build hashed.
    pub(super) digests: TextDigests,
    /// The last passes of the checks across files and over catalogs. Shared with the
    /// sessions made by [`Session::sharing_checks`].
    pub(crate) checks: Arc<crate::check::Memory>,
    /// The built-in meaning's table and the vectors of the last build's texts.
    pub(super) meaning: embed::MeaningMemo,
    /// Token counts and compressed assets of the builds so far.
    pub(super) caches: Caches,
    /// What the last build computed, for the next to take.
    pub(super) previous: Option<incremental::Memo>,
    /// The artifact the last build wrote.
    pub(super) written: Option<Written>,
}

impl Session {
    /// A new session of the same workspace that remembers its own loads and builds but shares
    /// this one's check memory: the studio checks as the user types (one session) and builds
    /// the preview beside it (another), and a save's check and build then make the passes
    /// over catalogs once, not twice.
    pub fn sharing_checks(&self) -> Session {
        Session {
            checks: self.checks.clone(),
            ..Session::default()
        }
    }

    /// The caller watches the workspace and knows nothing in it changed since the last load
    /// (see `load::LoadCache::assume_unchanged`).
    pub fn assume_unchanged(&mut self) {
        self.load.assume_unchanged();
    }

    /// The caller watches the workspace and knows that since the last build only the contents
    /// of `files` (workspace-relative, `/`-separated) changed: the next build reads only these
    /// again instead of walking the folder (see `load::LoadCache::assume_changed_only`).
    pub fn assume_changed_only(&mut self, files: impl IntoIterator<Item = String>) {
        self.load.assume_changed_only(files);
    }
}

/// What a build's phases count and compress through: a session's, kept from build to build,
/// or a one-shot build's own (the default is a session's).
#[derive(Debug)]
pub(crate) struct Caches {
    /// Token counts by text.
    pub(super) tokens: Arc<render::tokens::Counts>,
    /// Assets compressed before, by content hash; a one-shot build compresses each asset once
    /// anyway, and keeps none.
    pub(super) encoded: Option<artifact::EncodedAssets>,
}

impl Caches {
    /// A one-shot build's: token counts only, dropped with the build.
    pub(crate) fn one_shot() -> Caches {
        Caches {
            tokens: Default::default(),
            encoded: None,
        }
    }
}

impl Default for Caches {
    fn default() -> Caches {
        Caches {
            tokens: Default::default(),
            encoded: Some(Default::default()),
        }
    }
}

/// The artifact a session wrote last, to know a rebuild of the same inputs has nothing to do.
#[derive(Debug)]
pub(super) struct Written {
    input_hash: String,
    release: Option<String>,
    out: std::path::PathBuf,
    /// Size and modification time of the file as written (someone may replace it).
    stamp: (u64, std::time::SystemTime),
    report: BuildReport,
    /// The rows of its tables that the next build copies from it when they are the same.
    rows: Option<artifact::Copyable>,
}

/// What a build of a session made, for [`remember`].
pub(super) struct Done<'r> {
    pub(super) input_hash: String,
    pub(super) release: Option<String>,
    pub(super) report: &'r BuildReport,
    pub(super) rows: Option<artifact::Copyable>,
}

pub(super) fn stamp(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

/// The bundle tables the session's last artifact holds, when this build's bundles hold what
/// they held there and got the same catalog levels: laying them out again would give the same
/// rows (a body edit changes no bundle).
pub(super) fn bundles_as_before(
    s: &Session,
    shaped: &Shaped,
) -> Option<Arc<artifact::BundleTables>> {
    let memo = s.previous.as_ref().filter(|_| shaped.drawn.reused)?;
    let tables = s.written.as_ref()?.rows.as_ref()?.bundles();
    let (resolved, levels) = (&shaped.drawn.resolved, &shaped.budgets.levels);
    incremental::same_bundles(&memo.kept, resolved, levels).then(|| tables.clone())
}

impl Written {
    /// Whether `out` is still the file this build wrote there.
    pub(super) fn in_place(&self, out: &Path) -> bool {
        self.out == out && stamp(out) == Some(self.stamp)
    }

    /// The artifact as the writer of the next build may copy from, if still in place.
    pub(super) fn previous(&self, out: &Path) -> Option<artifact::Previous<'_>> {
        let rows = self.rows.as_ref().filter(|_| self.in_place(out))?;
        Some(artifact::Previous {
            path: &self.out,
            input_hash: &self.input_hash,
            rows,
            warnings: &self.report.diagnostics,
        })
    }
}

/// The report of the artifact this session wrote from the same inputs, still in place: it is
/// already the artifact a build would write (builds are deterministic). A save's own disk
/// event, or a touch, rebuilds nothing.
pub(super) fn already_written(
    session: Option<&Session>,
    input_hash: &str,
    label: &mut Label<'_>,
    out: &Path,
) -> Option<BuildReport> {
    let w = session?.written.as_ref()?;
    // The label is waited for only when the inputs are the same.
    let same = w.input_hash == input_hash && w.release == *label.get() && w.in_place(out);
    same.then(|| BuildReport {
        unchanged: true,
        ..w.report.clone()
    })
}

/// Keeps in the session what the next build may take, and what this one wrote.
pub(super) fn remember(
    s: &mut Session,
    ws: Workspace,
    kept: Option<incremental::Kept>,
    done: Done<'_>,
    out: &Path,
) {
    if let Some(kept) = kept {
        s.previous = Some(incremental::Memo { ws, kept });
    }
    drop_aside(s.written.take());
    s.written = stamp(out).map(|stamp| Written {
        input_hash: done.input_hash,
        release: done.release,
        out: out.to_path_buf(),
        stamp,
        report: done.report.clone(),
        rows: done.rows,
    });
}
