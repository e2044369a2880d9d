#!/usr/bin/env bash
# Builds gpu-harness/target/device-bundle: everything the GPU checks need on a machine that has a
# GPU and perhaps no JDK or Maven: the harness and its dependencies, the test classes, the JUnit
# console launcher, run.sh, and with --jre a Java runtime made by jlink. Run from the repository root.
set -euo pipefail
root=$(pwd)
out=gpu-harness/target/device-bundle
mvn -B -q -DskipTests install -pl spec,reference-impl,gpu-harness -am
mvn -B -q -DskipTests test-compile -pl gpu-harness
rm -rf "$out"
mkdir -p "$out/lib" "$out/junit"
mvn -B -q -pl gpu-harness dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$root/$out/lib"
cp gpu-harness/target/lumen-gpu-harness-*.jar "$out/lib/"
cp -r gpu-harness/target/test-classes "$out/test-classes"
mvn -B -q dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.4 -DoutputDirectory="$root/$out/junit"
cp gpu-harness/device/run.sh "$out/run.sh"
chmod +x "$out/run.sh"
if [ "${1:-}" = "--jre" ]; then
  jlink --add-modules java.base,java.logging,java.management,java.naming,java.xml,jdk.unsupported,java.sql \
        --strip-debug --no-header-files --no-man-pages --compress=2 --output "$out/jre"
fi
du -sh "$out"
