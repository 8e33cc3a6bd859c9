// Renders the opened workspace's check summary.
async function showSummary() {
  const el = document.getElementById("summary");
  try {
    const s = await api.workspaceSummary();
    el.textContent = "";
    const dl = document.createElement("dl");
    for (const [k, v] of [["Workspace", s.path], ["Skills", s.skills], ["Errors", s.errors], ["Warnings", s.warnings]]) {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = String(v);
      dd.id = "summary-" + k.toLowerCase();
      dl.append(dt, dd);
    }
    el.append(dl);
  } catch (e) {
    el.textContent = "Could not open the workspace: " + e;
  }
}
showSummary();
