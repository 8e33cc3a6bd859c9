// Run-time figures of the TypeScript runtime on one artifact (SPEC 9's runtime questions):
// opening it, a catalog lookup warm (p50, p99), a prompt for five skills warm, a route warm
// (target 2 ms: hybrid, with the built-in meaning of an artifact whose workspace declares no
// model), and the CLI as a whole process (median). Usage: node bench.mjs ARTIFACT [CLIENT]
//   (after `npm run build`; the reference workload: `skillc-bench --keep DIR`, then `skillc build`)

import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

import { Artifact } from "./dist/index.js";

const [artifactPath, client = null] = process.argv.slice(2);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const us = (ms) => `${(ms * 1000).toFixed(1)} us`;

let t = performance.now();
const artifact = await Artifact.open(artifactPath);
const open = performance.now() - t;
t = performance.now();
const first = artifact.catalog({ client, format: "markdown" });
const firstCatalog = performance.now() - t;

const times = (fn, n) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    fn();
    out.push(performance.now() - s);
  }
  return out;
};
const catalogs = times(() => artifact.catalog({ client, format: "markdown" }), 2000);
const picks = first.skills.slice(0, 5).map((s) => s.name);
const prompts = times(() => artifact.prompt({ client, select: picks }), 500);
// Messages of a few words of every 50th skill's description, and one matching nothing.
const messages = [...first.skills.filter((_, i) => i % 50 === 0).map((s) => s.description.split(/\s+/).slice(0, 6).join(" ")), "bananas and kiwis"];
for (const message of messages) artifact.route({ client, message });
const routes = Array.from({ length: 20 }, () => messages.flatMap((message) => times(() => artifact.route({ client, message }), 1))).flat();

const cli = fileURLToPath(new URL("./dist/cli.js", import.meta.url));
const args = [cli, "catalog", artifactPath, ...(client ? ["--client", client] : [])];
const processes = times(() => execFileSync(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] }), 10);

console.log(`artifact ${artifactPath}, bundle ${client ?? "global"}: ${first.skills.length} skills in the catalog`);
console.log(`open (read the file into sql.js): ${open.toFixed(1)} ms; first catalog (loads the bundle): ${firstCatalog.toFixed(1)} ms`);
console.log(`catalog lookup, warm: p50 ${us(quantile(catalogs, 0.5))}, p99 ${us(quantile(catalogs, 0.99))}`);
console.log(`prompt for 5 selected skills, warm: p50 ${us(quantile(prompts, 0.5))}, p99 ${us(quantile(prompts, 0.99))}`);
const method = artifact.route({ client, message: messages[0] }).method;
console.log(`route (${method}), warm (${messages.length} messages, 20 times each): p50 ${us(quantile(routes, 0.5))}, p99 ${us(quantile(routes, 0.99))}   target <= 2 ms`);
console.log(`cli.js catalog as a whole process: median ${quantile(processes, 0.5).toFixed(0)} ms over 10 runs`);
