//! The benchmark: builds a synthetic workspace and prints its figures. Its command line is
//! `args::USAGE` (`skillc-bench --help`). Defaults are the reference workload. Prints the
//! median wall time of full builds, the peak memory of one build, the artifact's size against
//! the workspace's distinct source bytes, and the latency from editing one client's skill to
//! the new artifact in watch mode; `--scale` points each build a fresh workspace, and
//! `--watch-only` edits one skill again and again, then fifteen clients' skills in a row.

// A binary exports nothing: its items say `pub(crate)`, as the library's own do.
#![warn(unreachable_pub)]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use skillc::{build, BuildOptions};
mod args;
mod synth;

use synth::{generate, Shape};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn num(args: &[String], name: &str, default: usize) -> usize {
    arg(args, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Peak resident memory of this process (Linux `VmHWM`), in KiB.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the peak so the next reading covers only what follows (Linux ≥ 4.0).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// mimalloc: a build allocates and frees millions of small values (Cargo.toml says why).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args::check(&args) {
        Ok(args::Asked::Run) => {}
        Ok(args::Asked::Help) => {
            println!("{}", args::USAGE);
            return;
        }
        Err(e) => {
            eprintln!("skillc-bench: {e}\n\n{}", args::USAGE);
            std::process::exit(2);
        }
    }
    let r = Shape::reference();
    let shape = Shape {
        skills: num(&args, "--skills", r.skills),
        clients: num(&args, "--clients", r.clients),
        overrides: num(&args, "--overrides", r.overrides),
        locales: num(&args, "--locales", r.locales),
        tiers: num(&args, "--tiers", r.tiers),
        seed: num(&args, "--seed", r.seed as usize) as u64,
    };
    let runs = num(&args, "--runs", 3).max(1);
    let tmp = std::env::temp_dir().join(format!("skillc-bench-{}", std::process::id()));
    let dir: PathBuf = arg(&args, "--keep")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.join("ws"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create workspace folder");
    std::fs::create_dir_all(&tmp).expect("create the output folder");
    let out = tmp.join("out.db");
    if args.iter().any(|a| a == "--only-scale") {
        scale_points(&args, &tmp, shape);
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }
    let t = Instant::now();
    let files = generate(&dir, shape).expect("generate workspace");
    if args.iter().any(|a| a == "--watch-only") {
        watch_figures(&dir, &tmp);
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }
    if args.iter().any(|a| a == "--generate-only") {
        println!("generated {files} files in {}", dir.display());
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }
    println!(
        "workload: {} global skills, {} clients x {} overrides, {} locales, {} tiers (seed {}): {files} files, generated in {:.2}s",
        shape.skills,
        shape.clients,
        shape.overrides,
        shape.locales,
        shape.tiers,
        shape.seed,
        t.elapsed().as_secs_f64()
    );

    build_figures(&dir, &out, runs);
    runtime_figures(&out);
    catalog_process(&out);
    python_figures(&dir, &out);
    watch_figures(&dir, &tmp);
    println!(
        "watch rebuild after one edit: {}",
        watch_latency(&dir, &tmp.join("watch.db"))
    );
    if let Some(points) = arg(&args, "--scale") {
        scale_points_apart(&args, &points);
    }
    if arg(&args, "--keep").is_none() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// The figures of a `skillc watch` process given edits, as a user makes them.
fn watch_figures(dir: &Path, tmp: &Path) {
    println!(
        "watch from the user's side: {}",
        watch_from_outside(dir, &tmp.join("watch-outside.db"))
    );
    println!(
        "watch from the user's side, 15 clients' skills in a row: {}",
        watch_across_clients(dir, &tmp.join("watch-across.db"))
    );
    println!(
        "watch from the user's side, 6 global skills in a row: {}",
        watch_across_globals(dir, &tmp.join("watch-globals.db"))
    );
}

/// The full build's figures: time, bundles, peak memory and size against the sources.
fn build_figures(dir: &Path, out: &Path, runs: usize) {
    let (times, stats, peak) = full_builds(dir, out, runs);
    let s = stats.expect("artifact written");
    // The first build runs in a fresh process. A one-shot build keeps nothing (token counts
    // and compressed assets are a session's): later runs differ from it by the files in the
    // system's cache and the allocator's warm pages only.
    println!(
        "full build: {:.2}s in a fresh process   target <= 10 s",
        times[0]
    );
    if times.len() > 1 {
        println!(
            "  again in the same process: median {:.2}s over {} runs",
            median(times[1..].to_vec()),
            times.len() - 1
        );
    }
    println!(
        "  {} bundles, {} distinct entries, {} blobs",
        s.bundles, s.entries, s.blobs
    );
    if let Some(kib) = peak {
        println!(
            "peak memory: {:.0} MiB   target <= 1024 MiB",
            kib as f64 / 1024.0
        );
    }
    println!(
        // SPEC 9's 2x, raised to 2.5x by SPEC 13.1 for the routing index the artifact now holds.
        "artifact: {} bytes = {:.2}x the {} distinct source bytes   target <= 2.5x (with the routing index)",
        s.bytes,
        s.bytes as f64 / s.source_bytes.max(1) as f64,
        s.source_bytes
    );
    println!(
        "  of which the built-in meaning table: {} bytes; without it {:.2}x",
        s.meaning_bytes,
        s.bytes.saturating_sub(s.meaning_bytes) as f64 / s.source_bytes.max(1) as f64
    );
}

/// The scale points, in a fresh process: this one still holds the watch session's caches,
/// which would count in its peak.
fn scale_points_apart(args: &[String], points: &str) {
    let me = std::env::current_exe().expect("the bench's own path");
    let mut child = std::process::Command::new(me);
    child.args(["--only-scale", "--scale", points]);
    for name in ["--skills", "--overrides", "--locales", "--tiers", "--seed"] {
        if let Some(v) = arg(args, name) {
            child.args([name, &v]);
        }
    }
    match child.output() {
        Ok(o) => print!("{}", String::from_utf8_lossy(&o.stdout)),
        Err(e) => println!("(scale points not run: {e})"),
    }
}

/// Each scale point, then the peak memory of each against the first's: memory is flat when
/// it grows with clients by at most half.
fn scale_points(args: &[String], tmp: &Path, shape: Shape) {
    let Some(points) = arg(args, "--scale") else {
        return;
    };
    let mut peaks = Vec::new();
    for clients in points.split(',').filter_map(|n| n.trim().parse().ok()) {
        if let Some(peak) = scale_point(tmp, Shape { clients, ..shape }) {
            peaks.push((clients, peak));
        }
    }
    // Flat: ten times the clients in at most 1.5 times the memory; past that, within 1 GiB.
    if let Some(((first, base), rest)) = peaks.split_first() {
        for (clients, peak) in rest {
            if *clients <= first * 10 {
                println!(
                    "peak memory at {clients} clients: {:.2}x that at {first}   target <= 1.5x",
                    peak / base
                );
            } else {
                println!(
                    "peak memory at {clients} clients: {peak:.0} MiB ({:.2}x that at {first})   target <= 1024 MiB",
                    peak / base
                );
            }
        }
    }
}

/// One scale point: a fresh workspace of `shape`, built once; time, peak memory and size.
/// Returns the peak memory in MiB, if the build wrote the artifact.
fn scale_point(tmp: &Path, shape: Shape) -> Option<f64> {
    let dir = tmp.join(format!("scale-{}", shape.clients));
    let out = tmp.join(format!("scale-{}.db", shape.clients));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create workspace folder");
    let t = Instant::now();
    let files = generate(&dir, shape).expect("generate workspace");
    let generated = t.elapsed().as_secs_f64();
    reset_peak();
    let t = Instant::now();
    let report = build(&dir, &out, &as_the_cli_builds()).expect("build runs");
    let secs = t.elapsed().as_secs_f64();
    let peak = peak_kib().unwrap_or(0) as f64 / 1024.0;
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&out);
    match report.stats {
        Some(s) => {
            println!(
                "scale: {} clients ({} bundles, {files} files, generated in {generated:.0}s): build {secs:.1}s, peak {peak:.0} MiB, artifact {:.2}x the distinct source ({:.2}x without the built-in meaning's table, the same in every workspace)   target <= 2.5x",
                shape.clients,
                s.bundles,
                s.bytes as f64 / s.source_bytes.max(1) as f64,
                s.bytes.saturating_sub(s.meaning_bytes) as f64 / s.source_bytes.max(1) as f64
            );
            Some(peak)
        }
        None => {
            println!("scale: {} clients: the build failed", shape.clients);
            None
        }
    }
}

/// The options of `skillc build` with its text output: the help and snippet of the warnings
/// it shows in full, not of a flood's others.
fn as_the_cli_builds() -> BuildOptions<'static> {
    BuildOptions {
        warning_details: Some(50),
        ..BuildOptions::default()
    }
}

