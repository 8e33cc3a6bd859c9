//! Large assets: a build streams them into the artifact, so its memory does not grow
//! with their bytes, and a workspace whose assets exceed what an artifact holds gets a clear
//! error. The memory test reads the peak of the whole process, so it runs itself again alone in
//! a process of its own (`common::alone`): the other tests of the binary run on its threads.

use crate::common;

use std::io::Write;
use std::path::Path;

use skillc::{build, BuildOptions};

/// Status line of this process in KiB (`VmHWM`, `VmRSS`).
fn status_kib(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(key)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Writes `bytes` of incompressible data (xorshift) to `path`, a chunk at a time.
fn noise(path: &Path, bytes: usize, seed: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut x = seed | 1;
    let mut chunk = Vec::with_capacity(1 << 16);
    for _ in 0..bytes / 8 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.extend_from_slice(&x.to_le_bytes());
        if chunk.len() >= 1 << 16 {
            f.write_all(&chunk).unwrap();
            chunk.clear();
        }
    }
    f.write_all(&chunk).unwrap();
}

const MIB: usize = 1 << 20;

#[test]
fn large_assets_are_streamed_into_the_artifact_and_memory_stays_flat() {
    if !common::alone("assets::large_assets_are_streamed_into_the_artifact_and_memory_stays_flat") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    common::write(
        &ws,
        "media/SKILL.md",
        "---\nname: media\ndescription: Carries media.\n---\nBody.\n",
    );
    for i in 0..8u64 {
        noise(
            &ws.join(format!("media/assets/clip-{i}.bin")),
            12 * MIB,
            i + 1,
        );
    }
    // A large text asset compresses; two clients carry one large asset each (batches below).
    let text = "A line of a long reference document that compresses well.\n".repeat(20_000);
    common::write(&ws, "media/references/long.md", &text);
    for c in ["a.example", "b.example"] {
        common::write(&ws, &format!("clients/{c}/client.yaml"), "toggles: {}\n");
        common::write(
            &ws,
            &format!("clients/{c}/own/SKILL.md"),
            "---\nname: own\ndescription: Own.\n---\nBody.\n",
        );
        noise(
            &ws.join(format!("clients/{c}/own/data.bin")),
            2 * MIB,
            c.len() as u64,
        );
    }
    let out = tmp.path().join("out.db");
    // A first build loads what every build holds (the tokenizer's tables, about 50 MB).
    let warm = tmp.path().join("warm");
    common::write(
        &warm,
        "a/SKILL.md",
        "---\nname: a\ndescription: A.\n---\nBody.\n",
    );
    build(&warm, &tmp.path().join("warm.db"), &BuildOptions::default()).unwrap();
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = status_kib("VmRSS:");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    let peak = status_kib("VmHWM:");
    assert!(report.stats.is_some(), "{:?}", report.diagnostics);
    // 100 MB of assets; held in memory they took twice that. Streamed, the build holds about
    // one file at a time beside SQLite's page cache.
    let grew_mib = (peak.saturating_sub(before)) / 1024;
    assert!(
        grew_mib < 64,
        "the build's memory grew by {grew_mib} MiB for 100 MB of assets"
    );
    // Every asset reads back whole.
    let a = skillc_runtime::Artifact::open(&out).unwrap();
    for i in 0..8u64 {
        let path = ws.join(format!("media/assets/clip-{i}.bin"));
        let want = std::fs::read(&path).unwrap();
        let got = a
            .asset(
                &skillc_runtime::BundleRef::default(),
                "media",
                &format!("assets/clip-{i}.bin"),
            )
            .unwrap();
        assert!(got == want, "clip-{i} differs");
    }
    let long = a
        .asset(
            &skillc_runtime::BundleRef::default(),
            "media",
            "references/long.md",
        )
        .unwrap();
    assert_eq!(long, text.as_bytes());
    // Built in batches of one client, the bytes are the same.
    let batched = tmp.path().join("batched.db");
    let options = BuildOptions {
        clients_per_batch: Some(1),
        ..Default::default()
    };
    build(&ws, &batched, &options).unwrap();
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&batched).unwrap());
}

#[test]
fn assets_past_what_an_artifact_holds_are_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    common::write(
        &ws,
        "big/SKILL.md",
        "---\nname: big\ndescription: Too much.\n---\nBody.\n",
    );
    // Sparse files: 2 GiB and a little more, on no disk.
    let each = skillc::internals::discover::MAX_FILE_BYTES;
    let count = skillc::internals::discover::MAX_ASSET_BYTES / each + 1;
    for i in 0..count {
        let path = ws.join(format!("big/data/part-{i:03}.bin"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::File::create(&path).unwrap().set_len(each).unwrap();
    }
    let out = tmp.path().join("out.db");
    for args in [
        vec!["check", ws.to_str().unwrap(), "--no-cache"],
        vec!["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()],
    ] {
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_skillc"))
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&run.stdout).into_owned()
            + &String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {text}");
        assert!(
            text.contains("error[E003]: the skills' assets come to"),
            "{text}"
        );
        assert!(!out.exists());
    }
}
