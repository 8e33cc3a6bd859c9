/**
 * Requests in other languages (docs/routing.md, "Other languages"): each word of a message that
 * the artifact's glossary holds, and that the catalog's index does not, read as its English
 * gloss, for the route's words and meaning alike: as route/glossary.rs does, character for
 * character.
 */

import { ArtifactError, rows, type Snapshot } from "./artifact.js";
import { meaningOf } from "./meaning.js";
import { NOT_WORD, UNSPACED_RUN } from "./route.js";

/** The longest word of a script written without spaces that a glossary holds, in characters. */
export const GLOSSARY_MAX_CHARS = 8;

/** A glossary from its row (lines of a word, a tab and its gloss, in the words' order by their
 * bytes, each once); null when it is not one. */
export function parseGlossary(data: Uint8Array): Map<string, string> | null {
  const words = new Map<string, string>();
  const lines = new TextDecoder().decode(data).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let previous: string | null = null;
  for (const line of lines) {
    const tab = line.indexOf("\t");
    if (tab < 0) return null;
    const word = line.slice(0, tab);
    // Code point order is UTF-8's byte order (UTF-16 units' order is not, above the BMP).
    if (previous !== null && codePointOrder(previous, word) >= 0) return null;
    words.set(word, line.slice(tab + 1));
    previous = word;
  }
  return words;
}

function codePointOrder(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

const glossaries = new WeakMap<Snapshot, Map<string, string> | null>();

/** The glossary beside the artifact's built-in meaning table, read once; null without one (or
 * without the table). */
export function glossaryOf(snap: Snapshot): Map<string, string> | null {
  const known = glossaries.get(snap);
  if (known !== undefined) return known;
  const model = snap.manifest.get("embedding_model");
  const found = model === undefined || meaningOf(snap) === null ? [] : rows(snap.db, "SELECT data FROM meaning WHERE name = ?", [`${model}:glossary`]);
  let words: Map<string, string> | null = null;
  if (found.length) {
    words = parseGlossary((found[0][0] as Uint8Array | null) ?? new Uint8Array(0));
    if (words === null) {
      throw new ArtifactError(`\`${snap.path}\` is not a readable skillc artifact: its glossary is not lines of a word, a tab and its gloss in order`);
    }
  }
  glossaries.set(snap, words);
  return words;
}

/** `message` lowercased, each word `words` holds and `held` does not replaced by its gloss with a
 * space either side; undefined when no word is. A spaced script's word is looked up whole; in a
 * run of a script written without spaces, the longest word held at each character from the
 * first (at most GLOSSARY_MAX_CHARS), a character no word starts at kept as it is. */
export function gloss(words: Map<string, string>, message: string, held: (word: string) => boolean): string | undefined {
  const lower = message.toLowerCase();
  let out = "";
  let glossed = false;
  const put = (word: string) => {
    const found = words.get(word);
    if (found !== undefined && !held(word)) {
      glossed = true;
      out += ` ${found} `;
    } else {
      out += word;
    }
  };
  const between = new RegExp(NOT_WORD.source, "gu");
  let at = 0;
  const glossRun = (word: string) => {
    const runs = /^[\x00-\x7f]*$/.test(word) ? [word] : word.split(UNSPACED_RUN);
    runs.forEach((run, k) => {
      if (k % 2 === 0) {
        if (run !== "") put(run);
        return;
      }
      const chars = [...run];
      let i = 0;
      while (i < chars.length) {
        let n = Math.min(GLOSSARY_MAX_CHARS, chars.length - i);
        for (; n > 0; n--) {
          if (words.has(chars.slice(i, i + n).join(""))) break;
        }
        if (n > 0) {
          put(chars.slice(i, i + n).join(""));
          i += n;
        } else {
          out += chars[i];
          i += 1;
        }
      }
    });
  };
  for (const m of lower.matchAll(between)) {
    if (m.index! > at) glossRun(lower.slice(at, m.index));
    out += m[0];
    at = m.index! + m[0].length;
  }
  if (at < lower.length) glossRun(lower.slice(at));
  return glossed ? out : undefined;
}
