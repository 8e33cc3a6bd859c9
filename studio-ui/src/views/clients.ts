// The Clients tab: one client's page. Its languages and plans, its flags (the settings its
// variants are chosen by, with the variants they choose), its variables (secrets never shown),
// its toggles and its own skills. Every edit changes one value of its client.yaml, losslessly.
import { api, type ClientPage, type FieldInfo, type Json } from "../api";
import { byId, el } from "../dom";
import { Saves } from "../saves";
import { fail, say } from "../status";
import { Turns } from "../turns";
import { fieldInput } from "./fieldInput";

export interface ClientHooks {
  /** A value was written: the workspace is built again. */
  changed(): void;
  open(file: string): void;
  /** "New skill" for this client. */
  newSkill(client: string): void;
  /** The toggles tab, filtered to this client. */
  toggles(client: string): void;
}

const shapeOf = (v: Json): FieldInfo["shape"] =>
  typeof v === "boolean" ? "bool" : typeof v === "number" ? "int" : Array.isArray(v) ? "texts" : "text";

export class ClientsView {
  private page: ClientPage | null = null;
  /** A turn for each page asked for or saved: only the latest is drawn (an older page drawn
   * after a save would undo it at the next click on its choices, made from what it shows). */
  private readonly pages = new Turns();
  private readonly saves = new Saves<ClientPage>();

  constructor(private readonly hooks: ClientHooks) {
    byId("cl-client").addEventListener("change", () => { this.show().catch(fail); });
  }

  /** Fills the client choice (`clients` of the workspace) and draws the chosen one. */
  async show(clients?: string[], chosen?: string): Promise<void> {
    const select = byId<HTMLSelectElement>("cl-client");
    if (clients) {
      const old = chosen ?? select.value;
      select.replaceChildren(...clients.map((c) => el("option", { value: c }, c)));
      if (clients.includes(old)) select.value = old;
    }
    if (!select.value) { byId("client-page").replaceChildren(el("p", { class: "empty" }, "This workspace has no clients.")); return; }
    // Another client chosen before this one's page answered: the later answer is drawn, never
    // an older one (its edits would go to a client the choice no longer names).
    await this.pages.drawLatest(() => api.clientPage(select.value), (page) => this.draw(page));
  }

  /** Writes one value of the client's client.yaml, after the saves asked before it
   * ([Saves]); the page is drawn again once the last has answered. */
  private set(path: string[], value: Json | undefined): void {
    const client = this.page?.client;
    if (!client) return;
    this.saves.run(() => api.setClientValue(client, path, value), (saved, last) => {
      if (saved) say(`Saved ${path.join(" › ")} for ${client}`, "good");
      // A page asked for before this answer is older than it: not drawn over it.
      if (saved) this.pages.take();
      // The page shown is still this client's: draw the file as it stands.
      if (last && this.page?.client === client) {
        if (saved) this.draw(saved);
        else api.clientPage(client).then((p) => this.draw(p)).catch(fail);
      }
      if (saved) this.hooks.changed();
    });
  }

  /** A list of checkboxes over `all`, plus "all of them" (the key left out). */
  private choices(key: "locales" | "tiers", all: string[], chosen: string[] | null): HTMLElement {
    const everyOne = el("input", { type: "checkbox", "data-all": key });
    everyOne.checked = chosen === null;
    const boxes = all.map((v) => {
      const b = el("input", { type: "checkbox", value: v, "data-choice": `${key}:${v}` });
      b.checked = chosen === null || chosen.includes(v);
      b.disabled = chosen === null;
      b.addEventListener("change", () => {
        const picked = boxes.map((x) => x.firstChild as HTMLInputElement).filter((x) => x.checked).map((x) => x.value);
        if (picked.length) this.set([key], picked);
        else { b.checked = true; say("A client needs at least one.", "bad"); }
      });
      return el("label", { class: "choice" }, b, ` ${v}`);
    });
    everyOne.addEventListener("change", () => this.set([key], everyOne.checked ? undefined : all));
    return el("div", { class: "choices" }, el("label", { class: "choice all" }, everyOne, " all of the workspace's"), ...boxes);
  }

