// Catalogs and prompts of one snapshot, step for step as the Rust runtime
// (compiler/runtime/src/lib.rs and select.rs): the same members, texts, reasons and tokens.

import type { Bundle, Skill, SourceRef } from "./artifact.js";
import { Snapshot } from "./artifact.js";
import type { Context } from "./context.js";

/** A catalog format. */
export type Format = "xml" | "markdown" | "list" | "json";

/** One catalog line. */
export interface CatalogSkill {
  id: string;
  name: string;
  qualified_name: string;
  category: string;
  description: string;
  triggers: string[];
  /** The Claude Code plugin it comes from, when it is a plugin's skill. */
  plugin?: Plugin;
  /** The outside repository it comes from (`workspace.yaml` `external:`), if any. */
  external?: External;
}

/** Where an outside skill comes from (manifest `external`). */
export interface External {
  into: string;
  git: string;
  rev: string;
  commit: string;
  trusted: boolean;
}

/** The outside repository the skill whose SKILL.md is at `location` comes from, or undefined. */
export function externalOf(manifest: Map<string, string>, location: string): External | undefined {
  const text = manifest.get("external");
  if (text === undefined) return undefined;
  for (const [into, about] of Object.entries(JSON.parse(text) as Record<string, Record<string, unknown>>)) {
    if (!location.startsWith(`${into}/`)) continue;
    const str = (k: string) => (typeof about[k] === "string" ? (about[k] as string) : "");
    return { into, git: str("git"), rev: str("rev"), commit: str("commit"), trusted: about.trusted === true };
  }
  return undefined;
}

/** A Claude Code plugin's metadata (manifest `plugins`). */
export interface Plugin {
  name: string;
  version: string | null;
  description: string | null;
  author: string | null;
}

/** The plugin a skill named `<plugin>:<skill>` comes from, or undefined. */
export function pluginOf(manifest: Map<string, string>, name: string): Plugin | undefined {
  const at = name.indexOf(":");
  const text = manifest.get("plugins");
  if (at < 0 || text === undefined) return undefined;
  const plugin = name.slice(0, at);
  const about = (JSON.parse(text) as Record<string, Record<string, unknown>>)[plugin];
  if (about === undefined) return undefined;
  const str = (k: string) => (typeof about[k] === "string" ? (about[k] as string) : null);
  return { name: plugin, version: str("version"), description: str("description"), author: str("author") };
}

/** A catalog of a bundle for a consumer and context. */
export interface Catalog {
  release: string | null;
  client: string | null;
  locale: string;
  tier: string;
  consumer: string | null;
  skills: CatalogSkill[];
  text: string;
  /** Tokens of the text (sum of the stored counts of its parts). */
  tokens: number;
}

/** A skill in the prompt and why. */
export interface PromptSkill {
  name: string;
  resolved: string;
  reason: string;
}

/** A skill left out and why. */
export interface Removed {
  name: string;
  reason: string;
}

/** An assembled prompt. */
export interface Prompt {
  skills: PromptSkill[];
  removed: Removed[];
  sources: SourceRef[];
  text: string;
  tokens: number;
}

/** A manifest count, when it is one (as Rust's `parse::<usize>().ok()`). */
function count(value: string | undefined): number | undefined {
  return value !== undefined && /^\+?[0-9]+$/.test(value) ? Number(value) : undefined;
}

/** Indices of the skills a catalog shows, in order. */
export function catalogMembers(snap: Snapshot, b: Bundle, consumer: string | null, ctx: Context): number[] {
  const hidden = snap.hiddenFor(consumer);
  const out: number[] = [];
  b.skills.forEach((s, i) => {
    if (s.catalogVisible && !hidden?.has(s.qualifiedName) && snap.conditionsHold(s, ctx)) out.push(i);
  });
  return out;
}

/**
 * The catalog of a bundle in a format, kept per bundle, consumer, format and outcome of the
 * skills' conditions (all a catalog depends on): a warm lookup evaluates the conditions only.
 * The result is shared between calls: treat it as read-only.
 */
