// The vector half of a hybrid route (docs/routing.md): each shown skill's closest stored text to
// the query, as compiler/runtime/src/route/dense.rs computes it. A bundle's vectors are read once
// into typed arrays; a route reads them in place and computes each distinct vector's cosine once.

import { ArtifactError, rows, type Bundle, type Snapshot } from "./artifact.js";
import { byteDots, type ByteDots } from "./simd.js";

/** A bundle's stored vectors. */
export interface Dense {
  /** The distinct vectors, one after another: bytes when every number is a whole one from
   * -127 to 127 (the built-in model's, docs/routing.md "Meaning"), else 32-bit floats. */
  data: Int8Array | Float32Array;
  /** Where each vector starts in `data`, and where the last ends. */
  starts: Int32Array;
  norms: Float64Array;
  /** Per document of the route index: the numbers of its vectors (summary, then examples). */
  docs: Int32Array[];
  /** Byte vectors of one length, a multiple of 16: their dot products in WebAssembly SIMD
   * (./simd.ts); absent otherwise, or without WebAssembly SIMD. */
  bytes?: ByteDots;
}

const indexes = new WeakMap<Bundle, Dense>();

/** A vector's length, summed in order (as every runtime sums it). */
function norm(v: ArrayLike<number>, from = 0, to = v.length): number {
  let total = 0;
  for (let i = from; i < to; i++) total += v[i] * v[i];
  return Math.sqrt(total);
}

/** Whether every number is a whole one from -127 to 127. */
function bytesOnly(v: ArrayLike<number>): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isInteger(v[i]) || Math.abs(v[i]) > 127) return false;
  return true;
}

/** Per document of the route index (`docs`: each document's skill first), its vectors. */
export function denseOf(snap: Snapshot, b: Bundle, docs: ReadonlyArray<readonly [number, number]>): Dense {
  const known = indexes.get(b);
  if (known) return known;
  const skills = docs.map(([skill]) => skill);
  const cards = [...new Set(skills.map((skill) => b.skills[skill].card))].sort((x, y) => x - y);
  const listed = new Map<number, number[]>(
    rows(snap.db, "SELECT id, vectors FROM card WHERE id IN (SELECT value FROM json_each(?))", [JSON.stringify(cards)])
      .map((r) => [Number(r[0]), String(r[1] ?? "").split(" ").filter((v) => v).map(Number)]),
  );
  const wanted = [...new Set([...listed.values()].flat())].sort((x, y) => x - y);
  const stored = rows(snap.db, "SELECT id, data FROM vector WHERE id IN (SELECT value FROM json_each(?))", [JSON.stringify(wanted)]);
  // A vector of `embedding_dims` bytes holds a signed byte a number (the built-in meaning's
  // whole numbers); any other, little-endian 32-bit floats.
  const dims = Number(snap.manifest.get("embedding_dims") ?? "0");
  // With the built-in meaning, a card's summary with its body mixed in is a text of its own,
  // after its trigger examples (`card_route.meaning`; the build writes none with a model of the
  // workspace's own). Numbered after the stored vectors.
  const mixedRows = dims > 0
    ? rows(snap.db, "SELECT card, meaning FROM card_route WHERE meaning IS NOT NULL AND card IN (SELECT value FROM json_each(?))", [JSON.stringify(cards)])
    : [];
  const mixed = new Map<number, number>();
  for (const [card, data] of mixedRows) {
    if ((data as Uint8Array).byteLength !== dims) {
      throw new ArtifactError(`\`${snap.path}\` is not a readable skillc artifact: card ${Number(card)}'s meaning holds ${(data as Uint8Array).byteLength} bytes, not ${dims}`);
    }
    mixed.set(Number(card), stored.length + mixed.size);
  }
  const found = [...stored, ...mixedRows];
  const numbers = new Map<number, number>();
  const starts = new Int32Array(found.length + 1);
  const byteWise = (data: Uint8Array) => data.byteLength === dims;
  found.forEach(([id, data], k) => {
    if (k < stored.length) numbers.set(Number(id), k);
    const bytes = data as Uint8Array;
    starts[k + 1] = starts[k] + (byteWise(bytes) ? bytes.byteLength : Math.floor(bytes.byteLength / 4));
  });
  const values = new Float32Array(starts[found.length]);
  found.forEach(([, data], k) => {
    const bytes = data as Uint8Array;
    if (byteWise(bytes)) {
      const signed = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let i = starts[k]; i < starts[k + 1]; i++) values[i] = signed[i - starts[k]];
      return;
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = starts[k]; i < starts[k + 1]; i++) values[i] = view.getFloat32((i - starts[k]) * 4, true);
  });
  const vectors = skills.map((skill) => {
    const card = b.skills[skill].card;
    const own = (listed.get(card) ?? []).filter((v) => numbers.has(v)).map((v) => numbers.get(v) as number);
    const body = mixed.get(card);
    return Int32Array.from(body === undefined ? own : [...own, body]);
  });
  const dense = denseFrom(values, starts, vectors);
  indexes.set(b, dense);
  return dense;
}

