#!/usr/bin/env bash
# The GPU checks in one call, from a bundle made by gpu-harness/device/bundle.sh: the machine's
# facts, the backend property suites on the GPU and on the CPU (JUnit), then lumen's GPU benchmark.
# Writes device.txt, tests.txt, junit.tgz (the JUnit XML reports), bench.txt and gpu-profile.json
# to $OUT (default ./out), five files in all.
# QUICK=--quick runs the shorter benchmark.
cd "$(dirname "$0")"
OUT=${OUT:-out}
mkdir -p "$OUT"
JAVA=$(command -v java || echo ./jre/bin/java)
{ nvidia-smi || true; "$JAVA" -version; } > "$OUT/device.txt" 2>&1
CP="$(printf '%s:' lib/*.jar)test-classes"
"$JAVA" -jar junit/junit-platform-console-standalone-*.jar execute --class-path "$CP" \
    --select-package lumen.gpu \
    --details=tree --disable-ansi-colors --reports-dir junit-reports > "$OUT/tests.txt" 2>&1
echo "tests: exit $?"
tar czf "$OUT/junit.tgz" junit-reports
tail -25 "$OUT/tests.txt"
"$JAVA" -cp "$CP" lumen.gpu.GpuBench "$OUT/gpu-profile.json" ${QUICK:-} > "$OUT/bench.txt" 2>&1
echo "bench: exit $?"
cat "$OUT/bench.txt"
