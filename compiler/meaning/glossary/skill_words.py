"""Writes `english-in-skills.txt`: the glossaries' words that English skills use as words of
their own, which the build leaves out of the glossary (`meaning::glossary`).

    python3 compiler/meaning/glossary/skill_words.py   # reads bare mirrors under $MIRROR

A glossary word is read as its English gloss when a catalog's index lacks it, so a word of
another language that is also a word of software in English changed English requests: `todo`
(Spanish "all"), `schemas` (Portuguese "diagrams"), `vue` (French "view"), `lua` (Portuguese
"moon"), `llama`, `vars`, `repos`, `iban`. wordfreq's English cannot tell them apart from the
words it should keep (`vars` is as rare there as `morgen`), so the evidence is English skill
writing itself: the Markdown files of five public skill collections at pinned commits, none of
them a catalog of the labelled routing sets (`tests/quality/scale/`). A word is English in
skills when it is in at least MIN_FILES of their files, in at least MIN_COLLECTIONS of them
(one collection can hold translations: `dsgvo`, `estar`). Files named for a language
(`README.es.md`, `docs/pt-br/…`) are not read. Only the word counts are used; no text is kept.
"""

import collections
import os
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIRROR = Path(os.environ.get("MIRROR", "/work/.mirror"))
# (repository, commit): English skill and agent collections, none a labelled set's catalog.
SOURCES = [
    ("anthropics/skills", "9d2f1ae187231d8199c64b5b762e1bdf2244733d"),
    ("obra/superpowers", "44c9b2d6e889982ac18c27d05a19fefe335194e1"),
    ("wshobson/agents", "367cb6a4a182cf7e9b0a17c9429f7411ddd9cf35"),
    ("alirezarezvani/claude-skills", "7d493fed97e4d57553630e1a2432c1c02bf5b2b3"),
    ("github/awesome-copilot", "ab7544d03d4c49fdd07f5958e1888ad39c4118e2"),
]
MIN_FILES = 3
MIN_COLLECTIONS = 2
LANGUAGE_NAMED = re.compile(
    r"(^|[/._-])(es|pt|pt-br|fr|de|it|nl|pl|sv|tr|ja|ko|zh|zh-cn|zh-tw|ru|ar|hi|th)([/._-]|$)", re.I)
OUT = HERE / "english-in-skills.txt"


def git(repo, *args):
    folder = MIRROR / repo.replace("/", "+") / "repo"
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True).stdout


def glossary_words():
    """Every word the glossaries hold (Latin letters a-z only: the others are not English)."""
    words = set()
    for p in sorted(HERE.glob("*.tsv")):
        for line in p.read_text(encoding="utf-8").splitlines():
            if "\t" in line and not line.startswith("#"):
                word = line.split("\t", 1)[0].strip().lower()
                if re.fullmatch(r"[a-z]+", word):
                    words.add(word)
    return words


def main():
    files = collections.Counter()
    collections_of = collections.defaultdict(set)
    for repo, commit in SOURCES:
        names = git(repo, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
        for name in names:
            if not name.endswith(".md") or LANGUAGE_NAMED.search(name):
                continue
            text = git(repo, "show", f"{commit}:{name}").decode("utf-8", "replace").lower()
            for word in set(re.findall(r"[a-z]+", text)):
                files[word] += 1
                collections_of[word].add(repo)
    kept = sorted(w for w in glossary_words()
                  if files[w] >= MIN_FILES and len(collections_of[w]) >= MIN_COLLECTIONS)
    head = [
        "# Words of the glossaries that English skills use as their own, left out of the glossary",
        "# by the build. Written by skill_words.py (its docstring says how); do not edit by hand.",
        "# word<TAB>Markdown files of the five collections holding it",
    ]
    OUT.write_text("\n".join(head + [f"{w}\t{files[w]}" for w in kept]) + "\n", encoding="utf-8")
    print(f"{len(kept)} words written to {OUT}")


if __name__ == "__main__":
    main()