  /** The flags as a form: each leaf edited as its value's shape, each mapping a group. */
  private flags(value: Json, path: string[]): HTMLElement[] {
    if (!value || typeof value !== "object" || Array.isArray(value)) return [];
    return Object.entries(value).map(([key, v]) => {
      const here = [...path, key];
      if (v && typeof v === "object" && !Array.isArray(v)) {
        return el("fieldset", { class: "flag-group" }, el("legend", {}, key), ...this.flags(v, here));
      }
      let timer = 0;
      const input = fieldInput({ name: key, shape: shapeOf(v), portable: false, shared: false, about: "" }, key, v,
        { skills: [], categories: [] }, () => {
          clearTimeout(timer);
          timer = window.setTimeout(() => { const x = input.read(); if (x !== undefined) this.set(here, x); }, 400);
        });
      input.element.dataset.flag = here.join(".");
      return el("div", { class: "field" }, el("label", {}, key), input.element, el("span", {}));
    });
  }

  private draw(p: ClientPage): void {
    this.page = p;
    const open = (file: string, text: string) =>
      el("a", { href: "#", "data-open": file, onclick: (e: Event) => { e.preventDefault(); this.hooks.open(file); } }, text);
    const vars = p.vars.map((v) => {
      const cell = v.value === null
        ? el("span", { class: "secret" }, "•••••• secret: filled in by the runtime, never shown here")
        : (() => {
          const input = el("input", { value: v.value, "data-var": `${v.section}.${v.name}` });
          input.addEventListener("change", () => this.set(["vars", v.section, v.name], input.value));
          return input;
        })();
      return el("tr", {}, el("td", {}, v.section === "_global" ? "every skill" : v.section), el("td", {}, el("code", {}, v.name)), el("td", {}, cell));
    });
    const variants = p.variants.map((v) => el("li", { class: v.applies ? "applies" : "" },
      v.applies ? "✓ " : "✗ ", open(v.file, v.name), ` replaces ${v.variant_of} when ${v.when.join(" and ")}`,
      el("small", {}, v.applies ? " (applies to this client)" : " (does not apply)")));
    byId("client-page").replaceChildren(
      el("h3", {}, p.client, " ", el("small", { class: "tech" }, p.file)),
      el("h4", {}, "Languages ", el("small", { class: "tech" }, "locales")), this.choices("locales", p.all_locales, p.locales),
      el("h4", {}, "Plans ", el("small", { class: "tech" }, "tiers")), this.choices("tiers", p.all_tiers, p.tiers),
      el("h4", {}, "Settings its variants are chosen by ", el("small", { class: "tech" }, "flags")),
      el("div", { id: "cl-flags" }, ...this.flags(p.flags, ["flags"])),
      p.variants.length ? el("ul", { id: "cl-variants", class: "variants" }, ...variants) : "",
      el("h4", {}, "Variables ", el("small", { class: "tech" }, "vars")),
      vars.length ? el("table", { class: "vars" }, ...vars) : el("p", { class: "empty" }, "No variables of its own."),
      el("h4", {}, "Skills turned on or off for it ", el("small", { class: "tech" }, "toggles")),
      el("p", {}, p.toggles.length ? p.toggles.map(([s, on]) => `${s}: ${on ? "on" : "off"}`).join(", ") : "None: every skill follows its default. ",
        " ", el("button", { class: "small", onclick: () => this.hooks.toggles(p.client) }, "Open in Toggles")),
      el("h4", {}, "Its own skills"),
      el("ul", { id: "cl-skills" }, ...p.own_skills.map(([name, file]) => el("li", {}, open(file, name)))),
      el("button", { id: "cl-new-skill", onclick: () => this.hooks.newSkill(p.client) }, `New skill for ${p.client}`));
  }
}
