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
from requests_of_parity import BUNDLES, CONSUMERS, CONTEXTS, MESSAGES, SELECTIONS, flags, query_vectors  # noqa: E402

# SKILLC_TS_CLI: an installed package's command (tests/packaging/runtimes.sh), not the source's.
CLI = Path(os.environ.get("SKILLC_TS_CLI")
           or Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "typescript" / "dist" / "cli.js")


def hybrid_requests(artifact, lexical, vectors):
    """Hybrid routes (each message with its vector, JSON and text, every bundle) and vectors
    that must be refused with the same words."""
    for bundle in BUNDLES:
        for message in MESSAGES:
            file = vectors[message][1]
            yield ["route", artifact, message, *flags(bundle, {}), "--query-vector", file, "--format", "json"]
            yield ["route", artifact, message, *flags(bundle, {}), "--query-vector", file]
    file = vectors[MESSAGES[0]][1]
    yield ["route", lexical, MESSAGES[0], "--query-vector", file]
    for bad in ("[1, 2]", '{"model": "other", "vector": [1]}', '{"model": "skillc-test-trigrams"}', '"x"',
                "[1e300]", '["a"]'):
        path = Path(file).with_name(f"bad-{len(bad)}.json")
        path.write_text(bad)
        yield ["route", artifact, MESSAGES[0], "--query-vector", str(path)]


def requests(artifact):
    for bundle in BUNDLES:
        for context in CONTEXTS:
            base = [artifact, *flags(bundle, context)]
            for fmt in ("xml", "markdown", "list", "json"):
                yield ["catalog", *base, "--format", fmt]
            for select in SELECTIONS:
                yield ["prompt", *base, "--select", ",".join(select), "--format", "json"]
    for select in SELECTIONS:
        yield ["prompt", artifact, "--client", "hyperline.co", "--select", ",".join(select)]
    for consumer in CONSUMERS:
        for bundle in BUNDLES[:4]:
            for context in CONTEXTS[:2]:
                base = [artifact, *flags(bundle, context), "--consumer", consumer]
                yield ["catalog", *base, "--format", "json"]
                for select in SELECTIONS:
                    yield ["prompt", *base, "--select", ",".join(select), "--format", "json"]
    # Routes, as JSON and as text (scores to four decimals), for every consumer.
    for bundle in BUNDLES:
        for context in CONTEXTS[:3]:
            for consumer in [None, *CONSUMERS]:
                for message in MESSAGES:
                    base = [artifact, message, *flags(bundle, context), *(["--consumer", consumer] if consumer else [])]
                    yield ["route", *base, "--format", "json"]
    for message in MESSAGES:
        yield ["route", artifact, message, "--client", "hyperline.co"]
        yield ["route", artifact, message, "--top", "1", "--format", "json"]
    # Requests that must fail, with the same words and status.
    yield ["catalog", artifact, "--client", "nope.example"]
    yield ["catalog", artifact, "--client", "hyperline.co", "--locale", "de"]
    yield ["catalog", artifact, "--client", "hyperline.co", "--tier", "gold"]
    yield ["catalog", artifact, "--consumer", "nobody"]
    yield ["catalog", artifact, "--context", "turn=soon"]
    yield ["prompt", artifact, "--select", "pricing", "--context", "turn=99999999999999999999"]
    yield ["catalog", artifact + ".missing"]


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
