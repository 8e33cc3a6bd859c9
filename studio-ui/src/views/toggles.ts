// The Toggles tab: clients × skills, usable at 500 × 1,000. Both axes are filtered and the
// grid draws one page of cells at a time. A cell click offers the three states to choose from
// (no cycling through the others on disk); a choice or a bulk action edits client.yaml through
// the compiler's lossless toggle edit, and every edit can be undone, last first, each file put
// back byte for byte. The client filter takes a list (exactly those clients) or part of a name;
// a bulk action says what it will change and waits for a yes; after an edit, the test cases it
// breaks are named beside the matrix. Which cases passed before an edit is the Tests tab's
// last run (every build runs them): a click runs no case before it is applied.
import { api, type Outcome, type Selection, type TestRun, type ToggleChange, type ToggleFilter, type Toggles } from "../api";
import { byId, el } from "../dom";
import { fail, say } from "../status";
import { Turns } from "../turns";

const PAGE_CLIENTS = 50;
const PAGE_SKILLS = 40;
const SOURCE: Record<string, [boolean, string]> = {
  T: [true, "toggle"], t: [false, "toggle"], E: [true, "default_enabled"], e: [false, "default_enabled"],
  D: [true, "default"], "-": [false, "absent"],
};

export class TogglesView {
  private data: Toggles | null = null;
  private clientPage = 0;
  private skillPage = 0;
  /** What the filters keep (the backend's choice, `select_toggles`). */
  private selection: Selection = { clients: [], skills: [] };
  /** A turn for each read of the matrix, and for each question of what the filters keep: only
   * the latest answer is drawn (a read from before an edit, answering after the read that
   * follows it, would show cells as they were, and a click on one would start from that). */
  private readonly reads = new Turns();
  private readonly selections = new Turns();
  /** The number that undoes each applied edit, last first, with its words. */
  private undo: { undo: number; words: string }[] = [];
  /** Edits applied whose broken cases are not said yet, and the cases failing before the
   * first of them: quick clicks are reported together, by the last one once its rebuild is in
   * (each alone would name the others' broken cases as its own). */
  private unreported: { words: string[]; before: string[] } | null = null;
  private readonly reports = new Turns();

  /** `changed`: rebuilds after an edit (its promise settles when the cases have run);
   * `cases`: the Tests tab's last run and how many runs it has shown. */
  constructor(private readonly changed: () => Promise<void>,
    private readonly cases: () => { last: TestRun | null; runs: number }) {
    for (const id of ["tg-clients", "tg-skills", "tg-category"]) {
      byId(id).addEventListener("input", () => { this.clientPage = 0; this.skillPage = 0; this.select().catch(fail); });
    }
    byId("tg-bulk-on").addEventListener("click", () => { this.bulk(true).catch(fail); });
    byId("tg-bulk-off").addEventListener("click", () => { this.bulk(false).catch(fail); });
    byId("tg-bulk-default").addEventListener("click", () => { this.bulk(null).catch(fail); });
    byId("tg-undo").addEventListener("click", () => this.undoLast());
    document.addEventListener("click", (e) => {
      if (!(e.target as HTMLElement).closest("#tg-menu, table.matrix td")) byId("tg-menu").hidden = true;
    });
  }

  /** The value a cell's code stands for in client.yaml: its toggle, or none (the default). */
  private static valueOf(code: string): boolean | null {
    return code === "T" ? true : code === "t" ? false : null;
  }

  async show(): Promise<void> {
    const turn = this.reads.take();
    const data = await api.toggles();
    if (!this.reads.isLatest(turn)) return;
    this.data = data;
    const cat = byId<HTMLSelectElement>("tg-category");
    const old = cat.value;
    const categories = [...new Set(data.categories)].sort();
    cat.replaceChildren(el("option", { value: "" }, "(every category)"), ...categories.map((c) => el("option", { value: c }, c || "(none)")));
    cat.value = categories.includes(old) ? old : "";
    await this.select();
  }

  private filter(): ToggleFilter {
    return {
      clients: byId<HTMLInputElement>("tg-clients").value,
      skills: byId<HTMLInputElement>("tg-skills").value,
      category: byId<HTMLSelectElement>("tg-category").value,
    };
  }

