"""How the fused figures of the regression-trained tables move with the cut (whole set; the cuts
were tuned on halves in regress_eval.py: these rows only show the neighbourhood), and which
requests that need no skill still reach one. Prints the tables of REPORT.md section 5d.

    python3 tests/quality/scale/study/regress_cuts.py
"""

import numpy as np

import common
import hybrid as H
import regress
from methods import load
from regress_eval import DIM, K, static_vectors, unit

if __name__ == "__main__":
    msgs, blocks, names, feats = load(with_dense=False)
    cat = {n: (n, d, w) for n, d, w in common.catalog()}
    summaries = [common.summary(*cat[n]) for n in names]
    tok = regress.tokenizer()
    q_ids = regress.token_ids(tok, [m for _, m in msgs])
    s_ids = regress.token_ids(tok, summaries)
    res, R = regress.train("generic")
    idx = range(len(msgs))
    for stage, label in (("ls", "least squares"), ("cos", "least squares+cosine")):
        E = res[stage]
        q, s = static_vectors(E, q_ids, DIM), static_vectors(E, s_ids, DIM)
        cos = q @ s.T
        print(f"### A generic {label}, {DIM} dims: 0.5·raw/(raw+4) + 0.5·max(0, cos) ≥ t, whole set\n")
        print(common.HEAD.replace("| method |", "| t |"))
        for t in (0.33, 0.35, 0.37, 0.39, 0.41, 0.43, 0.45, 0.47):
            rows = []
            for i in idx:
                f = feats[i]
                sc = H.rnd(0.5 * H.sat(f, K) + 0.5 * np.maximum(cos[i], 0.0))
                rows.append((msgs[i][0], H.top(sc, names, sc >= t)))
            print(common.row(f"{t:g}", common.figures(rows)))
        t = 0.41
        print(f"\nAt t = {t}, requests that need no skill and still reach one:\n")
        for i in idx:
            if not msgs[i][0]:
                f = feats[i]
                sc = H.rnd(0.5 * H.sat(f, K) + 0.5 * np.maximum(cos[i], 0.0))
                r = H.top(sc, names, sc >= t)
                if r:
                    j = names.index(r[0])
                    print(f"- `{msgs[i][1][:100]}` → {r[0]} (lexical mass {f.raw[j]:.2f}, cosine {cos[i][j]:.2f})")
        print()
