// The TypeScript runtime's command (`cli.js`), as a function: see cli.ts for its usage.

import { readFileSync } from "node:fs";

import { Artifact, ContextError, contextFromPairs, RequestError, removalWords } from "./index.js";
import type { Catalog, Format, Prompt, Route } from "./index.js";
import { readHistory, timeOf } from "./historyFile.js";

const USAGE = `usage: cli.js catalog ARTIFACT [--client ID] [--locale L] [--tier T] [--consumer C] [--context KEY=VALUE]... [--format xml|markdown|list|json]
       cli.js prompt  ARTIFACT [--client ID] [--locale L] [--tier T] [--consumer C] --select NAME[,NAME...] [--context KEY=VALUE]... [--format text|json]
       cli.js route   ARTIFACT MESSAGE [--client ID] [--locale L] [--tier T] [--consumer C] [--context KEY=VALUE]... [--top K] [--query-vector FILE] [--history FILE [--time T]] [--format text|json]`;

class UsageError extends Error {}

interface Args {
  command: "catalog" | "prompt" | "route";
  artifact: string;
  message: string;
  flags: Map<string, string>;
  context: [string, string][];
  select: string[];
}

const FLAGS = new Set(["client", "locale", "tier", "consumer", "format", "select", "context", "top", "query-vector", "history", "time", "public-key"]);
const ROUTE_FLAGS = new Set(["top", "query-vector", "history", "time"]);

function parse(argv: string[]): Args {
  const [command, ...rest] = argv;
  if (command !== "catalog" && command !== "prompt" && command !== "route") throw new UsageError(USAGE);
  const positional: string[] = [];
  const flags = new Map<string, string>();
  const context: [string, string][] = [];
  const select: string[] = [];
  let artifact: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith("--")) {
      positional.push(arg);
      if (positional.length > (command === "route" ? 2 : 1)) throw new UsageError(`unexpected argument \`${arg}\`\n${USAGE}`);
      artifact = positional[0];
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    if (!FLAGS.has(name) || (name === "select" && command !== "prompt") || (ROUTE_FLAGS.has(name) && command !== "route")) {
      throw new UsageError(`unexpected argument \`--${name}\`\n${USAGE}`);
    }
    const value = eq < 0 ? rest[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`\`--${name}\` needs a value`);
    if (name === "context") {
      const at = value.indexOf("=");
      if (at < 0) throw new UsageError(`--context takes KEY=VALUE, not \`${value}\``);
      context.push([value.slice(0, at), value.slice(at + 1)]);
    } else if (name === "select") {
      select.push(...value.split(","));
    } else {
      flags.set(name, value);
    }
  }
  if (artifact === undefined || (command === "route" && positional.length < 2)) throw new UsageError(USAGE);
  if (command === "prompt" && select.length === 0) throw new UsageError(`\`--select\` is required\n${USAGE}`);
  const formats = command === "catalog" ? ["xml", "markdown", "list", "json"] : ["text", "json"];
  const format = flags.get("format");
  if (format !== undefined && !formats.includes(format)) {
    throw new UsageError(`invalid value \`${format}\` for \`--format\`; possible values: ${formats.join(", ")}`);
  }
  return { command, artifact, message: positional[1] ?? "", flags, context, select };
}

/** `skillc catalog --format json`: keys in the order serde_json prints them (sorted). */
function catalogJson(c: Catalog): string {
  const v = {
    client: c.client,
    consumer: c.consumer,
    locale: c.locale,
    release: c.release,
    skills: c.skills.map((s) => ({
      category: s.category,
      description: s.description,
      ...(s.external
        ? {
            external: {
              commit: s.external.commit,
              git: s.external.git,
              into: s.external.into,
              rev: s.external.rev,
              trusted: s.external.trusted,
            },
          }
        : {}),
      id: s.id,
      name: s.name,
      ...(s.plugin
        ? {
            plugin: {
              author: s.plugin.author,
              description: s.plugin.description,
              name: s.plugin.name,
              version: s.plugin.version,
            },
          }
        : {}),
      qualified_name: s.qualified_name,
      triggers: s.triggers,
    })),
    text: c.text,
    tier: c.tier,
  };
  return JSON.stringify(v, null, 2) + "\n";
}

/** `skillc prompt --format json`: the fields in the Rust struct's order. */
function promptJson(p: Prompt): string {
  const v = {
    skills: p.skills.map((s) => ({ name: s.name, resolved: s.resolved, reason: s.reason })),
    removed: p.removed.map((r) => ({ name: r.name, reason: r.reason })),
    sources: p.sources.map((s) => ({ sid: s.sid, url: s.url, title: s.title })),
    text: p.text,
    tokens: p.tokens,
  };
  return JSON.stringify(v, null, 2) + "\n";
}

/** The message's vector in `file` (`-`: stdin): a JSON array of numbers, or an embedder's
 * line `{"model", "vector"}` whose model must be the artifact's; the same checks and words as
 * `skillc route`. */
