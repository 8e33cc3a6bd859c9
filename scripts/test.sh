#!/usr/bin/env bash
# Sets up what is missing, then runs every check and test: formatting, lints, the Rust test
# suites (compiler, fixtures, CLI, properties, studio), and parity with skills-ref.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage's heading carries the time since the run began, so that a slow CI run says where
# its minutes went (CI is cut at 90).
started=$SECONDS
stage() { printf '== %s  [%dm%02ds]\n' "$*" $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)); }

bash scripts/setup.sh
export SKILLC_SETUP_DONE=1

# What is left of the disk, printed after the stages that fill it, so that a run that runs out
# of room says where.
disk_left() { echo "(disk: $(df -h --output=avail . | tail -1 | tr -d ' ') free)"; }

stage "dependencies point one way (no import circle, no phase using one above it)"
python3 scripts/check-layers.py

stage "no file over 800 lines, no function over 80 (tests apart)"
python3 scripts/check-sizes.py

stage "a plain frontmatter field is declared in at most two Rust files (its row, its Record field)"
python3 scripts/count-field-places.py

stage "cargo fmt --check"
cargo fmt --all -- --check

stage "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

stage "cargo test"
cargo test --workspace
disk_left

stage "parity with skills-ref validate"
# The binaries with the features `cargo test --workspace` resolved: `-p skillc-compiler` alone
# resolves fewer (serde_json, tokio, proc-macro2...) and rebuilt two minutes of crates.
cargo build -q --workspace --bins
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
python3 tests/parity/skills_ref_parity.py "$target/debug/skillc"

stage "the Python example runtime against the Rust runtime"
artifact="$(mktemp -d)/sample.db"
"$target/debug/skillc" build skills -o "$artifact" --release-label sample-parity 2>/dev/null
# The sample again with vectors (routing.embedding_model, the test embedder): hybrid routes too.
hybrid_ws="$(mktemp -d)/ws"
cp -r skills "$hybrid_ws" && rm -rf "$hybrid_ws/.skillc"
printf 'routing: { embedding_model: skillc-test-trigrams }\n' >> "$hybrid_ws/workspace.yaml"
hybrid="$(dirname "$artifact")/hybrid.db"
"$target/debug/skillc" build "$hybrid_ws" -o "$hybrid" --release-label sample-parity \
  --embedder "python3 $PWD/tests/embedder/trigrams.py" 2>/dev/null
python3 tests/parity/python_runtime_parity.py "$target/debug/skillc" "$artifact" "$hybrid"
PYTHONPATH=compiler/runtime/python SKILLC="$target/debug/skillc" \
  python3 -m unittest discover -s compiler/runtime/python/tests

stage "the TypeScript runtime: its tests"
(cd compiler/runtime/typescript && SKILLC="$target/debug/skillc" npm test --silent)

# Every parity request in TypeScript and Java is asked of the installed package and jar (the
# same code as the checkout's, installed as people install it), once: asking the checkout's
# copies too took minutes of CI for nothing more.
stage "the runtimes as people install them: the Python wheel in a fresh venv, the npm tarball in an empty project, the Java jar through Maven (its JUnit tests), each against every parity request"
bash tests/packaging/runtimes.sh "$target/debug/skillc"

stage "routing quality: skillc route beside a plain BM25 baseline on labelled requests"
python3 tests/quality/routing_quality.py "$target/debug/skillc" --check

stage "content safety: skillc on the labelled corpus and the public collections, beside cisco-ai-skill-scanner on the corpus"
python3 tests/safety/test_compare.py
# The peer on the labelled corpus only: its four minutes over the public collections fill the
# report (README's figures, run by hand) and nothing --check reads.
python3 tests/safety/compare.py --skillc "$target/debug/skillc" --peer .venv-peer/bin/skill-scanner --repeat 1 \
  --peer-corpus-only --check
# The peer is needed once: its 700 MB go back to a machine short of disk.
if [ -n "${SKILLC_TEST_LOW_DISK:-}" ]; then rm -rf .venv-peer; fi

stage "rules the sample does not exercise (blocks over always-on, locale fallback, a secret name) in every runtime"
python3 tests/parity/rules_parity.py "$target/debug/skillc"

stage "generated requests: 300 random messages over many scripts, in every runtime against skillc (seed printed)"
python3 tests/parity/generated_parity.py "$target/debug/skillc" "$artifact"

