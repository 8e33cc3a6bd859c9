// The built-in meaning model (docs/routing.md, "Meaning"): a static table of word-piece vectors
// that the artifact carries, read as compiler/runtime/src/route/meaning.rs reads it. A text's
// vector is the weighted sum of its pieces' rows, scaled so that its largest coordinate is 127
// and rounded to whole numbers: every cosine is then exact, the same in every runtime.

import { ArtifactError, rows, type Snapshot } from "./artifact.js";
import { MARK, NOT_WORD, UNSPACED_RUN } from "./route.js";

/** What a meaning table's bytes start with. */
const MAGIC = "SKILLC-MEANING-1";
/** At most this many pieces of a text count (a long message: its first ones). */
export const MAX_PIECES = 256;
/** A word longer than this many characters (code points) has no pieces (WordPiece's limit). */
export const MAX_WORD_CHARS = 100;

/** Reads the parts of a table's bytes in order, refusing to read past their end. */
class Reader {
  at = 0;
  private readonly view: DataView;
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true });

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  take(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new Error("the meaning table is cut short");
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  u32(): number {
    const b = this.take(4);
    return this.view.getUint32(b.byteOffset - this.bytes.byteOffset, true);
  }

  text(): string {
    const b = this.take(this.u32());
    try {
      return this.utf8.decode(b);
    } catch {
      throw new Error("the meaning table's text is not UTF-8");
    }
  }
}

/** A meaning table: the vector length, the pieces (row numbers by piece), the folds of accented
 * letters, and each row's scale and int8 values (decoded once, read in place on every route). */
export class Meaning {
  private constructor(
    readonly dims: number,
    private readonly ids: Map<string, number>,
    private readonly folds: Map<string, string>,
    private readonly scales: Float64Array,
    private readonly values: Int8Array,
    /** The longest piece, in UTF-16 units: no longer part of a word can match one. */
    private readonly longest: number,
  ) {}

  /** A table from its bytes: `SKILLC-MEANING-1`, the vector length and the number of rows (u32
   * little-endian each), the pieces (u32 length, then one per line, row order), the folds (u32
   * length, then lines of a letter, a tab and what it folds to), a f32 scale per row, then each
   * row's int8 values. Throws an Error saying what is wrong. */
  static parse(bytes: Uint8Array): Meaning {
    const r = new Reader(bytes);
    if (new TextDecoder("latin1").decode(r.take(MAGIC.length)) !== MAGIC) throw new Error("not a meaning table");
    const dims = r.u32();
    const count = r.u32();
    const ids = new Map<string, number>();
    let longest = 0;
    r.text().split("\n").forEach((piece, i) => {
      ids.set(piece, i);
      longest = Math.max(longest, piece.length);
    });
    const folds = new Map<string, string>();
    // Lines as Rust's `str::lines` reads them: `\n` or `\r\n` ends one, the last may have no end.
    const lines = r.text().split("\n");
    lines.forEach((raw, i) => {
      const ended = i < lines.length - 1;
      const line = ended && raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      const first = line.codePointAt(0);
      if (first === undefined) return;
      const char = String.fromCodePoint(first);
      if (line[char.length] === "\t") folds.set(char, line.slice(char.length + 1));
    });
    const scaleBytes = r.take(count * 4);
    const view = new DataView(scaleBytes.buffer, scaleBytes.byteOffset, scaleBytes.byteLength);
    const scales = new Float64Array(count);
    for (let i = 0; i < count; i++) scales[i] = view.getFloat32(i * 4, true);
    const rowBytes = r.take(count * dims);
    const values = new Int8Array(rowBytes.buffer, rowBytes.byteOffset, rowBytes.byteLength);
    if (ids.size !== count || r.at !== bytes.length || dims === 0) {
      throw new Error("the meaning table's parts disagree in size");
    }
    return new Meaning(dims, ids, folds, scales, values, longest);
  }

  /** The row of a piece the table holds whole, or undefined. */
  row(piece: string): number | undefined {
    return this.ids.get(piece);
  }

