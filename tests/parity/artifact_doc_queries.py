#!/usr/bin/env python3
"""The catalog query docs/artifact.md gives for "any other language", run as written.

A runtime in a language without a skillc library follows docs/artifact.md: this runs the page's
catalog query (taken from the page itself) with Python's sqlite3, keeps the rows whose
conditions hold, numbers and joins them as the page says, and compares the text with `skillc
catalog`'s, byte for byte, for several clients, locales, tiers, consumers, contexts and the
three text formats. A page whose query drifted from the schema fails here.
Usage: artifact_doc_queries.py SKILLC ARTIFACT
"""

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler" / "runtime" / "python"))
from skillc_runtime import condition_holds  # noqa: E402

REQUESTS = [
    {}, {"client": "hyperline.co"}, {"client": "hyperline.co", "tier": "fast"},
    {"client": "augment.org", "locale": "fr"}, {"client": "ibanfirst.com", "locale": "en-gb"},
    {"consumer": "answer.generator.strong"}, {"client": "example.com", "consumer": "solver.react.decision"},
]
CONTEXTS = [
    {}, {"page_url": "/en-gb/pricing", "turn": "2"},
    {"page_url": "https://fr.ibanfirst.com/x", "company": "Acme", "content_gating_availability": "allowed"},
]


def documented_query():
    page = (ROOT / "docs" / "artifact.md").read_text()
    section = page.split("### The catalog for a consumer, in a format", 1)[1]
    return re.search(r"```sql\n(.*?)```", section, re.S).group(1)


def catalog(db, query, request, ctx, fmt):
    manifest = dict(db.execute("SELECT key, value FROM manifest"))
    headers = dict(db.execute("SELECT id, catalog_header FROM category"))
    params = {"client": request.get("client", ""), "locale": request.get("locale", manifest["default_locale"]),
              "tier": request.get("tier", manifest["default_tier"]), "format": fmt,
              "consumer": request.get("consumer", "")}
    text, current, n = "<available_skills>\n" if fmt == "xml" else "", None, 0
    for name, category, conditions, fragment in db.execute(query, params):
        if conditions and not all(condition_holds(c, ctx) for c in json.loads(conditions)):
            continue
        n += 1
        if fmt == "markdown":
            if category != current:
                text += ("\n" if current is not None else "") + headers.get(category, "")
                current = category
            text += f"| SK{n} "
        text += fragment or ""
    return text + ("</available_skills>" if fmt == "xml" else "")


def main():
    skillc, artifact = sys.argv[1], sys.argv[2]
    query = documented_query()
    db = sqlite3.connect(f"file:{artifact}?mode=ro", uri=True)
    passed = failed = 0
    for request in REQUESTS:
        for ctx in CONTEXTS:
            for fmt in ("xml", "markdown", "list"):
                args = [f"--{k}={v}" for k, v in request.items()] + [f"--context={k}={v}" for k, v in ctx.items()]
                rust = subprocess.run([skillc, "catalog", artifact, *args, "--format", fmt],
                                      capture_output=True, text=True, check=True).stdout
                mine = catalog(db, query, request, ctx, fmt)
                if rust.rstrip("\n") == mine.rstrip("\n"):
                    passed += 1
                else:
                    failed += 1
                    print(f"FAIL {' '.join(args)} {fmt}\n  skillc: {rust[:300]!r}\n  page:   {mine[:300]!r}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed < 60 else 0


if __name__ == "__main__":
    sys.exit(main())
