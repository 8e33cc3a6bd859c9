// The Preview tab: what a client sees for a request, read from the built artifact: the catalog
// and the prompt rendered as a person reads them (raw text one click away), each skill's
// tokens and why it is in or out, the cited sources, and the catalog against its budget.
import MarkdownIt from "markdown-it";
import { api, errorText, type BudgetMeter, type Overview, type Preview, type PreviewRequest, type TargetMeter } from "../api";
import { byId, el } from "../dom";
import { say } from "../status";
import { Turns } from "../turns";

const md = new MarkdownIt({ html: false, linkify: true });
const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value;
const n = (x: number) => x.toLocaleString("en");

export function fillPreviewChoices(o: Overview): void {
  const fill = (id: string, values: string[], none?: string) => {
    const sel = byId<HTMLSelectElement>(id);
    const old = sel.value;
    const opts = values.map((v) => el("option", { value: v }, v));
    sel.replaceChildren(...(none !== undefined ? [el("option", { value: "" }, none)] : []), ...opts);
    if ([...sel.options].some((x) => x.value === old)) sel.value = old;
  };
  fill("pv-client", o.clients, "(global)");
  fill("pv-locale", o.locales);
  fill("pv-tier", o.tiers);
  fill("pv-consumer", o.consumers, "(none)");
  locales = o.locales;
}

/** What the preview asks of the rest of the window. */
export const previewHooks = {
  /** The file with edits not saved yet, if any: the preview shows the last saved text. */
  unsaved: (): string | null => null,
  save: async (): Promise<void> => undefined,
};

/** The locales of the open workspace, to read one from a page URL. */
let locales: string[] = [];

/** The locale a page URL names by its first path segment (`/en-gb/pricing` → `en-gb`), if the
 * workspace has that locale: sites put the language there, and the visitor's bundle is that
 * locale's. */
export function localeOfUrl(url: string, known: string[]): string | null {
  const path = url.trim().replace(/^[a-z]+:\/\/[^/]*/i, "");
  const first = path.split("/").filter(Boolean)[0]?.toLowerCase();
  return known.find((l) => l.toLowerCase() === first) ?? null;
}

/** The locale control follows the page URL when the URL names one of the workspace's locales,
 * and says so either way. */
function followUrl(): void {
  const url = value("pv-url");
  const note = byId("pv-locale-note");
  const found = localeOfUrl(url, locales);
  if (found) {
    byId<HTMLSelectElement>("pv-locale").value = found;
    note.textContent = `Language follows the page: ${url.trim()} is in ${found}.`;
  } else {
    note.textContent = url.trim()
      ? `The page ${url.trim()} names none of this workspace's languages (${locales.join(", ")}): the language is the one chosen here.`
      : "";
  }
}

/** Every change of a control shows the preview again (typing waits for a pause). */
export function wirePreviewControls(): void {
  let timer = 0;
  const again = (wait: number) => {
    clearTimeout(timer);
    timer = window.setTimeout(() => { if (!byId("tab-preview").hidden) runPreview().catch(() => undefined); }, wait);
  };
  for (const id of ["pv-client", "pv-locale", "pv-tier", "pv-consumer", "pv-format"]) {
    byId(id).addEventListener("change", () => again(0));
  }
  for (const id of ["pv-url", "pv-turn", "pv-context", "pv-selected", "pv-message"]) {
    byId(id).addEventListener("input", () => { if (id === "pv-url") followUrl(); again(300); });
  }
}

/** The visitor's earlier messages in the conversation the preview plays, oldest first, with
 * when each was sent (ms): a follow-up is routed joined to them, as a runtime given the
 * conversation's history routes it. */
let conversation: { text: string; sentAt: number }[] = [];

/** The conversation as a request's history: each text with the seconds before `now`. */
function historyAt(now: number): [string, number][] {
  return conversation.map((t) => [t.text, Math.max(0, Math.round((now - t.sentAt) / 1000))]);
}

