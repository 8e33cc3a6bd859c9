// The relations panel: what a skill is tied to, each name a link that opens it.
import type { ClientShare, Composition, Link, Reach, Relations } from "../api";
import { el } from "../dom";

function link(l: Link, open: (file: string) => void): HTMLElement {
  const label = l.client ? `${l.name} (${l.client})` : l.name;
  if (!l.file) return el("span", { class: "missing", title: "no skill has this name" }, label);
  const file = l.file;
  return el("a", { href: "#", "data-open": file, onclick: (e: Event) => { e.preventDefault(); open(file); } }, label);
}

function section(title: string, items: HTMLElement[]): HTMLElement | null {
  if (!items.length) return null;
  return el("div", { class: "rel" }, el("h4", {}, title), el("ul", {}, ...items.map((i) => el("li", {}, i))));
}

function composition(c: Composition, verb: Record<keyof Composition, string>, open: (f: string) => void): (HTMLElement | null)[] {
  return (Object.keys(verb) as (keyof Composition)[]).map((k) => section(verb[k], c[k].map((l) => link(l, open))));
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Who an edit of the skill reaches, in words, each other version a link: how many clients get
 * this text in every bundle, which get it in some bundles only or never (a variant takes its
 * place: which one, and in which tiers or locales), who uses their own version or has it turned
 * off, and the run-time conditions that keep it out of some conversations. */
export function renderReach(r: Reach, link: Link, open: (file: string) => void): HTMLElement {
  const some = r.partly.length ? `, ${r.partly.length} more in some of their bundles` : "";
  const who = link.client
    ? `Only ${link.client}'s visitors get this text${r.getting + r.partly.length ? "" : " (it is turned off for them)"}.`
    : `${plural(r.getting, "client gets", "clients get")} this text${some}, of ${r.clients}${r.global ? ", and visitors of no client" : ""}.`;
  const items: HTMLElement[] = [];
  for (const l of r.own_version) {
    items.push(el("li", {}, `${l.client} uses its own version instead: `, ownLink(l, open)));
  }
  for (const c of r.instead) items.push(el("li", { "data-client": c.client, class: "instead" }, ...instead(c, open)));
  for (const c of r.partly) items.push(el("li", { "data-client": c.client, class: "partly" }, ...partly(c, open)));
  for (const v of r.replaced_when) {
    const whose = v.link.client ? `${v.link.client}'s visitors get ` : "Visitors get ";
    const when = v.when.length ? ` when ${v.when.join(" and ")}` : "";
    items.push(el("li", {}, whose, ownLink(v.link, open), `${when}, and never see this one.`));
  }
  if (r.turned_off.length) items.push(el("li", {}, `Turned off for ${r.turned_off.join(", ")}.`));
  if (r.conditions.length) items.push(el("li", {}, `At run time, only where ${r.conditions.join(" and ")}.`));
  return el("div", { class: "reach" }, el("p", {}, who), items.length ? el("ul", {}, ...items) : "");
}

/** A client that never gets this text: the one it gets instead, or each with where. */
function instead(c: ClientShare, open: (file: string) => void): (HTMLElement | string)[] {
  if (c.shares.length === 1) return [`${c.client} always gets `, ownLink(c.shares[0].text, open), " instead."];
  return [`${c.client} never gets this text: `, ...places(c.shares, open), "."];
}

/** A client that gets this text in some bundles: where, and what it gets elsewhere. */
function partly(c: ClientShare, open: (file: string) => void): (HTMLElement | string)[] {
  const mine = c.shares.filter((s) => s.this).map((s) => s.place).join(", ");
  return [`${c.client} gets this text ${mine}; elsewhere `, ...places(c.shares.filter((s) => !s.this), open), "."];
}

function places(shares: ClientShare["shares"], open: (file: string) => void): (HTMLElement | string)[] {
  return shares.flatMap((s, i) => [i ? ", " : "", ownLink(s.text, open), ` ${s.place}`]);
}

function ownLink(l: Link, open: (file: string) => void): HTMLElement {
  const file = l.file;
  if (!file) return el("span", {}, l.name);
  return el("a", { href: "#", "data-open": file, onclick: (e: Event) => { e.preventDefault(); open(file); } }, l.name);
}

export function renderRelations(r: Relations, open: (file: string) => void): HTMLElement {
  const parts: (HTMLElement | null)[] = [
    r.variant_of ? section("Variant of", [link(r.variant_of, open)]) : null,
    section("Variants (tried in this order: the first whose conditions hold wins)", r.variants.map((v) =>
      el("span", {}, link(v.link, open), ` — ${v.when.length ? `when ${v.when.join(" and ")}` : "always"}, priority ${v.priority}`))),
    r.overrides ? section("Replaces, for its client", [link(r.overrides, open)]) : null,
    section("Replaced by client skills", r.overridden_by.map((l) => link(l, open))),
    section("Toggled by clients", r.toggled_by.map((t) => el("span", {}, `${t.client}: ${t.enabled ? "on" : "off"}`))),
    ...composition(r.uses, { dependencies: "Depends on", augments: "Augments", blocks: "Blocks", imports: "Imports" }, open),
    ...composition(r.used_by, { dependencies: "Needed by", augments: "Augmented by", blocks: "Blocked by", imports: "Imported by" }, open),
    section("Hidden from consumers", r.hidden_by.map((c) => el("span", {}, c))),
  ];
  const shown = parts.filter((p): p is HTMLElement => p !== null);
  // Whose skill it is, in words; the qualified name (which says only its namespace) beside.
  const whose = r.variant_of ? `a variant of ${r.variant_of.name}, used in its place where its conditions hold`
    : r.link.client ? `${r.link.client}'s own skill` : "a skill every client gets unless it has its own";
  const title = el("p", { class: "qualified" }, `${r.link.name}: ${whose} `, el("small", {}, `(${r.qualified_name})`));
  const reach = el("div", { class: "rel" }, el("h4", {}, "Who an edit reaches"), renderReach(r.reach, r.link, open));
  return el("div", {}, title, r.plugin ? pluginPart(r.plugin) : "", r.external ? externalPart(r.external) : "", reach, ...shown);
}

/** Where an outside skill comes from: the repository, the rev and the commit skillc.lock pins,
 * and whether its code is trusted. Edits belong in that repository: `skillc fetch` replaces
 * the stored copy. */
function externalPart(e: NonNullable<Relations["external"]>): HTMLElement {
  const commit = e.commit ? `commit ${e.commit.slice(0, 12)}` : "not fetched yet";
  return el("div", { class: "rel external" }, el("h4", {}, "From another repository"),
    el("p", {}, el("b", {}, e.git), ` at ${e.rev} (${commit})${e.path ? `, folder ${e.path}` : ""}.`),
    el("p", {}, e.trust ? "Its code is trusted (trust: true)." : "Its code is prompt-only: scripts are not run or marked executable."),
    el("p", {}, el("small", {}, `Pinned in skillc.lock; change it in that repository, then run skillc fetch --update ${e.into}.`)));
}

/** Where a plugin's skill comes from: the plugin, its version and author, what it is for. */
function pluginPart(p: NonNullable<Relations["plugin"]>): HTMLElement {
  const about = [p.version ? `version ${p.version}` : "", p.author ? `by ${p.author}` : ""].filter((x) => x).join(", ");
  return el("div", { class: "rel plugin" }, el("h4", {}, "From a Claude Code plugin"),
    el("p", {}, el("b", {}, p.name), about ? ` (${about})` : "", p.description ? `: ${p.description}` : ""),
    el("p", {}, el("small", {}, `Declared in ${p.manifest}; its skills are named ${p.name}:<skill>.`)));
}