  /** A text's pieces (row numbers), in order: its routing words (lowercased runs of word
   * characters); in a run of an unspaced script each character alone; any other run with its
   * accents folded, then split greedily into the longest pieces the table holds, the first
   * plain and the others after `##` (WordPiece). A run that cannot be split entirely has no
   * pieces. At most `MAX_PIECES`. */
  pieces(text: string): number[] {
    const out: number[] = [];
    for (const word of text.toLowerCase().split(NOT_WORD)) {
      if (word === "") continue;
      const runs = /^[\x00-\x7f]*$/.test(word) ? [word] : word.split(UNSPACED_RUN);
      for (let k = 0; k < runs.length; k++) {
        if (k % 2 === 1) {
          for (const c of runs[k]) {
            const id = this.ids.get(c);
            if (id !== undefined) out.push(id);
          }
        } else if (runs[k] !== "") {
          this.wordPieces(this.fold(runs[k]), out);
        }
        if (out.length >= MAX_PIECES) {
          out.length = MAX_PIECES;
          return out;
        }
      }
    }
    return out;
  }

  /** A word with its accents folded as the table's pieces are (`é` → `e`), and its marks that
   * no piece is left out: the model's tokenizer drops every nonspacing mark (`सुबह` is read as
   * `सबह`), as the Rust runtime's `Meaning::fold`. */
  private fold(run: string): string {
    if (/^[\x00-\x7f]*$/.test(run)) return run;
    let out = "";
    for (const c of run) {
      const folded = this.folds.get(c);
      if (folded !== undefined) out += folded;
      else if (this.ids.has(c) || !MARK.test(c)) out += c;
    }
    return out;
  }

  /** WordPiece over code points: `bound[k]` is where the k-th code point starts (UTF-16). */
  private wordPieces(word: string, out: number[]): void {
    const bound: number[] = [];
    for (let i = 0; i < word.length; i++) {
      const unit = word.charCodeAt(i);
      // The low half of a surrogate pair starts no code point.
      if (unit < 0xdc00 || unit > 0xdfff || i === 0 || word.charCodeAt(i - 1) < 0xd800 || word.charCodeAt(i - 1) > 0xdbff) bound.push(i);
    }
    const n = bound.length;
    if (n > MAX_WORD_CHARS) return;
    bound.push(word.length);
    const found: number[] = [];
    for (let start = 0; start < n; ) {
      let hit = -1;
      for (let end = n; end > start; end--) {
        if (bound[end] - bound[start] > this.longest) continue;
        const part = word.slice(bound[start], bound[end]);
        const id = this.ids.get(start > 0 ? `##${part}` : part);
        if (id !== undefined) {
          found.push(id);
          hit = end;
          break;
        }
      }
      if (hit < 0) return;
      start = hit;
    }
    for (const id of found) out.push(id);
  }

  /** A text's vector: Σ scale·row over its pieces in order (64-bit floats), then each
   * coordinate over the largest magnitude times 127, rounded half up: whole numbers from -127
   * to 127, all 0 when no piece is known. */
  vector(text: string): number[] {
    const dims = this.dims;
    const total = new Float64Array(dims);
    for (const p of this.pieces(text)) {
      const scale = this.scales[p];
      const row = p * dims;
      for (let i = 0; i < dims; i++) total[i] += scale * this.values[row + i];
    }
    let largest = 0;
    for (let i = 0; i < dims; i++) largest = Math.max(largest, Math.abs(total[i]));
    const out = new Array<number>(dims).fill(0);
    if (largest === 0) return out;
    for (let i = 0; i < dims; i++) out[i] = Math.floor((total[i] / largest) * 127.0 + 0.5);
    return out;
  }
}

/** Each opened file's table (null: it carries none), read on a route's first need of it; a new
 * file is a new snapshot, so a swap reads the new file's own. */
const tables = new WeakMap<Snapshot, Meaning | null>();

/** The meaning table of the artifact's embedding model, when the artifact carries it (the
 * built-in model; a model of the workspace's own comes with the caller's query vectors). */
export function meaningOf(snap: Snapshot): Meaning | null {
  const known = tables.get(snap);
  if (known !== undefined) return known;
  const model = snap.manifest.get("embedding_model");
  let found: Meaning | null = null;
  const held = model !== undefined && rows(snap.db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meaning'")[0][0] !== 0;
  const data = held ? rows(snap.db, "SELECT data FROM meaning WHERE name = ?", [model])[0]?.[0] : undefined;
  if (data !== undefined) {
    try {
      if (!(data instanceof Uint8Array)) throw new Error("it is not bytes");
      found = Meaning.parse(data);
    } catch (e) {
      throw new ArtifactError(`\`${snap.path}\` is not a readable skillc artifact: its meaning table: ${(e as Error).message}`);
    }
  }
  tables.set(snap, found);
  return found;
}
