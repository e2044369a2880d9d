"""Trace contract v2 writers (docs/trace-format.md).

``TraceWriter`` writes one trace: its header, then one event per line. It checks
what it can check cheaply and locally, the fields of each event type and the
reading rules on numbers, and raises ``ValueError`` naming the event and the field
otherwise. It checks nothing the spec judges (whether a step is allowed).

``ProcessLog`` writes one process's log of a run with per-process logs: the same
header plus ``process``, and every event stamped with the process's clock, a vector
clock (``vc``), a Lamport clock (``lc``), or its wall clock only (``t``, with the
header's ``skew_ms``).
"""

import io
import json
import math
import os
import re
import threading

MAX_INT = 2147483647
MAX_CONTEXT = 16777216           # 2^24 positions, a request's context
MAX_DEPTH = 64                   # nesting on one line, the line's object included
MAX_NUMBER_CHARS = 1000
MAX_STRING_CHARS = 20000000
MAX_NAME_CHARS = 50000

POLICIES = ("lumen", "lumen-dual", "stop-and-restart", "fixed-checkpointing", "lumen-no-placement", "lumen-no-routing",
            "lumen-no-assist", "lumen-placement-only", "lumen-routing-only", "lumen-assist-only")
OBSERVES = {"Place": ("logged", "hidden"), "loads": ("cited", "hidden"), "Decode": ("step", "batch"),
            "StreamPage": ("logged", "sizes"), "hiddenSteps": (1, 64), "candidates": (1, 1000000)}
DECISIONS = ("Place", "Route", "Assist", "DraftReady")
PHASED = ("Prefill", "Decode", "StreamPage", "Route", "FullReady")
_HEX16 = re.compile(r"[0-9a-fA-F]{16}\Z")

# What each event type carries: required fields, optional fields (besides type, t and ext).
EVENTS = {
    "Arrive": (("req", "worker", "promptLen", "ref"), ("maxOut",)),
    "Place": (("req", "holder"), ("loads", "backup", "reserved")),
    "Prefill": (("req", "worker", "tokens", "pages"), ()),
    "Decode": (("req", "worker", "tokens", "pages"), ()),
    "StreamPage": (("req", "holder", "ckpt", "pages"), ()),
    "Complete": (("req", "worker", "freed"), ()),
    "Fail": (("worker", "interrupted", "orphaned"), ("promoted",)),
    "Route": (("req", "mode", "worker", "resumed", "freed"), ("loads", "pages")),
    "Restart": (("worker",), ()),
    "DraftReady": (("worker",), ("target", "loads")),
    "Assist": (("worker", "req", "draft"), ("loads",)),
    "FullReady": (("worker", "dropped"), ()),
    "ZombieToken": (("worker", "req", "token", "accepted"), ("epoch",)),
    "ZombiePage": (("worker", "req", "holder", "accepted"), ("epoch", "pages")),
    "ZombieAck": (("worker", "req", "accepted"), ("epoch",)),
    "ZombieStops": (("worker",), ()),
}
# The begin and chunk forms (docs/trace-format.md, "Begin and end").
FORMS = {
    ("Prefill", "begin"): (("req", "worker"), ("pages",)),
    ("Decode", "begin"): (("req", "worker"), ("pages",)),
    ("StreamPage", "begin"): (("req",), ("holder",)),
    ("Route", "begin"): (("req",), ()),
    ("FullReady", "begin"): (("worker",), ()),
    ("Prefill", "chunk"): (("req", "worker", "pages"), ()),
}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and (math.isfinite(v) if isinstance(v, float) else abs(v) < 1e308))


