"""A skill's body in its meaning (docs/routing.md, "A skill's body in its meaning"): the sets at
scale routed with each card's summary vector alone, and with the vector of its body's words
added in the ways measured before one shipped.

    python3 tests/quality/scale/study/bodymeaning.py SKILLC [SET,...]

SKILLC builds each set; the variants are made here from the artifact's own vectors and the
SKILL.md bodies (the committed word lists), the way the build mixes them, on a copy whose
`card_route.meaning` is emptied first:
- `off`: the summary and trigger examples only (the route before);
- `mix S` (S = 0.25, 0.4, 0.6): the summary with the body mixed in at share S as a text of its
  own (what ships at 0.4: checked equal to the build's `card_route.meaning`, card by card);
- `alone`: the body's vector as a text of its own;
- `instead 0.4`: the mixed vector in place of the summary, so the small-talk bar reads it too.
For each it prints the shipped route's recall@1, recall@5, MRR@5, false fire and share without a
candidate, the uncut ranking's recall@1 and @5, and the share of
`compiler/meaning/small-talk-words.txt`'s messages that reach a skill.
"""

import json
import math
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(REPO / "compiler/runtime/python"))
sys.path.insert(0, str(REPO / "tests/quality"))
from skillc_runtime import Artifact, _meaning  # noqa: E402
from skillc_runtime._route import _norm  # noqa: E402
from routing_quality import figures, labelled  # noqa: E402

sys.path.insert(0, str(REPO / "tests/quality/scale"))
import extract  # noqa: E402

SETS = ["claude-code-templates", "antigravity-awesome-skills", "openclaw-skills", "agentskillexchange"]
VARIANTS = [("off", None), ("mix", 0.25), ("mix", 0.4), ("mix", 0.6), ("alone", None), ("instead", 0.4)]


def body_words(skill_md):
    """The body's distinct words as written, as `route::prose_text_words` makes them: the
    words `extract.py` keeps of a body (outside fenced code), split as routing splits them."""
    words = extract.body_words(extract.body_of(skill_md.read_text()))
    return sorted({w for w in _meaning._words(words.lower()) if w})


def whole(v):
    """Whole numbers of `v` as the table makes them: the largest magnitude 127, rounded half up."""
    largest = max(abs(x) for x in v)
    return tuple(float(math.floor(x / largest * 127.0 + 0.5)) for x in v) if largest else None


def body_vector(table, words):
    pieces = [p for w in words for p in table.pieces(w)]
    return _meaning.vector(pieces, table.scales, table.rows, table.dims)


def mixed(summary, body, share):
    s, b = _norm(summary), _norm(body)
    if b == 0.0:
        return None
    return whole([(x / s if s else 0.0) + share * y / b for x, y in zip(summary, body)])


def variant(a, bodies, kind, share):
    """`a` with its bundle's vectors changed as `kind` says (in place, before any route)."""
    b = a.bundle()
    dense = a._dense_index(b)
    _, docs = a._route_index(b)
    table = a._meaning()
    summaries = [vectors[0] for vectors in dense]
    for k, i in enumerate(docs):
        words = bodies.get(b["skills"][i]["name"])
        if not words or not dense[k]:
            continue
        body = body_vector(table, words)
        v = mixed(dense[k][0][0], body, share) if kind in ("mix", "instead") else whole(body)
        if v is None:
            continue
        if kind == "instead":
            dense[k][0] = (v, _norm(v))
        else:
            dense[k].append((v, _norm(v)))
    b.pop("packed", None)
    if kind == "instead":
        return
    # The small-talk bar's nearest summary stays the summary's.
    alone = _meaning.Packed([[s] for s in summaries], table.dims)
    packed_of = a._packed

    class KeepNearest:
        """The catalog's packed vectors, but the nearest summary of the summaries alone."""

        def __init__(self, packed):
            self.packed, self.docs = packed, packed.docs

        def dot_products(self, query, q_norm):
            return self.packed.dot_products(query, q_norm)

        def closest_of(self, docs, q_norm, dots):
            return self.packed.closest_of(docs, q_norm, dots)

        def closest_reaching(self, query, q_norm, needs, dots=None):
            return self.packed.closest_reaching(query, q_norm, needs, dots)

        def aside_closest(self, query, q_norm, dots=None):
            return self.packed.aside_closest(query, q_norm, dots)

        def nearest(self, query, q_norm, dots=None, ceiling=float("inf")):
            return alone.nearest(query, q_norm, None, ceiling)

    a._packed = lambda b_: None if packed_of(b_) is None else KeepNearest(packed_of(b_))


def main():
    skillc = sys.argv[1]
    sets = sys.argv[2].split(",") if len(sys.argv) > 2 else SETS
    talk = [m.strip() for m in (REPO / "compiler/meaning/small-talk-words.txt").read_text().splitlines()
            if m.strip() and not m.startswith("#")]
    with tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            ws = REPO / "tests/quality/scale" / name
            built, plain = Path(tmp) / f"{name}.db", Path(tmp) / f"{name}-plain.db"
            subprocess.run([skillc, "build", str(ws), "-o", str(built)], check=True, capture_output=True)
            shutil.copy(built, plain)
            with sqlite3.connect(plain) as con:
                con.execute("UPDATE card_route SET meaning = NULL")
            bodies = {}
            for md in (ws / "skills").glob("*/SKILL.md"):
                bodies[str(extract.frontmatter(md.read_text())["name"])] = body_words(md)
            messages = labelled(REPO / f"tests/quality/scale/{name}.tsv")
            # The emulation against the build: the shipped mix is the build's own column.
            a = Artifact(str(plain))
            variant(a, bodies, "mix", 0.4)
            with sqlite3.connect(built) as con:
                stored = {c: tuple(float(x) for x in struct.unpack(f"<{len(m)}b", m))
                          for c, m in con.execute("SELECT card, meaning FROM card_route WHERE meaning IS NOT NULL")}
            b = a.bundle()
            _, docs = a._route_index(b)
            differ = sum(1 for k, i in enumerate(docs) if b["skills"][i]["card"] in stored
                         and tuple(map(float, a._dense_index(b)[k][-1][0])) != stored[b["skills"][i]["card"]])
            print(f"{name}: {len(stored)} cards with a body mixed in, {differ} differing from this emulation")
            for kind, share in VARIANTS:
                shipped, uncut = Artifact(str(plain)), Artifact(str(plain))
                uncut.manifest["routing"] = json.dumps({"top_k": 5, "min_score": 0.0, "hybrid_min_score": 0.0})
                if kind != "off":
                    variant(shipped, bodies, kind, share)
                    variant(uncut, bodies, kind, share)
                route = figures(messages, lambda m: [c["name"] for c in shipped.route(m)["candidates"]])
                ranked = figures(messages, lambda m: [c["name"] for c in uncut.route(m)["candidates"]])
                reach = sum(bool(shipped.route(m)["candidates"]) for m in talk) / len(talk)
                label = kind if share is None else f"{kind} {share}"
                print(f"  {label:12} recall@1 {route[0]:.3f} recall@5 {route[1]:.3f} MRR {route[2]:.3f} "
                      f"false fire {route[3]:.3f} none {route[4]:.3f} | uncut {ranked[0]:.3f} {ranked[1]:.3f} "
                      f"| small talk {reach:.3f}", flush=True)


if __name__ == "__main__":
    main()
