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
from typing import Dict, List, Optional, Tuple

Postings = Tuple[List[int], List[float], Optional[List[float]]]


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

    def __len__(self) -> int:
        return len(self.held)

    def __contains__(self, word: str) -> bool:
        return word in self.df

    def known(self, words) -> set:
        """Those of `words` some document holds."""
        return self.df.keys() & words

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
