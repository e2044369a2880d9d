"""Re-writes a whole trace as per-process logs with wall-clock time only, through lumen_trace.

Each process's clock is off by its own offset (seeded), event i happens at i ms of the run, and
each event goes through ProcessLog(..., WallClock(skew)) with its window. Usage:
    wall_logs.py SRC_DIR TRACE OUT_DIR SKEW_MS
"""
import json
import random
import sys

sys.path.insert(0, sys.argv[1])
from lumen_trace import ProcessLog, WallClock  # noqa: E402

trace, out_dir, skew = sys.argv[2], sys.argv[3], float(sys.argv[4])
rng = random.Random(5)
with open(trace, encoding="utf-8") as f:
    lines = [json.loads(x) for x in f if x.strip()]
header = lines[0]
logs, offsets, now = {}, {}, {}


def process_of(e):
    t = e["type"]
    if t in ("Arrive", "Place", "Route", "Fail", "ZombieToken", "ZombieAck"):
        return "gateway"
    if t in ("StreamPage", "ZombiePage"):
        return "worker-%d" % e["holder"]
    return "worker-%d" % e["worker"]


for i, e in enumerate(lines[1:], start=1):
    p = process_of(e)
    if p not in logs:
        offsets[p] = rng.uniform(0, skew)
        clock = WallClock(skew, source=lambda p=p: now[p])
        logs[p] = ProcessLog(open("%s/%s.jsonl" % (out_dir, p), "w", encoding="utf-8"), header["config"], p, clock)
    now[p] = 1733500000000.0 + i + offsets[p]
    fields = {k: v for k, v in e.items() if k not in ("type", "t")}
    if rng.random() < 0.5:
        with_span = logs[p].clock.span()
        now[p] += rng.uniform(0, 0.9)
        fields["t"] = with_span.end()
    logs[p].event(e["type"], **fields)
for log in logs.values():
    log.close()
