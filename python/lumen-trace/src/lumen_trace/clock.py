"""Clocks for per-process logs, and carrying them on calls (HTTP headers, gRPC metadata).

docs/trace-format.md, "Per-process logs": every event of a process's log carries
its clock, so that the kit can merge the logs in an order the clocks allow.

* ``LamportClock``: an integer that grows along each log and exceeds the clock of
  every event that happened before. A local event ticks; sending ticks and carries
  the value; receiving takes the maximum of the two and ticks.
* ``VectorClock``: ``{process: count}``. The reader requires a process's own entry
  to be exactly the number of events in its log (1 for its first event, 2 for its
  second, ...), and every other entry to count events of that process's log. So only
  a logged event ticks (``tick``, which ``ProcessLog`` calls); sending carries the
  current vector without ticking, and receiving takes the entry-wise maximum without
  ticking: a send or a receive is not an event of the log. The next logged event
  then counts what was received.
* ``WallClock``: the process's own wall clock in milliseconds, for logs with
  wall-clock time only (the header's ``skew_ms`` bounds the difference between any
  two processes' clocks).

``inject(carrier)`` puts the clock on an outgoing call and ``extract(carrier)``
merges the clock an incoming call or reply carries. A carrier may be:

* a ``urllib.request.Request`` (``add_header``, ``get_header``);
* an ``http.server.BaseHTTPRequestHandler`` (``send_header`` on a reply; its
  ``headers`` on a request);
* an ``email.message.Message`` / ``http.client.HTTPMessage`` (a handler's
  ``headers``, a ``urllib`` response's ``headers``);
* a mapping: a plain ``dict`` (as ``requests``, ``httpx`` and ``aiohttp`` take
  headers), or their case-insensitive header classes;
* gRPC metadata: a list of ``(key, value)`` pairs (extended in place), a tuple of them
  (``inject`` returns a new tuple), or what ``ServicerContext.invocation_metadata()``
  returns.

Header names are matched without regard to case; the values are ASCII JSON.
"""

import json
import threading
import time
from collections.abc import Mapping, MutableMapping

LC_HEADER = "x-lumen-lc"
VC_HEADER = "x-lumen-vc"
MAX_INT = 2147483647


# --------------------------------------------------------------- carriers
def set_header(carrier, name, value):
    """Puts ``name: value`` on ``carrier`` (replacing one already there); returns the
    carrier (a new tuple when the carrier is a tuple of pairs)."""
    if hasattr(carrier, "add_header") and hasattr(carrier, "get_header"):          # urllib.request.Request
        for key in [k for k, _ in carrier.header_items() if k.lower() == name.lower()]:
            carrier.remove_header(key)
        carrier.add_header(name, value)
        return carrier
    if hasattr(carrier, "send_header"):                                            # BaseHTTPRequestHandler
        carrier.send_header(name, value)
        return carrier
    if hasattr(carrier, "get_all") and hasattr(carrier, "replace_header"):         # email.message.Message
        del carrier[name]
        carrier[name] = value
        return carrier
    if isinstance(carrier, MutableMapping) or (hasattr(carrier, "__setitem__") and hasattr(carrier, "keys")):
        for key in [k for k in list(carrier.keys()) if isinstance(k, str) and k.lower() == name.lower() and k != name]:
            del carrier[key]
        carrier[name] = value
        return carrier
    if isinstance(carrier, list):                                                  # gRPC metadata
        carrier[:] = [(k, v) for k, v in carrier if str(k).lower() != name.lower()]
        carrier.append((name, value))
        return carrier
    if isinstance(carrier, tuple):
        return tuple((k, v) for k, v in carrier if str(k).lower() != name.lower()) + ((name, value),)
    raise TypeError("cannot put a header on %r: give a dict, a urllib Request, an HTTP handler or message,"
                    " or gRPC metadata as (key, value) pairs" % (type(carrier).__name__,))


def get_header(carrier, name):
    """The value of header ``name`` on ``carrier`` (any shape ``set_header`` takes), or None."""
    if carrier is None:
        return None
    if hasattr(carrier, "add_header") and hasattr(carrier, "header_items"):        # urllib.request.Request
        return _first((k, v) for k, v in carrier.header_items() if k.lower() == name.lower())
    if hasattr(carrier, "send_header") and hasattr(carrier, "headers"):            # BaseHTTPRequestHandler
        return get_header(carrier.headers, name)
    if hasattr(carrier, "get_all"):                                                # email.message.Message
        return carrier.get(name)
    if isinstance(carrier, Mapping) or hasattr(carrier, "items"):
        if hasattr(carrier, "get"):
            direct = carrier.get(name)
            if direct is not None:
                return _text(direct)
        return _first((k, v) for k, v in carrier.items() if isinstance(k, (str, bytes)) and _text(k).lower() == name.lower())
    try:
        pairs = list(carrier)
    except TypeError:
        raise TypeError("cannot read a header from %r" % (type(carrier).__name__,)) from None
    return _first((k, v) for k, v in pairs if _text(k).lower() == name.lower())


def _text(v):
    return v.decode("ascii") if isinstance(v, (bytes, bytearray)) else v


def _first(pairs):
    for _, v in pairs:
        return _text(v)
    return None


