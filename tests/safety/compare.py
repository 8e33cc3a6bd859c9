#!/usr/bin/env python3
"""skillc's content-safety rules side by side with cisco-ai-skill-scanner, on the same folders.

Runs `skillc check ROOT --format json --no-cache` and the peer's `skill-scanner scan-all ROOT
--recursive` (its analyzers that need neither an LLM nor the network: static, bytecode, pipeline,
behavioral, trigger) over
- the labelled corpus beside this file (hostile/ and clean/, copied to a temporary folder where
  make_binaries.py writes the generated files), and
- the clean public collections the project already tests against,
then prints a Markdown report: hostile cases found, per-technique misses, clean skills flagged at
high or critical, and the wall time of each tool (median of --repeat runs) with their ratio.

A skill counts as found when a tool reports a security finding above "info" in it: for skillc, a
diagnostic whose code starts with `S`; for the peer, a finding whose severity is not INFO.
A skill counts as flagged at high/critical when such a finding is HIGH or CRITICAL (skillc: the
JSON field `safety`).

--check exits 1 when skillc misses a hostile case, flags a tricky-clean case at high/critical, or
flags more than 1% of the public collections' skills at high/critical. Exit 2: bad usage or a tool
that fails to run (missing binary, unreadable output), with the reason on stderr.

Usage: compare.py [--skillc PATH] [--peer PATH | --no-peer] [--peer-corpus-only] [--repeat N] [--check]
                  [--per-case]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PEER_PACKAGE = "cisco-ai-skill-scanner"
PEER_VERSION = "2.3.2"  # pinned: the figures in README.md were measured with it
PEER_ANALYZERS = ["--use-behavioral", "--use-trigger"]  # the default static ones run as well
HIGH = {"high", "critical"}
MAX_PUBLIC_FLAGGED = 0.01  # SPEC 14.3: at most 1% of reputable collections' skills high/critical
TIMEOUT = 900  # seconds for one tool on one folder: a hang becomes a failure, never a stall


def public_collections():
    """(label, folder) of every clean collection committed in the repository."""
    roots = [("public-collection", REPO / "tests/public-collection/skills"),
             ("public-collection-2", REPO / "tests/public-collection-2/skills")]
    for d in sorted((REPO / "tests/quality/scale").glob("*/skills")):
        roots.append((f"scale/{d.parent.name}", d))
    roots.append(("skills (sample workspace)", REPO / "skills"))
    return [(n, d) for n, d in roots if d.is_dir()]


class ToolError(Exception):
    """A tool could not be run or its output not read."""


@dataclass
class Finding:
    skill: str  # the skill folder, relative to the scanned root
    code: str
    level: str  # low | medium | high | critical
    where: str  # file:line


@dataclass
class Run:
    findings: list = field(default_factory=list)
    seconds: list = field(default_factory=list)


def skill_dirs(root: Path):
    """Every folder under root holding a SKILL.md, relative to root, deepest first."""
    found = [p.parent.relative_to(root).as_posix() for p in root.rglob("SKILL.md")]
    return sorted(found, key=lambda s: (-s.count("/"), s))


def owner(path: str, skills):
    """The skill folder a file belongs to (the deepest one containing it), or None."""
    for s in skills:
        if s == "." or path == s or path.startswith(s + "/"):
            return s
    return None


def timed(cmd, offline):
    """(seconds, completed process) of cmd, under a network-less namespace when offline."""
    full = (["unshare", "-n"] if offline else []) + cmd
    start = time.perf_counter()
    try:
        proc = subprocess.run(full, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise ToolError(f"`{' '.join(cmd)}` did not finish in {TIMEOUT} s") from e
    except OSError as e:
        raise ToolError(f"cannot run `{cmd[0]}`: {e}") from e
    return time.perf_counter() - start, proc


def run_skillc(skillc, root: Path, offline):
    seconds, proc = timed([str(skillc), "check", str(root), "--format", "json", "--no-cache"], offline)
    if proc.returncode not in (0, 1):
        raise ToolError(f"skillc check {root} exited {proc.returncode}: {proc.stderr.strip()[:500]}")
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise ToolError(f"skillc check {root}: output is not JSON ({e})") from e
    skills = skill_dirs(root)
    findings = []
    for d in report.get("diagnostics", []):
        if not str(d.get("code", "")).startswith("S"):
            continue
        skill = owner(d.get("file", ""), skills) or "?"
        findings.append(Finding(skill, d["code"], str(d.get("safety", "low")).lower(),
                                f"{d.get('file')}:{d.get('line')}"))
    return seconds, findings


def run_peer(peer, root: Path, offline, scratch: Path):
    out = scratch / "peer.json"
    out.unlink(missing_ok=True)
    cmd = [str(peer), "scan-all", str(root), "--recursive", *PEER_ANALYZERS, "--format", "json", "-o", str(out)]
    seconds, proc = timed(cmd, offline)
    if not out.exists():
        raise ToolError(f"skill-scanner on {root} wrote no report (exit {proc.returncode}): "
                        f"{(proc.stderr or proc.stdout).strip()[-500:]}")
    try:
        report = json.loads(out.read_text())
    except json.JSONDecodeError as e:
        raise ToolError(f"skill-scanner on {root}: report is not JSON ({e})") from e
    findings = []
    for result in report.get("results", []):
        skill = Path(result["skill_path"]).resolve().relative_to(root.resolve()).as_posix()
        for f in result.get("findings", []):
            level = str(f.get("severity", "INFO")).lower()
            if level == "info" or level == "safe":
                continue
            findings.append(Finding(skill, f.get("rule_id", "?"), level,
                                    f"{f.get('file_path')}:{f.get('line_number')}"))
    return seconds, findings


def load_labels():
    rows = []
    with open(HERE / "labels.tsv", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


def check_labels(rows, corpus: Path):
    """Each labelled payload file exists and has the labelled line: a stale label is a bug."""
    problems = []
    for r in rows:
        rel = r["file"].replace("<cache_tag>", sys.implementation.cache_tag)
        path = corpus / r["label"] / r["case"] / rel
        if not path.is_file():
            problems.append(f"{r['case']}: labelled file {rel} does not exist")
            continue
        if r["line"] != "1":
            lines = path.read_bytes().count(b"\n") + 1
            if int(r["line"]) > lines:
                problems.append(f"{r['case']}: {rel} has {lines} lines, label says {r['line']}")
    return problems


def prepare_corpus(scratch: Path) -> Path:
    corpus = scratch / "corpus"
    for part in ("hostile", "clean"):
        shutil.copytree(HERE / part, corpus / part, ignore=shutil.ignore_patterns(*GENERATED_IGNORE))
    proc = subprocess.run([sys.executable, str(HERE / "make_binaries.py"), str(corpus)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolError(f"make_binaries.py failed: {proc.stderr.strip()}")
    return corpus


# What make_binaries.py writes, left out of the copy so the run never depends on a stale file.
GENERATED_IGNORE = ["__pycache__", "*.docx", "*.xlsm", "*.zip", "fsearch", "*.dll", "warm.sh", "*.png", "*.gif"]


def measure(tools, roots, repeat, offline, scratch, skip=None):
    """{tool: {root label: Run}}; every tool runs every root `repeat` times, but the roots
    `skip` names for it ({tool: labels})."""
    results = {name: {} for name in tools}
    for label, root in roots:
        for name, fn in tools.items():
            if label in (skip or {}).get(name, ()):
                continue
            run = Run()
            for _ in range(repeat):
                seconds, findings = fn(root)
                run.seconds.append(seconds)
                run.findings = findings
            results[name][label] = run
            print(f"  {name:8} {label}: {len(set(f.skill for f in run.findings))} skills with findings, "
                  f"{statistics.median(run.seconds):.2f} s", file=sys.stderr)
    return results


def flagged_high(findings):
    return {f.skill for f in findings if f.level in HIGH}


def found(findings):
    return {f.skill for f in findings}


def pct(n, d):
    return f"{n} ({100.0 * n / d:.1f}%)" if d else "0"


def tool_version(peer):
    try:
        out = subprocess.run([str(peer), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolError(f"cannot run the peer `{peer}`: {e}") from e
    return out.strip().split()[-1] if out.strip() else "?"


def family(case):
    return case.split("-")[0].upper() if case[0] == "s" else "evasion"


def report(res, labels, collections, tools, meta):
    """The Markdown report and the list of --check failures."""
    hostile = [r for r in labels if r["label"] == "hostile"]
    clean = [r for r in labels if r["label"] == "clean"]
    names = list(tools)
    out = [f"## Content safety: skillc and {PEER_PACKAGE} side by side", "", meta, ""]
    out += ["| measure | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]

    def row(title, fn):
        out.append(f"| {title} | " + " | ".join(fn(n) for n in names) + " |")

    row(f"hostile cases found (of {len(hostile)})",
        lambda n: str(len(found(res[n]["hostile"].findings) & {r['case'] for r in hostile})))
    row("... with an expected S code", lambda n: expected_hits(res[n]["hostile"].findings, hostile) if n == "skillc" else "n/a")
    row("... at the labelled file and line", lambda n: located_hits(res[n]["hostile"].findings, hostile) if n == "skillc" else "n/a")
    row(f"tricky-clean cases flagged high/critical (of {len(clean)})",
        lambda n: pct(len(flagged_high(res[n]["clean"].findings)), len(clean)))
    total = sum(c[2] for c in collections)
    for label, _, count in collections:
        row(f"{label}: skills flagged high/critical (of {count})",
            lambda n, label=label, count=count: pct(len(flagged_high(res[n][label].findings)), count)
            if label in res[n] else "not run")
    row(f"all public collections: skills flagged high/critical (of {total})",
        lambda n: pct(sum(len(flagged_high(res[n][c[0]].findings)) for c in collections), total)
        if all(c[0] in res[n] for c in collections) else "not run")
    # Times over the folders every tool ran, so that the ratio compares the same work.
    common = set.intersection(*(set(res[n]) for n in names))
    times = {n: sum(statistics.median(r.seconds) for k, r in res[n].items() if k in common) for n in names}
    every = "every folder above" if all(len(res[n]) == len(common) for n in names) else "the folders both ran"
    row(f"wall time, {every} (median of runs, s)", lambda n: f"{times[n]:.2f}")
    if len(names) == 2 and times[names[0]] > 0:
        row(f"time ratio ({names[1]} / {names[0]})", lambda n: f"{times[names[1]] / times[names[0]]:.0f}×" if n == names[0] else "")
    out += ["", "### Per technique (hostile cases found)", ""]
    out += ["| family | cases | " + " | ".join(names) + " |", "| --- | --- |" + " --- |" * len(names)]
    fams = sorted({family(r["case"]) for r in hostile}, key=lambda f: (f == "evasion", f))
    for fam in fams:
        cases = {r["case"] for r in hostile if family(r["case"]) == fam}
        out.append(f"| {fam} | {len(cases)} | " + " | ".join(
            str(len(found(res[n]["hostile"].findings) & cases)) for n in names) + " |")
    out += ["", "### Misses and false alarms", ""]
    for n in names:
        missed = sorted({r["case"] for r in hostile} - found(res[n]["hostile"].findings))
        out.append(f"- {n} missed ({len(missed)}): " + (", ".join(f"`{c}`" for c in missed) or "none"))
        if n == "skillc":
            off = [r["case"] for r in hostile if r["case"] in found(res[n]["hostile"].findings)
                   and not set(r["codes"].split(",")) & {f.code for f in res[n]["hostile"].findings
                                                         if f.skill == r["case"]}]
            out.append(f"- {n} found without an expected code ({len(off)}): "
                       + (", ".join(f"`{c}`" for c in off) or "none"))
        fp = sorted(flagged_high(res[n]["clean"].findings))
        out.append(f"- {n} flagged tricky-clean at high/critical: " + (", ".join(
            f"`{c}` ({', '.join(sorted({f.code for f in res[n]['clean'].findings if f.skill == c and f.level in HIGH}))})"
            for c in fp) or "none"))
        for label, _, _ in collections:
            fl = sorted(flagged_high(res[n][label].findings)) if label in res[n] else []
            if fl:
                out.append(f"- {n} flagged in {label}: " + ", ".join(f"`{c}`" for c in fl[:20])
                           + (f" and {len(fl) - 20} more" if len(fl) > 20 else ""))
    return out, check_failures(res, hostile, clean, collections)


def expected_hits(findings, hostile):
    hits = sum(1 for r in hostile if set(r["codes"].split(",")) & {f.code for f in findings if f.skill == r["case"]})
    return str(hits)


def located_hits(findings, hostile):
    """Cases with a finding at the payload's labelled file and line (any line for a binary file)."""
    hits = 0
    for r in hostile:
        rel = r["file"].replace("<cache_tag>", sys.implementation.cache_tag)
        want = f"{r['case']}/{rel}:"
        wheres = [f.where for f in findings if f.skill == r["case"]]
        if any(w == want + r["line"] or (family(r["case"]) == "S501" and w.startswith(want)) for w in wheres):
            hits += 1
    return str(hits)


