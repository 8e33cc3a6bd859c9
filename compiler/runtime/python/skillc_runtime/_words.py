"""Routing's words (docs/routing.md), as compiler/runtime/src/route/mod.rs makes them: runs of
word characters (the table the Rust runtime's tests write), stopwords out, a final `s` and one
English suffix off, runs of unspaced scripts as pairs of characters. The stopwords, suffixes
and constants are the artifact's (manifest `routing_rules`, written by the build)."""

import json
import re
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from . import _word_chars


class RoutingRules:
    """Routing's words and constants as the build wrote them (manifest `routing_rules`,
    docs/artifact.md): `stopwords`, `suffixes` (in order), `k1`, `b`, `evidence_factor`,
    `max_words`, `lexical_share`, `small_talk_share`, `talk_words_share`, `talk_words_from`,
    `talk_words_lowers`, `talk_words_ends`, `tail_below`, `tail_words`, `hybrid_floor_base`,
    `hybrid_floor_slope`, `defaults` (the routing settings a workspace leaves unset) and
    `spelling` (the lengths of unknown words read as their nearest known word, or None)."""

    def __init__(self, text: str) -> None:
        rules = json.loads(text)
        self.stopwords: FrozenSet[str] = frozenset(rules["stopwords"])
        self.suffixes: Tuple[str, ...] = tuple(rules["suffixes"])
        # Per letter a-z, in their order, the suffixes a word ending in it may end in
        # (`_suffix_stem`).
        self.suffixes_by_last: Dict[str, Tuple[str, ...]] = {
            letter: tuple(x for x in self.suffixes if x.endswith(letter)) for letter in _LETTERS}
        self.k1: float = float(rules["k1"])
        self.b: float = float(rules["b"])
        self.evidence_factor: float = float(rules["evidence_factor"])
        self.max_words: int = int(rules["max_words"])
        self.lexical_share: float = float(rules["lexical_share"])
        self.small_talk_share: float = float(rules["small_talk_share"])
        # Artifacts built before the pieces' weights have neither: no rise by them.
        self.talk_words_share: float = float(rules.get("talk_words_share", 0.0))
        self.talk_words_from: float = float(rules.get("talk_words_from", 0.0))
        # Artifacts built before it never lower the bar by the pieces.
        self.talk_words_lowers: float = float(rules.get("talk_words_lowers", 0.0))
        # Artifacts built before it weigh no pairs with a message's edges.
        self.talk_words_ends: bool = bool(rules.get("talk_words_ends", False))
        # How far under the catalog's bar a route's candidates after the first may score;
        # artifacts built before it cut them all at the bar.
        self.tail_below: float = float(rules.get("tail_below", 0.0))
        # How many documents, the first by their words, those candidates may be among; none
        # in artifacts built before it.
        self.tail_words: int = int(rules.get("tail_words", 0))
        self.hybrid_floor_base: float = float(rules["hybrid_floor_base"])
        self.hybrid_floor_slope: float = float(rules["hybrid_floor_slope"])
        self.defaults: Dict[str, Any] = dict(rules["defaults"])
        # Artifacts built before it read every word as written.
        # Whether the meaning vector, too, reads misspelt words (`_meaning.spelt`); not before.
        self.meaning_spelling: bool = bool(rules.get("meaning_spelling", False))
        spelling = rules.get("spelling")
        self.spelling: Optional[Tuple[int, int]] = (
            None if spelling is None else (int(spelling["min_letters"]), int(spelling["max_letters"])))
        # Why a route refuses these rules (the artifact still serves catalogs and prompts).
        self.unreadable: Optional[str] = None
        if self.spelling is not None and (self.spelling[0] < 1 or self.spelling[1] > MAX_LETTERS):
            self.unreadable = "read words of %d to %d letters as their neighbours (1 to %d)" % (
                self.spelling[0], self.spelling[1], MAX_LETTERS)


# The longest word an artifact's rules may ask to read as a neighbour (Rust's `MAX_LETTERS`).
MAX_LETTERS = 64
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_A_TO_Z = re.compile("[a-z]+")


def spelling_applies(word: str, spelling: Tuple[int, int]) -> bool:
    """Whether an indexed word no skill holds is read as its nearest known word (Rust's
    `spelling::applies`): `spelling` letters a–z."""
    return spelling[0] <= len(word) <= spelling[1] and _A_TO_Z.fullmatch(word) is not None


