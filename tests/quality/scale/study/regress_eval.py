"""Measures the regression-trained static tables (regress.py) on the labelled set with the first
study's protocol (two-fold odd/even tuning of every cut, held-out figures pooled), with the
baselines in the same run: BM25, MiniLM dense alone, lexical raw/(raw+4) cut 0.5, hybrid with
MiniLM. Prints the tables of REPORT.md section 5 (A: static query and static skill vectors;
B: static query against full-MiniLM skill vectors), then the query-vector cost.

    python3 tests/quality/scale/study/regress.py        # once: trains the tables (cached)
    python3 tests/quality/scale/study/regress_eval.py
"""

import statistics
import sys
import time
from types import SimpleNamespace

import numpy as np

import common
import hybrid as H
import regress
from cuts import bm25
from methods import load, report

K = 4.0
DIM = 256


def g(a, b, s):
    return [round(float(x), 4) for x in np.arange(a, b, s)]


def unit(x):
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(n > 0, n, 1.0)


def static_vectors(E, ids, d):
    """Mean of the rows of each text's entries (first d coordinates), L2-normalised."""
    out = np.zeros((len(ids), d), dtype=np.float32)
    for i, x in enumerate(ids):
        if x:
            out[i] = E[x, :d].mean(0)
    return unit(out)


def lexical(f, names, t):
    s = H.rnd(H.sat(f, K))
    return H.top(s, names, s >= t)


def on(key, method):
    return lambda f, names, p: method(f.views[key], names, p)


def attach(feats, key, cos):
    for f, c in zip(feats, cos):
        f.__dict__.setdefault("views", {})[key] = SimpleNamespace(raw=f.raw, cos=c)


def baselines():
    return {
        "BM25 (rank_bm25), uncut": (bm25, [None]),
        "dense alone (MiniLM), uncut": (H.dense, [None]),
        "dense alone (MiniLM), cosine ≥ t": (H.dense, g(0.0, 0.8, 0.01)),
        "lexical raw/(raw+4) ≥ 0.5 (cut C)": (lexical, [0.5]),
        "hybrid with MiniLM, raw/(raw+4), uncut": (H.hybrid_sat, [(K, 0.0)]),
        "hybrid with MiniLM, raw/(raw+4), cut t": (H.hybrid_sat, [(K, t) for t in g(0.1, 0.8, 0.01)]),
    }


def variant_rows(key, label):
    return {
        f"{label} alone, uncut": (on(key, H.dense), [None]),
        f"{label} alone, cosine ≥ t": (on(key, H.dense), g(0.0, 0.95, 0.01)),
        f"hybrid with {label}, raw/(raw+4), uncut": (on(key, H.hybrid_sat), [(K, 0.0)]),
        f"hybrid with {label}, raw/(raw+4), cut t": (on(key, H.hybrid_sat), [(K, t) for t in g(0.1, 0.9, 0.01)]),
    }


def median_us(fn, items):
    out = []
    for x in items:
        t = time.perf_counter()
        fn(x)
        out.append((time.perf_counter() - t) * 1e6)
    return statistics.median(out)


if __name__ == "__main__":
    msgs, blocks, names, feats = load(with_dense=True)
    cat = {n: (n, d, w) for n, d, w in common.catalog()}
    summaries = [common.summary(*cat[n]) for n in names]
    tok = regress.tokenizer()
    q_ids = regress.token_ids(tok, [m for _, m in msgs])
    s_ids = regress.token_ids(tok, summaries)
    mini_s = common.vectors("summaries", summaries)
    from static import table as distilled
    D = distilled()
    qd, sd = static_vectors(D, q_ids, D.shape[1]), static_vectors(D, s_ids, D.shape[1])
    attach(feats, "distilled", qd @ sd.T)
    A, B = {}, {}
    tables = {}
    for kind in ("generic", "catalog"):
        res, R = regress.train(kind)
        for stage, E in res.items():
            tables[(kind, stage)] = E
            q = static_vectors(E, q_ids, DIM)
            s = static_vectors(E, s_ids, DIM)
            sm = unit((mini_s @ R)[:, :DIM])
            attach(feats, f"A-{kind}-{stage}", q @ s.T)
            attach(feats, f"B-{kind}-{stage}", q @ sm.T)
    label = {"init": "distilled+map", "ls": "least squares", "cos": "least squares+cosine"}
    ma = dict(baselines())
    ma.update(variant_rows("distilled", "static.py's distilled table (first study)"))
    for kind in ("generic", "catalog"):
        for stage in ("init", "ls", "cos"):
            ma.update(variant_rows(f"A-{kind}-{stage}", f"A {kind} {label[stage]}"))
    report(f"5a. Regression-trained static table, symmetric (A): query and skill vectors from the table, {DIM} dims",
           ma, msgs, blocks, names, feats)
    mb = {}
    for kind in ("generic", "catalog"):
        for stage in ("init", "ls", "cos"):
            mb.update(variant_rows(f"B-{kind}-{stage}", f"B {kind} {label[stage]}"))
    report(f"5b. Asymmetric (B): query vector from the table, skill vectors from full MiniLM (rotated, first {DIM})",
           mb, msgs, blocks, names, feats)
    # Query-vector cost: tokenise (tokenizers, Rust), look up, mean, normalise; numpy float32.
    E = tables[("generic", "cos")][:, :DIM].astype(np.float32).copy()
    texts = [m for _, m in msgs]

    def qv(x):
        ids = tok.encode(x, add_special_tokens=False).ids
        v = E[ids].mean(0)
        return v / (np.linalg.norm(v) or 1.0)
    for x in texts[:20]:
        qv(x)
    print(f"Query vector (tokenizers + numpy, {DIM} dims, float32): median {median_us(qv, texts):.0f} µs a message")