def check_failures(res, hostile, clean, collections):
    if "skillc" not in res:
        return []
    s = res["skillc"]
    fails = []
    missed = sorted({r["case"] for r in hostile} - found(s["hostile"].findings))
    if missed:
        fails.append(f"skillc missed {len(missed)} hostile case(s): {', '.join(missed)}")
    fp = sorted(flagged_high(s["clean"].findings))
    if fp:
        fails.append(f"skillc flagged tricky-clean case(s) at high/critical: {', '.join(fp)}")
    total = sum(c[2] for c in collections)
    flagged = sum(len(flagged_high(s[c[0]].findings)) for c in collections)
    if total and flagged / total > MAX_PUBLIC_FLAGGED:
        fails.append(f"skillc flagged {flagged} of {total} public-collection skills at high/critical (> 1%)")
    return fails


def per_case(res, labels, names):
    out = ["", "### Per case", "", "| case | label | expected | " + " | ".join(names) + " |",
           "| --- | --- | --- |" + " --- |" * len(names)]
    for r in labels:
        cells = []
        for n in names:
            fs = [f for f in res[n][r["label"]].findings if f.skill == r["case"]]
            # skillc's cells carry the place too, to compare with the label's file and line.
            at = (lambda f: "@" + f.where.split("/", 1)[-1]) if n == "skillc" else (lambda f: "")
            cells.append(", ".join(sorted({f"{f.code}:{f.level}{at(f)}" for f in fs})) or "-")
        out.append(f"| {r['case']} | {r['label']} | {r['codes'] or '-'} | " + " | ".join(cells) + " |")
    return out


