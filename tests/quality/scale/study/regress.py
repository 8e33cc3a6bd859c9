"""A static table trained by regression onto MiniLM's sentence vectors (tokenlearn's idea, done in
numpy with scipy.sparse; no torch): a text's vector is the mean of its WordPiece entries' rows, and the rows are fitted
so that this mean lands on the text's MiniLM vector, over a corpus that is not the labelled
requests (corpus.py).

Recipe (every number here is fixed; nothing is tuned on the labelled set):
1. Target space: the corpus's MiniLM vectors Y (N × 384, unit norm), rotated by the right singular
   vectors of Y itself (uncentred, so that a cosine in the full space is a cosine in MiniLM's space;
   the first d coordinates are the best d-dimensional approximation). Skill vectors of full
   MiniLM (design B) are rotated the same way.
2. Initial table: static.py's distilled table D (30,522 × 256: each entry alone through MiniLM, PCA,
   Zipf weight) mapped linearly into the target space: W = argmin ||A·D·W − Y|| (ridge 1e-3), where
   A is the mean operator (A[s, t] = count of entry t in text s / length of s). E₀ = D·W.
3. Least squares, ridge towards E₀: (AᵀA + λ·diag(c)) E = AᵀY + λ·diag(c)·E₀ with c = 1 for every
   entry (an entry the corpus never holds keeps E₀), λ = LAMBDA, conjugate gradients, CG_ITERS.
4. Cosine fine-tuning: loss = mean over texts of 1 − cos(A·E, y) + μ·||E − E_ls||² / rows, Adam
   (lr ADAM_LR), ADAM_EPOCHS full-batch steps. The held-out 4% of the corpus (every 25th text)
   reports the mean cosine after each stage: it chose λ (0.001–1: 0.03–0.1 best) and the 50 Adam
   steps (held-out cosine peaks at 25–50 steps, then falls); nothing was chosen on the labelled set.

Two corpora: `generic` (other public skill collections + English templates: the table one would
ship, that never saw the labelled catalog) and `catalog` (the same + the labelled catalog's
descriptions split into clauses: what a build step could add for one customer's catalog).

Tables and the rotation are cached in STUDY_CACHE (never committed).

    python3 tests/quality/scale/study/regress.py     # trains both, prints the corpus cosines
"""

import sys
import time

import numpy as np

import common
import corpus

LAMBDA = 0.05
CG_ITERS = 60
ADAM_LR = 0.01
ADAM_EPOCHS = 50
ADAM_MU = 1e-4
HOLD = 25  # every 25th corpus text is held out


def tokenizer():
    from tokenizers import Tokenizer
    sys.path.insert(0, str(common.HERE))
    from minilm import model_dir
    tok = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def token_ids(tok, texts):
    return [e.ids for e in tok.encode_batch(list(texts), add_special_tokens=False)]


class MeanOp:
    """A (texts × entries, A[s, t] = count / length) as a scipy CSR matrix; A·E and Aᵀ·Z."""

    def __init__(self, ids, vocab):
        from scipy.sparse import csr_matrix
        lens = np.array([max(len(x), 1) for x in ids])
        tok = np.concatenate([np.array(x, dtype=np.int64) for x in ids if x] or [np.zeros(0, np.int64)])
        sent = np.concatenate([np.full(len(x), i) for i, x in enumerate(ids) if x] or [np.zeros(0, np.int64)])
        w = (1.0 / lens[sent]).astype(np.float32)
        self.n = len(ids)
        self.vocab = vocab
        self.A = csr_matrix((w, (sent, tok)), shape=(self.n, vocab), dtype=np.float32)  # duplicates summed
        self.At = self.A.T.tocsr()
        self.count = np.bincount(tok, minlength=vocab)

    def fwd(self, E):
        return np.asarray(self.A @ E, dtype=np.float32)

    def back(self, Z):
        return np.asarray(self.At @ Z, dtype=np.float32)


def rotation(Y):
    """Right singular vectors of Y (uncentred), as columns: 384 × 384."""
    _, _, vt = np.linalg.svd(Y.astype(np.float64), full_matrices=False)
    return vt.T.astype(np.float32)


