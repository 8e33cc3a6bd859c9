#!/usr/bin/env python3
"""The Java runtime (compiler/runtime/java) against `skillc`, through their command lines.

Every request of the TypeScript parity run (bundles, contexts, consumers, the four catalog
formats, selections, routes as JSON and text, requests that must fail, and, given HYBRID, hybrid
routes and refused query vectors) is asked of `skillc` and of the Java runtime's `Cli`: standard
output and exit status must be byte for byte the same, and the error message too on failure.

The Java answers come from one JVM (ParityDriver runs `Cli.run` per request); a few requests
also run as real `java` processes, so that the command's own entry point is compared too.
Usage: java_runtime_parity.py SKILLC ARTIFACT [HYBRID]   (SKILLC_JAVA_JAR: another jar answers)
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from requests_of_parity import answer, asked_and_answered, driver_answers, report  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
JAVA = ROOT / "compiler" / "runtime" / "java"
JDBC = "/usr/share/java/sqlite-jdbc.jar"


def main():
    # The jar, and the test classes where the driver is (compiled, not run). SKILLC_JAVA_JAR:
    # an installed copy of the jar answers (tests/packaging/runtimes.sh), not the build's.
    subprocess.run(["bash", str(JAVA / "build.sh")], check=True, stdout=subprocess.DEVNULL)
    jar = Path(os.environ.get("SKILLC_JAVA_JAR") or JAVA / "target" / "skillc-runtime-0.1.0.jar")
    print(f"runtime: {jar}")
    driver = JAVA / "target" / "test-classes"
    folder = tempfile.mkdtemp()
    asked, rust = asked_and_answered(sys.argv[1:], folder)
    java = driver_answers(["java", "-cp", f"{driver}:{jar}:{JDBC}", "dev.skillc.runtime.ParityDriver"], asked)
    # The command itself, as a process: its entry point, exit status and output encoding.
    processes = [a for a in asked if a[0] == "catalog"][:3] + [a for a in asked if a[0] == "route"][-2:] + asked[-1:]
    for args in processes:
        k = asked.index(args)
        if answer(["java", "-cp", f"{jar}:{JDBC}", "dev.skillc.runtime.Cli", *args]) != java[k]:
            java[k] = (-1, b"the command's process answered otherwise than Cli.run", b"")
    shutil.rmtree(folder, ignore_errors=True)
    return report(asked, rust, java, "java")


if __name__ == "__main__":
    sys.exit(main())
