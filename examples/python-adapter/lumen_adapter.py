#!/usr/bin/env python3
"""A LUMEN implementation behind the kit's adapter protocol (docs/conformance.md).

    ./lumen conform --sut "python3 examples/python-adapter/lumen_adapter.py" --policy lumen

Reads one JSON command per line on stdin; for each, writes the trace events
(contract v2, docs/trace-format.md) of what the cluster did, then one ack.
`--bug NAME` (repeatable) injects a realistic defect; see BUGS below.

The kit's token model, KV content model and the trace writer come from the
`lumen_trace` package (python/lumen-trace); it is used from the source tree, so
nothing needs installing.
"""

import argparse
import json
import os
import sys
import traceback

sys.dont_write_bytecode = True          # leave no __pycache__ next to the example
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "lumen-trace", "src"))
sys.path.insert(0, HERE)
from cluster import Cluster  # noqa: E402
from lumen_trace.kv import KvModel  # noqa: E402
from lumen_trace.tokens import vocab_of  # noqa: E402

BUGS = {
    "restore-past-checkpoint": "a restore resumes at the interruption point, as if the checkpoint were current",
    "never-streams": "the server never streams a checkpoint page to its holder",
    "leaks-checkpoint": "completion frees the request but reports (and keeps) its checkpoint",
    "holder-is-server": "placement forgets to exclude the request's own server",
    "accept-unverified-draft": "the verifier keeps the whole draft, not its agreeing prefix",
    "no-reprotection": "a request that lost its holder is never placed again",
    "digest-over-metadata": "page digests are taken over each page's position and count, not over its bytes",
    "round-robin-gateway": "the gateway sends new requests round robin although the run declares arrival=shortest",
    "gateway-no-fence": "the gateway streams a token whatever epoch its worker wrote it under (a paused worker's late tokens reach clients)",
    "holder-no-fence": "a holder stores a page whatever epoch its worker wrote it under (a paused worker's late pages enter checkpoints)",
    "ack-no-fence": "the gateway takes a holder's acknowledgement whatever its epoch (a paused holder's copies come back as checkpoints)",
}


def write(obj):
    """An ack (the events go through the cluster's trace writer, to the same stream)."""
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS),
                        help="inject a defect: " + "; ".join(f"{k}: {v}" for k, v in BUGS.items()))
    args = parser.parse_args()

    cluster = None
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        name = cmd.get("cmd")
        if name == "quit":
            break
        ack = {"type": "ack"}
        try:
            if name == "init":
                cluster = Cluster(cmd["config"], float(cmd.get("draftAgreement", 0.5)), vocab_of(cmd), sys.stdout,
                                  args.bug, KvModel.from_init(cmd))     # kvModel: the KV content model's shape
            else:
                if cluster is None:
                    raise RuntimeError(f"{name!r} before init")
                if "t" in cmd:
                    cluster.advance(float(cmd["t"]))   # everything due before the command happens first
                if name == "arrive":
                    cluster.arrive(cmd["req"], cmd["promptLen"], cmd["outLen"], cmd["seed"])
                elif name == "fail":
                    cluster.fail_at(cmd["worker"], cmd.get("point", "AT_TIME"))
                elif name == "pause":
                    cluster.pause_at(cmd["worker"], cmd.get("point", "AT_TIME"), float(cmd["forMs"]))
                elif name == "partition":
                    cluster.pause_at(cmd["worker"], cmd.get("point", "AT_TIME"), float(cmd["forMs"]),
                                     "lost" if cmd.get("lossy") else "delayed")
                elif name == "restart":
                    cluster.restart(cmd["worker"])
                elif name != "advance":
                    raise ValueError(f"unknown command {name!r}")
        except Exception as exc:  # report it to the kit rather than crash
            traceback.print_exc(file=sys.stderr)
            ack["error"] = f"{type(exc).__name__}: {exc}"
        ack["t"] = cluster.now if cluster else 0.0
        ack["idle"] = cluster.idle() if cluster else True
        write(ack)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
