#!/usr/bin/env bash
# The runtimes as people install them, not as files of this repository: the Python runtime as a
# wheel installed into a fresh virtual environment, the TypeScript runtime as the tarball
# `npm pack` makes, installed into an empty project. Each installed copy then runs its own tests
# and answers every parity request as `skillc` does.
# Usage: tests/packaging/runtimes.sh PATH/TO/skillc
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
skillc="$(realpath "$1")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

artifact="$work/sample.db"
"$skillc" build skills -o "$artifact" --release-label sample-parity 2>/dev/null
hybrid_ws="$work/hybrid-ws"
cp -r skills "$hybrid_ws" && rm -rf "$hybrid_ws/.skillc"
printf 'routing: { embedding_model: skillc-test-trigrams }\n' >> "$hybrid_ws/workspace.yaml"
hybrid="$work/hybrid.db"
"$skillc" build "$hybrid_ws" -o "$hybrid" --release-label sample-parity \
  --embedder "python3 $repo/tests/embedder/trigrams.py" 2>/dev/null

echo "== the Python runtime: a wheel, installed into a fresh virtual environment"
# Built from a copy: setuptools writes build/ and *.egg-info beside the sources it builds.
cp -r compiler/runtime/python "$work/python-src"
rm -rf "$work/python-src/build" "$work/python-src"/*.egg-info
python3 -m pip wheel -q --disable-pip-version-check --no-deps -w "$work/dist" "$work/python-src"
wheel="$(ls "$work"/dist/skillc_runtime-*.whl)"
echo "built $(basename "$wheel")"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$wheel[signatures]"
# Typed: mypy reads the installed package through its py.typed marker.
"$work/venv/bin/pip" install -q --disable-pip-version-check "mypy==1.18.2"
(cd "$work" && venv/bin/mypy -p skillc_runtime)
# Run from outside the repository: only the installed package can be imported.
cp compiler/runtime/python/test_skillc_runtime.py "$work/"
(cd "$work" && SKILLC="$skillc" SKILLC_REPO="$repo" venv/bin/python test_skillc_runtime.py)
SKILLC_RUNTIME_INSTALLED=1 "$work/venv/bin/python" tests/parity/python_runtime_parity.py \
  "$skillc" "$artifact" "$hybrid"

echo "== the TypeScript runtime: npm pack, installed into an empty project"
(cd compiler/runtime/typescript && npm run --silent build && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/skillc-runtime-*.tgz)"
echo "packed $(basename "$tarball")"
mkdir "$work/project"
(
  cd "$work/project"
  npm init -y >/dev/null
  npm install --silent --no-audit --no-fund "$tarball"
  # The library, imported by its package name.
  cat > use.mjs <<'JS'
import { Artifact } from "skillc-runtime";
const a = await Artifact.open(process.argv[2]);
const c = a.catalog({ client: "hyperline.co", format: "json" });
const p = a.prompt({ client: "hyperline.co", select: ["pricing"], context: { page_url: "/pricing" } });
if (c.skills.length === 0 || !p.skills.some((s) => s.name === "pricing")) throw new Error("no answer");
console.log(`library: ${c.skills.length} skills in hyperline.co's catalog, release ${a.release}`);
JS
  node use.mjs "$artifact"
  # The command, as npm installs it.
  npx --no-install skillc-runtime catalog "$artifact" --client hyperline.co --format json > from-npm.json
  "$skillc" catalog "$artifact" --client hyperline.co --format json > from-skillc.json
  cmp from-npm.json from-skillc.json
  echo "command: node_modules/.bin/skillc-runtime prints what skillc prints"
)
SKILLC_TS_CLI="$work/project/node_modules/skillc-runtime/dist/cli.js" \
  python3 tests/parity/ts_runtime_parity.py "$skillc" "$artifact" "$hybrid"
