// Routing a message to the skills of a catalog (docs/routing.md): the same words, scores and
// order as the Rust runtime's `route` (compiler/runtime/src/route/); the parity runs compare
// them on every request.
import { ArtifactError, RequestError, rows, type Bundle, type Snapshot } from "./artifact.js";
import { catalogMembers } from "./answer.js";
import { closest, cosines, denseOf, smallTalkOf, talkWeightsOf, talkWords } from "./dense.js";
import { meaningOf } from "./meaning.js";
import type { Context } from "./context.js";
import { MARKS, RANGES as WORD_RANGES } from "./wordChars.js";

/** Routing's words and constants as the build wrote them (manifest `routing_rules`,
 * docs/artifact.md), which this runtime holds no copy of: `lexical_share` is a hybrid score's
 * share of words, `small_talk_share` the share of the small-talk margin a hybrid bar rises by,
 * `talk_words_share` the share of a message's lean to small talk by its pieces beyond
 * `talk_words_from` it rises by (neither in an artifact built before them: no such rise),
 * `talk_words_lowers` the share of a lean below `talk_words_from` it is lowered by, never under
 * the catalog's bar (none in an artifact built before it), `tail_below` how far under the
 * catalog's bar a route's candidates after the first may score (none before it: the bar) and
 * `tail_words` how many skills, the first by their words, they may be among (none before it),
 * `defaults` the routing settings a workspace leaves unset, `spelling` the lengths of the unknown
 * words read as their nearest known word (none in an artifact built before it). */
export interface RoutingRules {
  stopwords: ReadonlySet<string>;
  suffixes: readonly string[];
  k1: number; b: number; evidence_factor: number; max_words: number;
  lexical_share: number; small_talk_share: number; talk_words_share?: number; talk_words_from?: number;
  talk_words_lowers?: number; talk_words_ends?: boolean; tail_below?: number; tail_words?: number;
  hybrid_floor_base: number; hybrid_floor_slope: number;
  defaults: { top_k: number; min_score: number; confident: number };
  spelling?: { min_letters: number; max_letters: number };
  /** Whether the meaning vector, too, reads misspelt words (`speltForMeaning`); not before. */
  meaning_spelling?: boolean;
}

/** The longest word an artifact's rules may ask to read as a neighbour (Rust's `MAX_LETTERS`). */
const MAX_LETTERS = 64;

const rulesOf = new WeakMap<Snapshot, RoutingRules>();

/** The artifact's routing rules, read once; an artifact built before the build wrote them
 * cannot be routed. */
export function routingRules(snap: Snapshot): RoutingRules {
  const known = rulesOf.get(snap);
  if (known) return known;
  const text = snap.manifest.get("routing_rules");
  if (text === undefined) {
    throw new ArtifactError(`${snap.path} cannot be routed: its manifest has no \`routing_rules\` (it was built by a skillc older than this runtime); build it again`);
  }
  const read = JSON.parse(text);
  const rules: RoutingRules = { ...read, stopwords: new Set(read.stopwords) };
  const spelling = rules.spelling;
  if (spelling && (spelling.min_letters < 1 || spelling.max_letters > MAX_LETTERS)) {
    throw new ArtifactError(`\`${snap.path}\` is not a readable skillc artifact: its \`routing_rules\` read words of ${spelling.min_letters} to ${spelling.max_letters} letters as their neighbours (1 to ${MAX_LETTERS})`);
  }
  rulesOf.set(snap, rules);
  return rules;
}

/**
 * What separates words: any character outside Rust's `char::is_alphanumeric` (./wordChars.ts),
 * not this engine's `\p{Alphabetic}\p{N}`, whose Unicode version is the platform's.
 */
export const NOT_WORD = new RegExp(
  `[^${WORD_RANGES.trim()
    .split(/\s+/)
    .map((item) => item.split("-").map((hex) => `\\u{${hex}}`).join("-"))
    .join("")}]+`,
  "u",
);

/**
 * A mark (General_Category Mn or Mc, less the variation selectors: the Rust runtime's `mark`):
 * inside a word, and left out of the meaning's pieces when the table has no piece for it.
 */
export const MARK = new RegExp(
  `^[${MARKS.trim()
    .split(/\s+/)
    .map((item) => item.split("-").map((hex) => `\\u{${hex}}`).join("-"))
    .join("")}]$`,
  "u",
);

