// The TypeScript runtime on artifacts of the sample workspace, built by the real `skillc`
// (SKILLC names the binary; the README's test command sets it). Parity with the Rust runtime
// on every request is tests/parity/ts_runtime_parity.py; these are the runtime's own promises.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, openSync, closeSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import initSqlJs from "sql.js";

import { Artifact, ArtifactError, ContextError, RequestError, SCHEMA_VERSION, SignatureError } from "../dist/index.js";
import { nameClients } from "../dist/artifact.js";

const root = resolve(import.meta.dirname, "../../../..");
const skillc = process.env.SKILLC ?? join(root, "target/debug/skillc");
let dir, first, second;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "skillc-ts-"));
  first = join(dir, "first.db");
  second = join(dir, "second.db");
  execFileSync(skillc, ["build", join(root, "skills"), "-o", first, "--release-label", "first"], { stdio: "ignore" });
  const ws = join(dir, "ws");
  cpSync(join(root, "skills"), ws, { recursive: true });
  const greeting = join(ws, "public/assistant/greeting/SKILL.md");
  writeFileSync(greeting, readFileSync(greeting, "utf8").replace("Handle greetings", "Answer greetings"));
  execFileSync(skillc, ["build", ws, "-o", second, "--release-label", "second"], { stdio: "ignore" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

const list = (a) => a.catalog({ format: "list" }).text;

test("reads the schema version skillc writes and the release label", async () => {
  const a = await Artifact.open(first);
  assert.equal(a.manifest("schema_version") ?? String(SCHEMA_VERSION), String(SCHEMA_VERSION));
  assert.equal(a.release, "first");
  const c = a.catalog({ client: "hyperline.co", format: "json" });
  assert.equal(c.client, "hyperline.co");
  assert.deepEqual(c.skills.map((s) => s.id), c.skills.map((_, i) => `SK${i + 1}`));
  assert.ok(c.tokens > 0);
  a.close();
});

test("a prompt gives reasons for every skill in or out, and its tokens", async () => {
  const a = await Artifact.open(first);
  const p = a.prompt({ client: "hyperline.co", select: ["pricing", "nope"], context: { page_url: "/pricing", turn: 2 } });
  assert.ok(p.skills.some((s) => s.name === "pricing" && s.reason === "selected"));
  assert.deepEqual(p.removed.find((r) => r.name === "nope"), { name: "nope", reason: "unknown" });
  assert.ok(p.text.endsWith("\n") && p.tokens > 0);
  a.close();
});

test("requests for what was not built, and bad context values, are errors that say so", async () => {
  const a = await Artifact.open(first);
  assert.throws(() => a.catalog({ client: "nope" }), (e) => e instanceof RequestError && /clients: /.test(e.message));
  assert.throws(() => a.catalog({ consumer: "nobody" }), RequestError);
  assert.throws(() => a.catalog({ context: { turn: "soon" } }), ContextError);
  a.close();
});

test("past twenty clients an error names the twenty nearest (the Rust runtime's two lines)", () => {
  assert.equal(nameClients("c", ["a.example", "b.example"]), "clients: a.example, b.example");
  const many = Array.from({ length: 500 }, (_, i) => `client-${i}.example`).sort();
  assert.equal(
    nameClients("client-42.exmple", many),
    "clients (the 20 nearest of 500): client-12.example, client-142.example, client-2.example, " +
      "client-22.example, client-242.example, client-32.example, client-342.example, client-4.example, " +
      "client-40.example, client-402.example, client-41.example, client-412.example, client-42.example, " +
      "client-420.example, client-421.example, client-422.example, client-423.example, client-424.example, " +
      "client-425.example, client-426.example",
  );
});

test("a missing file or a file that is not an artifact is refused clearly", async () => {
  await assert.rejects(Artifact.open(join(dir, "missing.db")), (e) => e instanceof ArtifactError && /does not exist/.test(e.message));
  const junk = join(dir, "junk.db");
  writeFileSync(junk, "not sqlite at all, not even close".repeat(40));
  await assert.rejects(Artifact.open(junk), ArtifactError);
});

test("an artifact swapped in by rename is served from the next call; a bad one is refused", async () => {
  const live = join(dir, "live.db");
  copyFileSync(first, live);
  const a = await Artifact.open(live);
  const [oldText, newText] = [list(a), list(await Artifact.open(second))];
  assert.notEqual(oldText, newText);
  const swap = (src) => {
    copyFileSync(src, join(dir, ".live.tmp"));
    renameSync(join(dir, ".live.tmp"), live);
  };
  swap(second);
  assert.equal(list(a), newText);
  assert.equal(a.release, "second");
  writeFileSync(join(dir, ".live.tmp"), "garbage");
  renameSync(join(dir, ".live.tmp"), live);
  assert.equal(list(a), newText, "the previous artifact stays in service");
  assert.match(a.refused ?? "", /not a readable skillc artifact/);
  // Swaps between calls: every answer is the old or the new artifact, never a mix.
  const seen = new Set();
  for (let i = 0; i < 30; i++) {
    swap(i % 2 ? first : second);
    const text = list(a);
    assert.ok(text === oldText || text === newText, "torn read");
    seen.add(text);
    assert.equal(text, i % 2 ? oldText : newText);
  }
  assert.equal(seen.size, 2);
  assert.equal(a.refused, undefined);
  a.close();
});

test("opened with a public key, only artifacts whose signature verifies are served, on open and on every swap", async () => {
  const key = join(dir, "skillc.key");
  execFileSync(skillc, ["keygen", "-o", key], { stdio: "ignore" });
  const other = join(dir, "other.key");
  execFileSync(skillc, ["keygen", "-o", other], { stdio: "ignore" });
  const signed = (name, label) => {
    const out = join(dir, name);
    execFileSync(skillc, ["build", join(root, "skills"), "-o", out, "--release-label", label, "--sign", key], { stdio: "ignore" });
    return out;
  };
  const [one, two] = [signed("one.db", "one"), signed("two.db", "two")];
  const live = join(dir, "signed-live.db");
  const put = (src, sig) => {
    if (sig !== undefined) copyFileSync(sig, live + ".minisig");
    copyFileSync(src, join(dir, ".signed.tmp"));
    renameSync(join(dir, ".signed.tmp"), live);
  };
  put(one, one + ".minisig");
  const a = await Artifact.open(live, { publicKey: join(dir, "skillc.pub") });
  assert.equal(a.release, "one");
  put(two, two + ".minisig");
  assert.equal(a.release, "two", "a signed swap is served");
  // A tampered swap: the signature is the right one's, the bytes are not.
  const bytes = readFileSync(one);
  bytes[bytes.length - 100] ^= 1;
  writeFileSync(join(dir, ".signed.tmp"), bytes);
  copyFileSync(one + ".minisig", live + ".minisig");
  renameSync(join(dir, ".signed.tmp"), live);
  assert.equal(a.release, "two", "the previous artifact stays in service");
  assert.match(a.refused ?? "", /does not match/);
  // An unsigned swap.
  rmSync(live + ".minisig");
  put(one);
  assert.equal(a.release, "two");
  assert.match(a.refused ?? "", /has no signature/);
  // Its signature arrives: served.
  copyFileSync(one + ".minisig", live + ".minisig");
  assert.equal(a.release, "one");
  assert.equal(a.refused, undefined);
  a.close();
  await assert.rejects(Artifact.open(live, { publicKey: join(dir, "other.pub") }), (e) => e instanceof SignatureError && /another key/.test(e.message));
  writeFileSync(live + ".minisig", readFileSync(one + ".minisig", "utf8").slice(0, 60));
  await assert.rejects(Artifact.open(live, { publicKey: join(dir, "skillc.pub") }), /damaged or truncated/);
  // Without a key, the same file opens as before.
  assert.equal((await Artifact.open(live)).release, "one");
});

/** A signed build of the sample at `dir/name`, with the key `dir/sign.key` (made once). */
function signedBuild(name, label) {
  const key = join(dir, "sign.key");
  try {
    statSync(key);
  } catch {
    execFileSync(skillc, ["keygen", "-o", key], { stdio: "ignore" });
  }
  const out = join(dir, name);
  execFileSync(skillc, ["build", join(root, "skills"), "-o", out, "--release-label", label, "--sign", key], { stdio: "ignore" });
  return out;
}

test("opened with a key, an in-place write is never served, and a signed swap still is", async () => {
  const live = signedBuild("inplace.db", "one");
  const two = signedBuild("inplace-two.db", "two");
  const a = await Artifact.open(live, { publicKey: join(dir, "sign.pub") });
  // The same inode, overwritten where the greeting skill's body is (read on the first prompt).
  const inode = statSync(live).ino;
  const bytes = readFileSync(live);
  const fd = openSync(live, "r+");
  for (let at = bytes.indexOf("a friendly assistant"); at >= 0; at = bytes.indexOf("a friendly assistant", at + 1)) {
    writeSync(fd, Buffer.from("a HACKED!! assistant"), 0, 20, at);
  }
  closeSync(fd);
  assert.equal(statSync(live).ino, inode);
  const text = a.prompt({ select: ["greeting"] }).text;
  assert.match(text, /a friendly assistant/);
  assert.doesNotMatch(text, /HACKED/);
  assert.match(a.refused ?? "", /does not match/);
  copyFileSync(two + ".minisig", live + ".minisig");
  copyFileSync(two, join(dir, ".inplace.tmp"));
  renameSync(join(dir, ".inplace.tmp"), live);
  assert.equal(a.release, "two");
  assert.equal(a.refused, undefined);
  a.close();
});

/** What opening `artifact` with `key` says, in a child process killed after 20 s (a read of a
 * pipe blocks the whole event loop, so it cannot be timed out from here). */
function openInChild(artifact, key) {
  const script = `import("${join(import.meta.dirname, "../dist/index.js")}").then(async ({ Artifact }) => {
    try { const a = await Artifact.open(process.argv[1], process.argv[2] ? { publicKey: process.argv[2] } : {}); console.log("opened " + a.release); a.close(); }
    catch (e) { console.log(e.message); }
  });`;
  const run = spawnSync(process.execPath, ["-e", script, artifact, key ?? ""], { timeout: 20000, encoding: "utf8" });
  assert.equal(run.error, undefined, "still waiting after 20 s");
  return run.stdout;
}

test("a signature or key that is a pipe, a device or too large is refused at once", async () => {
  const live = signedBuild("pipe.db", "one");
  const key = join(dir, "sign.pub");
  const sig = live + ".minisig";
  const good = readFileSync(sig);
  rmSync(sig);
  execFileSync("mkfifo", [sig]);
  assert.match(openInChild(live, key), /not a regular file/);
  rmSync(sig);
  symlinkSync("/dev/zero", sig);
  assert.match(openInChild(live, key), /not a regular file/);
  rmSync(sig);
  writeFileSync(sig, Buffer.concat([good, Buffer.alloc(128 * 1024, "\n")]));
  assert.match(openInChild(live, key), /larger than 64 KiB/);
  writeFileSync(sig, good);
  assert.match(openInChild(live, key), /opened one/);
  const pipe = join(dir, "pipe.pub");
  execFileSync("mkfifo", [pipe]);
  assert.match(openInChild(live, pipe), /not a regular file/);
  const zero = join(dir, "zero.pub");
  symlinkSync("/dev/zero", zero);
  assert.match(openInChild(live, zero), /not a regular file/);
  // An artifact that is a pipe, with a key or without.
  const artifactPipe = join(dir, "artifact-pipe.db");
  execFileSync("mkfifo", [artifactPipe]);
  assert.match(openInChild(artifactPipe, key), /is not a file/);
  assert.match(openInChild(artifactPipe), /is not a file/);
});

test("signed builds named with a newline or a line separator verify", async () => {
  for (const name of ["new\nline.db", "line\u2028sep.db", "tab\tback\\slash.db"]) {
    const out = signedBuild(name, "named");
    const a = await Artifact.open(out, { publicKey: join(dir, "sign.pub") });
    assert.equal(a.release, "named", JSON.stringify(name));
    a.close();
  }
});

test("a route ranks the catalog's skills for a message and says which words matched", async () => {
  const a = await Artifact.open(first);
  const r = a.route({ client: "hyperline.co", message: "How much does the pro plan cost?" });
  // The sample declares no model: the built-in meaning makes the message's vector.
  assert.equal(r.method, "hybrid");
  assert.equal(r.candidates[0].name, "pricing");
  assert.deepEqual(r.candidates[0].matched, ["much", "plan", "cost"]);
  const id = a.catalog({ client: "hyperline.co", format: "json" }).skills.find((s) => s.name === "pricing").id;
  assert.equal(r.candidates[0].id, id);
  assert.deepEqual(a.route({ message: "bananas" }).candidates, []);
  assert.equal(a.route({ message: "log in, prices or competitors", top: 1 }).candidates.length, 1);
  a.close();
});

test("a route keeps only the candidates at or above its floor", async () => {
  // The same messages through two builds of the sample, cut at 0.0 and at 0.65 (routes are
  // hybrid, with the built-in meaning: `hybrid_min_score` is their floor).
  const built = {};
  const cuts = [["all", "{ min_score: 0.0, hybrid_min_score: 0.0, top_k: 50 }"], ["cut", "{ min_score: 0.65, hybrid_min_score: 0.65, top_k: 50 }"]];
  for (const [name, routing] of cuts) {
    const ws = join(dir, `cut-${name}`);
    cpSync(join(root, "skills"), ws, { recursive: true });
    const yaml = join(ws, "workspace.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8") + `\nrouting: ${routing}\n`);
    const out = join(dir, `cut-${name}.db`);
    execFileSync(skillc, ["build", ws, "-o", out], { stdio: "ignore" });
    built[name] = await Artifact.open(out);
  }
  const messages = [
    "turn this into a PDF press release",
    "hello there, how are you today",
    "what does the pricing look like for a small team in the UK",
    "can you compare us with the competitors",
    "summarize this document and cite the sources please",
    "I want to write a press release about our new product launch",
  ];
  let dropped = 0, kept = 0;
  for (const message of messages) {
    const of = (a) => a.route({ message }).candidates.map((c) => [c.name, c.score]);
    const wide = of(built.all), narrow = of(built.cut);
    assert.deepEqual(narrow, wide.filter((c) => c[1] >= 0.65), message);
    dropped += wide.length - narrow.length;
    kept += narrow.length;
  }
  assert.ok(dropped > 0 && kept > 0, `dropped ${dropped}, kept ${kept}`);
  built.all.close();
  built.cut.close();
});

test("a plugin's skill is found by its plain name where the build stored so, not where this runtime would decide", async () => {
  // Two plugins' skills made by hand in the sample (`acme:pricing`, `beta:analyzer` alone of
  // their plain names), the slots then marked against the rule: `pricing` not found by its
  // plain name, `analyzer` found for `beta` (`[name, entry, 1]` in `slot_list.slots`).
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(join(root, "compiler/runtime/tests/data/sample.db")));
  db.run(`UPDATE entry SET name = 'acme:' || name WHERE name = 'pricing';
    UPDATE entry SET name = 'beta:analyzer' WHERE name = 'api-caller';
    UPDATE slot_list SET slots = (SELECT json_group_array(json(CASE
      WHEN json_extract(s.value, '$[1]') IN (SELECT id FROM entry WHERE name = 'beta:analyzer')
      THEN json_insert(s.value, '$[#]', 1) ELSE s.value END)) FROM json_each(slot_list.slots) s);`);
  const path = join(dir, "plain.db");
  writeFileSync(path, db.export());
  db.close();
  const a = await Artifact.open(path);
  const p = a.prompt({ select: ["analyzer", "pricing", "acme:pricing"] });
  assert.deepEqual(p.removed, [{ name: "pricing", reason: "unknown" }]);
  assert.deepEqual(p.skills.filter((s) => s.reason === "selected").map((s) => s.name), ["acme:pricing", "beta:analyzer"]);
  a.close();
});

test("an artifact keeps at most maxBundles bundles, the least recently used let go first", async () => {
  const a = await Artifact.open(first, { maxBundles: 2 });
  const json = (client) => a.catalog({ client, format: "json" });
  const [one, two, three] = ["augment.org", "example.com", "hyperline.co"];
  const kept = json(one);
  const second = json(two);
  assert.equal(json(one), kept); // `two` is now the least recently used
  json(three);
  assert.equal(json(one), kept, "kept");
  const again = json(two);
  assert.notEqual(again, second, "let go");
  assert.deepEqual(again, second);
  a.maxBundles = 1; // `two` was asked for last: only it stays
  assert.equal(json(two), again);
  assert.notEqual(json(one), kept);
  const asked = { client: one, message: "How much does it cost?" };
  const routed = a.route(asked);
  a.maxBundles = 0;
  assert.equal(a.maxBundles, 0);
  assert.deepEqual(a.route(asked), routed);
  assert.notEqual(json(one), json(one));
  a.maxBundles = 3;
  const held = json(one);
  a.unload({ client: one });
  assert.notEqual(json(one), held);
  assert.throws(() => a.unload({ client: "nobody.example" }), RequestError);
  assert.equal((await Artifact.open(first)).maxBundles, 64);
});
