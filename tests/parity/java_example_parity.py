#!/usr/bin/env python3
"""The Java example of docs/artifact.md against `skillc catalog`, byte for byte.

Compiles docs/examples/java/SkillcCatalog.java against Debian's sqlite-jdbc, runs it on a handful
of requests (clients, locales, tiers, consumers, contexts; xml, markdown and list) and compares
its output with `skillc catalog`'s. Also checks that the catalog query the example runs is the
one the page documents. Usage: java_example_parity.py SKILLC ARTIFACT
"""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "docs" / "examples" / "java" / "SkillcCatalog.java"
JDBC = "/usr/share/java/sqlite-jdbc.jar"
REQUESTS = [
    [], ["--client", "hyperline.co"], ["--client", "hyperline.co", "--tier", "fast"],
    ["--client", "augment.org", "--locale", "fr"], ["--client", "ibanfirst.com", "--locale", "en-gb"],
    ["--consumer", "answer.generator.strong"], ["--client", "example.com", "--consumer", "solver.react.decision"],
]
CONTEXTS = [
    [], ["--context", "page_url=/en-gb/pricing", "--context", "turn=2"],
    ["--context", "page_url=https://fr.ibanfirst.com/x", "--context", "company=Acme",
     "--context", "content_gating_availability=allowed"],
]


def main():
    skillc, artifact = sys.argv[1], sys.argv[2]
    java = SOURCE.read_text()
    query = java.split('static final String CATALOG_SQL = """\n', 1)[1].split('""";', 1)[0]
    doc = (ROOT / "docs" / "artifact.md").read_text()
    if "```sql\n" + query + "```" not in doc:
        print("FAIL docs/artifact.md does not show the catalog query the Java example runs")
        return 1
    failed = passed = 0
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["javac", "-d", out, "-cp", JDBC, str(SOURCE)], check=True)
        for request in REQUESTS:
            for context in CONTEXTS:
                for fmt in ("xml", "markdown", "list"):
                    args = [artifact, *request, *context, "--format", fmt]
                    rust = subprocess.run([skillc, "catalog", *args], capture_output=True, check=True).stdout
                    mine = subprocess.run(["java", "-cp", f"{out}:{JDBC}", "SkillcCatalog", *args],
                                          capture_output=True, check=False)
                    if mine.returncode == 0 and mine.stdout == rust:
                        passed += 1
                    else:
                        failed += 1
                        print(f"FAIL {' '.join(args[1:])}\n  {mine.stderr.decode()[:500]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed < 60 else 0


if __name__ == "__main__":
    sys.exit(main())
