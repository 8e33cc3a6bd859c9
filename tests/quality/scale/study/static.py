"""Design (a) of issue 48, model2vec's method done by hand (model2vec's `distill` needs torch,
and its ready models come from the Hugging Face hub, unreachable here): each of MiniLM's 30,522
WordPiece entries run alone through the transformer ([CLS] entry [SEP], mean of the outputs),
reduced to 256 dimensions by PCA, weighted by Zipf rank (the WordPiece vocabulary is roughly in
frequency order from `the` on: weight log(1 + rank)), as model2vec does. A text's vector is then
the mean of its WordPiece entries' rows: a tokenisation, a lookup and a mean. The table is cached
in the study cache (30,522 × 256 float32, 31 MB: never committed). Prints the table of REPORT.md
section 2b.

    python3 tests/quality/scale/study/static.py
"""

import sys
import time

import numpy as np

import common
from methods import load, report
import hybrid as H
import cuts as C


def table():
    f = common.CACHE / "static-minilm-256.npy"
    if f.exists():
        return np.load(f)
    sys.path.insert(0, str(common.HERE))
    from minilm import MiniLM
    m = MiniLM()
    n = m.w["embeddings.word_embeddings.weight"].shape[0]
    t = time.time()
    out = np.zeros((n, 384), dtype=np.float32)
    for s in range(0, n, 1024):
        ids = np.arange(s, min(n, s + 1024))
        batch = np.stack([np.full(len(ids), 101), ids, np.full(len(ids), 102)], axis=1)
        out[ids] = m._encode_batch(batch, np.ones(batch.shape, dtype=np.float32))
    print(f"(distilled {n} entries in {time.time() - t:.0f} s)", file=sys.stderr)
    x = out - out.mean(0)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    x = x @ vt[:256].T
    rank = np.maximum(np.arange(n) - 1995, 1)  # `the` is entry 1996
    x *= np.log1p(rank)[:, None]
    x = x.astype(np.float32)
    np.save(f, x)
    return x


def embed(tab, tok, texts):
    out = np.zeros((len(texts), tab.shape[1]))
    for i, e in enumerate(tok.encode_batch(list(texts), add_special_tokens=False)):
        if e.ids:
            v = tab[e.ids].mean(0)
            out[i] = v / (np.linalg.norm(v) or 1.0)
    return out


if __name__ == "__main__":
    from tokenizers import Tokenizer
    tab = table()
    tok = Tokenizer.from_file(str(common.Path(__import__("minilm").model_dir()) / "tokenizer.json"))
    tok.no_padding()
    msgs, blocks, names, feats = load(with_dense=False)
    cat = {n: (n, d, w) for n, d, w in common.catalog()}
    s = embed(tab, tok, [common.summary(*cat[n]) for n in names])
    t = time.time()
    q = embed(tab, tok, [m for _, m in msgs])
    per = (time.time() - t) / len(msgs) * 1e6
    print(f"(static query vector: {per:.0f} µs a message in Python, tokenisation included)\n")
    cos = q @ s.T
    for f, c in zip(feats, cos):
        f.cos = c
    g = lambda a, b, st: [round(float(x), 4) for x in np.arange(a, b, st)]  # noqa: E731
    report("2b. Static table distilled from MiniLM (model2vec's method), alone and fused", {
        "static alone, uncut": (H.dense, [None]),
        "static alone, cosine ≥ t": (H.dense, g(0.0, 0.9, 0.01)),
        "skillc hybrid with static, min_score t": (H.hybrid, g(0.0, 0.9, 0.01)),
        "skillc hybrid with static, fire if C or cos₁ ≥ t₂": (
            H.hybrid_gate, [(a, b) for a in g(1.0, 10.0, 0.25) for b in g(0.3, 0.95, 0.02)]),
        "hybrid with static, lexical = raw/(raw+4), cut t": (
            H.hybrid_sat, [(4.0, t) for t in g(0.1, 0.9, 0.01)]),
        "RRF lexical + static, fire if C or cos₁ ≥ t₂": (
            H.rrf_gate, [(a, b) for a in g(1.0, 10.0, 0.25) for b in g(0.3, 0.95, 0.02)]),
    }, msgs, blocks, names, feats)
