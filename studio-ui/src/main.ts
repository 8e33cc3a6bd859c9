// Skill Studio's entry point: creates the views and wires them to each other and to the
// backend's events. Each view keeps its own state; this module only passes messages.
import "./style.css";
import { api, type Overview } from "./api";
import { byId, el } from "./dom";
import { emptyVocabulary, type Vocabulary } from "./codeEditor";
import { fail, say } from "./status";
import { SkillEditor } from "./views/editor";
import { renderSkillList } from "./views/skillList";
import { TogglesView } from "./views/toggles";
import { fillPreviewChoices, previewHooks, previewSettled, previewsAsked, runPreview, setPreviewRequest, wirePreviewControls } from "./views/preview";
import { TestsView } from "./views/tests";
import { RoutingPanel } from "./views/routing";
import { toggleNewSkillForm } from "./views/newSkill";
import { ClientsView } from "./views/clients";
import { SettingsView } from "./views/settings";
import { HistoryPanel } from "./views/history";
import { BesidePanel } from "./views/beside";
import { diffHooks, showDiff } from "./views/diff";
import { publish, reviewHooks, showReview } from "./views/review";

let overview: Overview | null = null;
let vocabulary: Vocabulary = emptyVocabulary();
let buildTimer = 0;

const editor = new SkillEditor({
  vocabulary: () => vocabulary,
  learn: (variables, sources) => { vocabulary = { ...vocabulary, variables, sources }; },
  open: (file) => { openSkill(file).catch(fail); },
  // A save is one deliberate act: rebuild at once (the preview follows), no debounce. The
  // list's reload (a check of the workspace) comes after the build and the preview: on two
  // cores, side by side with them it made the preview a third slower.
  saved: async () => { await runBuild(loadOverview); },
  describe: (file) => overview?.skills.find((k) => k.file === file) ?? null,
  fields: () => overview?.fields ?? [],
});
const toggles = new TogglesView(() => runBuild(), () => tests);
const clients = new ClientsView({
  changed: () => scheduleBuild(),
  open: (file) => { openSkill(file).catch(fail); },
  newSkill: (client) => { if (overview) openNewSkill(client, ""); },
  toggles: (client) => {
    byId<HTMLInputElement>("tg-clients").value = client;
    showTab("toggles");
  },
});
const settings = new SettingsView({ changed: () => scheduleBuild() });
new HistoryPanel({ file: () => editor.file, useText: (text) => editor.useText(text) });
new BesidePanel(() => editor.file, (file) => { openSkill(file).catch(fail); });
const tests = new TestsView((request) => { setPreviewRequest(request); showTab("preview"); });
const routing = new RoutingPanel((file, line) => {
  openSkill(file).then(() => editor.file === file ? editor.jumpTo(line, 1) : undefined).catch(fail);
});
reviewHooks.open = (file, line) => {
  openSkill(file).then(() => editor.file === file ? editor.jumpTo(line, 1) : undefined).catch(fail);
};
previewHooks.unsaved = () => (editor.hasUnsaved() ? editor.file : null);
previewHooks.save = () => editor.saveNow();
// After a publish the header names the new commit: the label comes with the next build.
reviewHooks.published = () => runBuild().then(showTrash);
reviewHooks.discarded = async () => { await loadOverview(); await showTrash(); scheduleBuild(); };
diffHooks.changed = () => { loadOverview().then(() => scheduleBuild()).catch(fail); };

async function openSkill(file: string, force = false): Promise<void> {
  if (await editor.open(file, force)) {
    showTab("edit");
    if (overview) renderSkillList(overview, editor.file, (f) => { openSkill(f).catch(fail); });
  }
}

/** What the skill list and the preview's choices were last drawn from. */
let drawnFrom = "";

async function loadOverview(): Promise<void> {
  const o = await api.overview();
  overview = o;
  vocabulary = {
    ...vocabulary,
    skills: [...new Set(o.skills.map((s) => s.name))].sort(),
    categories: o.categories, clients: o.clients, locales: o.locales, tiers: o.tiers, fields: o.fields.map((f) => f.name),
  };
  byId<HTMLInputElement>("workspace-path").value = o.root;
  // A save reloads the overview; on a large workspace the list (3,500 skills on the reference
  // workload) is drawn again only when what it shows changed.
  const query = byId<HTMLInputElement>("search").value;
  const key = JSON.stringify([o, editor.file, query]);
  if (key === drawnFrom) return;
  drawnFrom = key;
  renderSkillList(o, editor.file, (f) => { openSkill(f).catch(fail); });
  fillPreviewChoices(o);
}

function scheduleBuild(): void {
  clearTimeout(buildTimer);
  buildTimer = window.setTimeout(() => { runBuild().catch(fail); }, 400);
}

