"""The built-in meaning model (docs/routing.md, "Meaning"): a static table of word-piece vectors
that the artifact carries, as compiler/runtime/src/route/meaning.rs reads it. A text's vector is
the weighted sum of its pieces' rows, scaled so that its largest coordinate is 127 and rounded
to whole numbers: every cosine is then exact integer arithmetic, equal in every runtime."""

import importlib
import math
import re
import struct
import sys
from array import array
from bisect import bisect_right
from itertools import islice, repeat
from operator import add, eq, itemgetter, mul, sub, truediv
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from ._glossary import _runs
from ._words import _MARK, _UNSPACED_RUN, _words, one_edit_starting, spelling_applies

# At most this many pieces of a text count (a long message: its first ones).
MAX_PIECES = 256
# A word longer than this many characters has no pieces (WordPiece's own limit).
MAX_WORD_CHARS = 100
# What each packed dot product is kept above 0 by (`Packed`): more than 2·256·127².
_OFFSET = 1 << 23
# A byte that is not 0.
_NONZERO = re.compile(rb"[^\x00]")
# The similarities a document's closest cosine is tested against (`Packed.closest_reaching`).
_TENTHS = [k / 10.0 for k in range(1, 11)]
# Per number of tenths, the bytes that turn that number into the top bit and any other to 0.
_MASKS = [bytes(0x80 if b == k else 0 for b in range(256)) for k in range(11)]
# A byte's top bit alone.
_TOP_BIT = bytes(b & 0x80 for b in range(256))


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


def spelt(text: str, ids: Dict[str, int], spelling: Tuple[int, int], max_tried: int,
          tokens: Callable[[str], List[str]], held: Callable[[str], bool],
          near: Callable[[str], Optional[str]]) -> Optional[str]:
    """`text` lowercased, each misspelt word read, for the meaning vector, as the route's words
    read it (Rust's `Meaning::spelt`): a word of letters a–z that `spelling` applies to, that is
    no whole piece of the table, and whose one routing word (`tokens`) `spelling` applies to
    too (at most `max_tried` such words), unless `held`: when `near` gives the catalog's word
    the route reads that routing word as, the word is replaced by the whole piece one edit from
    it read as that same word with the lowest row number. None when no word is replaced.
    `tokens` must read a word as one it starts with but for its last letter, as the route's
    words do (a suffix taken off, `ie` made `y`, a doubled letter undoubled)."""
    out: List[str] = []
    tried, replaced = 0, False
    for k, word in enumerate(_runs(text.lower())):
        known = None
        if k % 2 and tried < max_tried and spelling_applies(word, spelling) and word not in ids:
            found = tokens(word)
            if len(found) == 1 and spelling_applies(found[0], spelling):
                tried += 1
                reading = None if held(word) else near(found[0])
                if reading is not None:
                    # A word read as `reading` starts with all of it but its last letter (a
                    # suffix off, `y` for `ie`, a doubled letter undoubled): only those edits.
                    edits = one_edit_starting(word, reading[:-1])
                    known = min((w for w in edits if w in ids and tokens(w) == [reading]),
                                key=ids.__getitem__, default=None)
        replaced = replaced or known is not None
        out.append(word if known is None else known)
    return "".join(out) if replaced else None


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
                out.extend(_word_pieces(fold(run, ids, folds), ids))
            if len(out) >= MAX_PIECES:
                return out[:MAX_PIECES]
    return out


def fold(word: str, ids: Dict[str, int], folds: Dict[str, str]) -> str:
    """A word with its accents folded as the table's pieces are (`é` → `e`), and its marks that
    no piece is left out: the model's tokenizer drops every nonspacing mark (`सुबह` is read as
    `सबह`), as the Rust runtime's `Meaning::fold`."""
    if word.isascii():
        return word
    return "".join(folds.get(c, c) for c in word if c in folds or c in ids or not _MARK.match(c))


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
    total: Optional[List[float]] = None
    for p in found:
        scale, row = scales[p], rows[p * dims:(p + 1) * dims]
        # total[i] + scale * row[i], in this order, for each i (as every runtime sums); the
        # first piece's products alone (0 + x is x, and a 0's sign changes no coordinate).
        product = map(mul, repeat(scale, dims), row)
        total = list(product if total is None else map(add, total, product))
    if total is None:
        return [0.0] * dims
    largest = max(map(abs, total), default=0.0)
    if largest == 0.0:
        return [0.0] * dims
    return [float(math.floor(x / largest * 127.0 + 0.5)) for x in total]



