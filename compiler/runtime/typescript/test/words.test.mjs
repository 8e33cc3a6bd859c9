// The words routing makes of a message (docs/routing.md), on the cases the Rust runtime's
// `words_of_every_script_are_the_reference_of_the_other_runtimes` asserts: every runtime must
// split and lowercase as Rust does, whatever Unicode version the platform has.

import assert from "node:assert/strict";
import { test } from "node:test";

import { routeTokens } from "../dist/index.js";

test("words of every script are the Rust runtime's", () => {
  assert.deepEqual(routeTokens("नमस्ते दुनिया"), ["नमस", "ते", "दुनिया"]);
  assert.deepEqual(routeTokens("ΑΣ..Β ΟΔΟΣ"), ["ασ", "β", "οδος"]);
  assert.deepEqual(routeTokens("x\u0363y ⓐⓑ ½ ١٢٣ 👩\u200d💻"), ["x\u0363y", "ⓐⓑ", "½", "١٢٣"]);
  assert.deepEqual(routeTokens("café e\u0301te İstanbul"), ["café", "te", "stanbul"]);
});

test("runs of unspaced scripts become pairs of characters, as in the Rust runtime", () => {
  assert.deepEqual(routeTokens("価格表"), ["価格", "格表"]);
  assert.deepEqual(routeTokens("PDFの変換 と Prices"), ["pdf", "の変", "変換", "と", "pric"]);
  assert.deepEqual(routeTokens("ราคาแพ็กเกจ"), ["รา", "าค", "คา", "าแ", "แพ", "พ\u0e47", "\u0e47ก", "กเ", "เก", "กจ"]);
  assert.deepEqual(routeTokens("テスト駆動"), ["テス", "スト", "ト駆", "駆動"]);
  assert.deepEqual(routeTokens("𠀋𠀌 x"), ["𠀋𠀌"]);
});

test("English suffixes come off words of ASCII letters, as in the Rust runtime", () => {
  assert.deepEqual(routeTokens("Deploying deployed deployments running called carefully mp3ing café"), ["deploy", "deploy", "deploy", "run", "call", "carefully", "mp3ing", "café"]);
  assert.deepEqual(routeTokens("How much are the Prices of pricing-uk?"), ["much", "pric", "pric", "uk"]);
  assert.deepEqual(routeTokens("being tuned studied ipv6ing größer added planning"), ["being", "tun", "study", "ipv6ing", "größer", "add", "plan"]);
});
