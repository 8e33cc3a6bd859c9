//! `skillc build` on real files: determinism, atomicity, secrets, resolution of the sample.

use crate::common;
use crate::synth;

use crate::common::{copy_dir, write};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use rusqlite::{Connection, OpenFlags};
use skillc::internals::resolve::{self, BundleSpec, Slot, Slots};
use skillc::CheckOptions;
use skillc::{build, BuildOptions};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills")
}

fn skillc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_skillc"))
}

/// A blob's content, inflated when stored as zlib.
fn content(encoding: &str, data: Vec<u8>) -> String {
    use std::io::Read;
    match encoding {
        "zlib" => {
            let mut out = String::new();
            flate2::read::ZlibDecoder::new(&data[..])
                .read_to_string(&mut out)
                .unwrap();
            out
        }
        _ => String::from_utf8(data).unwrap(),
    }
}

fn open(path: &Path) -> Connection {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// The sample built with default options, opened read-only (the folder holds the file).
fn built_sample() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    build(&sample(), &out, &BuildOptions::default()).unwrap();
    let conn = open(&out);
    (dir, conn)
}

/// The built-in meaning's bytes a build reports (its summary line, skillc-bench's ratio without
/// them) are what the artifact's `meaning` rows hold: the table, the small talk and the glossary.
#[test]
fn the_reported_meaning_bytes_are_the_meaning_rows_the_artifact_holds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    let report = build(&sample(), &out, &BuildOptions::default()).unwrap();
    let held: i64 = open(&out)
        .query_row("SELECT SUM(length(data)) FROM meaning", [], |r| r.get(0))
        .unwrap();
    assert_eq!(report.stats.unwrap().meaning_bytes, held as u64);
}

#[test]
fn the_artifact_does_not_depend_on_threads_paths_or_file_times() {
    let dir = tempfile::tempdir().unwrap();
    // The same files at another path, every file's modification time moved.
    let moved = dir.path().join("elsewhere/deeper/skills");
    common::copy_dir(&sample(), &moved);
    let old_time = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(86_400);
    touch_all(&moved, old_time);
    let runs: [(&Path, &str, Option<&str>); 4] = [
        (&sample(), "a.db", None),
        (&sample(), "b.db", Some("1")),
        (&sample(), "c.db", Some("8")),
        (&moved, "d.db", Some("3")),
    ];
    let mut artifacts = Vec::new();
    for (ws, name, jobs) in runs {
        let out = dir.path().join(name);
        let mut cmd = skillc();
        cmd.args(["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        if let Some(j) = jobs {
            cmd.args(["--jobs", j]);
        }
        let o = cmd.output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        artifacts.push((name, std::fs::read(&out).unwrap()));
    }
    for (name, bytes) in &artifacts[1..] {
        assert!(*bytes == artifacts[0].1, "{name} differs from a.db");
    }
    let conn = open(&dir.path().join("a.db"));
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, skillc_runtime::schema::VERSION);
}

/// The schema version is defined once (`skillc_runtime::schema`); the Python runtime, which
/// cannot import it, must check the same number.
/// The writer does not have SQLite enforce the schema's references (they hold by
/// construction); this checks that they do, on the sample, both public collections and a
/// synthetic workspace with clients, locales and tiers.
#[test]
fn every_reference_between_tables_points_to_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let synthetic = dir.path().join("synthetic");
    let shape = synth::Shape {
        skills: 40,
        clients: 6,
        overrides: 3,
        locales: 3,
        tiers: 3,
        seed: 7,
    };
    synth::generate(&synthetic, shape).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let workspaces = [
        sample(),
        root.join("tests/public-collection"),
        root.join("tests/public-collection-2"),
        synthetic,
    ];
    for (i, ws) in workspaces.iter().enumerate() {
        let out = dir.path().join(format!("{i}.db"));
        build(ws, &out, &BuildOptions::default()).unwrap();
        let conn = open(&out);
        let entries: i64 = conn
            .query_row("SELECT count(*) FROM entry", [], |r| r.get(0))
            .unwrap();
        assert!(entries > 0, "{}: no entries", ws.display());
        let mut st = conn.prepare("PRAGMA foreign_key_check").unwrap();
        let dangling: Vec<(String, i64, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1).unwrap_or(0), r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(dangling.is_empty(), "{}: {dangling:?}", ws.display());
    }
}

#[test]
fn the_python_runtime_checks_the_schema_version_the_compiler_writes() {
    let python = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/python/skillc_runtime/__init__.py"),
    )
    .unwrap();
    let line = format!("SCHEMA_VERSION = {}\n", skillc_runtime::schema::VERSION);
    assert!(
        python.contains(&line),
        "skillc_runtime.py lacks `{}`",
        line.trim()
    );
}