def whole(vector: Sequence[float]) -> bool:
    """Whether every number of `vector` is a whole number from -127 to 127, as the built-in
    meaning's are (a caller's own query vector may not be): what `Packed` computes with."""
    return not vector or (-127.0 <= min(vector) and max(vector) <= 127.0
                          and all(map(eq, vector, map(math.floor, vector))))


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


def whole_vectors(stored: List[bytes]) -> Iterator[Tuple[memoryview, float]]:
    """Vectors of whole numbers as stored (a signed byte a number, all of one length), each
    read in place, with its length. The sum of a vector's squares is a whole number, the same
    summed in any order: with numpy, all of them at once."""
    vectors = [memoryview(data).cast("b") for data in stored]
    if _numpy is not None and vectors:
        np = _numpy
        rows = np.frombuffer(b"".join(stored), dtype=np.int8).reshape(len(vectors), -1).astype(np.int64)
        squares = np.einsum("ij,ij->i", rows, rows).tolist()
    else:
        squares = [sum(map(mul, v, v)) for v in vectors]
    return zip(vectors, map(math.sqrt, squares))


# A signed byte's two's complement byte to that of the number plus 128.
_PLUS_128 = bytes(b ^ 0x80 for b in range(256))


def _signed_bytes(v, dims: int) -> bytes:
    """A whole-number vector's `dims` signed bytes; zeros for one of another length."""
    if len(v) != dims:
        return bytes(dims)
    return v.tobytes() if isinstance(v, memoryview) else array("b", [int(x) for x in v]).tobytes()


