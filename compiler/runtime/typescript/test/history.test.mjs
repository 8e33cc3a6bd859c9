// Routing's stage 0 (docs/routing.md, "Fragments"): the Rust runtime's cases and answers
// (compiler/runtime/fragment-cases.json, written by its tests), a route with history on the
// runtime crate's sample artifact, and the command's --history and --time.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";

import { Artifact, fragmentSignals, joinFragment, RequestError } from "../dist/index.js";

const runtime = resolve(import.meta.dirname, "../..");
const sample = join(runtime, "tests/data/sample.db");
const asked = [{ text: "how much does the basic plan cost?", time: 1000 }];
const followUp = "and also for the pro plan";

test("every case is answered as the Rust runtime answers it", () => {
  const { cases } = JSON.parse(readFileSync(join(runtime, "fragment-cases.json"), "utf8"));
  assert.ok(cases.length > 20);
  for (const c of cases) {
    assert.deepEqual(fragmentSignals(c.message, c.time, c.history.at(-1)), c.signals, JSON.stringify(c));
    assert.equal(joinFragment(c.message, c.time, c.history) ?? null, c.routed_text, JSON.stringify(c));
  }
});

test("a follow-up within a minute routes joined to the question it follows", async () => {
  const a = await Artifact.open(sample);
  const joined = a.route({ message: followUp, history: asked, time: 1010 });
  assert.equal(joined.message, followUp);
  assert.equal(joined.routed_text, "how much does the basic plan cost? and also for the pro plan");
  assert.equal(joined.candidates[0].name, "pricing");
  assert.deepEqual(Object.keys(joined).slice(0, 2), ["message", "routed_text"]);
  for (const [message, time] of [[followUp, 1300], ["What does the pro plan cost per month?", 1010]]) {
    const r = a.route({ message, history: asked, time });
    assert.ok(!("routed_text" in r), JSON.stringify(r));
    assert.deepEqual(r, a.route({ message }));
  }
  assert.throws(() => a.route({ message: followUp, history: [{ text: "hello" }], time: 1010 }), (e) => e instanceof RequestError && /history item 1/.test(e.message));
  a.close();
});

test("the command reads --history as JSON lines or an array, times as seconds or RFC 3339", () => {
  const dir = mkdtempSync(join(tmpdir(), "skillc-ts-history-"));
  try {
    const cli = (...args) => spawnSync("node", [join(runtime, "typescript/dist/cli.js"), "route", sample, followUp, ...args], { encoding: "utf8" });
    const lines = join(dir, "h.jsonl");
    writeFileSync(lines, '{"text": "how much does the basic plan cost?", "time": "2026-05-01T10:00:00Z"}\n');
    const array = join(dir, "h.json");
    writeFileSync(array, '[{"text": "how much does the basic plan cost?", "time": 1777629600}]');
    for (const file of [lines, array]) {
      const out = cli("--history", file, "--time", "2026-05-01T10:00:10Z", "--format", "json");
      assert.equal(out.status, 0, out.stderr);
      assert.equal(JSON.parse(out.stdout).routed_text, "how much does the basic plan cost? and also for the pro plan");
    }
    const later = cli("--history", lines, "--time", "1777629900");
    assert.equal(later.stdout, cli().stdout);
    writeFileSync(lines, '{"text": "hello", "time": 1}\n{"text": "how much?"}\n');
    const bad = cli("--history", lines);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /h\.jsonl`: line 2: .*`time`/);
    assert.equal(cli("--history", array, "--time", "soon").status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
