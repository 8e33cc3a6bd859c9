// The only module that talks to the Rust backend; views call these functions.
const api = {
  workspaceSummary: () => window.__TAURI__.core.invoke("workspace_summary"),
};
