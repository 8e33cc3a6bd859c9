"""The built-in meaning model (docs/routing.md, "Meaning"): a static table of word-piece vectors
that the artifact carries, as compiler/runtime/src/route/meaning.rs reads it. A text's vector is
the weighted sum of its pieces' rows, scaled so that its largest coordinate is 127 and rounded
to whole numbers: every cosine is then exact integer arithmetic, equal in every runtime."""

import importlib
import math
import struct
import sys
from array import array
from itertools import repeat
from operator import add, mul
from typing import Dict, List, Sequence, Tuple

from ._words import _UNSPACED_RUN, _words

# At most this many pieces of a text count (a long message: its first ones).
MAX_PIECES = 256
# A word longer than this many characters has no pieces (WordPiece's own limit).
MAX_WORD_CHARS = 100


class Meaning:
    """A meaning table: the vector length, the pieces (row numbers by piece), the
    folds of accented letters, and each row's scale and bytes."""

    def __init__(self, dims: int, vocab: str, folds: str, scales: bytes, rows: bytes):
        self.dims = dims
        self.ids: Dict[str, int] = {p: i for i, p in enumerate(vocab.split("\n"))}
        self.folds: Dict[str, str] = {}
        for line in folds.split("\n"):
            if line:
                char, _, folded = line.partition("\t")
                self.folds[char] = folded
        self.scales = struct.unpack(f"<{len(scales) // 4}f", scales)
        # Signed bytes, so that a row is a slice the sums below read in C.
        self.rows = array("b", rows)

    def pieces(self, text: str) -> List[int]:
        """The row numbers of a text's pieces, in order (see `pieces`)."""
        return pieces(text, self.ids, self.folds)

    def vector(self, text: str) -> List[float]:
        """A text's vector: whole numbers from -127 to 127 (all 0 when no piece is known)."""
        return vector(self.pieces(text), self.scales, self.rows, self.dims)


def parse(data: bytes) -> Meaning:
    """A table from its bytes (the layout of `Meaning::parse` in route/meaning.rs)."""
    magic = b"SKILLC-MEANING-1"
    if data[:len(magic)] != magic:
        raise ValueError("the artifact's meaning table is not one")
    at = len(magic)
    dims, count = struct.unpack_from("<II", data, at)
    at += 8
    texts = []
    for _ in range(2):
        (n,) = struct.unpack_from("<I", data, at)
        texts.append(data[at + 4:at + 4 + n].decode("utf-8"))
        at += 4 + n
    scales = data[at:at + 4 * count]
    rows = data[at + 4 * count:]
    if len(rows) != count * dims or dims == 0:
        raise ValueError("the artifact's meaning table's parts disagree in size")
    return Meaning(dims, texts[0], texts[1], scales, rows)


def pieces(text: str, ids: Dict[str, int], folds: Dict[str, str]) -> List[int]:
    """A text's pieces: its routing words (lowercased runs of word characters); in a run of an
    unspaced script each character alone; any other run with its accents folded, then split
    greedily into the longest pieces the table holds, the first plain and the others after
    `##` (WordPiece). A run that cannot be split entirely has no pieces."""
    out: List[int] = []
    for word in _words(text.lower()):
        runs = _UNSPACED_RUN.split(word) if not word.isascii() else [word]
        for k, run in enumerate(runs):
            if k % 2:
                out.extend(ids[c] for c in run if c in ids)
            elif run:
                out.extend(_word_pieces("".join(folds.get(c, c) for c in run), ids))
            if len(out) >= MAX_PIECES:
                return out[:MAX_PIECES]
    return out


def _word_pieces(word: str, ids: Dict[str, int]) -> List[int]:
    if len(word) > MAX_WORD_CHARS:
        return []
    out, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in ids:
                out.append(ids[piece])
                break
            end -= 1
        if end == start:
            return []
        start = end
    return out


def vector(found: Sequence[int], scales: Sequence[float], rows: "array[int]", dims: int) -> List[float]:
    """Σ scale·row over the pieces in order (64-bit floats), then each coordinate over the
    largest magnitude times 127, rounded half up."""
    total = [0.0] * dims
    for p in found:
        scale, row = scales[p], rows[p * dims:(p + 1) * dims]
        # total[i] + scale * row[i], in this order, for each i (as every runtime sums).
        total = list(map(add, total, map(mul, repeat(scale, dims), row)))
    largest = max((abs(x) for x in total), default=0.0)
    if largest == 0.0:
        return [0.0] * dims
    return [float(math.floor(x / largest * 127.0 + 0.5)) for x in total]



