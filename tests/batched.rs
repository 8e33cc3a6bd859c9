//! A one-shot build of many clients runs a batch of clients at a time: its artifact and its
//! report are the ones a build of the whole workspace makes, whatever the batch size.

use crate::synth;

use std::path::{Path, PathBuf};

use skillc::{build, BuildOptions, BuildReport};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// Builds `root` with `per_batch` clients per batch: the report and the artifact's bytes.
fn built(root: &Path, out: &Path, per_batch: usize) -> (BuildReport, Vec<u8>) {
    let options = BuildOptions {
        clients_per_batch: Some(per_batch),
        ..BuildOptions::default()
    };
    let report = build(root, out, &options).unwrap();
    let bytes = std::fs::read(out).unwrap_or_default();
    (report, bytes)
}

/// Batches of 1, 2 and 3 clients give the whole build's bytes, diagnostics and figures.
fn assert_batches_build_the_whole(root: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let whole_out = dir.path().join("whole.db");
    let (whole, whole_bytes) = built(root, &whole_out, usize::MAX);
    for per_batch in [1, 2, 3] {
        let out = dir.path().join(format!("batches-of-{per_batch}.db"));
        let (report, bytes) = built(root, &out, per_batch);
        let what = format!("{} in batches of {per_batch}", root.display());
        assert_eq!(report.diagnostics, whole.diagnostics, "{what}: diagnostics");
        assert_eq!(report.stats, whole.stats, "{what}: figures");
        assert!(bytes == whole_bytes, "{what}: the artifacts differ");
        assert_eq!(out.exists(), whole_out.exists(), "{what}: written or not");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.'))
            .collect();
        assert!(leftovers.is_empty(), "{what}: left {leftovers:?}");
    }
}

#[test]
fn the_sample_built_in_batches_is_the_sample_built_whole() {
    assert_batches_build_the_whole(&repo("skills"));
}

#[test]
fn fixtures_with_clients_built_in_batches_are_the_same_built_whole() {
    for name in [
        "client-warnings",
        "overlap",
        "duplicate-skill",
        "unknown-name",
    ] {
        assert_batches_build_the_whole(&repo(&format!("tests/fixtures/{name}/workspace")));
    }
}

#[test]
fn plugins_whose_plain_names_clients_take_built_in_batches_are_the_same_built_whole() {
    let dir = tempfile::tempdir().unwrap();
    crate::plugins::workspace_with_plugin_names_a_client_takes(dir.path());
    // A client's own plugin (`clients/beta/other`) is in the manifest's `plugins` as it is
    // built whole, though only its batch loads it.
    assert_batches_build_the_whole(dir.path());
}

#[test]
fn a_marketplace_of_several_plugins_built_in_batches_lists_them_as_built_whole() {
    // Every batch loads the shared marketplace again; its plugins are kept once each, in the
    // order it lists them.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    crate::fixtures::copy_tree(&repo("tests/fixtures/plugin-marketplace/workspace"), &ws);
    for client in ["acme", "beta", "gamma"] {
        let folder = ws.join("clients").join(client);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("client.yaml"), "locales: [en]\n").unwrap();
    }
    assert_batches_build_the_whole(&ws);
}

/// A synthetic workspace of 40 skills and 7 clients (three overrides each, 2 locales, 2 tiers),
/// whose look-alike skills warn with help.
fn seven_clients() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let shape = synth::Shape {
        skills: 40,
        clients: 7,
        overrides: 3,
        locales: 2,
        tiers: 2,
        seed: 7,
    };
    synth::generate(dir.path(), shape).unwrap();
    dir
}

#[test]
fn a_synthetic_workspace_built_in_batches_is_the_same_built_whole() {
    let dir = seven_clients();
    assert_batches_build_the_whole(dir.path());
}

/// Asked for the details of its first `k` warnings only (as the text output shows a flood), a
/// build in batches gives the same artifact and the same diagnostics, the first `k` warnings
/// with their help and snippet as a whole build gives them and the staged ones after them
/// without (what kept 520,000 warnings' texts in memory at the end of 50,000 clients).
#[test]
fn a_build_in_batches_keeps_the_help_and_snippet_of_the_warnings_it_shows() {
    let dir = seven_clients();
    let (whole, whole_bytes) = built(dir.path(), &dir.path().join("whole.db"), usize::MAX);
    let one = |d: &skillc::Diagnostic| skillc::render_text(std::slice::from_ref(d), "");
    let bare = |d: &skillc::Diagnostic| {
        let mut d = d.clone();
        d.help = None;
        one(&d).lines().next().unwrap_or_default().to_string()
    };
    let helped = whole
        .diagnostics
        .iter()
        .filter(|d| d.help.is_some())
        .count();
    assert!(
        helped > 10,
        "the synthetic workspace warns with help: {helped}"
    );
    for k in [0, 3, 10] {
        let out = dir.path().join(format!("details-{k}.db"));
        let options = BuildOptions {
            clients_per_batch: Some(2),
            warning_details: Some(k),
            ..BuildOptions::default()
        };
        let report = build(dir.path(), &out, &options).unwrap();
        assert!(
            std::fs::read(&out).unwrap() == whole_bytes,
            "{k}: the artifacts differ"
        );
        assert_eq!(report.diagnostics.len(), whole.diagnostics.len(), "{k}");
        let mut without = 0;
        for (i, (got, want)) in report
            .diagnostics
            .iter()
            .zip(&whole.diagnostics)
            .enumerate()
        {
            assert_eq!(bare(got), bare(want), "{k}: diagnostic {i}");
            if i < k {
                assert_eq!(one(got), one(want), "{k}: diagnostic {i} shown in full");
            } else if got.help.is_none() && want.help.is_some() {
                without += 1;
            }
        }
        assert!(without > 0, "{k}: every warning kept its help");
    }
}