fn touch_all(dir: &Path, time: std::time::SystemTime) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            touch_all(&e.path(), time);
        } else {
            let f = std::fs::File::options()
                .append(true)
                .open(e.path())
                .unwrap();
            f.set_modified(time).unwrap();
        }
    }
}

#[test]
fn a_workspace_with_errors_writes_nothing_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    let ws =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/many-problems/workspace");
    let o = skillc()
        .args(["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(!out.exists());
    assert!(String::from_utf8_lossy(&o.stderr).contains("error[E012]"));
}

#[test]
fn a_secret_value_appears_nowhere_in_the_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let secret = "sk-live-4f9c2e7d1b8a-do-not-leak";
    write(
        &ws,
        "api/SKILL.md",
        "---\nname: api\ndescription: Calls the API.\nvars:\n  API_KEY: { required: true, secret: true }\n  REGION: { default: eu }\nmcp:\n  command: server\n  env: { KEY: \"${API_KEY}\", REGION: \"${REGION}\" }\n---\nUse {{API_KEY}} in {{REGION}}.\n",
    );
    // A long body is stored compressed: a leak there is invisible to a search of raw bytes.
    let long = "Call the billing endpoint with the key. ".repeat(40);
    write(
        &ws,
        "billing/SKILL.md",
        &format!("---\nname: billing\ndescription: Bills.\nvars:\n  API_KEY: {{ required: true, secret: true }}\n---\n{long}\nKey: {{{{API_KEY}}}}\n"),
    );
    write(
        &ws,
        "api/vars.json",
        &format!("{{\"API_KEY\": \"{secret}\"}}"),
    );
    write(
        &ws,
        "variables.json",
        &format!("{{\"_global\": {{\"API_KEY\": \"{secret}\"}}}}"),
    );
    write(
        &ws,
        "clients/acme/client.yaml",
        &format!("vars: {{ _global: {{ API_KEY: \"{secret}\" }} }}\n"),
    );
    let out = dir.path().join("out.db");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    assert!(report.stats.is_some(), "{:?}", report.diagnostics);
    let bytes = std::fs::read(&out).unwrap();
    let needle = secret.as_bytes();
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "the secret leaked"
    );
    // Every blob, decompressed.
    let conn = open(&out);
    let mut st = conn.prepare("SELECT encoding, data FROM blob").unwrap();
    let blobs: Vec<(String, Vec<u8>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        blobs.iter().any(|(e, _)| e == "zlib"),
        "no compressed blob to search"
    );
    for (encoding, data) in blobs {
        assert!(
            !content(&encoding, data).contains(secret),
            "a blob holds the secret"
        );
    }
    // Nor in what export writes, for the global and the client bundle.
    for flags in [vec![], vec!["--client", "acme"]] {
        let target = dir.path().join(format!("export{}", flags.len()));
        let o = skillc()
            .args([
                "export",
                out.to_str().unwrap(),
                "-o",
                target.to_str().unwrap(),
            ])
            .args(&flags)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut files = vec![target];
        let mut seen = 0;
        while let Some(p) = files.pop() {
            if p.is_dir() {
                files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            } else {
                seen += 1;
                let bytes = std::fs::read(&p).unwrap();
                assert!(
                    !bytes.windows(needle.len()).any(|w| w == needle),
                    "{p:?} leaks"
                );
            }
        }
        assert!(seen >= 2, "export wrote {seen} files");
    }
    // The placeholder stays for the runtime, and the variable is listed as a run-time one.
    let conn = open(&out);
    let (encoding, body, record): (String, Vec<u8>, String) = conn
        .query_row(
            "SELECT blob.encoding, blob.data, entry.record FROM entry JOIN blob ON blob.hash = entry.body WHERE entry.name = 'api' LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(content(&encoding, body), "Use {{API_KEY}} in eu.");
    let record: serde_json::Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["runtime_vars"], serde_json::json!(["API_KEY"]));
    assert_eq!(record["mcp"]["env"]["KEY"], "${API_KEY}");
    assert_eq!(record["mcp"]["env"]["REGION"], "eu");
}