class _Checker:
    """The reading rules on one header's config, applied to each event it writes."""

    def __init__(self, config, observes, steps):
        self.config = self.check_config(config)
        self.workers = config["workers"]
        self.page_tokens = config["pageTokens"]
        self.observes = self.check_observes(observes)
        if steps not in (None, "begin-end"):
            raise ValueError("header: field 'steps' must be \"begin-end\" or absent, got %r" % (steps,))
        self.steps = steps
        cited = str(config.get("readings", {}).get("citedLoads", "exact"))
        self.loads_required = cited.startswith("stale") and self.observes.get("loads") != "hidden"

    # ------------------------------------------------------------ the header
    @staticmethod
    def check_config(config):
        if not isinstance(config, dict):
            raise ValueError("header: field 'config' must be an object, got %r" % (config,))
        need = ("policy", "workers", "alpha", "beta", "theta", "tau", "budget", "pageTokens", "k")
        for name in need:
            if name not in config:
                raise ValueError("header: config is missing field '%s'" % name)
        for name in config:
            if name not in need and name != "readings":
                raise ValueError("header: config has an unknown field '%s'" % name)
        if config["policy"] not in POLICIES:
            raise ValueError("header: config field 'policy' must be one of %s, got %r" % (", ".join(POLICIES), config["policy"]))
        _int("header", "config.workers", config["workers"], 2, 4096)
        for name in ("alpha", "beta"):
            _number("header", "config." + name, config[name])
            if config[name] < 0:
                raise ValueError("header: config field '%s' must be >= 0, got %r" % (name, config[name]))
        _number("header", "config.theta", config["theta"])
        _int("header", "config.tau", config["tau"], 0, MAX_INT)
        _int("header", "config.budget", config["budget"], 0, MAX_INT)
        _int("header", "config.pageTokens", config["pageTokens"], 1, 65536)
        _int("header", "config.k", config["k"], 1, 64)
        if "readings" in config and not isinstance(config["readings"], dict):
            raise ValueError("header: config field 'readings' must be an object, got %r" % (config["readings"],))
        return config

    @staticmethod
    def check_observes(observes):
        if observes is None:
            return {}
        if not isinstance(observes, dict):
            raise ValueError("header: field 'observes' must be an object, got %r" % (observes,))
        for name, value in observes.items():
            if name not in OBSERVES:
                raise ValueError("header: field 'observes' has an unknown field '%s' (known: %s)" % (name, ", ".join(OBSERVES)))
            allowed = OBSERVES[name]
            if isinstance(allowed[0], int):
                _int("header", "observes." + name, value, allowed[0], allowed[1])
            elif value not in allowed:
                raise ValueError("header: field 'observes.%s' must be %s, got %r" % (name, " or ".join('"%s"' % a for a in allowed), value))
        return dict(observes)

    # ------------------------------------------------------------ the events
    def event(self, obj):
        """Checks one event line (a dict with ``type``); the clock fields are the caller's."""
        etype = obj.get("type")
        if etype not in EVENTS:
            raise ValueError("unknown event type %r (known: %s)" % (etype, ", ".join(EVENTS)))
        phase = obj.get("phase")
        where = etype if phase is None else "%s %s" % (etype, phase)
        if phase is not None:
            if self.steps != "begin-end":
                raise ValueError("%s: field 'phase' needs a header with \"steps\":\"begin-end\"" % etype)
            if etype not in PHASED or phase not in ("begin", "chunk", "end"):
                raise ValueError("%s: no %r form: begin and end are for Prefill, Decode, StreamPage, Route and FullReady,"
                                 " chunk for Prefill" % (etype, phase))
        fields = {k: v for k, v in obj.items() if k not in ("type", "phase", "t", "ext")}
        if "t" in obj:
            _number(where, "t", obj["t"])
        if "ext" in obj:
            _ext(where, obj["ext"])
        if phase in ("begin", "chunk"):
            if (etype, phase) not in FORMS:
                raise ValueError("%s: no %r form: chunk is for Prefill only" % (etype, phase))
            required, optional = FORMS[(etype, phase)]
            self._fields(where, fields, required, optional)
            return
        batch = etype == "Decode" and self.observes.get("Decode") == "batch" and "batch" in fields
        sizes = etype == "StreamPage" and self.observes.get("StreamPage") == "sizes" and "sizes" in fields
        if batch:
            self._fields(where, fields, ("worker", "batch"), ())
            return
        if sizes:
            self._fields(where, fields, ("sizes",), ())
            return
        required, optional = EVENTS[etype]
        if etype in ("Prefill", "Decode") and phase == "end":
            required, optional = ("req", "worker", "tokens"), ("pages",)
        if etype == "StreamPage" and self.observes.get("StreamPage") == "sizes":
            required = ("req", "holder", "ckpt")
        if etype == "Route" and fields.get("mode") == "RESTORE":
            required, optional = required + ("pages",), ("loads",)
        if self.loads_required and (etype in ("Place", "Route", "Assist") or (etype == "DraftReady" and "target" in fields)):
            required, optional = required + ("loads",), tuple(o for o in optional if o != "loads")
        if self.observes.get("loads") == "hidden" and "loads" in fields:
            raise ValueError("%s: field 'loads' is cited, but the header's observes says \"loads\":\"hidden\"" % where)
        self._fields(where, fields, required, optional)
        if etype == "Arrive":
            if fields["promptLen"] + len(fields["ref"]) > MAX_CONTEXT:
                raise ValueError("Arrive: promptLen + the length of ref must be at most %d, got %d"
                                 % (MAX_CONTEXT, fields["promptLen"] + len(fields["ref"])))
            if "maxOut" in fields and fields["maxOut"] < len(fields["ref"]):
                raise ValueError("Arrive: field 'maxOut' must be at least the length of ref (%d), got %d"
                                 % (len(fields["ref"]), fields["maxOut"]))
        if etype == "Route" and fields["mode"] == "REPREFILL" and fields.get("pages"):
            raise ValueError("Route: a REPREFILL restores nothing: field 'pages' must be absent or [], got %s" % _cut(fields["pages"]))

    def _fields(self, where, fields, required, optional):
        for name in required:
            if name not in fields:
                raise ValueError("%s: missing field '%s'" % (where, name))
        for name, value in fields.items():
            if name not in required and name not in optional:
                raise ValueError("%s: unknown field '%s' (this form carries %s)"
                                 % (where, name, ", ".join(("type",) + tuple(required) + tuple(optional) + ("t", "ext"))))
            self.field(where, name, value)

    def field(self, where, name, v, label=None):
        lab = label or name
        if name == "req":
            _int(where, lab, v, 0, MAX_INT)
        elif name in ("worker", "target"):
            _int(where, lab, v, 0, self.workers - 1)
        elif name in ("holder", "backup"):
            if v is not None or where.startswith(("StreamPage", "ZombiePage")):
                _int(where, lab, v, 0, self.workers - 1)
        elif name in ("ckpt", "freed", "resumed", "epoch", "maxOut"):
            _int(where, lab, v, 0, MAX_INT)
        elif name == "promptLen":
            _int(where, lab, v, 1, MAX_CONTEXT - 1)
        elif name == "ref":
            _list(where, lab, v, lambda f, x: _int(where, f, x, 0, MAX_INT), least=1)
        elif name in ("tokens", "draft"):
            _list(where, lab, v, lambda f, x: _int(where, f, x, -MAX_INT, MAX_INT), least=1 if name == "draft" else 0)
        elif name == "token":
            _int(where, lab, v, -MAX_INT, MAX_INT)
        elif name in ("interrupted", "orphaned", "promoted", "dropped"):
            _list(where, lab, v, lambda f, x: _int(where, f, x, 0, MAX_INT))
        elif name == "loads":
            _list(where, lab, v, lambda f, x: _number(where, f, x), exactly=self.workers)
        elif name == "reserved":
            _list(where, lab, v, lambda f, x: _int(where, f, x, 0, MAX_INT), exactly=self.workers)
        elif name == "mode":
            if v not in ("RESTORE", "REPREFILL"):
                raise ValueError("%s: field '%s' must be \"RESTORE\" or \"REPREFILL\", got %s" % (where, lab, _cut(v)))
        elif name == "accepted":
            if not isinstance(v, bool):
                raise ValueError("%s: field '%s' must be true or false, got %s" % (where, lab, _cut(v)))
        elif name == "pages":
            self.pages(where, v, lab)
        elif name == "batch":
            _list(where, lab, v, lambda f, e: self._entry(where, f, e, ("req", "tokens", "pages")), least=1)
        elif name == "sizes":
            _list(where, lab, v, lambda f, e: self._entry(where, f, e, ("req", "holder", "ckpt")), least=1)
        else:                                            # pragma: no cover (every name above is listed)
            raise ValueError("%s: unknown field '%s'" % (where, lab))

    def _entry(self, where, f, e, names):
        if not isinstance(e, dict):
            raise ValueError("%s: field '%s' must be an object, got %s" % (where, f, _cut(e)))
        for n in names:
            if n not in e:
                raise ValueError("%s: field '%s' is missing '%s'" % (where, f, n))
        for n, x in e.items():
            if n not in names:
                raise ValueError("%s: field '%s' has an unknown field '%s' (an entry carries %s)" % (where, f, n, ", ".join(names)))
            if n == "holder":
                _int(where, f + ".holder", x, 0, self.workers - 1)
            else:
                self.field(where, n, x, "%s.%s" % (f, n))

    def pages(self, where, v, label="pages"):
        pt = self.page_tokens
        last = [0]

        def entry(f, e):
            if not isinstance(e, (list, tuple)) or len(e) != 3:
                raise ValueError("%s: field '%s' must be [first, count, \"digest\"], got %s" % (where, f, _cut(e)))
            first, count, digest = e
            _int(where, f + " first", first, 1, MAX_CONTEXT)
            if (first - 1) % pt:
                raise ValueError("%s: field '%s': first position %d is not the first position of a page of %d positions"
                                 % (where, f, first, pt))
            _int(where, f + " count", count, 1, pt)
            if not isinstance(digest, str) or not _HEX16.match(digest):
                raise ValueError("%s: field '%s': the digest must be 16 hexadecimal digits, got %s" % (where, f, _cut(digest)))
            if first <= last[0]:
                raise ValueError("%s: field '%s': pages must be in increasing order, one per page (%d after %d)"
                                 % (where, f, first, last[0]))
            last[0] = first
        _list(where, label, v, entry)


