"""The sets at scale with their skills' bodies put back (docs/routing.md, "What is indexed"):
`tests/quality/scale/` keeps names and descriptions only, so the bodies come from each source
repository at the set's commit, and the same requests are routed with and without them.

    python3 tests/quality/scale/study/bodies.py SKILLC MIRRORS [SET,...]

MIRRORS holds a git clone (or bare repository) of each source as `<owner>+<name>` (what the
`fetch` tool of this project's sandbox gives: `<owner>+<name>/repo`); SKILLC is the binary
whose index is measured. For each set it prints the shipped route's recall@1, recall@5, MRR@5,
false fire and share of requests without a candidate, the uncut ranking's recall@1 and @5, and
the share of `compiler/meaning/small-talk-words.txt`'s messages that reach a skill: first on
the set as committed (bodyless), then with the bodies.
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(REPO / "compiler/runtime/python"))
sys.path.insert(0, str(REPO / "tests/quality"))
from skillc_runtime import Artifact  # noqa: E402
from routing_quality import figures, labelled  # noqa: E402

SCALE = REPO / "tests/quality/scale"
# Each set's source repository and commit (its README's).
SOURCES = {
    "claude-code-templates": ("davila7+claude-code-templates", "c2b584d4b8493e98a885b1b9aabb0736bccfe7cf"),
    "antigravity-awesome-skills": ("sickn33+antigravity-awesome-skills", "e1dd8f41bcb43c3bb025d5056183729a626b696d"),
    "openclaw-skills": ("openclaw+skills", "d6970163ff23087259825f3f274331aeeddbffe4"),
    "agentskillexchange": ("agentskillexchange+skills", "2ffdadfcca8576cdf14caec9bbcda7162c393bbc"),
}
FRONTMATTER = re.compile(r"^---\s*\n.*?\n---\s*\n?", re.S)


def git_dir(mirrors, name):
    root = Path(mirrors) / name
    return root / "repo" if (root / "repo").exists() else root


def bodies(mirrors, name):
    """folder -> the original SKILL.md's body, by the set's manifest (folder, name, path)."""
    mirror, commit = SOURCES[name]
    rows = [line.split("\t") for line in (SCALE / name / "manifest.tsv").read_text().splitlines()
            if line and not line.startswith("#")]
    cat = subprocess.Popen(["git", "-C", str(git_dir(mirrors, mirror)), "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = {}
    for folder, _, path in rows:
        cat.stdin.write(f"{commit}:{path}/SKILL.md\n".encode())
        cat.stdin.flush()
        header = cat.stdout.readline().decode()
        if header.endswith("missing\n"):
            continue
        data = cat.stdout.read(int(header.split()[2]))
        cat.stdout.read(1)
        text = data.decode("utf-8", "replace")
        m = FRONTMATTER.match(text)
        out[folder] = text[m.end():] if m else text
    cat.stdin.close()
    cat.wait()
    return out


def with_bodies(name, found, into):
    """A copy of the set's workspace whose SKILL.md files hold the original bodies."""
    ws = Path(into) / name
    shutil.copytree(SCALE / name, ws)
    for f in (ws / "skills").glob("*/SKILL.md"):
        if f.parent.name in found:
            text = f.read_text()
            f.write_text(text[:FRONTMATTER.match(text).end()] + "\n" + found[f.parent.name])
    return ws


def measured(skillc, ws, name, tmp):
    db = Path(tmp) / f"{ws.parent.name}-{name}.db"
    subprocess.run([skillc, "build", str(ws), "-o", str(db)], check=True, capture_output=True)
    messages = labelled(SCALE / f"{name}.tsv")
    shipped, uncut = Artifact(str(db)), Artifact(str(db))
    uncut.manifest["routing"] = json.dumps({"top_k": 5, "min_score": 0.0, "hybrid_min_score": 0.0})
    names = lambda a: lambda m: [c["name"] for c in a.route(m)["candidates"]]  # noqa: E731
    route, ranking = figures(messages, names(shipped)), figures(messages, names(uncut))
    talk = [t for t in (REPO / "compiler/meaning/small-talk-words.txt").read_text().splitlines() if t.strip()]
    fired = sum(bool(shipped.route(m)["candidates"]) for m in talk) / len(talk)
    return route, ranking, fired


def main():
    skillc, mirrors = sys.argv[1], sys.argv[2]
    sets = sys.argv[3].split(",") if len(sys.argv) > 3 else list(SOURCES)
    print("| set | bodies | recall@1 | recall@5 | MRR@5 | false fire | no candidate | uncut recall@1 "
          "| uncut recall@5 | small talk reaching a skill |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in sets:
        with tempfile.TemporaryDirectory() as tmp:
            found = bodies(mirrors, name)
            for label, ws in (("none", SCALE / name), (f"{len(found)}", with_bodies(name, found, tmp))):
                (r1, r5, mrr, ff, empty), (u1, u5, *_), fired = measured(skillc, ws, name, tmp)
                print(f"| {name} | {label} | {r1:.3f} | {r5:.3f} | {mrr:.3f} | {ff:.3f} | {empty:.3f} "
                      f"| {u1:.3f} | {u5:.3f} | {fired:.3f} |", flush=True)


if __name__ == "__main__":
    main()
