"""Extract a public skills collection into a routing-only skills workspace.

    python3 tests/quality/scale/extract.py GIT_DIR COMMIT OUT_DIR [--prefix skills/] [--body-words]

GIT_DIR is a git directory (a bare mirror is enough: only `git ls-tree` and `git show` are used),
COMMIT the commit to read, OUT_DIR the workspace to (re)write. For every `SKILL.md` under the
prefix (at any depth) it keeps only what routing reads:

- a folder-like name: the skill's path below the prefix, `/` made `-`
  (`game-development/2d-games` -> `game-development-2d-games`), so nested skills become skills of
  their own;
- the frontmatter `name` (the folder name when there is none), `description`, and `when_to_use`
  when present.

Each skill is written as OUT_DIR/skills/<folder>/SKILL.md holding that frontmatter and the one body
line "See the original collection." (no body, script, reference or asset is copied).

With --body-words the body is instead the distinct words of the original body outside fenced code
blocks, sorted, wrapped at 100 characters: exactly what the routing index reads of a body
(`prose_words` in the runtime crate: the words outside ``` and ~~~ fences, each once), and nothing
of its sentences. Words are split on white space and ASCII punctuation (characters that split
words in skillc's tokeniser too, so the index sees the same words either way) and lowercased,
except a word holding a capital sigma, kept as written (its lower case depends on what follows
it). A body without words leaves the body empty.

What the script changes, and nothing else:
- a skill whose folder holds a LICENSE file reserving all rights (not an open licence) is left out
  and listed on stderr;
- skills of the collection that declare the same `name` all take their folder name instead (as
  `skillc` itself tells them apart in a collection), so that every name is unique and a label names
  exactly one skill;
- a name or description that is not a string (YAML made it a number or a list) is kept as written
  in the source text of that line when possible, else as Python's str() of the value.

It also writes OUT_DIR/manifest.tsv: folder, name, original path, one line per skill, sorted.

Several collections installed side by side make one catalog with

    python3 tests/quality/scale/extract.py OUT_DIR [--body-words] \
        --source LABEL GIT_DIR COMMIT PREFIX [--source LABEL GIT_DIR COMMIT PREFIX ...]

each read as above (PREFIX "" reads the whole tree). A folder is then `LABEL-` and the folder it
would have alone, the manifest's path `LABEL:` and the original path, and names shared between
collections take their folders like names shared within one. A skill file below a hidden folder
(`.gemini/`, `.codex/`: one tool's copy of skills found elsewhere in the tree) is not read, nor
one whose folder lies below a folder named `test`, `tests` or `fixtures` (the collection's own
test fixtures; a skill folder of that name is read). A skill at a source's root takes the label
alone as its folder.

Added for collections written less carefully (openclaw/skills, the ClawHub archive); none of these
cases occurs in antigravity-awesome-skills at its commit, whose output is unchanged:
- a skill file named `skill.md` in another case (`skill.md`, `Skill.md`) is read like `SKILL.md`
  (a folder holding both keeps `SKILL.md`);
- a frontmatter that is not valid YAML (an unquoted description holding ": ", a flow mapping left
  open) or that is never closed (then it ends at its first blank line) is read line by line: each
  top-level `key: value`, indented lines that follow appended to the value, matching quotes removed;
- a skill without a description (no frontmatter at all, or none declared) is left out and listed on
  stderr: routing reads nothing else, and no request could be labelled for it fairly.
- a control character in a name or description (C1 mojibake, which YAML does not allow written
  as is) is written as its `\\uXXXX` escape, which reads back as the same character.
"""

import json
import re
import string
import subprocess
import sys
import unicodedata
from pathlib import Path

import yaml

BODY = "See the original collection.\n"
# A skill whose folder is below one of these is a test fixture of the collection's own tooling, not a
# skill it offers (a skill's own folder may have such a name: openclaw's `arein/test`).
TEST_FOLDERS = {"test", "tests", "fixtures"}
# What splits a body into words here: white space and ASCII punctuation, both word breaks for skillc.
WORD_BREAK = re.compile(r"[\s" + re.escape(string.punctuation) + r"]+")


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True).stdout


