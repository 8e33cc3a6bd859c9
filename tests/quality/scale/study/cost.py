"""Cost per request of each part, on this machine (2 cores, busy with other work: figures are
upper bounds). Median over the set's messages (or a sample of them).

    python3 tests/quality/scale/study/cost.py
"""

import statistics
import subprocess
import sys
import time

import numpy as np

import common


def median_us(fn, items):
    out = []
    for x in items:
        t = time.perf_counter()
        fn(x)
        out.append((time.perf_counter() - t) * 1e6)
    return statistics.median(out)


if __name__ == "__main__":
    msgs = [m for _, m in common.labelled()[0]]
    a = common.artifact()
    a.route(msgs[0])  # warm
    print("| part | median per request |\n|---|---|")
    print(f"| Python runtime, lexical route (Artifact.route, 555 skills) | {median_us(a.route, msgs):.0f} µs |")
    sample = msgs[::23]
    cli = median_us(lambda m: subprocess.run([common.SKILLC, "route", str(common.CACHE / 'scale.db'), m,
                                              "--format", "json"], check=True, capture_output=True), sample)
    print(f"| `skillc route` process, lexical (debug build) | {cli / 1000:.1f} ms |")
    sys.path.insert(0, str(common.HERE))
    from minilm import MiniLM
    m = MiniLM()
    enc = median_us(lambda x: m.encode([x]), msgs[::9])
    print(f"| MiniLM query vector, numpy, one message alone | {enc / 1000:.1f} ms |")
    cat = common.catalog()
    s = common.vectors("summaries", [common.summary(n, d, w) for n, d, w in cat]).astype(np.float32)
    q = common.vectors("messages", msgs).astype(np.float32)
    print(f"| cosine against 555 summaries (numpy, float32) | {median_us(lambda v: s @ v, q):.0f} µs |")
    try:
        from static import embed
        from tokenizers import Tokenizer
        tab = np.load(common.CACHE / "static-minilm-256.npy")
        tok = Tokenizer.from_file(str(m.__class__.__module__ and __import__('minilm').model_dir() / "tokenizer.json"))
        tok.no_padding()
        print(f"| static table query vector (tokenise, look up, mean) | "
              f"{median_us(lambda x: embed(tab, tok, [x]), msgs):.0f} µs |")
    except FileNotFoundError:
        print("| static table query vector | (run static.py first) |")
    # The Python runtime's hybrid sums (skillc_runtime `_cosine`, pure Python, in order) over the
    # same 555 vectors: what a hybrid route costs there today.
    from skillc_runtime import _cosine, _norm
    docs = [(tuple(map(float, v)), _norm(v)) for v in s]
    qs = [tuple(map(float, v)) for v in q[::45]]
    cost = median_us(lambda v: [_cosine(v, _norm(v), d, n) for d, n in docs], qs)
    print(f"| cosine against 555 summaries, the Python runtime's own loop (`_cosine`) | {cost / 1000:.1f} ms |")
