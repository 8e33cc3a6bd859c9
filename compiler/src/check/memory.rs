//! What a session's checks remember between runs: the last result of each pass whose inputs
//! most edits leave alone (watch and the studio check the same workspace over and over, and
//! most edits are to bodies). It lives in a session value (`pipeline::Session`), never in the
//! process: two sessions of one process (the studio and a test) remember apart.

use std::sync::{Arc, Mutex};

use crate::diagnostic::Diagnostic;

/// The last passes of a session's checks. Each part has its own lock: a session's check and
/// build may run side by side (the studio's), and the passes run on rayon's threads.
#[derive(Default)]
pub(crate) struct Memory {
    /// The cross-file checks' inputs and diagnostics ([`super::validate`]).
    pub(super) across: Mutex<Option<(super::validate::Inputs, Vec<Diagnostic>)>>,
    /// The catalogs and what they were made of ([`super::catalogs`]).
    pub(super) catalogs: Mutex<Option<super::catalogs::Memo>>,
    /// W118's inputs and warnings.
    pub(super) overlap: super::overlap::Last,
    /// W119's inputs and warnings.
    pub(super) routing: super::overlap::Last,
    /// The global catalog's routing indexes and the skills they were built from.
    pub(super) route_base: Mutex<Option<super::routing::Base>>,
    /// The skills' vectors by the built-in meaning (W119), by their place in the workspace.
    pub(super) vectors: Mutex<Option<super::route_meaning::Made>>,
    /// What git history said of the translations, at the commit it names (W121).
    pub(super) history: Mutex<Option<Arc<crate::git::History>>>,
}

// What a memory holds, not its contents: a pass's warnings run to megabytes.
impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("across", &held(&self.across))
            .field("catalogs", &held(&self.catalogs))
            .field("overlap", &held(&self.overlap))
            .field("routing", &held(&self.routing))
            .field("route_base", &held(&self.route_base))
            .field("vectors", &held(&self.vectors))
            .field("history", &held(&self.history))
            .finish()
    }
}

fn held<T>(part: &Mutex<Option<T>>) -> &'static str {
    match part.lock().is_ok_and(|p| p.is_some()) {
        true => "held",
        false => "empty",
    }
}

/// How a check remembers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Recall<'m> {
    /// A one-shot check (the `check` and `build` commands): remembers nothing, and frees what
    /// it is done with as it goes.
    OneShot,
    /// A one-shot check of a batch after the first of a batched build. The passes over whole
    /// catalogs (W118, W119) run its clients' catalogs alone: the global catalog's warnings
    /// came with the first batch, whose global skills, settings and census are this batch's
    /// too (a tenth of a 5,000-client build went to checking it again in every batch).
    LaterBatch,
    /// One of a session's checks: takes each pass from `memory` when its inputs are the same,
    /// and leaves its own there for the next.
    Session(&'m Memory),
    /// A session's check of unsaved edits, run again at every keystroke: the passes over whole
    /// catalogs (W118, W119) redo only the edited skills' warnings over the last full pass's
    /// others and leave the memory's as they were, for the next save's check or build.
    Draft(&'m Memory),
}

impl<'m> Recall<'m> {
    /// The session's memory, unless the check is one-shot.
    pub(crate) fn memory(self) -> Option<&'m Memory> {
        match self {
            Recall::OneShot | Recall::LaterBatch => None,
            Recall::Session(m) | Recall::Draft(m) => Some(m),
        }
    }
}
