// The Settings tab: the workspace's own settings (workspace.yaml) as a form. Its languages
// (add one, remove one, the default), its plans (add, remove, body and catalog budget), the
// client tools it ships to (their budgets meter each catalog), how messages are routed and the
// consumers (parts of the agent with their own catalog filter: add, edit, remove). Every edit
// changes one value of workspace.yaml, losslessly (a plan is the item of `tiers:` with its
// name), and the workspace is built again.
import { api, type Json, type PlanInfo, type WorkspacePage } from "../api";
import { byId, el } from "../dom";
import { Saves } from "../saves";
import { say } from "../status";
import { Turns } from "../turns";

export interface SettingsHooks {
  /** A value was written: the workspace is built again. */
  changed(): void;
}

/** A routing value typed in the form, as YAML would read it (empty: back to the default). */
function routingValue(key: string, typed: string): Json | undefined {
  const t = typed.trim();
  if (!t) return undefined;
  if (key === "embedding_model") return t;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** A budget typed in the form: a number when it reads as one (else as typed, for the
 * diagnostic to say what is wrong); empty: no budget. */
function budgetValue(typed: string): Json | undefined {
  const t = typed.trim();
  if (!t) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** Patterns typed as a comma-separated list (`public.*, faq`); empty: none. */
function patterns(typed: string): string[] {
  return typed.split(",").map((x) => x.trim()).filter(Boolean);
}

/** A value to write: as it is, or made from the page as the saves before it left it. */
type Edit = Json | undefined | ((now: WorkspacePage) => Json | undefined);

export class SettingsView {
  /** The page as the last answer left it (drawn or not). */
  private page: WorkspacePage | null = null;
  private readonly saves = new Saves<WorkspacePage>();
  /** A turn for each page asked for or saved: a page asked for is drawn only if none was
   * since. An older one drawn after a save would be the file before it, and the next edit of a
   * list made from it would undo the save (a language added, then lost). */
  private readonly pages = new Turns();

  constructor(private readonly hooks: SettingsHooks) {}

  async show(): Promise<void> {
    await this.pages.drawLatest(() => api.workspacePage(), (page) => this.draw(page));
  }

  /** Writes one value of workspace.yaml, after the saves asked before it ([Saves]). A list
   * (languages, client tools) is made from the page the save before answered with, so two
   * quick clicks on it both count. The form is drawn again once the last save has answered,
   * with the file as it stands (a save that failed wrote nothing, and its box goes back). */
  private set(path: string[], value: Edit, what: string): void {
    this.saves.run(() => {
      // A control exists only once a page is drawn, so there is a page to make the value from.
      const written = typeof value === "function" ? value(this.page as WorkspacePage) : value;
      return api.setWorkspaceValue(path, written);
    }, (saved, last) => {
      if (saved) {
        this.pages.take();
        this.page = saved;
        say(`Saved ${what} in ${saved.file}`, saved.diagnostics.some((d) => d.severity === "error") ? "bad" : "good");
      }
      if (last && this.page) this.draw(this.page);
      if (saved) this.hooks.changed();
    });
  }

  private languages(p: WorkspacePage): HTMLElement {
    const items = p.locales.map((l) => el("li", { "data-locale": l }, l,
      l === p.default_locale ? el("small", {}, " · the default") : el("button", { class: "small", title: `Stop building ${l}`,
        onclick: () => this.set(["locales"], (now) => now.locales.filter((x) => x !== l), `languages without ${l}`) }, "Remove")));
    const input = el("input", { id: "st-new-locale", placeholder: "de, or pt-br", size: "8" });
    const add = () => {
      const l = input.value.trim();
      if (!l) return;
      if (p.locales.includes(l)) { say(`${l} is already a language of this workspace.`, "bad"); return; }
      this.set(["locales"], (now) => now.locales.includes(l) ? now.locales : [...now.locales, l], `the language ${l}`);
    };
    input.addEventListener("keydown", (e: KeyboardEvent) => { if (e.key === "Enter") add(); });
    const def = el("select", { id: "st-default-locale" }, ...p.locales.map((l) => el("option", { value: l }, l)));
    def.value = p.default_locale;
    def.addEventListener("change", () => this.set(["default_locale"], def.value, `the default language ${def.value}`));
    return el("div", {}, el("ul", { id: "st-locales", class: "chips" }, ...items),
      el("div", { class: "inline" }, input, el("button", { id: "st-add-locale", onclick: add }, "Add a language")),
      el("label", {}, "Default language ", def));
  }

  private targets(p: WorkspacePage): HTMLElement {
    const boxes = p.known_targets.map((t) => {
      const box = el("input", { type: "checkbox", "data-target": t });
      box.checked = p.targets.includes(t);
      box.addEventListener("change", () => {
        if (p.targets_as_list) {
          const on = box.checked;
          const names = (now: WorkspacePage) => on ? [...now.targets.filter((x) => x !== t), t] : now.targets.filter((x) => x !== t);
          this.set(["targets"], names, `the client tools with ${t} ${on ? "added" : "taken out"}`);
        } else {
          this.set(["targets", t], box.checked ? {} : undefined, `${t} ${box.checked ? "declared" : "no longer declared"}`);
        }
      });
      return el("label", { class: "choice" }, box, ` ${t}`);
    });
    return el("div", { class: "choices", id: "st-targets" }, ...boxes);
  }

  private routing(p: WorkspacePage): HTMLElement {
    const rows = p.routing.map((r) => {
      const input = el("input", { "data-routing": r.key, value: r.written === null ? "" : String(r.written), placeholder: r.default });
      input.addEventListener("change", () => this.set(["routing", r.key], routingValue(r.key, input.value), `routing.${r.key}`));
      return el("tr", {}, el("td", {}, el("code", {}, r.key)), el("td", {}, input), el("td", { class: "hint" }, `default: ${r.default}`));
    });
    return el("table", { class: "vars", id: "st-routing" }, ...rows);
  }

  private plan(p: WorkspacePage, t: PlanInfo): HTMLElement {
    const at = ["tiers", t.name];
    const body = el("select", { "data-body": t.name }, el("option", { value: "full" }, "full"), el("option", { value: "compact" }, "compact"));
    body.value = t.body;
    body.addEventListener("change", () => this.set([...at, "body"], body.value === "full" ? undefined : body.value, `the bodies of ${t.name}`));
    const budget = el("input", { "data-budget": t.name, size: "7", placeholder: "none",
      value: t.catalog_token_budget === null ? "" : String(t.catalog_token_budget) });
    budget.addEventListener("change", () => {
      const v = budgetValue(budget.value);
      this.set([...at, "catalog_token_budget"], v, v === undefined ? `no catalog budget for ${t.name}` : `the catalog budget of ${t.name}`);
    });
    const remove = el("button", { class: "small", "data-remove-tier": t.name, disabled: p.tiers.length < 2,
      title: p.tiers.length < 2 ? "A workspace has at least one plan" : `Stop building ${t.name}`,
      onclick: () => this.set(at, undefined, `the plans without ${t.name}`) }, "Remove");
    const who = t.clients.length ? `named by ${t.clients.join(", ")}` : "";
    return el("tr", { "data-tier": t.name }, el("td", {}, el("b", {}, t.name)), el("td", {}, body),
      el("td", {}, budget, " tokens"), el("td", {}, remove), el("td", { class: "hint" }, who));
  }

  private plans(p: WorkspacePage): HTMLElement {
    const name = el("input", { id: "st-new-tier", placeholder: "gold", size: "10" });
    const budget = el("input", { id: "st-new-tier-budget", placeholder: "no budget", size: "8" });
    const add = () => {
      const n = name.value.trim();
      if (!n) return;
      if (p.tiers.some((t) => t.name === n)) { say(`${n} is already a plan of this workspace.`, "bad"); return; }
      const b = budgetValue(budget.value);
      const item: Record<string, Json> = b === undefined ? {} : { catalog_token_budget: b };
      // Without `tiers:` the one plan is `standard`: the list then written keeps it.
      if (p.tiers_written) this.set(["tiers", n], item, `the plan ${n}`);
      else this.set(["tiers"], [...p.tiers.map((t) => ({ name: t.name })), { name: n, ...item }], `the plan ${n}`);
    };
    return el("div", {},
      el("table", { class: "vars", id: "st-tiers" },
        el("tr", {}, el("th", {}, "plan"), el("th", {}, "bodies"), el("th", {}, "catalog budget"), el("th", {}), el("th", {})),
        ...p.tiers.map((t) => this.plan(p, t))),
      el("div", { class: "inline" }, name, budget, el("button", { id: "st-add-tier", onclick: add }, "Add a plan")));
  }

  private consumers(p: WorkspacePage): HTMLElement {
    const list = (name: string, key: "enabled" | "disabled", now: string[]) => {
      const input = el("input", { "data-consumer-field": key, value: now.join(", "), placeholder: "patterns, e.g. public.*" });
      input.addEventListener("change", () => {
        const v = patterns(input.value);
        this.set(["consumers", name, key], v.length ? v : undefined, `${key} of ${name}`);
      });
      return input;
    };
    const rows = p.consumers.map((c) => el("tr", { "data-consumer": c.name }, el("td", {}, el("code", {}, c.name)),
      el("td", {}, list(c.name, "enabled", c.enabled)), el("td", {}, list(c.name, "disabled", c.disabled)),
      el("td", {}, el("button", { class: "small", "data-remove-consumer": c.name,
        onclick: () => this.set(["consumers", c.name], undefined, `the consumers without ${c.name}`) }, "Remove"))));
    const name = el("input", { id: "st-new-consumer", placeholder: "answer.generator.fast", size: "20" });
    const enabled = el("input", { id: "st-new-consumer-enabled", placeholder: "only these (optional)" });
    const disabled = el("input", { id: "st-new-consumer-disabled", placeholder: "all but these (optional)" });
    const add = () => {
      const n = name.value.trim();
      if (!n) return;
      if (p.consumers.some((c) => c.name === n)) { say(`${n} is already a consumer.`, "bad"); return; }
      const spec: Record<string, Json> = {};
      if (patterns(enabled.value).length) spec.enabled = patterns(enabled.value);
      if (patterns(disabled.value).length) spec.disabled = patterns(disabled.value);
      this.set(["consumers", n], spec, `the consumer ${n}`);
    };
    return el("div", {},
      el("table", { class: "vars", id: "st-consumers" },
        el("tr", {}, el("th", {}, "consumer"), el("th", {}, "only these skills"), el("th", {}, "all but these skills"), el("th", {})),
        ...rows),
      el("div", { class: "inline" }, name, enabled, disabled, el("button", { id: "st-add-consumer", onclick: add }, "Add a consumer")));
  }

  private draw(p: WorkspacePage): void {
    this.page = p;
    const problems = problemList(p.diagnostics);
    const page = byId("settings-page");
    // A save draws the form again: the field being typed in keeps its focus and what is typed.
    const typing = fieldBeingTyped(page);
    page.replaceChildren(
      el("h3", {}, "Workspace settings ", el("small", { class: "tech" }, p.file)),
      problems.length ? el("ul", { id: "st-problems", class: "diagnostics" }, ...problems) : "",
      el("h4", {}, "Languages ", el("small", { class: "tech" }, "locales")), this.languages(p),
      el("h4", {}, "Plans ", el("small", { class: "tech" }, "tiers")),
      el("p", { class: "hint" }, "Every plan is built for every client that takes it; a catalog over its plan's budget is an error."),
      this.plans(p),
      el("h4", {}, "Client tools the skills ship to ", el("small", { class: "tech" }, "targets")),
      el("p", { class: "hint" }, "Each declared tool's listing budget is metered in the preview and checked by every build (W124-W130)."),
      this.targets(p),
      el("h4", {}, "Routing ", el("small", { class: "tech" }, "routing")),
      el("p", { class: "hint" }, "Empty: the default. Clients can set their own in their client.yaml."),
      this.routing(p),
      el("h4", {}, "Parts of the agent with their own catalog filters ", el("small", { class: "tech" }, "consumers")),
      el("p", { class: "hint" }, "Patterns match a skill's qualified name (public.faq); * is any text. Only-these wins over all-but-these."),
      this.consumers(p));
    if (typing) typing.restore(page);
  }
}

/** The field of `page` that has the focus, found again in a page drawn anew (by its id or
 * its data attributes), with the text typed into it and not saved yet (an input's value
 * apart from the one it was drawn with) and where the caret was. */
function fieldBeingTyped(page: HTMLElement): { restore(page: HTMLElement): void } | null {
  const field = document.activeElement;
  if (!(field instanceof HTMLInputElement || field instanceof HTMLSelectElement) || !page.contains(field)) return null;
  const marks = [...field.attributes].filter((a) => a.name === "id" || a.name.startsWith("data-"));
  if (!marks.length) return null;
  const selector = field.tagName.toLowerCase() + marks.map((a) => `[${a.name}="${CSS.escape(a.value)}"]`).join("");
  const text = field instanceof HTMLInputElement && field.type !== "checkbox" && field.value !== field.defaultValue
    ? { value: field.value, start: field.selectionStart, end: field.selectionEnd } : null;
  return {
    restore(again: HTMLElement) {
      const found = again.querySelector(selector);
      if (!(found instanceof HTMLInputElement || found instanceof HTMLSelectElement)) return;
      if (text && found instanceof HTMLInputElement) {
        found.value = text.value;
        found.setSelectionRange(text.start, text.end);
        // A value set here is not the user's edit to the page: leaving the field would not
        // say it changed, and what was typed would not be saved.
        let said = false;
        found.addEventListener("change", () => { said = true; }, { once: true });
        found.addEventListener("blur", () => {
          if (!said && found.value !== found.defaultValue) found.dispatchEvent(new Event("change"));
        }, { once: true });
      }
      found.focus();
    },
  };
}

/** Warnings shown of each code before the rest are counted: a budget declared for 500 clients
 * gives one W124 a client, and the forms must stay in sight. */
const SHOWN_OF_A_CODE = 3;

/** The settings' diagnostics: every error, and the first few warnings of each code with how
 * many more there are. */
function problemList(diagnostics: WorkspacePage["diagnostics"]): HTMLElement[] {
  const line = (d: WorkspacePage["diagnostics"][number]) =>
    el("li", { class: d.severity }, `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`);
  const seen = new Map<string, number>();
  const hidden = new Map<string, number>();
  const out: HTMLElement[] = [];
  for (const d of diagnostics) {
    const n = (seen.get(d.code) ?? 0) + 1;
    seen.set(d.code, n);
    if (d.severity === "error" || n <= SHOWN_OF_A_CODE) out.push(line(d));
    else hidden.set(d.code, (hidden.get(d.code) ?? 0) + 1);
  }
  for (const [code, n] of hidden) {
    out.push(el("li", { class: "warning more", "data-more": code },
      `and ${n.toLocaleString("en")} more ${code} like these (skillc check lists them all)`));
  }
  return out;
}
