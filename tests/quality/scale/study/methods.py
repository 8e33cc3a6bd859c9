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


def report(title, methods, msgs, blocks, names, feats):
    """Prints, per method: parameter tuned on each half and the figures on the other half, then
    the whole set with the parameter tuned on the odd half, then by block (even half)."""
    n = len(msgs)
    odd, even = halves(n)
    chosen = {}
    print(f"## {title}\n")
    print("Tuned on the odd lines, reported on the even lines (and the reverse).\n")
    print("| method | param (tuned on odd) | recall@1 | recall@5 | MRR@5 | false fire | no candidate "
          "| param (tuned on even) | recall@1 on odd | recall@5 on odd | false fire on odd |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (method, grid) in methods.items():
        if len(grid) > 1:
            p1, _ = tune(method, grid, msgs, names, feats, odd)
            p2, _ = tune(method, grid, msgs, names, feats, even)
        else:
            p1 = p2 = grid[0]
        f = run(method, p1, msgs, names, feats, even)
        g = run(method, p2, msgs, names, feats, odd)
        chosen[name] = p1
        print(f"| {name} | {fmt_param(p1)} | {f['r1']:.3f} | {f['r5']:.3f} | {f['mrr']:.3f} | {f['ff']:.3f} "
              f"| {f['empty']:.3f} | {fmt_param(p2)} | {g['r1']:.3f} | {g['r5']:.3f} | {g['ff']:.3f} |")
    print("\nBy block, on the even half (parameter tuned on the odd half); recall@1 / recall@5 / "
          "no candidate, and false fire on the no-skill block:\n")
    bl = ["short", "long", "misspelled", "other languages"]
    cnt = {b: sum(1 for i in even if blocks[i] == b) for b in bl + ["no skill"]}
    print("| method | " + " | ".join(f"{b} ({cnt[b]})" for b in bl) + f" | no skill ({cnt['no skill']}) ff |")
    print("|---" * (len(bl) + 2) + "|")
    for name, (method, _) in methods.items():
        bb = by_block(method, chosen[name], msgs, blocks, names, feats, even)
        cells = [f"{bb[b]['r1']:.2f} / {bb[b]['r5']:.2f} / {bb[b]['empty']:.2f}" for b in bl]
        print(f"| {name} | " + " | ".join(cells) + f" | {bb['no skill']['ff']:.2f} |")
    print()
    return chosen