/** The earlier messages above the route, each with how long ago it was sent. */
function drawConversation(): void {
  const box = byId("pv-conversation");
  box.hidden = conversation.length === 0;
  const ago = historyAt(Date.now());
  const items = conversation.map((t, k) => el("li", {}, `“${t.text}”`, el("small", {}, ` · ${ago[k][1]} s before this message`)));
  const restart = el("button", { id: "pv-new-conversation", onclick: () => {
    conversation = [];
    drawConversation();
    runPreview().catch(() => undefined);
  } }, "Start a new conversation");
  box.replaceChildren(el("p", {}, el("b", {}, "Earlier in this conversation"),
    " (a follow-up sent within a minute is routed joined to them)"), el("ol", {}, ...items), restart);
}

/** Sends the message in the box (as typed, even before its preview is drawn): it joins the
 * conversation and the box is free for the next one. */
function sendMessage(): void {
  const text = value("pv-message").trim();
  if (!text) return;
  conversation.push({ text, sentAt: Date.now() });
  // A runtime joins a fragment to at most the last four messages.
  conversation = conversation.slice(-4);
  byId<HTMLInputElement>("pv-message").value = "";
  drawConversation();
  runPreview().catch(() => undefined);
}

/** A request to show: fills the form (a test case's "preview this request"). */
export function setPreviewRequest(r: { client?: string | null; locale?: string | null; tier?: string | null;
  consumer?: string | null; context: [string, string][]; select: string[]; message?: string | null;
  history?: [string, number][] }): void {
  const set = (id: string, v: string) => { byId<HTMLInputElement>(id).value = v; };
  set("pv-message", r.message ?? "");
  const now = Date.now();
  conversation = (r.history ?? []).map(([text, ago]) => ({ text, sentAt: now - ago * 1000 }));
  drawConversation();
  set("pv-client", r.client ?? "");
  if (r.locale) set("pv-locale", r.locale);
  if (r.tier) set("pv-tier", r.tier);
  set("pv-consumer", r.consumer ?? "");
  const ctx = new Map(r.context);
  set("pv-url", ctx.get("page_url") ?? "");
  set("pv-turn", ctx.get("turn") ?? "");
  set("pv-context", r.context.filter(([k]) => k !== "page_url" && k !== "turn").map(([k, v]) => `${k}=${v}`).join(", "));
  set("pv-selected", r.select.join(", "));
  // A case names its locale; the note says whether the page URL agrees.
  if (!r.locale) followUrl();
  else byId("pv-locale-note").textContent = "";
}

/** Why a skill is in, in words. */
function inWords(reason: string): string {
  const [kind, by] = reason.split(/:(.*)/s);
  const words: Record<string, string> = {
    dependency: `a dependency of ${by}`, augments: `linked with ${by} (augments)`, import: `imported by ${by}`,
  };
  if (by !== undefined && words[kind]) return words[kind];
  return ({ selected: "selected", always_on: "always on (its conditions hold)" } as Record<string, string>)[reason] ?? reason;
}

/** Why a skill is out, in words (as `skillc prompt` prints it). */
function outWords(reason: string): string {
  const [kind, by] = reason.split(/:(.*)/s);
  if (by !== undefined && kind === "blocked") return `blocked by ${by}`;
  if (by !== undefined && kind === "excluded") return `excluded by ${by} (same category, stronger priority)`;
  return ({
    unknown: "no skill of that name for this client", hidden: "hidden from selection",
    disabled: "turned off for this client (a toggle, or off by the skill's default)",
    condition: "its conditions do not hold for this context", max_active: "over the workspace's max_active_skills",
    unavailable: "unavailable for this client (a requirement or a variable is missing)",
  } as Record<string, string>)[reason] ?? reason;
}

function showBudget(b: BudgetMeter): void {
  const meter = byId("pv-budget");
  const size = `Catalog: ${n(b.tokens)} tokens, ${n(b.chars)} characters`;
  const targets = b.targets.map(targetMeter);
  if (b.budget === null) {
    meter.className = "meter none";
    meter.replaceChildren(el("span", {}, `${size}. This tier has no catalog budget.`), ...targets);
    return;
  }
  const share = b.tokens / b.budget;
  meter.className = `meter ${b.cut ? "cut" : share > 0.9 ? "near" : "ok"}`;
  const line = el("span", {}, `${size} of a ${n(b.budget)}-token budget (${Math.round(share * 100)}%).`);
  const cut = b.cut ? el("p", { class: "cut-note" }, `Over budget, so the build cut it: ${b.cut}.`) : null;
  meter.replaceChildren(bar(share), line, cut ?? "", ...targets);
}

