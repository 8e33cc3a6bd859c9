"""A catalog's lexical index (docs/routing.md, "Score"): the same documents, counts, lengths and
shares as the Rust runtime's `RouteIndex`, read so that a first route is quick. A catalog's
bodies give it hundreds of thousands of `word:count` pairs (claude-code-templates: 234,000 for
884 skills), which took half a second to read pair by pair into postings. Here each skill's
words become a dictionary in C, and a word's documents and shares are found the first time a
message holds it."""

import math
from collections import Counter
from itertools import compress, count, repeat
from operator import contains
from typing import Dict, List, Optional, Set, Tuple

from ._words import _A_TO_Z, one_edit

Postings = Tuple[List[int], List[float], Optional[List[float]]]

# Misspelt words looked up by trying every word one edit away, for each word of the index, before
# the index's words are filed by their deletions instead: trying a word's 400-odd edits took 78
# µs a word, filing took 4 µs a word of the index (claude-code-templates: 18,162 words, 75 ms)
# and a lookup 7 µs after. A process that reads few misspelt words never files them; one that
# reads many pays at most about twice what it would have with the better of the two from the
# start (the ski-rental rule).
_FILE_AFTER_PER_WORD = 1 / 20


class LexicalIndex:
    """The words of a catalog's documents (its shown skills, in order), from their stored
    `card_route.terms`."""

    def __init__(self, stored: List[str], k1: float, b: float):
        # Per document, each word's weighted count.
        self.held: List[Dict[str, int]] = []
        # Per word, how many documents hold it, and how much more than that its counts sum to
        # (only the words of pairs written with a count have more).
        self.df: Counter = Counter()
        self.more: Counter = Counter()
        lengths = []
        for text in stored:
            pairs = text.split(" ") if text else []
            held = dict.fromkeys(pairs, 1)
            # The pairs written with their count (found in C: most are words alone).
            for pair in compress(pairs, map(str.__contains__, pairs, repeat(":"))):
                word, _, n = pair.rpartition(":")
                del held[pair]
                held[word] = int(n)
                self.more[word] += int(n) - 1
            held.pop("", None)
            self.held.append(held)
            self.df.update(held.keys())
            lengths.append(sum(held.values()))
        self.lengths = lengths
        avg = max(sum(lengths) / max(len(lengths), 1), 1.0)
        # Each document's BM25 length norm, computed once (the same expression as per word).
        self.norms = [k1 * (1.0 - b + b * length / avg) for length in lengths]
        self._postings: Dict[str, Postings] = {}
        # Misspelt words looked up so far, and the index's words filed by their deletions
        # once that many are (`neighbours`).
        self._looked_up = 0
        self._by_deletion: Optional[Dict[str, List[str]]] = None

    def __len__(self) -> int:
        return len(self.held)

    def __contains__(self, word: str) -> bool:
        return word in self.df

    def known(self, words) -> set:
        """Those of `words` some document holds."""
        return self.df.keys() & words

    def neighbours(self, word: str) -> Set[str]:
        """The words some document holds one edit from `word` (a word of letters a–z that none
        holds): `known(one_edit(word))`, found through the words filed by their deletions once
        enough misspelt words have been looked up (`_FILE_AFTER_PER_WORD`)."""
        filed = self._by_deletion
        if filed is None:
            self._looked_up += 1
            if self._looked_up < _FILE_AFTER_PER_WORD * len(self.df):
                return self.known(one_edit(word))
            filed = self._by_deletion = self._file_by_deletion()
        # A neighbour and `word` share a deletion, or one is a deletion of the other; among
        # those, the ones one edit away (which one_edit makes: letters a–z only).
        found = set(filed.get(word, ()))
        for i in range(len(word)):
            found.update(filed.get(word[:i] + word[i + 1:], ()))
        return {w for w in found if _one_edit_apart(word, w)}

    def nearest_known(self, word: str) -> Optional[str]:
        """The word a route reads `word` as (Rust's `spelling::nearest_known`): of its
        neighbours, the one whose counts sum highest, then the one more documents hold, then
        the first in code-point order; None without any."""
        near = self.neighbours(word)
        weights = {w: self.weight(w) for w in near}
        return min(near, key=lambda w: (-weights[w][0], -weights[w][1], w), default=None)

    def _file_by_deletion(self) -> Dict[str, List[str]]:
        """Each word of letters a–z the documents hold, under itself and each of its deletions."""
        filed: Dict[str, List[str]] = {}
        for w in filter(_A_TO_Z.fullmatch, self.df):
            filed.setdefault(w, []).append(w)
            for i in range(len(w)):
                filed.setdefault(w[:i] + w[i + 1:], []).append(w)
        return filed

    def weight(self, word: str) -> Tuple[int, int]:
        """A word's counts summed over the catalog and how many documents hold it: which of an
        unknown word's neighbours it is read as."""
        return self.df[word] + self.more[word], self.df[word]

    def postings(self, word: str) -> Postings:
        """A known word's documents, in order, and its share of their scores,
        idf·tf / (tf + norm); for a word most documents hold, also its shares for every
        document (0.0 for those without it: adding it changes no score), added in C (`map`)."""
        found = self._postings.get(word)
        if found is None:
            docs = list(compress(count(), map(contains, self.held, repeat(word))))
            n = float(len(self.held))
            idf = math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            parts = []
            for doc in docs:
                tf = self.held[doc][word]
                parts.append(idf * tf / (tf + self.norms[doc]))
            dense = None
            if 4 * len(docs) >= len(self.held):
                dense = [0.0] * len(self.held)
                for doc, part in zip(docs, parts):
                    dense[doc] = part
            found = self._postings[word] = (docs, parts, dense)
        return found


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether `b` is `a` with one letter deleted, inserted or changed, or two neighbouring
    letters swapped (and is not `a`)."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) == len(a) + 1:
        i = 0
        while i < len(a) and a[i] == b[i]:
            i += 1
        return a[i:] == b[i + 1:]
    if len(a) != len(b) or a == b:
        return False
    i = 0
    while a[i] == b[i]:
        i += 1
    if a[i + 1:] == b[i + 1:]:
        return True
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:]
