//! Skill Studio's Tauri backend: thin commands over the `skillc` library.
//!
//! For now the studio opens a window on the workspace given on the command line
//! (the sample `skills/` by default) and reports its check summary.

use std::path::PathBuf;

use serde::Serialize;

/// The workspace the studio was opened on.
struct OpenWorkspace(PathBuf);

/// What the window shows about the opened workspace.
#[derive(Debug, Serialize)]
pub struct WorkspaceSummary {
    /// The workspace folder.
    pub path: String,
    /// Skills found in it (global and client skills).
    pub skills: usize,
    /// Error diagnostics of a check.
    pub errors: usize,
    /// Warning diagnostics of a check.
    pub warnings: usize,
}

/// Checks `path` with the compiler library and summarises the result.
pub fn summarise(path: &std::path::Path) -> Result<WorkspaceSummary, String> {
    let report =
        skillc::check(path, &skillc::CheckOptions::default()).map_err(|e| e.to_string())?;
    Ok(WorkspaceSummary {
        path: path.display().to_string(),
        skills: report.workspace.skills.len(),
        errors: report.error_count(),
        warnings: report.warning_count(),
    })
}

#[tauri::command]
fn workspace_summary(state: tauri::State<'_, OpenWorkspace>) -> Result<WorkspaceSummary, String> {
    summarise(&state.0)
}

fn workspace_from_args() -> PathBuf {
    std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/skills")))
}

/// Starts the studio.
pub fn run() {
    tauri::Builder::default()
        .manage(OpenWorkspace(workspace_from_args()))
        .invoke_handler(tauri::generate_handler![workspace_summary])
        .run(tauri::generate_context!())
        .expect("error while running Skill Studio");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_the_sample_workspace_through_the_compiler_library() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
        let s = summarise(&root).unwrap();
        assert!(s.skills >= 45);
        assert_eq!(s.errors, 0);
    }

    #[test]
    fn a_missing_workspace_is_an_error_not_a_panic() {
        assert!(summarise(std::path::Path::new("/no/such/workspace")).is_err());
    }
}
