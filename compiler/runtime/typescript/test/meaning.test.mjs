// The built-in meaning model (docs/routing.md, "Meaning"): a hand-made table's pieces and
// vectors (the rules of compiler/runtime/src/route/meaning.rs), and routes of the sample
// workspace built by the real `skillc` (SKILLC), which must be the Rust command's, byte for byte.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import initSqlJs from "sql.js";

import { Artifact, ArtifactError } from "../dist/index.js";
import { MAX_PIECES, Meaning } from "../dist/meaning.js";
import { EDGE, pairKey, talkPairs, talkWords } from "../dist/dense.js";

const root = resolve(import.meta.dirname, "../../../..");
const skillc = process.env.SKILLC ?? join(root, "target/debug/skillc");

// Row numbers of the hand-made table's pieces.
const VOCAB = ["[UNK]", "price", "##s", "list", "café", "cafe", "価", "格", "𝒜", "##𝒜", "𠀋", "pr", "##ices", "stra", "##sse"];
const id = (piece) => VOCAB.indexOf(piece);

/** A table's bytes; by default four-number rows, row i = [i, 1, 127 - i, -i], scale 0.5 · (i + 1). */
function tableBytes({ vocab = VOCAB, folds = "é\te\nß\tss\n", count = vocab.length, extra = [], dims = 4, scales, rows } = {}) {
  const u32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const text = (s) => Buffer.concat([u32(Buffer.byteLength(s)), Buffer.from(s)]);
  scales ??= Array.from({ length: count }, (_, i) => 0.5 * (i + 1));
  rows ??= Array.from({ length: 4 * count }, (_, k) => [k >> 2, 1, 127 - (k >> 2), -(k >> 2)][k % 4]);
  const scaleBytes = Buffer.alloc(4 * count);
  scales.forEach((x, i) => scaleBytes.writeFloatLE(x, 4 * i));
  const rowBytes = Buffer.from(Int8Array.from(rows).buffer);
  return new Uint8Array(Buffer.concat([Buffer.from("SKILLC-MEANING-1"), u32(dims), u32(count), text(vocab.join("\n")), text(folds), scaleBytes, rowBytes, Buffer.from(extra)]));
}

const table = () => Meaning.parse(tableBytes());

test("a word splits into the longest pieces the table holds, the ones after the first with ##", () => {
  const m = table();
  // `prices` is price + ##s, not pr + ##ices: the longest piece from the start first.
  assert.deepEqual(m.pieces("Prices LIST"), [id("price"), id("##s"), id("list")]);
  assert.deepEqual(m.pieces("list, list"), [id("list"), id("list")]);
  assert.deepEqual(m.pieces(""), []);
});

test("a word with a part no piece holds has no pieces at all", () => {
  const m = table();
  assert.deepEqual(m.pieces("pricez list"), [id("list")]);
  assert.deepEqual(m.pieces("listprice"), []);
});

test("accents fold before the pieces are looked up, into one letter or more", () => {
  const m = table();
  assert.deepEqual(m.pieces("Café"), [id("cafe")]);
  assert.deepEqual(m.pieces("straße"), [id("stra"), id("##sse")]);
});

test("a run of an unspaced script gives each of its characters alone, unknown ones skipped", () => {
  const m = table();
  assert.deepEqual(m.pieces("価格表"), [id("価"), id("格")]);
  assert.deepEqual(m.pieces("list価格"), [id("list"), id("価"), id("格")]);
});

test("characters beyond 16 bits count as one each", () => {
  const m = table();
  assert.deepEqual(m.pieces("𠀋表𠀋"), [id("𠀋"), id("𠀋")]);
  assert.deepEqual(m.pieces("𝒜𝒜"), [id("𝒜"), id("##𝒜")]);
  // 100 characters (200 UTF-16 units) are a word; 101 are not.
  assert.equal(m.pieces("𝒜".repeat(100)).length, 100);
  assert.deepEqual(m.pieces("𝒜".repeat(101)), []);
});

