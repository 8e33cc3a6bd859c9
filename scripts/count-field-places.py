#!/usr/bin/env python3
"""Fails when adding a plain frontmatter field would take more than two Rust edits.

A plain field is declared in at most two Rust files: its row in `FIELDS`
(`compiler/src/model/fields.rs`) and, for a run-time field, its slot in the stored record
(`compiler/runtime/src/schema.rs`, `Record`); a display field in the first alone. The parse,
the record and the display metadata of the artifact, and the exported SKILL.md derive from
the table. This counts the
Rust files (tests and comments apart) that name each field below, under either spelling
(`bindShells` as written, `bind_shells` as stored), leaving out the files where the field
acts: those are the rule itself, not a declaration, and each is listed with why.

Usage: count-field-places.py [REPO]
"""

import os
import re
import sys

ROOTS = ("compiler/src", "compiler/runtime/src", "studio/src")

# Field (as written) -> (files that may declare it, {file where it acts: what it does there}).
FIELDS = {
    # A run-time field: the table row and `Record`, then the rule in the runtime.
    "exclusive": (
        2,
        {
            "compiler/runtime/src/select.rs": "the rule: an exclusive skill leaves out weaker skills of its category",
        },
    ),
    # Display fields: the table row only.
    "emoji": (1, {}),
    "bindShells": (1, {}),
}


def snake(name):
    """The stored key of a field: `bindShells` is `bind_shells`, `allowed-tools` `allowed_tools`."""
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name).replace("-", "_")


def without_tests(text):
    """The text before the file's test module, if it has one."""
    m = re.search(r"^#\[cfg\(test\)\]\n(pub )?mod \w+ \{", text, re.M)
    return text if m is None else text[: m.start()]


def without_comments(text):
    """The text without `//` comments (a `//` inside a string is rare enough in these files)."""
    return re.sub(r"(^|\s)//.*$", "", text, flags=re.M)


def rust_files(repo):
    for root in ROOTS:
        for folder, _, names in os.walk(os.path.join(repo, root)):
            for name in sorted(names):
                if name.endswith(".rs"):
                    yield os.path.join(folder, name)


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    texts = {}
    for path in rust_files(repo):
        with open(path, encoding="utf-8") as f:
            texts[os.path.relpath(path, repo)] = without_comments(without_tests(f.read()))
    failed = False
    for field, (limit, rules) in FIELDS.items():
        words = {field, snake(field)}
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(words))) + r")\b")
        naming = sorted(p for p, t in texts.items() if pattern.search(t))
        declared = [p for p in naming if p not in rules]
        acting = [p for p in naming if p in rules]
        verdict = "ok" if len(declared) <= limit else f"over {limit}"
        print(f"{field}: declared in {len(declared)} Rust files ({verdict}): {', '.join(declared)}")
        for p in acting:
            print(f"  acts in {p}: {rules[p]}")
        failed |= len(declared) > limit
    if failed:
        print(
            "a plain field is a row of FIELDS and, if the runtimes act on it, a field of Record; "
            "see the README's 'Adding a frontmatter field'"
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