#[test]
fn a_workspace_with_errors_in_a_later_batch_reports_them_alike_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let shape = synth::Shape {
        skills: 20,
        clients: 5,
        overrides: 2,
        locales: 1,
        tiers: 1,
        seed: 3,
    };
    synth::generate(&ws, shape).unwrap();
    // An error in the last client's first skill, and a warning in the first client's.
    let skill_of = |client: &str| {
        let folder = ws.join("clients").join(client);
        walk(&folder)
            .into_iter()
            .find(|p| p.ends_with("SKILL.md"))
            .unwrap()
    };
    let mut clients: Vec<String> = std::fs::read_dir(ws.join("clients"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    clients.sort();
    let last = skill_of(clients.last().unwrap());
    let text = std::fs::read_to_string(&last).unwrap();
    std::fs::write(
        &last,
        text.replacen("description:", "description: [unclosed", 1),
    )
    .unwrap();
    let (report, _) = built(&ws, &dir.path().join("whole.db"), usize::MAX);
    assert!(report.error_count() > 0 && report.stats.is_none());
    assert_batches_build_the_whole(&ws);
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The same at the scale batches are for (3,000 clients of the reference workload's shape:
/// three batches of the default size). Slow unoptimised: run it with
/// `cargo test --release -p skillc-compiler --test integration batched:: -- --ignored`.
#[test]
#[ignore]
fn three_thousand_clients_built_in_default_batches_are_the_same_built_whole() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let shape = synth::Shape {
        clients: 3000,
        ..synth::Shape::reference()
    };
    synth::generate(&ws, shape).unwrap();
    let (whole, whole_bytes) = built(&ws, &dir.path().join("whole.db"), usize::MAX);
    let options = BuildOptions::default();
    let out = dir.path().join("batched.db");
    let batched = build(&ws, &out, &options).unwrap();
    assert_eq!(batched.diagnostics, whole.diagnostics);
    assert_eq!(batched.stats, whole.stats);
    assert!(
        std::fs::read(&out).unwrap() == whole_bytes,
        "the artifacts differ"
    );
}

/// Writes `files` (path, text) under `root`.
fn write_all(root: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// The results that read across clients: a global skill naming a skill only one client has,
/// a required variable only one client sets, `variables.json` naming that client's skill, a
/// source and a category only it has, a consumer's filter over every qualified name, and
/// the overlap check's word weights over every client's texts. Batches of one client must
/// see them as the whole workspace does.
#[test]
fn results_that_read_across_clients_are_the_same_in_batches() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let overrides = "---\nname: greet\ndescription: Greet visitors warmly and offer a demo of \
                     the product roadmap dashboard\n---\nHello from this client.\n";
    write_all(
        &ws,
        &[
            (
                "workspace.yaml",
                "name: couplings\nlocales: [en]\nconsumers:\n  strict: { disabled: [\"public.wel*\"] }\n",
            ),
            ("variables.json", "{ \"welcome\": { \"TONE\": \"warm\" } }\n"),
            (
                "public/greet/SKILL.md",
                "---\nname: greet\ndescription: Greet visitors and offer a product roadmap \
                 demo\ndependencies: [welcome]\nimport: [welcome]\nblocks: [welcome]\nnext_skill: welcome\nvars:\n  TEAM:\n    required: true\n---\n\
                 Hello from {{TEAM}}.\n",
            ),
            (
                "public/roadmap/SKILL.md",
                "---\nname: roadmap\ndescription: Explain the product roadmap dashboard and \
                 demo schedule\n---\nThe roadmap.\n",
            ),
            ("clients/a.example/client.yaml", "tiers: [standard]\n"),
            ("clients/a.example/greet/SKILL.md", overrides),
            ("clients/b.example/client.yaml", "tiers: [standard]\n"),
            (
                "clients/c.example/client.yaml",
                "vars: { greet: { TEAM: Sales } }\n",
            ),
            (
                "clients/c.example/welcome/SKILL.md",
                "---\nname: welcome\ndescription: Welcome returning visitors by name\n\
                 category: onboarding\n---\nWelcome back [[S:1]].\n",
            ),
            (
                "clients/c.example/welcome/sources.yaml",
                "sources:\n  - sid: 1\n    url: https://example.com/welcome\n    title: Welcome guide\n",
            ),
            ("clients/d.example/greet/SKILL.md", overrides),
        ],
    );
    let (whole, _) = built(&ws, &dir.path().join("whole.db"), usize::MAX);
    assert_cross_client_results(&whole, &dir.path().join("whole.db"));
    assert_batches_build_the_whole(&ws);
    // With a catalog budget every bundle is over (W114, a warning of the phases); then with
    // an error in the last client too: the check's diagnostics alone, as a whole build.
    let config = "name: couplings\nlocales: [en]\n\
                  tiers: [{ name: standard, catalog_token_budget: 5 }]\n";
    std::fs::write(ws.join("workspace.yaml"), config).unwrap();
    let (over, _) = built(&ws, &dir.path().join("over.db"), usize::MAX);
    assert!(over.diagnostics.iter().any(|d| d.code == "W114"));
    assert_batches_build_the_whole(&ws);
    let broken = "---\nname: [\n---\n";
    std::fs::write(ws.join("clients/d.example/greet/SKILL.md"), broken).unwrap();
    // A misspelt reference in the first client: the name suggested is another client's skill.
    let misspelt = "---\nname: hello\ndescription: Say hello\ndependencies: [welcom]\n---\nHi.\n";
    std::fs::create_dir_all(ws.join("clients/a.example/hello")).unwrap();
    std::fs::write(ws.join("clients/a.example/hello/SKILL.md"), misspelt).unwrap();
    let (failed, _) = built(&ws, &dir.path().join("failed.db"), usize::MAX);
    assert!(failed.error_count() > 0 && failed.diagnostics.iter().all(|d| d.code != "W114"));
    let suggested = |d: &skillc::Diagnostic| d.help.as_deref() == Some("did you mean `welcome`?");
    assert!(
        failed.diagnostics.iter().any(suggested),
        "{:#?}",
        failed.diagnostics
    );
    assert_batches_build_the_whole(&ws);
}

/// What the whole build of the cross-client workspace shows.
fn assert_cross_client_results(whole: &BuildReport, artifact: &Path) {
    let codes: Vec<&str> = whole.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(whole.error_count(), 0, "{:#?}", whole.diagnostics);
    let absent = [
        skillc::codes::UNKNOWN_SKILL,
        skillc::codes::UNRESOLVED_VARIABLE,
        skillc::codes::UNKNOWN_TOGGLE,
    ];
    for absent in absent {
        assert!(!codes.contains(&absent), "{absent}: {codes:?}");
    }
    let db = rusqlite::Connection::open(artifact).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let welcome = "SELECT count(*) FROM source WHERE url LIKE '%/welcome'";
    assert_eq!(count(welcome), 1);
    let onboarding = "SELECT count(*) FROM category WHERE id = 'onboarding'";
    assert_eq!(count(onboarding), 1);
    assert_eq!(count("SELECT count(*) FROM consumer_hidden"), 1);
}

/// A file edited between the two passes (here by the progress callback, as the second pass
/// starts) is caught: the build fails, writes nothing and leaves no staging file. Both a
/// client's file and a global skill's, which the batches share one parse of while its bytes
/// stay the same.
#[test]
fn a_file_changed_between_the_passes_fails_the_build_and_writes_nothing() {
    for global in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let shape = synth::Shape {
            skills: 10,
            clients: 3,
            overrides: 1,
            locales: 1,
            tiers: 1,
            seed: 5,
        };
        synth::generate(&ws, shape).unwrap();
        let folder = if global { "public" } else { "clients" };
        let victim = walk(&ws.join(folder))
            .into_iter()
            .rev()
            .find(|p| p.ends_with("SKILL.md"))
            .unwrap();
        // Owned by the callback: a progress callback lives as long as the program.
        let edit = move |phase: &str, done: usize, _: usize| {
            if phase == "building batches" && done == 0 {
                let text = std::fs::read_to_string(&victim).unwrap();
                std::fs::write(&victim, text + "\nEdited meanwhile.\n").unwrap();
            }
        };
        let options = BuildOptions {
            clients_per_batch: Some(1),
            progress: Some(&edit),
            ..BuildOptions::default()
        };
        let out = dir.path().join("out").join("artifact.db");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let failed = build(&ws, &out, &options);
        assert!(
            matches!(failed, Err(skillc::BuildError::ChangedDuringBuild)),
            "global {global}: {failed:?}"
        );
        let left: Vec<_> = std::fs::read_dir(out.parent().unwrap()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