def unquote(value):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        if value[0] == '"':
            try:
                return json.loads(value)
            except ValueError:
                pass
        return value[1:-1]
    return value


def lenient(lines):
    """Top-level `key: value` lines of a frontmatter YAML cannot read, continuations appended."""
    data, key = {}, None
    for line in lines:
        m = re.match(r"^([A-Za-z_][\w-]*):(?:\s+(.*))?$", line.rstrip())
        if m:
            key, value = m.group(1), (m.group(2) or "").strip()
            data[key] = "" if value in ("|", ">", "|-", ">-", "|+", ">+") else unquote(value)
        elif key and line[:1] in (" ", "\t") and line.strip():
            data[key] = (str(data[key]) + " " + line.strip()).strip()
        elif line.strip():
            key = None
    return data


def frontmatter_end(lines):
    """Where a frontmatter opened on `lines[0]` ends: (index of its closing `---`, True), or,
    never closed, (index of its first blank line, False); None without a frontmatter."""
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return next((i for i in range(1, len(lines)) if not lines[i].strip()), len(lines)), False
    return end, True


def frontmatter(text):
    """The frontmatter mapping of a SKILL.md text ({} when it has none)."""
    lines = text.lstrip("\ufeff").splitlines()
    found = frontmatter_end(lines)
    if found is None:
        return {}
    end, closed = found
    if not closed:  # never closed: up to the first blank line, read line by line
        return lenient(lines[1:end])
    try:
        data = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError:
        return lenient(lines[1:end])
    return data if isinstance(data, dict) else {}


def body_of(text):
    """A SKILL.md text without its frontmatter (ended as `frontmatter` ends it)."""
    lines = text.lstrip("\ufeff").split("\n")
    found = frontmatter_end(lines)
    return text if found is None else "\n".join(lines[found[0] + 1:])


def body_words(body):
    """The body's distinct words outside fenced code, sorted, as lines of at most 100 characters."""
    words, in_code = set(), False
    for line in body.split("\n"):
        opening = line.lstrip()
        if opening.startswith("```") or opening.startswith("~~~"):
            in_code = not in_code
        elif not in_code:
            words.update(w if "\u03a3" in w else w.lower() for w in WORD_BREAK.split(line) if w)
    lines, line = [], ""
    for w in sorted(words):
        if line and len(line) + 1 + len(w) > 100:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return "\n".join(lines + [line] if line else lines)


def as_text(value):
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return " ".join(str(v) for v in value).strip()
    return str(value).strip()


def reserved(git_dir, commit, folder, files):
    """True when the skill's own folder holds a licence reserving all rights."""
    for f in files:
        if f.startswith(folder + "/") and "/" not in f[len(folder) + 1:] \
                and Path(f).name.upper().startswith("LICENSE"):
            text = git(git_dir, "show", f"{commit}:{f}").decode("utf-8", "replace")
            if "all rights reserved" in text.lower():
                return True
    return False