def _cut(v):
    try:
        text = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 200 else text[:200] + "... (%d characters)" % len(text)


def _int(where, name, v, lo, hi):
    if not _is_int(v):
        raise ValueError("%s: field '%s' must be an integer, got %s" % (where, name, _cut(v)))
    if not lo <= v <= hi:
        raise ValueError("%s: field '%s' must be within %d..%d, got %d" % (where, name, lo, hi, v))


def _number(where, name, v):
    if not _is_number(v):
        raise ValueError("%s: field '%s' must be a finite number, got %s" % (where, name, _cut(v)))


def _list(where, name, v, each, least=0, exactly=None):
    if not isinstance(v, (list, tuple)):
        raise ValueError("%s: field '%s' must be an array, got %s" % (where, name, _cut(v)))
    if exactly is not None and len(v) != exactly:
        raise ValueError("%s: field '%s' must hold exactly one element per worker (%d), got %d" % (where, name, exactly, len(v)))
    if len(v) < least:
        raise ValueError("%s: field '%s' must hold at least %d element%s, got none" % (where, name, least, "" if least == 1 else "s"))
    for i, x in enumerate(v):
        each("%s[%d]" % (name, i), x)


def _ext(where, ext):
    if not isinstance(ext, dict):
        raise ValueError("%s: field 'ext' must be an object, got %s" % (where, _cut(ext)))
    stack = [(ext, 2, "ext")]                         # the line's object is depth 1
    while stack:
        v, depth, path = stack.pop()
        if isinstance(v, (dict, list, tuple)):
            if depth > MAX_DEPTH:
                raise ValueError("%s: field '%s' nests deeper than %d levels on one line" % (where, path, MAX_DEPTH))
            if isinstance(v, dict):
                for k, x in v.items():
                    if not isinstance(k, str):
                        raise ValueError("%s: field '%s' has a key that is not a string: %r" % (where, path, k))
                    if len(k) > MAX_NAME_CHARS:
                        raise ValueError("%s: field '%s' has a key longer than %d characters" % (where, path, MAX_NAME_CHARS))
                    stack.append((x, depth + 1, path + "." + k[:40]))
            else:
                stack.extend((x, depth + 1, "%s[%d]" % (path, i)) for i, x in enumerate(v))
        elif isinstance(v, str):
            if len(v) > MAX_STRING_CHARS:
                raise ValueError("%s: field '%s' is a string longer than %d characters" % (where, path, MAX_STRING_CHARS))
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise ValueError("%s: field '%s' must be a finite number, got %r" % (where, path, v))
        elif _is_int(v):
            if len(str(v)) > MAX_NUMBER_CHARS:
                raise ValueError("%s: field '%s' is a number literal longer than %d characters" % (where, path, MAX_NUMBER_CHARS))
        elif not (v is None or isinstance(v, bool)):
            raise ValueError("%s: field '%s' is not JSON: %r" % (where, path, v))


