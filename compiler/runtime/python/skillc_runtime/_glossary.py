"""Requests in other languages (docs/routing.md, "Words of other languages"): each word of a message that
the artifact's glossary holds, and that the catalog's index does not, read as its English gloss,
for the route's words and meaning alike: as route/glossary.rs does, character for character."""

from typing import Callable, Dict, List, Optional, Tuple

from ._words import _UNSPACED_RUN, _WORD, _WORD_OR_ASTRAL

# The longest word of a script written without spaces that a glossary holds, in characters.
MAX_CHARS = 8
# The most words (or unspaced characters) a message is read through the glossary for.
MAX_READ = 256


# How many of a lookup's first halvings are kept (`probes`): every lookup makes the same first
# few, and 1,023 lines kept halve a lookup's time.
_KEPT_LEVELS = 10


def look_up(glossary: bytes, word: str, probes: Optional[Dict[Tuple[int, int], Tuple[int, int, bytes, int]]] = None
            ) -> Optional[str]:
    """The gloss of `word` in a glossary as the artifact holds it (lines of a word, a tab and its
    gloss, sorted by the words' bytes, each once; a line without a tab holds no word), found by
    halving where the bytes lie, as the Rust runtime does: no map of 62,000 words is made (25 ms
    more to a first route). `probes` keeps the lines of the first halvings between lookups."""
    key = word.encode("utf-8")
    # Both ends at the start of a line.
    low, high, level = 0, len(glossary), 0
    while low < high:
        kept = probes.get((low, high)) if probes is not None and level < _KEPT_LEVELS else None
        if kept is None:
            middle = (low + high) // 2
            start = glossary.rfind(b"\n", low, middle) + 1 or low
            end = glossary.find(b"\n", middle, high)
            end = high if end < 0 else end
            tab = glossary.find(b"\t", start, end)
            kept = (start, end, glossary[start:end if tab < 0 else tab], tab)
            if probes is not None and level < _KEPT_LEVELS:
                probes[(low, high)] = kept
        start, end, found, tab = kept
        level += 1
        if found == key:
            if tab < 0:
                return None
            try:
                return glossary[tab + 1:end].decode("utf-8")
            except UnicodeDecodeError:
                return None
        if found < key:
            low = end + 1
        else:
            high = start
    return None


def _runs(text: str) -> List[str]:
    """`text` as its runs of word characters and what lies between them, alternately (the
    first and last may be empty)."""
    out = [""]
    at = 0
    for m in _WORD_OR_ASTRAL.finditer(text):
        run = m.group()
        if run.isascii() or max(run) <= "\uffff":
            found = [(m.start(), m.end())]
        else:
            found = [(m.start() + w.start(), m.start() + w.end()) for w in _WORD.finditer(run)]
        for start, end in found:
            out[-1] += text[at:start]
            out.extend([text[start:end], ""])
            at = end
    out[-1] += text[at:]
    return out


def gloss(glossary: bytes, message: str, held: Callable[[str], bool],
          probes: Optional[Dict[Tuple[int, int], Tuple[int, int, bytes, int]]] = None) -> Optional[str]:
    """`message` lowercased, each word `glossary` holds and `held` does not replaced by its gloss
    with a space either side; None when no word is. A spaced script's word is looked up whole;
    in a run of a script written without spaces, the longest word held at each character from
    the first (at most `MAX_CHARS`), a character no word starts at kept as it is; after `MAX_READ`
    words or characters looked up, the rest as written (lowercased)."""
    out: List[str] = []
    glossed = False
    read = 0

    def put(word: str, found: Optional[str]) -> None:
        nonlocal glossed
        if found is not None and not held(word):
            glossed = True
            out.append(f" {found} ")
        else:
            out.append(word)

    for k, part in enumerate(_runs(message.lower())):
        if not k % 2:
            out.append(part)
            continue
        for j, run in enumerate(_UNSPACED_RUN.split(part) if not part.isascii() else [part]):
            if not j % 2:
                # A word the catalog holds is not looked up: its own, whatever the glossary says.
                if run and read == MAX_READ:
                    out.append(run)
                elif run:
                    read += 1
                    put(run, None if held(run) else look_up(glossary, run, probes))
                continue
            i = 0
            while i < len(run):
                if read == MAX_READ:
                    out.append(run[i:])
                    break
                read += 1
                for n in range(min(MAX_CHARS, len(run) - i), 0, -1):
                    found = look_up(glossary, run[i:i + n], probes)
                    if found is not None:
                        put(run[i:i + n], found)
                        i += n
                        break
                else:
                    out.append(run[i])
                    i += 1
    return "".join(out) if glossed else None
