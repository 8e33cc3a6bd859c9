// The Routing view: after each build, how often each client's messages reach the right skill
// (a bar per client, worst first), the confusions of the chosen one with their messages, and
// the trigger examples that route to another skill, each a click from its editor.
import { api, errorText, type BundleEval, type RoutingView } from "../api";
import { byId, el } from "../dom";
import { Turns } from "../turns";

const SHOWN_ELSEWHERE = 300;
const pct = (x: number) => `${Math.round(x * 100)}%`;
const who = (b: BundleEval) => b.client ?? "Everyone (global)";

/** A bundle's messages with a skill to reach, split three ways: the right skill first,
 * another skill first, no skill at all (each message counted once, in its confusion). */
export function outcomes(b: BundleEval): { right: number; other: number; none: number } {
  const none = b.confusions.filter((c) => c.got === null).reduce((n, c) => n + c.count, 0);
  const other = b.confusions.filter((c) => c.got !== null).reduce((n, c) => n + c.count, 0);
  return { right: Math.max(0, b.positives - none - other), other, none };
}

const share = (n: number, of: number) => (of ? pct(n / of) : "–");
/** A bundle's figure, or – when it has no message to measure (the backend counts 1 there). */
const figure = (b: BundleEval, x: number) => (b.positives ? pct(x) : "–");

/** Clients measured a call: each takes about half a second on a thousand-skill catalog, and the
 * view is drawn again after each call. */
const CLIENTS_A_CALL = 4;

export class RoutingPanel {
  private view: RoutingView | null = null;
  private chosen: string | null = null;
  /** Each show() takes a turn of measuring; an older one, still running, stops at its next
   * call. */
  private readonly measuring = new Turns();

  constructor(private readonly open: (file: string, line: number) => void) {}

  /** Measures the last build and draws the view: the global bundle at once, then the
   * clients a few at a time, worst first among those measured, while the view is shown. */
  async show(): Promise<void> {
    const run = this.measuring.take();
    byId("rt-summary").textContent = "Measuring…";
    try {
      const view = await api.routing();
      if (!this.measuring.isLatest(run)) return;
      this.view = view;
      this.render();
      while (this.measuring.isLatest(run) && view.bundles.length - 1 < view.clients && !byId("tab-routing").hidden) {
        const more = await api.routingClients(view.bundles.length - 1, CLIENTS_A_CALL);
        if (!this.measuring.isLatest(run) || more.length === 0) break;
        view.bundles.push(...more);
        this.render();
      }
    } catch (e) {
      if (this.measuring.isLatest(run)) byId("rt-summary").textContent = errorText(e);
    }
  }