function bar(share: number): HTMLElement {
  return el("div", { class: "bar" }, el("div", { class: "fill", style: `width: ${Math.min(100, share * 100).toFixed(1)}%` }));
}

const TOOL_NAMES: Record<string, string> = {
  "claude-code": "Claude Code", codex: "Codex", gemini: "Gemini CLI", copilot: "GitHub Copilot", agents: ".agents/skills tools",
};

/** One declared client tool (`targets:` in workspace.yaml): how much of its listing budget this
 * catalog takes, and what it would cut or leave out. */
function targetMeter(t: TargetMeter): HTMLElement {
  const name = TOOL_NAMES[t.target] ?? t.target;
  const total = t.budget?.total ?? 0;
  const share = total > 0 ? t.listed / total : 0;
  const state = t.dropped > 0 ? "cut" : t.cut.length > 0 || share > 0.9 ? "near" : "ok";
  const line = `${name}: ${n(t.listed)} of ${n(total)} characters of names and descriptions (${Math.round(share * 100)}%).`;
  const notes: string[] = [];
  if (t.cut.length > 0) {
    const most = t.budget?.per_description ?? 0;
    const names = t.cut.slice(0, 5).map(([s, len]) => `${s} (${n(len)})`).join(", ");
    const more = t.cut.length > 5 ? ` and ${t.cut.length - 5} more` : "";
    notes.push(`It cuts descriptions to ${n(most)} characters: ${names}${more}.`);
  }
  if (t.dropped > 0) {
    notes.push(`Over its budget, it would leave about ${t.dropped} of the ${t.skills} descriptions out, the least used first.`);
  }
  return el("div", { class: `meter target ${state}`, "data-target": t.target, title: t.budget?.source ?? "" },
    bar(share), el("span", {}, line), ...notes.map((x) => el("p", { class: "cut-note" }, x)));
}

/** The skills the visitor's message reaches: each candidate's score against the cut, the
 * words that matched, whether the route is confident; the message can be kept as a case. */
function showRoute(p: Preview, request: PreviewRequest): void {
  const box = byId("pv-route");
  const route = p.route;
  box.hidden = route === null;
  if (!route) return box.replaceChildren();
  const hybrid = route.method === "hybrid";
  const catalogCut = hybrid ? p.routing.hybrid_min_score : p.routing.min_score;
  const cut = p.bar ?? catalogCut;
  const head = el("p", {}, el("b", {}, route.candidates.length
    ? `This message reaches ${route.candidates.length === 1 ? "1 skill" : `${route.candidates.length} skills`}`
    : "This message reaches no skill: the agent answers without one"),
    route.candidates.length ? ` ${route.confident ? "· confident (the first scores at least " + p.routing.confident + ")" : "· not confident: the agent's selector decides"}` : "");
  const rows = route.candidates.map((c) => el("tr", { "data-candidate": c.name },
    el("td", { class: "num" }, c.score.toFixed(4)),
    el("td", {}, el("div", { class: "bar" }, el("div", { class: "fill", style: `width: ${Math.round(c.score * 100)}%` }))),
    el("td", {}, c.id), el("td", {}, el("b", {}, c.name)),
    el("td", { class: "matched" }, c.matched.join(", "))));
  const how = hybrid ? "by words and meaning; the cut rises with the catalog's size, and for a message that reads like small talk, unless routing.hybrid_min_score sets it" : "by words alone; the cut is routing.min_score";
  const tail = p.tail ?? cut;
  const note = el("p", { class: "hint" }, tail !== null && cut !== null && tail < cut
    ? `A message reaches skills only when the first scores at least ${cut} (${how}); the next ones among the skills its words point to most are then kept down to ${tail}, for the agent's selector to weigh; at most ${p.routing.top_k} are.`
    : `Skills scoring under ${cut} are not candidates (${how}); at most ${p.routing.top_k} are.`);
  const raised = catalogCut !== null && cut !== null && cut > catalogCut
    ? el("p", { id: "pv-small-talk", class: "hint" }, `This message reads like small talk (it is nearer small talk than any skill, or its words lean to small talk rather than to a request), so its bar rose from the catalog's ${catalogCut} to ${cut}: a greeting or a chat about the weekend does not reach a skill by a few shared words.`)
    : "";
  const joined = route.routed_text === undefined ? "" : el("p", { id: "pv-joined", class: "joined" },
    "A follow-up: routed joined to the earlier messages, as ", el("q", {}, route.routed_text));
  const first = route.candidates[0]?.name;
  const send = el("button", { id: "pv-send", title: "Keep this message as said and type the visitor's next one",
    onclick: sendMessage }, "Send, then write the next message");
  const save = el("button", { id: "pv-save-case", onclick: () => {
    const name = `"${route.message.slice(0, 60)}" reaches ${first ?? "no skill"}`;
    api.saveRouteCase(request, name, first ? [first] : []).then((file) => say(`Saved as a case in ${file}`, "good"))
      .catch((e) => say(errorText(e), "bad"));
  } }, first ? `Save as a case: it reaches ${first}` : "Save as a case: it reaches no skill");
  const use = el("button", { onclick: () => {
    byId<HTMLInputElement>("pv-selected").value = route.candidates.map((c) => c.name).join(", ");
    runPreview().catch(() => undefined);
  } }, "Select these");
  box.replaceChildren(head, joined, rows.length ? el("table", {}, ...rows) : "", note, raised,
    el("div", { class: "inline" }, send, save, rows.length ? use : ""));
}

