"""Question 3: the recommended default on the whole set, its neighbours (how much the figures
move with the cut), the requests that need no skill yet reach one, and the misses. Prints the
tables of REPORT.md section 3.

    python3 tests/quality/scale/study/recommend.py
"""

import numpy as np

import common
import hybrid as H
from methods import load

K = 4.0  # lexical(d) = raw / (raw + K): 0.5 when a skill matches idf mass 4 (cut C's value)


def lexical(f, names, t):
    s = H.rnd(H.sat(f, K))
    return H.top(s, names, s >= t)


def fused(f, names, t):
    return H.hybrid_sat(f, names, (K, t))


if __name__ == "__main__":
    msgs, blocks, names, feats = load(with_dense=True)
    idx = range(len(msgs))
    for title, method, ts in [
        (f"lexical alone, lexical(d) = raw/(raw+{K:g}) ≥ t", lexical, [0.4, 0.45, 0.5, 0.55, 0.6]),
        (f"hybrid, 0.5·raw/(raw+{K:g}) + 0.5·cos ≥ t", fused, [0.25, 0.27, 0.29, 0.31, 0.33, 0.35, 0.37]),
    ]:
        print(f"### {title}: whole set, by cut\n")
        print(common.HEAD.replace("| method |", "| t |"))
        for t in ts:
            print(common.row(f"{t:g}", common.figures([(msgs[i][0], method(feats[i], names, t)) for i in idx])))
        print()
    t = 0.31
    print(f"### Hybrid at t = {t}: requests that need no skill and still reach one\n")
    for i in idx:
        if not msgs[i][0]:
            r = fused(feats[i], names, t)
            if r:
                print(f"- `{msgs[i][1]}` → {r[0]} (lexical mass {feats[i].raw.max():.2f}, "
                      f"cosine {feats[i].cos.max():.2f})")
    print(f"\n### Hybrid at t = {t}: requests whose skill is not among the first five\n")
    for i in idx:
        e, m = msgs[i]
        if e:
            r = fused(feats[i], names, t)
            if not set(r) & e:
                print(f"- [{blocks[i]}] `{m[:90]}{'…' if len(m) > 90 else ''}` → expected "
                      f"{' | '.join(sorted(e))}; got {', '.join(r[:2]) or 'nothing'}")
