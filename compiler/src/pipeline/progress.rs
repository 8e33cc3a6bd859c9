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

/// With `SKILLC_TIMING` set, prints the time since the first such line, the CPU time the
/// process has used, the resident memory and `step` to the standard error (the figures
/// behind the benchmark's).
pub(crate) fn timing(step: &dyn std::fmt::Display) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*ON.get_or_init(|| std::env::var_os("SKILLC_TIMING").is_some()) {
        return;
    }
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let t = START.get_or_init(std::time::Instant::now);
    eprintln!(
        "[{:>9.4}s {:>8.3}s CPU {:>5} MB] {step}",
        t.elapsed().as_secs_f64(),
        cpu_seconds(),
        resident_mb()
    );
}

/// CPU time this process has used so far, user and system, in seconds (`SKILLC_TIMING`;
/// Linux only, else 0): beside the wall time, how busy the cores were between two lines.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis: utime and stime are the 12th and
    // 13th of them, in clock ticks (100 a second on Linux).
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = (after.split_whitespace().skip(11).take(2))
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
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