test("a text has at most 256 pieces and a word of more than 100 characters none", () => {
  const m = table();
  assert.equal(MAX_PIECES, 256);
  assert.equal(m.pieces("list ".repeat(300)).length, 256);
  assert.deepEqual(m.pieces("prices ".repeat(200)), Array.from({ length: 256 }, (_, k) => (k % 2 ? id("##s") : id("price"))));
  assert.equal(m.pieces("価".repeat(300)).length, 256);
  // list + 97 × ##s: 101 characters; one fewer is a word of 97 pieces.
  assert.deepEqual(m.pieces(`list${"s".repeat(97)} list`), [id("list")]);
  assert.equal(m.pieces(`list${"s".repeat(96)}`).length, 97);
});

test("a vector is the scaled sum of its rows in 64-bit floats, rounded half up to whole numbers", () => {
  const m = table();
  assert.equal(m.dims, 4);
  // price (scale 1.0, row [1, 1, 126, -1]) + ##s (scale 1.5, row [2, 1, 125, -2]).
  const sum = [1 + 3, 1 + 1.5, 126 + 187.5, -1 - 3];
  assert.deepEqual(m.vector("prices"), sum.map((x) => Math.floor((x / 313.5) * 127 + 0.5)));
  assert.deepEqual(m.vector("prices"), [2, 1, 127, -2]);
  assert.deepEqual(m.vector("nothing known"), [0, 0, 0, 0]);
  // `[UNK]` is no word of a text; cafe: row [5, 1, 122, -5] at scale 3.
  assert.deepEqual(m.vector("[UNK]"), [0, 0, 0, 0]);
  assert.deepEqual(m.vector("cafe"), [5, 1, 127, -5]);
});

test("the sum is of 64-bit floats in the pieces' order, divided by the largest before times 127", () => {
  // Rows summed in 32-bit floats would give 92 for the last number (the Python runtime and
  // the Rust one give 91).
  const f32 = Meaning.parse(tableBytes({
    vocab: ["a", "b", "c"], dims: 3, scales: [0.17312543094158173, 0.6139031648635864, 1.0283684730529785],
    rows: [-2, -91, -43, 106, -49, -25, -41, -94, 122],
  }));
  assert.deepEqual(f32.vector("a b c"), [20, -127, 91]);
  // 2^59 - 2^59 + 1 in this order is 1; in the other, the 1 is lost against 2^59 first.
  const order = Meaning.parse(tableBytes({ vocab: ["big", "neg", "one"], dims: 2, scales: [2 ** 53, 2 ** 53, 1], rows: [64, 1, -64, -1, 1, 1] }));
  assert.deepEqual(order.vector("big neg one"), [127, 127]);
  assert.deepEqual(order.vector("one neg big"), [0, 127]);
  // Just below 18.5 · L / 127: t / L · 127 rounds to 18.5 (then 19), t · 127 / L stays below.
  const sL = 0.40103498101234436;
  const halves = Meaning.parse(tableBytes({ vocab: ["a", "b", "c"], dims: 2, scales: [sL / 2, sL, 4.814254163134073e-16], rows: [37, 0, 0, 127, -1, 0] }));
  assert.deepEqual(halves.vector("a b c"), [19, 127]);
});

test("a table that is cut short, too long, not one, or whose pieces repeat is refused", () => {
  const good = tableBytes();
  assert.throws(() => Meaning.parse(good.subarray(0, good.length - 1)), /cut short/);
  assert.throws(() => Meaning.parse(tableBytes({ extra: [0] })), /disagree in size/);
  assert.throws(() => Meaning.parse(new TextEncoder().encode("SKILLC-MEANING-1")), /cut short/);
  assert.throws(() => Meaning.parse(new TextEncoder().encode("other bytes entirely")), /not a meaning table/);
  assert.throws(() => Meaning.parse(tableBytes({ vocab: ["a", "a", "b"] })), /disagree in size/);
  const bad = tableBytes({ vocab: ["a", "\u00ff"] });
  bad.set([0xc3, 0x28], 16 + 8 + 4 + 2);
  assert.throws(() => Meaning.parse(bad), /not UTF-8/);
});

