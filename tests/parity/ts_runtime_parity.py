#!/usr/bin/env python3
"""The TypeScript runtime against the Rust runtime, through their command lines.

Every request of the Python parity test (bundles, contexts, consumers, catalog formats,
selections, routes), plus prompts and routes in text form and requests that must fail, is asked of `skillc` and
of `node compiler/runtime/typescript/dist/cli.js`: standard output and exit status must be
byte for byte the same (the error message too, for failures). Given HYBRID (the sample built
with `routing.embedding_model` and tests/embedder/trigrams.py), hybrid routes and refused query
vectors too. Usage: ts_runtime_parity.py SKILLC ARTIFACT [HYBRID]
"""

import shutil
import subprocess
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from requests_of_parity import hybrid_requests, query_vectors, requests  # noqa: E402

# SKILLC_TS_CLI: an installed package's command (tests/packaging/runtimes.sh), not the source's.
CLI = Path(os.environ.get("SKILLC_TS_CLI")
           or Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "typescript" / "dist" / "cli.js")


def answer(command):
    out = subprocess.run(command, capture_output=True, check=False)
    # Only the message matters on failure: each tool names itself differently in usage text.
    return out.returncode, out.stdout, out.stderr if out.returncode else b""


def compare(skillc, args):
    return args, answer([skillc, *args]), answer(["node", str(CLI), *args])


def main():
    skillc, artifact = sys.argv[1], sys.argv[2]
    passed = failed = 0
    folder = tempfile.mkdtemp()
    asked = list(requests(artifact))
    if len(sys.argv) > 3:
        asked += list(hybrid_requests(sys.argv[3], artifact, query_vectors(folder)))
    with ThreadPoolExecutor(max_workers=2) as pool:
        for args, rust, ts in pool.map(lambda a: compare(skillc, a), asked):
            if rust == ts:
                passed += 1
                continue
            failed += 1
            print(f"FAIL {' '.join(args[1:])}")
            for label, a, b in (("status", rust[0], ts[0]), ("stdout", rust[1], ts[1]), ("stderr", rust[2], ts[2])):
                if a != b:
                    print(f"  {label}\n    rust: {a[:400]!r}\n    ts:   {b[:400]!r}")
    shutil.rmtree(folder, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    # The count is part of the result: a run that compared nothing must not pass.
    if passed + failed < 500:
        print(f"FAIL only {passed + failed} requests were compared")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