export function catalog(snap: Snapshot, b: Bundle, consumer: string | null, ctx: Context, format: Format): Catalog {
  const hidden = snap.hiddenFor(consumer);
  b.conditional ??= b.skills.filter((s) => s.catalogVisible && s.rawRecord.includes('"conditions"'));
  let outcome = "";
  for (const s of b.conditional) {
    if (!hidden?.has(s.qualifiedName)) outcome += snap.conditionsHold(s, ctx) ? "1" : "0";
  }
  const key = JSON.stringify([consumer, format, outcome]);
  let c = b.catalogs.get(key) as Catalog | undefined;
  if (!c) {
    c = render(snap, b, consumer, ctx, format);
    b.catalogs.set(key, c);
  }
  return c;
}

function render(snap: Snapshot, b: Bundle, consumer: string | null, ctx: Context, format: Format): Catalog {
  const members = catalogMembers(snap, b, consumer, ctx);
  const maxTriggers = count(snap.manifest.get("max_triggers")) ?? 5;
  const skills: CatalogSkill[] = members.map((i, n) => {
    const s = b.skills[i];
    return {
      id: `SK${n + 1}`,
      name: s.name,
      qualified_name: s.qualifiedName,
      category: s.category,
      description: s.description,
      triggers: s.triggers.slice(0, maxTriggers),
      ...(pluginOf(snap.manifest, s.name) ? { plugin: pluginOf(snap.manifest, s.name) } : {}),
      ...(snap.manifest.has("external") && externalOf(snap.manifest, snap.record(s).resolved_file ?? "")
        ? { external: externalOf(snap.manifest, snap.record(s).resolved_file ?? "") }
        : {}),
    };
  });
  const texts = snap.cardTexts(b, format === "json" ? "markdown" : format);
  const card = (i: number) => texts.get(b.skills[i].card) ?? ["", 0];
  let text = "";
  let tokens = 0;
  if (format === "markdown") {
    let current: string | undefined;
    members.forEach((i, n) => {
      const s = b.skills[i];
      if (current !== s.category) {
        if (current !== undefined) text += "\n";
        const c = snap.categories.get(s.category);
        if (c) {
          text += c.catalogHeader[0];
          tokens += c.catalogHeader[1];
        }
        current = s.category;
      }
      const [t, k] = card(i);
      text += `| SK${n + 1} ${t}`;
      tokens += k + 4;
    });
  } else if (format === "json") {
    text = JSON.stringify(skills.map((s) => ({ id: s.id, name: s.name, description: s.description, triggers: s.triggers })));
    tokens = members.reduce((sum, i) => sum + card(i)[1], 0);
  } else {
    if (format === "xml") {
      text = "<available_skills>\n";
      tokens = 8;
    }
    for (const i of members) {
      const [t, k] = card(i);
      text += t;
      tokens += k;
    }
    if (format === "xml") text += "</available_skills>";
  }
  return {
    release: snap.manifest.get("release") ?? null,
    client: b.client === "" ? null : b.client,
    locale: b.locale,
    tier: b.tier,
    consumer,
    skills,
    text,
    tokens,
  };
}

/** Whether a skill can go into a prompt: not unavailable, its conditions hold. */
function usable(snap: Snapshot, s: Skill, ctx: Context): string | null {
  if (s.unavailable !== null) return "unavailable";
  return snap.conditionsHold(s, ctx) ? null : "condition";
}

/** For each skill, the skills whose `augments` name it. */
function augmentedBy(snap: Snapshot, b: Bundle): number[][] {
  if (!b.augmentedBy) {
    const by: number[][] = b.skills.map(() => []);
    b.skills.forEach((s, j) => {
      for (const q of snap.record(s).augments ?? []) {
        const i = b.byQualified.get(q);
        if (i !== undefined) by[i].push(j);
      }
    });
    b.augmentedBy = by;
  }
  return b.augmentedBy;
}

/** The index of a skill by name, qualified name or `skills.ns.name`. */
function position(b: Bundle, name: string): number | undefined {
  let n = name.trim();
  if (n.startsWith("skills.")) n = n.slice("skills.".length);
  return b.byName.get(n);
}

