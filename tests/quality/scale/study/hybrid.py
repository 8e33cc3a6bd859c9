"""Question 2: meaning. all-MiniLM-L6-v2 (numpy, minilm.py) over each skill's summary (name,
description, when_to_use, as the compiler's embed.rs writes it; this catalog has no trigger
examples, so skillc's max over a skill's texts is its summary's cosine). Dense alone; skillc's
hybrid fusion (compiler/runtime/src/route/dense.rs `fuse`: 0.5 lexical share + 0.5 cosine) with
the cut candidates; the fusion with a lexical part that does not shrink; reciprocal-rank fusion.
Prints the table of REPORT.md section 2.

    python3 tests/quality/scale/study/embed.py     # once: vectors into the study cache
    python3 tests/quality/scale/study/hybrid.py
"""

import numpy as np

from cuts import bm25, mass, shipped, uncut
from methods import load, report, top


def rnd(x):
    return np.floor(x * 1e6 + 0.5) / 1e6


def memo(f, key, make):
    """A ranking that the parameter does not change, made once per message (and per vectors)."""
    cache = f.__dict__.setdefault("memo", {})
    k = (key, id(f.cos))
    if k not in cache:
        cache[k] = make()
    return cache[k]


def fused(f):
    """skillc's hybrid score: 0.5 · lexical share + 0.5 · max(0, cosine), 6 decimals."""
    return rnd(0.5 * f.score + 0.5 * np.maximum(f.cos, 0.0))


def dense(f, names, p):
    """Cosine alone; a candidate needs cosine ≥ p (p = None: no cut)."""
    return top(f.cos, names, None if p is None else f.cos >= p)


def dense_z(f, names, p):
    """Cosine alone; the message fires when the first's cosine stands p sd above the catalog's."""
    z = (f.cos.max() - f.cos.mean()) / (f.cos.std() or 1.0)
    return top(f.cos, names) if z >= p else []


def hybrid(f, names, p):
    """skillc's fusion; a candidate needs a hybrid score ≥ p (shipped min_score 0.2)."""
    s = fused(f)
    return top(s, names, None if p is None else s >= p)


def hybrid_gate(f, names, p):
    """skillc's fusion ranked; the message fires when its lexical evidence is enough (matched idf
    mass of the first ≥ p[0], cut C) or its meaning is (first cosine ≥ p[1])."""
    if f.raw.max(initial=0) >= p[0] or f.cos.max() >= p[1]:
        return memo(f, "hybrid", lambda: top(fused(f), names))
    return []


def sat(f, k):
    """A lexical score in [0, 1) that does not shrink with the message: BM25's saturation of
    the matched idf mass, raw / (raw + k)."""
    return f.raw / (f.raw + k)


def hybrid_sat(f, names, p):
    """0.5 · raw/(raw + k) + 0.5 · cosine, cut at t: p = (k, t)."""
    s = rnd(0.5 * sat(f, p[0]) + 0.5 * np.maximum(f.cos, 0.0))
    return top(s, names, s >= p[1])


def rrf(scores_a, scores_b, names, k=60):
    out = np.zeros(len(names))
    for s in (scores_a, scores_b):
        o = np.flatnonzero(s > 0)
        o = o[np.argsort(-s[o], kind="stable")]
        out[o] += 1.0 / (k + 1 + np.arange(len(o)))
    return out


def rrf_gate(f, names, p):
    """Reciprocal-rank fusion (k = 60) of skillc's lexical ranking and the cosine ranking; the
    message fires as in hybrid_gate."""
    if p is None or f.raw.max(initial=0) >= p[0] or f.cos.max() >= p[1]:
        return memo(f, "rrf", lambda: top(rrf(f.raw, np.maximum(f.cos, 0.0), names), names))
    return []


def methods(c):
    g = lambda a, b, s: [round(float(x), 4) for x in np.arange(a, b, s)]  # noqa: E731
    return {
        "BM25 (rank_bm25), uncut": (bm25, [None]),
        "skillc lexical, uncut": (uncut, [None]),
        "skillc lexical as shipped (share ≥ 0.2)": (shipped, [0.2]),
        f"skillc lexical, cut C (mass ≥ t)": (mass, g(0.0, 15.0, 0.1)),
        "dense alone, uncut": (dense, [None]),
        "dense alone, cosine ≥ t": (dense, g(0.0, 0.8, 0.01)),
        "dense alone, first's z over the catalog ≥ t": (dense_z, g(0.0, 12.0, 0.1)),
        "skillc hybrid, uncut": (hybrid, [None]),
        "skillc hybrid as shipped (min_score 0.2)": (hybrid, [0.2]),
        "skillc hybrid, min_score t": (hybrid, g(0.0, 0.8, 0.01)),
        "skillc hybrid, fire if C (mass₁ ≥ t₁) or cos₁ ≥ t₂": (
            hybrid_gate, [(a, b) for a in g(1.0, 10.0, 0.25) for b in g(0.3, 0.9, 0.02)]),
        "hybrid, lexical = raw/(raw+k), cut t": (
            hybrid_sat, [(k, t) for k in (1.0, 2.0, 4.0, 8.0) for t in g(0.1, 0.8, 0.01)]),
        "hybrid, lexical = raw/(raw+4), cut t": (
            hybrid_sat, [(4.0, t) for t in g(0.1, 0.8, 0.01)]),
        "RRF (k=60) lexical + dense, uncut": (rrf_gate, [None]),
        "RRF, fire if C (mass₁ ≥ t₁) or cos₁ ≥ t₂": (
            rrf_gate, [(a, b) for a in g(1.0, 10.0, 0.25) for b in g(0.3, 0.9, 0.02)]),
    }


if __name__ == "__main__":
    msgs, blocks, names, feats = load(with_dense=True)
    report("2. Meaning: dense, skillc's fusion, RRF", methods(None), msgs, blocks, names, feats)