#[test]
fn a_build_killed_at_any_point_leaves_the_old_or_the_new_artifact_whole() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let shape = synth::Shape {
        skills: 300,
        clients: 80,
        overrides: 5,
        locales: 4,
        tiers: 3,
        seed: 7,
    };
    synth::generate(&ws, shape).unwrap();
    let build_into = |out: &Path| {
        let o = skillc()
            .args(["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
    };
    let out = dir.path().join("out.db");
    build_into(&out);
    let old = std::fs::read(&out).unwrap();
    // Change the workspace; determinism makes the new artifact's bytes known in advance.
    write(
        &ws,
        "public/cat-0/extra/SKILL.md",
        "---\nname: extra\ndescription: New.\n---\nNew.\n",
    );
    let reference = dir.path().join("new.db");
    let started = std::time::Instant::now();
    build_into(&reference);
    let whole_build = started.elapsed();
    let new = std::fs::read(&reference).unwrap();
    assert_ne!(old, new);
    // Kill points spread over the whole measured build, the final write included.
    let points = 12u32;
    let (mut saw_old, mut saw_new) = (false, false);
    // On a loaded machine a build can take longer than the measured one: later points follow
    // until a kill lands after the rename (at most three more, up to three builds long).
    let delays = (0..=points)
        .map(|i| 1.1 * f64::from(i) / f64::from(points))
        .chain([1.5, 2.0, 3.0]);
    for (i, factor) in delays.enumerate() {
        if i > points as usize && saw_new {
            break;
        }
        std::fs::write(&out, &old).unwrap();
        let delay = whole_build.mul_f64(factor);
        let mut child = skillc()
            .args(["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        // SIGKILL: no destructor, no cleanup runs.
        let _ = Command::new("kill")
            .args(["-9", &child.id().to_string()])
            .status();
        let _ = child.wait();
        let now = std::fs::read(&out).unwrap();
        assert!(
            now == old || now == new,
            "killed after {delay:?}: the artifact is neither the old nor the new one"
        );
        saw_old |= now == old;
        saw_new |= now == new;
    }
    // The kills landed on both sides of the rename (the timing is measured, not guessed).
    assert!(
        saw_old && saw_new,
        "old seen: {saw_old}, new seen: {saw_new}"
    );
}

#[test]
fn a_build_stopped_at_each_step_of_the_writer_leaves_the_old_artifact_byte_identical() {
    // Deterministic where the kill test above is statistical: the build ends its own process
    // at each step of the writer in turn (SKILLC_TEST_STOP_AT), as a kill there would.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_dir(&sample(), &ws);
    let out = dir.path().join("out.db");
    let run = |stop: Option<&str>| {
        let mut cmd = skillc();
        cmd.args(["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        if let Some(step) = stop {
            cmd.env("SKILLC_TEST_STOP_AT", step);
        }
        cmd.output().unwrap().status.code()
    };
    assert_eq!(run(None), Some(0));
    let old = std::fs::read(&out).unwrap();
    write(
        &ws,
        "public/assistant/extra/SKILL.md",
        "---\nname: extra\ndescription: New.\n---\nNew.\n",
    );
    for step in skillc::internals::pipeline::STEPS {
        // 86: the build reached the step and stopped there.
        assert_eq!(
            run(Some(step)),
            Some(86),
            "the build never reached `{step}`"
        );
        assert!(
            std::fs::read(&out).unwrap() == old,
            "stopped at `{step}`: the previous artifact changed"
        );
    }
    assert_eq!(run(None), Some(0));
    assert_ne!(std::fs::read(&out).unwrap(), old);
}

#[test]
fn a_watch_session_stopped_at_each_step_of_the_writer_leaves_the_old_artifact_byte_identical() {
    // As the one-shot test above, for a session's writer (`watch`, and the studio through the
    // same session): its artifact is swapped into place, never written where it stands.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_dir(&sample(), &ws);
    let out = dir.path().join("out.db");
    let built = skillc()
        .args(["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let old = std::fs::read(&out).unwrap();
    write(
        &ws,
        "public/assistant/extra/SKILL.md",
        "---\nname: extra\ndescription: New.\n---\nNew.\n",
    );
    for step in skillc::internals::pipeline::STEPS {
        let mut child = skillc()
            .args(["watch", ws.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .env("SKILLC_TEST_STOP_AT", step)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        // 86: the session's first build reached the step and stopped there.
        assert_eq!(
            status.and_then(|s| s.code()),
            Some(86),
            "watch never reached `{step}`"
        );
        assert!(
            std::fs::read(&out).unwrap() == old,
            "watch stopped at `{step}`: the previous artifact changed"
        );
    }
}

fn full_view(
    conn: &Connection,
    client: &str,
    locale: &str,
    tier: &str,
) -> BTreeMap<String, Option<String>> {
    let (id, base): (i64, Option<i64>) = conn
        .query_row(
            "SELECT id, base FROM bundle WHERE client = ?1 AND locale = ?2 AND tier = ?3",
            [client, locale, tier],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let rows = |b: i64| -> Vec<(String, Option<String>)> {
        let mut st = conn
            .prepare(
                "SELECT name.qualified_name, entry.resolved_name FROM bundle_entry
                 JOIN name ON name.id = bundle_entry.name
                 LEFT JOIN entry ON entry.id = bundle_entry.entry WHERE bundle_entry.bundle = ?1",
            )
            .unwrap();
        st.query_map([b], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let mut view: BTreeMap<String, Option<String>> =
        base.map(rows).unwrap_or_default().into_iter().collect();
    view.extend(rows(id));
    view
}

#[test]
fn the_sample_resolves_variants_toggles_and_overrides_per_client() {
    let (_dir, conn) = built_sample();
    let competitors = |client: &str, tier: &str| {
        full_view(&conn, client, "en", tier)["public.competitors"]
            .clone()
            .unwrap()
    };
    // Seed 000's tier matrix, and the per-client override that beats every variant.
    assert_eq!(competitors("", "standard"), "competitors"); // no flags: Tier 1
    assert_eq!(competitors("example.com", "standard"), "competitors"); // mode without names
    assert_eq!(competitors("augment.org", "standard"), "competitors_aware"); // Tier 2
    assert_eq!(
        competitors("hyperline.co", "standard"),
        "competitors_battlecard"
    ); // Tier 3
    assert_eq!(competitors("hyperline.co", "fast"), "competitors_aware"); // tier predicate
    assert_eq!(competitors("northwind.io", "standard"), "competitors"); // client override
    let northwind: String = conn
        .query_row(
            "SELECT entry.record FROM bundle JOIN bundle_entry ON bundle_entry.bundle = bundle.id
             JOIN name ON name.id = bundle_entry.name JOIN entry ON entry.id = bundle_entry.entry
             WHERE bundle.client = 'northwind.io' AND name.qualified_name = 'public.competitors' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(northwind.contains("clients/northwind.io/"), "{northwind}");

    // Toggles: explicit toggle > default_enabled > enabled.
    let global = full_view(&conn, "", "en", "standard");
    assert_eq!(global["public.content_gating"], None);
    let example = full_view(&conn, "example.com", "en", "standard");
    assert_eq!(
        example["public.content_gating"].as_deref(),
        Some("content_gating")
    );
    assert_eq!(example["public.demo_offer"], None);
    let reason: String = conn
        .query_row(
            "SELECT reason.text FROM bundle JOIN bundle_entry ON bundle_entry.bundle = bundle.id
             JOIN name ON name.id = bundle_entry.name JOIN reason ON reason.id = bundle_entry.reason
             WHERE bundle.client = 'example.com' AND name.qualified_name = 'public.demo_offer' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(reason, "disabled: toggled off for this client");
    // Client-only skills exist only for their client; the pricing catch-all overrides.
    assert!(!global.contains_key("public.pricing-uk"));
    let iban = full_view(&conn, "ibanfirst.com", "en-gb", "standard");
    assert!(iban.contains_key("public.pricing-uk"));
    // A client's locales bound its bundles.
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM bundle WHERE client = 'example.com' AND locale = 'fr'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn client_bundles_stored_as_differences_equal_a_full_resolution() {
    let report = skillc::check(&sample(), &CheckOptions::default()).unwrap();
    let ws = &report.workspace;
    let p = resolve::prepare(ws);
    for spec in resolve::bundles(ws) {
        let Some(client) = spec.client.clone() else {
            continue;
        };
        let global = BundleSpec {
            client: None,
            ..spec.clone()
        };
        let base = p.resolve(&global);
        let affected = p.affected(&client);
        let mut merged = base.clone();
        merged.extend(p.resolve_some(&spec, Some((&affected, &Slots::from(base)))));
        let full: BTreeMap<String, Slot> = p.resolve(&spec);
        assert_eq!(merged, full, "{spec:?}");
    }
}

#[test]
fn bundles_holding_the_same_differences_share_one_slot_list() {
    let (_dir, conn) = built_sample();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let bundles = count("SELECT count(*) FROM bundle");
    let lists = count("SELECT count(*) FROM slot_list");
    assert_eq!(lists, count("SELECT count(DISTINCT slots) FROM slot_list"));
    assert_eq!(lists, count("SELECT count(DISTINCT slots) FROM bundle"));
    assert!(lists < bundles, "{lists} lists for {bundles} bundles");
    // Every bundle reads its names through its list, in the view too.
    assert_eq!(
        bundles,
        count("SELECT count(*) FROM bundle b JOIN slot_list l ON l.id = b.slots")
    );
    let own = count(
        "SELECT count(*) FROM bundle b JOIN slot_list l ON l.id = b.slots, json_each(l.slots)",
    );
    assert_eq!(own, count("SELECT count(*) FROM bundle_entry"));
}

#[test]
fn sources_are_pooled_and_every_token_is_rewritten_to_a_pooled_id() {
    let (_dir, conn) = built_sample();
    let urls: Vec<(i64, String)> = conn
        .prepare("SELECT sid, url FROM source ORDER BY sid")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // pdf-press and url-gen share the CSS Paged Media URL: one id.
    let css = urls
        .iter()
        .filter(|(_, u)| u.contains("css-page-3"))
        .count();
    assert_eq!(css, 1);
    let (encoding, body): (String, Vec<u8>) = conn
        .query_row(
            "SELECT blob.encoding, blob.data FROM entry JOIN blob ON blob.hash = entry.body WHERE entry.name = 'url-gen' LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let body = content(&encoding, body);
    let (tokens, bad) = skillc::internals::parse::scan(&body);
    assert!(bad.is_empty());
    assert_eq!(tokens.len(), 3);
    for t in tokens {
        for sid in t.sids {
            assert!(
                urls.iter().any(|(s, _)| *s == sid as i64),
                "{sid} is not pooled"
            );
        }
    }
}

#[test]
fn catalogs_over_a_tier_budget_are_cut_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        "workspace.yaml",
        "tiers:\n  - { name: standard }\n  - { name: tiny, catalog_token_budget: 120 }\n",
    );
    for i in 0..6 {
        write(
            &ws,
            &format!("s{i}/SKILL.md"),
            &format!(
                "---\nname: s{i}\ndescription: Skill number {i} helps with a long list of carefully described situations and edge cases.\ntrigger_examples: [\"first trigger for {i}\", \"second trigger for {i}\"]\n---\nBody {i}.\n"
            ),
        );
    }
    let out = dir.path().join("out.db");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    let w = report
        .diagnostics
        .iter()
        .find(|d| d.code == "W114")
        .expect("a budget warning");
    assert!(
        w.message.contains("tier `tiny`'s budget of 120"),
        "{}",
        w.message
    );
    let conn = open(&out);
    let level: String = conn
        .query_row(
            "SELECT catalog_level FROM bundle WHERE tier = 'tiny'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        level.starts_with("chars:") || level == "no-triggers",
        "{level}"
    );
    let full: String = conn
        .query_row(
            "SELECT catalog_level FROM bundle WHERE tier = 'standard'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(full, "");
    // A runtime tells the budget and the cut from what the build recorded.
    let a = skillc_runtime::Artifact::open(&out).unwrap();
    assert_eq!(a.catalog_budget("tiny"), Some(120));
    assert_eq!(a.catalog_budget("standard"), None);
    let tier = |t| skillc_runtime::BundleRef {
        tier: Some(t),
        ..Default::default()
    };
    let cut = a.bundle(&tier("tiny")).unwrap().catalog_cut();
    assert!(cut.is_some_and(|c| c.starts_with("trigger examples left out")));
    assert_eq!(a.bundle(&tier("standard")).unwrap().catalog_cut(), None);
}

/// A card's catalog texts are stored with its description cut out wherever they hold it as
/// written (each of three formats held it again beside the card's own), and read back whole
/// through the `card_fragment` view; a text that shortens or escapes it is stored whole.
#[test]
fn catalog_texts_hold_their_card_s_description_once() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: Plain words a catalog shows as written.\n---\nBody.\n",
    );
    write(
        &ws,
        "b/SKILL.md",
        "---\nname: b\ndescription: Tom & Jerry <cartoons> | pipes\n---\nBody.\n",
    );
    let out = dir.path().join("out.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let conn = open(&out);
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let cut = "SELECT count(*) FROM card_fragment_cut f JOIN card c ON c.id = f.card";
    // `a` in its three formats; `b` in none: each escapes `&` and `<` (xml) or `|`.
    assert_eq!(
        count(&format!("{cut} WHERE f.tail IS NOT NULL AND c.name = 'a'")),
        3
    );
    assert_eq!(
        count(&format!("{cut} WHERE f.tail IS NULL AND c.name = 'b'")),
        3
    );
    assert_eq!(
        count(&format!(
            "{cut} WHERE f.tail IS NULL AND instr(f.head, c.description) > 0"
        )),
        0,
        "a text holding its description as written is stored whole"
    );
    assert_eq!(
        count(&format!(
            "{cut} WHERE instr(f.head || coalesce(f.tail, ''), c.description) > 0"
        )),
        0,
        "a cut text still holds its description"
    );
    let texts: Vec<(String, String)> = conn
        .prepare("SELECT format, text FROM card_fragment f JOIN card c ON c.id = f.card WHERE c.name = 'a' ORDER BY format")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(texts.len(), 3);
    for (format, text) in &texts {
        assert_eq!(
            text.matches("Plain words a catalog shows as written.")
                .count(),
            1,
            "{format}: {text}"
        );
    }
    let list = skillc_runtime::Artifact::open(&out)
        .unwrap()
        .catalog_text(
            &skillc_runtime::BundleRef::default(),
            None,
            &skillc_runtime::Context::default(),
            skillc_runtime::Format::List,
        )
        .unwrap();
    assert!(
        list.contains("Plain words a catalog shows as written."),
        "{list}"
    );
    assert!(list.contains("Tom & Jerry <cartoons> \\| pipes"), "{list}");
}

#[test]
fn workspace_templates_override_the_built_in_ones_and_bad_ones_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: d\n---\nBody with {{ code }}.\n",
    );
    write(
        &ws,
        "templates/catalog_list_skill.tera",
        "* {{ name | upper }} - {{ description }}\n",
    );
    let out = dir.path().join("out.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let conn = open(&out);
    let text: String = conn
        .query_row(
            "SELECT text FROM card_fragment WHERE format = 'list'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(text, "* A - d\n");
    // Bodies are not templates: `{{ code }}` survives.
    let body: Vec<u8> = conn
        .query_row(
            "SELECT data FROM blob JOIN entry ON entry.body = blob.hash",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(String::from_utf8(body).unwrap(), "Body with {{ code }}.");

    write(&ws, "templates/prompt_skill.tera", "{% if %}");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    assert!(report.stats.is_none());
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.code == "E024" && d.file == "templates/prompt_skill.tera"));
}

/// `watch` on a thread of its own; each build sends whether it wrote the artifact.
fn watch_in_background(ws: &Path, out: &Path) -> std::sync::mpsc::Receiver<bool> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (root, output) = (ws.to_path_buf(), out.to_path_buf());
    std::thread::spawn(move || {
        let _ = skillc::watch::watch(&root, &output, |event| {
            let _ = tx.send(matches!(event, skillc::watch::Event::Built { report, .. }
                if report.stats.is_some()));
        });
    });
    rx
}

#[test]
fn watch_waits_for_a_file_still_open_for_writing() {
    use std::io::Write;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: One.\n---\nBody.\n",
    );
    let rx = watch_in_background(&ws, &dir.path().join("out.db"));
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(true));
    // A writer that pauses while the file is open, half written (no closing fence yet), for
    // longer than the short settle but within the debounce: no build may see the half.
    let mut file = std::fs::File::create(ws.join("a/SKILL.md")).unwrap();
    file.write_all(b"---\nname: a\ndescription: Tw").unwrap();
    std::thread::sleep(Duration::from_millis(8));
    file.write_all(b"o.\n---\nBody.\n").unwrap();
    drop(file);
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(true));
    while let Ok(more) = rx.recv_timeout(Duration::from_millis(400)) {
        assert!(more, "a build saw the file half written");
    }
}

#[test]
fn watch_rebuilds_on_change_keeps_the_artifact_on_errors_and_keeps_watching() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: First.\n---\nBody.\n",
    );
    let out = dir.path().join("out.db");
    let rx = watch_in_background(&ws, &out);
    // The outcome of the builds one change causes (file systems may report a save twice).
    let wait = || {
        let mut last = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("a build event");
        while let Ok(more) = rx.recv_timeout(Duration::from_millis(400)) {
            last = more;
        }
        last
    };
    assert!(wait(), "the first build writes the artifact");
    let first = std::fs::read(&out).unwrap();
    // An editor's temp file alone does not trigger a build; a real edit does.
    write(&ws, "a/.SKILL.md.swp", "junk");
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: Second.\n---\nBody.\n",
    );
    assert!(wait());
    let second = std::fs::read(&out).unwrap();
    assert_ne!(first, second);
    // A broken edit is reported, the artifact stays, and the watcher goes on.
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: [broken\n---\n",
    );
    assert!(!wait());
    assert_eq!(std::fs::read(&out).unwrap(), second);
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: Third.\n---\nBody.\n",
    );
    assert!(wait());
    let warm = std::fs::read(&out).unwrap();
    assert_ne!(warm, second);
    // A warm rebuild (the watch session's memory of its earlier builds) equals a cold CLI build.
    let cold = out.with_extension("cold.db");
    let o = skillc()
        .args(["build", ws.to_str().unwrap(), "-o", cold.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(
        warm == std::fs::read(&cold).unwrap(),
        "warm and cold builds differ"
    );
}

#[test]
fn localized_content_falls_back_from_region_to_language_to_base() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        "workspace.yaml",
        "locales: [en, en-gb, fr, fr-ca, de]\n",
    );
    write(
        &ws,
        "alpha/SKILL.md",
        "---\nname: alpha\ndescription: Base description.\ntrigger_examples: [base trigger]\n---\nBase body.\n",
    );
    write(
        &ws,
        "alpha/SKILL.fr.md",
        "---\ndescription: Description française.\ntrigger_examples: [déclencheur]\n---\nCorps français.\n",
    );
    write(
        &ws,
        "alpha/SKILL.en-gb.md",
        "---\ndescription: British description.\n---\nBritish body.\n",
    );
    write(
        &ws,
        "beta/SKILL.md",
        "---\nname: beta\ndescription: Only in the base language.\n---\nBeta body.\n",
    );
    let out = dir.path().join("out.db");
    let o = skillc()
        .args(["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ask = |args: &[&str]| -> serde_json::Value {
        let o = skillc()
            .arg(args[0])
            .arg(&out)
            .args(&args[1..])
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        serde_json::from_slice(&o.stdout).unwrap()
    };
    // (locale, alpha's description, its triggers, its body)
    let expected = [
        (
            "en",
            "Base description.",
            vec!["base trigger"],
            "Base body.",
        ),
        (
            "en-gb",
            "British description.",
            vec!["base trigger"],
            "British body.",
        ),
        (
            "fr",
            "Description française.",
            vec!["déclencheur"],
            "Corps français.",
        ),
        (
            "fr-ca",
            "Description française.",
            vec!["déclencheur"],
            "Corps français.",
        ),
        (
            "de",
            "Base description.",
            vec!["base trigger"],
            "Base body.",
        ),
    ];
    for (locale, description, triggers, body) in expected {
        let catalog = ask(&["catalog", "--locale", locale, "--format", "json"]);
        let skills = catalog["skills"].as_array().unwrap();
        let find = |n: &str| skills.iter().find(|s| s["name"] == n).unwrap().clone();
        assert_eq!(find("alpha")["description"], description, "{locale}");
        assert_eq!(
            find("alpha")["triggers"],
            serde_json::json!(triggers),
            "{locale}"
        );
        assert_eq!(
            find("beta")["description"],
            "Only in the base language.",
            "{locale}"
        );
        let prompt = ask(&[
            "prompt",
            "--locale",
            locale,
            "--select",
            "alpha,beta",
            "--format",
            "json",
        ]);
        let text = prompt["text"].as_str().unwrap();
        assert!(text.contains(body), "{locale}: {text}");
        assert!(text.contains("Beta body."), "{locale}: {text}");
        for other in ["Base body.", "British body.", "Corps français."] {
            if other != body {
                assert!(!text.contains(other), "{locale} also holds {other}: {text}");
            }
        }
    }
}

#[test]
fn a_release_label_computed_beside_the_build_is_the_label_given_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let given = dir.path().join("given.db");
    let options = |label: &str| BuildOptions {
        release: Some(label.to_string()),
        ..BuildOptions::default()
    };
    build(&sample(), &given, &options("v1")).unwrap();
    let v1 = || Some("v1".to_string());
    let later = BuildOptions {
        release_from: Some(&v1),
        ..BuildOptions::default()
    };
    let computed = dir.path().join("computed.db");
    build(&sample(), &computed, &later).unwrap();
    assert!(
        std::fs::read(&given).unwrap() == std::fs::read(&computed).unwrap(),
        "the same label, given or computed, gives the same bytes"
    );
    // In a session, the same files and label write nothing; another label rebuilds.
    let mut session = skillc::Session::default();
    let out = dir.path().join("session.db");
    let rebuild = |s: &mut skillc::Session, o: &BuildOptions<'_>| {
        skillc::rebuild(&sample(), &out, o, s).unwrap()
    };
    assert!(!rebuild(&mut session, &later).unchanged);
    assert!(rebuild(&mut session, &later).unchanged);
    let v2 = || Some("v2".to_string());
    let report = rebuild(
        &mut session,
        &BuildOptions {
            release_from: Some(&v2),
            ..BuildOptions::default()
        },
    );
    assert!(!report.unchanged);
    let release: String = open(&out)
        .query_row(
            "SELECT value FROM manifest WHERE key = 'release'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(release, "v2");
}

/// An entry shows its own source's display metadata: a variant's version where the variant is
/// used, the base skill's where it is not (the metadata is made once per pair of skills).
#[test]
fn a_variants_entry_shows_the_variants_display_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(&ws, "workspace.yaml", "name: metas\nlocales: [en]\n");
    write(
        &ws,
        "public/plans/plan/SKILL.md",
        "---\nname: plan\ndescription: Explains the plans.\nversion: \"1.0\"\n---\nThe plans of {{COMPANY_NAME}}.\n",
    );
    write(
        &ws,
        "public/plans/plan-pro/SKILL.md",
        "---\nname: plan-pro\ndescription: Explains the pro plan.\nversion: \"2.0\"\n\
         variant_of: plan\nwhen:\n  - { flag: tier, equals: pro }\n---\nThe pro plan of {{COMPANY_NAME}}.\n",
    );
    // Each client's company name gives each its own entries, built side by side.
    for n in 0..12 {
        let tier = if n % 2 == 0 { "pro" } else { "free" };
        let yaml =
            format!("flags:\n  tier: {tier}\nvars:\n  _global: {{ COMPANY_NAME: Company {n} }}\n");
        write(&ws, &format!("clients/client-{n}/client.yaml"), &yaml);
    }
    let out = dir.path().join("a.db");
    let report = build(&ws, &out, &BuildOptions::default()).unwrap();
    assert!(report.stats.is_some(), "{:?}", report.diagnostics);
    let db = open(&out);
    let mut versions: Vec<(String, String)> = db
        .prepare("SELECT resolved_name, json_extract(record, '$.meta.version') FROM entry WHERE name = 'plan' ORDER BY resolved_name")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(versions.len() > 12, "{versions:?}");
    versions.dedup();
    let expected =
        [("plan", "1.0"), ("plan-pro", "2.0")].map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(versions, expected);
}

#[test]
fn a_collection_builds_with_other_tools_fields_and_package_lists_set_aside() {
    // aiskillstore (`compatibility: {mops: …}`, `tools: {write: false}`, `dependencies:
    // [crewai>=1.2.0]`) and davila7 (versions in 34 lists, `[torch, transformers]` in 62 more,
    // `transformers` being a skill too): the collection builds, each field set aside is named,
    // and a package list pulls in no skill. A workspace.yaml makes the same fields errors.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/collection-other-tools/workspace");
    copy_dir(&fixture, &ws);
    let skill = |name: &str, deps: &str| {
        let text = format!(
            "---\nname: {name}\ndescription: Trains models with {name}. Use for {name}.\n\
             dependencies: [{deps}]\n---\nThe {name} body.\n"
        );
        write(&ws, &format!("{name}/SKILL.md"), &text);
    };
    skill("transformers", "torch>=2.0");
    for name in ["trl", "accelerate", "deepspeed"] {
        skill(name, "torch>=2.0, transformers");
    }
    skill("peft", "torch, transformers");
    let out = dir.path().join("a.db");
    let run = |args: &[&str]| {
        let o = skillc().args(args).output().unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.code(), said)
    };
    let (ws_arg, out_arg) = (ws.to_str().unwrap(), out.to_str().unwrap());
    let (code, said) = run(&["build", ws_arg, "-o", out_arg]);
    assert_eq!(code, Some(0), "{said}");
    for set_aside in ["`compatibility` here", "`tools` here", "(`crewai>=1.2.0`"] {
        assert!(said.contains(set_aside), "{set_aside}:\n{said}");
    }
    assert_eq!(said.matches("lists packages").count(), 6, "{said}");
    // `transformers` in a package list is the package: selecting peft adds no skill.
    let (code, prompt) = run(&["prompt", out_arg, "--select", "peft"]);
    assert_eq!(code, Some(0), "{prompt}");
    assert!(prompt.contains("The peft body."), "{prompt}");
    assert!(!prompt.contains("The transformers body."), "{prompt}");
    // The other tools' values are kept for their export.
    let exported = dir.path().join("e");
    let (code, said) = run(&["export", out_arg, "-o", exported.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{said}");
    let file = std::fs::read_to_string(exported.join("caffeine-slack/SKILL.md")).unwrap();
    assert!(file.contains("slack-client"), "{file}");
    let file = std::fs::read_to_string(exported.join("peft/SKILL.md")).unwrap();
    assert!(file.contains("transformers"), "{file}");
    // The `evals` list written without its mapping is read as cases.
    let (code, said) = run(&["test", ws_arg]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("ddd-check: eval inc-001"), "{said}");

    // Package lists in four skills only: a plain list is read as skill names, `torch` none.
    std::fs::remove_dir_all(ws.join("deepspeed")).unwrap();
    let (code, said) = run(&["check", ws_arg]);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("unknown skill `torch`"), "{said}");

    write(&ws, "workspace.yaml", "name: authored\n");
    let (code, said) = run(&["build", ws_arg, "-o", out_arg]);
    assert_eq!(code, Some(1), "{said}");
    for error in ["E010", "E012"] {
        assert!(
            said.contains(&format!("error[{error}]")),
            "{error}:\n{said}"
        );
    }
}
