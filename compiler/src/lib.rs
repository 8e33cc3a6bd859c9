//! skillc: the build-time compiler for AI-agent skills workspaces.
//!
//! The compiler is a row of phases over plain data, one folder each, each using only those
//! before it (`scripts/check-layers.py` holds it so): `discover` walks the workspace, `parse`
//! turns files into the [`model`], `check` validates across files, `resolve` decides what every
//! bundle holds, `render` writes its texts and `pipeline` runs the phases and lays out and
//! writes the artifact (and rebuilds incrementally in [`watch`]). The phases are this crate's
//! own: callers use what this root re-exports of them ([`build`], [`check`], [`Session`], …).
//! Above them, [`workspace_check`] is what the `check` command reports (templates rendered,
//! test cases read), [`edit`] changes files losslessly and [`interop`] moves skills in and out.
//! Below them all, [`diagnostic`] and [`digest`]. Problems in the user's files are
//! [`Diagnostic`] values; failures of the environment are error types of each phase.

// Visibility is the boundary (issue 51): an item public but not reachable from here says
// `pub(crate)`, and everything reachable says what it is for. CI's clippy makes both errors.
#![warn(unreachable_pub, missing_docs)]

// The API: what the studio, the benchmark and other callers use.
pub mod cases;
pub mod command;
pub mod diagnostic;
pub mod digest;
pub mod edit;
pub(crate) mod git;
pub mod interop;
pub mod mcp;
pub mod model;
pub mod relations;
pub mod release;
pub mod sign;
pub mod skill_md;
pub mod workspace_check;

// The phases: this crate's own. What callers need of them is re-exported below (the API) or,
// for the integration tests, in [`internals`].
pub(crate) mod check;
pub(crate) mod discover;
pub(crate) mod meaning;
pub(crate) mod parse;
pub(crate) mod pipeline;
pub(crate) mod render;
pub(crate) mod resolve;

pub use check::{CheckOptions, CheckReport};
pub use diagnostic::{codes, render_json, render_text, Diagnostic, Pos, SafetyLevel, Severity};
pub(crate) use digest::content_digest;
pub use discover::fsio::RawFile;
pub use model::Workspace;
pub use parse::load::workspace_config;
pub use parse::safety::{apply_deny, is_deny_entry};
pub use parse::yaml::split_frontmatter;
pub use pipeline::embed::message_vectors;
pub use pipeline::watch;
pub use pipeline::Error as BuildError;
pub use pipeline::{build, guard_output, output_file, rebuild};
pub use pipeline::{BuildOptions, BuildReport, BuildStats, Progress, Session};
pub use workspace_check::{check, check_cached, check_files};

/// What the integration tests look at inside the phases: a phase's own steps and limits,
/// named here one by one. Not the API: it changes with the phases.
#[doc(hidden)]
pub mod internals {
    /// The workspace's files on disk.
    pub mod discover {
        pub use crate::discover::fsio::large::MAX_ASSET_BYTES;
        pub use crate::discover::fsio::MAX_FILE_BYTES;
    }
    /// Files into the model.
    pub mod parse {
        pub use crate::parse::load::load_dir;
        pub use crate::parse::names::portability_problems;
        pub use crate::parse::sources::scan;
    }
    /// What every bundle holds.
    pub mod resolve {
        pub use crate::resolve::{bundles, import_closure, prepare, BundleSpec, Slot, Slots};
        /// The workspace's shared sources.
        pub mod pool {
            pub use crate::resolve::pool::{build, normalize_url, rewrite};
        }
    }
    /// The build's own steps.
    pub mod pipeline {
        pub use crate::pipeline::artifact::STEPS;
        pub use crate::pipeline::compile_to;
    }
}
