// The words routing makes of a message (docs/routing.md), on the cases the Rust runtime's
// `words_of_every_script_are_the_reference_of_the_other_runtimes` asserts: every runtime must
// split and lowercase as Rust does, whatever Unicode version the platform has.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";

import { Artifact, ArtifactError } from "../dist/index.js";

const root = resolve(import.meta.dirname, "../../../..");
const skillc = process.env.SKILLC ?? join(root, "target/debug/skillc");
let dir, sample, artifact;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "skillc-ts-words-"));
  sample = join(dir, "sample.db");
  execFileSync(skillc, ["build", join(root, "skills"), "-o", sample], { stdio: "ignore" });
  artifact = await Artifact.open(sample);
});

after(() => {
  artifact.close();
  rmSync(dir, { recursive: true, force: true });
});

// The stopwords and suffixes are the artifact's (manifest `routing_rules`).
const routeTokens = (text) => artifact.routeTokens(text);

/** A copy of the sample artifact with its manifest edited by `sql`. */
async function edited(name, sql, params) {
  const SQL = await createRequire(import.meta.url)("sql.js")();
  const db = new SQL.Database(readFileSync(sample));
  db.run(sql, params);
  const path = join(dir, name);
  writeFileSync(path, db.export());
  db.close();
  return Artifact.open(path);
}

test("routing's words and constants are the artifact's, not copies of the runtime's", async () => {
  assert.deepEqual(artifact.route({ message: "greetings and hello" }).candidates[0].matched, ["greet"]);
  const rules = JSON.parse(artifact.manifest("routing_rules"));
  rules.stopwords.push("greetings");
  rules.defaults.top_k = 0;
  const a = await edited("rules.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", [JSON.stringify(rules)]);
  assert.deepEqual(a.routeTokens("greetings there"), []);
  assert.deepEqual(a.route({ message: "greetings and hello" }).candidates, []);
  assert.ok(a.route({ message: "greetings and hello", top: 5 }).candidates.every((c) => c.matched.length === 0));
  a.close();
});

test("an artifact without routing rules is refused by route only", async () => {
  const a = await edited("old.db", "DELETE FROM manifest WHERE key = 'routing_rules'", []);
  assert.ok(a.catalog({ format: "json" }).skills.length > 0);
  assert.throws(() => a.route({ message: "hello" }), (e) => e instanceof ArtifactError && /no `routing_rules`.*build it again/.test(e.message));
  a.close();
});

test("a misspelt word is read as the catalog's word when the artifact says so (docs/routing.md)", async () => {
  const message = "I cant log in to my acount";
  const rust = JSON.parse(execFileSync(skillc, ["route", sample, message, "--format", "json"], { encoding: "utf8" }));
  const route = artifact.route({ message });
  assert.deepEqual(route.candidates, rust.candidates);
  assert.deepEqual(route.candidates[0].matched, ["log", "account"]);
  const rules = JSON.parse(artifact.manifest("routing_rules"));
  delete rules.spelling;
  const old = await edited("no-spelling.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", [JSON.stringify(rules)]);
  assert.deepEqual(old.route({ message }).candidates[0].matched, ["log"]);
  old.close();
  rules.spelling = { min_letters: 5, max_letters: 65 };
  const wide = await edited("wide-spelling.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", [JSON.stringify(rules)]);
  assert.throws(() => wide.route({ message }), (e) => e instanceof ArtifactError && /5 to 65 letters/.test(e.message));
  wide.close();
});

test("words of every script are the Rust runtime's", () => {
  assert.deepEqual(routeTokens("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"]);
  assert.deepEqual(routeTokens("ΑΣ..Β ΟΔΟΣ"), ["ασ", "β", "οδος"]);
  assert.deepEqual(routeTokens("x\u0363y ⓐⓑ ½ ١٢٣ 👩\u200d💻 ❤\ufe0f"), ["x\u0363y", "ⓐⓑ", "½", "١٢٣"]);
  assert.deepEqual(routeTokens("café e\u0301te İstanbul"), ["café", "e\u0301te", "i\u0307stanbul"]);
});

test("runs of unspaced scripts become pairs of characters, as in the Rust runtime", () => {
  assert.deepEqual(routeTokens("価格表"), ["価格", "格表"]);
  assert.deepEqual(routeTokens("PDFの変換 と Prices"), ["pdf", "の変", "変換", "と", "pric"]);
  assert.deepEqual(routeTokens("ราคาแพ็กเกจ"), ["รา", "าค", "คา", "าแ", "แพ", "พ\u0e47", "\u0e47ก", "กเ", "เก", "กจ"]);
  assert.deepEqual(routeTokens("テスト駆動"), ["テス", "スト", "ト駆", "駆動"]);
  assert.deepEqual(routeTokens("𠀋𠀌 x"), ["𠀋𠀌"]);
});