/// `runs` full builds of the workspace: their times, the last one's figures and the peak
/// memory of the first (fresh) one.
fn full_builds(
    dir: &Path,
    out: &Path,
    runs: usize,
) -> (Vec<f64>, Option<skillc::BuildStats>, Option<u64>) {
    let mut times = Vec::new();
    let mut stats = None;
    let mut peak = None;
    for run in 0..runs {
        reset_peak();
        let t = Instant::now();
        let report = build(dir, out, &as_the_cli_builds()).expect("build runs");
        times.push(t.elapsed().as_secs_f64());
        if run == 0 {
            peak = peak_kib();
        }
        assert_eq!(report.error_count(), 0, "synthetic workspace has errors");
        stats = report.stats;
    }
    (times, stats, peak)
}

fn percentiles(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[v.len() * 99 / 100])
}

/// Catalog lookups and 5-skill prompts through the Rust runtime API, warm.
fn runtime_figures(out: &Path) {
    use skillc_runtime::{Artifact, BundleRef, Context, Format};
    let a = Artifact::open(out).expect("artifact opens");
    let b = BundleRef {
        client: Some("client-0.example"),
        locale: Some("en"),
        tier: Some("tier0"),
    };
    let contexts: Vec<Context> = ["/en/pricing", "/fr/x", "/en", "/docs"]
        .iter()
        .map(|u| Context::from_pairs([("page_url", *u), ("turn", "2")]).expect("context"))
        .collect();
    let names: Vec<String> = a
        .catalog(&b, None, &contexts[0], Format::Markdown)
        .expect("catalog")
        .skills
        .iter()
        .map(|s| s.name.clone())
        .collect();
    for c in &contexts {
        a.catalog(&b, None, c, Format::Markdown).expect("warm");
    }
    let mut catalog = Vec::new();
    for i in 0..20_000 {
        let t = Instant::now();
        let c = a
            .catalog(&b, None, &contexts[i % contexts.len()], Format::Markdown)
            .expect("catalog");
        catalog.push(t.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(c);
    }
    let mut prompt = Vec::new();
    for i in 0..5_000 {
        let pick: Vec<&str> = (0..5)
            .map(|k| names[(i * 7 + k * 131) % names.len()].as_str())
            .collect();
        let t = Instant::now();
        let p = a
            .prompt(&b, None, &contexts[i % contexts.len()], &pick)
            .expect("prompt");
        prompt.push(t.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(p);
    }
    let (c50, c99) = percentiles(catalog);
    let (p50, p99) = percentiles(prompt);
    let messages = |template: fn(&str, usize) -> String| -> Vec<String> {
        (0..64)
            .map(|i| template(&names[(i * 37) % names.len()], i))
            .collect()
    };
    let (r50, r99) = route_figures(
        &a,
        &b,
        &contexts,
        &messages(|name, i| format!("how do I use {name} with my account and export {i}")),
    );
    // Three misspelt words a message: each read as its nearest known word (docs/routing.md).
    let (m50, m99) = route_figures(
        &a,
        &b,
        &contexts,
        &messages(|name, i| format!("how do I uze {name} with my acount and exprot {i}")),
    );
    println!(
        "runtime (Rust API, warm, a {}-skill client bundle): catalog lookup p50 {c50:.1} us, p99 {c99:.1} us   target p50 <= 20 us",
        names.len()
    );
    println!(
        "  prompt for 5 selected skills: p50 {p50:.1} us, p99 {p99:.1} us   target p50 <= 100 us"
    );
    println!("  route a message (words and the built-in meaning): p50 {r50:.1} us, p99 {r99:.1} us   target p50 <= 200 us");
    println!("  route a message with three misspelt words: p50 {m50:.1} us, p99 {m99:.1} us   target p50 <= 200 us");
}

/// Warm routes of `messages` (each of a skill's name and common words): p50 and p99 in µs.
fn route_figures(
    a: &skillc_runtime::Artifact,
    b: &skillc_runtime::BundleRef<'_>,
    contexts: &[skillc_runtime::Context],
    messages: &[String],
) -> (f64, f64) {
    a.route(b, None, &contexts[0], &messages[0], None)
        .expect("route");
    let mut route = Vec::new();
    for i in 0..5_000 {
        let (ctx, message) = (&contexts[i % contexts.len()], &messages[i % messages.len()]);
        let t = Instant::now();
        let r = a.route(b, None, ctx, message, None).expect("route");
        route.push(t.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(r);
    }
    percentiles(route)
}

/// The `skillc` binary beside this one, if built.
fn skillc_binary() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("skillc")))
        .filter(|p| p.exists())
}