let dir, sample, wide;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "skillc-ts-meaning-"));
  sample = join(dir, "sample.db");
  execFileSync(skillc, ["build", join(root, "skills"), "-o", sample], { stdio: "ignore" });
  // The sample again with every candidate of a route shown: every skill's score is compared.
  const ws = join(dir, "wide");
  cpSync(join(root, "skills"), ws, { recursive: true });
  writeFileSync(join(ws, "workspace.yaml"), readFileSync(join(ws, "workspace.yaml"), "utf8") + "\nrouting: { hybrid_min_score: 0.0, top_k: 100 }\n");
  wide = join(dir, "wide.db");
  execFileSync(skillc, ["build", ws, "-o", wide], { stdio: "ignore" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** `skillc route … --format json`'s standard output. */
function rust(artifact, message, flags = []) {
  const out = spawnSync(skillc, ["route", artifact, message, ...flags, "--format", "json"], { encoding: "utf8" });
  assert.equal(out.status, 0, out.stderr);
  return out.stdout;
}

const json = (r) => JSON.stringify(r, null, 2) + "\n";

test("the small-talk lean counts pairs of neighbouring pieces as the Rust runtime does", () => {
  // The sums of the Rust runtime's test (tests/sample.rs): pairs in the message's order.
  const pieces = Int16Array.from([1500, -500, 0, 250]);
  const both = { pieces, pairs: { keys: Uint32Array.from([pairKey(0, 1), pairKey(3, 0)]), weights: Int16Array.from([900, -2000]) } };
  assert.equal(talkWords(both, [0, 1, 0, 1]), (1000 + 900) / 4000);
  assert.equal(talkWords(both, [1, 0]), 1000 / 3000);
  assert.equal(talkWords(both, [3, 0]), (250 + 1500 - 2000) / 3000);
  assert.equal(talkWords(both, [7]), 0);
  assert.equal(talkWords(both, []), 0);
  // Without the pairs' row: the pieces alone.
  assert.equal(talkWords({ pieces, pairs: null }, [0, 1, 0, 1]), 0.5);
  assert.deepEqual([pairKey(65535, 65535), pairKey(65536, 0), pairKey(0, 65536)], [2 ** 32 - 1, null, null]);
  // With the edges (the rules' `talk_words_ends`): how a message opens and ends counts too, the
  // Rust runtime's sums.
  const edged = [pairKey(0, 1), pairKey(1, EDGE), pairKey(3, 0), pairKey(EDGE, 3)];
  const edges = { pieces, pairs: { keys: Uint32Array.from(edged), weights: Int16Array.from([900, -300, -2000, 400]) } };
  assert.equal(talkWords(edges, [3, 0, 1], true), (1250 - 1100 + 100) / 7000);
  assert.equal(talkWords(edges, [3, 0, 1], false), (1250 - 1100) / 5000);
  assert.equal(talkWords(edges, [1], true), (-500 - 300) / 3000);
  assert.equal(talkWords(edges, [7], true), 0);
  assert.equal(talkWords(edges, [], true), 0);
  assert.equal(talkWords({ pieces, pairs: null }, [0, 1, 0, 1], true), 0.5);
  assert.deepEqual([...talkPairs([3, 0, 3, 0], true)].sort((x, y) => x - y),
    [pairKey(0, 3), pairKey(0, EDGE), pairKey(3, 0), pairKey(EDGE, 3)]);
});

test("without a vector, a route of the sample is hybrid and the Rust command's, in every script", async () => {
  const messages = [
    "How much does the pro plan cost?", "Quels sont vos tarifs ?", "価格はいくらですか", "ราคาแพ็กเกจเท่าไหร่",
    "Wie viel kostet die Größe XL? café crème", "Сколько стоит подписка?", "料金プラン 𠀋𠀌 pricing", "कीमत क्या है",
    "turn this into a PDF press release", "bananas", "?!", "review my code ".repeat(120),
    // Misspelt words, read for the meaning as the route's words read them.
    "can you reveiw my pull requets", "my invoce is wrnog, refnud please",
  ];
  let candidates = 0;
  for (const artifact of [sample, wide]) {
    const a = await Artifact.open(artifact);
    for (const message of messages) {
      for (const client of [undefined, "hyperline.co"]) {
        const r = a.route({ client, message });
        assert.equal(r.method, "hybrid");
        candidates += r.candidates.length;
        assert.equal(json(r), rust(artifact, message, client ? ["--client", client] : []), message);
      }
    }
    a.close();
  }
  // In the wide build, every skill with any similarity is a candidate: hundreds of scores.
  assert.ok(candidates > 200, `${candidates} candidates compared`);
});

test("a fragment joined to its history is routed by the joined text's meaning, as in Rust", async () => {
  const a = await Artifact.open(sample);
  const history = join(dir, "history.json");
  writeFileSync(history, JSON.stringify([{ text: "how much does the basic plan cost?", time: 1000 }]));
  const r = a.route({ message: "and also for the pro plan", history: [{ text: "how much does the basic plan cost?", time: 1000 }], time: 1010 });
  assert.equal(r.routed_text, "how much does the basic plan cost? and also for the pro plan");
  assert.equal(json(r), rust(sample, "and also for the pro plan", ["--history", history, "--time", "1010"]));
  a.close();
});

/** A copy of the sample artifact, named `name` in the test folder, with `sql` run on it. */
async function sampleChangedBy(name, sql) {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(sample));
  db.run(sql);
  const path = join(dir, name);
  writeFileSync(path, db.export());
  db.close();
  return path;
}

test("the table is the file's: a swap to an artifact without one routes by words, and back", async () => {
  const live = join(dir, "live.db");
  copyFileSync(sample, live);
  const without = await sampleChangedBy("without.db", "DELETE FROM meaning");
  const swap = (src) => {
    copyFileSync(src, join(dir, ".live.tmp"));
    renameSync(join(dir, ".live.tmp"), live);
  };
  const a = await Artifact.open(live);
  const message = "How much does the pro plan cost?";
  assert.equal(a.route({ message }).method, "hybrid");
  swap(without);
  const words = a.route({ message });
  assert.equal(words.method, "lexical");
  assert.equal(json(words), rust(without, message));
  swap(sample);
  assert.equal(json(a.route({ message })), rust(sample, message));
  a.close();
});

test("a damaged table is refused on the route that needs it, naming the file", async () => {
  const damaged = await sampleChangedBy("damaged.db", "UPDATE meaning SET data = substr(data, 1, 100)");
  const a = await Artifact.open(damaged);
  assert.ok(a.catalog({}).skills.length > 0);
  assert.throws(() => a.route({ message: "prices" }), (e) => e instanceof ArtifactError && e.message.includes(damaged) && /its meaning table: the meaning table is cut short/.test(e.message));
  a.close();
});

test("a small-talk pairs' row cut short or out of order is refused on the route that needs it", async () => {
  const row = "name = 'static-minilm-v1:small-talk-pairs'";
  const cut = await sampleChangedBy("cut-pairs.db", `UPDATE meaning SET data = substr(data, 1, length(data) - 1) WHERE ${row}`);
  // The first two keys swapped.
  const swapped = await sampleChangedBy("swapped-pairs.db", `UPDATE meaning SET data = CAST(substr(data, 5, 4) || substr(data, 1, 4) || substr(data, 9) AS BLOB) WHERE ${row}`);
  for (const [path, why] of [[cut, /its small-talk pair weights are \d+ bytes, not pairs of 6/], [swapped, /its small-talk pair weights are not in rising order/]]) {
    const a = await Artifact.open(path);
    assert.throws(() => a.route({ message: "sorry, wrong window lol" }), (e) => e instanceof ArtifactError && why.test(e.message), path);
    a.close();
  }
});

test("byte vectors' dot products, sixteen numbers at a time in WebAssembly, give the cosines summed in order", async () => {
  const { cosines, denseFrom } = await import("../dist/dense.js");
  // The cosine as Rust's `dense::cosine` computes it: products summed in order, in f64.
  const reference = (q, v) => {
    let dot = 0, qq = 0, vv = 0;
    for (let i = 0; i < q.length; i++) {
      dot += q[i] * v[i];
      qq += q[i] * q[i];
      vv += v[i] * v[i];
    }
    return qq === 0 || vv === 0 ? 0 : dot / (Math.sqrt(qq) * Math.sqrt(vv));
  };
  let seed = 1;
  const next = () => (seed = (seed * 48271) % 2147483647);
  const dims = 256;
  // An odd count (the last vector alone), the extremes, a vector of zeros.
  const vectors = Array.from({ length: 7 }, (_, k) =>
    Array.from({ length: dims }, () => (k === 0 ? 127 : k === 1 ? -127 : k === 2 ? 0 : (next() % 255) - 127)));
  const values = Float32Array.from(vectors.flat());
  const starts = Int32Array.from({ length: vectors.length + 1 }, (_, k) => k * dims);
  const dense = denseFrom(values, starts, [Int32Array.from([0, 1, 2, 3, 4, 5, 6])]);
  assert.ok(dense.bytes !== undefined && dense.data instanceof Int8Array);
  for (const query of [vectors[0], vectors[1], vectors[3], Array.from({ length: dims }, () => (next() % 255) - 127)]) {
    assert.deepEqual([...cosines(Float32Array.from(query), dense)], vectors.map((v) => reference(query, v)));
  }
  // Bytes of a length that is no multiple of 16 are summed in JavaScript, in order.
  const short250 = vectors.map((v) => v.slice(0, 250));
  const unaligned = denseFrom(Float32Array.from(short250.flat()), Int32Array.from({ length: 8 }, (_, k) => k * 250), []);
  assert.ok(unaligned.bytes === undefined && unaligned.data instanceof Int8Array);
  assert.deepEqual([...cosines(Float32Array.from(short250[4]), unaligned)], short250.map((v) => reference(short250[4], v)));
  // A query of other numbers, and stored numbers that are not bytes, are summed in order.
  const odd = Array.from({ length: dims }, (_, i) => Math.fround(Math.sin(i) * 3.7));
  assert.deepEqual([...cosines(Float32Array.from(odd), dense)], vectors.map((v) => reference(odd, v)));
  const floats = denseFrom(Float32Array.from([...values.subarray(0, dims)].map((x, i) => x + Math.fround(i / 7))), Int32Array.from([0, dims]), []);
  assert.ok(floats.bytes === undefined && floats.data instanceof Float32Array);
  assert.deepEqual([...cosines(Float32Array.from(odd), floats)], [reference(odd, [...floats.data])]);
  // A vector of another length than the query's has no similarity.
  const short = denseFrom(Float32Array.from([1, 2, 3, ...vectors[0]]), Int32Array.from([0, 3, 3 + dims]), []);
  assert.deepEqual([...cosines(Float32Array.from(vectors[0]), short)], [0, 1]);
});

test("a card's summary with its body of another length is refused, naming the file", async () => {
  const short = await sampleChangedBy("short-meaning.db", "UPDATE card_route SET meaning = x'0102' WHERE card = 1");
  const a = await Artifact.open(short);
  assert.throws(() => a.route({ message: "prices" }), (e) => e instanceof ArtifactError && e.message === `\`${short}\` is not a readable skillc artifact: card 1's meaning holds 2 bytes, not 256`);
  a.close();
});
