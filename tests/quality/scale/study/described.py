"""What W132's fix is worth: composio-skills with each template description followed by one
sentence of what its app does, routed against the set as it is (docs/routing.md, "Quality
against a peer"; the set's README).

    python3 tests/quality/scale/study/described.py SKILLC

`composio-described.tsv` holds `name<TAB>sentence` for the 768 skills whose description is
"Automate <App> tasks via Rube MCP (Composio)…", written by a helper from the apps' names and
its own knowledge of them, who read nothing of the repository and saw none of the requests (38
sentences it marked UNSURE: guesses from the name; the mark is left out here). Each such
description becomes "<the template without its final stop>: <the sentence>", what a team
answering W132 would write. Both catalogs are routed with the same labelled requests; the
figures are those of `routing_quality.py` (the shipped route, its uncut ranking, BM25 and dense
alone), then recall@1 and @5 by block of the set.
"""

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
from routing_quality import labelled, measure  # noqa: E402

SET = REPO / "tests/quality/scale/composio-skills"
LABELS = REPO / "tests/quality/scale/composio-skills.tsv"
SENTENCES = Path(__file__).with_name("composio-described.tsv")
TEMPLATE = re.compile(r'^description: "(Automate .* tasks via Rube MCP .*)"$', re.M)


def described(into: Path) -> Path:
    """A copy of the set with the sentences after the template descriptions."""
    said = dict(line.rstrip("\n").split("\t", 1) for line in SENTENCES.open(encoding="utf-8"))
    shutil.copytree(SET, into)
    changed = 0
    for skill in into.glob("skills/*/SKILL.md"):
        text = skill.read_text(encoding="utf-8")
        name = re.search(r'^name: "?([^"\n]+)"?$', text, re.M).group(1)
        sentence = said.get(name, "").removeprefix("UNSURE: ").replace('"', "'")
        new = TEMPLATE.sub(lambda m: f'description: "{m.group(1).rstrip(".")}: {sentence}"', text, count=1)
        if sentence and new != text:
            skill.write_text(new, encoding="utf-8")
            changed += 1
    print(f"{changed} descriptions given a sentence of what their app does")
    return into


def by_block(artifact: Artifact):
    """Per block of the labelled set: (first, in the first five, messages)."""
    out, block = {}, None
    for line in LABELS.open(encoding="utf-8"):
        if line.startswith("# --- Block"):
            block = line.split()[3].rstrip(":")
            continue
        if line.startswith("#") or not line.strip():
            continue
        expected, message = line.rstrip("\n").split("\t", 1)
        names = [c["name"] for c in artifact.route(message)["candidates"]]
        row = out.setdefault(block, [0, 0, 0])
        row[2] += 1
        if expected == "-":
            row[0] += bool(names)
        else:
            want = set(expected.split("|"))
            row[0] += bool(names and names[0] in want)
            row[1] += bool(set(names[:5]) & want)
    return out


def main():
    skillc = sys.argv[1]
    messages = labelled(LABELS)
    with tempfile.TemporaryDirectory() as tmp:
        for title, workspace in (("as it is", SET), ("described", described(Path(tmp) / "described"))):
            print(f"== {title}")
            for ranking, row in measure(skillc, workspace, messages, False).items():
                cells = " ".join(f"{x:.3f}" for x in row) if isinstance(row, tuple) else f"{row:.3f}"
                print(f"{ranking:45s} {cells}")
            artifact_dir = Path(tmp) / f"artifact-{title.replace(' ', '-')}"
            artifact_dir.mkdir()
            subprocess.run([skillc, "build", str(workspace), "-o", str(artifact_dir / "a.db")],
                           check=True, capture_output=True)
            blocks = by_block(Artifact(str(artifact_dir / "a.db")))
            print("by block (first, first five, of):", {b: tuple(r) for b, r in blocks.items()})


if __name__ == "__main__":
    main()