/// `skillc catalog` as a whole process (start, open, read, print, exit), a client's bundle,
/// median of 30 runs.
fn catalog_process(out: &Path) {
    let Some(skillc) = skillc_binary() else {
        println!("(skillc binary not found beside skillc-bench: catalog as a process skipped)");
        return;
    };
    let mut times = Vec::new();
    for _ in 0..30 {
        let t = Instant::now();
        let ok = std::process::Command::new(&skillc)
            .arg("catalog")
            .arg(out)
            .args(["--client", "client-0.example"])
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if !ok {
            println!("skillc catalog as a process: failed");
            return;
        }
    }
    println!(
        "skillc catalog as a process (a client's bundle, markdown): median {:.1} ms over 30 runs   target <= 10 ms",
        median(times)
    );
}

/// The Python runtime against skills-ref, and skillc check against skills-ref validate.
fn python_figures(dir: &Path, out: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/python/bench.py");
    let Some(skillc) = skillc_binary() else {
        println!("(skillc binary not found beside skillc-bench: Python comparison skipped)");
        return;
    };
    match std::process::Command::new("python3")
        .arg(script)
        .arg(dir)
        .arg(out)
        .arg(skillc)
        .output()
    {
        Ok(o) => print!("{}", String::from_utf8_lossy(&o.stdout)),
        Err(e) => println!("(python3 not available: {e})"),
    }
}