def _norm(v):
    """A vector's length, summed in order (as every runtime sums it)."""
    total = 0.0
    for x in v:
        total += x * x
    return math.sqrt(total)


def _cosine(q, q_norm, v, v_norm):
    if q_norm == 0.0 or v_norm == 0.0 or len(q) != len(v):
        return 0.0
    dot = 0.0
    for a, b in zip(q, v):
        dot += a * b
    return dot / (q_norm * v_norm)


class Packed:
    """The whole-number vectors of a catalog laid out for all their dot products with a query
    at once, exactly. With numpy (when installed): an int32 matrix product. Without: for each
    coordinate i, one integer holding every vector's (v[i] + 128) in its own 32-bit field, so
    that Σ_i (q[i] + 128) · column_i holds, in field j, q·v_j + 128·Σq + 128·Σv_j + dims·128²,
    which never overflows a field (at most 256 · 255², under 2³²): 256 multiplications of big
    integers give every dot product."""

    def __init__(self, dense, dims: int):
        # dense: per document, its vectors as (values, norm).
        self.owner = [doc for doc, vectors in enumerate(dense) for _ in vectors]
        flat = [v for vectors in dense for v in vectors]
        self.docs = len(dense)
        self.dims = dims
        self.norms = [n for _, n in flat]
        rows = [[int(x) for x in v] for v, _ in flat]
        self.sums = [sum(r) for r in rows]
        self.sums128 = [128 * t for t in self.sums]
        # Each document's vectors: flat[start:end].
        self.spans, at = [], 0
        for vectors in dense:
            self.spans.append((at, at + len(vectors)))
            at += len(vectors)
        self.columns = []
        self.matrix = None
        if _numpy is not None and flat:
            np = self.np = _numpy
            self.matrix = np.array(rows, dtype=np.int32)
            self.np_norms = np.array(self.norms, dtype=np.float64)
            self.np_owner = np.array(self.owner, dtype=np.int64)
            return
        for i in range(dims if flat else 0):
            field = array("I", [r[i] + 128 for r in rows])
            if sys.byteorder != "little":
                field.byteswap()
            self.columns.append(int.from_bytes(field.tobytes(), "little"))

    def closest(self, query, q_norm: float) -> List[float]:
        """Per document, the cosine of its closest vector to `query` (0 at worst)."""
        return self.closest_and_first(query, q_norm)[0]

    def closest_and_first(self, query, q_norm: float) -> Tuple[List[float], float]:
        """Per document, the cosine of its closest vector to `query` (0 at worst); and the
        largest cosine of a document's first vector (0 at worst): a skill's summary, what
        the small-talk bar measures a message against."""
        best = [0.0] * self.docs
        if len(query) != self.dims:
            return best, 0.0
        if self.matrix is not None:
            return self._closest_numpy(query, q_norm)
        if not self.columns:
            return best, 0.0
        total = 0
        for q, column in zip(query, self.columns):
            total += (int(q) + 128) * column
        fields = array("I")
        fields.frombytes(total.to_bytes(4 * len(self.owner), "little"))
        if sys.byteorder != "little":
            fields.byteswap()
        base = 128 * int(sum(query)) + self.dims * 16384
        # One comprehension over every vector (twice as fast as a loop that indexes), then each
        # document's vectors, which lie side by side.
        cos = [(f - base - s) / (q_norm * n) if n != 0.0 else 0.0
               for f, s, n in zip(fields, self.sums128, self.norms)]
        first = 0.0
        for doc, (start, end) in enumerate(self.spans):
            if end > start:
                best[doc] = max(0.0, *cos[start:end])
                if cos[start] > first:
                    first = cos[start]
        return best, first

    def _closest_numpy(self, query, q_norm: float) -> Tuple[List[float], float]:
        """`closest_and_first` with numpy, when it is installed: the same integer dot products
        (exact) and the same float divisions, so the same cosines, for all vectors at once."""
        np = self.np
        dots = self.matrix @ np.array([int(x) for x in query], dtype=np.int32)
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = dots.astype(np.float64) / (q_norm * self.np_norms)
        cos[self.np_norms == 0.0] = 0.0
        best = np.zeros(self.docs, dtype=np.float64)
        np.maximum.at(best, self.np_owner, cos)
        starts = [start for start, end in self.spans if end > start]
        first = max(0.0, float(cos[starts].max())) if starts else 0.0
        return best.tolist(), first


def _optional_numpy():
    """numpy when it is installed (an agent's Python often has it); the runtime needs none."""
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


_numpy = _optional_numpy()