/** Builds, refreshes what shows the build (the preview first: it is what the user looks at),
 * then runs `after` (if any). */
async function runBuild(after?: () => Promise<void>): Promise<void> {
  const button = byId<HTMLButtonElement>("build");
  button.disabled = true;
  say("Building…");
  try {
    const b = await api.build();
    const asked = previewsAsked();
    const n = (x: number) => x.toLocaleString("en");
    say(b.written ? `Built: ${n(b.bundles)} versions (one per client, language and plan), ${n(b.warnings)} warnings${releaseWords(b.release)}`
      : `Not built: ${b.errors} ${b.errors === 1 ? "error" : "errors"} to fix first`, b.written ? "good" : "bad");
    // A preview asked for since the build finished already shows it.
    if (!byId("tab-preview").hidden && previewsAsked() === asked) await runPreview();
    if (!byId("tab-diff").hidden) await showDiff();
    editor.afterBuild();
    if (b.written) await tests.refresh();
    if (b.written && !byId("tab-routing").hidden) await routing.show();
  } finally {
    button.disabled = false;
    if (after) await previewSettled().then(after).catch(fail);
  }
}

/** The build's release label in words: its commit, and whether unpublished changes are in. */
function releaseWords(release: string | null): string {
  if (!release) return "";
  const dirty = release.endsWith("-dirty");
  const commit = dirty ? release.slice(0, -"-dirty".length) : release;
  return dirty ? ` · commit ${commit} plus your unpublished changes` : ` · as published in commit ${commit}`;
}

