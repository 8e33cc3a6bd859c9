"""The study's rankings and cuts over precomputed per-message features, and the tuning protocol:
each cut's parameter is chosen on one half of the set (odd or even data lines) and reported on the
other. Choice rule on the tuning half: the highest recall@5 + recall@1 with false fire ≤ 0.10; when
no value reaches that false fire, the lowest false fire (then the best recalls)."""

import math

import numpy as np

import common


class Features:
    """Everything a method needs for one message."""

    def __init__(self, raw, whole, top_idf, bm25, cos, lex):
        self.raw, self.whole, self.top_idf, self.bm25, self.cos = raw, whole, top_idf, bm25, cos
        self.score = np.floor(raw / whole * 1e6 + 0.5) / 1e6 if whole else np.zeros_like(raw)
        self.lex = lex


_NAME_RANK = None


def order(scores, names, positive=True):
    """Doc indices best first, ties by name; only those scoring above 0 when `positive`."""
    global _NAME_RANK
    if _NAME_RANK is None or len(_NAME_RANK) != len(names):
        _NAME_RANK = np.argsort(np.argsort(np.array(names, dtype=object)))
    idx = np.lexsort((_NAME_RANK, -scores))
    return idx[scores[idx] > 0] if positive else idx


def top(scores, names, keep=None, k=5, positive=True):
    o = order(scores, names, positive)
    if keep is not None:
        o = o[keep[o]]
    return [names[i] for i in o[:k]]


def load(with_dense=True):
    """(messages, blocks, names, features per message)."""
    msgs, blocks = common.labelled()
    cat = common.catalog()
    lex = common.Lexical()
    by_name = {n: (n, d, w) for n, d, w in cat}
    assert len(by_name) == len(cat) == len(lex.names) and set(by_name) == set(lex.names)
    cat = [by_name[n] for n in lex.names]  # the runtime's document order
    bm = common.bm25_scores(cat, [m for _, m in msgs])
    cos = None
    if with_dense:
        s = common.vectors("summaries", [common.summary(n, d, w) for n, d, w in cat])
        q = common.vectors("messages", [m for _, m in msgs])
        cos = q.astype(np.float64) @ s.astype(np.float64).T
    feats = []
    for k, (_, m) in enumerate(msgs):
        raw, whole, top_idf = lex.score(m)
        feats.append(Features(raw, whole, top_idf, bm[k], None if cos is None else cos[k], lex))
    return msgs, blocks, lex.names, feats


def halves(n):
    odd = [i for i in range(n) if i % 2 == 0]   # data lines 1, 3, 5, ... (odd, counting from 1)
    even = [i for i in range(n) if i % 2 == 1]
    return odd, even


def run(method, param, msgs, names, feats, idx):
    return common.figures([(msgs[i][0], method(feats[i], names, param)) for i in idx])


def tune(method, grid, msgs, names, feats, idx, ff_max=0.10):
    best = None
    for p in grid:
        f = run(method, p, msgs, names, feats, idx)
        ok = f["ff"] <= ff_max + 1e-9
        key = (ok, f["r5"] + f["r1"] if ok else -f["ff"], f["r5"] + f["r1"])
        if best is None or key > best[0]:
            best = (key, p, f)
    return best[1], best[2]


def by_block(method, param, msgs, blocks, names, feats, idx):
    out = {}
    for b in ["short", "long", "misspelled", "other languages", "no skill"]:
        sel = [i for i in idx if blocks[i] == b]
        out[b] = run(method, param, msgs, names, feats, sel)
    return out


def fmt_param(p):
    if isinstance(p, tuple):
        return "(" + ", ".join(fmt_param(x) for x in p) + ")"
    if p is None:
        return "—"
    return f"{p:.4g}" if isinstance(p, float) else str(p)


def rows_of(method, param, msgs, names, feats, idx):
    return [(msgs[i][0], method(feats[i], names, param)) for i in idx]


def report(title, methods, msgs, blocks, names, feats):
    """Prints, per method: the parameter tuned on each half; the figures held out, pooled (each
    half scored with the parameter tuned on the other: a two-fold cross-validation over all the
    set), then each half alone; then by block, pooled the same way."""
    n = len(msgs)
    odd, even = halves(n)
    chosen = {}
    print(f"## {title}\n")
    print("Held out: each half scored with the parameter tuned on the other half, pooled "
          f"({sum(1 for e, _ in msgs if e)} requests with a skill, {sum(1 for e, _ in msgs if not e)} without).\n")
    print("| method | t tuned on odd | t tuned on even | recall@1 | recall@5 | MRR@5 | false fire "
          "| no candidate | even half r@1 / r@5 / ff | odd half r@1 / r@5 / ff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (method, grid) in methods.items():
        if len(grid) > 1:
            p1, _ = tune(method, grid, msgs, names, feats, odd)
            p2, _ = tune(method, grid, msgs, names, feats, even)
        else:
            p1 = p2 = grid[0]
        re_, ro = rows_of(method, p1, msgs, names, feats, even), rows_of(method, p2, msgs, names, feats, odd)
        f, fe, fo = common.figures(re_ + ro), common.figures(re_), common.figures(ro)
        chosen[name] = (p1, p2)
        print(f"| {name} | {fmt_param(p1)} | {fmt_param(p2)} | {f['r1']:.3f} | {f['r5']:.3f} | {f['mrr']:.3f} "
              f"| {f['ff']:.3f} | {f['empty']:.3f} | {fe['r1']:.3f} / {fe['r5']:.3f} / {fe['ff']:.2f} "
              f"| {fo['r1']:.3f} / {fo['r5']:.3f} / {fo['ff']:.2f} |")
    bl = ["short", "long", "misspelled", "other languages"]
    cnt = {b: sum(1 for i in range(n) if blocks[i] == b) for b in bl + ["no skill"]}
    print("\nBy block, held out and pooled as above: recall@1 / recall@5 / no candidate; false fire "
          "for the block that needs no skill:\n")
    print("| method | " + " | ".join(f"{b} ({cnt[b]})" for b in bl) + f" | no skill ({cnt['no skill']}) |")
    print("|---" * (len(bl) + 2) + "|")
    for name, (method, _) in methods.items():
        p1, p2 = chosen[name]
        cells = []
        for b in bl + ["no skill"]:
            r = (rows_of(method, p1, msgs, names, feats, [i for i in even if blocks[i] == b])
                 + rows_of(method, p2, msgs, names, feats, [i for i in odd if blocks[i] == b]))
            f = common.figures(r)
            cells.append(f"{f['ff']:.2f}" if b == "no skill" else f"{f['r1']:.2f} / {f['r5']:.2f} / {f['empty']:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    return chosen