/** `SK<n>` as Rust's `usize` parse reads the digits (an optional `+`, leading zeros). */
function catalogId(name: string): number | undefined {
  const m = /^SK\+?([0-9]+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

class Selection {
  order: number[] = [];
  reason = new Map<number, string>();
  removed: Removed[] = [];

  constructor(
    readonly snap: Snapshot,
    readonly b: Bundle,
    readonly ctx: Context,
  ) {}

  add(i: number, why: string): void {
    if (!this.reason.has(i)) {
      this.order.push(i);
      this.reason.set(i, why);
    }
  }

  remove(i: number, why: string): void {
    if (this.reason.delete(i)) {
      this.order = this.order.filter((x) => x !== i);
      this.removed.push({ name: this.b.skills[i].name, reason: why });
    }
  }

  leftOut(name: string, why: string): void {
    this.removed.push({ name, reason: why });
  }

  /** 1-2. The picked names that exist, are shown and usable, up to the cap. */
  pick(picked: string[], shown: number[], hidden: Set<string> | undefined, cap: number): void {
    const ok: number[] = [];
    for (const name of picked) {
      const id = catalogId(name);
      const i = id !== undefined ? (id >= 1 ? shown[id - 1] : undefined) : position(this.b, name);
      if (i === undefined) {
        // A skill the build turned off for this client is `disabled`, not unknown.
        const bare = name.trim().replace(/^skills\./, "");
        this.leftOut(name, this.b.disabled.has(bare) ? "disabled" : "unknown");
        continue;
      }
      const s = this.b.skills[i];
      const why = usable(this.snap, s, this.ctx);
      if (!s.catalogVisible || hidden?.has(s.qualifiedName)) this.leftOut(s.name, "hidden");
      else if (why !== null) this.leftOut(s.name, why);
      else if (!ok.includes(i)) ok.push(i);
    }
    ok.forEach((i, n) => {
      if (n < cap) this.add(i, "selected");
      else this.leftOut(this.b.skills[i].name, "max_active");
    });
  }

  /** What the included skills bring along: dependencies, augments (both ways), imports. */
  links(): [number, string][] {
    const out: [number, string][] = [];
    const by = augmentedBy(this.snap, this.b);
    for (const i of this.order) {
      const s = this.b.skills[i];
      const r = this.snap.record(s);
      const kinds: [string[] | undefined, string][] = [
        [r.dependencies, "dependency"],
        [r.augments, "augments"],
        [r.imports, "import"],
      ];
      for (const [names, kind] of kinds) {
        for (const q of names ?? []) {
          const j = this.b.byQualified.get(q);
          if (j !== undefined) out.push([j, `${kind}:${s.name}`]);
        }
      }
      for (const j of by[i]) out.push([j, `augments:${s.name}`]);
    }
    return out;
  }

  /** 3. Links, transitively, until nothing changes. */
  closeOverLinks(): void {
    const tried = new Set<string>();
    for (;;) {
      let changed = false;
      for (const [j, why] of this.links()) {
        const key = `${j}\u0000${why}`;
        if (this.reason.has(j) || tried.has(key)) continue;
        tried.add(key);
        const s = this.b.skills[j];
        const err = usable(this.snap, s, this.ctx);
        if (err === null) {
          this.add(j, why);
          changed = true;
        } else if (!this.removed.some((r) => r.name === s.name)) {
          this.leftOut(s.name, err);
        }
      }
      if (!changed) return;
    }
  }

  /** 4. Category priority and exclusivity, strongest first. */
  applyExclusivity(): void {
    const rec = (i: number) => this.snap.record(this.b.skills[i]);
    const exclusive = this.order
      .filter((i) => rec(i).exclusive === true && typeof rec(i).priority === "number")
      .sort((x, y) => (rec(x).priority as number) - (rec(y).priority as number) || x - y);
    for (const x of exclusive) {
      if (!this.reason.has(x)) continue;
      const cat = this.b.skills[x].category;
      const p = rec(x).priority as number;
      const weaker = this.order.filter(
        (i) => i !== x && this.b.skills[i].category === cat && typeof rec(i).priority === "number" && (rec(i).priority as number) > p,
      );
      for (const i of weaker) this.remove(i, `excluded:${this.b.skills[x].name}`);
    }
  }

  /** 5. Always-on skills whose conditions hold. */
  addAlwaysOn(): void {
    this.b.skills.forEach((s, i) => {
      if (s.alwaysOn && s.unavailable === null && this.snap.conditionsHold(s, this.ctx)) this.add(i, "always_on");
    });
  }

  /** 6. Blocks, last, over everything. */
  applyBlocks(): void {
    const blocked: [number, string][] = [];
    for (const i of this.order) {
      for (const q of this.snap.record(this.b.skills[i]).blocks ?? []) {
        const j = this.b.byQualified.get(q);
        if (j !== undefined) blocked.push([j, this.b.skills[i].name]);
      }
    }
    for (const [j, by] of blocked) this.remove(j, `blocked:${by}`);
  }

  /** 7. Categories in order, skills in catalog order, then the cited sources. */
  assemble(): Prompt {
    const { snap, b } = this;
    const pos = (i: number) => snap.categories.get(b.skills[i].category)?.position ?? Number.MAX_VALUE;
    const included = [...this.order].sort((x, y) => pos(x) - pos(y) || x - y);
    let text = "";
    let tokens = 0;
    const cited = new Set<number>();
    for (let k = 0; k < included.length; ) {
      const cat = b.skills[included[k]].category;
      let end = k;
      while (end < included.length && b.skills[included[end]].category === cat) end++;
      const c = snap.categories.get(cat);
      if (c) {
        text += c.promptHeading[0];
        tokens += c.promptHeading[1];
        if (end - k > 1) {
          text += c.uncertainty[0];
          tokens += c.uncertainty[1];
        }
      }
      for (const i of included.slice(k, end)) {
        const s = b.skills[i];
        text += s.promptPrefix + (s.promptBody ? snap.body(s) : "") + s.promptSuffix;
        tokens += s.promptTokens;
        for (const sid of snap.record(s).cited ?? []) cited.add(sid);
      }
      k = end;
    }
    const sources: SourceRef[] = [];
    if (cited.size > 0) {
      text += "## Sources\n\n";
      tokens += 3;
      const pool = snap.sourcePool();
      for (const sid of [...cited].sort((x, y) => x - y)) {
        const source = pool.get(sid);
        if (source) {
          text += source[1];
          tokens += source[2];
          sources.push(source[0]);
        }
      }
    }
    const skills = included.map((i) => ({
      name: b.skills[i].name,
      resolved: b.skills[i].resolvedName,
      reason: this.reason.get(i) as string,
    }));
    // Each skill's final state, once: in if it was brought back, else its first removal.
    const removed: Removed[] = [];
    for (const r of this.removed) {
      if (!skills.some((s) => s.name === r.name) && !removed.some((x) => x.name === r.name)) removed.push(r);
    }
    return { skills, removed, sources, text: text.trimEnd() + "\n", tokens };
  }
}

/** The answer prompt for the skills a selector picked (names, qualified names or `SKn`). */
export function prompt(snap: Snapshot, b: Bundle, consumer: string | null, ctx: Context, picked: string[]): Prompt {
  const hidden = snap.hiddenFor(consumer);
  const shown = catalogMembers(snap, b, consumer, ctx);
  const cap = count(snap.manifest.get("max_active_skills")) ?? Number.MAX_SAFE_INTEGER;
  const sel = new Selection(snap, b, ctx);
  sel.pick(picked, shown, hidden, cap);
  sel.closeOverLinks();
  sel.applyExclusivity();
  sel.addAlwaysOn();
  sel.applyBlocks();
  return sel.assemble();
}

/** A removal reason in words, as `skillc prompt` prints it. */
export function removalWords(r: Removed): string {
  const [kind, by] = r.reason.split(/:(.*)/s);
  if (by !== undefined && kind === "blocked") return `blocked by \`${by}\``;
  if (by !== undefined && kind === "excluded") return `excluded by \`${by}\` (same category, stronger priority)`;
  const words: Record<string, string> = {
    unknown: "no skill of that name in this bundle",
    hidden: "hidden from selection",
    disabled: "turned off for this client (a toggle or default_enabled: false)",
    condition: "its conditions do not hold for this context",
    max_active: "over the workspace's max_active_skills",
    unavailable: "unavailable in this bundle (requirements or variables)",
  };
  return words[r.reason] ?? r.reason;
}
