#!/usr/bin/env python3
"""The TypeScript runtime against the Rust runtime, through their command lines.

Every request of the Python parity test (bundles, contexts, consumers, catalog formats,
selections, routes), plus prompts and routes in text form and requests that must fail, is asked of `skillc` and
of `node compiler/runtime/typescript/dist/cli.js`: standard output and exit status must be
byte for byte the same (the error message too, for failures). Given HYBRID (the sample built
with `routing.embedding_model` and tests/embedder/trigrams.py), hybrid routes and refused query
vectors too. Usage: ts_runtime_parity.py SKILLC ARTIFACT [HYBRID]
"""

import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from requests_of_parity import answer, asked_and_answered, report  # noqa: E402

# SKILLC_TS_CLI: an installed package's command (tests/packaging/runtimes.sh), not the source's.
CLI = Path(os.environ.get("SKILLC_TS_CLI")
           or Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "typescript" / "dist" / "cli.js")


def main():
    folder = tempfile.mkdtemp()
    asked, rust = asked_and_answered(sys.argv[1:], folder)
    with ThreadPoolExecutor(max_workers=2) as pool:
        ts = list(pool.map(lambda a: answer(["node", str(CLI), *a]), asked))
    shutil.rmtree(folder, ignore_errors=True)
    return report(asked, rust, ts, "ts")


if __name__ == "__main__":
    sys.exit(main())
