// The Review & publish tab: the files changed since the last commit with their line diffs,
// what the change does to each client, locale and tier, and a commit of the ticked files.
import { api, errorText, type Blockers, type DocChange, type ImpactGroup, type Review } from "../api";
import { byId, el } from "../dom";
import { Turns } from "../turns";

let current: Review | null = null;
let shown = "";

/** What the review asks of the rest of the app: opening a file at a line, and what follows a
 * publish (a build, so the header names the new commit). */
export const reviewHooks = {
  open: (_file: string, _line: number): void => {},
  published: async (): Promise<void> => {},
  /** A file was discarded: the list of what can be restored changed. */
  discarded: async (): Promise<void> => {},
};

/** "2 errors and 1 failing test case". */
function blockerWords(b: Blockers): string {
  const count = (k: number, one: string, many: string) => (k === 1 ? `1 ${one}` : `${k} ${many}`);
  const parts = [];
  if (b.errors.length) parts.push(count(b.errors.length, "error", "errors"));
  if (b.findings.length) parts.push(count(b.findings.length, "content-safety finding", "content-safety findings"));
  if (b.failing_cases.length) parts.push(count(b.failing_cases.length, "failing test case", "failing test cases"));
  return parts.join(" and ");
}

/** The errors and failing cases that stand in the way of publishing, each a link to its place;
 * while there are any, Publish asks for a reason to publish anyway. */
function showBlockers(r: Review): void {
  const b = r.blockers;
  const blocked = b.errors.length + b.failing_cases.length + b.findings.length > 0 && r.files.length > 0;
  const box = byId("rv-blockers");
  box.hidden = !blocked;
  byId("rv-anyway-label").hidden = !blocked;
  byId("rv-commit").textContent = blocked ? "Publish anyway" : "Publish";
  if (!blocked) return box.replaceChildren();
  const link = (file: string, line: number, text: string) =>
    el("a", { href: "#", onclick: (e: Event) => { e.preventDefault(); reviewHooks.open(file, line); } }, text);
  box.replaceChildren(
    el("p", {}, el("b", {}, `Not ready to publish: ${blockerWords(b)}.`), " Fix them first, or say why it cannot wait."),
    el("ul", {},
      ...b.errors.map((d) => el("li", { class: "error" }, d.message, " ", link(d.file, d.line, `${d.file}:${d.line}`))),
      // A finding in words: what an agent following the skill would be made to do.
      ...b.findings.map((d) => el("li", { class: "error safety" },
        `Content safety, ${d.safety}: this file ${d.message.replace(/ \((low|medium|high|critical)\)$/, "")}, `,
        "which an agent given the skill would follow. ", d.help ? `To fix: ${d.help}. ` : "",
        link(d.file, d.line, `${d.file}:${d.line}`))),
      ...b.failing_cases.map((c) => el("li", { class: "error" }, `Test case “${c.name}” fails: ${c.failures.join("; ")} `,
        link(c.file, c.line, `${c.file}:${c.line}`)))));
}

/** One diff line, coloured by its first character. */
function diffLine(line: string): HTMLElement {
  const kind = line.startsWith("+++") || line.startsWith("---") ? "meta"
    : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
  return el("span", { class: kind }, line);
}

/** A skill file's change as a document: each field before and after, the body's paragraphs
 * that went and came. */
export function documentView(d: DocChange): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (d.fields.length) {
    out.push(el("table", { class: "doc-fields" },
      el("tr", {}, el("th", {}, "field"), el("th", {}, "before"), el("th", {}, "after")),
      ...d.fields.map((f) => el("tr", {}, el("td", {}, f.key),
        el("td", { class: "before" }, f.before ?? "(none)"), el("td", { class: "after" }, f.after ?? "(removed)")))));
  }
  if (d.removed.length || d.added.length) {
    out.push(el("h4", {}, "Instructions"),
      ...d.removed.map((p) => el("p", { class: "gone" }, p)),
      ...d.added.map((p) => el("p", { class: "new" }, p)));
  }
  if (!out.length) out.push(el("p", { class: "empty" }, "Only spacing or comments changed."));
  return out;
}

function showFile(path: string): void {
  shown = path;
  const f = current?.files.find((x) => x.path === path);
  const doc = f?.document ?? null;
  byId("rv-doc").replaceChildren(...(doc ? documentView(doc) : []));
  // A skill's change reads as a document; the raw diff stays one click away (open for other files).
  (byId("rv-raw") as HTMLDetailsElement).open = !doc;
  for (const li of document.querySelectorAll<HTMLElement>("#rv-files li")) li.classList.toggle("active", li.dataset.file === path);
  const lines = (f?.diff ?? "").split("\n").filter((l, i, all) => i < all.length - 1 || l !== "");
  byId("rv-diff").replaceChildren(...(lines.length ? lines.map(diffLine) : [el("span", {}, "(no line diff: a binary file, or past the first 300 files)")]));
  // No file changed (after a publish, say): nothing to review, rather than a missing diff.
  byId("rv-raw").hidden = !f;
  if (!f) {
    byId("rv-doc").replaceChildren(el("p", { class: "empty" },
      current?.files.length ? "Choose a file to see its changes." : "Nothing to review: every change is published."));
  }
}

const n = (x: number) => x.toLocaleString("en");

/** "global ×9, augment.org ×6, … and 492 more clients": where a change's bundles are. */
function byClient(clients: [string, number][]): string {
  const shown = clients.slice(0, 6).map(([c, k]) => (k > 1 ? `${c} ×${k}` : c)).join(", ");
  return clients.length > 6 ? `${shown} and ${n(clients.length - 6)} more clients` : shown;
}

