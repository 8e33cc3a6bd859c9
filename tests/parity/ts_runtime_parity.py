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
from requests_of_parity import answer, hybrid_requests, query_vectors, report, requests  # noqa: E402

# SKILLC_TS_CLI: an installed package's command (tests/packaging/runtimes.sh), not the source's.
CLI = Path(os.environ.get("SKILLC_TS_CLI")
           or Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "typescript" / "dist" / "cli.js")


def main():
    skillc, artifact = sys.argv[1], sys.argv[2]
    folder = tempfile.mkdtemp()
    asked = list(requests(artifact))
    if len(sys.argv) > 3:
        asked += list(hybrid_requests(sys.argv[3], artifact, query_vectors(folder)))
    with ThreadPoolExecutor(max_workers=2) as pool:
        rust = list(pool.map(lambda a: answer([skillc, *a]), asked))
        ts = list(pool.map(lambda a: answer(["node", str(CLI), *a]), asked))
    shutil.rmtree(folder, ignore_errors=True)
    return report(asked, rust, ts, "ts")


if __name__ == "__main__":
    sys.exit(main())
