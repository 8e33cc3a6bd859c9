#!/usr/bin/env python3
"""Parity of `skillc check --strict-spec` with the reference validator `skills-ref validate`.

Each case is one skill folder. Both tools judge it (valid or not); the verdicts must agree,
except for the cases listed with a `differs` reason, where skills-ref is wrong (see
docs/diagnostics.md, "Differences from skills-ref"). Those cases assert that the two tools
really do disagree, so a fixed reference validator shows up here.

Usage: skills_ref_parity.py PATH/TO/skillc
"""

import json
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

from skills_ref.validator import validate  # what `skills-ref validate` runs

OK = "description: A test skill\n"


def fm(body: str) -> str:
    return f"---\n{body}---\nBody\n"


# (id, folder name, SKILL.md content, differs: reason or None)
# The first block mirrors the reference validator's own test cases.
CASES = [
    ("valid", "my-skill", fm("name: my-skill\n" + OK), None),
    ("uppercase", "MySkill", fm("name: MySkill\n" + OK), None),
    ("too-long", "a" * 70, fm(f"name: {'a' * 70}\n" + OK), None),
    ("leading-hyphen", "-my-skill", fm("name: -my-skill\n" + OK), None),
    ("consecutive-hyphens", "my--skill", fm("name: my--skill\n" + OK), None),
    ("underscore", "my_skill", fm("name: my_skill\n" + OK), None),
    ("folder-mismatch", "wrong-name", fm("name: correct-name\n" + OK), None),
    ("unexpected-field", "my-skill", fm("name: my-skill\n" + OK + "unknown_field: x\n"), None),
    ("all-fields", "my-skill", fm("name: my-skill\n" + OK + "license: MIT\nmetadata:\n  author: Test\n"), None),
    ("allowed-tools-string", "my-skill", fm("name: my-skill\n" + OK + "allowed-tools: Bash(jq:*) Bash(git:*)\n"), None),
    ("allowed-tools-block-list", "my-skill", fm("name: my-skill\n" + OK + "allowed-tools:\n  - Read\n  - Bash\n"), None),
    (
        "allowed-tools-inline-list",
        "my-skill",
        fm("name: my-skill\n" + OK + "allowed-tools: [Read, Write, Edit, Bash]\n"),
        "skills-ref 0.1.1 parses with strictyaml, which refuses flow-style lists; later "
        "skills-ref releases accept them, as skillc does (with warning W108)",
    ),
    (
        "allowed-tools-number",
        "my-skill",
        fm("name: my-skill\n" + OK + "allowed-tools: 123\n"),
        "strictyaml reads every scalar as a string, so 0.1.1 accepts a number; later "
        "skills-ref releases reject it, as skillc does (E010)",
    ),
    ("chinese-name", "技能", fm("name: 技能\ndescription: A skill with Chinese name\n"), None),
    ("russian-hyphens", "мой-навык", fm("name: мой-навык\n" + OK), None),
    ("russian-lowercase", "навык", fm("name: навык\n" + OK), None),
    ("russian-uppercase", "НАВЫК", fm("name: НАВЫК\n" + OK), None),
    ("description-too-long", "my-skill", fm("name: my-skill\ndescription: " + "x" * 1100 + "\n"), None),
    ("compatibility-ok", "my-skill", fm("name: my-skill\n" + OK + "compatibility: Requires Python 3.11+\n"), None),
    ("compatibility-too-long", "my-skill", fm("name: my-skill\n" + OK + "compatibility: " + "x" * 550 + "\n"), None),
    ("nfkc", "café", fm("name: cafe\u0301\n" + OK), None),
    # Further cases.
    ("missing-name", "my-skill", fm(OK), None),
    ("missing-description", "my-skill", fm("name: my-skill\n"), None),
    ("blank-description", "my-skill", fm("name: my-skill\ndescription: '   '\n"), None),
    ("no-frontmatter", "my-skill", "# Title\n", None),
    ("unclosed-frontmatter", "my-skill", "---\nname: my-skill\n" + OK, None),
    ("duplicate-key", "my-skill", fm("name: my-skill\n" + OK + "description: again\n"), None),
    ("numeric-name", "123", fm("name: 123\n" + OK), None),
    ("name-64-chars", "a" * 64, fm(f"name: {'a' * 64}\n" + OK), None),
    ("description-1024-chars", "my-skill", fm("name: my-skill\ndescription: " + "y" * 1024 + "\n"), None),
    ("trailing-hyphen", "my-skill-", fm("name: my-skill-\n" + OK), None),
    ("extension-field", "my-skill", fm("name: my-skill\n" + OK + "category: tools\n"), None),
    ("lowercase-skill-md", "my-skill", fm("name: my-skill\n" + OK), None),
    (
        "fence-inside-description",
        "my-skill",
        fm("description: a---b\nname: my-skill\n"),
        "skills-ref splits the file on the first `---` anywhere, so the frontmatter ends inside "
        "the description and `name` is lost; skillc matches fences as whole lines",
    ),
    (
        "nested-metadata",
        "my-skill",
        fm("name: my-skill\n" + OK + "metadata:\n  nested:\n    a: b\n"),
        "the specification defines metadata as a string-to-string map; skills-ref stringifies "
        "nested values instead of rejecting them",
    ),
    (
        "empty-compatibility",
        "my-skill",
        fm("name: my-skill\n" + OK + "compatibility: ''\n"),
        "the specification requires 1-500 characters when compatibility is given; skills-ref "
        "only checks the upper bound",
    ),
    (
        "byte-order-mark",
        "my-skill",
        "\ufeff" + fm("name: my-skill\n" + OK),
        "a UTF-8 byte-order mark is an editor artefact, not content: skillc ignores it with "
        "warning W101, skills-ref reports a missing frontmatter",
    ),
]