def default_peer():
    venv = REPO / ".venv-peer/bin/skill-scanner"
    return str(venv) if venv.exists() else (shutil.which("skill-scanner") or "")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skillc", default=str(REPO / "target/debug/skillc"))
    ap.add_argument("--peer", default=None, help="the peer's skill-scanner (default: .venv-peer/bin or PATH)")
    ap.add_argument("--no-peer", action="store_true", help="measure skillc alone")
    ap.add_argument("--peer-corpus-only", action="store_true",
                    help="run the peer on the labelled corpus only, not on the public collections")
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool and folder; the median time is shown")
    ap.add_argument("--check", action="store_true", help="exit 1 when skillc misses or over-flags (see above)")
    ap.add_argument("--per-case", action="store_true", help="also print every case's findings per tool")
    ap.add_argument("--online", action="store_true", help="do not cut the network off (unshare -n) around the tools")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    return args


def offline_available():
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def main():
    args = parse_args()
    skillc = Path(args.skillc)
    if not skillc.is_file():
        print(f"compare.py: no skillc binary at {skillc} (build it, or pass --skillc PATH)", file=sys.stderr)
        return 2
    peer = None if args.no_peer else (args.peer or default_peer())
    if peer == "" or (peer and not Path(peer).exists() and not shutil.which(peer)):
        print(f"compare.py: the peer skill-scanner was not found ({peer or 'not on PATH'}); install it with\n"
              f"  python3 -m venv .venv-peer && .venv-peer/bin/pip install {PEER_PACKAGE}=={PEER_VERSION}\n"
              "or pass --peer PATH, or --no-peer to measure skillc alone", file=sys.stderr)
        return 2
    offline = not args.online and offline_available()
    with tempfile.TemporaryDirectory(prefix="skillc-safety-") as tmp:
        scratch = Path(tmp)
        try:
            return compare(args, skillc, peer, offline, scratch)
        except ToolError as e:
            print(f"compare.py: {e}", file=sys.stderr)
            return 2


