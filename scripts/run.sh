#!/usr/bin/env bash
# The main job: check the sample workspace and show the result; where a display exists,
# open it in Skill Studio as well.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo run -q -p skillc -- check skills

if [ -n "${DISPLAY:-}" ]; then
  bash scripts/setup.sh
  cargo run -q -p skill-studio -- "$PWD/skills"
else
  echo "(no display: Skill Studio not started; set DISPLAY to open it)"
fi
