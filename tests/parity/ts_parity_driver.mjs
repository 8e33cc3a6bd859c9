// Answers the TypeScript parity run's requests in one Node process, as Java's ParityDriver
// does: a JSON array of arguments a line on standard input (the command line of `cli.js`
// without `node cli.js`), one JSON line a request on standard output, `{status, stdout,
// stderr}`, in order. A process a request took minutes on two cores (Node's start and SQLite's
// WebAssembly each time); ts_runtime_parity.py still runs a few as real processes.
//
//   node tests/parity/ts_parity_driver.mjs PATH/TO/dist/command.js < requests.jsonl

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const { answer } = await import(pathToFileURL(process.argv[2]).href);
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") continue;
  let stdout = "";
  let stderr = "";
  const status = await answer(JSON.parse(line), {
    out: (text) => { stdout += text; },
    err: (text) => { stderr += text; },
  });
  process.stdout.write(JSON.stringify({ status, stdout, stderr }) + "\n");
}