def read_collection(git_dir, commit, prefix, with_words, label=None):
    """The skills of one collection at one commit, below `prefix`, as dicts (see the docstring)."""
    files = git(git_dir, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
    by_folder = {}
    for f in files:
        # The folders from the prefix down: the file's own folder last.
        folders = f[len(prefix):].split("/")[:-1]
        if f.startswith(prefix) and "/" in f and f.rsplit("/", 1)[1].upper() == "SKILL.MD" \
                and not any(part.startswith(".") for part in folders) \
                and not any(part in TEST_FOLDERS for part in folders[:-1]):
            folder = f.rsplit("/", 1)[0]
            if folder not in by_folder or f.endswith("/SKILL.md"):
                by_folder[folder] = f
    skills = []
    for f in sorted(by_folder.values()):
        src_folder = f.rsplit("/", 1)[0]
        folder = src_folder[len(prefix):].replace("/", "-")
        path = src_folder
        if label:
            # a skill at the source's root takes the label alone as its folder
            folder, path = f"{label}-{folder}" if folder else label, f"{label}:{src_folder}"
        if reserved(git_dir, commit, src_folder, files):
            print(f"left out (all rights reserved): {path}", file=sys.stderr)
            continue
        text = git(git_dir, "show", f"{commit}:{f}").decode("utf-8", "replace")
        fm = frontmatter(text)
        name = as_text(fm.get("name")) or folder
        description = as_text(fm.get("description")) or ""
        if not description:
            print(f"left out (no description): {path}", file=sys.stderr)
            continue
        when = as_text(fm.get("when_to_use"))
        body = body_words(body_of(text)) if with_words else BODY
        skills.append({"folder": folder, "name": name, "description": description,
                       "when_to_use": when, "path": path, "body": body})
    return skills


def quoted(value):
    """`value` as a YAML double-quoted scalar: JSON's quoting, and the control characters JSON
    leaves as they are (C1, U+0080 to U+009F: mojibake of a description) escaped, since YAML
    allows none of them written raw."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cc" else c for c in text)


def as_prefix(prefix):
    prefix = prefix.rstrip("/")
    return prefix + "/" if prefix else ""  # "" reads the whole tree


def main():
    args = sys.argv[1:]
    with_words = "--body-words" in args
    if with_words:
        args.remove("--body-words")
    if "--source" in args:
        out, sources = args[0], []
        rest = args[1:]
        while rest:
            if rest[0] != "--source" or len(rest) < 5:
                sys.exit("usage: extract.py OUT_DIR [--body-words] "
                         "--source LABEL GIT_DIR COMMIT PREFIX [--source ...]")
            sources.append((rest[1], rest[2], rest[3], as_prefix(rest[4])))
            rest = rest[5:]
        skills = [s for label, git_dir, commit, prefix in sources
                  for s in read_collection(git_dir, commit, prefix, with_words, label)]
    else:
        prefix = "skills/"
        if "--prefix" in args:
            i = args.index("--prefix")
            prefix = as_prefix(args[i + 1])
            del args[i:i + 2]
        git_dir, commit, out = args
        skills = read_collection(git_dir, commit, prefix, with_words)
    out = Path(out)

    by_name = {}
    for s in skills:
        by_name.setdefault(unicodedata.normalize("NFKC", s["name"]), []).append(s)
    for group in by_name.values():
        if len(group) > 1:
            print("same name, folder names used: " + ", ".join(
                f'{s["path"]} ({s["name"]} -> {s["folder"]})' for s in group), file=sys.stderr)
            for s in group:
                s["name"] = s["folder"]
    seen = [unicodedata.normalize("NFKC", s["name"]) for s in skills]
    assert len(seen) == len(set(seen)), "names still collide"
    folders = [s["folder"] for s in skills]
    assert len(folders) == len(set(folders)), "folders collide"

    root = out / "skills"
    if root.exists():
        for p in sorted(root.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
    for s in skills:
        d = root / s["folder"]
        d.mkdir(parents=True, exist_ok=True)
        lines = ["---", f'name: {quoted(s["name"])}', f'description: {quoted(s["description"])}']
        if s["when_to_use"]:
            lines.append(f'when_to_use: {quoted(s["when_to_use"])}')
        lines += ["---", "", s["body"]]
        (d / "SKILL.md").write_text("\n".join(lines).rstrip("\n") + "\n")
    with open(out / "manifest.tsv", "w") as m:
        m.write("# folder\tname\toriginal path\n")
        for s in sorted(skills, key=lambda s: s["folder"]):
            m.write(f'{s["folder"]}\t{s["name"]}\t{s["path"]}\n')
    print(f"{len(skills)} skills written to {root}", file=sys.stderr)


if __name__ == "__main__":
    main()