/** Scripts written without spaces (docs/routing.md): the Rust runtime's `UNSPACED` ranges. */
const UNSPACED: [number, number][] = [
  [0x0e00, 0x0eff], [0x1000, 0x109f], [0x1780, 0x17ff], [0x3040, 0x30ff], [0x31f0, 0x31ff],
  [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xf900, 0xfaff], [0xff66, 0xff9f], [0x20000, 0x323af],
];
export const UNSPACED_RUN = new RegExp(`([${UNSPACED.map(([lo, hi]) => `\\u{${lo.toString(16)}}-\\u{${hi.toString(16)}}`).join("")}]+)`, "u");

/** The first of `suffixes` ending a word of five ASCII letters or more, taken off when a stem of three
 * letters or more with a vowel stays; `ied`/`ies`/`ie` become `y`; a doubled final consonant other
 * than l, s, z is undoubled. */
function suffixStem(w: string, suffixes: readonly string[]): string {
  if (w.length < 5 || !/^[a-z]+$/.test(w)) return w;
  const suffix = suffixes.find((x) => w.endsWith(x));
  if (suffix === undefined) return w;
  let rest = w.slice(0, w.length - suffix.length);
  if (rest.length < 3 || !/[aeiouy]/.test(rest)) return w;
  if (suffix === "ied" || suffix === "ies" || suffix === "ie") rest += "y";
  const last = rest[rest.length - 1];
  if (rest.length > 3 && last === rest[rest.length - 2] && !"aeiouylsz".includes(last)) rest = rest.slice(0, -1);
  return rest;
}

/** A text's words as the routing index holds them (see docs/routing.md): a run of an unspaced
 * script becomes its overlapping pairs of characters. */
export function routeTokens(text: string, rules: RoutingRules): string[] {
  const out: string[] = [];
  // A word's tokens depend on it alone: each distinct word is read once (a pasted log
  // repeats most of its words).
  const read = new Map<string, string[]>();
  for (const word of text.toLowerCase().split(NOT_WORD)) {
    let tokens = read.get(word);
    if (tokens === undefined) {
      tokens = wordTokens(word, rules);
      read.set(word, tokens);
    }
    for (const t of tokens) out.push(t);
  }
  return out;
}

/** `routeTokens` of one run of word characters. */
function wordTokens(word: string, rules: RoutingRules): string[] {
  const out: string[] = [];
  const runs = /^[\x00-\x7f]*$/.test(word) ? [word] : word.split(UNSPACED_RUN);
  runs.forEach((run, k) => {
    if (k % 2 === 1) {
      const chars = [...run];
      if (chars.length === 1) out.push(run);
      for (let j = 0; j + 1 < chars.length; j++) out.push(chars[j] + chars[j + 1]);
      return;
    }
    let w = run;
    if (w === "" || (w.length === 1 && w >= "a" && w <= "z") || rules.stopwords.has(w)) return;
    const rest = w.slice(0, -1);
    if ([...w].length >= 4 && w.endsWith("s") && !/[sui]$/.test(rest)) w = rest;
    out.push(suffixStem(w, rules.suffixes));
  });
  return out;
}

/** The words two neighbouring words of a text make written together (`google tasks` gives
 * `googletask`), where the two are of spaced scripts, of two characters or more each, and together
 * make one word (`routeTokens`); in the text's order. */
export function joinedWords(text: string, rules: RoutingRules): string[] {
  const words = text.toLowerCase().split(NOT_WORD).filter((w) => w !== "");
  const out: string[] = [];
  const read = new Map<string, string[]>();
  for (let k = 0; k + 1 < words.length; k++) {
    const [a, b] = [words[k], words[k + 1]];
    if ([...a].length < 2 || [...b].length < 2) continue;
    const glued = a + b;
    let one = read.get(glued);
    if (one === undefined) {
      one = UNSPACED_RUN.test(glued) ? [] : routeTokens(glued, rules);
      read.set(glued, one);
    }
    if (one.length === 1) out.push(one[0]);
  }
  return out;
}

/** Whether the index of bundle `b`'s catalog holds every routing word of `word`: the
 * catalog's own word, which a route does not gloss (./glossary.ts). */
export function heldByIndex(snap: Snapshot, b: Bundle, word: string): boolean {
  const rules = routingRules(snap);
  const ix = indexOf(snap, b, rules);
  const found = routeTokens(word, rules);
  return found.length > 0 && found.every((w) => ix.ids.has(w));
}

