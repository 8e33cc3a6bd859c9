// Skill Studio's views. All backend calls go through `api` (api.js).
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  overview: null, file: null, base: null, text: "", parts: null,
  dirty: false, mode: "form", conflict: null, buildTimer: null, checkTimer: null,
};
const KNOWN_FIELDS = [
  "name", "description", "license", "compatibility", "metadata", "allowed-tools", "category",
  "emoji", "required", "default_enabled", "always_on", "hidden_from_llm", "trigger_examples",
  "conditions", "dependencies", "augments", "blocks", "priority", "exclusive", "variant_of",
  "when", "variant_priority", "tiers", "requires", "vars", "mcp", "next_skill",
  "conditional_next_skills", "namespace", "version", "tags", "author", "created",
  "when_to_use", "import", "imports", "displayName", "bindShells", "provider", "tools",
];

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) e.append(c instanceof Node ? c : String(c));
  return e;
}

function showError(e) {
  const msg = typeof e === "string" ? e : (e && e.message) || JSON.stringify(e);
  $("build-status").textContent = msg;
  $("build-status").className = "bad";
}

// ---- workspace and skill list -------------------------------------------------------------

async function loadOverview() {
  state.overview = await api.overview();
  $("workspace-path").value = state.overview.root;
  renderList();
  fillPreviewSelects();
}

