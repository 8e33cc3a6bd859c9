"""The sets at scale with no body, with their bodies' words (as committed) and with the original
bodies (docs/routing.md, "What is indexed"). The committed sets hold, for a body, its distinct
words outside fenced code (`extract.py --body-words`); this fetches the original bodies from each
source repository at the set's commit, checks that they give the artifact the same routing index
(`card_route`, card by card: the words and the summary with the body mixed in) as the committed
words, and routes the same requests on the three.

    python3 tests/quality/scale/study/bodies.py SKILLC MIRRORS [SET,...]

MIRRORS holds a git clone (or bare repository) of each source as `<owner>+<name>` (what the
`fetch` tool of this project's sandbox gives: `<owner>+<name>/repo`); SKILLC is the binary
whose index is measured. For each set and body it prints the shipped route's recall@1, recall@5,
MRR@5, false fire and share of requests without a candidate, the uncut ranking's recall@1 and @5,
and the share of `compiler/meaning/small-talk-words.txt`'s messages that reach a skill. It exits 1
when the words and the original bodies give a different index.
"""

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(REPO / "compiler/runtime/python"))
sys.path.insert(0, str(REPO / "tests/quality"))
from skillc_runtime import Artifact  # noqa: E402
from routing_quality import baseline, figures, labelled, names_of  # noqa: E402

sys.path.insert(0, str(REPO / "tests/quality/scale"))
from extract import body_of  # noqa: E402

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


def manifest(name):
    """The set's (folder, name, original path) rows."""
    return [line.split("\t") for line in (SCALE / name / "manifest.tsv").read_text().splitlines()
            if line and not line.startswith("#")]


def bodies(mirrors, name):
    """folder -> the original SKILL.md's body, by the set's manifest (folder, name, path)."""
    mirror, commit = SOURCES[name]
    rows = manifest(name)
    cat = subprocess.Popen(["git", "-C", str(git_dir(mirrors, mirror)), "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = {}
    for folder, _, path in rows:
        for file in ("SKILL.md", "skill.md", "Skill.md", "SKILL.MD"):  # as extract.py reads them
            cat.stdin.write(f"{commit}:{path}/{file}\n".encode())
            cat.stdin.flush()
            header = cat.stdout.readline().decode()
            if not header.endswith("missing\n"):
                break
        else:
            continue
        data = cat.stdout.read(int(header.split()[2]))
        cat.stdout.read(1)
        out[folder] = body_of(data.decode("utf-8", "replace"))
    cat.stdin.close()
    cat.wait()
    return out


def with_bodies(name, found, into):
    """A copy of the set's workspace whose SKILL.md files hold the bodies `found` (by folder)."""
    ws = Path(into) / name
    shutil.copytree(SCALE / name, ws)
    for f in (ws / "skills").glob("*/SKILL.md"):
        text = f.read_text()
        f.write_text(text[:FRONTMATTER.match(text).end()] + "\n" + found.get(f.parent.name, ""))
    return ws


def built(skillc, ws, db):
    subprocess.run([skillc, "build", str(ws), "-o", str(db)], check=True, capture_output=True)
    return db


def index(db):
    with sqlite3.connect(db) as con:
        return con.execute("SELECT card, terms, meaning FROM card_route ORDER BY card").fetchall()


def measured(db, name):
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
    differ = []
    print("| set | bodies | recall@1 | recall@5 | MRR@5 | false fire | no candidate | uncut recall@1 "
          "| uncut recall@5 | small talk reaching a skill |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in sets:
        with tempfile.TemporaryDirectory() as tmp:
            found = bodies(mirrors, name)
            forms = {"none": with_bodies(name, {}, Path(tmp) / "none"), "words": SCALE / name,
                     f"original ({len(found)})": with_bodies(name, found, Path(tmp) / "original")}
            dbs = {label: built(skillc, ws, Path(tmp) / f"{label.split()[0]}.db")
                   for label, ws in forms.items()}
            words, original = (index(db) for label, db in dbs.items() if label != "none")
            if words != original:
                differ.append(f"{name}: {sum(a != b for a, b in zip(words, original))} cards")
            # The peer given the bodies too: BM25 over name, description and the original body.
            catalog = Artifact(str(dbs[next(iter(dbs.keys() - {"none", "words"}))])).catalog(fmt="json")
            body_by_name = {row[1]: found.get(row[0], "") for row in manifest(name)}
            for s in catalog["skills"]:
                s["description"] += " " + body_by_name.get(s["name"], "")
            peer = figures(labelled(SCALE / f"{name}.tsv"), names_of(baseline(catalog)))
            for label, db in dbs.items():
                (r1, r5, mrr, ff, empty), (u1, u5, *_), fired = measured(db, name)
                print(f"| {name} | {label} | {r1:.3f} | {r5:.3f} | {mrr:.3f} | {ff:.3f} | {empty:.3f} "
                      f"| {u1:.3f} | {u5:.3f} | {fired:.3f} |", flush=True)
            print(f"| {name} | BM25 over name, description and original body | "
                  + " | ".join(f"{x:.3f}" for x in peer) + " | | | |", flush=True)
    if differ:
        sys.exit("the committed words and the original bodies index differently: " + "; ".join(differ))


if __name__ == "__main__":
    main()