/** One candidate of a route. */
export interface Candidate {
  id: string;
  name: string;
  qualified_name: string;
  score: number;
  matched: string[];
}

/** A route, as `skillc route --format json` prints it. */
export interface Route {
  message: string;
  /** The text routed instead, when the message was a fragment joined to its history. */
  routed_text?: string;
  client: string | null;
  locale: string;
  tier: string;
  consumer: string | null;
  method: "lexical" | "hybrid";
  confident: boolean;
  candidates: Candidate[];
}

interface RouteIndex {
  ids: Map<string, number>;
  /** Per word (by id), the documents holding it and its weighted count in each, side by side
   * (two lists of numbers rather than a pair a posting: a catalog's bodies give it hundreds of
   * thousands). */
  postings: { docs: number[]; counts: number[] }[];
  docs: [number, number][];
  avg: number;
  /** Per document, BM25's length term: `K1 · (1 − B + B · length / avg)`. */
  lengthNorms: Float64Array;
}

/** A word's counts summed over the catalog and how many skills hold it: which of an unknown
 * word's neighbours it is read as. */
function weightOf(ix: RouteIndex, id: number): [number, number] {
  const { counts } = ix.postings[id];
  let sum = 0;
  for (const c of counts) sum += c;
  return [sum, counts.length];
}

const indexes = new WeakMap<Bundle, RouteIndex>();

function indexOf(snap: Snapshot, b: Bundle, rules: RoutingRules): RouteIndex {
  const known = indexes.get(b);
  if (known) return known;
  const shown: [number, number][] = [];
  b.skills.forEach((s, i) => {
    if (s.catalogVisible) shown.push([i, s.card]);
  });
  const cards = [...new Set(shown.map(([, c]) => c))].sort((x, y) => x - y);
  const terms = new Map<number, string>(
    rows(snap.db, "SELECT card, terms FROM card_route WHERE card IN (SELECT value FROM json_each(?))", [JSON.stringify(cards)])
      .map((r) => [Number(r[0]), String(r[1])]),
  );
  const ix: RouteIndex = { ids: new Map(), postings: [], docs: [], avg: 1, lengthNorms: new Float64Array() };
  let total = 0;
  for (const [skill, card] of shown) {
    let len = 0;
    for (const pair of (terms.get(card) ?? "").split(" ")) {
      if (pair === "") continue;
      // `word:count`, or a word counted once alone.
      const at = pair.lastIndexOf(":");
      const word = at < 0 ? pair : pair.slice(0, at);
      const count = at < 0 ? 1 : Number(pair.slice(at + 1));
      let id = ix.ids.get(word);
      if (id === undefined) {
        id = ix.ids.size;
        ix.ids.set(word, id);
        ix.postings.push({ docs: [], counts: [] });
      }
      const posting = ix.postings[id];
      posting.docs.push(ix.docs.length);
      posting.counts.push(count);
      len += count;
    }
    total += len;
    ix.docs.push([skill, len]);
  }
  ix.avg = Math.max(total / Math.max(ix.docs.length, 1), 1);
  const { k1, b: lengthShare } = rules;
  ix.lengthNorms = Float64Array.from(ix.docs, ([, len]) => k1 * (1 - lengthShare + (lengthShare * len) / ix.avg));
  indexes.set(b, ix);
  return ix;
}

/** Whether an indexed word no skill holds is read as its nearest known word: `spelling` letters a–z. */
function spellingApplies(word: string, spelling: { min_letters: number; max_letters: number }): boolean {
  return word.length >= spelling.min_letters && word.length <= spelling.max_letters && /^[a-z]+$/.test(word);
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** The known word one edit from `word` (a letter deleted, inserted or changed, or two
 * neighbouring letters swapped, letters a–z) with its id: of several, the one whose counts sum
 * highest, then the one more skills hold, then the first in code-point order. */
function nearestKnown(word: string, ix: RouteIndex): [string, number] | undefined {
  let best: [string, number] | undefined;
  oneEdit(word, (candidate) => {
    const id = ix.ids.get(candidate);
    if (id === undefined) return;
    if (best !== undefined) {
      const [w, s] = weightOf(ix, id);
      const [bw, bs] = weightOf(ix, best[1]);
      if (w < bw || (w === bw && (s < bs || (s === bs && candidate >= best[0])))) return;
    }
    best = [candidate, id];
  });
  return best;
}

/** Each word one edit from `word` (letters a–z): a letter deleted, two neighbouring letters
 * swapped, a letter changed or one inserted (Rust's `spelling::one_edit`). */
function oneEdit(word: string, each: (edit: string) => void): void {
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail) {
      each(head + tail.slice(1));
      if (tail.length > 1) each(head + tail[1] + tail[0] + tail.slice(2));
      for (const c of LETTERS) if (c !== tail[0]) each(head + c + tail.slice(1));
    }
    for (const c of LETTERS) each(head + c + tail);
  }
}