/** Sources as links; a click copies the address (the studio itself never goes online). */
function sourceItem(s: { sid: number; url: string; title: string | null }): HTMLElement {
  const link = el("a", { href: s.url, title: s.url, onclick: (e: Event) => {
    e.preventDefault();
    navigator.clipboard?.writeText(s.url).then(() => say(`Copied ${s.url}`), () => say(s.url));
  } }, s.title || s.url);
  return el("li", { value: s.sid }, link, " ", el("small", {}, s.url));
}

/** A turn for each preview asked for: an answer to an older request is not drawn (a tab click
 * and a Run, or a build's refresh, can overlap; each draw of a 1,000-skill catalog costs
 * ~100 ms). */
const previews = new Turns();
/** The catalog as drawn last. A save that changes no catalog (a body edit) keeps it: the
 * backend leaves out a catalog the page names by its digest, and it is not drawn again. */
let drawnCatalog = { digest: "", skills: 0, markdown: false };

function showCatalog(p: Preview, markdown: boolean): void {
  const skills = p.catalog_kept ? drawnCatalog.skills : p.catalog.skills.length;
  byId("pv-catalog-tokens").textContent = `${skills} skills, ${n(p.catalog.tokens)} tokens`;
  if (p.catalog_kept || (drawnCatalog.digest === p.catalog_digest && drawnCatalog.markdown === markdown)) return;
  drawnCatalog = { digest: p.catalog_digest, skills, markdown };
  byId("pv-catalog").textContent = p.catalog.text;
  const rendered = byId("pv-catalog-rendered");
  rendered.innerHTML = markdown ? md.render(p.catalog.text) : "";
  foldCategories(rendered);
  rendered.hidden = !markdown;
}

/** Catalogs of more skills than this are shown with every category folded. */
const OPEN_UP_TO = 60;

/** Folds each category of a rendered catalog under its heading, with its number of skills;
 * a small catalog stays open. A catalog of a thousand skills laid out whole made showing the
 * preview tab 150 ms slower on the reference workload; a folded category is not laid out. */
function foldCategories(root: HTMLElement): void {
  const nodes = [...root.childNodes];
  if (!nodes.some((n) => n instanceof HTMLHeadingElement && n.tagName === "H2")) return;
  const open = root.querySelectorAll("tbody tr").length <= OPEN_UP_TO;
  const out: Node[] = [];
  let fold: HTMLDetailsElement | null = null;
  for (const node of nodes) {
    if (node instanceof HTMLHeadingElement && node.tagName === "H2") {
      fold = el("details", { class: "category", open });
      fold.append(el("summary", {}, node.textContent ?? ""));
      out.push(fold);
    } else if (fold) {
      fold.append(node);
    } else {
      out.push(node);
    }
  }
  for (const d of out) {
    if (!(d instanceof HTMLDetailsElement)) continue;
    const rows = d.querySelectorAll("tbody tr").length;
    d.querySelector("summary")?.append(el("small", {}, ` ${rows} ${rows === 1 ? "skill" : "skills"}`));
  }
  root.replaceChildren(...out);
}