def one_edit(word: str) -> Set[str]:
    """The words one edit from `word`: a letter deleted, inserted or changed, or two
    neighbouring letters swapped (letters a–z)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    out.update(a + c + b[1:] for a, b in splits if b for c in _LETTERS)
    out.update(a + c + b for a, b in splits for c in _LETTERS)
    return out


def one_edit_starting(word: str, prefix: str) -> Set[str]:
    """The words of `one_edit(word)` that start with `prefix`, made without the others: an
    edit at a position inside the prefix can only write the prefix's letter there (one word
    instead of 26), and none is made past a position where `word` already left the prefix."""
    out: Set[str] = set()
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        # The letters before the edit are the word's own: they must agree with the prefix.
        if not (prefix.startswith(head) if i <= len(prefix) else head.startswith(prefix)):
            break
        made = [head + tail[1:]] if tail else []
        if len(tail) > 1:
            made.append(head + tail[1] + tail[0] + tail[2:])
        for c in (_LETTERS if i >= len(prefix) else prefix[i]):
            made.append(head + c + tail)
            if tail:
                made.append(head + c + tail[1:])
        out.update(w for w in made if w.startswith(prefix))
    return out


def _word_patterns() -> "Tuple[re.Pattern[str], re.Pattern[str]]":
    """Runs of word characters: Rust's `char::is_alphanumeric` (letters, the marks Unicode
    counts as alphabetic such as Indic vowel signs, digits and other numbers), from the table
    the Rust runtime's tests write. `\\w` would follow `str.isalnum`, which splits `दुनिया` at
    its vowel signs, and this Python's Unicode version. The first pattern takes every character
    above the BMP as a word character: `re` matches a class of BMP ranges from a bitmap, ten
    times faster than with the few hundred ranges above it, so the exact one (the second) only
    runs on the rare runs holding such characters."""
    bmp, exact = [], []
    for item in _word_chars.RANGES.split():
        start, _, end = item.partition("-")
        first, last = int(start, 16), int(end or start, 16)
        exact.append("\\U%08x-\\U%08x" % (first, last))
        if first <= 0xFFFF:
            bmp.append("\\U%08x-\\U%08x" % (first, min(last, 0xFFFF)))
    bmp.append("\\U00010000-\\U0010ffff")
    return re.compile("[%s]+" % "".join(bmp)), re.compile("[%s]+" % "".join(exact))


_WORD_OR_ASTRAL, _WORD = _word_patterns()

# A mark (General_Category Mn or Mc, less the variation selectors: the Rust runtime's `mark`):
# inside a word, and left out of the meaning's pieces when the table has no piece for it.
_MARK = re.compile("[%s]" % "".join(
    "\\U%08x-\\U%08x" % (int(a, 16), int(b or a, 16))
    for a, _, b in (item.partition("-") for item in _word_chars.MARKS.split())))


def _words(text: str) -> List[str]:
    """The runs of word characters of a (lowercased) text."""
    out = []
    for run in _WORD_OR_ASTRAL.findall(text):
        if run.isascii() or max(run) <= "\uffff":
            out.append(run)
        else:
            out.extend(_WORD.findall(run))
    return out


# Scripts written without spaces (docs/routing.md): the same ranges as the Rust runtime's
# `UNSPACED`. A run of them becomes its overlapping pairs of characters.
_UNSPACED = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF),
             (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
             (0xFF66, 0xFF9F), (0x20000, 0x323AF))
_UNSPACED_RUN = re.compile("([%s]+)" % "".join(
    "\\U%08x-\\U%08x" % (lo, hi) for lo, hi in _UNSPACED))


def route_tokens(text: str, rules: RoutingRules, read: Optional[Dict[str, List[str]]] = None) -> List[str]:
    """A text's words as the routing index holds them: lowercased, split at every character
    that is not a letter or a digit (as Rust's `char::is_alphanumeric` says), stopwords and
    lone Latin letters out, a final `s` dropped from words of four letters or more (not after
    `s`, `u` or `i`); a run of an unspaced script becomes its pairs of characters. `read`:
    the tokens of the words already read, by word, to read from and add to (a route reads a
    message's words several times: for the glossary, the meaning's spelling, the index)."""
    out: List[str] = []
    # A word's tokens depend on it alone: each distinct word is read once (a pasted log
    # repeats most of its words).
    read = {} if read is None else read
    for word in _words(text.lower()):
        tokens = read.get(word)
        if tokens is None:
            tokens = read[word] = _word_tokens(word, rules)
        out.extend(tokens)
    return out


def _word_tokens(word: str, rules: RoutingRules) -> List[str]:
    """`route_tokens` of one run of word characters."""
    out = []
    runs = _UNSPACED_RUN.split(word) if not word.isascii() else [word]
    for k, w in enumerate(runs):
        if k % 2:
            out.extend([w] if len(w) == 1 else [w[j:j + 2] for j in range(len(w) - 1)])
            continue
        if not w or (len(w) == 1 and "a" <= w <= "z") or w in rules.stopwords:
            continue
        if len(w) >= 4 and w.endswith("s") and not w[:-1].endswith(("s", "u", "i")):
            w = w[:-1]
        out.append(_suffix_stem(w, rules))
    return out


def joined_words(text: str, rules: RoutingRules, read: Optional[Dict[str, List[str]]] = None) -> List[str]:
    """The words two neighbouring words of a text make written together (`google tasks` gives
    `googletask`), where the two are of spaced scripts, of two characters or more each, and
    together make one word (`route_tokens`, and its `read`); in the text's order."""
    words = _words(text.lower())
    out = []
    glued_read: Dict[str, List[str]] = {}
    for a, b in zip(words, words[1:]):
        if len(a) >= 2 and len(b) >= 2:
            glued = a + b
            one = glued_read.get(glued)
            if one is None:
                one = glued_read[glued] = [] if _UNSPACED_RUN.search(glued) else route_tokens(glued, rules, read)
            if len(one) == 1:
                out.append(one[0])
    return out


_LOWER_ASCII = re.compile("[a-z]+")


def _suffix_stem(w: str, rules: RoutingRules) -> str:
    """The first of the rules' `suffixes` ending a word of five ASCII letters or more, taken off
    when a stem of three letters or more with a vowel stays; `ied`/`ies`/`ie` become `y`; a doubled
    final consonant other than l, s, z is undoubled."""
    if len(w) < 5 or not _LOWER_ASCII.fullmatch(w) or not w.endswith(rules.suffixes):
        return w
    # The first of those ending in the word's last letter that ends it (one does).
    suffix = next(x for x in rules.suffixes_by_last[w[-1]] if w.endswith(x))
    rest = w[:-len(suffix)]
    if len(rest) < 3 or not any(c in "aeiouy" for c in rest):
        return w
    if suffix in ("ied", "ies", "ie"):
        rest += "y"
    if len(rest) > 3 and rest[-1] == rest[-2] and rest[-1] not in "aeiouylsz":
        rest = rest[:-1]
    return rest
