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