# ------------------------------------------------------------------ clocks
class LamportClock:
    """A thread-safe Lamport clock."""

    header = LC_HEADER

    def __init__(self, value=0):
        self._value = _count("lc", value)
        self._lock = threading.Lock()

    @property
    def value(self):
        return self._value

    def tick(self):
        """A local event (what ``ProcessLog`` calls for each event): the clock plus one."""
        with self._lock:
            self._value = _count("lc", self._value + 1)
            return self._value

    def send(self):
        """Sending is an event: ticks, and returns the value to carry."""
        return self.tick()

    def receive(self, remote):
        """Receiving: the maximum of the two, plus one."""
        remote = _count("a received Lamport clock", remote)
        with self._lock:
            self._value = _count("lc", max(self._value, remote) + 1)
            return self._value

    def inject(self, carrier):
        """Sends: puts ``x-lumen-lc`` on an outgoing call or reply; returns the carrier."""
        return set_header(carrier, LC_HEADER, str(self.send()))

    def extract(self, carrier):
        """Receives the clock ``carrier`` holds, if any; returns the clock's value then, or None
        (and leaves the clock alone) when the carrier has none."""
        return _extract(self, carrier, LC_HEADER, "an integer")

    def __repr__(self):
        return "LamportClock(%d)" % self._value


def _extract(clock, carrier, name, what):
    """Receives on ``clock`` the JSON value of header ``name`` on ``carrier``; None when it has none."""
    text = get_header(carrier, name)
    if text is None:
        return None
    try:
        remote = json.loads(text)
    except ValueError:
        raise ValueError("header %s: not %s: %r" % (name, what, text[:200])) from None
    return clock.receive(remote)


class VectorClock:
    """A thread-safe vector clock of process ``process``, as per-process logs count:
    its own entry counts the events of its log, and only ``tick`` (one logged event)
    raises it."""

    header = VC_HEADER

    def __init__(self, process, counts=None):
        if not isinstance(process, str) or not process:
            raise ValueError("a vector clock's process must be a non-empty string, got %r" % (process,))
        self.process = process
        self._counts = _vector(counts or {})
        self._lock = threading.Lock()

    @property
    def value(self):
        """A copy of the current vector."""
        with self._lock:
            return dict(self._counts)

    def tick(self):
        """One event of this process's log: its own entry plus one; returns a copy of the vector."""
        with self._lock:
            self._counts[self.process] = _count("vc." + self.process, self._counts.get(self.process, 0) + 1)
            return dict(self._counts)

    def send(self):
        """The vector to carry on a message: what this process has logged and heard of so far."""
        return self.value

    def receive(self, remote):
        """Merges a received vector: the entry-wise maximum. Returns a copy of the vector."""
        remote = _vector(remote)
        with self._lock:
            for p, n in remote.items():
                if n > self._counts.get(p, 0):
                    self._counts[p] = n
            return dict(self._counts)

    def inject(self, carrier):
        """Sends: puts ``x-lumen-vc`` (the vector as JSON) on an outgoing call or reply; returns the carrier."""
        return set_header(carrier, VC_HEADER, json.dumps(self.send(), separators=(",", ":"), sort_keys=True))

    def extract(self, carrier):
        """Merges the vector ``carrier`` holds, if any; returns the vector then, or None when it has none."""
        return _extract(self, carrier, VC_HEADER, "a JSON object")

    def __repr__(self):
        return "VectorClock(%r, %r)" % (self.process, self.value)


class WallClock:
    """A process's own wall clock in milliseconds, for logs with wall-clock time only.

    ``now()`` is ``time.time() * 1000`` by default, held from going back (a clock
    stepped back by NTP reads as standing still until it catches up). ``skew_ms`` is
    the bound the logs' headers declare on the difference between any two processes'
    clocks; keeping it true (NTP, PTP) is the system's part.
    """

    def __init__(self, skew_ms, source=None):
        if isinstance(skew_ms, bool) or not isinstance(skew_ms, (int, float)) or not skew_ms >= 0 or skew_ms == float("inf"):
            raise ValueError("skew_ms must be a non-negative finite number, got %r" % (skew_ms,))
        self.skew_ms = skew_ms
        self._source = source or (lambda: time.time() * 1000.0)
        self._last = None
        self._lock = threading.Lock()

    def now(self):
        """The time now, in ms, never less than a time it returned before."""
        with self._lock:
            t = self._source()
            if self._last is not None and t < self._last:
                t = self._last
            self._last = t
            return t

    def span(self):
        """A step's start and end: ``s = clock.span()`` before the step, ``t=s.end()`` after it
        gives ``[start, end]``."""
        return _Span(self)


class _Span:
    def __init__(self, clock):
        self.clock, self.start = clock, clock.now()

    def end(self):
        return [self.start, self.clock.now()]


def _count(what, n):
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_INT:
        raise ValueError("%s must be an integer from 0 to %d, got %r" % (what, MAX_INT, n))
    return n


def _vector(v):
    if not isinstance(v, dict):
        raise ValueError("a vector clock must be an object {process: count}, got %r" % (v,))
    out = {}
    for p, n in v.items():
        if not isinstance(p, str) or not p:
            raise ValueError("a vector clock's keys must be process names, got %r" % (p,))
        out[p] = _count("vc." + p, n)
    return out
