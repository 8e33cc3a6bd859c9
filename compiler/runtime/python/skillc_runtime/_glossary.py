"""Requests in other languages (docs/routing.md, "Other languages"): each word of a message that
the artifact's glossary holds, and that the catalog's index does not, read as its English gloss,
for the route's words and meaning alike: as route/glossary.rs does, character for character."""

from typing import Callable, Dict, List, Optional

from ._words import _UNSPACED_RUN, _WORD, _WORD_OR_ASTRAL

# The longest word of a script written without spaces that a glossary holds, in characters.
MAX_CHARS = 8


def parse(data: bytes) -> Optional[Dict[str, str]]:
    """A glossary from its row (lines of a word, a tab and its gloss, in the words' order, each
    once); None when it is not one."""
    words: Dict[str, str] = {}
    previous = None
    lines = data.decode("utf-8").split("\n")
    for line in lines[:-1] if lines[-1] == "" else lines:
        word, tab, gloss = line.partition("\t")
        if not tab or (previous is not None and word <= previous):
            return None
        words[word] = gloss
        previous = word
    return words


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


def gloss(words: Dict[str, str], message: str, held: Callable[[str], bool]) -> Optional[str]:
    """`message` lowercased, each word `words` holds and `held` does not replaced by its gloss
    with a space either side; None when no word is. A spaced script's word is looked up whole;
    in a run of a script written without spaces, the longest word held at each character from
    the first (at most `MAX_CHARS`), a character no word starts at kept as it is."""
    out: List[str] = []
    glossed = False

    def put(word: str) -> None:
        nonlocal glossed
        found = words.get(word)
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
                if run:
                    put(run)
                continue
            i = 0
            while i < len(run):
                for n in range(min(MAX_CHARS, len(run) - i), 0, -1):
                    if run[i:i + n] in words:
                        put(run[i:i + n])
                        i += n
                        break
                else:
                    out.append(run[i])
                    i += 1
    return "".join(out) if glossed else None
