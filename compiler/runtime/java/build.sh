#!/usr/bin/env bash
# Builds the Java runtime with the JDK alone: build/skillc-runtime.jar (classes, sources' docs
# apart) against Debian's sqlite-jdbc, the one library it needs. With `test`, also compiles and
# runs its JUnit 4 tests (Debian's junit4), which build the sample workspace with $SKILLC.
#   bash compiler/runtime/java/build.sh [test]
set -euo pipefail
cd "$(dirname "$0")"
JDBC="${SQLITE_JDBC:-/usr/share/java/sqlite-jdbc.jar}"
JUNIT="${JUNIT:-/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar}"
rm -rf build
mkdir -p build/classes
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d build/classes -cp "$JDBC" \
  $(find src/main/java -name '*.java' | sort)
jar --create --file build/skillc-runtime.jar --main-class dev.skillc.runtime.Cli -C build/classes .
echo "built $(pwd)/build/skillc-runtime.jar"
if [ "${1:-}" = "test" ]; then
  mkdir -p build/test-classes
  javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d build/test-classes \
    -cp "build/skillc-runtime.jar:$JDBC:$JUNIT" $(find src/test/java -name '*.java' | sort)
  java -cp "build/test-classes:build/skillc-runtime.jar:$JDBC:$JUNIT" org.junit.runner.JUnitCore \
    $(cd src/test/java && find . -name '*Test.java' | sed 's|^\./||; s|\.java$||; s|/|.|g' | sort)
fi
