//! The bench's command line, checked before anything runs: a mistyped flag or number would
//! otherwise run the whole benchmark (minutes) with the reference workload's numbers, and
//! `--keep` empties its folder first, so it takes only a new or empty folder or a workspace
//! the bench wrote before.

use std::path::Path;

pub(crate) const USAGE: &str = "\
usage: skillc-bench [--skills N] [--clients N] [--overrides N] [--locales N] [--tiers N] [--seed N]
                    [--runs N] [--keep DIR] [--scale N,N...] [--only-scale] [--generate-only]
                    [--watch-only]

Builds a synthetic workspace (SPEC 9's reference workload unless told otherwise) and prints its
figures: build time, peak memory, the artifact's size, runtime lookups and routes, `skillc
catalog` and `route` as processes, the Python runtime, and `skillc watch` from the user's side.
  --scale 5000,50000  then builds the same workload with those numbers of clients, each fresh
  --only-scale        only those scale points
  --generate-only     writes the workspace into --keep DIR and stops
  --watch-only        only the figures of a `skillc watch` process
  --keep DIR          keeps the workspace there (a new or empty folder, or one the bench wrote)";

/// Flags followed by a value.
const VALUED: [&str; 9] = [
    "--skills",
    "--clients",
    "--overrides",
    "--locales",
    "--tiers",
    "--seed",
    "--runs",
    "--keep",
    "--scale",
];

/// Flags on their own.
const SWITCHES: [&str; 3] = ["--only-scale", "--generate-only", "--watch-only"];

/// What the command line asks for.
pub(crate) enum Asked {
    Run,
    Help,
}

/// Whether `args` (the program's name first) can run, or what is wrong with them.
pub(crate) fn check(args: &[String]) -> Result<Asked, String> {
    let mut rest = args.iter().skip(1);
    while let Some(a) = rest.next() {
        if a == "-h" || a == "--help" {
            return Ok(Asked::Help);
        }
        if SWITCHES.contains(&a.as_str()) {
            continue;
        }
        if !VALUED.contains(&a.as_str()) {
            return Err(format!("unknown argument `{a}`"));
        }
        let Some(value) = rest.next() else {
            return Err(format!("`{a}` needs a value"));
        };
        match a.as_str() {
            "--keep" => keepable(Path::new(value))?,
            "--scale" => {
                for point in value.split(',') {
                    number(a, point)?;
                }
            }
            _ => {
                number(a, value)?;
            }
        }
    }
    Ok(Asked::Run)
}

fn number(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("`{flag}` takes whole numbers, not `{value}`"))
}

/// A folder `--keep` may empty: one that does not exist yet, an empty one, or a workspace the
/// bench wrote (its workspace.yaml names the synthetic workspace). A link is not followed.
fn keepable(dir: &Path) -> Result<(), String> {
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return Ok(());
    };
    let refused = |why: &str| Err(format!("--keep {}: {why}", dir.display()));
    if !meta.is_dir() {
        return refused("not a folder (the bench writes a workspace into a folder of its own)");
    }
    let empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none());
    let ours = std::fs::read_to_string(dir.join("workspace.yaml"))
        .is_ok_and(|text| text.starts_with("name: synthetic\n"));
    if empty || ours {
        return Ok(());
    }
    refused(
        "the folder holds files the bench did not write, and it empties the folder first: \
         give it a new or empty one",
    )
}
