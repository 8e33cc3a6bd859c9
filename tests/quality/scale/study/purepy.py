"""What a static query vector costs in a runtime with no native code (the Python runtime is pure
standard library): MiniLM's WordPiece tokeniser (BertNormalizer: clean, CJK split, lowercase,
accents stripped; BertPreTokenizer: whitespace and punctuation; WordPiece: greedy longest match,
`##` continuation, 100-character words are [UNK]) written in plain Python, then the mean of the
rows and the norm. Checks the tokeniser against `tokenizers` on the labelled set and the corpus
(the equality every runtime would need), and prints the median cost per message with the table as
Python lists (float) and as `array('b')` int8 rows, and the plain-Python dot products with 1,000
skill vectors.

    python3 tests/quality/scale/study/purepy.py
"""

import json
import math
import statistics
import time
import unicodedata
from array import array

import numpy as np

import common
import corpus
import regress


def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


class WordPiece:
    def __init__(self, path):
        t = json.load(open(path))
        self.vocab = t["model"]["vocab"]
        self.unk = self.vocab["[UNK]"]

    def normalise(self, text):
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD:
                continue
            cat = unicodedata.category(ch)
            if ch in "\t\n\r" or cat == "Zs":
                out.append(" ")
                continue
            if cat in ("Cc", "Cf"):
                continue
            if _is_cjk(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        text = unicodedata.normalize("NFD", "".join(out).lower())
        return "".join(c for c in text if unicodedata.category(c) != "Mn")

    def words(self, text):
        out = []
        for w in self.normalise(text).split():
            cur = []
            for ch in w:
                if _is_punct(ch):
                    if cur:
                        out.append("".join(cur))
                        cur = []
                    out.append(ch)
                else:
                    cur.append(ch)
            if cur:
                out.append("".join(cur))
        return out

    def ids(self, text):
        out = []
        v = self.vocab
        for w in self.words(text):
            if len(w) > 100:
                out.append(self.unk)
                continue
            start, pieces = 0, []
            while start < len(w):
                end = len(w)
                hit = None
                while start < end:
                    s = w[start:end] if start == 0 else "##" + w[start:end]
                    if s in v:
                        hit = v[s]
                        break
                    end -= 1
                if hit is None:
                    pieces = [self.unk]
                    break
                pieces.append(hit)
                start = end
            out += pieces
        return out


def query_vector(wp, rows, text):
    """Mean of the entries' rows, L2-normalised: plain Python."""
    ids = wp.ids(text)
    if not ids:
        return None
    sums = [sum(c) for c in zip(*(rows[i] for i in ids))]
    n = math.sqrt(sum(x * x for x in sums)) or 1.0
    return [x / n for x in sums]


def query_vector_int8(wp, rows, scales, text):
    """The same over int8 rows with one scale each (array('b'))."""
    ids = wp.ids(text)
    if not ids:
        return None
    d = len(rows[ids[0]])
    sums = [0.0] * d
    for i in ids:
        s, r = scales[i], rows[i]
        sums = [a + s * b for a, b in zip(sums, r)]
    n = math.sqrt(sum(x * x for x in sums)) or 1.0
    return [x / n for x in sums]


def median_us(fn, items):
    out = []
    for x in items:
        t = time.perf_counter()
        fn(x)
        out.append((time.perf_counter() - t) * 1e6)
    return statistics.median(out)


if __name__ == "__main__":
    import sys
    sys.path.insert(0, str(common.HERE))
    from minilm import model_dir
    wp = WordPiece(model_dir() / "tokenizer.json")
    tok = regress.tokenizer()
    msgs = [m for _, m in common.labelled()[0]]
    texts = msgs + [s for _, s in corpus.load()]
    ref = regress.token_ids(tok, texts)
    bad = [t for t, r in zip(texts, ref) if wp.ids(t) != r]
    print(f"tokeniser: {len(texts) - len(bad)} of {len(texts)} texts give the same ids as `tokenizers`")
    for t in bad[:5]:
        print("  differs:", repr(t[:80]))
    res, _ = regress.train("generic")
    E = res["cos"]
    print("\n| dims | table in Python | query vector, median per message |\n|---|---|---|")
    print(f"| — | (tokeniser alone) | {median_us(wp.ids, msgs):.0f} µs |")
    for d in (64, 128, 256):
        rows = [tuple(map(float, r)) for r in E[:, :d]]
        print(f"| {d} | tuples of float | {median_us(lambda x: query_vector(wp, rows, x), msgs):.0f} µs |")
        sc = np.abs(E[:, :d]).max(1) / 127.0
        q = np.round(E[:, :d] / np.where(sc > 0, sc, 1)[:, None]).astype(np.int8)
        rows8 = [array("b", r.tobytes()) for r in q]
        scales = list(map(float, sc))
        print(f"| {d} | array('b') int8 + scale | "
              f"{median_us(lambda x: query_vector_int8(wp, rows8, scales, x), msgs):.0f} µs |")
    # The other half of a hybrid route in plain Python: the dot product of the (normalised) query
    # vector with 1,000 normalised skill vectors (the reference workload's catalog size).
    import operator
    rng = np.random.default_rng(0)
    print("\n| dims | dot products with 1,000 skill vectors, plain Python, median |\n|---|---|")
    for d in (64, 128, 256):
        sk = [tuple(map(float, v / np.linalg.norm(v))) for v in rng.standard_normal((1000, d))]
        qs = [tuple(map(float, v / np.linalg.norm(v))) for v in rng.standard_normal((50, d))]
        mul = operator.mul
        print(f"| {d} | {median_us(lambda q: [sum(map(mul, q, v)) for v in sk], qs) / 1000:.2f} ms |")