/** The text a message's meaning vector is made of when it is not `text` (Rust's
 * `Meaning::spelt`): `text` lowercased, each misspelt word read as the route's words read it. A
 * word of letters a–z that `spelling` applies to, that is no whole piece of the table (`row`),
 * and whose one routing word `spelling` applies to too (at most `max_words` such words), unless
 * bundle `b`'s index holds it: when the catalog's nearest known word of that routing word is
 * found, the word is replaced by the whole piece one edit from it read as that same word with the
 * lowest row number. Undefined when no word is replaced, or the artifact's rules do not ask it. */
export function speltForMeaning(snap: Snapshot, b: Bundle, text: string, row: (piece: string) => number | undefined): string | undefined {
  const rules = routingRules(snap);
  const spelling = rules.spelling;
  if (!rules.meaning_spelling || !spelling) return undefined;
  const ix = indexOf(snap, b, rules);
  let tried = 0;
  let replaced = false;
  const read = (word: string): string => {
    if (tried === rules.max_words || !spellingApplies(word, spelling) || row(word) !== undefined) return word;
    const found = routeTokens(word, rules);
    if (found.length !== 1 || !spellingApplies(found[0], spelling)) return word;
    tried += 1;
    if (ix.ids.has(found[0])) return word;
    const near = nearestKnown(found[0], ix);
    if (near === undefined) return word;
    let best: [number, string] | undefined;
    oneEdit(word, (edit) => {
      const r = row(edit);
      if (r === undefined || (best !== undefined && r >= best[0])) return;
      const t = routeTokens(edit, rules);
      if (t.length === 1 && t[0] === near[0]) best = [r, edit];
    });
    if (best === undefined) return word;
    replaced = true;
    return best[1];
  };
  const out = eachWord(text.toLowerCase(), read);
  return replaced ? out : undefined;
}

/** `lower` with each run of word characters replaced by what `word` makes of it; what lies
 * between the runs is kept as it is (Rust's `words::each_word`). */
export function eachWord(lower: string, word: (run: string) => string): string {
  const between = new RegExp(NOT_WORD.source, "gu");
  let out = "";
  let at = 0;
  for (const m of lower.matchAll(between)) {
    if (m.index! > at) out += word(lower.slice(at, m.index));
    out += m[0];
    at = m.index! + m[0].length;
  }
  if (at < lower.length) out += word(lower.slice(at));
  return out;
}

/** The matched idf mass at which a skill scores 0.5 in a catalog of `n` skills (docs/routing.md):
 * `evidence_factor` · m², m the weight of a word one skill holds. */
export function evidenceScale(n: number, rules: RoutingRules): number {
  const m = Math.max(Math.log(1 + (n - 0.5) / 1.5), 0);
  return rules.evidence_factor * m * m;
}

/** The hybrid cut of a catalog of `n` skills when the settings give none (docs/routing.md). */
/** The first `n` items of `items` in `order`: a sort when they are few against `n`, else each
 * item placed among the best so far (the candidates after the first may be hundreds of
 * skills a little under the bar, of which a route lists five). */
export function best<T>(items: T[], n: number, order: (x: T, y: T) => number): T[] {
  if (items.length <= 4 * n) return items.sort(order).slice(0, n);
  const kept: T[] = [];
  if (n === 0) return kept;
  for (const item of items) {
    if (kept.length === n && order(item, kept[n - 1]) >= 0) continue;
    let at = kept.length === n ? n - 1 : kept.length;
    while (at > 0 && order(item, kept[at - 1]) < 0) {
      kept[at] = kept[at - 1];
      at -= 1;
    }
    kept[at] = item;
  }
  return kept;
}

export function hybridFloor(n: number, rules: RoutingRules): number {
  return Math.floor((rules.hybrid_floor_base + rules.hybrid_floor_slope * Math.log(Math.max(n, 1))) * 1e6 + 0.5) / 1e6;
}

