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

// The API: what the studio, the benchmark and other callers use.
pub mod cases;
pub mod command;
pub mod diagnostic;
pub mod digest;
pub mod edit;
pub mod interop;
pub mod mcp;
pub mod model;
pub mod release;
pub mod sign;
pub mod skill_md;
pub mod workspace_check;

// The phases. Public for this crate's own binaries and tests, which look inside them; not part
// of the API (`scripts/check-layers.py` keeps the studio off them).
#[doc(hidden)]
pub mod check;
#[doc(hidden)]
pub mod discover;
#[doc(hidden)]
pub mod parse;
#[doc(hidden)]
pub mod pipeline;
#[doc(hidden)]
pub mod render;
#[doc(hidden)]
pub mod resolve;

pub use check::{CheckOptions, CheckReport};
pub use diagnostic::{codes, render_json, render_text, Diagnostic, Pos, SafetyLevel, Severity};
pub(crate) use digest::content_digest;
pub use discover::fsio::RawFile;
pub use model::Workspace;
pub use parse::load::workspace_config;
pub use parse::yaml::split_frontmatter;
pub use pipeline::watch;
pub use pipeline::{build, rebuild, BuildOptions, BuildReport, Progress, Session};
pub use workspace_check::{check, check_cached, check_files};