  /** Asks which clients and skills the filters keep, then draws them (the last answer wins). */
  private async select(): Promise<void> {
    await this.selections.drawLatest(() => api.selectToggles(this.filter()), (s) => {
      this.selection = s;
      byId("tg-confirm").hidden = true;
      this.draw();
    });
  }

  /** Indices of the clients and skills the filters keep. */
  private visible(): Selection {
    return this.selection;
  }

  private pager(label: string, page: number, total: number, size: number, go: (p: number) => void): HTMLElement {
    const pages = Math.max(1, Math.ceil(total / size));
    return el("span", { class: "pager" }, `${label} ${Math.min(total, page * size + 1)}–${Math.min(total, (page + 1) * size)} of ${total} `,
      el("button", { disabled: page === 0, onclick: () => go(page - 1) }, "‹"),
      el("button", { disabled: page + 1 >= pages, onclick: () => go(page + 1) }, "›"));
  }

  private draw(): void {
    const t = this.data;
    if (!t) return;
    const { clients, skills } = this.visible();
    const rows = clients.slice(this.clientPage * PAGE_CLIENTS, (this.clientPage + 1) * PAGE_CLIENTS);
    const cols = skills.slice(this.skillPage * PAGE_SKILLS, (this.skillPage + 1) * PAGE_SKILLS);
    const table = el("table", { class: "matrix" });
    table.append(el("tr", {}, el("th", {}, "client \\ skill"), ...cols.map((s) => el("th", { class: "vertical", title: t.categories[s] }, el("span", {}, t.skills[s])))));
    for (const ci of rows) {
      const c = t.clients[ci];
      const row = el("tr", {}, el("th", {}, c));
      for (const si of cols) row.append(this.cell(c, t.skills[si], t.cells[ci][si]));
      table.append(row);
    }
    byId("tg-pagers").replaceChildren(
      this.pager("clients", this.clientPage, clients.length, PAGE_CLIENTS, (p) => { this.clientPage = p; this.draw(); }),
      this.pager("skills", this.skillPage, skills.length, PAGE_SKILLS, (p) => { this.skillPage = p; this.draw(); }));
    byId("toggles").replaceChildren(table);
  }

  private cell(client: string, skill: string, code: string): HTMLElement {
    const [enabled, source] = SOURCE[code] ?? [false, "absent"];
    if (source === "absent") return el("td", { class: "absent", title: `${skill} is another client's skill` }, "");
    const td = el("td", {
      class: `${enabled ? "on" : "off"} ${source}`,
      title: `${client} / ${skill}: ${enabled ? "on" : "off"} (${source})`,
      "data-client": client, "data-skill": skill,
      onclick: () => this.offer(td, client, skill, code),
    }, enabled ? "●" : "○");
    return td;
  }

  /** The three states of a cell to choose from, beside it. */
  private offer(td: HTMLElement, client: string, skill: string, code: string): void {
    const menu = byId("tg-menu");
    const now = TogglesView.valueOf(code);
    const choose = (value: boolean | null) => () => {
      menu.hidden = true;
      if (value !== now || (value === null && (code === "T" || code === "t"))) this.apply([{ client, skill, value }]).catch(fail);
    };
    const item = (value: boolean | null, label: string, key: string) =>
      el("button", { "data-value": key, class: value === now ? "current" : "", onclick: choose(value) }, label);
    menu.replaceChildren(el("div", { class: "tg-menu-title" }, `${skill} for ${client}`),
      item(true, "● On for this client", "on"),
      item(false, "○ Off for this client", "off"),
      item(null, "The skill's default", "default"));
    const box = td.getBoundingClientRect();
    menu.style.left = `${Math.min(box.right + 4, window.innerWidth - 220)}px`;
    menu.style.top = `${Math.min(box.top, window.innerHeight - 140)}px`;
    menu.hidden = false;
  }