function renderList() {
  const q = $("search").value.trim().toLowerCase();
  const list = $("skill-list");
  list.replaceChildren();
  const groups = new Map();
  for (const s of state.overview.skills) {
    const hay = `${s.name} ${s.description} ${s.category} ${s.client} ${s.namespace}`.toLowerCase();
    if (q && !hay.includes(q)) continue;
    const scope = s.client ? `Client ${s.client}` : "Global";
    const key = `${scope} › ${s.category || s.namespace}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s);
  }
  const keys = [...groups.keys()].sort((a, b) => (a.startsWith("Global") === b.startsWith("Global") ? a.localeCompare(b) : a.startsWith("Global") ? -1 : 1));
  for (const key of keys) {
    list.append(el("h4", {}, key));
    const ul = el("ul");
    for (const s of groups.get(key).sort((a, b) => a.name.localeCompare(b.name))) {
      const errors = state.overview.diagnostics.filter((d) => d.file === s.file && d.severity === "error").length;
      ul.append(el("li", {
        class: s.file === state.file ? "selected" : "",
        "data-file": s.file, title: s.description,
        onclick: () => openSkill(s.file),
      }, s.name, errors ? el("span", { class: "badge" }, errors) : ""));
    }
    list.append(ul);
  }
  if (!keys.length) list.append(el("p", { class: "empty" }, "No skill matches."));
}

// ---- the editor ---------------------------------------------------------------------------

async function openSkill(file, force) {
  if (state.dirty && !force && file !== state.file) {
    if (!confirmDiscard()) return;
  }
  const f = await api.readFile(file);
  state.file = file; state.base = f.hash; state.text = f.text; state.dirty = false;
  hideConflict();
  $("editor-empty").hidden = true; $("editor").hidden = false;
  $("editor-title").textContent = file;
  $("dirty").hidden = true;
  await renderEditor();
  renderList();
  scheduleCheck(0);
}

let discardArmed = 0; // the warning being answered (0: none)
let discardWarnings = 0;
function confirmDiscard() {
  // A second click within ten seconds (time to read the warning) discards unsaved edits;
  // the first only warns. An older warning's timer never disarms a newer one.
  if (discardArmed) { discardArmed = 0; return true; }
  const warning = discardArmed = ++discardWarnings;
  showError("Unsaved edits: save them, or click again to discard.");
  setTimeout(() => { if (discardArmed === warning) discardArmed = 0; }, 10000);
  return false;
}

async function renderEditor() {
  state.parts = await api.decompose(state.text);
  const formOk = !state.parts.error;
  if (!formOk) state.mode = "source";
  $("mode-form").classList.toggle("active", state.mode === "form");
  $("mode-source").classList.toggle("active", state.mode === "source");
  $("form").hidden = state.mode !== "form";
  $("body-label").hidden = state.mode !== "form";
  $("source").hidden = state.mode !== "source";
  $("source").value = state.text;
  $("body").value = state.parts.body;
  renderForm();
}

function renderForm() {
  const form = $("form");
  form.replaceChildren();
  if (state.parts.error) return;
  state.parts.fields.forEach(([key, value], i) => form.append(fieldRow(key, value, i)));
  const present = new Set(state.parts.fields.map(([k]) => k));
  const select = el("select", { id: "add-field-name" }, ...KNOWN_FIELDS.filter((k) => !present.has(k)).map((k) => el("option", {}, k)));
  form.append(el("div", { class: "add-field" }, select, el("button", {
    onclick: () => { state.parts.fields.push([select.value, ""]); renderForm(); formChanged(); },
  }, "Add field")));
}

function fieldRow(key, value, i) {
  let input;
  const isScalarList = Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null);
  if (typeof value === "boolean") {
    input = el("input", { type: "checkbox" });
    input.checked = value;
  } else if (typeof value === "number") {
    input = el("input", { type: "number", value });
  } else if (typeof value === "string" && (key === "description" || value.includes("\n"))) {
    input = el("textarea", { rows: 3 }); input.value = value;
  } else if (typeof value === "string") {
    input = el("input", { value });
  } else if (isScalarList) {
    input = el("textarea", { rows: Math.max(2, value.length), title: "One item per line" });
    input.value = value.join("\n");
  } else {
    input = el("textarea", { rows: 4, class: "json", title: "JSON (any YAML value)" });
    input.value = JSON.stringify(value, null, 2);
  }
  input.dataset.field = key;
  input.dataset.kind = typeof value === "boolean" ? "bool" : typeof value === "number" ? "number" : isScalarList ? "list" : typeof value === "string" ? "string" : "json";
  input.addEventListener("input", () => formChanged());
  input.addEventListener("change", () => formChanged());
  const remove = el("button", { class: "icon", title: `Remove ${key}`, onclick: () => { state.parts.fields.splice(i, 1); renderForm(); formChanged(); } }, "×");
  return el("div", { class: "field" }, el("label", {}, key), input, remove);
}

function readForm() {
  const fields = [];
  for (const input of $("form").querySelectorAll("[data-field]")) {
    const k = input.dataset.field;
    let v;
    switch (input.dataset.kind) {
      case "bool": v = input.checked; break;
      case "number": v = input.value === "" ? null : Number(input.value); break;
      case "list": v = input.value.split("\n").map((s) => s.trim()).filter(Boolean); break;
      case "json": try { v = JSON.parse(input.value); } catch { v = input.value; } break;
      default: v = input.value;
    }
    fields.push([k, v]);
  }
  return { fields, body: $("body").value, error: null };
}

async function formChanged() {
  state.parts = readForm();
  state.text = await api.compose(state.parts);
  $("source").value = state.text;
  markDirty();
}

function markDirty() {
  state.dirty = true;
  $("dirty").hidden = false;
  scheduleCheck(250);
}

function scheduleCheck(ms) {
  clearTimeout(state.checkTimer);
  state.checkTimer = setTimeout(async () => {
    if (!state.file) return;
    try { renderDiagnostics(await api.checkDraft(state.file, state.text)); } catch (e) { showError(e); }
  }, ms);
}

function renderDiagnostics(diags) {
  const mine = diags.filter((d) => d.file === state.file);
  const ul = $("diagnostics");
  ul.replaceChildren();
  if (!mine.length) ul.append(el("li", { class: "ok" }, "No problems in this file."));
  for (const d of mine) {
    ul.append(el("li", {
      class: d.severity, "data-line": d.line,
      onclick: () => jumpTo(d.line, d.column),
    }, el("b", {}, `${d.severity}[${d.code}]`), ` ${d.line}:${d.column} `, d.message,
    d.help ? el("div", { class: "help" }, d.help) : ""));
  }
}

async function jumpTo(line, column) {
  if (state.mode !== "source") { state.mode = "source"; await renderEditor(); }
  const src = $("source");
  const lines = src.value.split("\n");
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
  const end = start + (lines[line - 1] || "").length;
  src.focus();
  src.setSelectionRange(start + Math.max(0, column - 1), end);
  src.scrollTop = Math.max(0, (line - 5) * 18);
}

async function save(base) {
  if (!state.file) return;
  const r = await api.saveFile(state.file, state.text, base);
  if (r.status === "conflict") { showConflict(r.disk); return; }
  state.base = r.hash; state.dirty = false; $("dirty").hidden = true;
  hideConflict();
  $("build-status").textContent = "Saved"; $("build-status").className = "good";
  await loadOverview();
  scheduleBuild();
}

function showConflict(disk) {
  state.conflict = disk;
  $("conflict").hidden = false;
}

function hideConflict() {
  state.conflict = null;
  $("conflict").hidden = true;
}

// ---- build, toggles, preview, diff ------------------------------------------------------

function scheduleBuild() {
  clearTimeout(state.buildTimer);
  state.buildTimer = setTimeout(runBuild, 400);
}

async function runBuild() {
  $("build").disabled = true;
  $("build-status").className = "";
  $("build-status").textContent = "Building…";
  try {
    const b = await api.build();
    $("build-status").textContent = b.written
      ? `Built: ${b.bundles} bundles, ${b.warnings} warnings`
      : `Not built: ${b.errors} errors`;
    $("build-status").className = b.written ? "good" : "bad";
    if (!$("tab-preview").hidden) await runPreview();
    if (!$("tab-diff").hidden) await showDiff();
  } catch (e) { showError(e); }
  $("build").disabled = false;
}

async function showToggles() {
  const t = await api.toggles();
  const table = el("table", { class: "matrix" });
  table.append(el("tr", {}, el("th", {}, "client \\ skill"), ...t.skills.map((s) => el("th", { class: "vertical" }, el("span", {}, s)))));
  t.clients.forEach((c, ci) => {
    const row = el("tr", {}, el("th", {}, c));
    t.skills.forEach((s, si) => {
      const cell = t.cells[ci][si];
      if (cell.source === "absent") { row.append(el("td", { class: "absent", title: `${s} is another client's skill` }, "")); return; }
      const next = cell.source !== "toggle" ? true : cell.enabled ? false : null;
      row.append(el("td", {
        class: `${cell.enabled ? "on" : "off"} ${cell.source}`,
        title: `${c} / ${s}: ${cell.enabled ? "on" : "off"} (${cell.source})`,
        "data-client": c, "data-skill": s,
        onclick: async () => { await api.setToggle(c, s, next); await showToggles(); scheduleBuild(); },
      }, cell.enabled ? "●" : "○"));
    });
    table.append(row);
  });
  $("toggles").replaceChildren(table);
}