/** How many previews were asked for so far (a build's refresh skips one asked after it). */
export function previewsAsked(): number {
  return previews.latest;
}

/** The last preview asked for, settled or not. */
let settled: Promise<void> = Promise.resolve();

/** Resolves once no preview is being fetched or drawn: work that can wait (the list's reload)
 * waits for it, so the two do not share the machine. */
export async function previewSettled(): Promise<void> {
  let seen: Promise<void>;
  do {
    seen = settled;
    await seen;
  } while (seen !== settled);
}

/** Asks the backend for the preview the controls describe and draws it. */
export function runPreview(): Promise<void> {
  const run = drawPreview();
  settled = run.catch(() => undefined);
  return run;
}

/** Says when the open skill has edits the preview does not show yet, with a way to save. */
function flagUnsaved(): void {
  const banner = byId("pv-unsaved");
  const file = previewHooks.unsaved();
  banner.hidden = file === null;
  if (file === null) return;
  banner.replaceChildren(el("span", {}, `${file} has unsaved edits: this preview shows its last saved text. `),
    el("button", { id: "pv-save", onclick: () => { previewHooks.save().catch(() => undefined); } }, "Save and preview"));
}

async function drawPreview(): Promise<void> {
  const ticket = previews.take();
  byId("pv-error").hidden = true;
  flagUnsaved();
  const context = value("pv-context").split(",").map((p) => p.trim()).filter(Boolean).map((p) => {
    const at = p.indexOf("=");
    return (at < 0 ? [p, ""] : [p.slice(0, at).trim(), p.slice(at + 1).trim()]) as [string, string];
  });
  const request: PreviewRequest = {
    client: value("pv-client"), locale: value("pv-locale"), tier: value("pv-tier"), consumer: value("pv-consumer"),
    page_url: value("pv-url").trim(), turn: value("pv-turn").trim(), context,
    selected: value("pv-selected").split(",").map((s) => s.trim()).filter(Boolean),
    format: value("pv-format"),
    message: value("pv-message").trim(),
    known_catalog: "",
    history: historyAt(Date.now()),
  };
  if (drawnCatalog.markdown === (request.format === "markdown")) request.known_catalog = drawnCatalog.digest;
  // Clicks in one go (a tab and Run) ask once.
  await Promise.resolve();
  if (!previews.isLatest(ticket)) return;
  try {
    const p = await api.preview(request);
    if (!previews.isLatest(ticket)) return;
    showCatalog(p, request.format === "markdown");
    byId("pv-prompt").textContent = p.prompt.text;
    byId("pv-prompt-rendered").innerHTML = md.render(p.prompt.text);
    byId("pv-prompt-tokens").textContent = `${n(p.prompt.tokens)} tokens`;
    const rows = [el("tr", {}, el("th", {}, "skill"), el("th", {}, "content used"), el("th", {}, "tokens"), el("th", {}, "reason code"))];
    for (const s of p.prompt.skills) {
      rows.push(el("tr", { class: "in" }, el("td", {}, s.name), el("td", {}, s.resolved),
        el("td", { class: "num" }, n(p.skill_tokens[s.name] ?? 0)), el("td", {}, s.reason)));
    }
    for (const s of p.prompt.removed) rows.push(el("tr", { class: "out" }, el("td", {}, s.name), el("td", {}, "—"), el("td", {}, ""), el("td", {}, s.reason)));
    byId("pv-reasons").replaceChildren(...rows);
    byId("pv-why").replaceChildren(
      ...p.prompt.skills.map((s) => el("li", { class: "in" }, el("b", {}, s.name), s.resolved !== s.name ? ` (as ${s.resolved})` : "", `: ${inWords(s.reason)}`)),
      ...p.prompt.removed.map((s) => el("li", { class: "out" }, el("b", {}, s.name), ` is out: ${outWords(s.reason)}`)));
    byId("pv-sources-title").hidden = p.prompt.sources.length === 0;
    byId("pv-sources").replaceChildren(...p.prompt.sources.map(sourceItem));
    showBudget(p.budget);
    showRoute(p, request);
  } catch (e) {
    if (!previews.isLatest(ticket)) return;
    byId("pv-error").hidden = false;
    byId("pv-error").textContent = errorText(e);
  }
}