def dumps(obj):
    """One trace line: compact JSON, UTF-8 text, no line end."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class _Sink:
    """Where lines go: a path, a binary or a text file, or a callable taking one str line (with its LF)."""

    def __init__(self, out, flush):
        self.owned = isinstance(out, (str, bytes, os.PathLike))
        if self.owned:
            out = open(out, "wb")
        self.out, self.flush_each = out, flush
        self.text = isinstance(out, io.TextIOBase)
        self.call = callable(out) and not hasattr(out, "write")

    def write(self, line):
        data = line + "\n"
        if self.call:
            self.out(data)
            return
        try:
            encoded = data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError("the line is not valid UTF-8 text (%s)" % exc.reason) from None
        self.out.write(data if self.text else encoded)
        if self.flush_each:
            self.out.flush()

    def flush(self):
        if not self.call:
            self.out.flush()

    def close(self):
        if self.owned:
            self.out.close()
        elif not self.call:
            self.out.flush()


class _SinkOwner:
    """What a writer of lines into a ``_Sink`` under ``self._lock`` does at its end: flush,
    close (the file too when the writer opened it), and the ``with`` block."""

    def flush(self):
        with self._lock:
            self._sink.flush()

    def close(self):
        """Flushes, and closes the file when the writer opened it."""
        with self._lock:
            self._sink.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class TraceWriter(_SinkOwner):
    """One trace of contract v2: the header, then one event per line.

    ``out``: a path (the file is created), a binary or text file, or a callable that
    takes each line (a str ending in LF). ``config``: the header's config (the spec's
    constants; ``readings`` optional). ``observes``: the partial trace's declaration
    (docs/trace-format.md, "Partial traces"), e.g. ``{"Place": "hidden"}``.
    ``steps="begin-end"``: the trace may write steps in parts (``begin``, ``chunk``,
    ``end``). ``header=False``: write the events only (an adapter's reply: the kit
    writes the header). ``flush``: flush after every line (a log that must survive a
    crash). ``check=False`` skips the checks (serialisation only).

    Thread-safe: lines are written whole and in the order the calls take the lock.
    """

    def __init__(self, out, config, observes=None, steps=None, ext=None, header=True, flush=True, check=True):
        self._check = check
        self._rules = _Checker(config, observes, steps) if check else None
        self._lock = threading.RLock()
        self._last_t = None
        self.lines = 0
        self.header = {"type": "header", "format": "lumen-trace", "version": 2}
        if steps is not None:
            self.header["steps"] = steps
        if observes:
            self.header["observes"] = dict(observes)
        self._head()
        self.header["config"] = config
        if ext is not None:
            if check:
                _ext("header", ext)
            self.header["ext"] = ext
        self._sink = _Sink(out, flush)
        if header:
            self._write(self.header)

    def _head(self):
        """Adds what a subclass's header carries besides the trace's."""

    # ----------------------------------------------------------------- API
    def event(self, type, **fields):
        """Writes one event: ``event("Arrive", t=0.0, req=0, worker=0, promptLen=24, ref=[...])``.
        Fields are written in the order given, after ``type``. Returns the line's object."""
        obj = {"type": type}
        obj.update(fields)
        return self.write(obj)

    def begin(self, type, **fields):
        """The begin form of a step (header ``steps="begin-end"``)."""
        return self._phased(type, "begin", fields)

    def chunk(self, type, **fields):
        """A chunk of a begun ``Prefill``: part of its ``pages``."""
        return self._phased(type, "chunk", fields)

    def end(self, type, **fields):
        """The end form: the step as an atomic event writes it (a Prefill's or Decode's end
        needs only the pages its begin and chunks did not carry)."""
        return self._phased(type, "end", fields)

    def write(self, obj):
        """Writes one event given as a dict (with ``type``); returns the object written."""
        with self._lock:
            obj = dict(obj)
            if self._check:
                self._rules.event(self._plain(obj))
            obj = self._stamp(obj)
            if self._check:
                self._check_time(obj)
            self._write(obj)
            self._commit(obj)
            return obj

    # ------------------------------------------------------------ internals
    def _phased(self, type, phase, fields):
        obj = {"type": type, "phase": phase}
        obj.update(fields)
        return self.write(obj)

    def _plain(self, obj):
        """The event less what this writer's clock adds: what the reading rules of a trace judge."""
        return obj

    def _stamp(self, obj):
        return obj

    def _commit(self, obj):
        pass

    def _check_time(self, obj):
        if "t" in obj:
            t = obj["t"]
            if self._last_t is not None and t < self._last_t:
                raise ValueError("%s: time goes backwards: t=%r after t=%r" % (obj["type"], t, self._last_t))
            self._last_t = t

    def _write(self, obj):
        try:
            line = dumps(obj)
        except ValueError as exc:
            raise ValueError("%s: %s" % (obj.get("type"), exc)) from None
        except TypeError as exc:
            raise ValueError("%s: not JSON: %s" % (obj.get("type"), exc)) from None
        self._sink.write(line)
        self.lines += 1


