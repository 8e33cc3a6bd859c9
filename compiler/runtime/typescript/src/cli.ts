#!/usr/bin/env node
// The TypeScript runtime as a command, with the flags and output of `skillc catalog` and
// `skillc prompt`, so that both can be compared request for request:
//
//   node dist/cli.js catalog ARTIFACT [--client ID] [--locale L] [--tier T] [--consumer C]
//                    [--context KEY=VALUE]... [--format xml|markdown|list|json]
//   node dist/cli.js prompt ARTIFACT [--client ID] [--locale L] [--tier T] [--consumer C]
//                    --select NAME[,NAME...] [--context KEY=VALUE]... [--format text|json]
//   node dist/cli.js route ARTIFACT MESSAGE [--client ID] [--locale L] [--tier T] [--consumer C]
//                    [--context KEY=VALUE]... [--top K] [--query-vector FILE]
//                    [--history FILE [--time T]] [--format text|json]
//
// A route without --query-vector is hybrid when the artifact carries its model's meaning table
// (the built-in model), as `skillc route`. Exit status as skillc's: 0 success, 1 a request for
// something that was not built, 2 usage or I/O error.

import { setFlagsFromString } from "node:v8";

import { answer } from "./command.js";

// A one-shot process ends before V8's optimizing compiler would finish SQLite's WebAssembly
// (about 100 ms of waiting on 2 cores): the baseline compiler alone answers sooner.
setFlagsFromString("--liftoff-only");

answer(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
});
