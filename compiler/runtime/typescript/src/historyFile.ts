// `cli.js route --history FILE --time T`, as `skillc route` reads them (compiler/src/cli/history.rs):
// the visitor's recent messages for routing's stage 0 (docs/routing.md, "Fragments").
import { readFileSync } from "node:fs";

import { RequestError } from "./artifact.js";
import type { Turn } from "./history.js";

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function rfc3339(s: string): number {
  const ms = RFC3339.test(s) ? Date.parse(s.replace(/[t ]/, "T").replace(/z$/, "Z")) : NaN;
  if (!Number.isFinite(ms)) throw new Error(`\`${s}\` is not an RFC 3339 date and time`);
  return ms / 1000;
}

/** `--time`'s value: seconds or RFC 3339. */
export function timeOf(arg: string): number {
  return NUMBER.test(arg) && Number.isFinite(Number(arg)) ? Number(arg) : rfc3339(arg);
}

function seconds(value: unknown): number {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string") return rfc3339(value);
  throw new Error(`a time is seconds or an RFC 3339 date and time, not \`${JSON.stringify(value)}\``);
}

function message(v: unknown): Turn {
  const o = v as { text?: unknown; time?: unknown } | null;
  if (o === null || typeof o !== "object" || typeof o.text !== "string") {
    throw new Error("each message is an object with a string `text` and a `time`");
  }
  if (!("time" in o)) throw new Error("the message has no `time`");
  return { text: o.text, time: seconds(o.time) };
}

/** The messages of a `--history` file (`-`: stdin): a JSON array of `{text, time}`, or one a line. */
export function readHistory(file: string): Turn[] {
  const fail = (why: string) => new RequestError(`--history \`${file}\`: ${why}`);
  const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    throw fail(why(e));
  }
  const items: [string, unknown][] = [];
  if (text.trimStart().startsWith("[")) {
    let all: unknown;
    try {
      all = JSON.parse(text);
    } catch (e) {
      throw fail(why(e));
    }
    if (!Array.isArray(all)) throw fail("not a JSON array");
    all.forEach((v, n) => items.push([`item ${n + 1}`, v]));
  } else {
    text.split("\n").forEach((line, n) => {
      if (line.trim() === "") return;
      try {
        items.push([`line ${n + 1}`, JSON.parse(line)]);
      } catch (e) {
        throw fail(`line ${n + 1}: ${why(e)}`);
      }
    });
  }
  return items.map(([place, v]) => {
    try {
      return message(v);
    } catch (e) {
      throw fail(`${place}: ${why(e)}`);
    }
  });
}