/** A hybrid route's bar: `floor`, raised by `small_talk_share` of how much closer the message is
 * to small talk (its closest cosine) than to the catalog's nearest skill, and by
 * `talk_words_share` of how far its pieces lean to small talk beyond `talk_words_from` (`words`;
 * null for an artifact without the weights), lowered by `talk_words_lowers` of how far they lean
 * to requests below it, never under `floor`; kept to 6 decimals. */
export function raisedFloor(floor: number, smallTalk: number, nearest: number, rules: RoutingRules, words: number | null = null): number {
  let byWords = 0;
  if (words !== null) {
    const beyond = words - (rules.talk_words_from ?? 0);
    byWords = beyond * (beyond > 0 ? (rules.talk_words_share ?? 0) : (rules.talk_words_lowers ?? 0));
  }
  const margin = rules.small_talk_share * Math.max(smallTalk - nearest, 0);
  return Math.floor((floor + Math.max(margin + byWords, 0)) * 1e6 + 0.5) / 1e6;
}

/** `routing:` of workspace.yaml with a client's own keys over it, the rules' defaults otherwise. */
export function routingSettings(snap: Snapshot, client: string): { top_k: number; min_score: number; hybrid_min_score: number | null; confident: number } {
  const own = JSON.parse(snap.manifest.get("routing_clients") ?? "{}")[client] ?? {};
  return { hybrid_min_score: null, ...routingRules(snap).defaults, ...JSON.parse(snap.manifest.get("routing") ?? "{}"), ...own };
}

/** The query vector as every runtime uses it: checked against the artifact's model, rounded to 32-bit floats. */
function queryOf(snap: Snapshot, vector: number[]): Float32Array {
  const model = snap.manifest.get("embedding_model");
  const dims = Number(snap.manifest.get("embedding_dims") ?? "0");
  if (model === undefined) {
    throw new RequestError("this artifact carries no embedding vectors (its workspace sets no `routing.embedding_model`), so it routes by words only; give no query vector");
  }
  if (vector.length !== dims) throw new RequestError(`the query vector has ${vector.length} numbers; this artifact's model \`${model}\` gives ${dims}`);
  return Float32Array.from(vector);
}

/** The skills the catalog shows for this consumer and context, ranked for `message`; by words
 * and vectors (`hybrid`) when `queryVector`, the message's embedding, is given. */
