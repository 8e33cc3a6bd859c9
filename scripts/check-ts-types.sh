#!/usr/bin/env bash
# The studio UI's types (studio-ui/src/generated/types.ts) against the Rust types they are
# generated from (studio/src/contract.rs, ts-rs): fails when the committed file differs.
# `--write` writes it again instead; either way the UI is then type-checked against it.
# CI runs the same unit test within `cargo test --workspace` (scripts/test.sh), and the UI's
# type check within its build (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  --write) export SKILLC_WRITE_TYPES=1 ;;
  "") ;;
  *) echo "usage: scripts/check-ts-types.sh [--write]" >&2; exit 2 ;;
esac
cargo test -q -p skill-studio --lib contract::
if [ -d studio-ui/node_modules ]; then
  (cd studio-ui && npx tsc --noEmit -p .)
  echo "studio-ui/src/generated/types.ts is current and the UI type-checks against it"
else
  echo "studio-ui/src/generated/types.ts is current (studio-ui has no node_modules: not type-checked)"
fi
