"""The built-in meaning table that skillc ships (docs/routing.md, "Meaning"): section 5's recipe
(regress.py: the distilled table mapped, least squares, 50 cosine steps; the `generic` corpus,
which never saw a labelled catalog, less the collections whose licence is not MIT), trained on the pieces the runtimes make themselves
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
# The corpus sources whose texts the shipped table is fitted on: the collections under the MIT
# licence at the pinned commits of corpus.py, and the English templates written for it. The
# others (a proprietary licence, a collection without one, per-skill licences) are left out.
SHIPPED_SOURCES = {"obra/superpowers", "wshobson/agents", "alirezarezvani/claude-skills",
                   "davila7/claude-code-templates", "templates"}
# Two more MIT-licensed collections, read the same way (corpus.py's `from_collections`), so that
# the licence filter above does not shrink the corpus. A sentence equal to a description of a
# labelled catalog (tests/quality/scale: the same skill published twice) is left out.
EXTRA_SOURCES = [
    ("github/awesome-copilot", "ab7544d03d4c49fdd07f5958e1888ad39c4118e2", 7000),
    ("agentskillexchange/skills", "2ffdadfcca8576cdf14caec9bbcda7162c393bbc", 7000),
]


def extra_rows():
    import random
    f = common.CACHE / "corpus-extra.jsonl"
    if f.exists():
        return [tuple(json.loads(line)) for line in f.read_text().splitlines()]
    labelled = set()
    for md in (common.SCALE).glob("*/skills/*/SKILL.md"):
        desc, _ = corpus.skill_texts(md.read_text())
        labelled.add(" ".join(desc.lower().split()))
    saved, corpus.SOURCES = corpus.SOURCES, EXTRA_SOURCES
    try:
        rows = corpus.from_collections(random.Random(48))
    finally:
        corpus.SOURCES = saved
    rows = [(src, s) for src, s in rows if " ".join(s.lower().split()) not in labelled]
    f.write_text("".join(json.dumps([src, s]) + "\n" for src, s in rows))
    return rows


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
    keep = [i for i, (src, _) in enumerate(rows) if src in SHIPPED_SOURCES]
    extra = extra_rows()
    texts = [rows[i][1] for i in keep] + [s for _, s in extra]
    Y = np.concatenate([Y[keep], common.vectors("extra", [s for _, s in extra])])
    t = time.time()
    piece_ids = [_meaning.pieces(s, ids, fold_map) for s in texts]
    print(f"{len(texts)} corpus texts in pieces ({time.time() - t:.0f} s)", file=sys.stderr)
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
        held = regress.mean_cos(oh, E, Yh)
        print(f"{stage}: corpus cosine train {regress.mean_cos(op, E, Yt):.3f}, "
              f"held-out {held:.3f}", file=sys.stderr)
        return held
    X = op.fwd(D)
    W = np.linalg.solve(X.T @ X + 1e-3 * np.eye(X.shape[1]), X.T @ Yt).astype(np.float32)
    E = (D @ W).astype(np.float32)
    log("init", E)
    E = regress.fit_ls(op, Yt, E, regress.LAMBDA, regress.CG_ITERS)
    held_ls = log("least squares", E)
    # Cosine steps, five at a time, kept while they help the held-out texts (on a smaller
    # corpus they soon fit the training texts at the held-out ones' cost).
    best, steps = held_ls, 0
    while steps < regress.ADAM_EPOCHS:
        E_next = regress.fit_cos(op, Yt, E, regress.ADAM_LR, 5, regress.ADAM_MU)
        held = log(f"cosine, {steps + 5} steps", E_next)
        if held <= best:
            break
        E, best, steps = E_next, held, steps + 5
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
