// The Preview tab: what a client sees for a request, read from the built artifact.
import MarkdownIt from "markdown-it";
import { api, errorText, type Overview, type PreviewRequest } from "../api";
import { byId, el } from "../dom";

const md = new MarkdownIt({ html: false, linkify: true });
const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value;

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
}

export async function runPreview(): Promise<void> {
  byId("pv-error").hidden = true;
  const request: PreviewRequest = {
    client: value("pv-client"), locale: value("pv-locale"), tier: value("pv-tier"), consumer: value("pv-consumer"),
    page_url: value("pv-url").trim(), turn: value("pv-turn").trim(),
    selected: value("pv-selected").split(",").map((s) => s.trim()).filter(Boolean),
    format: value("pv-format"),
  };
  try {
    const p = await api.preview(request);
    byId("pv-catalog").textContent = p.catalog.text;
    byId("pv-catalog-tokens").textContent = `${p.catalog.skills.length} skills, ${p.catalog.tokens} tokens`;
    byId("pv-catalog-rendered").innerHTML = request.format === "markdown" ? md.render(p.catalog.text) : "";
    byId("pv-prompt").textContent = p.prompt.text;
    byId("pv-prompt-rendered").innerHTML = md.render(p.prompt.text);
    byId("pv-prompt-tokens").textContent = `${p.prompt.tokens} tokens`;
    const rows = [el("tr", {}, el("th", {}, "skill"), el("th", {}, "content"), el("th", {}, "reason"))];
    for (const s of p.prompt.skills) rows.push(el("tr", { class: "in" }, el("td", {}, s.name), el("td", {}, s.resolved), el("td", {}, s.reason)));
    for (const s of p.prompt.removed) rows.push(el("tr", { class: "out" }, el("td", {}, s.name), el("td", {}, "—"), el("td", {}, s.reason)));
    byId("pv-reasons").replaceChildren(...rows);
    byId("pv-sources").replaceChildren(...p.prompt.sources.map((s) => el("li", {}, `[${s.sid}] ${s.title ?? ""} `, el("code", {}, s.url))));
  } catch (e) {
    byId("pv-error").hidden = false;
    byId("pv-error").textContent = errorText(e);
  }
}
