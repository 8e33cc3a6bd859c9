"""The built-in meaning table that skillc ships (docs/routing.md, "Meaning"): section 5's recipe
(regress.py: the distilled table mapped, least squares, 50 cosine steps; the `generic` corpus,
which never saw a labelled catalog), trained on the pieces the runtimes make themselves
(compiler/runtime/python/skillc_runtime/_meaning.py: routing's words, accents folded, WordPiece
over all-MiniLM-L6-v2's vocabulary, no punctuation) instead of the `tokenizers` ids, then its
first 256 coordinates kept as int8 with a float32 scale per row.

Writes compiler/meaning/static-minilm-v1.bin (the format `compiler/src/pipeline/meaning.rs`
reads) and prints its digest. Reproduce: section 5's steps (corpus.py, the numpy MiniLM), then

    python3 tests/quality/scale/study/ship.py
"""

import hashlib
import json
import struct
import sys
import time
import unicodedata

import numpy as np

import common
import corpus
import regress

sys.path.insert(0, str(common.REPO / "compiler/runtime/python"))
from skillc_runtime import _meaning  # noqa: E402

NAME = "static-minilm-v1"
DIMS = 256
OUT = common.REPO / "compiler/meaning" / f"{NAME}.bin"
MAGIC = b"SKILLC-MEANING-1"


def vocabulary():
    from minilm import model_dir
    vocab = json.loads((model_dir() / "tokenizer.json").read_text())["model"]["vocab"]
    out = [""] * len(vocab)
    for piece, i in vocab.items():
        out[i] = piece
    assert all(out) and all("\n" not in p and "\t" not in p for p in out)
    return out


def folds():
    """Each letter below U+2000 that decomposes into a base and combining marks: the base
    (what BERT's uncased normaliser does by NFD and dropping Mn)."""
    out = []
    for cp in range(0xC0, 0x2000):
        c = chr(cp)
        base = "".join(x for x in unicodedata.normalize("NFD", c) if unicodedata.category(x) != "Mn")
        if base and base != c and "\n" not in base and "\t" not in base:
            out.append(f"{c}\t{base}")
    return out


def main():
    vocab = vocabulary()
    fold_lines = folds()
    ids = {p: i for i, p in enumerate(vocab)}
    fold_map = dict(line.split("\t") for line in fold_lines)
    rows, Y = regress.corpus_vectors()
    keep = [i for i, (src, _) in enumerate(rows) if src != "catalog"]
    texts = [rows[i][1] for i in keep]
    t = time.time()
    piece_ids = [_meaning.pieces(s, ids, fold_map) for s in texts]
    print(f"{len(texts)} corpus texts in pieces ({time.time() - t:.0f} s)", file=sys.stderr)
    Y = Y[keep]
    R = regress.rotation(Y)
    Yr = (Y @ R).astype(np.float32)
    from static import table as distilled
    D = distilled()
    tr = [i for i in range(len(texts)) if i % regress.HOLD]
    ho = [i for i in range(len(texts)) if not i % regress.HOLD]
    op = regress.MeanOp([piece_ids[i] for i in tr], D.shape[0])
    oh = regress.MeanOp([piece_ids[i] for i in ho], D.shape[0])
    Yt, Yh = Yr[tr], Yr[ho]

    def log(stage, E):
        print(f"{stage}: corpus cosine train {regress.mean_cos(op, E, Yt):.3f}, "
              f"held-out {regress.mean_cos(oh, E, Yh):.3f}", file=sys.stderr)
    X = op.fwd(D)
    W = np.linalg.solve(X.T @ X + 1e-3 * np.eye(X.shape[1]), X.T @ Yt).astype(np.float32)
    E = (D @ W).astype(np.float32)
    log("init", E)
    E = regress.fit_ls(op, Yt, E, regress.LAMBDA, regress.CG_ITERS)
    log("least squares", E)
    E = regress.fit_cos(op, Yt, E, regress.ADAM_LR, regress.ADAM_EPOCHS, regress.ADAM_MU)
    log("cosine", E)
    E = E[:, :DIMS]
    scale = np.abs(E).max(1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.floor(E / scale[:, None] + 0.5), -127, 127).astype(np.int8)
    scale = scale.astype("<f4")
    vocab_bytes = "\n".join(vocab).encode()
    fold_bytes = "\n".join(fold_lines).encode()
    blob = b"".join([
        MAGIC, struct.pack("<II", DIMS, len(vocab)),
        struct.pack("<I", len(vocab_bytes)), vocab_bytes,
        struct.pack("<I", len(fold_bytes)), fold_bytes,
        scale.tobytes(), q.tobytes(),
    ])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(blob)
    print(f"{OUT} {len(blob)} bytes sha256 {hashlib.sha256(blob).hexdigest()}")


if __name__ == "__main__":
    main()
