// The Settings tab: the workspace's own settings (workspace.yaml) as a form. Its languages
// (add one, remove one, the default), its plans, the client tools it ships to (their budgets
// meter each catalog) and how messages are routed. Every edit changes one value of
// workspace.yaml, losslessly, and the workspace is built again.
import { api, type Json, type WorkspacePage } from "../api";
import { byId, el } from "../dom";
import { fail, say } from "../status";

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

export class SettingsView {
  constructor(private readonly hooks: SettingsHooks) {}

  async show(): Promise<void> {
    this.draw(await api.workspacePage());
  }

  private set(path: string[], value: Json | undefined, what: string): void {
    api.setWorkspaceValue(path, value).then((p) => {
      say(`Saved ${what} in ${p.file}`, p.diagnostics.some((d) => d.severity === "error") ? "bad" : "good");
      this.draw(p);
      this.hooks.changed();
    }).catch(fail);
  }

  private languages(p: WorkspacePage): HTMLElement {
    const items = p.locales.map((l) => el("li", { "data-locale": l }, l,
      l === p.default_locale ? el("small", {}, " · the default") : el("button", { class: "small", title: `Stop building ${l}`,
        onclick: () => this.set(["locales"], p.locales.filter((x) => x !== l), `languages without ${l}`) }, "Remove")));
    const input = el("input", { id: "st-new-locale", placeholder: "de, or pt-br", size: "8" });
    const add = () => {
      const l = input.value.trim();
      if (!l) return;
      if (p.locales.includes(l)) { say(`${l} is already a language of this workspace.`, "bad"); return; }
      this.set(["locales"], [...p.locales, l], `the language ${l}`);
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
          const names = box.checked ? [...p.targets, t] : p.targets.filter((x) => x !== t);
          this.set(["targets"], names, `the client tools ${names.join(", ") || "(none)"}`);
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

  private draw(p: WorkspacePage): void {
    const problems = p.diagnostics.map((d) => el("li", { class: d.severity }, `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`));
    const plans = p.tiers.map((t) => el("li", {}, t.name,
      el("small", {}, t.catalog_token_budget === null ? " · no catalog budget" : ` · catalog budget ${t.catalog_token_budget} tokens`)));
    byId("settings-page").replaceChildren(
      el("h3", {}, "Workspace settings ", el("small", { class: "tech" }, p.file)),
      problems.length ? el("ul", { id: "st-problems", class: "diagnostics" }, ...problems) : "",
      el("h4", {}, "Languages ", el("small", { class: "tech" }, "locales")), this.languages(p),
      el("h4", {}, "Plans ", el("small", { class: "tech" }, "tiers")), el("ul", { id: "st-tiers" }, ...plans),
      el("h4", {}, "Client tools the skills ship to ", el("small", { class: "tech" }, "targets")),
      el("p", { class: "hint" }, "Each declared tool's listing budget is metered in the preview and checked by every build (W124-W130)."),
      this.targets(p),
      el("h4", {}, "Routing ", el("small", { class: "tech" }, "routing")),
      el("p", { class: "hint" }, "Empty: the default. Clients can set their own in their client.yaml."),
      this.routing(p),
      el("h4", {}, "Parts of the agent with their own catalog filters ", el("small", { class: "tech" }, "consumers")),
      el("p", {}, p.consumers.length ? p.consumers.join(", ") : "None."));
  }
}
