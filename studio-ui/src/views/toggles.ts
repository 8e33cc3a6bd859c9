// The Toggles tab: clients × skills, usable at 500 × 1,000. Both axes are filtered and the
// grid draws one page of cells at a time. A cell click offers the three states to choose from
// (no cycling through the others on disk); a choice or a bulk action edits client.yaml through
// the compiler's lossless toggle edit, and every edit can be undone, last first.
import { api, type ToggleChange, type Toggles } from "../api";
import { byId, el } from "../dom";
import { fail, say } from "../status";

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
  /** What puts back each applied edit, last first, with its words. */
  private undo: { changes: ToggleChange[]; words: string }[] = [];

  constructor(private readonly changed: () => void) {
    for (const id of ["tg-clients", "tg-skills", "tg-category"]) {
      byId(id).addEventListener("input", () => { this.clientPage = 0; this.skillPage = 0; this.draw(); });
    }
    byId("tg-bulk-on").addEventListener("click", () => this.bulk(true));
    byId("tg-bulk-off").addEventListener("click", () => this.bulk(false));
    byId("tg-bulk-default").addEventListener("click", () => this.bulk(null));
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
    this.data = await api.toggles();
    const cat = byId<HTMLSelectElement>("tg-category");
    const old = cat.value;
    const categories = [...new Set(this.data.categories)].sort();
    cat.replaceChildren(el("option", { value: "" }, "(every category)"), ...categories.map((c) => el("option", { value: c }, c || "(none)")));
    cat.value = categories.includes(old) ? old : "";
    this.draw();
  }

  /** Indices of the clients and skills the filters keep. */
  private visible(): { clients: number[]; skills: number[] } {
    const t = this.data;
    if (!t) return { clients: [], skills: [] };
    const cq = byId<HTMLInputElement>("tg-clients").value.trim().toLowerCase();
    const sq = byId<HTMLInputElement>("tg-skills").value.trim().toLowerCase();
    const cat = byId<HTMLSelectElement>("tg-category").value;
    const clients = t.clients.map((_, i) => i).filter((i) => !cq || t.clients[i].toLowerCase().includes(cq));
    const skills = t.skills.map((_, i) => i).filter((i) =>
      (!sq || t.skills[i].toLowerCase().includes(sq)) && (!cat || t.categories[i] === cat));
    return { clients, skills };
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
      if (value !== now || (value === null && (code === "T" || code === "t"))) this.apply([{ client, skill, value }]);
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

  /** Sets every filtered cell (all pages) that belongs to its client. */
  private bulk(value: boolean | null): void {
    const t = this.data;
    if (!t) return;
    const { clients, skills } = this.visible();
    const changes: ToggleChange[] = [];
    for (const ci of clients) for (const si of skills) {
      if (t.cells[ci][si] !== "-") changes.push({ client: t.clients[ci], skill: t.skills[si], value });
    }
    if (!changes.length) return;
    const what = value === null ? "back to their defaults" : value ? "on" : "off";
    say(`Setting ${changes.length} toggles ${what}…`);
    this.apply(changes);
  }

  /** Applies `changes`, keeping what undoes them (unless they are an undo themselves). */
  private apply(changes: ToggleChange[], undoing = false): void {
    const t = this.data;
    const before = changes.map((c) => {
      const ci = t?.clients.indexOf(c.client) ?? -1;
      const si = t?.skills.indexOf(c.skill) ?? -1;
      const code = ci >= 0 && si >= 0 ? t?.cells[ci][si] ?? "" : "";
      return { ...c, value: TogglesView.valueOf(code) };
    });
    const words = changes.length === 1
      ? `${changes[0].skill} ${changes[0].value === null ? "back to its default" : changes[0].value ? "on" : "off"} for ${changes[0].client}`
      : `${changes.length} toggles`;
    api.setToggles(changes)
      .then(async (files) => {
        if (!undoing) this.undo.push({ changes: before, words });
        if (changes.length > 1) say(`${changes.length} toggles set in ${files} client files`, "good");
        this.showUndo();
        await this.show();
        this.changed();
      })
      .catch(fail);
  }

  private showUndo(): void {
    const last = this.undo[this.undo.length - 1];
    const button = byId<HTMLButtonElement>("tg-undo");
    button.disabled = !last;
    button.textContent = last ? `Undo: ${last.words}` : "Undo";
  }

  private undoLast(): void {
    const last = this.undo.pop();
    if (!last) return;
    say(`Undone: ${last.words}`);
    this.apply(last.changes, true);
  }
}
