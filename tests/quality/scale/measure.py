"""Figures of a scale set: `skillc route` (as shipped: CLI, --top 5, --format json) beside plain
BM25 (`rank_bm25`'s BM25Okapi over each skill's name + description, words \\w+ lowercased) on the
same catalog. With the Python runtime at hand, also skillc's ranking without the `min_score` cut.

    python3 tests/quality/scale/measure.py SKILLC tests/quality/scale/antigravity-awesome-skills

The set is the folder's sibling `<folder>.tsv`: `expected[|alt...]<TAB>message`, `-` for none.
A hit is any of the labels; recall@1 (first candidate), recall@5, MRR over the first five, false
fire (share of `-` messages given any candidate), and, for messages with a skill, the share that
get no candidate at all.
"""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from rank_bm25 import BM25Okapi


def labelled(path):
    out = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            expected, message = line.split("\t", 1)
            out.append((set() if expected == "-" else set(expected.split("|")), message))
    return out


def skills(workspace):
    out = []
    for f in sorted((workspace / "skills").glob("*/SKILL.md")):
        fm = yaml.safe_load(f.read_text().split("---")[1])
        out.append((fm["name"], fm.get("description", "")))
    return out


def words(text):
    return re.findall(r"\w+", text.lower())


def bm25_ranker(catalog):
    names = [n for n, _ in catalog]
    bm25 = BM25Okapi([words(f"{n} {d}") for n, d in catalog])

    def rank(message):
        scores = bm25.get_scores(words(message))
        return [names[i] for i in sorted(range(len(names)), key=lambda i: -scores[i])
                if scores[i] > 0][:5]
    return rank


def cli_ranker(skillc, artifact):
    def rank(message):
        out = subprocess.run([skillc, "route", str(artifact), message, "--format", "json",
                              "--top", "5"], check=True, capture_output=True, text=True).stdout
        return [c["name"] for c in json.loads(out)["candidates"]][:5]
    return rank


def uncut_ranker(artifact):
    """skillc's index and scores without the min_score cut, via the Python runtime."""
    repo = Path(__file__).resolve().parents[3]
    sys.path.insert(0, str(repo / "compiler/runtime/python"))
    from skillc_runtime import Artifact
    a = Artifact(str(artifact))
    a.manifest["routing"] = json.dumps({"top_k": 5, "min_score": 0.0})
    return lambda m: [c["name"] for c in a.route(m)["candidates"]][:5]


def figures(messages, rank):
    pos = [(e, m) for e, m in messages if e]
    neg = [m for e, m in messages if not e]
    r1 = r5 = mrr = empty = 0
    for expected, m in pos:
        ranked = rank(m)
        empty += not ranked
        for i, name in enumerate(ranked):
            if name in expected:
                r5 += 1
                r1 += i == 0
                mrr += 1 / (i + 1)
                break
    fired = sum(bool(rank(m)) for m in neg)
    n = len(pos)
    return r1 / n, r5 / n, mrr / n, fired / len(neg) if neg else 0.0, empty / n


def main():
    skillc, workspace = sys.argv[1], Path(sys.argv[2]).resolve()
    messages = labelled(workspace.with_suffix(".tsv"))
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Path(tmp) / "scale.db"
        subprocess.run([skillc, "build", str(workspace), "-o", str(artifact)], check=True,
                       capture_output=True)
        rankers = {"skillc route (CLI, as shipped)": cli_ranker(skillc, artifact),
                   "BM25 over name + description": bm25_ranker(skills(workspace))}
        try:
            rankers["skillc ranking, no min_score cut (Python runtime)"] = uncut_ranker(artifact)
        except Exception as e:  # the runtime may not read this artifact
            print(f"(no uncut ranking: {e})", file=sys.stderr)
        pos = sum(1 for e, _ in messages if e)
        print(f"{workspace.name}: {pos} requests with a skill, {len(messages) - pos} without")
        print("| ranking | recall@1 | recall@5 | MRR@5 | false fire | no candidate |")
        print("|---|---|---|---|---|---|")
        for title, rank in rankers.items():
            r1, r5, mrr, ff, empty = figures(messages, rank)
            print(f"| {title} | {r1:.3f} | {r5:.3f} | {mrr:.3f} | {ff:.3f} | {empty:.3f} |")


if __name__ == "__main__":
    main()
