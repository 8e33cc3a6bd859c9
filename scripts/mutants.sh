#!/usr/bin/env bash
# Mutation testing of a change: cargo-mutants plants each small bug it can in the lines the change
# touches (a `>=` made `<`, a function returning a default, a condition made always true) and runs
# the tests of the crate holding it; a mutant the tests do not notice is a blind spot of the tests.
#
#   bash scripts/mutants.sh BASE        # the lines changed since BASE (a commit: the last landed main)
#   bash scripts/mutants.sh --crate skillc-runtime   # every mutant of one crate (a full sweep)
#
# Survivors are listed at the end (mutants.out/missed.txt). Each is fixed with a test, or exempted
# in .cargo/mutants.toml with one line of reason. Needs `cargo install cargo-mutants --locked`.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || { echo "mutants.sh: install cargo-mutants first: cargo install cargo-mutants --locked" >&2; exit 2; }
# Test builds without debug info: a third of the link time and disk, nothing lost for a verdict.
export CARGO_PROFILE_DEV_DEBUG=0
out="${SKILLC_MUTANTS_OUT:-target/mutants}"
mkdir -p "$out"
case "${1:-}" in
  "") echo "usage: scripts/mutants.sh BASE | --crate NAME" >&2; exit 2 ;;
  --crate)
    args=(-p "${2:?--crate takes a package name}") ;;
  *)
    base="$1"
    git rev-parse --verify --quiet "$base^{commit}" >/dev/null || { echo "mutants.sh: $base is no commit" >&2; exit 2; }
    diff="$out/change.diff"
    # Only the crates' sources: tests, scripts and other languages are not mutated.
    git diff "$base" -- 'compiler/src/*.rs' 'compiler/runtime/src/*.rs' 'studio/src/*.rs' > "$diff"
    if [ ! -s "$diff" ]; then echo "mutants.sh: no Rust source changed since $base"; exit 0; fi
    args=(--workspace --in-diff "$diff") ;;
esac
start=$(date +%s)
set +e
cargo mutants "${args[@]}" --output "$out" --no-shuffle
status=$?
set -e
echo "mutants.sh: $(( $(date +%s) - start )) s"
for kind in caught missed timeout unviable; do
  printf '%-9s %s\n' "$kind" "$(wc -l < "$out/mutants.out/$kind.txt" 2>/dev/null || echo 0)"
done
if [ -s "$out/mutants.out/missed.txt" ]; then
  echo "== survivors (fix each with a test, or exempt it in .cargo/mutants.toml with a reason)"
  cat "$out/mutants.out/missed.txt"
fi
# cargo-mutants: 0 all caught, 2 some missed, 3 some timed out; 1 and 4 are failures of the run.
exit $status