class ProcessLog(TraceWriter):
    """One process's log of a run with per-process logs (docs/trace-format.md).

    ``process``: the process's name (``"gateway"``, ``"worker-0"``, ...). ``clock``:

    * a ``VectorClock`` of this process, or ``"vc"``: every event carries ``vc``, the
      clock's value after counting the event;
    * a ``LamportClock``, or ``"lc"``: every event carries ``lc``, the clock ticked;
    * a ``WallClock``, or ``"wall"`` with ``skew_ms``: the header carries ``skew_ms``
      (the bound on the difference between any two processes' clocks, in ms) and every
      event carries ``t``, the process's own wall clock in ms, a number or
      ``[start, end]`` for a step with a start and an end; no ``vc`` or ``lc``.

    With a clock object the log stamps each event itself; with a string the caller
    passes ``vc=``, ``lc=`` or ``t=`` on every event. Either way the log checks that
    the clock never goes back along the log, and that a vector clock's own entry counts
    this log's events (1 for the first, 2 for the second, ...).
    """

    def __init__(self, out, config, process, clock, skew_ms=None, observes=None, steps=None, ext=None, flush=True,
                 check=True):
        from .clock import LamportClock, VectorClock, WallClock
        if not isinstance(process, str) or not process:
            raise ValueError("header: field 'process' must be a non-empty string, got %r" % (process,))
        self.process = process
        if isinstance(clock, VectorClock) or clock == "vc":
            self.kind = "vc"
        elif isinstance(clock, LamportClock) or clock == "lc":
            self.kind = "lc"
        elif isinstance(clock, WallClock) or clock == "wall":
            self.kind = "wall"
        else:
            raise ValueError("clock must be a VectorClock, a LamportClock, a WallClock, or \"vc\", \"lc\" or \"wall\", got %r"
                             % (clock,))
        self.clock = None if isinstance(clock, str) else clock
        if self.kind == "vc" and self.clock is not None and self.clock.process != process:
            raise ValueError("the vector clock belongs to process %r, not %r" % (self.clock.process, process))
        if self.kind == "wall":
            if skew_ms is None and self.clock is not None:
                skew_ms = self.clock.skew_ms
            if not _is_number(skew_ms) or skew_ms < 0:
                raise ValueError("header: field 'skew_ms' must be a non-negative finite number, got %s" % _cut(skew_ms))
        elif skew_ms is not None:
            raise ValueError("header: field 'skew_ms' is for logs with wall-clock time only")
        self.skew_ms = skew_ms
        self._events = 0
        self._vc = {}
        self._lc = None
        self._span = None                 # (start, end) of the last wall-clock time
        super().__init__(out, config, observes=observes, steps=steps, ext=ext, header=True, flush=flush, check=check)

    def _head(self):
        self.header["process"] = self.process
        if self.kind == "wall":
            self.header["skew_ms"] = self.skew_ms

    def _stamp(self, obj):
        kind = self.kind
        if kind == "wall":
            if "t" not in obj:
                if self.clock is None:
                    raise ValueError("%s: missing field 't' (a log with wall-clock time only)" % obj["type"])
                obj["t"] = self.clock.now()
        elif kind not in obj:
            if self.clock is None:
                raise ValueError("%s: missing field '%s' (every event of a per-process log carries its clock)" % (obj["type"], kind))
            obj[kind] = self.clock.tick()
        return obj

    def _check_time(self, obj):
        where = obj["type"]
        if self.kind == "vc":
            vc = obj["vc"]
            if not isinstance(vc, dict):
                raise ValueError("%s: field 'vc' must be an object {process: count}, got %s" % (where, _cut(vc)))
            for p, n in vc.items():
                if not isinstance(p, str) or not p:
                    raise ValueError("%s: field 'vc' has a key that is not a process name: %r" % (where, p))
                _int(where, "vc." + p, n, 0, MAX_INT)
            own = vc.get(self.process, 0)
            if own != self._events + 1:
                raise ValueError("%s: field 'vc.%s' must count this process's events: %d for its event number %d, got %d"
                                 % (where, self.process, self._events + 1, self._events + 1, own))
            for p, n in self._vc.items():
                if vc.get(p, 0) < n:
                    raise ValueError("%s: field 'vc.%s' goes back along this log: %d, then %d" % (where, p, n, vc.get(p, 0)))
        elif self.kind == "lc":
            lc = obj["lc"]
            _int(where, "lc", lc, 0, MAX_INT)
            if self._lc is not None and lc <= self._lc:
                raise ValueError("%s: field 'lc' must grow along a process's log: %d after %d" % (where, lc, self._lc))
        if self.kind == "wall":
            start, end = self._wall(where, obj["t"])
            if self._span is not None and (start < self._span[0] or end < self._span[1]):
                raise ValueError("%s: time goes backwards along this log: t=%s after t=%s"
                                 % (where, _cut(obj["t"]), _cut(list(self._span) if self._span[0] != self._span[1]
                                                                else self._span[0])))
        elif "t" in obj:
            _number(where, "t", obj["t"])         # each process's own clock: the merge drops it

    @staticmethod
    def _wall(where, t):
        if isinstance(t, (list, tuple)):
            if len(t) != 2:
                raise ValueError("%s: field 't' must be a number or [start, end], got %s" % (where, _cut(t)))
            _number(where, "t[0]", t[0])
            _number(where, "t[1]", t[1])
            if t[0] > t[1]:
                raise ValueError("%s: field 't' must have start <= end, got %s" % (where, _cut(t)))
            return t[0], t[1]
        _number(where, "t", t)
        return t, t

    def _plain(self, obj):
        for other in ("vc", "lc"):
            if other in obj and other != self.kind:
                raise ValueError("%s: field '%s' in a log whose clock is %s" % (obj.get("type"), other,
                                 "the wall clock (t only)" if self.kind == "wall" else "'%s'" % self.kind))
        return {k: v for k, v in obj.items() if k not in ("vc", "lc") and not (k == "t" and self.kind == "wall")}

    def _commit(self, obj):
        self._events += 1
        if self.kind == "vc":
            self._vc = dict(obj["vc"])
        elif self.kind == "lc":
            self._lc = obj["lc"]
        else:
            self._span = self._wall(obj["type"], obj["t"])
