//! The compiler crate's integration tests, one binary: each `tests/<name>.rs` is a module here,
//! so the crate and its dependencies are linked once rather than once per file. Tests are named
//! `<file>::<test>`: `cargo test -p skillc-compiler --test integration cli::` runs `cli.rs`.
//!
//! Every test runs on a thread of this one process: a test must not change the process's
//! environment or current folder, and one that measures the whole process (`assets.rs`) runs
//! itself again alone ([`common::alone`]).

mod common;

// The generator of the benchmark, shared rather than part of the library's API.
#[path = "../compiler/src/bin/skillc-bench/synth.rs"]
#[allow(dead_code)]
mod synth;

mod assets;
mod bad_inputs;
mod batched;
mod build;
mod cli;
mod cli_contract;
mod dense;
mod dialects;
mod evalsets;
mod external;
mod fixtures;
mod history;
mod hostile;
mod incremental;
mod mcp_skills;
mod oci;
mod packages;
mod plugins;
mod properties;
mod runtime;
mod safety;
mod sample;
mod sessions;
mod signing;
mod targets;
mod teams;
