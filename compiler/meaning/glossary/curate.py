"""Checks the glossaries of this folder against English and adds the spellings people type
without accents, in place (run once after editing a list; the build reads the files as they are):

    pip install wordfreq==3.1.1 && python3 compiler/meaning/glossary/curate.py

A message's word that a glossary holds is read as its English gloss whenever the catalog's index
does not hold it (docs/routing.md, "Words of other languages"), so a glossary word that is also an English
word would change English requests: German `gift`, Turkish `deli`, Swedish `fläsk` typed `flask`.
wordfreq's frequencies (its English and each language's, as zipf values: 3 is once in a million
words) decide, with two rules:
- a word as the helper wrote it stays unless it is common in English (zipf 3.0 or more): the
  helpers were asked to leave such words out, and this catches those they missed. Since the third
  round a word under 4.0 in English stays when its language uses it a hundred times more (2.0
  above): Spanish `hoy` (3.1 in English, 5.7 in Spanish, where English text quotes it) and French
  `temps` are that language's words, read in English only where a catalog's index lacks them. Nor
  does a word stay when
  another language of the folder whose list does not hold it uses it far more (zipf 3.0 or
  more there, and 1.0 above its own): Dutch `nicht` (a niece) is German for "not";
- a spelling without accents (`reunion` of `reunión`, `flask` of `fläsk`; `ł`, `ø`, `æ`, `œ`,
  `ß` and `ı` written as people type them without them) is added after its word only when it is
  rare in English (under 2.5), not commoner in the language than the word itself (`har` is
  Swedish for "has" before it is `hår` without its ring) and not a word of the list already.
It makes passes until one changes nothing, so running it again changes nothing.
"""

import sys
import unicodedata
from pathlib import Path

from wordfreq import available_languages, zipf_frequency

HERE = Path(__file__).resolve().parent
ENGLISH_WORD = 3.0
# A word under this in English stays when its own language uses it 100 times more (zipf + 2.0).
ENGLISH_BORROWED = 4.0
OWN_MARGIN = 2.0
ENGLISH_SPELLING = 2.5
MARKER = "# Checked against English and given its spellings without accents by curate.py."
# The folder's languages written in Latin letters (wordfreq knows each).
LATIN = {"de", "es", "fr", "it", "nl", "pl", "pt", "sv", "tr"}
PLAIN = {"ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ı": "i", "đ": "d"}


def plain(word: str) -> str:
    """The word without its accents, as typed on a keyboard without them."""
    out = "".join(PLAIN.get(c, c) for c in word)
    return "".join(c for c in unicodedata.normalize("NFD", out) if unicodedata.category(c) != "Mn")


def latin(word: str) -> bool:
    """Whether it is written in Latin letters (ASCII to Latin Extended-B)."""
    return all("a" <= c <= "z" or "\u00c0" <= c <= "\u024f" for c in word)


def lists() -> dict:
    """Each Latin-script language of the folder with the words its list holds."""
    out = {}
    for p in sorted(HERE.glob("*.tsv")):
        if p.stem in LATIN:
            out[p.stem] = {line.split("\t", 1)[0] for line in p.read_text(encoding="utf-8").splitlines()
                           if "\t" in line and not line.startswith("#")}
    return out


def english(word: str, own: float) -> bool:
    """Whether a word is common in English and not its own language's far more."""
    en = zipf_frequency(word, "en")
    return en >= ENGLISH_WORD and not (en < ENGLISH_BORROWED and own >= en + OWN_MARGIN)


def elsewhere(word: str, lang: str, held: dict) -> bool:
    """Whether another language of the folder, whose list lacks `word`, uses it far more."""
    mine = zipf_frequency(word, lang) if lang in available_languages() else 0.0
    return any(other != lang and word not in words and zipf_frequency(word, other) >= ENGLISH_WORD
               and zipf_frequency(word, other) >= mine + 1.0 for other, words in held.items())


def curate(path: Path, held: dict) -> bool:
    """One pass over a list; whether it changed it."""
    lang = path.stem
    own = (lambda w: zipf_frequency(w, lang)) if lang in available_languages() else (lambda w: 0.0)
    head, entries = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or "\t" not in line:
            if line != MARKER and line.strip():
                head.append(line)
            continue
        entries.append(line.split("\t", 1))
    words = {w for w, _ in entries}
    out, dropped, added = [], [], 0
    for word, gloss in entries:
        if not latin(word):
            out.append(f"{word}\t{gloss}")
            continue
        if english(word, own(word)) or elsewhere(word, lang, held):
            dropped.append(word)
            continue
        out.append(f"{word}\t{gloss}")
        typed = plain(word)
        if (typed != word and typed not in words and zipf_frequency(typed, "en") < ENGLISH_SPELLING
                and own(typed) <= own(word) and not elsewhere(typed, lang, held)):
            out.append(f"{typed}\t{gloss}")
            words.add(typed)
            added += 1
    text = "\n".join(head + [MARKER] + out) + "\n"
    changed = text != path.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    print(f"{path.name}: {len(out)} lines, {len(dropped)} English words left out, {added} spellings added"
          + (f" ({', '.join(dropped[:12])}{'…' if len(dropped) > 12 else ''})" if dropped else ""))
    return changed


if __name__ == "__main__":
    # Passes until none changes a list: what one leaves out of a list can let another's word stay.
    changed = True
    while changed:
        held = lists()
        changed = False
        for p in sorted(HERE.glob("*.tsv")) if len(sys.argv) < 2 else [Path(a) for a in sys.argv[1:]]:
            changed |= curate(p, held)
