#!/usr/bin/env bash
# skillc in CI, as plain shell (docs/ci.md runs the same steps in GitHub Actions):
# check with annotations, run the workspace's test cases, build the artifact labelled with the
# commit, and compare it with the previous release's artifact in the job summary.
#
# Usage: ci-recipe.sh WORKSPACE OUT_DIR [PREVIOUS_ARTIFACT]
#   SKILLC               the skillc binary (default: skillc on PATH)
#   SKILLC_SIGNING_KEY_FILE  a secret key to sign the artifact with (default: unsigned)
#   GITHUB_STEP_SUMMARY  where the summary goes (default: OUT_DIR/summary.md)
set -euo pipefail
workspace=${1:?usage: ci-recipe.sh WORKSPACE OUT_DIR [PREVIOUS_ARTIFACT]}
out=${2:?usage: ci-recipe.sh WORKSPACE OUT_DIR [PREVIOUS_ARTIFACT]}
previous=${3:-}
skillc=${SKILLC:-skillc}
summary=${GITHUB_STEP_SUMMARY:-$out/summary.md}
mkdir -p "$out"

# 1. Every diagnostic as an annotation on its line; errors fail the job.
"$skillc" check "$workspace" --format github

# 2. The workspace's cases (tests/*.yaml), as JUnit for the CI's test report.
"$skillc" test "$workspace" --format junit > "$out/skillc-tests.xml"

# 3. The artifact, labelled with the commit it was built from (`-dirty` if files changed),
#    and signed when SKILLC_SIGNING_KEY_FILE names a secret key from `skillc keygen`: it writes
#    out/skills.db.minisig, and runtimes opened with the public key load only a signed file.
"$skillc" build "$workspace" -o "$out/skills.db" --release-label git \
  ${SKILLC_SIGNING_KEY_FILE:+--sign "$SKILLC_SIGNING_KEY_FILE"}

# 4. What this release changes for each client, locale and tier.
{
  echo "## Skills artifact"
  echo
  if [ -n "$previous" ] && [ -f "$previous" ]; then
    echo "Changes since the previous release:"
    echo
    echo '```'
    "$skillc" diff "$previous" "$out/skills.db"
    echo '```'
  else
    echo "No previous release artifact to compare with."
  fi
} >> "$summary"
# 5. How well visitors' messages reach their skills (docs/routing.md), in the summary;
#    SKILLC_MIN_RECALL (a share from 0 to 1) fails the job under that recall.
{
  echo
  echo "## Routing"
  echo
  echo '```'
  "$skillc" eval "$workspace" ${SKILLC_MIN_RECALL:+--min-recall "$SKILLC_MIN_RECALL"}
  echo '```'
} >> "$summary"
echo "ci-recipe: $out/skills.db built; tests in $out/skillc-tests.xml; summary in $summary"