function showTab(name: string): void {
  for (const b of document.querySelectorAll<HTMLElement>("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const s of document.querySelectorAll<HTMLElement>(".tab")) s.hidden = s.id !== `tab-${name}`;
  if (name === "toggles") toggles.show().catch(fail);
  if (name === "clients") clients.show(overview?.clients).catch(fail);
  if (name === "settings") settings.show().catch(fail);
  if (name === "preview") runPreview().catch(fail);
  if (name === "diff") showDiff().catch(fail);
  if (name === "review") showReview().catch(fail);
  if (name === "routing") routing.show().catch(fail);
}

/** A small inline form after `anchor`: one text input and a button. */
function inlineForm(anchor: HTMLElement, id: string, value: string, label: string, act: (v: string) => Promise<void>): void {
  const input = el("input", { id, value, placeholder: value || id });
  const form = el("div", { class: "inline" }, input, el("button", {
    id: `${id}-go`,
    onclick: () => { act(input.value.trim()).catch(fail).finally(() => form.remove()); },
  }, label));
  anchor.after(form);
  input.focus();
}

function wireWorkspace(): void {
  byId("search").addEventListener("input", () => { if (overview) renderSkillList(overview, editor.file, (f) => { openSkill(f).catch(fail); }); });
  byId("build").addEventListener("click", () => { runBuild().catch(fail); });
  byId("pv-run").addEventListener("click", () => { runPreview().catch(fail); });
  byId("rv-refresh").addEventListener("click", () => { showReview().catch(fail); });
  byId("rv-commit").addEventListener("click", () => { publish().catch(fail); });
  byId("open-workspace").addEventListener("click", async () => {
    // Opening another workspace drops unsaved edits: the same second click as leaving a skill.
    if (!(await editor.mayLeave())) return;
    try {
      await api.openWorkspace(byId<HTMLInputElement>("workspace-path").value);
    } catch (e) { fail(e); return; }
    // Opened: it is built whatever happens to the list's reload.
    editor.close();
    scheduleBuild();
    await loadOverview().catch(fail);
    await showTrash().catch(fail);
  });
  for (const b of document.querySelectorAll<HTMLElement>("#tabs button")) {
    b.addEventListener("click", () => showTab(b.dataset.tab ?? "edit"));
  }
}

/** The "New skill" form, for `client` ("" for every client) and `category` first. */
function openNewSkill(client: string, category: string): void {
  if (!overview) return;
  toggleNewSkillForm(byId("new-skill"), {
    overview, client, category,
    created: async (file) => {
      await loadOverview();
      await openSkill(file, true);
      scheduleBuild();
    },
  });
}

function wireSkillActions(): void {
  byId("new-skill").addEventListener("click", () => {
    const open = overview?.skills.find((k) => k.file === editor.file);
    openNewSkill(open?.client ?? "", open?.category ?? "");
  });
  byId("rename").addEventListener("click", () => {
    const file = editor.file;
    if (!file) return;
    // On a row of its own under the editor's head: after the Rename button, a long name's field
    // and its button were past the window's right edge.
    document.getElementById("rename-name")?.parentElement?.remove();
    const head = document.querySelector<HTMLElement>(".editor-head") ?? byId("rename");
    inlineForm(head, "rename-name", file.split("/").slice(-2, -1)[0], "Rename", async (name) => {
      // Every line it would change is shown first; nothing is written before the yes.
      const plan = await api.renamePlan(file, name);
      const files = new Set(plan.changes.map((c) => c.file)).size;
      const box = el("div", { id: "rename-plan", class: "tg-confirm rename-plan", role: "alertdialog" });
      const lines = plan.changes.map((c) => el("li", {}, el("code", {}, `${c.file}:${c.line}`), " ",
        el("del", {}, c.old.trim()), " → ", el("ins", {}, c.new.trim())));
      const moves = plan.moves.map((m) => el("li", {}, el("code", {}, `${m.from}/ → ${m.to}/`)));
      box.append(
        el("p", {}, el("b", {}, `Rename ${plan.old} to ${plan.new}`),
          `: ${plan.changes.length} ${plan.changes.length === 1 ? "line" : "lines"} in ${files} ${files === 1 ? "file" : "files"}` +
          (plan.moves.length ? `, ${plan.moves.length} ${plan.moves.length === 1 ? "folder" : "folders"} moved` : "")),
        el("ul", { id: "rename-plan-changes", class: "rename-changes" }, ...lines, ...moves),
        el("button", { id: "rename-plan-apply", class: "primary", onclick: async () => {
          box.remove();
          try {
            const f = await api.renameSkill(file, name);
            await loadOverview();
            await openSkill(f, true);
            scheduleBuild();
          } catch (e) { fail(e); }
        } }, "Rename everywhere"), " ",
        el("button", { id: "rename-plan-cancel", onclick: () => box.remove() }, "Cancel"));
      document.getElementById("rename-plan")?.remove();
      document.querySelector(".editor-head")?.after(box);
    });
  });
  byId("export-package").addEventListener("click", async () => {
    if (!editor.file) return;
    try { say(`Packed into ${await api.exportPackage(editor.file)}`, "good"); } catch (e) { fail(e); }
  });
  byId("import-package").addEventListener("click", () => {
    inlineForm(byId("import-package"), "import-path", "", "Import", async (path) => {
      const f = await api.importPackage(path);
      await loadOverview();
      await openSkill(f, true);
      scheduleBuild();
    });
  });
  // Deleting is one click: the skill waits in the list of deleted skills, restorable until it
  // is published.
  byId("delete").addEventListener("click", async () => {
    const file = editor.file;
    if (!file) return;
    try {
      const gone = await api.deleteSkill(file);
      editor.close();
      say(`Deleted ${gone.label}. Restore it below the list until you publish.`, "good");
      await loadOverview();
      await showTrash();
      scheduleBuild();
    } catch (e) { fail(e); }
  });
}

/** What was deleted or discarded and can still be restored, under the skill list. */
async function showTrash(): Promise<void> {
  const items = await api.removed();
  const box = byId("trash");
  box.hidden = items.length === 0;
  box.replaceChildren(el("h4", {}, "Deleted, restorable until published"), el("ul", {}, ...items.map((t) =>
    el("li", { title: t.path }, el("span", {}, t.label), " ", el("button", { class: "small", "data-restore": t.path, onclick: async () => {
      try {
        const path = await api.restore(t.id);
        say(`Restored ${t.label}.`, "good");
        await loadOverview();
        await showTrash();
        scheduleBuild();
        const skill = overview?.skills.find((k) => k.file === path || k.file.startsWith(`${path}/`));
        if (skill) await openSkill(skill.file, true);
      } catch (e) { fail(e); }
    } }, "Restore")))));
}

function wireEvents(): void {
  api.on<[string, number, number]>("build-progress", ([phase, done, total]) => say(`${phase} ${done}/${total}`));
  // A bulk edit or a git checkout changes hundreds of files in a burst: the files are
  // gathered and handled once the burst is over (one reload, one rebuild), not once each.
  const changed = new Set<string>();
  let quiet: number | undefined;
  const handleChanges = async (): Promise<void> => {
    const files = [...changed];
    changed.clear();
    try {
      if (editor.file && files.includes(editor.file)) await editor.diskChanged();
      await loadOverview();
      scheduleBuild();
    } catch (e) { fail(e); }
  };
  api.on<string[]>("disk-changed", (files) => {
    for (const f of files) changed.add(f);
    clearTimeout(quiet);
    quiet = window.setTimeout(() => { handleChanges().catch(fail); }, 150);
  });
}

wireWorkspace();
wirePreviewControls();
wireSkillActions();
wireEvents();
// Started without a workspace (an installed studio opened from a menu): ask for one.
loadOverview()
  .then(() => showTrash())
  .then(() => runBuild())
  .catch((e) => {
    if (String((e as { message?: string }).message ?? e).includes("no workspace is open")) {
      say("Type a workspace folder's path above, then Open.");
      byId<HTMLInputElement>("workspace-path").focus();
    } else fail(e);
  });
