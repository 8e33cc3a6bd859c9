//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::Path;

/// Copies a folder tree (files and folders; the sample has no links).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// Copies the sample workspace (`skills/`) to `to`, without the check's kept result
/// (`.skillc/`) a run in the repository may have left there.
pub fn copy_sample(to: &Path) {
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills"), to);
    let _ = std::fs::remove_dir_all(to.join(".skillc"));
}

/// Writes `text` to `root/rel`, creating folders.
pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Runs the `skillc` command with `args`, in an environment that does not leak the caller's
/// embedder, key password, registry credentials or docker configuration into the test.
pub fn skillc(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(args)
        .env_remove("SKILLC_EMBEDDER")
        .env_remove("SKILLC_KEY_PASSWORD")
        .env_remove("SKILLC_REGISTRY")
        .env_remove("SKILLC_REGISTRY_USERNAME")
        .env_remove("SKILLC_REGISTRY_PASSWORD")
        .env("DOCKER_CONFIG", "/nonexistent")
        .output()
        .expect("run skillc")
}

/// A command's stdout then stderr, for assertions and failure messages.
pub fn said(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A path as the `&str` a command line takes.
pub fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Whether the calling test is to run its body here: `false` after running it again alone, in
/// a process of its own (this test binary given its exact name), and asserting that it passed
/// there; `true` in that process. For a test that measures the whole process (peak memory),
/// which the other tests' threads would otherwise share. `test` is its path in this binary,
/// `<file>::<name>` (`module_path!()` without the crate's name, then `::` and the name).
pub fn alone(test: &str) -> bool {
    const MARK: &str = "SKILLC_TEST_ALONE";
    if std::env::var_os(MARK).is_some_and(|v| v == test) {
        return true;
    }
    let run = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--test-threads=1", "--include-ignored"])
        .env(MARK, test)
        .output()
        .expect("run the test binary again");
    let text = said(&run);
    // A name that matches nothing passes with nothing run: that is a failure too.
    assert!(
        run.status.success() && text.contains("test result: ok. 1 passed"),
        "{test} alone in its own process:\n{text}"
    );
    false
}

/// proptest's settings for `cases` cases, with failures kept beside the test's source file
/// (`tests/<file>.proptest-regressions`, committed, replayed first on every run). proptest's
/// default looks up from the source file for a folder holding a `main.rs` and keeps them in a
/// `proptest-regressions/` folder beside that one: with `tests/main.rs` the root of this binary,
/// the committed seeds would silently stop being replayed. `PROPTEST_DISABLE_FAILURE_PERSISTENCE`
/// still turns persistence off.
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, FailurePersistence, FileFailurePersistence};
    let defaults = Config::default();
    let beside = FileFailurePersistence::WithSource("proptest-regressions");
    Config {
        cases,
        failure_persistence: defaults
            .failure_persistence
            .as_ref()
            .map(|_| Box::new(beside) as Box<dyn FailurePersistence>),
        ..defaults
    }
}
