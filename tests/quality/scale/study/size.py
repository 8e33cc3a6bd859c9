"""Question C: size against quality of the regression-trained table (regress.py, `generic`
corpus, least squares + cosine): vocabulary restricted to what a catalog and English need, the
first d coordinates of the rotated space (64, 128, 256, 384), stored as float32, float16 or int8
(one float16 scale per row, symmetric). Each row: held-out figures (two-fold, pooled, as
methods.py) of the table alone (uncut) and fused (0.5·raw/(raw+4) + 0.5·max(0, cos), cut tuned),
for A (static skill vectors) and B (full-MiniLM skill vectors), and the bytes the artifact would
carry (rows + scales; the WordPiece vocabulary's strings, ≈ 0.2 MB for 30,522 entries, come on
top, once).

Vocabularies: `all` (30,522 entries); `corpus` (the entries the generic training corpus holds);
`corpus+10k` (those and the 10,000 most frequent English entries of WordPiece's order, ids 1996
on). An entry outside the vocabulary is left out of the mean.

    python3 tests/quality/scale/study/size.py
"""

import numpy as np

import common
import corpus
import hybrid as H
import regress
from methods import halves, load, rows_of, tune
from regress_eval import K, attach, g, on, static_vectors, unit


def heldout(method, grid, msgs, names, feats):
    odd, even = halves(len(msgs))
    p1, _ = tune(method, grid, msgs, names, feats, odd)
    p2, _ = tune(method, grid, msgs, names, feats, even)
    return common.figures(rows_of(method, p1, msgs, names, feats, even) + rows_of(method, p2, msgs, names, feats, odd)), (p1, p2)


def quantise(E, kind):
    if kind == "float32":
        return E.astype(np.float32), E.shape[0] * E.shape[1] * 4
    if kind == "float16":
        return E.astype(np.float16).astype(np.float32), E.shape[0] * E.shape[1] * 2
    sc = (np.abs(E).max(1) / 127.0).astype(np.float16).astype(np.float32)
    q = np.round(E / np.where(sc > 0, sc, 1.0)[:, None]).clip(-127, 127).astype(np.int8)
    return q.astype(np.float32) * sc[:, None], E.shape[0] * E.shape[1] + E.shape[0] * 2


if __name__ == "__main__":
    msgs, blocks, names, feats = load(with_dense=False)
    cat = {n: (n, d, w) for n, d, w in common.catalog()}
    summaries = [common.summary(*cat[n]) for n in names]
    tok = regress.tokenizer()
    q_ids = regress.token_ids(tok, [m for _, m in msgs])
    s_ids = regress.token_ids(tok, summaries)
    mini_s = common.vectors("summaries", summaries)
    res, R = regress.train("generic")
    E_all = res["cos"]
    rows = corpus.load()
    seen = np.zeros(E_all.shape[0], bool)
    for x in regress.token_ids(tok, [s for src, s in rows if src != "catalog"]):
        seen[x] = True
    top = np.zeros_like(seen)
    top[1996:1996 + 10000] = True
    vocabs = {"all": np.ones_like(seen), "corpus": seen, "corpus+10k": seen | top}
    fused = [(K, t) for t in g(0.1, 0.9, 0.01)]
    print("| vocabulary | entries | dims | stored as | bytes | A alone r@1 / r@5 | A fused r@1 / r@5 / MRR / ff / empty "
          "| B alone r@1 / r@5 | B fused r@1 / r@5 / MRR / ff / empty |")
    print("|---|---|---|---|---|---|---|---|---|")
    plan = [("all", d, "float32") for d in (64, 128, 256, 384)]
    plan += [("all", 256, "float16"), ("all", 256, "int8"), ("all", 128, "int8"), ("all", 64, "int8")]
    plan += [(v, d, "int8") for v in ("corpus", "corpus+10k") for d in (128, 256)]
    plan += [("corpus+10k", 256, "float16")]
    for vname, d, kind in plan:
        keep = vocabs[vname]
        E, nbytes = quantise(E_all[keep][:, :d], kind)
        full = np.zeros((E_all.shape[0], d), np.float32)
        full[keep] = E
        qi = [[t for t in x if keep[t]] for x in q_ids]
        si = [[t for t in x if keep[t]] for x in s_ids]
        q = static_vectors(full, qi, d)
        s = static_vectors(full, si, d)
        sm = unit((mini_s @ R)[:, :d])
        attach(feats, "A", q @ s.T)
        attach(feats, "B", q @ sm.T)
        cells = []
        for key in ("A", "B"):
            a, _ = heldout(on(key, H.dense), [None], msgs, names, feats)
            f, _ = heldout(on(key, H.hybrid_sat), fused, msgs, names, feats)
            cells.append(f"{a['r1']:.3f} / {a['r5']:.3f}")
            cells.append(f"{f['r1']:.3f} / {f['r5']:.3f} / {f['mrr']:.3f} / {f['ff']:.3f} / {f['empty']:.3f}")
        print(f"| {vname} | {int(keep.sum())} | {d} | {kind} | {nbytes / 1e6:.2f} MB | " + " | ".join(cells) + " |")