def fit_ls(op, Y, E0, lam, iters, log=None):
    """Conjugate gradients on (AᵀA + λI) E = AᵀY + λE₀, all columns at once."""
    def M(E):
        return op.back(op.fwd(E)) + lam * E
    E = E0.copy()
    r = op.back(Y) + lam * E0 - M(E)
    p = r.copy()
    rs = (r * r).sum(0)
    for i in range(iters):
        Ap = M(p)
        a = rs / np.maximum((p * Ap).sum(0), 1e-30)
        E += p * a
        r -= Ap * a
        rn = (r * r).sum(0)
        p = r + p * (rn / np.maximum(rs, 1e-30))
        rs = rn
        if log and (i + 1) % 20 == 0:
            log(f"cg {i + 1}", E)
    return E


def mean_cos(op, E, Y):
    s = op.fwd(E)
    n = np.linalg.norm(s, axis=1) * np.linalg.norm(Y, axis=1)
    ok = n > 0
    return float(((s * Y).sum(1)[ok] / n[ok]).sum() / len(Y))


def fit_cos(op, Y, E_ls, lr, epochs, mu, log=None):
    """Adam on mean(1 − cos(A·E, y)) + μ·||E − E_ls||² / entries held (full batch)."""
    E = E_ls.copy()
    m = np.zeros_like(E)
    v = np.zeros_like(E)
    yn = Y / np.maximum(np.linalg.norm(Y, axis=1, keepdims=True), 1e-12)
    held = np.maximum(op.count > 0, 0).sum()
    for i in range(epochs):
        s = op.fwd(E)
        ns = np.maximum(np.linalg.norm(s, axis=1, keepdims=True), 1e-12)
        sh = s / ns
        c = (sh * yn).sum(1, keepdims=True)
        gs = -(yn - c * sh) / ns / len(Y)
        g = op.back(gs) + 2 * mu * (E - E_ls) / held
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mh = m / (1 - 0.9 ** (i + 1))
        vh = v / (1 - 0.999 ** (i + 1))
        E -= lr * mh / (np.sqrt(vh) + 1e-8) * (op.count > 0)[:, None]
        if log and (i + 1) % 25 == 0:
            log(f"adam {i + 1}", E)
    return E


def corpus_vectors():
    rows = corpus.load()
    Y = common.vectors("corpus", [s for _, s in rows])
    return rows, Y


def train(kind, stages=("init", "ls", "cos")):
    """Returns {stage: table (30,522 × 384, in the rotated space)} and the rotation R."""
    out = {s: common.CACHE / f"regress-{kind}-{s}.npy" for s in stages}
    fr = common.CACHE / f"regress-{kind}-rotation.npy"
    if all(f.exists() for f in out.values()) and fr.exists():
        return {s: np.load(f) for s, f in out.items()}, np.load(fr)
    from static import table as distilled
    D = distilled()
    rows, Y = corpus_vectors()
    keep = [i for i, (src, _) in enumerate(rows) if kind == "catalog" or src != "catalog"]
    tok = tokenizer()
    ids = token_ids(tok, [rows[i][1] for i in keep])
    Y = Y[keep]
    R = rotation(Y)
    Yr = (Y @ R).astype(np.float32)
    tr = [i for i in range(len(keep)) if i % HOLD]
    ho = [i for i in range(len(keep)) if not i % HOLD]
    op = MeanOp([ids[i] for i in tr], D.shape[0])
    oh = MeanOp([ids[i] for i in ho], D.shape[0])
    Yt, Yh = Yr[tr], Yr[ho]
    t0 = time.time()

    def log(stage, E):
        print(f"[{kind}] {stage}: corpus cosine train {mean_cos(op, E, Yt):.3f}, held-out {mean_cos(oh, E, Yh):.3f}"
              f" ({time.time() - t0:.0f} s)", file=sys.stderr)
    X = op.fwd(D)
    W = np.linalg.solve(X.T @ X + 1e-3 * np.eye(X.shape[1]), X.T @ Yt).astype(np.float32)
    E0 = (D @ W).astype(np.float32)
    log("init (distilled, mapped)", E0)
    res = {"init": E0}
    E = fit_ls(op, Yt, E0, LAMBDA, CG_ITERS, log)
    res["ls"] = E
    log("least squares", E)
    if "cos" in stages:
        E = fit_cos(op, Yt, E, ADAM_LR, ADAM_EPOCHS, ADAM_MU, log)
        res["cos"] = E
        log("cosine", E)
    for s, f in out.items():
        np.save(f, res[s])
    np.save(fr, R)
    return res, R


if __name__ == "__main__":
    for kind in ("generic", "catalog"):
        train(kind)