/// The client skill the watch figures edit.
fn edited_skill(dir: &Path) -> Option<PathBuf> {
    client_skill(dir, 0)
}

/// A skill of client `n` (the first of its first category folder).
fn client_skill(dir: &Path, n: usize) -> Option<PathBuf> {
    std::fs::read_dir(dir.join(format!("clients/client-{n}.example")))
        .ok()
        .and_then(|mut d| d.find_map(|e| e.ok().filter(|e| e.path().is_dir())))
        .and_then(|cat| std::fs::read_dir(cat.path()).ok()?.find_map(|e| e.ok()))
        .map(|e| e.path().join("SKILL.md"))
}

/// Which file is at `path` (its inode), if one is.
fn inode(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| m.ino())
}

/// A `skillc watch` process, as a user runs it: nine edits of one client skill a third of a
/// second apart, each timed from the edited file's write to a new artifact in place (another
/// file at the path), everything the process does included.
fn watch_from_outside(dir: &Path, out: &Path) -> String {
    let Some(skill) = edited_skill(dir) else {
        return "no client skill to edit".to_string();
    };
    let edits = vec![skill; 9];
    summary(watched_edits(dir, out, &edits, Duration::from_millis(350)))
}

/// The same process given fifteen edits in a row, each of a different client's skill, 0.8 s
/// apart: every rebuild then has a client whose bundles changed, where one skill edited
/// again and again finds the last build's work mostly still its own.
fn watch_across_clients(dir: &Path, out: &Path) -> String {
    let edits: Option<Vec<PathBuf>> = (1..=15).map(|n| client_skill(dir, n)).collect();
    let Some(edits) = edits else {
        return "fewer than 16 clients with a skill to edit".to_string();
    };
    summary(watched_edits(dir, out, &edits, Duration::from_millis(800)))
}

/// Six edits in a row, each of a global skill of another category, 1.2 s apart: a global
/// skill is in every client's bundles, so each edit reaches all of them.
fn watch_across_globals(dir: &Path, out: &Path) -> String {
    let edits: Option<Vec<PathBuf>> = (0..6).map(|n| global_skill(dir, n)).collect();
    let Some(edits) = edits else {
        return "fewer than 6 categories with a global skill to edit".to_string();
    };
    summary(watched_edits(dir, out, &edits, Duration::from_millis(1200)))
}

