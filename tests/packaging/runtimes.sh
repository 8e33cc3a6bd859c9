#!/usr/bin/env bash
# The runtimes as people install them, not as files of this repository: the Python runtime as a
# wheel installed into a fresh virtual environment, the TypeScript runtime as the tarball
# `npm pack` makes, installed into an empty project, the Java runtime installed by Maven and
# used as a dependency by an empty Maven project. Each installed copy then runs its own tests
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
cp -r compiler/runtime/python/tests "$work/python-tests"
(cd "$work" && SKILLC="$skillc" SKILLC_REPO="$repo" venv/bin/python -m unittest discover -s python-tests)
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

echo "== the Java runtime: installed with Maven, used as a dependency by an empty project"
SKILLC="$skillc" bash compiler/runtime/java/build.sh install
m2="$repo/compiler/runtime/java/target/debian-m2"
installed="$m2/dev/skillc/skillc-runtime/0.1.0/skillc-runtime-0.1.0.jar"
mkdir -p "$work/java-project/src/main/java"
(
  cd "$work/java-project"
  # A project that names the runtime as its dependency and nothing else of this repository.
  cat > pom.xml <<'XML'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>agent</artifactId>
  <version>1</version>
  <properties><maven.compiler.release>17</maven.compiler.release></properties>
  <dependencies>
    <dependency><groupId>dev.skillc</groupId><artifactId>skillc-runtime</artifactId><version>0.1.0</version></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.10.1</version></plugin>
  </plugins></build>
</project>
XML
  cat > src/main/java/Agent.java <<'JAVA'
import dev.skillc.runtime.*;
import java.util.List;
import java.util.Map;

public class Agent {
    public static void main(String[] args) {
        try (Artifact a = Artifact.open(args[0])) {
            Request r = Request.global().client("hyperline.co").context(Map.of("page_url", "/pricing"));
            Catalog c = a.catalog(r, Format.JSON);
            Prompt p = a.prompt(r, List.of("pricing"));
            Route route = a.route(r, "How much does the pro plan cost?");
            if (c.skills().isEmpty() || p.skills().stream().noneMatch(s -> s.name().equals("pricing"))) {
                throw new IllegalStateException("no answer");
            }
            System.out.println("library: " + c.skills().size() + " skills in hyperline.co's catalog, release "
                + a.release() + ", first route " + route.candidates().get(0).name());
        }
    }
}
JAVA
  mvn -q -B -s "$repo/compiler/runtime/java/target/debian-settings.xml" compile 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
  java -cp "target/classes:$installed:/usr/share/java/sqlite-jdbc.jar" Agent "$artifact"
  java -cp "$installed:/usr/share/java/sqlite-jdbc.jar" dev.skillc.runtime.Cli catalog "$artifact" \
    --client hyperline.co --format json > from-java.json
  "$skillc" catalog "$artifact" --client hyperline.co --format json > from-skillc.json
  cmp from-java.json from-skillc.json
  echo "command: dev.skillc.runtime.Cli from the installed jar prints what skillc prints"
)
SKILLC_JAVA_JAR="$installed" python3 tests/parity/java_runtime_parity.py "$skillc" "$artifact" "$hybrid"
