#!/usr/bin/env python3
"""Run-time figures (the README's Performance table) measured in one run on one workspace:

- the Python runtime's catalog (standard library only, reading the artifact) against
  `skills-ref to-prompt` building the same catalog from the skill folders;
- `skillc check` over the whole workspace against `skills-ref validate` over its global skills;
- the Python runtime's route of a message in a client's catalog, warm (target 3 ms), with numpy
  and without it.

Usage: bench.py WORKSPACE ARTIFACT SKILLC
"""

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from skillc_runtime import Artifact  # noqa: E402


def timed(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def quantile(xs, q):
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def misspelt(message):
    """`message` with the second and third letters of each word of 5 letters or more swapped."""
    return " ".join(w[0] + w[2] + w[1] + w[3:] if len(w) >= 5 else w for w in message.split())


def route_figures(artifact, client):
    """Warm routes in the first client's catalog: each message a few words of a skill's
    description (what a visitor's words look like to the index), and one matching nothing;
    with numpy when it is installed, and with the standard library alone."""
    from skillc_runtime import _meaning

    numpy = _meaning._numpy
    for name, kind in (("numpy", numpy), ("the standard library alone", None)):
        if name == "numpy" and numpy is None:
            print("numpy is not installed: routes with the standard library alone only")
            continue
        _meaning._numpy = kind
        try:
            rt = Artifact(artifact)
            skills = rt.catalog(client=client, fmt="json")["skills"]
            messages = [" ".join(s["description"].split()[:6]) for s in skills[::50]] + ["bananas and kiwis"]
            for label, asked in (("", messages), (", every word of 5 letters or more misspelt", list(map(misspelt, messages)))):
                for m in asked:
                    rt.route(m, client=client)
                times = []
                for _ in range(20):
                    for m in asked:
                        t = time.perf_counter()
                        rt.route(m, client=client)
                        times.append(time.perf_counter() - t)
                print(f"route in {client}'s catalog ({len(skills)} skills), warm, {len(asked)} messages{label}, "
                      f"{name}: p50 {quantile(times, 0.5) * 1000:.2f} ms, p99 {quantile(times, 0.99) * 1000:.2f} ms   "
                      f"target <= 3 ms")
        finally:
            _meaning._numpy = numpy


def main():
    workspace, artifact, skillc = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    clients = sorted(p.name for p in (workspace / "clients").iterdir()) if (workspace / "clients").is_dir() else []
    route_figures(artifact, clients[0] if clients else None)
    try:
        from skills_ref.prompt import to_prompt
        from skills_ref.validator import validate
    except ImportError:
        print("skills-ref is not installed (pip install skills-ref): Python comparison skipped")
        return 0
    dirs = sorted(p.parent for p in (workspace / "public").rglob("SKILL.md"))
    ref = timed(lambda: to_prompt(dirs), 3)
    cold = timed(lambda: Artifact(artifact).catalog(fmt="xml"), 5)
    warm_rt = Artifact(artifact)
    warm_rt.catalog(fmt="xml")
    warm = timed(lambda: warm_rt.catalog(fmt="xml"), 20)
    n = len(Artifact(artifact).catalog(fmt="xml")["skills"])
    print(f"catalog of {len(dirs)} global skills ({n} shown):")
    print(f"  skills-ref to-prompt from folders: median {ref * 1000:.1f} ms")
    print(f"  Python runtime from the artifact:  median {cold * 1000:.1f} ms cold (open + load + render), "
          f"{warm * 1000:.2f} ms warm")
    print(f"  ratio: {ref / cold:.0f}x cold, {ref / warm:.0f}x warm   target >= 100x")
    validate_all = lambda: [validate(d) for d in dirs]
    ref_check = timed(validate_all, 3)
    check = lambda *flags: subprocess.run([skillc, "check", str(workspace), *flags], capture_output=True, check=False)
    fresh = timed(lambda: check("--no-cache"), 3)
    check()  # keeps the result in .skillc/check-cache.json
    ours = timed(check, 5)
    total = sum(1 for _ in workspace.rglob("SKILL.md"))
    print(f"validation: skills-ref validate over {len(dirs)} global skills: median {ref_check:.2f} s; "
          f"skillc check over the whole workspace ({total} skills, one process): median {ours * 1000:.0f} ms "
          f"with its kept result, {fresh:.2f} s with --no-cache")
    without = ref_check / fresh  # under 10 to a tenth: 1.5x, not 1x
    print(f"  ratio: {ref_check / ours:.0f}x with the cache, {without:.{1 if without < 10 else 0}f}x without   "
          f"target >= 20x (skills-ref called in-process, its fastest)")
    # As a user runs it: the `skills-ref validate` command takes one folder per run.
    sample = dirs[:20]
    cli = [sys.executable, "-c", "from skills_ref.cli import main; main()", "validate"]
    per_run = timed(lambda: [subprocess.run([*cli, str(d)], capture_output=True, check=False) for d in sample], 1) / len(sample)
    print(f"  the skills-ref validate command, one run per folder: {per_run * 1000:.0f} ms a folder, "
          f"so {per_run * len(dirs):.0f} s for {len(dirs)} folders: {per_run * len(dirs) / ours:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
