#!/usr/bin/env bash
# Builds the Java runtime with Maven, offline, from Debian's packages alone: the Maven plugins
# come from Debian's repository (/usr/share/maven-repo); the SQLite JDBC driver
# (libxerial-sqlite-jdbc-java) and Bouncy Castle (libbcprov-java) are placed in a local
# repository under target/. Elsewhere, plain `mvn package` fetches the same versions from Maven
# Central.
#   bash compiler/runtime/java/build.sh            target/skillc-runtime-0.1.0.jar, tests skipped
#   bash compiler/runtime/java/build.sh test       ... and its JUnit tests ($SKILLC builds the sample)
#   bash compiler/runtime/java/build.sh install    ... tested, then installed in the local repository
set -euo pipefail
cd "$(dirname "$0")"
repo="$PWD/target/debian-m2"
# Debian's jars placed under the coordinates the pom names (Maven Central's): each is the
# release named, as the version Debian records in it says.
seed() {  # seed GROUP ARTIFACT VERSION DEBIAN_JAR VERSION_FOUND_IN_THE_JAR
  local dir="$repo/${1//.//}/$2/$3"
  [ -f "$dir/$2-$3.jar" ] && return
  [ "$5" = "$3" ] || { echo "build.sh: Debian's $4 is $5, the pom names $2 $3" >&2; exit 1; }
  mkdir -p "$dir"
  cp "$4" "$dir/$2-$3.jar"
  printf '<project><modelVersion>4.0.0</modelVersion><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></project>\n' \
    "$1" "$2" "$3" > "$dir/$2-$3.pom"
}
jdbc=/usr/share/java/sqlite-jdbc.jar
seed org.xerial sqlite-jdbc 3.40.1.0 "$jdbc" \
  "$(unzip -p "$jdbc" META-INF/maven/org.xerial/sqlite-jdbc/pom.properties | sed -n 's/^version=//p')"
bc="$(readlink -f /usr/share/java/bcprov.jar)"
seed org.bouncycastle bcprov-jdk18on 1.72 "$bc" "$(basename "$bc" .jar | sed 's/^bcprov-//')"
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
