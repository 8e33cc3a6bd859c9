#!/usr/bin/env python3
"""The Python example runtime against the Rust runtime on the sample workspace's artifact.

For a set of requests (bundles, consumers, contexts, formats, selections) both must give the
same catalog text and skill ids, and the same final skill list, removals, sources and prompt
text, and the same routes; given HYBRID (the sample built with `routing.embedding_model` and
tests/embedder/trigrams.py), the same hybrid routes for each message's vector too.
Usage: python_runtime_parity.py SKILLC ARTIFACT [HYBRID]
"""

import json
import subprocess
import os
import sys
from pathlib import Path

# SKILLC_RUNTIME_INSTALLED: the installed package answers (tests/packaging/runtimes.sh), not
# the repository's source.
if not os.environ.get("SKILLC_RUNTIME_INSTALLED"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import skillc_runtime  # noqa: E402
from skillc_runtime import Artifact  # noqa: E402

if os.environ.get("SKILLC_RUNTIME_INSTALLED") and "compiler/runtime/python" in skillc_runtime.__file__:
    sys.exit(f"SKILLC_RUNTIME_INSTALLED, but the source answers: {skillc_runtime.__file__}")
print(f"runtime: {skillc_runtime.__file__}")

from requests_of_parity import (  # noqa: E402
    BUNDLES, CONSUMERS, CONTEXTS, MESSAGES, SELECTIONS, flags, history_files, query_vectors, seconds, verdict,
    without_numpy)


def run(skillc, args):
    out = subprocess.run([skillc, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"skillc {' '.join(args)} failed: {out.stderr}")
    return json.loads(out.stdout)


def main():
    skillc, artifact = sys.argv[1], sys.argv[2]
    py = Artifact(artifact)
    passed = failed = 0
    for bundle in BUNDLES:
        for context in CONTEXTS:
            for fmt in ("xml", "markdown", "list", "json"):
                rust = run(skillc, ["catalog", artifact, *flags(bundle, context), "--format", "json"])
                mine = py.catalog(context=context, fmt=fmt, **bundle)
                if fmt != "json":
                    text = subprocess.run([skillc, "catalog", artifact, *flags(bundle, context), "--format", fmt],
                                          capture_output=True, text=True, check=True).stdout
                    same = text.rstrip("\n") == mine["text"].rstrip("\n")
                else:
                    same = rust["text"] == mine["text"]
                same = same and [s["id"] + s["name"] for s in rust["skills"]] == [s["id"] + s["name"] for s in mine["skills"]]
                same = same and rust["release"] == mine["release"]
                passed += same
                failed += not same
                if not same:
                    print(f"FAIL catalog {bundle} {context} {fmt}")
            for select in SELECTIONS:
                rust = run(skillc, ["prompt", artifact, *flags(bundle, context), "--select", ",".join(select), "--format", "json"])
                mine = py.prompt(select, context=context, **bundle)
                same = all(rust[k] == mine[k] for k in ("skills", "removed", "sources", "text"))
                passed += same
                failed += not same
                if not same:
                    for k in ("skills", "removed", "sources", "text"):
                        if rust[k] != mine[k]:
                            print(f"FAIL prompt {bundle} {context} {select}: {k}\n  rust: {rust[k]}\n  py:   {mine[k]}")
    for consumer in CONSUMERS:
        for bundle in BUNDLES[:4]:
            for context in CONTEXTS[:2]:
                args = [*flags(bundle, context), "--consumer", consumer]
                rust = run(skillc, ["catalog", artifact, *args, "--format", "json"])
                mine = py.catalog(context=context, fmt="json", consumer=consumer, **bundle)
                same = rust["text"] == mine["text"] and [s["id"] for s in rust["skills"]] == [s["id"] for s in mine["skills"]]
                for select in SELECTIONS:
                    r = run(skillc, ["prompt", artifact, *args, "--select", ",".join(select), "--format", "json"])
                    m = py.prompt(select, context=context, consumer=consumer, **bundle)
                    same = same and all(r[k] == m[k] for k in ("skills", "removed", "sources", "text"))
                passed += same
                failed += not same
                if not same:
                    print(f"FAIL consumer {consumer} {bundle} {context}")
    # Routes: the same candidates, ids, scores and matched words; with numpy (when installed)
    # and without it, for their cosines come by different code.
    plain = Artifact(artifact)
    for bundle in BUNDLES:
        for context in CONTEXTS[:3]:
            for consumer in [None, *CONSUMERS]:
                for message in MESSAGES:
                    args = [*flags(bundle, context), *(["--consumer", consumer] if consumer else [])]
                    rust = run(skillc, ["route", artifact, message, *args, "--format", "json"])
                    mine = py.route(message, context=context, consumer=consumer, **bundle)
                    bare = without_numpy(lambda: plain.route(message, context=context, consumer=consumer, **bundle))
                    same = rust == mine == bare
                    passed += same
                    failed += not same
                    if not same:
                        print(f"FAIL route {bundle} {context} {consumer} {message[:40]!r}\n  rust: {rust}\n  py:   {mine}\n"
                              f"  py without numpy: {bare}")
    p, f = history_routes(skillc, artifact)
    passed, failed = passed + p, failed + f
    if len(sys.argv) > 3:
        p, f = hybrid_routes(skillc, sys.argv[3])
        passed, failed = passed + p, failed + f
    return verdict(passed, failed, least=400)


def history_routes(skillc, artifact):
    """Follow-ups routed with their history (routing's stage 0), in every bundle."""
    import tempfile

    py = Artifact(artifact)
    passed = failed = joined = 0
    with tempfile.TemporaryDirectory() as folder:
        for file, history, follow_ups in history_files(folder):
            for message, time in follow_ups:
                for bundle in BUNDLES:
                    rust = run(skillc, ["route", artifact, message, *flags(bundle, {}), "--history", file,
                                        "--time", str(time), "--format", "json"])
                    mine = py.route(message, history=history, time=seconds(time), **bundle)
                    same = rust == mine
                    passed += same
                    failed += not same
                    joined += "routed_text" in rust
                    if not same:
                        print(f"FAIL history route {bundle} {message!r} at {time}\n  rust: {rust}\n  py:   {mine}")
    # Both kinds are compared: follow-ups that join and follow-ups routed alone.
    if not 0 < joined < passed + failed:
        print(f"FAIL {joined} of {passed + failed} history routes joined")
        failed += 1
    return passed, failed


def hybrid_routes(skillc, artifact):
    """Hybrid routes: each message with its vector, in every bundle."""
    import tempfile

    py = Artifact(artifact)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as folder:
        vectors = query_vectors(folder)
        for bundle in BUNDLES:
            for message in MESSAGES:
                vector, file = vectors[message]
                rust = run(skillc, ["route", artifact, message, *flags(bundle, {}), "--query-vector", file,
                                    "--format", "json"])
                mine = py.route(message, query_vector=vector, **bundle)
                same = rust == mine and rust["method"] == "hybrid"
                passed += same
                failed += not same
                if not same:
                    print(f"FAIL hybrid route {bundle} {message[:40]!r}\n  rust: {rust}\n  py:   {mine}")
    return passed, failed


if __name__ == "__main__":
    sys.exit(main())