/// The first skill (by folder name) of global category `n`.
fn global_skill(dir: &Path, n: usize) -> Option<PathBuf> {
    let category = std::fs::read_dir(dir.join(format!("public/cat-{n}"))).ok()?;
    let mut skills: Vec<PathBuf> = category
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("SKILL.md").is_file())
        .collect();
    skills.sort();
    skills.first().map(|p| p.join("SKILL.md"))
}

/// The median and range of `samples`, or why there are none.
fn summary(samples: Result<Vec<f64>, String>) -> String {
    let samples = match samples {
        Ok(samples) => samples,
        Err(why) => return why,
    };
    let (low, high) = samples
        .iter()
        .fold((f64::MAX, 0f64), |(l, h), &x| (l.min(x), h.max(x)));
    format!(
        "median {:.0} ms over {} edits, {low:.0}-{high:.0} ms (a `skillc watch` process; the edited file written to a new artifact in place)   target <= 100 ms",
        median(samples.clone()),
        samples.len()
    )
}

/// Starts `skillc watch`, waits for its first artifact, then writes each of `edits` in turn
/// (appending a line), `gap` apart, and times each write to a new artifact in place.
fn watched_edits(
    dir: &Path,
    out: &Path,
    edits: &[PathBuf],
    gap: Duration,
) -> Result<Vec<f64>, String> {
    let Some(skillc) = skillc_binary() else {
        return Err("(skillc binary not found beside skillc-bench: skipped)".to_string());
    };
    let mut child = std::process::Command::new(&skillc)
        .arg("watch")
        .arg(dir)
        .arg("-o")
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start skillc watch: {e}"))?;
    let until = |what: &dyn Fn() -> bool, limit: Duration| {
        let t = Instant::now();
        while !what() {
            if t.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        true
    };
    let mut samples = Vec::new();
    if until(&|| inode(out).is_some(), Duration::from_secs(600)) {
        std::thread::sleep(Duration::from_secs(1));
        for (i, skill) in edits.iter().enumerate() {
            let before = inode(out);
            let text = std::fs::read_to_string(skill).unwrap_or_default();
            let t = Instant::now();
            std::fs::write(skill, format!("{text}\nOutside edit {i}.\n")).expect("edit");
            if !until(&|| inode(out) != before, Duration::from_secs(60)) {
                break;
            }
            samples.push(t.elapsed().as_secs_f64() * 1000.0);
            std::thread::sleep(gap);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    match samples.len() == edits.len() {
        true => Ok(samples),
        false => Err("the watcher did not write a new artifact after an edit".to_string()),
    }
}

/// Starts the watcher, edits one client's skill, and times the edit to the rebuilt artifact.
fn watch_latency(dir: &Path, out: &Path) -> String {
    let (tx, rx) = mpsc::channel();
    let (root, output) = (dir.to_path_buf(), out.to_path_buf());
    std::thread::spawn(move || {
        let _ = skillc::watch::watch(&root, &output, |event| {
            let _ = tx.send(matches!(event, skillc::watch::Event::Built { ref report, .. } if report.stats.is_some()));
        });
    });
    if rx.recv_timeout(Duration::from_secs(600)) != Ok(true) {
        return "initial watch build failed".to_string();
    }
    let mut samples = Vec::new();
    // Nine edits, a third of a second apart as a person's are (at least): the rebuild before
    // has freed what it set aside to free.
    for i in 0..9 {
        std::thread::sleep(Duration::from_millis(300));
        let Some(skill) = edited_skill(dir) else {
            return "no client skill to edit".to_string();
        };
        let text = std::fs::read_to_string(&skill).unwrap_or_default();
        let t = Instant::now();
        std::fs::write(&skill, format!("{text}\nEdit {i}.\n")).expect("edit");
        match rx.recv_timeout(Duration::from_secs(600)) {
            Ok(true) => samples.push(t.elapsed().as_secs_f64() * 1000.0),
            _ => return "rebuild failed".to_string(),
        }
    }
    let (low, high) = samples
        .iter()
        .fold((f64::MAX, 0f64), |(l, h), &x| (l.min(x), h.max(x)));
    format!(
        "median {:.0} ms over {} edits, {low:.0}-{high:.0} ms (includes the watcher's {} ms wait after the file is closed)   target <= 100 ms",
        median(samples.clone()),
        samples.len(),
        skillc::watch::SETTLE.as_millis()
    )
}