class Packed:
    """The whole-number vectors of a catalog laid out for all their dot products with a query
    at once, exactly. With numpy (when installed): a product of the vectors' bytes summed in
    32-bit integers. Without: for each coordinate i, one integer Σ_j v_j[i]·2^(24j), every
    vector's number in its own 24-bit field, so that Σ_i q[i]·column_i + 2^23·Σ_j 2^(24j)
    holds q·v_j + 2^23 in field j. That field never overflows nor goes below 0 (|q·v| ≤
    256·127² < 2^22): additions of big integers and multiplications by small ones give every
    dot product (`_dots`), and the rest is C loops. A query of other numbers (a caller's own
    vector) is measured one cosine at a time.

    `aside`: vectors of no document (values, norm), packed after the documents' so that their
    dot products come with them (`aside_closest`): the small talk a route measures a message
    against. Apart, their own 256 additions would cost most of what theirs do together."""

    def __init__(self, dense, dims: int, aside: Sequence[Tuple[Sequence[float], float]] = ()):
        # dense: per document, its vectors as (values, norm). They are laid out by rank: every
        # document's first vector (its summary), then every second one, and so on; a block of
        # one rank holds the documents of that many vectors or more, in order.
        self.aside = list(aside)
        self.docs = len(dense)
        self.dims = dims
        counts = [len(vectors) for vectors in dense]
        self.owner: List[int] = []
        flat: List[Tuple[Sequence[float], float]] = []
        # Per rank: where its block starts, and what picks its documents' items out of a
        # sequence of one item a document (None: all of them are).
        self.blocks: List[Tuple[int, Optional[Callable]]] = []
        for rank in range(max(counts, default=0)):
            docs = [doc for doc, count in enumerate(counts) if count > rank]
            self.blocks.append((len(flat), None if len(docs) == self.docs else _picker(docs)))
            flat.extend(dense[doc][rank] for doc in docs)
            self.owner.extend(docs)
        self.counts = counts
        # The first vectors (the summaries) are the first block.
        self.summaries = self.docs - counts.count(0)
        self.norms = [n for _, n in flat]
        self.flat = flat
        # The vectors' signed bytes one after another (a vector of another length than the
        # table's is near nothing: zeros).
        raw = b"".join(_signed_bytes(v, dims) for v, _ in [*flat, *self.aside])
        # Every packed vector: the documents', then those aside.
        self.packed = len(flat) + len(self.aside)
        self.columns = []
        self.matrix = None
        if _numpy is not None and flat:
            np = self.np = _numpy
            # Signed bytes, summed into 32-bit integers by einsum: a quarter of an int32
            # matrix's bytes to read a route (the product is bound by memory), half its time.
            self.matrix = np.frombuffer(raw, dtype=np.int8).reshape(self.packed, dims)
            self.np_norms = np.array(self.norms + [n for _, n in self.aside], dtype=np.float64)
            self.np_owner = np.array(self.owner, dtype=np.int64)
            return
        count = len(flat)
        # The vectors' positions document by document (each document's side by side).
        by_doc = sorted(range(count), key=self.owner.__getitem__)
        self.by_doc = None if by_doc == list(range(count)) else _picker(by_doc)
        runs = iter(by_doc)
        self.vectors_of = [list(islice(runs, n)) for n in counts]
        # A vector of length 0 is all zeros: its dot product is 0, and 0 over an infinite
        # length is the 0 the cosine of such a vector is.
        self.lengths = [n if n != 0.0 else math.inf for n in self.norms]
        self.aside_lengths = [n if n != 0.0 else math.inf for _, n in self.aside]
        ones = int.from_bytes(b"\x01\x00\x00" * self.packed, "little")
        self.offset = _OFFSET * ones
        for i in range(dims if flat else 0):
            # Each number plus 128 (a byte from 0 to 255: its two's complement byte with the
            # top bit flipped), then 128 off every field again.
            spread = bytearray(3 * self.packed)
            spread[0::3] = raw[i::dims].translate(_PLUS_128)
            self.columns.append(int.from_bytes(spread, "little") - 128 * ones)
        # Each document's vector's length rounded down, in its field: what `closest_reaching`
        # tests all the dot products against at once.
        self.whole_lengths = int.from_bytes(
            b"".join(int(n).to_bytes(3, "little") for n in self.norms), "little")

    def closest_and_first(self, query, q_norm: float) -> Tuple[List[float], float]:
        """Per document, the cosine of its closest vector to `query` (0 at worst); and the
        largest cosine of a document's first vector (0 at worst): a skill's summary, what
        the small-talk bar measures a message against."""
        if len(query) != self.dims:
            return [0.0] * self.docs, 0.0
        if not whole(query):
            return self._closest_plain(query, q_norm)
        if self.matrix is not None:
            return self._closest_numpy(query, q_norm)
        if not self.columns:
            return [0.0] * self.docs, 0.0
        cos = list(self._cosines(self._fields(self._dots(query)), self.lengths, q_norm))
        first = max(0.0, *islice(cos, 0, self.summaries))
        # Each document's vectors side by side: the largest of each run (0 at worst).
        runs = iter(cos if self.by_doc is None else self.by_doc(cos))
        best = list(map(max, [max(islice(runs, n), default=0.0) for n in self.counts], repeat(0.0)))
        return best, first

    def dot_products(self, query, q_norm: float):
        """What `closest_reaching` computes of a query whatever the documents need, to be
        handed to it again for other needs (a route asks twice or thrice for the same
        message): the packed dot products and their fields, or with numpy each document's
        closest cosine, the summaries' largest and the aside's; None for a query it does not
        pack."""
        if len(query) != self.dims or not whole(query) or not (self.columns or self.matrix is not None):
            return None
        if self.matrix is not None:
            return self._best_numpy(query, q_norm)
        total = self._dots(query)
        return total, self._fields(total)

    def nearest(self, query, q_norm: float, dots=None, ceiling: float = math.inf) -> float:
        """The largest cosine of a document's first vector (its summary) to `query`, 0 at
        worst, or `ceiling` when that is less: what a route compares small talk's closest
        cosine (`ceiling`) with, which only matters when the summaries are all farther.
        `dots`: the query's `dot_products` (None: one cosine at a time). Without numpy, the
        summaries that may reach `ceiling` are found in the packed dot products (`_tops`) and
        only those divided out; all of them only when none of those reaches it."""
        if ceiling <= 0.0:
            return ceiling
        if dots is None:
            return min(self._closest_plain(query, q_norm)[1], ceiling)
        if self.matrix is not None:
            return min(dots[1], ceiling)
        total, fields = dots
        # The summaries are the first block: its fields and lengths are slices (no lookups).
        n, lengths = self.summaries, self.lengths
        if ceiling <= 1.0:
            # One by one: all but a hair of those that may reach it do, so the first mostly.
            for found in _NONZERO.finditer(self._tops(total, ceiling, q_norm)[:n].translate(_TOP_BIT)):
                at = found.start()
                if next(self._cosines((fields[at],), (lengths[at],), q_norm)) >= ceiling:
                    return ceiling
        return min(max([0.0, *self._cosines(fields[:n], lengths[:n], q_norm)]), ceiling)

    def closest_reaching(self, query, q_norm: float, needs: Sequence[float], dots=None) -> Dict[int, float]:
        """`closest_and_first`'s closest cosines, for only the documents whose closest cosine
        may reach the similarity each needs (`needs`, one a document): the others are left
        out. Without numpy, which may is tested for all vectors at once in the packed dot
        products, at the tenth at or below what each needs (`_reaching`), and only those are
        divided out. `dots`: the query's `dot_products`, when already computed."""
        if len(query) != self.dims or not (self.columns or self.matrix is not None):
            return {}
        if dots is None:
            if not whole(query):
                each, _ = self._closest_plain(query, q_norm)
                return {doc: cos for doc, (cos, need) in enumerate(zip(each, needs)) if cos > 0.0 and cos >= need}
            dots = self.dot_products(query, q_norm)
        if self.matrix is not None:
            return self._reaching_numpy(dots, needs)
        total, fields = dots
        # Each document's tenths: how many of 0.1, 0.2 … 1.0 it needs at least (0: below
        # 0.1, where every vector is divided out); then each vector's, block by block. When
        # the least and the most needed have as many, every document has (as is common).
        least = bisect_right(_TENTHS, min(needs, default=0.0))
        if least == bisect_right(_TENTHS, max(needs, default=0.0)):
            if least == 0:
                reach = list(range(len(self.owner)))
            else:
                tops = self._tops(total, least / 10.0, q_norm)[:len(self.owner)].translate(_TOP_BIT)
                reach = [m.start() for m in _NONZERO.finditer(tops)]
        else:
            tenths = bytes(map(bisect_right, repeat(_TENTHS), needs))
            of_vectors = b"".join(tenths if docs is None else bytes(docs(tenths)) for _, docs in self.blocks)
            hits = 0
            for tenth in set(tenths):
                mask = int.from_bytes(of_vectors.translate(_MASKS[tenth]), "little")
                hits |= mask if tenth == 0 else self._reaching(total, tenth / 10.0, q_norm) & mask
            reach = [m.start() for m in _NONZERO.finditer(hits.to_bytes(len(self.owner), "little"))]
        best: Dict[int, float] = {}
        cosines = self._cosines(map(fields.__getitem__, reach), map(self.lengths.__getitem__, reach), q_norm)
        for doc, cos in zip(map(self.owner.__getitem__, reach), cosines):
            if cos > best.get(doc, 0.0):
                best[doc] = cos
        return best

    def aside_closest(self, query, q_norm: float, dots=None) -> float:
        """The closest cosine (0 at worst) of the vectors aside to `query`: from the query's
        `dot_products` (`dots`), or one cosine at a time for a query they are not (None)."""
        if not self.aside or q_norm == 0.0:
            return 0.0
        if dots is None:
            return max([0.0, *(_cosine(query, q_norm, v, n) for v, n in self.aside)])
        if self.matrix is not None:
            return dots[2]
        return max([0.0, *self._cosines(dots[1][len(self.owner):], self.aside_lengths, q_norm)])

    def closest_of(self, docs: Iterable[int], q_norm: float, dots) -> Dict[int, float]:
        """The closest cosine (0 at worst) of each of `docs`, from the query's `dot_products`
        (`dots`): the same numbers as `closest_and_first`, for a few documents."""
        if self.matrix is not None:
            best = dots[0]
            return {doc: float(best[doc]) for doc in docs}
        docs = list(docs)
        at = [i for doc in docs for i in self.vectors_of[doc]]
        cosines = self._cosines(map(dots[1].__getitem__, at), map(self.lengths.__getitem__, at), q_norm)
        # Each document's vectors one after another: the largest of each run (0 at worst).
        return {doc: max(0.0, *islice(cosines, len(self.vectors_of[doc]))) for doc in docs}

    @staticmethod
    def _cosines(fields: Iterable[int], lengths: Iterable[float], q_norm: float) -> Iterator[float]:
        """The cosines of vectors of these `lengths` with the query whose packed dot products
        with them are `fields`: dot / (|q|·|v|), in that order of operations, as every runtime
        divides."""
        return map(truediv, map(sub, fields, repeat(_OFFSET)), map(mul, repeat(q_norm), lengths))

    def _dots(self, query) -> int:
        """Every vector's dot product with `query` plus 2^23, each in its 24-bit field. The
        columns of the coordinates where the query holds the same magnitude are added (or
        subtracted, for its negative) first and multiplied once: a query has some 60 distinct
        magnitudes, so 256 additions and 60 multiplications of big integers instead of 256 of
        each."""
        alike: Dict[int, int] = {}
        for q, column in zip(query, self.columns):
            if q > 0:
                m = int(q)
                alike[m] = alike[m] + column if m in alike else column
            elif q < 0:
                m = int(-q)
                alike[m] = alike[m] - column if m in alike else -column
        total = self.offset
        for q, columns in alike.items():
            total += q * columns
        return total

    def _closest_plain(self, query, q_norm: float) -> Tuple[List[float], float]:
        """`closest_and_first` one cosine at a time, for a query of other numbers than the
        built-in meaning's (a caller's own vector)."""
        cos = [_cosine(query, q_norm, v, n) for v, n in self.flat]
        best = [0.0] * self.docs
        for doc, c in zip(self.owner, cos):
            best[doc] = max(best[doc], c)
        return best, max([0.0, *cos[:self.summaries]])

    def _fields(self, total: int) -> "array[int]":
        """The 24-bit fields of `total`, widened to 32 bits to be read as an array."""
        packed = total.to_bytes(3 * self.packed, "little")
        wide = bytearray(4 * self.packed)
        wide[0::4], wide[1::4], wide[2::4] = packed[0::3], packed[1::3], packed[2::3]
        fields = array("I")
        fields.frombytes(bytes(wide))
        if sys.byteorder != "little":
            fields.byteswap()
        return fields

    def _reaching(self, total: int, similarity: float, q_norm: float) -> int:
        """One byte a vector, its top bit set where a document's vector's cosine may reach
        `similarity` (at most 1; other bits, and the bytes of the vectors aside, are noise):
        dot ≥ c·⌊|v|⌋ with c = ⌊similarity·|q|⌋ − 1, at most what the cosine needs (dot ≥
        similarity·|q|·|v|). `total` less c·⌊|v|⌋ in each field holds dot − c·⌊|v|⌋ + 2^23,
        from 2^23 − 2·256·127² > 0 to below 2^24: no field borrows from the next, and its top
        bit is whether dot ≥ c·⌊|v|⌋."""
        return int.from_bytes(self._tops(total, similarity, q_norm), "little")

    def _tops(self, total: int, similarity: float, q_norm: float) -> bytes:
        """`_reaching`'s bytes, the top byte of each field (a vector's top bit at 0x80)."""
        c = max(math.floor(min(similarity, 1.0) * q_norm) - 1, 0)
        return (total - c * self.whole_lengths).to_bytes(3 * self.packed, "little")[2::3]

    def _closest_numpy(self, query, q_norm: float) -> Tuple[List[float], float]:
        """`closest_and_first` with numpy, when it is installed."""
        best, first, _ = self._best_numpy(query, q_norm)
        return best.tolist(), first

    def _reaching_numpy(self, dots, needs: Sequence[float]) -> Dict[int, float]:
        """`closest_reaching` with numpy, when it is installed: every cosine (`dots`, of
        `_best_numpy`), then the documents that reach what they need."""
        np = self.np
        best = dots[0]
        kept = np.flatnonzero((best >= np.array(needs, dtype=np.float64)) & (best > 0.0))
        return dict(zip(kept.tolist(), best[kept].tolist()))

    def _best_numpy(self, query, q_norm: float):
        """Per document, its closest cosine (an array, 0 at worst), the largest cosine of a
        first vector, and that of the vectors aside (0 at worst): the same integer dot
        products (exact) and the same float divisions as without numpy, so the same cosines,
        for all vectors at once."""
        np = self.np
        q = np.array([int(x) for x in query], dtype=np.int8)
        dots = np.einsum("ij,j->i", self.matrix, q, dtype=np.int32, casting="unsafe")
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = dots.astype(np.float64) / (q_norm * self.np_norms)
        cos[self.np_norms == 0.0] = 0.0
        n = len(self.owner)
        best = np.zeros(self.docs, dtype=np.float64)
        np.maximum.at(best, self.np_owner, cos[:n])
        first = max(0.0, float(cos[:self.summaries].max())) if self.summaries else 0.0
        aside = max(0.0, float(cos[n:].max())) if self.aside else 0.0
        return best, first, aside


def _picker(indexes: List[int]) -> Callable:
    """What picks the items at `indexes` out of a sequence, as a tuple (in C)."""
    if len(indexes) == 1:
        return lambda items: (items[indexes[0]],)
    return itemgetter(*indexes)


def _optional_numpy():
    """numpy when it is installed (an agent's Python often has it); the runtime needs none."""
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


_numpy = _optional_numpy()