export function route(snap: Snapshot, b: Bundle, consumer: string | null, ctx: Context, message: string, top?: number, queryVector?: number[]): Route {
  const settings = routingSettings(snap, b.client);
  const rules = routingRules(snap);
  // Catalog position (1-based) of each skill of the bundle; 0: not in this catalog.
  const position = new Int32Array(b.skills.length);
  catalogMembers(snap, b, consumer, ctx).forEach((i, n) => (position[i] = n + 1));
  const ix = indexOf(snap, b, rules);
  const query = queryVector === undefined ? undefined : queryOf(snap, queryVector);
  const words: [string, number][] = [];
  let tried = 0;
  for (let t of routeTokens(message, rules)) {
    if (words.length === rules.max_words) break;
    let id = ix.ids.get(t);
    if (id === undefined) {
      // Read as its nearest known word (docs/routing.md, "Misspelt words").
      if (!rules.spelling || tried === rules.max_words || !spellingApplies(t, rules.spelling)) continue;
      tried += 1;
      const near = nearestKnown(t, ix);
      if (near === undefined) continue;
      [t, id] = near;
    }
    if (!words.some(([, w]) => w === id)) words.push([t, id]);
  }
  // Then neighbouring words written together, where the index holds them as one word.
  for (const t of joinedWords(message, rules)) {
    if (words.length === rules.max_words) break;
    const id = ix.ids.get(t);
    if (id !== undefined && !words.some(([, w]) => w === id)) words.push([t, id]);
  }
  // Each document's score: the lexical one of the documents holding a word of the message
  // (`touched`, in the order they were first met), 0 for the others.
  const n = ix.docs.length;
  const lexical = new Float64Array(n);
  const held = new Array<number[] | undefined>(n);
  const touched: number[] = [];
  if (words.length) {
    const raw = new Float64Array(n);
    words.forEach(([, w], k) => {
      const { docs, counts } = ix.postings[w];
      const df = docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let j = 0; j < df; j++) {
        const doc = docs[j];
        const tf = counts[j];
        raw[doc] += (idf * tf) / (tf + ix.lengthNorms[doc]);
        const h = held[doc];
        if (h === undefined) {
          held[doc] = [k];
          touched.push(doc);
        } else {
          h.push(k);
        }
      }
    });
    const scale = evidenceScale(n, rules);
    for (const doc of touched) lexical[doc] = Math.floor((raw[doc] / (raw[doc] + scale)) * 1e6 + 0.5) / 1e6;
  }
  const scored: [number, number, number[]][] = [];
  let floor = query === undefined ? settings.min_score : settings.hybrid_min_score ?? hybridFloor(ix.docs.length, rules);
  // The bar of the candidates after the first: `tail_below` under a hybrid route's bar when
  // the catalog's bar cuts, the bar itself otherwise.
  let tail = floor;
  // The documents that may score down to the tail: the first `tail_words` by their words.
  let byWords = new Set<number>();
  const keep = (doc: number, s: number) => {
    if ((s >= floor || (s >= tail && byWords.has(doc))) && position[ix.docs[doc][0]] > 0) {
      scored.push([s, ix.docs[doc][0], held[doc] ?? []]);
    }
  };
  const name = (i: number) => b.skills[i].name;
  if (query === undefined) {
    for (const doc of touched) keep(doc, lexical[doc]);
  } else {
    // Hybrid (docs/routing.md): the lexical share plus the closest text's cosine, every shown
    // skill, in the index's order (the Rust runtime's).
    const dense = denseOf(snap, b, ix.docs);
    const cos = cosines(query, dense);
    const similarity = closest(cos, dense);
    const talk = settings.hybrid_min_score == null ? smallTalkOf(snap) : null;
    // Nearer small talk than any skill's summary (its first vector): the bar rises
    // (docs/routing.md, "Small talk").
    if (talk !== null) {
      const nearest = dense.docs.reduce((a, vectors) => vectors.length ? Math.max(a, cos[vectors[0]]) : a, 0);
      const weights = talkWeightsOf(snap);
      const meaning = weights === null ? null : meaningOf(snap);
      const lean = weights === null || meaning === null ? null
        : talkWords(weights, meaning.pieces(message), rules.talk_words_ends === true);
      floor = raisedFloor(floor, closest(cosines(query, talk), talk)[0], nearest, rules, lean);
    }
    const below = settings.hybrid_min_score == null ? (rules.tail_below ?? 0) : 0;
    tail = Math.floor(Math.max(floor - below, 0) * 1e6 + 0.5) / 1e6;
    if (tail < floor) {
      // The first `tail_words` the catalog shows by lexical score, ties by name.
      const worded = touched.filter((doc) => lexical[doc] > 0 && position[ix.docs[doc][0]] > 0);
      const byScore = (x: number, y: number) => (lexical[y] - lexical[x]) ||
        (name(ix.docs[x][0]) < name(ix.docs[y][0]) ? -1 : name(ix.docs[x][0]) > name(ix.docs[y][0]) ? 1 : 0);
      byWords = new Set(best(worded, Math.max(rules.tail_words ?? 0, 0), byScore));
    }
    similarity.forEach((best, doc) => {
      const fused = Math.floor((rules.lexical_share * lexical[doc] + (1 - rules.lexical_share) * best) * 1e6 + 0.5) / 1e6;
      if (fused > 0) keep(doc, fused);
    });
  }
  const order = (x: [number, number, number[]], y: [number, number, number[]]) =>
    (y[0] - x[0]) || (name(x[1]) < name(y[1]) ? -1 : name(x[1]) > name(y[1]) ? 1 : 0);
  const first = best(scored, Math.max(top ?? settings.top_k, 0), order);
  // Only a first candidate at the bar makes a route: the others may be under it.
  if (first.length > 0 && first[0][0] < floor) first.length = 0;
  const candidates = first.map(([score, i, held]) => ({
    id: `SK${position[i]}`,
    name: b.skills[i].name,
    qualified_name: b.skills[i].qualifiedName,
    score,
    matched: held.map((k) => words[k][0]),
  }));
  return {
    message,
    client: b.client || null,
    locale: b.locale,
    tier: b.tier,
    consumer,
    method: query === undefined ? "lexical" : "hybrid",
    confident: candidates.length > 0 && candidates[0].score >= settings.confident,
    candidates,
  };
}
