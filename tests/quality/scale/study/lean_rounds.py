"""The lean learnt from more lists, measured without rebuilding the compiler: the build's
`talk_words` (naive Bayes log-odds of pieces and pairs, add-one smoothing, in thousandths)
done again in Python over the shipped lists plus the ones given, put in place of each
artifact's weights in the Python runtime (equal to every runtime), then the thirteen sets at
scale routed with their labelled messages and the held-out lists (docs/routing.md, "A second
round of anecdotes naming a tool").

    python3 tests/quality/scale/study/lean_rounds.py SKILLC NAME [--talk F ...] [--asks F ...]
        [--start X] [--share X] [--tests talk_x=F asks_y=F ...] [--shipped] [--keep DIR]

With no list given (or --shipped) the weights are the artifact's own; a check at start makes
sure the weights learnt here from the shipped lists alone are the artifact's, number for
number. Prints the totals and each set's counts: labelled requests first and in the first
five, labelled messages needing no skill reaching one, then per list: messages needing no
skill (`talk…`) that reach one, requests (`asks…`, the held-out requests) with no candidate.
"""

import argparse
import json
import math
import subprocess
import sys
import tempfile
from array import array
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(REPO / "compiler/runtime/python"))
from skillc_runtime import Artifact  # noqa: E402
from skillc_runtime._route import talk_pairs  # noqa: E402

SCALE = REPO / "tests/quality/scale"
MEANING = REPO / "compiler/meaning"
QUALITY = REPO / "tests/quality"


def lines(path):
    return [line.strip() for line in Path(path).read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def learn(meaning, talk, asks):
    """The build's `talk_words` of the lists `talk` (small talk) and `asks` (requests)."""
    def counted(lists):
        pieces, pairs, n = {}, {}, 0
        for line in (line for lst in lists for line in lst):
            n += 1
            found = meaning.pieces(line)
            for k in talk_pairs(found, True):
                pairs[k] = pairs.get(k, 0) + 1
            for p in set(found):
                pieces[p] = pieces.get(p, 0) + 1
        return pieces, pairs, float(n)
    (t, tp, tn), (a, ap, an) = counted(talk), counted(asks)

    def lean(x, y):
        v = 1000 * (math.log((x + 1) / (tn + 2)) - math.log((y + 1) / (an + 2)))
        # Rust's `round`: half away from 0.
        v = math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)
        return int(max(-32768, min(32767, v)))
    weights = array("h", [0] * len(meaning.ids))
    for p in set(t) | set(a):
        weights[p] = lean(t.get(p, 0), a.get(p, 0))
    keys = sorted(set(tp) | set(ap))
    return weights, (array("I", keys), array("h", [lean(tp.get(k, 0), ap.get(k, 0)) for k in keys]))


def labelled(name):
    out = []
    for line in lines(SCALE / f"{name}.tsv"):
        expected, message = line.split("\t", 1)
        out.append((set() if expected == "-" else set(expected.split("|")), message))
    return out


def counts(a, messages, talk_tests, ask_tests):
    row = {"first": 0, "five": 0, "fired": 0}
    for expected, m in messages:
        names = [c["name"] for c in a.route(m)["candidates"]]
        if expected:
            row["first"] += bool(names) and names[0] in expected
            row["five"] += any(n in expected for n in names[:5])
        else:
            row["fired"] += bool(names)
    for key, msgs in talk_tests.items():
        row[key] = sum(bool(a.route(m)["candidates"]) for m in msgs)
    for key, msgs in ask_tests.items():
        row[key] = sum(not a.route(m)["candidates"] for m in msgs)
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("skillc")
    ap.add_argument("name")
    ap.add_argument("--talk", nargs="*", default=[])
    ap.add_argument("--asks", nargs="*", default=[])
    ap.add_argument("--shipped", action="store_true")
    ap.add_argument("--start", type=float)
    ap.add_argument("--share", type=float)
    ap.add_argument("--tests", nargs="*", default=[])
    ap.add_argument("--keep", help="a folder for the artifacts, kept for the next run")
    args = ap.parse_args()
    shipped_talk = [lines(MEANING / "small-talk.txt"), lines(MEANING / "small-talk-words.txt")]
    shipped_asks = [lines(MEANING / "requests.txt")]
    talk_tests = {"talk_held_out": lines(QUALITY / "small-talk-held-out.txt"),
                  "talk_anecdotes": lines(QUALITY / "anecdotes-held-out.txt"),
                  "talk_languages": lines(QUALITY / "small-talk-other-languages.txt")}
    ask_tests = {"asks_held_out": lines(QUALITY / "requests-held-out.txt"),
                 "asks_anecdotes": lines(QUALITY / "anecdote-requests-held-out.txt")}
    for test in args.tests:
        key, path = test.split("=", 1)
        (talk_tests if key.startswith("talk") else ask_tests)[key] = lines(path)
    folder = Path(args.keep or tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    weights, total, per = None, {}, {}
    for name in sorted(p.stem for p in SCALE.glob("*.tsv")):
        artifact = folder / f"{name}.db"
        if not artifact.exists():
            subprocess.run([args.skillc, "build", str(SCALE / name), "-o", str(artifact)],
                           check=True, capture_output=True)
        a = Artifact(str(artifact))
        if weights is None:
            own = a._talk_words()
            if learn(a._meaning(), shipped_talk, shipped_asks) != (own[0], own[1]):
                sys.exit("the weights learnt here from the shipped lists are not the artifact's")
            weights = own if args.shipped else learn(
                a._meaning(), shipped_talk + [lines(f) for f in args.talk],
                shipped_asks + [lines(f) for f in args.asks])
        a._talk_word_weights = weights
        rules = a.routing_rules()
        rules.talk_words_from = rules.talk_words_from if args.start is None else args.start
        rules.talk_words_share = rules.talk_words_share if args.share is None else args.share
        per[name] = counts(a, labelled(name), talk_tests, ask_tests)
        for k, v in per[name].items():
            total[k] = total.get(k, 0) + v
    print(args.name, json.dumps(total))
    for name, row in per.items():
        print(f"  {name:28s}", " ".join(f"{k} {v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