function fillPreviewSelects() {
  const o = state.overview;
  const fill = (id, values, none) => {
    const sel = $(id);
    const old = sel.value;
    sel.replaceChildren(...(none !== undefined ? [el("option", { value: "" }, none)] : []), ...values.map((v) => el("option", { value: v }, v)));
    if ([...sel.options].some((x) => x.value === old)) sel.value = old;
  };
  fill("pv-client", o.clients, "(global)");
  fill("pv-locale", o.locales);
  fill("pv-tier", o.tiers);
  fill("pv-consumer", o.consumers, "(none)");
}

async function runPreview() {
  $("pv-error").hidden = true;
  const request = {
    client: $("pv-client").value, locale: $("pv-locale").value, tier: $("pv-tier").value,
    consumer: $("pv-consumer").value, page_url: $("pv-url").value.trim(), turn: $("pv-turn").value.trim(),
    selected: $("pv-selected").value.split(",").map((s) => s.trim()).filter(Boolean),
    format: $("pv-format").value,
  };
  try {
    const p = await api.preview(request);
    $("pv-catalog").textContent = p.catalog.text;
    $("pv-catalog-tokens").textContent = `${p.catalog.skills.length} skills`;
    $("pv-prompt").textContent = p.prompt.text;
    $("pv-prompt-tokens").textContent = `${p.prompt.tokens} tokens`;
    const rows = [el("tr", {}, el("th", {}, "skill"), el("th", {}, "content"), el("th", {}, "reason"))];
    for (const s of p.prompt.skills) rows.push(el("tr", { class: "in" }, el("td", {}, s.name), el("td", {}, s.resolved), el("td", {}, s.reason)));
    for (const s of p.prompt.removed) rows.push(el("tr", { class: "out" }, el("td", {}, s.name), el("td", {}, "—"), el("td", {}, s.reason)));
    $("pv-reasons").replaceChildren(...rows);
    $("pv-sources").replaceChildren(...p.prompt.sources.map((s) => el("li", {}, `[${s.sid}] ${s.title || ""} `, el("code", {}, s.url))));
  } catch (e) {
    $("pv-error").hidden = false;
    $("pv-error").textContent = e.message || String(e);
  }
}

async function showDiff() {
  try {
    const d = await api.diff();
    const lines = [];
    for (const b of d.added_bundles) lines.push(`+ bundle ${b}`);
    for (const b of d.removed_bundles) lines.push(`- bundle ${b}`);
    for (const b of d.bundles) {
      lines.push(`${b.client || "global"}/${b.locale}/${b.tier}`);
      for (const s of b.added) lines.push(`  + ${s}`);
      for (const s of b.removed) lines.push(`  - ${s}`);
      for (const s of b.changed) lines.push(`  ~ ${s.name}: ${s.fields.join(", ")}`);
      if (b.catalogs.length) lines.push(`  catalogs changed: ${b.catalogs.join(", ")}`);
    }
    lines.push(`${d.bundles.length} bundles changed, ${d.unchanged} unchanged`);
    $("diff").textContent = lines.join("\n");
  } catch (e) {
    $("diff").textContent = e.message || String(e);
  }
}

