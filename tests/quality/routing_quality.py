"""Routing quality against a peer: `skillc route` on labelled requests (tests/quality/*.tsv and
the sets at scale, tests/quality/scale/*.tsv), beside a plain BM25 baseline (the `rank_bm25`
package's BM25Okapi over each skill's name and description, words split on non-word characters)
on the same messages and the same catalog.

    python3 tests/quality/routing_quality.py SKILLC [--check]

A set's lines are `expected[|alternative...]<TAB>message`, `-` for a message that needs no
skill; a hit is any of the names. Rankings per set:
- `skillc route`: as shipped (the Python runtime, equal to every runtime on the parity runs):
  by words and the built-in meaning (hybrid), candidates at or above the hybrid cut, at most 5;
- `skillc route, words only`: the lexical route of a workspace with `embedding_model: none`;
- `skillc ranking, no cut`: the shipped scores without any cut, the first 5;
- `BM25 baseline`: every skill sharing a word with the message, best first, the first 5;
- `dense alone`: every skill by the cosine of its closest text to the message's built-in
  meaning vector, the first 5;
- each baseline "at the route's false fire": cut at the lowest score that lets it fire on no
  more of the messages needing no skill than the shipped route does (an uncut baseline fires on
  every message, and in a 10-skill catalog its first five hold half the catalog);
- `BM25, skillc's words` (small sets): the baseline with skillc's words (stopwords out, names
  split on `-` and `_`, a final `s` dropped), which tells how much of the difference the words
  make and how much the index's other texts and weights.
- `skillc route, small talk in other languages` (sets at scale): the false fire of the shipped
  route on `small-talk-other-languages.txt`, 320 messages needing no skill in the sixteen
  languages of the glossary (written for the project by a helper who saw neither the sets nor
  the glossary): a figure to read, not checked.
- `skillc route, small talk held out` and `requests held out` (sets at scale): the false fire on
  `small-talk-held-out.txt` (236 messages needing no skill) and the share of
  `requests-held-out.txt` (290 requests, unlabelled: any catalog's skill may be the one) that get
  no candidate, both written by a helper who read nothing of the repository and used to make
  nothing: figures to read, not checked.
- `skillc route, anecdotes naming a tool held out` and `requests of the anecdotes' kinds held
  out` (sets at scale): the same of `anecdotes-held-out.txt` (200 messages needing no skill that
  name an app or a tool) and `anecdote-requests-held-out.txt` (200 requests of the same kinds),
  written by a helper apart from the one whose round of them the lists learnt from (2026-12-06):
  figures to read, not checked.
recall@1 is the first candidate, recall@5 the first five, MRR over the first five, false fire
the share of messages expecting no skill that get a candidate, "no candidate" the share of
messages with a skill that get none. With --check it exits 1 when, in any set, the shipped
route is worse on recall@1 or recall@5 than the BM25 baseline or (in a set with 20 messages
or more that need no skill) than a baseline at its false fire, or the uncut ranking worse than
an uncut baseline.
"""

import functools
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy
from rank_bm25 import BM25Okapi

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "compiler/runtime/python"))
from skillc_runtime import Artifact  # noqa: E402

# Ten skills of the public collections (the second collection's duplicate docx left out).
PUBLIC = [*(f"tests/public-collection/skills/{n}" for n in (
    "brand-guidelines", "canvas-design", "docx", "internal-comms", "mcp-builder", "pdf",
    "webapp-testing")),
    *(f"tests/public-collection-2/skills/{n}" for n in ("frontend-design", "pptx", "xlsx"))]


# The fewest messages needing no skill on which a baseline is compared at the route's false fire.
MATCHED_FIRE = 20


def labelled(path):
    """(the names that count as a hit, empty for none; message) per line of a .tsv file."""
    out = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            expected, message = line.split("\t", 1)
            out.append((frozenset() if expected == "-" else frozenset(expected.split("|")), message))
    return out