  /** Says what setting every filtered cell (all pages) would change, and waits for a yes. */
  private async bulk(value: boolean | null): Promise<void> {
    const plan = await api.planToggles(this.filter(), value);
    const box = byId("tg-confirm");
    const what = value === null ? "back to their defaults" : value ? "on" : "off";
    if (!plan.changes.length) {
      box.hidden = true;
      say(`Nothing to change: every chosen cell is ${what} already`);
      return;
    }
    const n = plan.changes.length;
    const toggles = `${n} ${n === 1 ? "toggle" : "toggles"}`;
    const who = plan.clients.map(([c, k]) => `${c} (${k})`).join(", ");
    const already = plan.unchanged ? ` ${plan.unchanged} chosen ${plan.unchanged === 1 ? "cell is" : "cells are"} that way already.` : "";
    box.replaceChildren(
      el("p", {}, el("b", {}, `Turn ${toggles} ${what}`), ` for ${who}?${already}`),
      el("button", { id: "tg-confirm-apply", class: "primary", onclick: () => {
        box.hidden = true;
        say(`Setting ${toggles} ${what}…`);
        this.apply(plan.changes, `${toggles} ${what}`).catch(fail);
      } }, `Turn ${what}`), " ",
      el("button", { id: "tg-confirm-cancel", onclick: () => { box.hidden = true; } }, "Cancel"));
    box.hidden = false;
  }

  /** Applies `changes`, keeping the number that undoes them; once rebuilt, names the cases
   * the edit breaks. */
  private async apply(changes: ToggleChange[], words?: string): Promise<void> {
    const c = changes[0];
    words ??= `${c.skill} ${c.value === null ? "back to its default" : c.value ? "on" : "off"} for ${c.client}`;
    // The cases are run only when no run is known yet (before the first build is in).
    const known = this.cases().last ?? await api.testCases();
    const before = known.outcomes.filter((o) => o.failures.length).map((o) => o.case.name);
    const applied = await api.setToggles(changes);
    this.undo.push({ undo: applied.undo, words });
    this.unreported ??= { words: [], before };
    this.unreported.words.push(words);
    const turn = this.reports.take();
    if (changes.length > 1) say(`${changes.length} toggles set in ${applied.files} client files`, "good");
    this.showUndo();
    await this.show();
    const runs = this.cases().runs;
    await this.changed();
    if (!this.reports.isLatest(turn) || !this.unreported) return; // a later edit says it
    const edits = this.unreported;
    this.unreported = null;
    // The build ran the cases for the Tests tab: their outcomes name what broke. A build that
    // wrote nothing ran none: the backend runs them against the last artifact, as before.
    const after = this.cases();
    const broken = after.runs > runs && after.last
      ? after.last.outcomes.filter((o) => o.failures.length && !edits.before.includes(o.case.name))
      : await api.casesBrokenSince(edits.before);
    this.showBroken(broken, edits.words.join(" and "));
  }

  /** The cases the edits (`words`) broke, each with what no longer holds, and the last
   * edit's undo beside them. */
  private showBroken(broken: Outcome[], words: string): void {
    const last = this.undo[this.undo.length - 1];
    const box = byId("tg-broken");
    box.className = broken.length ? "tg-broken" : "tg-broken good";
    box.replaceChildren(...(broken.length ? [
      el("p", {}, el("b", {}, `Turning ${words} breaks ${broken.length} ${broken.length === 1 ? "test" : "tests"}:`)),
      el("ul", {}, ...broken.map((o) => el("li", { "data-case": o.case.name }, el("b", {}, o.case.name), ": ", o.failures[0] ?? ""))),
      el("button", { id: "tg-broken-undo", onclick: () => this.undoLast() }, `Undo: ${last?.words ?? words}`),
    ] : [el("span", {}, `Turning ${words}: every test that passed still passes.`)]));
    box.hidden = false;
  }

  private showUndo(): void {
    const last = this.undo[this.undo.length - 1];
    const button = byId<HTMLButtonElement>("tg-undo");
    button.disabled = !last;
    button.textContent = last ? `Undo: ${last.words}` : "Undo";
  }

  /** Puts back the files of the last edit as they were, byte for byte. */
  private undoLast(): void {
    const last = this.undo.pop();
    if (!last) return;
    byId("tg-broken").hidden = true;
    api.undoToggles(last.undo)
      .then(async () => {
        say(`Undone: ${last.words}`, "good");
        this.showUndo();
        await this.show();
        await this.changed();
      })
      .catch((e) => { this.showUndo(); fail(e); });
  }
}