test("a plural of y meets its word, unless the artifact's suffixes were written before it", async () => {
  const plurals = "queries queried query activities activity cookies cookie";
  assert.deepEqual(routeTokens(plurals), ["query", "query", "query", "activ", "activ", "cooky", "cooky"]);
  const rules = JSON.parse(artifact.manifest("routing_rules"));
  rules.suffixes = rules.suffixes.filter((s) => s !== "itie" && s !== "ie");
  const before = await edited("before-ie.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", [JSON.stringify(rules)]);
  assert.deepEqual(before.routeTokens(plurals), ["queri", "query", "query", "activiti", "activ", "cooki", "cooki"]);
  before.close();
});

test("English suffixes come off words of ASCII letters, as in the Rust runtime", () => {
  assert.deepEqual(routeTokens("Deploying deployed deployments running called carefully mp3ing café"), ["deploy", "deploy", "deploy", "run", "call", "carefully", "mp3ing", "café"]);
  assert.deepEqual(routeTokens("How much are the Prices of pricing-uk?"), ["much", "pric", "pric", "uk"]);
  assert.deepEqual(routeTokens("going tuned studied ipv6ing größer added planning"), ["going", "tun", "study", "ipv6ing", "größer", "add", "plan"]);
});

// The Rust runtime's a_message_is_read_with_its_words_in_other_languages_glossed.
test("a message is glossed as the Rust runtime glosses it", async () => {
  const { gloss, lookUp } = await import("../dist/glossary.js");
  const lines = ["factura\tinvoice", "facturas\tinvoices", "天气\tweather", "天气预报\tweather forecast", "明天\ttomorrow", "会議\tmeeting", "lebenslauf\tresume", "und\t"]
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const words = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(""));
  const none = () => false;
  assert.equal(gloss(words, "Necesito las FACTURAS, ya!", none), "necesito las  invoices , ya!");
  assert.equal(gloss(words, "帮我查一下明天天气预报吧", none), "帮我查一下 tomorrow  weather forecast 吧");
  assert.equal(gloss(words, "PDFの会議録", none), "pdfの meeting 録");
  // An empty gloss (English stopwords only, as the build writes it): read and left out.
  assert.equal(gloss(words, "Factura und Lebenslauf", none), " invoice      resume ");
  assert.equal(gloss(words, "und", none), "  ");
  assert.equal(gloss(words, "lebenslauf factura", (w) => w === "factura"), " resume  factura");
  assert.equal(gloss(words, "nothing to read here", none), undefined);
  assert.equal(gloss(words, "", none), undefined);
  const count = (text, word) => text.split(word).length - 1;
  let long = gloss(words, "Factura ".repeat(300), none);
  assert.deepEqual([count(long, "invoice"), count(long, "factura")], [256, 44]);
  long = gloss(words, `明天${"吧".repeat(300)}明天`, none);
  assert.deepEqual([count(long, "tomorrow"), count(long, "明天")], [1, 1]);
  // The Rust runtime's every_word_is_found_where_it_lies_and_a_line_without_a_tab_holds_none.
  const many = Array.from({ length: 500 }, (_, n) => `w${String(n).padStart(4, "0")}\t${"g".repeat((n % 40) + 1)}`);
  const data = new TextEncoder().encode(many.map((l) => `${l}\n`).join(""));
  many.forEach((line, n) => assert.equal(lookUp(data, `w${String(n).padStart(4, "0")}`), line.split("\t")[1]));
  for (const absent of ["w", "w0500", "", "zz", "w0250\tg"]) assert.equal(lookUp(data, absent), undefined, absent);
  const small = new TextEncoder().encode("a\tx\nb\nc\ty");
  assert.deepEqual(["a", "b", "c"].map((w) => lookUp(small, w)), ["x", undefined, "y"]);
  assert.equal(lookUp(new Uint8Array(0), "a"), undefined);
});

test("a route's first few candidates are those a full sort gives, however many score", async () => {
  // `best` keeps the first n of many candidates (the candidates after the first may be
  // hundreds a little under the bar) without sorting them all: the same as a sort, ties by name.
  const { best } = await import("../dist/route.js");
  const order = (x, y) => (y[0] - x[0]) || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const size of [0, 1, 3, 19, 20, 21, 80, 400]) {
    for (const n of [0, 1, 2, 5, 50]) {
      // Scores of few values, so that many tie and the names decide.
      const items = Array.from({ length: size }, (_, i) => [Math.floor(next() * 8) / 8, `skill-${(i * 7919) % 1000}`]);
      const sorted = [...items].sort(order).slice(0, n);
      assert.deepEqual(best([...items], n, order), sorted, `${size} items, first ${n}`);
    }
  }
});
