// The run-time context of a request and the conditions the artifact stores, evaluated exactly
// as the Rust runtime does (compiler/runtime/src/condition.rs): a missing value fails closed.

/** The run-time context: page URL, turn, `<skill>_availability` values, any other key. */
export interface Context {
  pageUrl?: string;
  turn?: bigint;
  availability: Map<string, string>;
  values: Map<string, string>;
}

/** A context value that cannot be read (the CLI exits 2, as `skillc` does). */
export class ContextError extends Error {
  override name = "ContextError";
}

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);
const AVAILABILITY = "_availability";

/** Reads `KEY=VALUE` pairs: `page_url`, `turn`, `<skill>_availability`, anything else. */
export function contextFromPairs(pairs: Iterable<[string, string]>): Context {
  const ctx: Context = { availability: new Map(), values: new Map() };
  for (const [k, v] of pairs) {
    if (k === "page_url") {
      ctx.pageUrl = v;
    } else if (k === "") {
      throw new ContextError(`context \`=${v}\` has no key (write KEY=VALUE)`);
    } else if (k === "turn") {
      ctx.turn = parseTurn(v);
    } else if (k.endsWith(AVAILABILITY) && k.length > AVAILABILITY.length) {
      ctx.availability.set(k.slice(0, -AVAILABILITY.length), v);
    } else {
      ctx.values.set(k, v);
    }
  }
  return ctx;
}

/** A context from an object (`{page_url: "/x", turn: 2}`): numbers and booleans as text. */
export function contextFromObject(obj: Record<string, string | number | boolean> = {}): Context {
  return contextFromPairs(Object.entries(obj).map(([k, v]) => [k, String(v)]));
}

function parseTurn(v: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(v)) {
    throw new ContextError(`turn must be a whole number, not \`${v}\``);
  }
  const n = BigInt(v);
  if (n > I64_MAX) throw new ContextError(`turn \`${v}\` is too large`);
  if (n < I64_MIN) throw new ContextError(`turn must be a whole number, not \`${v}\``);
  return n;
}

/** A condition as the artifact stores it (one key). */
export type Condition =
  | { starts_with_any: string[] }
  | { does_not_start_with_any: string[] }
  | { page_url_matches: string }
  | { page_url_not_matches: string }
  | { conversation_language: string }
  | { availability: { skill: string; value: string } }
  | { turn_at_least: number }
  | { context_has: string };

/** A condition ready to evaluate: regexes compiled once, when the bundle loads. */
export type Compiled = (ctx: Context) => boolean;

/** The path part of a URL (`https://a.com/x?y` gives `/x`), or the text when it is a path. */
function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  if (scheme < 0) return url.split(/[?#]/, 1)[0];
  const rest = url.slice(scheme + 3);
  const i = rest.search(/[/?#]/);
  if (i < 0 || rest[i] !== "/") return "/";
  return rest.slice(i).split(/[?#]/, 1)[0];
}

/** Whether `text` starts with `prefix` at a `/` boundary, trailing slashes ignored. */
export function startsAtBoundary(text: string, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, "");
  if (p === "") return true;
  if (!text.startsWith(p)) return false;
  const rest = text.slice(p.length);
  return rest === "" || "/?#".includes(rest[0]);
}

function prefixMatches(url: string, prefix: string): boolean {
  return prefix.startsWith("/")
    ? startsAtBoundary(pathOf(url), prefix)
    : startsAtBoundary(url, prefix);
}

/**
 * A regex of the artifact as a JavaScript RegExp. The build compiled it with Rust's regex
 * crate; the common syntax is shared, and a leading `(?i)` becomes the `i` flag. A pattern
 * JavaScript cannot read never matches (as a tampered one never holds in the Rust runtime).
 */
function compileRegex(pattern: string): RegExp | undefined {
  let flags = "u";
  let p = pattern;
  const inline = /^\(\?([ims]+)\)/.exec(p);
  if (inline) {
    flags += inline[1];
    p = p.slice(inline[0].length);
  }
  for (const f of [flags, flags.replace("u", "")]) {
    try {
      return new RegExp(p, f);
    } catch {
      // try without the unicode flag, then give up
    }
  }
  return undefined;
}

/** Compiles a stored condition. */
export function compileCondition(c: Condition): Compiled {
  if ("starts_with_any" in c || "does_not_start_with_any" in c) {
    const negated = "does_not_start_with_any" in c;
    const prefixes = "starts_with_any" in c ? c.starts_with_any : c.does_not_start_with_any;
    return (ctx) =>
      ctx.pageUrl !== undefined &&
      prefixes.some((p) => prefixMatches(ctx.pageUrl as string, p)) !== negated;
  }
  if ("page_url_matches" in c || "page_url_not_matches" in c) {
    const negated = "page_url_not_matches" in c;
    const re = compileRegex("page_url_matches" in c ? c.page_url_matches : c.page_url_not_matches);
    if (!re) return () => false;
    return (ctx) => ctx.pageUrl !== undefined && re.test(ctx.pageUrl) !== negated;
  }
  if ("availability" in c) {
    const { skill, value } = c.availability;
    return (ctx) => ctx.availability.get(skill) === value;
  }
  if ("turn_at_least" in c) {
    const n = BigInt(c.turn_at_least);
    return (ctx) => ctx.turn !== undefined && ctx.turn >= n;
  }
  if ("context_has" in c) {
    const key = c.context_has;
    return (ctx) => (ctx.values.get(key) ?? "") !== "";
  }
  return () => true; // conversation_language: decided at build time
}