function readQueryVector(file: string, artifact: Artifact): number[] {
  const fail = (why: string) => new RequestError(`--query-vector \`${file}\`: ${why}`);
  const model = artifact.manifest("embedding_model");
  const dims = Number(artifact.manifest("embedding_dims") ?? "0");
  if (model === undefined) {
    throw fail("this artifact carries no embedding vectors (its workspace sets no `routing.embedding_model`), so it routes by words only; leave out --query-vector");
  }
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    throw fail(e instanceof Error ? e.message : String(e));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw fail(`not JSON (${e instanceof Error ? e.message : String(e)}): give an array of numbers or an embedder's line`);
  }
  let numbers: unknown = value;
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const line = value as { model?: unknown; vector?: unknown };
    if (typeof line.model === "string" && line.model !== model) {
      throw fail(`the vector is from model \`${line.model}\`; this artifact's vectors are from \`${model}\``);
    }
    if (!Array.isArray(line.vector)) throw fail("an object needs `vector`: an array of numbers");
    numbers = line.vector;
  }
  if (!Array.isArray(numbers)) throw fail("give an array of numbers or an embedder's line");
  const vector = numbers.map((x) => (typeof x === "number" ? Math.fround(x) : NaN));
  if (!vector.every((x) => Number.isFinite(x))) throw fail("every element of the vector must be a finite number");
  if (vector.length !== dims) throw fail(`the vector has ${vector.length} numbers; this artifact's model \`${model}\` gives ${dims}`);
  return vector;
}

/** `skillc route --format json`: the fields in the Rust struct's order. */
function routeJson(r: Route): string {
  return JSON.stringify(r, null, 2) + "\n";
}

/** `--time` (seconds or RFC 3339), which needs `--history`. */
function timeFlag(flags: Map<string, string>): number | undefined {
  const time = flags.get("time");
  if (time === undefined) return undefined;
  if (!flags.has("history")) throw new UsageError(`--time needs --history\n${USAGE}`);
  try {
    return timeOf(time);
  } catch (e) {
    throw new UsageError(`--time: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function run(argv: string[], io: Output): Promise<number> {
  const args = parse(argv);
  const context = contextFromPairs(args.context);
  const publicKey = args.flags.get("public-key");
  const artifact = await Artifact.open(args.artifact, publicKey === undefined ? {} : { publicKey });
  // Closed when answered: one process may answer many commands (the parity driver).
  try {
    const request = {
      client: args.flags.get("client"),
      locale: args.flags.get("locale"),
      tier: args.flags.get("tier"),
      consumer: args.flags.get("consumer"),
      context,
    };
    const format = args.flags.get("format");
    const time = timeFlag(args.flags);
    if (args.command === "route") {
      const top = args.flags.get("top");
      if (top !== undefined && !/^\d+$/.test(top)) throw new UsageError(`invalid value \`${top}\` for \`--top\``);
      const file = args.flags.get("query-vector");
      const queryVector = file === undefined ? undefined : readQueryVector(file, artifact);
      const historyFile = args.flags.get("history");
      const history = historyFile === undefined ? undefined : readHistory(historyFile);
      const r = artifact.route({ ...request, message: args.message, top: top === undefined ? undefined : Number(top), queryVector, history, time });
      io.out(format === "json" ? routeJson(r)
        : r.candidates.map((c) => `${c.score.toFixed(4)} ${c.id} ${c.name} (${c.matched.join(", ")})\n`).join(""));
    } else if (args.command === "catalog") {
      const f = (format ?? "markdown") as Format;
      const c = artifact.catalog({ ...request, format: f });
      io.out(f === "json" ? catalogJson(c) : c.text.endsWith("\n") ? c.text : c.text + "\n");
    } else {
      const p = artifact.prompt({ ...request, select: args.select.filter((s) => s !== "") });
      if (format === "json") {
        io.out(promptJson(p));
      } else {
        for (const r of p.removed) io.err(`note: \`${r.name}\` left out: ${removalWords(r)}\n`);
        io.out(p.text);
      }
    }
  } finally {
    artifact.close();
  }
  return 0;
}

/** Where a command's answer goes: standard output and standard error, or a caller's buffers. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Answers one command line (`argv` without `node cli.js`), writing to `io` as the command
 * writes to its streams, and gives its exit status: 0 success, 1 a request for something that
 * was not built, 2 usage or I/O error. `cli.js` runs it once a process; the parity test's
 * driver (tests/parity/ts_parity_driver.mjs) once a request, in one process.
 */
export async function answer(argv: string[], io: Output): Promise<number> {
  try {
    return await run(argv, io);
  } catch (e: unknown) {
    const err = e as Error;
    io.err(`error: ${err.message}\n`);
    return e instanceof RequestError ? 1 : e instanceof UsageError || e instanceof ContextError ? 2 : 2;
  }
}
