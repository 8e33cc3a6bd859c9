//! skillc: the build-time compiler for AI-agent skills workspaces.
//!
//! The compiler is a row of phases over plain data, one folder each: [`discover`] walks the
//! workspace, [`parse`] turns files into the [`model`], [`check`] validates across files,
//! [`resolve`] decides what every bundle holds, [`render`] writes its texts and [`build`] lays
//! out and writes the artifact (and rebuilds incrementally in `watch`). [`edit`] changes
//! files losslessly and [`interop`] moves skills in and out. Problems in the user's files are
//! [`Diagnostic`] values; failures of the environment are error types of each phase.

pub mod build;
pub mod cases;
pub mod check;
pub mod diagnostic;
pub mod discover;
pub mod edit;
pub mod interop;
pub mod mcp;
pub mod model;
pub mod parse;
pub mod render;
pub mod resolve;

pub use build::{build, BuildOptions, BuildReport};

/// A hash of `value`, for types that compute theirs once and hash as it (cards, entry keys:
/// looked up tens of thousands of times a rebuild). Within one process only.
pub(crate) fn content_digest<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    value.hash(&mut h);
    h.finish()
}
pub use check::{check, check_files, CheckOptions, CheckReport};
pub use diagnostic::{codes, render_json, render_text, Diagnostic, Pos, Severity};
pub use model::Workspace;