// ---- wiring -------------------------------------------------------------------------------

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const s of document.querySelectorAll(".tab")) s.hidden = s.id !== `tab-${name}`;
  if (name === "toggles") showToggles().catch(showError);
  if (name === "preview") runPreview();
  if (name === "diff") showDiff();
}

function wire() {
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  $("search").addEventListener("input", renderList);
  $("build").addEventListener("click", runBuild);
  $("pv-run").addEventListener("click", runPreview);
  $("save").addEventListener("click", () => save(state.base).catch(showError));
  $("keep-mine").addEventListener("click", () => save(null).catch(showError));
  $("load-theirs").addEventListener("click", () => openSkill(state.file, true).catch(showError));
  $("mode-form").addEventListener("click", async () => { state.mode = "form"; await renderEditor(); });
  $("mode-source").addEventListener("click", async () => { state.mode = "source"; await renderEditor(); });
  $("body").addEventListener("input", () => formChanged());
  $("source").addEventListener("input", () => { state.text = $("source").value; markDirty(); });
  $("open-workspace").addEventListener("click", async () => {
    // Opening another workspace drops unsaved edits: the same second click as leaving a skill.
    if (state.dirty && !confirmDiscard()) return;
    try { await api.openWorkspace($("workspace-path").value); state.file = null; state.dirty = false; $("dirty").hidden = true; $("editor").hidden = true; $("editor-empty").hidden = false; await loadOverview(); scheduleBuild(); } catch (e) { showError(e); }
  });
  $("new-skill").addEventListener("click", async () => {
    const parent = state.file ? state.file.split("/").slice(0, -2).join("/") : "public";
    const input = el("input", { id: "new-skill-name", placeholder: "new-skill-name" });
    const ok = el("button", { onclick: async () => {
      try { const f = await api.createSkill(parent, input.value.trim()); await loadOverview(); await openSkill(f, true); } catch (e) { showError(e); }
      form.remove();
    } }, "Create");
    const form = el("div", { class: "inline" }, input, ok);
    $("new-skill").after(form);
    input.focus();
  });
  $("rename").addEventListener("click", () => {
    const input = el("input", { id: "rename-name", value: state.file.split("/").slice(-2, -1)[0] });
    const ok = el("button", { onclick: async () => {
      try { const f = await api.renameSkill(state.file, input.value.trim()); await loadOverview(); await openSkill(f, true); } catch (e) { showError(e); }
      form.remove();
    } }, "Rename");
    const form = el("div", { class: "inline" }, input, ok);
    $("rename").after(form);
  });
  $("export-package").addEventListener("click", async () => {
    try {
      const zip = await api.exportPackage(state.file);
      $("build-status").textContent = `Packed into ${zip}`; $("build-status").className = "good";
    } catch (e) { showError(e); }
  });
  $("import-package").addEventListener("click", () => {
    const input = el("input", { id: "import-path", placeholder: "/path/to/skill.zip" });
    const ok = el("button", { onclick: async () => {
      try { const f = await api.importPackage(input.value.trim()); await loadOverview(); await openSkill(f, true); scheduleBuild(); } catch (e) { showError(e); }
      form.remove();
    } }, "Import");
    const form = el("div", { class: "inline" }, input, ok);
    $("import-package").after(form);
    input.focus();
  });
  // The first click arms the deletion of this skill only; a second within 4 s confirms it.
  let deleteArmed = null;
  $("delete").addEventListener("click", async () => {
    if (deleteArmed !== state.file) { const armed = deleteArmed = state.file; $("delete").textContent = "Click to confirm"; setTimeout(() => { if (deleteArmed === armed) { deleteArmed = null; $("delete").textContent = "Delete"; } }, 4000); return; }
    deleteArmed = null; $("delete").textContent = "Delete";
    try { await api.deleteSkill(state.file); state.file = null; state.dirty = false; $("editor").hidden = true; $("editor-empty").hidden = false; await loadOverview(); scheduleBuild(); } catch (e) { showError(e); }
  });
  api.on("build-progress", ([phase, done, total]) => { $("build-status").textContent = `${phase} ${done}/${total}`; });
  api.on("disk-changed", async (files) => {
    if (state.file && files.includes(state.file)) {
      const disk = await api.readFile(state.file);
      if (disk.hash !== state.base) {
        if (state.dirty) showConflict(disk);
        else await openSkill(state.file, true);
      }
    }
    await loadOverview();
    scheduleBuild();
  });
}

wire();
loadOverview().then(runBuild).catch(showError);
