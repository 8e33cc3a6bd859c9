//! skillc: the build-time compiler for AI-agent skills workspaces.
//!
//! The compiler is a row of phases over plain data, one folder each, each using only those
//! before it (`scripts/check-layers.py` holds it so): [`discover`] walks the workspace,
//! [`parse`] turns files into the [`model`], [`check`] validates across files, [`resolve`]
//! decides what every bundle holds, [`render`] writes its texts and [`pipeline`] runs the phases
//! and lays out and writes the artifact (and rebuilds incrementally in `watch`). Above them,
//! [`workspace_check`] is what the `check` command reports (templates rendered, test cases
//! read), [`edit`] changes files losslessly and [`interop`] moves skills in and out. Below
//! them all, [`diagnostic`] and [`digest`]. Problems in the user's files are [`Diagnostic`]
//! values; failures of the environment are error types of each phase.

pub mod cases;
pub mod check;
pub mod diagnostic;
pub mod digest;
pub mod discover;
pub mod edit;
pub mod interop;
pub mod mcp;
pub mod model;
pub mod parse;
pub mod pipeline;
pub mod release;
pub mod render;
pub mod resolve;
pub mod workspace_check;

pub use check::{CheckOptions, CheckReport};
pub use diagnostic::{codes, render_json, render_text, Diagnostic, Pos, Severity};
pub(crate) use digest::content_digest;
pub use model::Workspace;
pub use pipeline::{build, BuildOptions, BuildReport};
pub use workspace_check::{check, check_files};
