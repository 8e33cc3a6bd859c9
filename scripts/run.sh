#!/usr/bin/env bash
# The main job: check the sample workspace, compile it into the SQLite artifact, and show what
# a client sees (its catalog and an assembled prompt). Where a display exists, also open the
# workspace in Skill Studio.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -q --release -p skillc-compiler
skillc="cargo run -q --release -p skillc-compiler --bin skillc --"
artifact="$(mktemp -d)/skills.db"

$skillc check skills
$skillc build skills -o "$artifact" 2>/dev/null
echo
echo "== catalog of client hyperline.co (markdown), page /en-gb/pricing, turn 2"
$skillc catalog "$artifact" --client hyperline.co --context page_url=/en-gb/pricing --context turn=2
echo
echo "== prompt for competitors + context_gathering (client hyperline.co)"
$skillc prompt "$artifact" --client hyperline.co --select competitors,context_gathering \
  --context turn=2 --format json | python3 -c '
import json, sys
p = json.load(sys.stdin)
for s in p["skills"]:
    print("  in:  {:28} {:34} (content: {})".format(s["name"], s["reason"], s["resolved"]))
for s in p["removed"]:
    print("  out: {:28} {}".format(s["name"], s["reason"]))
print("  {} tokens".format(p["tokens"]))'
echo
echo "== which skills a visitor's message reaches (client hyperline.co): score, id, name, words"
$skillc route "$artifact" "How much does the pro plan cost?" --client hyperline.co

if [ -n "${DISPLAY:-}" ]; then
  bash scripts/setup.sh
  cargo run -q -p skill-studio -- "$PWD/skills"
else
  echo "(no display: Skill Studio not started; set DISPLAY to open it)"
fi
