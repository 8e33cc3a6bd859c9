"""Where the static table loses to MiniLM is the cut, not the ranking (regress_eval.py: fused and
uncut, the two rank alike). Two ways to decide whether a request fires, measured for MiniLM and
for the recommended static table alike, same protocol (two-fold, held out, pooled):
- gate: the fused ranking (0.5·raw/(raw+4) + 0.5·max(0, cos)), the request fires when the first
  skill's lexical mass reaches t₁ (cut C) or its cosine reaches t₂;
- centred: the cosine less the request's mean cosine over the whole catalog (a null model of the
  request: small talk sits at the same distance from everything), fused and cut at t;
- calibrated (static table only): the static cosine mapped linearly onto MiniLM's scale, the map
  fitted on 20,000 random pairs of the held-out corpus texts (static cosine → MiniLM cosine), then
  fused and cut at t.
Prints the table of REPORT.md section 5e.

    python3 tests/quality/scale/study/regress_gate.py
"""

import numpy as np

import common
import hybrid as H
import regress
from methods import load, report
from regress_eval import DIM, K, attach, g, on, static_vectors


def fused_uncut(f):
    return H.rnd(0.5 * H.sat(f, K) + 0.5 * np.maximum(f.cos, 0.0))


def gate(f, names, p):
    s = fused_uncut(f)
    j = int(np.argmax(s))
    if f.raw[j] >= p[0] or f.cos[j] >= p[1]:
        return H.top(s, names)
    return []


def centred(f, names, t):
    c = f.cos - f.cos.mean()
    s = H.rnd(0.5 * H.sat(f, K) + 0.5 * np.maximum(c, 0.0))
    return H.top(s, names, s >= t)


def calibration(E):
    """a, b with MiniLM cos ≈ a · static cos + b over random pairs of held-out corpus texts."""
    rows_, Y = regress.corpus_vectors()
    keep = [i for i, (src, _) in enumerate(rows_) if src != "catalog"]
    ho = [keep[i] for i in range(len(keep)) if not i % regress.HOLD]
    S = static_vectors(E, regress.token_ids(regress.tokenizer(), [rows_[i][1] for i in ho]), DIM)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, len(ho), 20000), rng.integers(0, len(ho), 20000)
    cs, cm = (S[a] * S[b]).sum(1), (Y[ho][a] * Y[ho][b]).sum(1)
    return np.linalg.lstsq(np.vstack([cs, np.ones_like(cs)]).T, cm, rcond=None)[0]


def rows(key, label):
    return {
        f"{label}: gate, mass₁ ≥ t₁ or cos₁ ≥ t₂": (
            on(key, gate), [(a, b) for a in g(2.0, 8.0, 0.5) for b in g(0.2, 0.9, 0.02)]),
        f"{label}: centred cosine, cut t": (on(key, centred), g(0.1, 0.8, 0.01)),
    }


if __name__ == "__main__":
    msgs, blocks, names, feats = load(with_dense=True)
    cat = {n: (n, d, w) for n, d, w in common.catalog()}
    summaries = [common.summary(*cat[n]) for n in names]
    tok = regress.tokenizer()
    res, _ = regress.train("generic")
    E = res["cos"]
    q = static_vectors(E, regress.token_ids(tok, [m for _, m in msgs]), DIM)
    s = static_vectors(E, regress.token_ids(tok, summaries), DIM)
    attach(feats, "minilm", [f.cos for f in feats])
    attach(feats, "static", q @ s.T)
    ca, cb = calibration(E)
    print(f"(calibration on the corpus: MiniLM cos ≈ {ca:.3f} · static cos + {cb:.3f})\n")
    attach(feats, "calibrated", ca * (q @ s.T) + cb)
    m = {}
    m.update(rows("minilm", "hybrid with MiniLM"))
    m.update(rows("static", "hybrid with A generic least squares+cosine"))
    m["hybrid with A generic least squares+cosine: calibrated cosine, cut t"] = (
        on("calibrated", H.hybrid_sat), [(K, t) for t in g(0.1, 0.9, 0.01)])
    report(f"5e. Deciding whether to fire: gate and centred cosine ({common.SET_NAME})", m, msgs, blocks, names, feats)