def skillc_verdict(skillc: str, workspace: Path) -> tuple[bool, list[str]]:
    out = subprocess.run(
        [skillc, "check", "--strict-spec", "--format", "json", str(workspace)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode not in (0, 1):
        raise SystemExit(f"skillc failed on {workspace}: {out.stderr}")
    report = json.loads(out.stdout)
    codes = [d["code"] for d in report["diagnostics"] if d["severity"] == "error"]
    return report["errors"] == 0, codes


def main() -> int:
    skillc = sys.argv[1] if len(sys.argv) > 1 else "skillc"
    agree = disagree_documented = 0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for case_id, folder, content, differs in CASES:
            workspace = Path(tmp) / case_id
            skill_dir = workspace / unicodedata.normalize("NFC", folder)
            skill_dir.mkdir(parents=True)
            name = "skill.md" if case_id == "lowercase-skill-md" else "SKILL.md"
            (skill_dir / name).write_text(content, encoding="utf-8")
            ref_errors = validate(skill_dir)
            ref_ok = not ref_errors
            ours_ok, codes = skillc_verdict(skillc, workspace)
            same = ref_ok == ours_ok
            mark = "agree" if same else "DIFFER"
            print(f"{case_id:28} skills-ref={'valid' if ref_ok else 'invalid':8} "
                  f"skillc={'valid' if ours_ok else 'invalid':8} {mark} {' '.join(codes)}")
            if same and differs is None:
                agree += 1
            elif not same and differs is not None:
                disagree_documented += 1
            elif same:
                failures.append(f"{case_id}: expected a documented difference, but both say "
                                f"{'valid' if ours_ok else 'invalid'} (skills-ref fixed?)")
            else:
                failures.append(f"{case_id}: skills-ref says {ref_errors or 'valid'}, "
                                f"skillc says {codes or 'valid'}")
    compared = to_prompt_parity(skillc)
    if len(compared) < 3:
        failures.append(f"only {len(compared)} to-prompt comparisons ran")
    for label, same, expected, got in compared:
        print(f"to-prompt ({label}): skillc catalog --format xml {'equals' if same else 'DIFFERS FROM'} skills-ref to-prompt")
        if same:
            agree += 1
        else:
            failures.append(f"to-prompt differs on {label}:\n--- skills-ref\n{expected}\n--- skillc\n{got}")
    exported = export_parity(skillc)
    bad = [(b, n, e) for b, n, e in exported if e]
    print(f"export: {len(exported) - len(bad)} of {len(exported)} exported folders pass skills-ref validate")
    agree += len(exported) - len(bad)
    # Counts are part of the result: an export of nothing must not pass as "0 of 0".
    if len(exported) < 150:
        failures.append(f"export wrote {len(exported)} folders; the sample's four bundles give 157")
    failures.extend(f"export {b}: {n}: {e}" for b, n, e in bad)
    targeted = target_export_parity(skillc)
    bad = [(b, n, e) for b, n, e in targeted if e]
    print(f"export --target: {len(targeted) - len(bad)} of {len(targeted)} folders pass skills-ref validate")
    agree += len(targeted) - len(bad)
    if len(targeted) < 5 * 37 + 8 + 2 * len(DASHES):
        failures.append(f"export --target wrote {len(targeted)} folders; five targets of the sample (37 skills), a marketplace (8) and two of the dashes workspace ({len(DASHES)}) give {5 * 37 + 8 + 2 * len(DASHES)}")
    failures.extend(f"export {b}: {n}: {e}" for b, n, e in bad)
    print(f"\n{agree} agree, {disagree_documented} documented differences, {len(failures)} failures")
    for f in failures:
        print("FAIL", f)
    print(f"{agree + disagree_documented} passed, {len(failures)} failed")
    return 1 if failures else 0



def skill_dirs(ws):
    """The skill folders a user of skills-ref would hand it: every folder with a SKILL.md,
    hidden folders left out, a symlinked alias read once (under its real path), none inside
    another skill."""
    found = {}
    for p in sorted(ws.rglob("SKILL.md")):
        rel = p.parent.relative_to(ws)
        if any(part.startswith(".") for part in rel.parts):
            continue
        real = p.parent.resolve()
        if real not in found or p.parent == real:
            found[real] = p.parent
    dirs = sorted(found.values(), key=lambda d: d.name)
    return [d for d in dirs if not any(o != d and o in d.parents for o in dirs)]


def check_summary(skillc, ws):
    """The last line of `skillc check` and the codes it reported."""
    out = subprocess.run([skillc, "check", str(ws), "--format", "json"], capture_output=True,
                         text=True, check=False)
    report = json.loads(out.stdout)
    return report["errors"], sorted({d["code"] for d in report["diagnostics"]})


def xml_matches_to_prompt(skillc, ws, tmp):
    """Builds `ws` and compares its xml catalog with `skills-ref to-prompt` on its folders."""
    from skills_ref.prompt import to_prompt

    from skills_ref.parser import read_properties

    dirs, unreadable = [], set()
    for d in skill_dirs(ws):
        try:
            read_properties(d)
            dirs.append(d)
        except Exception:  # strictyaml refuses flow lists and mappings that YAML allows
            unreadable.add(d.name)
    expected = to_prompt(dirs)
    for d in dirs:
        expected = expected.replace(str((d / "SKILL.md").resolve()), str((d / "SKILL.md").relative_to(ws)))
    out = Path(tmp) / "out.db"
    built = subprocess.run([skillc, "build", str(ws), "-o", str(out)], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        return False, "(builds)", built.stderr
    got = subprocess.run([skillc, "catalog", str(out), "--format", "xml"],
                         capture_output=True, text=True, check=True).stdout.rstrip("\n")
    # Skills that skills-ref cannot read are in skillc's catalog; compare the others.
    blocks = got.split("<skill>\n")
    kept = [b for b in blocks[1:] if b.split("\n")[1] not in unreadable]
    missing = unreadable - {b.split("\n")[1] for b in blocks[1:]}
    got = "<skill>\n".join([blocks[0]] + kept)
    if missing:
        return False, f"skills {sorted(unreadable)} in the catalog", got
    return got == expected, expected, got


def to_prompt_parity(skillc):
    """`skillc catalog --format xml` against `skills-ref to-prompt` on the same folders: a small
    made-up tree, and a tree laid out like a public collection (tests/public-collection)."""
    skills = {
        "alpha": 'description: "Quotes \\"double\\" and \'single\', <tags> & ampersands"\n',
        "beta-tool": "description: |\n  A block description\n  on two lines.\nlicense: MIT\n",
        "gamma": "description: >-\n  Folded text that\n  becomes one line.\n",
        "delta": "description: Plain text, with a colon-free summary.\nmetadata:\n  version: '1.0'\n",
    }
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        for name, fields in skills.items():
            d = ws / name
            d.mkdir(parents=True)
            (d / "SKILL.md").write_text(f"---\nname: {name}\n{fields}---\nBody of {name}.\n")
            (d / "scripts").mkdir()
            (d / "scripts" / "run.py").write_text("print('hi')\n")
        results.append(("made-up tree",) + xml_matches_to_prompt(skillc, ws, tmp))
    # Each collection checks with 0 errors and exactly the warnings its shapes call for.
    tests = Path(__file__).resolve().parents[1]
    for name, warnings in [
        # S102: a description holds markup (`<html>`), which skills-ref does not look at.
        ("public-collection", ["S102"]),
        ("public-collection-2", ["P202", "P203", "P205", "W108", "W115", "W116"]),
    ]:
        collection = tests / name / "skills"
        errors, codes = check_summary(skillc, collection)
        if errors or codes != warnings:
            results.append((f"{name} check", False, f"0 errors, warnings {warnings}",
                            f"{errors} errors, codes {codes}"))
        with tempfile.TemporaryDirectory() as tmp:
            results.append((f"{name} layout",) + xml_matches_to_prompt(skillc, collection, tmp))
    return results


def export_parity(skillc):
    """`skillc export` of the sample's bundles: every folder passes `skills-ref validate`."""
    from skills_ref.validator import validate as ref_validate

    sample = Path(__file__).resolve().parents[2] / "skills"
    bundles = [[], ["--client", "hyperline.co"], ["--client", "ibanfirst.com", "--locale", "fr"],
               ["--client", "augment.org", "--tier", "fast"]]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sample.db"
        subprocess.run([skillc, "build", str(sample), "-o", str(out)], capture_output=True, check=True)
        for i, flags in enumerate(bundles):
            target = Path(tmp) / f"export-{i}"
            subprocess.run([skillc, "export", str(out), *flags, "-o", str(target)], capture_output=True, check=True)
            for d in sorted(target.iterdir()):
                results.append((" ".join(flags) or "global", d.name, ref_validate(d)))
    return results


# Texts holding `---`, which skills-ref takes for the end of the frontmatter wherever it is: an
# export must never write one inside a value (issue 47, item 21).
DASHES = {
    "whole": ("description: 'Use it: and a---b stays whole'\n", "Use it: and a---b stays whole"),
    "plain": ("description: and a---b stays whole\ntrigger_examples: [\"x---y\"]\n", "and a---b stays whole"),
    "dashes": ("description: \"----- rules ---\"\nlicense: MIT---ish\n", "----- rules ---"),
    "block": ("description: |\n  First line.\n  ---\n  After a rule.\n", "First line.\n---\nAfter a rule."),
}


def dashes_workspace(ws):
    """A workspace whose descriptions, license and trigger examples hold runs of dashes."""
    for name, (fields, _) in DASHES.items():
        d = ws / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\n{fields}---\nBody --- of {name}.\n")
    return ws


TARGETS = {"claude-code": ".claude/skills", "codex": ".agents/skills", "gemini": ".gemini/skills",
           "copilot": ".github/skills", "agents": ".agents/skills"}

# The fields a client reads beyond the portable six, which `export --target` writes for it on
# purpose (docs/targets.md): skills-ref validates the portable core and refuses them, so a
# refusal naming only these is the client's format, not a fault.
CLIENT_FIELDS = {
    "claude-code": {"disable-model-invocation", "when_to_use", "user-invocable", "argument-hint",
                    "arguments", "model", "effort", "context", "agent", "paths", "hooks", "shell",
                    "disallowed-tools", "background"},
    "copilot": {"argument-hint", "user-invocable"},
    "cursor": {"disable-model-invocation"},
}


def beyond_client_fields(target, errors):
    """The errors left once a refusal of only the target's own fields is set aside."""
    allowed = CLIENT_FIELDS.get(target, set())
    kept = []
    for e in errors:
        prefix = "Unexpected fields in frontmatter: "
        if e.startswith(prefix):
            named = {f.strip() for f in e[len(prefix):].split(".")[0].split(",")}
            if named <= allowed:
                continue
        kept.append(e)
    return kept


def target_export_parity(skillc):
    """`skillc export --target` for every client tool, of the sample's global bundle and of a
    plugin marketplace (names `<plugin>:<skill>` made portable) and of texts holding `---`:
    every folder written where
    that tool reads skills passes `skills-ref validate`."""
    from skills_ref.parser import read_properties
    from skills_ref.validator import validate as ref_validate

    tests = Path(__file__).resolve().parents[1]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        workspaces = [("sample", tests.parent / "skills", list(TARGETS)),
                      ("marketplace", tests / "fixtures" / "plugin-marketplace" / "workspace", ["claude-code"]),
                      ("dashes", dashes_workspace(Path(tmp) / "dashes"), ["claude-code", "agents"])]
        for label, ws, targets in workspaces:
            out = Path(tmp) / f"{label}.db"
            subprocess.run([skillc, "build", str(ws), "-o", str(out)], capture_output=True, check=True)
            for target in targets:
                project = Path(tmp) / f"{label}-{target}"
                done = subprocess.run([skillc, "export", str(out), "--target", target, "-o", str(project)],
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    results.append((f"{label} --target {target}", "(export)", [done.stderr]))
                    continue
                for d in sorted((project / TARGETS[target]).iterdir()):
                    errors = beyond_client_fields(target, ref_validate(d))
                    # Valid is not enough: the description skills-ref reads must be the whole one.
                    if label == "dashes" and not errors:
                        read = read_properties(d).description
                        if read != DASHES[d.name][1]:
                            errors = [f"skills-ref reads the description {read!r}"]
                    results.append((f"{label} --target {target}", d.name, errors))
    return results


if __name__ == "__main__":
    sys.exit(main())
