// The skill list on the left: grouped by scope and category, filtered by the search box.
import type { Overview } from "../api";
import { byId, el } from "../dom";

export function renderSkillList(o: Overview, selected: string | null, open: (file: string) => void): void {
  const q = byId<HTMLInputElement>("search").value.trim().toLowerCase();
  const list = byId("skill-list");
  const errors = new Map<string, number>();
  for (const d of o.diagnostics) if (d.severity === "error") errors.set(d.file, (errors.get(d.file) ?? 0) + 1);
  const groups = new Map<string, typeof o.skills>();
  for (const s of o.skills) {
    const hay = `${s.name} ${s.description} ${s.category} ${s.client} ${s.namespace}`.toLowerCase();
    if (q && !hay.includes(q)) continue;
    const key = `${s.client ? `Client ${s.client}` : "Global"} › ${s.category || s.namespace}`;
    const g = groups.get(key) ?? [];
    g.push(s);
    groups.set(key, g);
  }
  const global = (k: string) => k.startsWith("Global");
  const keys = [...groups.keys()].sort((a, b) => (global(a) === global(b) ? a.localeCompare(b) : global(a) ? -1 : 1));
  const children: HTMLElement[] = [];
  for (const key of keys) {
    children.push(el("h4", {}, key));
    const skills = (groups.get(key) ?? []).sort((a, b) => a.name.localeCompare(b.name));
    children.push(el("ul", {}, ...skills.map((s) => {
      const n = errors.get(s.file) ?? 0;
      return el("li", { class: s.file === selected ? "selected" : "", "data-file": s.file, title: s.description, onclick: () => open(s.file) },
        s.name, n ? el("span", { class: "badge" }, n) : "");
    })));
  }
  if (!keys.length) children.push(el("p", { class: "empty" }, "No skill matches."));
  list.replaceChildren(...children);
}
