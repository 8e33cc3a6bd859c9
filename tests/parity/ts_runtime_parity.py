#!/usr/bin/env python3
"""The TypeScript runtime against the Rust runtime, through their command lines.

Every request of the Python parity test (bundles, contexts, consumers, catalog formats,
selections, routes), plus prompts and routes in text form and requests that must fail, is asked of `skillc` and
of the TypeScript runtime's command (`compiler/runtime/typescript/dist/cli.js`): standard output
and exit status must be byte for byte the same (the error message too, for failures). The
TypeScript answers come from one Node process (ts_parity_driver.mjs runs the command's function,
`dist/command.js`, per request); a few requests also run as real `node cli.js` processes, so
that the command's own entry point is compared too. Given HYBRID (the sample built
with `routing.embedding_model` and tests/embedder/trigrams.py), hybrid routes and refused query
vectors too. Usage: ts_runtime_parity.py SKILLC ARTIFACT [HYBRID]
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from requests_of_parity import answer, asked_and_answered, driver_answers, report  # noqa: E402

# SKILLC_TS_CLI: an installed package's command (tests/packaging/runtimes.sh), not the source's.
CLI = Path(os.environ.get("SKILLC_TS_CLI")
           or Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "typescript" / "dist" / "cli.js")


def main():
    folder = tempfile.mkdtemp()
    asked, rust = asked_and_answered(sys.argv[1:], folder)
    driver = Path(__file__).resolve().parent / "ts_parity_driver.mjs"
    ts = driver_answers(["node", str(driver), str(CLI.parent / "command.js")], asked)
    # The command itself, as a process: its entry point, exit status and output encoding.
    processes = [a for a in asked if a[0] == "catalog"][:3] + [a for a in asked if a[0] == "route"][-2:] + asked[-1:]
    for args in processes:
        k = asked.index(args)
        if answer(["node", str(CLI), *args]) != ts[k]:
            ts[k] = (-1, b"the command's process answered otherwise than its function", b"")
    shutil.rmtree(folder, ignore_errors=True)
    return report(asked, rust, ts, "ts")


if __name__ == "__main__":
    sys.exit(main())