stage "the catalog query of docs/artifact.md, as written, against skillc catalog"
python3 tests/parity/artifact_doc_queries.py "$target/debug/skillc" "$artifact"
rm -rf "$(dirname "$artifact")"

stage "SARIF logs of every fixture against the SARIF 2.1.0 object model"
python3 tests/sarif/check_sarif.py "$target/debug/skillc" tests/fixtures

stage "skillc mcp driven by a real MCP client (the official Python SDK)"
python3 tests/mcp/mcp_client.py "$target/debug/skillc" skills
python3 tests/mcp/skills_extension.py "$target/debug/skillc" skills

stage "the CI recipe of docs/ci.md, on the sample"
ci_out="$(mktemp -d)"
"$target/debug/skillc" build skills -o "$ci_out/previous.db" 2>/dev/null
"$target/debug/skillc" keygen -o "$ci_out/release.key" >/dev/null
SKILLC="$target/debug/skillc" GITHUB_STEP_SUMMARY="$ci_out/summary.md" \
  SKILLC_SIGNING_KEY_FILE="$ci_out/release.key" \
  bash docs/ci-recipe.sh skills "$ci_out/out" "$ci_out/previous.db" >/dev/null 2>&1
"$target/debug/skillc" verify "$ci_out/out/skills.db" --public-key "$ci_out/release.pub" >/dev/null
minisign -Vqm "$ci_out/out/skills.db" -p "$ci_out/release.pub"
grep -q "bundles changed" "$ci_out/summary.md"
grep -q "^## Routing" "$ci_out/summary.md"
grep -q 'failures="0"' "$ci_out/out/skillc-tests.xml"
"$target/debug/skillc" catalog "$ci_out/out/skills.db" --format json | grep -q '"release": "[0-9a-f]'
rm -rf "$ci_out"

stage "the crates as the Rust package registry would take them (cargo publish --dry-run)"
# Both at once: the compiler's dependency on the runtime resolves through cargo's local
# overlay of the crates being published, as a real publish of both in order would.
# Cargo unpacks the overlay's crates under the registry's src/ and never unpacks a version
# again once there: a CI machine that keeps CARGO_HOME then verifies the compiler against an
# old runtime of the same version (a CI run failed so: `Turn` not found). Clear those first.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/skillc-runtime-* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/skillc-compiler-*
published="$(cargo publish --dry-run --allow-dirty --quiet -p skillc-runtime -p skillc-compiler 2>&1)" \
  || { echo "$published"; exit 1; }
echo "$published" | grep -v "^warning: ignoring test\|^warning: aborting upload due to dry run" || true
echo "skillc-runtime and skillc-compiler package and build as published"

stage "skillc without a Rust toolchain: the static release archive and the .deb, installed and run"
# Unoptimised (the packaging is what is checked here; an optimised build takes 8 of CI's minutes).
SKILLC_RELEASE_PROFILE=dev bash scripts/release.sh "$target/dist" --verify
disk_left

stage "Skill Studio end to end (WebDriver, Xvfb)"
cargo build -q --workspace --bins
shots="${SCREENSHOTS:-$(mktemp -d)}"
# The window tests drive a real WebKit. Only a run whose failures were all lost WebDriver
# connections (exit 3) is run again, into its own folder (screenshots, driver log); the first
# run's failures are printed at the end whatever happens.
first="$shots/run-1"
set +e
python3 tests/e2e/studio_e2e.py "$target/debug/skill-studio" "$first" | tee "$first.txt"
e2e=${PIPESTATUS[0]}
if [ "$e2e" -eq 3 ]; then
  echo "(the WebDriver connection was lost; running the window tests once more)"
  python3 tests/e2e/studio_e2e.py "$target/debug/skill-studio" "$shots/run-2"
  e2e=$?
fi
set -e
stage "failures of the first end-to-end run"
grep -E '^(FAIL|LOST)' "$first.txt" || echo "(none)"
echo "screenshots: $shots"
if [ "$e2e" -ne 0 ]; then
  echo "the studio's end-to-end tests failed"
  exit 1
fi

stage "the studio's .deb: built (debug profile), unpacked, started under Xvfb"
# The debug profile: the same bundler and package, built on the debug build above in minutes
# where an optimised studio takes a quarter of an hour on two cores (CI is cut at 90 minutes).
bash scripts/package.sh --debug --verify
disk_left
unpacked="$(cat "$target/debug/bundle/deb/unpacked-root")"
python3 tests/e2e/installed_app.py "$unpacked" "$shots/installed.png"
rm -rf "$unpacked"
stage "done"
