// Routing's stage 0 (docs/routing.md, "Fragments"): a fragment of a message joined to the
// recent messages it continues before it is routed, as the Rust runtime's `route::history`
// does, with its words and thresholds (./fragmentWords.ts, written by its tests) and on its
// cases (compiler/runtime/fragment-cases.json).
import * as W from "./fragmentWords.js";
import { RequestError } from "./artifact.js";
import { NOT_WORD } from "./route.js";
import type { Route } from "./route.js";

/** One earlier message: its text and when it was sent, in seconds (the message's clock). */
export interface Turn {
  text: string;
  time: number;
}

/** A text's words as routing splits them, lowercased, stopwords kept. */
function words(text: string): string[] {
  return text.toLowerCase().split(NOT_WORD).filter((w) => w !== "");
}

function trimEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end--;
  return text.slice(0, end);
}

function trim(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start])) start++;
  return trimEnd(text.slice(start), chars);
}

/** Whether the first letter or digit is a letter that uppercasing changes and lowercasing does not. */
function startsLowercase(text: string): boolean {
  const first = text.split(NOT_WORD).find((w) => w !== "");
  if (first === undefined) return false;
  const c = String.fromCodePoint(first.codePointAt(0) as number);
  return c.toUpperCase() !== c && c.toLowerCase() === c;
}

function incomplete(text: string): boolean {
  const end = trimEnd(text, W.SPACES + W.CLOSERS);
  const finished = end !== "" && W.FINAL_MARKS.includes(end[end.length - 1]) && !end.endsWith("...") && !end.endsWith("\u2026");
  const last = words(text).pop();
  return !finished || (last !== undefined && W.CONNECTORS.has(last));
}

function close(earlier: number, later: number): boolean {
  return later - earlier <= W.WINDOW_SECONDS;
}

/** The signals of fragmentation that hold for `message`, sent at `time`, after `previous`. */
export function fragmentSignals(message: string, time: number, previous?: Turn): string[] {
  const ws = words(message);
  const held = [
    ws.length <= W.SHORT_WORDS,
    ws.some((w) => W.BACK_REFERENCES.has(w)),
    (ws.length > 0 && W.CONTINUATIONS.has(ws[0])) || (ws.length >= 2 && W.CONTINUATION_PAIRS.has(`${ws[0]} ${ws[1]}`)),
    startsLowercase(message),
    previous !== undefined && incomplete(previous.text),
    previous !== undefined && close(previous.time, time),
  ];
  return W.SIGNALS.filter((_, k) => held[k]);
}

function isFragment(message: string, time: number, history: readonly Turn[]): boolean {
  const hasWord = message.split(NOT_WORD).some((w) => w !== "");
  return hasWord && fragmentSignals(message, time, history[history.length - 1]).length >= W.MIN_SIGNALS;
}

/** The text to route for `message`, sent at `time` after `history` (oldest first), when it is
 * a fragment that joins; undefined: route it alone. */
export function joinFragment(message: string, time: number, history: readonly Turn[]): string | undefined {
  if (!isFragment(message, time, history)) return undefined;
  let start = history.length;
  let next = time;
  while (start > 0 && history.length - start < W.MAX_CONTEXT) {
    const previous = history[start - 1];
    if (!close(previous.time, next)) break;
    start--;
    next = previous.time;
    if (!isFragment(previous.text, previous.time, history.slice(0, start))) break;
  }
  if (start === history.length) return undefined;
  const parts = [...history.slice(start).map((t) => t.text), message].map((t) => trim(t, W.SPACES));
  return parts.filter((p) => p !== "").join(" ");
}

/** What `Artifact.route` routes instead of `message`, given its history and time (now by default). */
export function routedText(message: string, history: readonly Turn[] | undefined, time: number | undefined): string | undefined {
  if (history === undefined || history.length === 0) return undefined;
  history.forEach((t, n) => {
    if (t === null || typeof t !== "object" || typeof t.text !== "string" || typeof t.time !== "number") {
      throw new RequestError(`history item ${n + 1}: each message is an object with a string \`text\` and a \`time\` in seconds`);
    }
  });
  return joinFragment(message, time ?? Date.now() / 1000, history);
}

/** A route of the routed text, as the answer for `message`: `routed_text` after it. */
export function withRoutedText(route: Route, message: string, routed: string): Route {
  const { message: _routed, ...rest } = route;
  void _routed;
  return { message, routed_text: routed, ...rest };
}
