#!/usr/bin/env python3
"""Fails when a source file or a function grows past what a reader takes in at once.

- No Rust source file over 800 lines, not counting its test module (`#[cfg(test)] mod …`).
- No function over 80 lines, from its `fn` line to its closing brace (tests apart).

A test module kept in a file of its own (`#[cfg(test)] #[path = "x_tests.rs"] mod tests;`) is
tests whole: files named `*_tests.rs` are not measured.

Strings, characters and comments are skipped when braces are matched, so `'{'` or a `}` in
a message does not end a function early. Usage: check-sizes.py [REPO]
"""

import os
import re
import sys

MAX_FILE = 800
MAX_FN = 80
ROOTS = ("compiler/src", "compiler/runtime/src", "studio/src")


def without_tests(text):
    """The text before the file's test module, if it has one."""
    m = re.search(r"^#\[cfg\(test\)\]\n(pub )?mod \w+ \{", text, re.M)
    return text if m is None else text[: m.start()]


def code_mask(text):
    """The text with strings, characters and comments blanked out (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + len(hashes) + 2)
            j = n if end < 0 else end + 1 + len(hashes)
            blank(i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            # A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                blank(i, i + len(m.group(0)))
                i += len(m.group(0))
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def long_functions(code):
    """(line, name, length) of each function longer than MAX_FN lines."""
    found = []
    for m in re.finditer(r"\bfn\s+(\w+)", code):
        start = m.start()
        brace = semi = None
        depth = 0
        for k in range(m.end(), len(code)):
            ch = code[k]
            if ch in "(<[":
                depth += 1
            elif ch in ")>]":
                depth = max(0, depth - 1)
            elif ch == ";" and depth == 0:
                semi = k
                break
            elif ch == "{" and depth == 0:
                brace = k
                break
        if brace is None:
            continue
        level, k = 0, brace
        while k < len(code):
            if code[k] == "{":
                level += 1
            elif code[k] == "}":
                level -= 1
                if level == 0:
                    break
            k += 1
        first = code.count("\n", 0, start) + 1
        last = code.count("\n", 0, k) + 1
        if last - first + 1 > MAX_FN:
            found.append((first, m.group(1), last - first + 1))
    return found


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = []
    for root in ROOTS:
        for folder, _, files in os.walk(os.path.join(repo, root)):
            for f in sorted(files):
                if not f.endswith(".rs") or f.endswith("_tests.rs"):
                    continue
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, repo)
                text = without_tests(open(path, encoding="utf-8").read())
                lines = text.count("\n")
                if lines > MAX_FILE:
                    problems.append(f"{rel}: {lines} lines outside tests (at most {MAX_FILE})")
                for line, name, length in long_functions(code_mask(text)):
                    problems.append(f"{rel}:{line}: fn {name} is {length} lines (at most {MAX_FN})")
    for p in problems:
        print("FAIL", p)
    print(f"sizes: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