/** One change with the bundles it happens in: listed when few, else summed up per client. */
function groupItem(g: ImpactGroup): HTMLElement {
  if (g.count <= 3) return el("li", {}, el("span", { class: "who" }, g.bundles.join("; ")), ": ", g.change);
  const more = g.count - g.bundles.length;
  return el("li", {}, g.change, " ", el("details", {},
    el("summary", {}, `in ${n(g.count)} versions: ${byClient(g.clients)}`),
    el("ul", { class: "bundles" }, ...g.bundles.map((b) => el("li", {}, b)),
      more > 0 ? el("li", { class: "more" }, `and ${n(more)} more`) : "")));
}

const STATUS_WORDS = { added: "new", changed: "edited", removed: "deleted" } as const;

/** "Discard", then one confirmation beside it: a change goes back to the last published
 * text; a new file goes where deleted skills go, restorable until the next publish. */
function discardButton(path: string, status: keyof typeof STATUS_WORDS): HTMLElement {
  const what = status === "added" ? "Remove this new file (you can restore it until you publish)?"
    : status === "removed" ? "Bring this file back as last published?" : "Drop these edits and go back to the last published text?";
  const box = el("span", { class: "discard" });
  const ask = el("button", { class: "small", "data-discard": path, onclick: () => {
    box.replaceChildren(el("span", {}, what), " ",
      el("button", { class: "small danger", "data-confirm-discard": path, onclick: () => {
        api.discard(path).then(() => reviewHooks.discarded()).then(showReview).catch((e) => {
          byId("rv-status").className = "error";
          byId("rv-status").textContent = errorText(e);
        });
      } }, "Discard"), " ",
      el("button", { class: "small", onclick: () => box.replaceChildren(ask) }, "Keep"));
  } }, "Discard…");
  box.append(ask);
  return box;
}

function render(r: Review): void {
  current = r;
  const status = byId("rv-status");
  byId("rv-publish").hidden = !!r.not_a_repository || r.files.length === 0;
  const files = `${r.files.length} changed ${r.files.length === 1 ? "file" : "files"}`;
  if (r.not_a_repository) {
    status.className = "banner";
    status.textContent = r.not_a_repository;
  } else if (r.files.length === 0) {
    status.className = "good";
    status.textContent = `Nothing to publish: the workspace is as in commit ${r.head ?? "(none)"}.`;
  } else {
    status.className = "";
    status.textContent = `${files} since commit ${r.head ?? "(none yet)"}.`;
  }
  byId("rv-count").textContent = r.files.length ? `${r.files.length}` : "";
  byId("rv-files").replaceChildren(...r.files.map((f) => el("li", { "data-file": f.path, class: f.status },
    el("input", { type: "checkbox", checked: true, "data-path": f.path, "aria-label": `publish ${f.path}` }),
    el("span", { class: "status" }, STATUS_WORDS[f.status]),
    el("a", { href: "#", onclick: (e: Event) => { e.preventDefault(); showFile(f.path); } }, f.path),
    discardButton(f.path, f.status))));
  const impact = r.impact;
  byId("rv-impact-count").textContent = impact.changed ? `${n(impact.changed)} versions (client, language, plan) change, ${n(impact.unchanged)} do not` : "";
  const items = impact.problem ? [el("li", { class: "problem" }, impact.problem)] : impact.groups.map(groupItem);
  if (!impact.problem && r.files.length && !impact.changed) items.push(el("li", {}, "No client, locale or tier sees a difference."));
  byId("rv-impact").replaceChildren(...items);
  const warnings = impact.new_warnings ?? [];
  const box = byId("rv-warnings");
  box.hidden = warnings.length === 0;
  box.replaceChildren(el("h4", {}, `New warnings (${warnings.length})`), el("ul", {}, ...warnings.map((w) =>
    el("li", { class: "warning" }, w.message, " ", el("a", { href: "#", onclick: (e: Event) => { e.preventDefault(); reviewHooks.open(w.file, w.line); } },
      `${w.file}:${w.line}`), " ", el("small", { class: "tech" }, w.code)))));
  showFile(r.files.some((f) => f.path === shown) ? shown : r.files[0]?.path ?? "");
  showBlockers(r);
}

/** A turn for each review asked for: only the last one asked is drawn (an older one lists
 * files as they were, and its publish token is stale). */
const reviews = new Turns();

export async function showReview(): Promise<void> {
  const status = byId("rv-status");
  status.className = "";
  status.textContent = "Comparing with the last commit…";
  const turn = reviews.take();
  try {
    const r = await api.review();
    if (reviews.isLatest(turn)) render(r);
  } catch (e) {
    if (!reviews.isLatest(turn)) return;
    status.className = "error";
    status.textContent = errorText(e);
  }
}

export async function publish(): Promise<void> {
  if (!current) return;
  const files = [...document.querySelectorAll<HTMLInputElement>("#rv-files input[type=checkbox]")]
    .filter((c) => c.checked).map((c) => c.dataset.path ?? "");
  const message = byId<HTMLInputElement>("rv-message").value;
  const anyway = byId<HTMLInputElement>("rv-anyway");
  const status = byId("rv-status");
  try {
    const commit = await api.publish(current.token, files, message, anyway.value.trim() || null);
    byId<HTMLInputElement>("rv-message").value = "";
    anyway.value = "";
    await reviewHooks.published();
    await showReview();
    status.className = "good";
    status.textContent = `Published ${files.length} ${files.length === 1 ? "file" : "files"} as commit ${commit}. ${status.textContent ?? ""}`;
  } catch (e) {
    status.className = "error";
    status.textContent = errorText(e);
  }
}