/** The vectors `values[starts[k]..starts[k + 1]]` and each document's numbers of them. */
export function denseFrom(values: Float32Array, starts: Int32Array, docs: Int32Array[]): Dense {
  const count = starts.length - 1;
  const norms = new Float64Array(count);
  for (let k = 0; k < count; k++) norms[k] = norm(values, starts[k], starts[k + 1]);
  const dense: Dense = { data: bytesOnly(values) ? Int8Array.from(values) : values, starts, norms, docs };
  const n = count > 0 ? starts[1] : 0;
  if (dense.data instanceof Int8Array && starts.every((s, k) => s === k * n)) dense.bytes = byteDots(dense.data, count, n);
  return dense;
}

/** The dot product of `q` and the vector of `data` at `at`, summed in order (as every runtime
 * sums it). */
function dot(q: Float64Array, data: Int8Array | Float32Array, at: number): number {
  let total = 0;
  for (let i = 0; i < q.length; i++) total += q[i] * data[at + i];
  return total;
}

/** Each distinct vector's dot product with the query, or NaN where the lengths differ. */
function dots(q: Float64Array, dense: Dense): Float64Array {
  if (dense.bytes !== undefined && q.length === dense.starts[1] && bytesOnly(q)) return Float64Array.from(dense.bytes.dots(q));
  const count = dense.norms.length;
  const out = new Float64Array(count);
  for (let v = 0; v < count; v++) {
    const at = dense.starts[v];
    out[v] = dense.starts[v + 1] - at === q.length ? dot(q, dense.data, at) : NaN;
  }
  return out;
}

/** Each distinct vector's cosine to the query: 0 when either is all zeros or their lengths
 * differ (Rust's `dense::cosine`). */
export function cosines(query: ArrayLike<number>, dense: Dense): Float64Array {
  const q = Float64Array.from(query);
  const qNorm = norm(q);
  if (qNorm === 0) return new Float64Array(dense.norms.length);
  const out = dots(q, dense);
  for (let v = 0; v < out.length; v++) {
    out[v] = dense.norms[v] === 0 || Number.isNaN(out[v]) ? 0 : out[v] / (qNorm * dense.norms[v]);
  }
  return out;
}

const smallTalks = new WeakMap<Snapshot, Dense | null>();

/** The small-talk vectors beside the built-in meaning table (docs/routing.md, "Small talk"), as
 * one document of them all, read once; null without them. */
export function smallTalkOf(snap: Snapshot): Dense | null {
  const known = smallTalks.get(snap);
  if (known !== undefined) return known;
  const model = snap.manifest.get("embedding_model");
  const dims = Number(snap.manifest.get("embedding_dims") ?? "0");
  let talk: Dense | null = null;
  const found = model === undefined || dims === 0 ? [] : rows(snap.db, "SELECT data FROM meaning WHERE name = ?", [`${model}:small-talk`]);
  const data = found.length ? (found[0][0] as Uint8Array) : undefined;
  if (data !== undefined && (data.byteLength === 0 || data.byteLength % dims !== 0)) {
    throw new ArtifactError(`\`${snap.path}\` is not a readable skillc artifact: its small-talk vectors are ${data.byteLength} bytes, not vectors of ${dims} numbers`);
  }
  if (data !== undefined) {
    const count = data.byteLength / dims;
    const signed = new Int8Array(data.buffer, data.byteOffset, data.byteLength);
    talk = denseFrom(Float32Array.from(signed), Int32Array.from({ length: count + 1 }, (_, k) => k * dims), [Int32Array.from({ length: count }, (_, k) => k)]);
  }
  smallTalks.set(snap, talk);
  return talk;
}

/** The weights towards small talk (thousandths) of the meaning table's pieces, by row, and of
 * pairs of neighbouring pieces: their keys (`pairKey`, rising) and weights in the same order,
 * as the artifact holds them (null in an artifact built before them). */
export interface TalkWeights { pieces: Int16Array; pairs: { keys: Uint32Array; weights: Int16Array } | null }

const talkWordsOf = new WeakMap<Snapshot, TalkWeights | null>();

/** A pair of neighbouring pieces (rows of the meaning table) as one number: first × 65,536 +
 * second; null when a row is 65,536 or more. */
