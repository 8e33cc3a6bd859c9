/**
 * Requests in other languages (docs/routing.md, "Words of other languages"): each word of a message that
 * the artifact's glossary holds, and that the catalog's index does not, read as its English
 * gloss, for the route's words and meaning alike: as route/glossary.rs does, character for
 * character.
 */

import { rows, type Snapshot } from "./artifact.js";
import { meaningOf } from "./meaning.js";
import { eachWord, UNSPACED_RUN } from "./route.js";

/** The longest word of a script written without spaces that a glossary holds, in characters. */
export const GLOSSARY_MAX_CHARS = 8;
/** The most words (or unspaced characters) a message is read through the glossary for. */
export const GLOSSARY_MAX_READ = 256;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The gloss of `word` in a glossary as the artifact holds it (lines of a word, a tab and its
 * gloss, sorted by the words' bytes, each once; a line without a tab holds no word), found by
 * halving where the bytes lie, as the Rust runtime does: no map of 62,000 words is made (60 ms
 * more to a first route). */
export function lookUp(glossary: Uint8Array, word: string): string | undefined {
  const key = encoder.encode(word);
  // Both ends at the start of a line.
  let low = 0;
  let high = glossary.length;
  while (low < high) {
    const middle = low + Math.floor((high - low) / 2);
    const before = middle > low ? glossary.lastIndexOf(10, middle - 1) : -1;
    const start = before >= low ? before + 1 : low;
    const after = glossary.indexOf(10, middle);
    const end = after >= 0 && after < high ? after : high;
    let tab = glossary.indexOf(9, start);
    if (tab < 0 || tab > end) tab = end;
    const order = compareBytes(glossary, start, tab, key);
    if (order === 0) {
      if (tab === end) return undefined;
      try {
        return decoder.decode(glossary.subarray(tab + 1, end));
      } catch {
        return undefined;
      }
    }
    if (order < 0) low = end + 1;
    else high = start;
  }
  return undefined;
}

function compareBytes(data: Uint8Array, start: number, end: number, key: Uint8Array): number {
  const n = Math.min(end - start, key.length);
  for (let i = 0; i < n; i++) {
    const d = data[start + i] - key[i];
    if (d !== 0) return d;
  }
  return end - start - key.length;
}

const glossaries = new WeakMap<Snapshot, Uint8Array | null>();

/** The glossary beside the artifact's built-in meaning table (its bytes), read once; null without
 * one (or without the table). */
export function glossaryOf(snap: Snapshot): Uint8Array | null {
  const known = glossaries.get(snap);
  if (known !== undefined) return known;
  const model = snap.manifest.get("embedding_model");
  const found = model === undefined || meaningOf(snap) === null ? [] : rows(snap.db, "SELECT data FROM meaning WHERE name = ?", [`${model}:glossary`]);
  const words = found.length ? ((found[0][0] as Uint8Array | null) ?? new Uint8Array(0)) : null;
  glossaries.set(snap, words);
  return words;
}

/** `message` lowercased, each word `words` holds and `held` does not replaced by its gloss with a
 * space either side; undefined when no word is. A spaced script's word is looked up whole; in a
 * run of a script written without spaces, the longest word held at each character from the
 * first (at most GLOSSARY_MAX_CHARS), a character no word starts at kept as it is; after
 * GLOSSARY_MAX_READ words or characters looked up, the rest as written (lowercased). */
export function gloss(glossary: Uint8Array, message: string, held: (word: string) => boolean): string | undefined {
  const lower = message.toLowerCase();
  let out = "";
  let glossed = false;
  let read = 0;
  const put = (word: string, found: string | undefined) => {
    if (found !== undefined && !held(word)) {
      glossed = true;
      out += ` ${found} `;
    } else {
      out += word;
    }
  };
  // What a run of word characters is read as: `out` holds it while it is made.
  const glossRun = (word: string): string => {
    out = "";
    const runs = /^[\x00-\x7f]*$/.test(word) ? [word] : word.split(UNSPACED_RUN);
    runs.forEach((run, k) => {
      if (k % 2 === 0) {
        // A word the catalog holds is not looked up: its own, whatever the glossary says.
        if (run !== "" && read === GLOSSARY_MAX_READ) out += run;
        else if (run !== "") {
          read += 1;
          put(run, held(run) ? undefined : lookUp(glossary, run));
        }
        return;
      }
      const chars = [...run];
      let i = 0;
      while (i < chars.length) {
        if (read === GLOSSARY_MAX_READ) {
          out += chars.slice(i).join("");
          break;
        }
        read += 1;
        let n = Math.min(GLOSSARY_MAX_CHARS, chars.length - i);
        let found: string | undefined;
        for (; n > 0; n--) {
          found = lookUp(glossary, chars.slice(i, i + n).join(""));
          if (found !== undefined) break;
        }
        if (n > 0) {
          put(chars.slice(i, i + n).join(""), found);
          i += n;
        } else {
          out += chars[i];
          i += 1;
        }
      }
    });
    return out;
  };
  const text = eachWord(lower, glossRun);
  return glossed ? text : undefined;
}
