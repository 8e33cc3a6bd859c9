#!/usr/bin/env bash
# Builds the Java runtime with Maven, offline, from Debian's packages alone: the Maven plugins
# come from Debian's repository (/usr/share/maven-repo) and the SQLite JDBC driver from
# libxerial-sqlite-jdbc-java, placed in a local repository under target/. Elsewhere, plain
# `mvn package` fetches the same versions from Maven Central.
#   bash compiler/runtime/java/build.sh            target/skillc-runtime-0.1.0.jar, tests skipped
#   bash compiler/runtime/java/build.sh test       ... and its JUnit tests ($SKILLC builds the sample)
#   bash compiler/runtime/java/build.sh install    ... tested, then installed in the local repository
set -euo pipefail
cd "$(dirname "$0")"
repo="$PWD/target/debian-m2"
jdbc_version=3.40.1.0
jdbc="$repo/org/xerial/sqlite-jdbc/$jdbc_version"
mkdir -p "$jdbc"
if [ ! -f "$jdbc/sqlite-jdbc-$jdbc_version.jar" ]; then
  # Debian's jar is the release its pom names; the pom inside it describes it.
  found="$(unzip -p /usr/share/java/sqlite-jdbc.jar META-INF/maven/org.xerial/sqlite-jdbc/pom.properties | sed -n 's/^version=//p')"
  [ "$found" = "$jdbc_version" ] || { echo "build.sh: Debian's sqlite-jdbc is $found, the pom names $jdbc_version" >&2; exit 1; }
  unzip -p /usr/share/java/sqlite-jdbc.jar META-INF/maven/org.xerial/sqlite-jdbc/pom.xml > "$jdbc/sqlite-jdbc-$jdbc_version.pom"
  cp /usr/share/java/sqlite-jdbc.jar "$jdbc/sqlite-jdbc-$jdbc_version.jar"
fi
cat > target/debian-settings.xml <<XML
<settings>
  <localRepository>$repo</localRepository>
  <mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors>
</settings>
XML
case "${1:-}" in
  test) goals=(package) ;;
  install) goals=(install) ;;
  *) goals=(package -DskipTests) ;;
esac
# Debian's Maven writes colour resets even in batch mode: they are taken out.
mvn -q -B -s target/debian-settings.xml "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
echo "built $PWD/target/skillc-runtime-0.1.0.jar"
if [ "${1:-}" = test ] || [ "${1:-}" = install ]; then
  # Maven is quiet when tests pass: say how many ran.
  tests=$(cat target/surefire-reports/TEST-*.xml | grep -o '<testsuite [^>]*' | grep -o ' tests="[0-9]*"' | grep -o '[0-9]*' | awk '{n += $1} END {print n}')
  echo "java: $tests tests passed"
fi