def unlabelled(name):
    """The messages of a list in tests/quality/, one a line (`#` lines are notes)."""
    path = REPO / "tests/quality" / name
    return [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


# Lists of messages needing no skill, each read only for the share of them that reaches one (sets
# at scale): the ranking's title and the file.
UNLABELLED_TALK = {
    "skillc route, small talk in other languages": "small-talk-other-languages.txt",
    "skillc route, small talk held out": "small-talk-held-out.txt",
    "skillc route, anecdotes naming a tool held out": "anecdotes-held-out.txt",
}
# Requests with no label: the share of them that gets no candidate (sets at scale).
UNLABELLED_REQUESTS = {
    "skillc route, requests held out": "requests-held-out.txt",
    "skillc route, requests of the anecdotes' kinds held out": "anecdote-requests-held-out.txt",
}


def plain_words(text):
    return re.findall(r"\w+", text.lower())


def baseline(catalog, words=plain_words):
    """A function ranking a message over the catalog's skills with BM25Okapi, the texts made
    into words by `words`."""
    names = [s["name"] for s in catalog["skills"]]
    bm25 = BM25Okapi([words(f'{s["name"]} {s["description"]}') for s in catalog["skills"]])

    @functools.lru_cache(maxsize=None)
    def rank(message):
        scores = bm25.get_scores(words(message))
        held = [(-scores[i], names[i]) for i in range(len(names)) if scores[i] > 0]
        return [(name, -s) for s, name in sorted(held)]
    return rank


def names_of(rank):
    return lambda m: [name for name, _ in rank(m)]


def cut_like(messages, rank, fired):
    """`rank` cut at the lowest score that makes it fire on no more of the messages needing no
    skill than `fired` (a share) does: a baseline compared at the shipped route's false fire."""
    firsts = sorted((rank(m)[:1] or [("", 0.0)])[0][1] for e, m in messages if not e)
    allowed = int(round(fired * len(firsts)))
    # Above the score of every first candidate but the `allowed` highest.
    bar = firsts[-allowed - 1] if allowed < len(firsts) else float("-inf")
    return lambda m: [name for name, s in rank(m) if s > bar]


def words_only(a):
    """The route by words alone (a workspace with `embedding_model: none`): the runtime's
    lexical route, its `min_score` cut."""
    return lambda m: [c["name"] for c in a._route(m, None, None, None, None, {}, 5, None)["candidates"]]


def dense_alone(a):
    """Each skill by the cosine of its closest text to the message's built-in meaning vector,
    uncut (every skill is a candidate), the first five. Every text's cosine at once with numpy
    (rank_bm25 needs it): the same figures as a loop in Python, which took 336 of 389 profiled
    seconds on the largest set."""
    b = a.bundle()
    _, docs = a._route_index(b)
    dense = a._dense_index(b)
    skill_names = [b["skills"][i]["name"] for i in docs]
    texts = [(k, v, vn) for k, vectors in enumerate(dense) for v, vn in vectors]
    matrix = numpy.array([v for _, v, _ in texts], dtype=numpy.float64).reshape(len(texts), -1)
    norms = numpy.array([vn or 1.0 for _, _, vn in texts], dtype=numpy.float64)
    owner = numpy.array([k for k, _, _ in texts], dtype=numpy.intp)
    # A skill with no vector scores 0, as the closest of none.
    bare = numpy.array([not vectors for vectors in dense], dtype=bool)

    @functools.lru_cache(maxsize=None)
    def rank(message):
        q = numpy.array(a._meaning().vector(message), dtype=numpy.float64)
        qn = math.sqrt(float(q @ q)) or 1.0
        best = numpy.full(len(skill_names), -numpy.inf)
        numpy.maximum.at(best, owner, (matrix @ q) / (qn * norms))
        best[bare] = 0.0
        scored = sorted((-float(s), name) for s, name in zip(best, skill_names))
        return [(name, -s) for s, name in scored[:5]]
    return rank


def figures(messages, rank):
    """recall@1, recall@5, MRR@5 over the messages with a skill, the false-fire share, and the
    share of messages with a skill given no candidate."""
    positives = [(e, m) for e, m in messages if e]
    negatives = [m for e, m in messages if not e]
    first = within = mrr = empty = 0
    for expected, m in positives:
        ranked = rank(m)[:5]
        empty += not ranked
        hit = next((k for k, name in enumerate(ranked) if name in expected), None)
        if hit is not None:
            first += hit == 0
            within += 1
            mrr += 1 / (hit + 1)
    fired = sum(bool(rank(m)[:5]) for m in negatives)
    n = max(len(positives), 1)
    return (first / n, within / n, mrr / n, fired / len(negatives) if negatives else 0.0,
            empty / n)


def measure(skillc, workspace, messages, small):
    """The rankings' figures on one workspace's global catalog."""
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Path(tmp) / "quality.db"
        subprocess.run([skillc, "build", str(workspace), "-o", str(artifact)], check=True,
                       capture_output=True)
        shipped = Artifact(str(artifact))
        uncut = Artifact(str(artifact))
        # The same index and scores without the cut (what the settings would give).
        uncut.manifest["routing"] = json.dumps({"top_k": 5, "min_score": 0.0, "hybrid_min_score": 0.0})
        catalog = shipped.catalog(fmt="json")
        names = lambda a: lambda m: [c["name"] for c in a.route(m)["candidates"]]  # noqa: E731
        route = figures(messages, names(shipped))
        bm25, dense = baseline(catalog), dense_alone(shipped)
        out = {
            "skillc route": route,
            "skillc route, words only": figures(messages, words_only(shipped)),
            "skillc ranking, no cut": figures(messages, names(uncut)),
            "BM25 baseline": figures(messages, names_of(bm25)),
            "BM25 at the route's false fire": figures(messages, cut_like(messages, bm25, route[3])),
            "dense alone (built-in meaning)": figures(messages, names_of(dense)),
            "dense alone at the route's false fire": figures(messages, cut_like(messages, dense, route[3])),
        }
        if not small:
            for title, name in UNLABELLED_TALK.items():
                out[title] = figures([(frozenset(), m) for m in unlabelled(name)], names(shipped))
            for title, name in UNLABELLED_REQUESTS.items():
                asked = unlabelled(name)
                out[title] = sum(1 for m in asked if not names(shipped)(m)) / len(asked)
        if small:
            # Which part of the difference is skillc's words (stopwords, stems, names split).
            out["BM25, skillc's words"] = figures(messages, names_of(baseline(catalog, shipped.route_tokens)))
        return out


def public_workspace(tmp):
    ws = Path(tmp) / "public"
    for rel in PUBLIC:
        shutil.copytree(REPO / rel, ws / Path(rel).name)
    return ws


def main():
    skillc, check = sys.argv[1], "--check" in sys.argv[2:]
    worse = []
    with tempfile.TemporaryDirectory() as tmp:
        sets = [("public collections (10 skills)", public_workspace(tmp), "public.tsv", True),
                ("sample, global catalog (32 skills)", REPO / "skills", "sample.tsv", True)]
        for tsv in sorted((REPO / "tests/quality/scale").glob("*.tsv")):
            ws = tsv.with_suffix("")
            size = len(list((ws / "skills").glob("*/SKILL.md")))
            sets.append((f"{ws.name} ({size} skills)", ws, f"scale/{tsv.name}", False))
        print("| message set | messages | ranking | recall@1 | recall@5 | MRR@5 | false fire "
              "| no candidate |")
        print("|---|---|---|---|---|---|---|---|")
        for title, workspace, name, small in sets:
            messages = labelled(REPO / "tests/quality" / name)
            results = measure(skillc, workspace, messages, small)
            for ranking, result in results.items():
                if ranking in UNLABELLED_REQUESTS:
                    print(f"| {title} | {len(unlabelled(UNLABELLED_REQUESTS[ranking]))} | {ranking} | – | – | – | – "
                          f"| {result:.3f} |")
                    continue
                r1, r5, mrr, ff, empty = result
                if ranking in UNLABELLED_TALK:
                    print(f"| {title} | {len(unlabelled(UNLABELLED_TALK[ranking]))} | {ranking} | – | – | – | {ff:.3f} | – |")
                    continue
                print(f"| {title} | {len(messages)} | {ranking} | {r1:.3f} | {r5:.3f} | "
                      f"{mrr:.3f} | {ff:.3f} | {empty:.3f} |")
            # The route against each baseline firing as often on messages that need no skill,
            # and the uncut ranking against the uncut baselines.
            # A cut matched on fewer than MATCHED_FIRE no-skill messages tells little.
            pairs = [("skillc route", "BM25 baseline"),
                     ("skillc ranking, no cut", "BM25 baseline"),
                     ("skillc ranking, no cut", "dense alone (built-in meaning)")]
            if sum(not e for e, _ in messages) >= MATCHED_FIRE:
                pairs += [("skillc route", "BM25 at the route's false fire"),
                          ("skillc route", "dense alone at the route's false fire")]
            for ours, peer in pairs:
                if results[ours][0] < results[peer][0] or results[ours][1] < results[peer][1]:
                    worse.append(f"{title} ({ours} against {peer})")
    if worse:
        print(f"FAIL skillc's route is worse than a baseline on: {', '.join(worse)}")
        if check:
            sys.exit(1)


if __name__ == "__main__":
    main()
