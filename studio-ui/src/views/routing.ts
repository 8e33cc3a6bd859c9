// The Routing view: after each build, how often each client's messages reach the right skill
// (a bar per client, worst first), the confusions of the chosen one with their messages, and
// the trigger examples that route to another skill, each a click from its editor.
import { api, errorText, type BundleEval, type RoutingView } from "../api";
import { byId, el } from "../dom";

const SHOWN_ELSEWHERE = 300;
const pct = (x: number) => `${Math.round(x * 100)}%`;
const who = (b: BundleEval) => b.client ?? "Everyone (global)";

export class RoutingPanel {
  private view: RoutingView | null = null;
  private chosen: string | null = null;

  constructor(private readonly open: (file: string, line: number) => void) {}

  /** Measures the last build and draws the view. */
  async show(): Promise<void> {
    byId("rt-summary").textContent = "Measuring…";
    try {
      this.view = await api.routing();
      this.render();
    } catch (e) {
      byId("rt-summary").textContent = errorText(e);
    }
  }

  private render(): void {
    const v = this.view;
    if (!v) return;
    const measured = v.bundles.length - 1;
    const worst = [...v.bundles].sort((a, b) => a.recall_at_k - b.recall_at_k || who(a).localeCompare(who(b)));
    const global = v.bundles[0];
    byId("rt-summary").textContent =
      `Everyone: the right skill is first for ${pct(global.recall_at_1)} of ${global.positives} messages and among the first ${global.k} for ${pct(global.recall_at_k)}.` +
      (measured < v.clients ? ` ${measured} of ${v.clients} clients measured here (time limit); skillc eval measures them all.` : "");
    byId("rt-chart").replaceChildren(...worst.map((b) => {
      const name = b.client ?? "";
      return el("button", {
        class: `rt-bar${name === (this.chosen ?? "") ? " chosen" : ""}`, "data-client": name,
        title: `first ${pct(b.recall_at_1)} · among the first ${b.k} ${pct(b.recall_at_k)} · ${b.positives} messages`,
        onclick: () => { this.chosen = name; this.render(); },
      },
      el("span", { class: "rt-name" }, who(b)),
      el("span", { class: "rt-track" },
        el("span", { class: "rt-fill-k", style: `width:${pct(b.recall_at_k)}` }),
        el("span", { class: "rt-fill-1", style: `width:${pct(b.recall_at_1)}` })),
      el("span", { class: "rt-value" }, `${pct(b.recall_at_k)} found · ${pct(b.recall_at_1)} first`));
    }));
    const chosen = v.bundles.find((b) => (b.client ?? "") === (this.chosen ?? "")) ?? global;
    byId("rt-confusions-title").textContent = `Messages that reach another skill first: ${who(chosen)}`;
    byId("rt-confusions").replaceChildren(
      el("tr", {}, el("th", {}, "Should reach"), el("th", {}, "Reaches first"), el("th", {}, "How many"), el("th", {}, "Messages")),
      ...chosen.confusions.map((c) => el("tr", { class: "rt-confusion" },
        el("td", {}, c.expected), el("td", {}, c.got ?? "no skill"), el("td", {}, c.count),
        el("td", {}, c.examples.map((m) => `“${m}”`).join(" · ")))));
    // Drawn up to a few hundred: a generated workspace can have thousands (check lists all).
    const shown = v.elsewhere.slice(0, SHOWN_ELSEWHERE);
    const more = v.elsewhere.length - shown.length;
    byId("rt-elsewhere").replaceChildren(...shown.map((d) =>
      el("li", {},
        el("a", { href: "#", class: "rt-open", "data-file": d.file, onclick: (e: Event) => { e.preventDefault(); this.open(d.file, d.line); } },
          d.file.split("/").slice(-2, -1)[0] ?? d.file),
        " ", d.message)),
      more > 0 ? el("li", {}, `and ${more.toLocaleString("en")} more (skillc check lists them all)`) : "");
    if (v.elsewhere.length === 0) byId("rt-elsewhere").replaceChildren(el("li", {}, "None: every trigger example reaches its own skill first."));
  }
}