def compare(args, skillc, peer, offline, scratch):
    corpus = prepare_corpus(scratch)
    labels = load_labels()
    problems = check_labels(labels, corpus)
    if problems:
        print("compare.py: labels.tsv does not match the corpus:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    collections = [(n, d, len(skill_dirs(d))) for n, d in public_collections()]
    roots = [("hostile", corpus / "hostile"), ("clean", corpus / "clean")] + [(n, d) for n, d, _ in collections]
    tools = {"skillc": lambda root: run_skillc(skillc, root, offline)}
    version = None
    if peer:
        version = tool_version(peer)
        tools["skill-scanner"] = lambda root: run_peer(peer, root, offline, scratch)
    # --peer-corpus-only: the peer on the labelled corpus alone (CI: its run over the public
    # collections, four minutes on two cores, only fills the report; --check reads skillc's).
    skip = {"skill-scanner": {n for n, _, _ in collections}} if args.peer_corpus_only else None
    res = measure(tools, roots, args.repeat, offline, scratch, skip)
    meta = (f"skillc: `{skillc}`; peer: " + (f"{PEER_PACKAGE} {version} (analyzers: static, bytecode, pipeline, "
            f"behavioral, trigger; no LLM)" if peer else "not run")
            + f"; network for the tools: {'cut off (unshare -n)' if offline else 'left on'}; runs per folder: "
            f"{args.repeat}; {len([r for r in labels if r['label'] == 'hostile'])} hostile and "
            f"{len([r for r in labels if r['label'] == 'clean'])} tricky-clean cases.")
    if peer and version != PEER_VERSION:
        meta += f" Warning: the peer is {version}, the figures in README.md are for {PEER_VERSION}."
    lines, fails = report(res, labels, collections, tools, meta)
    if args.per_case:
        lines += per_case(res, labels, list(tools))
    print("\n".join(lines))
    if args.check and fails:
        print("\ncompare.py --check failed:\n  " + "\n  ".join(fails), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