export function pairKey(first: number, second: number): number | null {
  return first < 65536 && second < 65536 ? first * 65536 + second : null;
}

/** The small-talk weights beside the built-in meaning (docs/routing.md, "Small talk"): a 16-bit
 * number a piece; for `n` pairs, their `n` keys (rising, little-endian u32s) then their `n`
 * weights (i16s). Read once; null without them. */
export function talkWeightsOf(snap: Snapshot): TalkWeights | null {
  const known = talkWordsOf.get(snap);
  if (known !== undefined) return known;
  const model = snap.manifest.get("embedding_model");
  const row = (name: string): Uint8Array | undefined => {
    const found = model === undefined ? [] : rows(snap.db, "SELECT data FROM meaning WHERE name = ?", [`${model}:${name}`]);
    return found.length ? (found[0][0] as Uint8Array | null) ?? new Uint8Array(0) : undefined;
  };
  const bad = (why: string) => new ArtifactError(`\`${snap.path}\` is not a readable skillc artifact: its small-talk ${why}`);
  const data = row("small-talk-words");
  let weights: TalkWeights | null = null;
  if (data !== undefined) {
    if (data.byteLength % 2 !== 0) throw bad(`word weights are ${data.byteLength} bytes, not 16-bit numbers`);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const pieces = Int16Array.from({ length: data.byteLength / 2 }, (_, k) => view.getInt16(2 * k, true));
    const pairData = row("small-talk-pairs");
    let pairs: TalkWeights["pairs"] = null;
    if (pairData !== undefined) {
      if (pairData.byteLength % 6 !== 0) throw bad(`pair weights are ${pairData.byteLength} bytes, not pairs of 6`);
      const at = new DataView(pairData.buffer, pairData.byteOffset, pairData.byteLength);
      const count = pairData.byteLength / 6;
      const keys = Uint32Array.from({ length: count }, (_, k) => at.getUint32(4 * k, true));
      for (let k = 1; k < count; k++) if (keys[k] <= keys[k - 1]) throw bad("pair weights are not in rising order");
      pairs = { keys, weights: Int16Array.from({ length: count }, (_, k) => at.getInt16(4 * count + 2 * k, true)) };
    }
    weights = { pieces, pairs };
  }
  talkWordsOf.set(snap, weights);
  return weights;
}

/** The row past any table's end that stands for a message's edges (Rust's `EDGE`). */
export const EDGE = 65535;

/** A message's distinct pairs of neighbouring pieces by `pairKey`; with `ends`, its pairs with the
 * edge too: (EDGE, first piece) and (last piece, EDGE). */
export function talkPairs(pieces: readonly number[], ends: boolean): Set<number> {
  const pairs = new Set<number>();
  const add = (key: number | null) => { if (key !== null) pairs.add(key); };
  for (let k = 1; k < pieces.length; k++) add(pairKey(pieces[k - 1], pieces[k]));
  if (ends && pieces.length) {
    add(pairKey(EDGE, pieces[0]));
    add(pairKey(pieces[pieces.length - 1], EDGE));
  }
  return pairs;
}

/** How much a message's pieces (rows of the meaning table, in order) lean to small talk: the mean
 * weight (thousandths) of its distinct pieces and, when the artifact weighs pairs, of its distinct
 * pairs of neighbouring pieces (with `ends`, the artifact's `talk_words_ends`, its edges' too); 0
 * without any. */
export function talkWords(weights: TalkWeights, pieces: readonly number[], ends = false): number {
  const distinct = new Set(pieces);
  const pairs = weights.pairs !== null ? talkPairs(pieces, ends) : new Set<number>();
  if (distinct.size + pairs.size === 0) return 0;
  let total = 0;
  for (const p of distinct) total += p < weights.pieces.length ? weights.pieces[p] : 0;
  if (weights.pairs !== null) for (const key of pairs) total += pairWeight(weights.pairs, key);
  return total / ((distinct.size + pairs.size) * 1000);
}

/** A pair's weight, found by halving the rising keys; 0 for a pair the lists do not hold. */
function pairWeight(pairs: NonNullable<TalkWeights["pairs"]>, key: number): number {
  let lo = 0;
  let hi = pairs.keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pairs.keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < pairs.keys.length && pairs.keys[lo] === key ? pairs.weights[lo] : 0;
}

/** Per document of `dense`, the cosine of its closest vector to the query (0 at worst), from
 * each vector's cosine (`cosines`). */
export function closest(similarity: Float64Array, dense: Dense): Float64Array {
  return Float64Array.from(dense.docs, (vectors) => {
    let best = 0;
    for (const v of vectors) best = Math.max(best, similarity[v]);
    return best;
  });
}
