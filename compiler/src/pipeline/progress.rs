//! What a build tells while it runs: each phase's progress to the caller, and with
//! `SKILLC_TIMING` set, the time and memory of each step on the standard error.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::BuildOptions;

pub(super) fn progress(options: &BuildOptions<'_>, phase: &str, done: usize, total: usize) {
    if done == total || done == 0 {
        timing(&format_args!("{phase} {done}/{total}"));
    }
    if let Some(p) = options.progress {
        p(phase, done, total);
    }
}

/// With `SKILLC_TIMING` set, prints the time since the first such line, the resident memory
/// and `step` to the standard error (the figures behind the benchmark's).
pub(crate) fn timing(step: &dyn std::fmt::Display) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*ON.get_or_init(|| std::env::var_os("SKILLC_TIMING").is_some()) {
        return;
    }
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let t = START.get_or_init(std::time::Instant::now);
    eprintln!(
        "[{:>9.4}s {:>5} MB] {step}",
        t.elapsed().as_secs_f64(),
        resident_mb()
    );
}

/// Resident memory of this process now, in MB (`SKILLC_TIMING`; Linux only, else 0).
pub(super) fn resident_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kb.unwrap_or(0) / 1000
}

/// Reports a phase's progress every 256 items and at its end.
pub(super) struct Meter<'a> {
    options: &'a BuildOptions<'a>,
    phase: &'static str,
    total: usize,
    done: AtomicUsize,
}

impl<'a> Meter<'a> {
    pub(super) fn new(options: &'a BuildOptions<'a>, phase: &'static str, total: usize) -> Self {
        Meter {
            options,
            phase,
            total,
            done: AtomicUsize::new(0),
        }
    }

    /// One more item done.
    pub(super) fn tick(&self) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(256) || n == self.total {
            progress(self.options, self.phase, n, self.total);
        }
    }
}