  private render(): void {
    const v = this.view;
    if (!v) return;
    const measured = v.bundles.length - 1;
    const worst = [...v.bundles].sort((a, b) => a.recall_at_k - b.recall_at_k || who(a).localeCompare(who(b)));
    const global = v.bundles[0];
    const all = outcomes(global);
    const everyone = global.positives
      ? `Everyone: of ${global.positives} messages, ${share(all.right, global.positives)} reach the right skill first, ` +
        `${share(all.other, global.positives)} another skill first and ${share(all.none, global.positives)} no skill at all; ` +
        `the right skill is among the first ${global.k} for ${pct(global.recall_at_k)}.`
      : "Everyone: no trigger example and no routing case to measure yet (below: where each skill's own description goes).";
    byId("rt-summary").replaceChildren(
      el("p", {}, everyone +
        (measured < v.clients ? ` Clients measured so far: ${measured} of ${v.clients} (about half a second each on a catalog of a thousand skills); the chart fills in while this view is open.`
          : v.clients ? ` All ${v.clients} clients measured.` : "")),
      el("p", { class: "hint" }, "Each trigger example is routed as if its own skill did not hold it: a short example that shares " +
        "few words with its skill's description and its other examples reaches no skill, although the same words in a routing " +
        "case with more context may pass. The routing cases of tests/*.yaml are routed as written."));
    byId("rt-chart").replaceChildren(...worst.map((b) => {
      const name = b.client ?? "";
      const o = outcomes(b);
      return el("button", {
        class: `rt-bar${name === (this.chosen ?? "") ? " chosen" : ""}`, "data-client": name,
        title: `first ${figure(b, b.recall_at_1)} · among the first ${b.k} ${figure(b, b.recall_at_k)} · ${b.positives} messages`,
        onclick: () => { this.chosen = name; this.render(); },
      },
      el("span", { class: "rt-name" }, who(b)),
      el("span", { class: "rt-track" },
        // Nothing measured draws an empty track, not a full one.
        el("span", { class: "rt-fill-k", style: `width:${b.positives ? pct(b.recall_at_k) : "0%"}` }),
        el("span", { class: "rt-fill-1", style: `width:${b.positives ? pct(b.recall_at_1) : "0%"}` })),
      el("span", { class: "rt-value" },
        `${share(o.right, b.positives)} right · ${share(o.other, b.positives)} another skill · ${share(o.none, b.positives)} no skill`));
    }));
    const chosen = v.bundles.find((b) => (b.client ?? "") === (this.chosen ?? "")) ?? global;
    const table = (rows: BundleEval["confusions"], got: boolean) => [
      el("tr", {}, el("th", {}, "Should reach"), ...(got ? [el("th", {}, "Reaches first")] : []), el("th", {}, "How many"), el("th", {}, "Messages")),
      ...rows.map((c) => el("tr", { class: "rt-confusion" },
        el("td", {}, c.expected), ...(got ? [el("td", {}, c.got ?? "")] : []), el("td", {}, c.count),
        el("td", {}, c.examples.map((m) => `“${m}”`).join(" · "))))];
    const wrong = chosen.confusions.filter((c) => c.got !== null);
    const none = chosen.confusions.filter((c) => c.got === null);
    byId("rt-confusions-title").textContent = `Messages that reach another skill first: ${who(chosen)}`;
    byId("rt-confusions-why").textContent = wrong.length
      ? "The other skill's description, when_to_use or examples are closer to these messages: say in the two descriptions what tells them apart, or give the right skill an example worded like them."
      : "None.";
    byId("rt-confusions").replaceChildren(...(wrong.length ? table(wrong, true) : []));
    byId("rt-none-title").textContent = `Messages that reach no skill: ${who(chosen)}`;
    byId("rt-none-why").textContent = none.length
      ? "They score under the route's cut: they share too few words and too little meaning with what the skill says of itself. An agent would answer them without a skill. Give the skill a when_to_use line or an example worded like them."
      : "None: every message reaches some skill.";
    byId("rt-none").replaceChildren(...(none.length ? table(none, false) : []));
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
    this.renderDescribed(v);
  }

  /** Skills with no trigger example to measure: where their own description routes. */
  private renderDescribed(v: RoutingView): void {
    const own = v.described.filter((d) => d.first === d.skill).length;
    const lost = v.described.filter((d) => d.first !== d.skill);
    byId("rt-described-why").textContent = v.described.length === 0
      ? "None: every skill of the global catalog has trigger examples."
      : `${own} of ${v.described.length} skills without trigger examples reach themselves first when their description is the message. ` +
        (lost.length ? "The others are nearer another skill, or under the cut, by their own words: say what sets them apart, or give them examples." : "");
    byId("rt-described").replaceChildren(...(lost.length ? [
      el("tr", {}, el("th", {}, "Skill"), el("th", {}, "Its description reaches first"), el("th", {}, "Description")),
      ...lost.map((d) => el("tr", { class: "rt-described", "data-skill": d.skill },
        el("td", {}, d.skill), el("td", {}, d.first ?? "no skill"), el("td", {}, `“${d.description}”`)))] : []));
  }
}
