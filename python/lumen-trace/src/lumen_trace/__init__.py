"""lumen_trace: what a LUMEN implementation in a Python serving stack reports to the kit.

* ``lumen_trace.tokens``: the kit's token model (``lumen-splitmix64``).
* ``lumen_trace.kv``: the kit's KV content model (``lumen-kv-murmur``), page digests,
  and the ``pages`` entries of an event.
* ``lumen_trace.writer``: trace contract v2 writers, ``TraceWriter`` (a whole trace,
  a partial trace, begin and end forms) and ``ProcessLog`` (per-process logs).
* ``lumen_trace.clock``: Lamport, vector and wall clocks, carried on HTTP headers and
  gRPC metadata.
* ``lumen_trace.history``: client histories, from OpenAI-compatible streams.

Standard library only.
"""

from .clock import LamportClock, VectorClock, WallClock
from .history import HistoryRecorder, StreamResult
from .kv import KvModel, bytes_digest, page_digest, pages
from .tokens import reference, token
from .writer import ProcessLog, TraceWriter

__version__ = "0.1.0"

__all__ = ["LamportClock", "VectorClock", "WallClock", "HistoryRecorder", "StreamResult", "KvModel", "bytes_digest",
           "page_digest", "pages", "reference", "token", "ProcessLog", "TraceWriter", "__version__"]
