"""Client histories (docs/history-format.md): what the clients sent and received.

``HistoryRecorder`` writes one history, a JSON object per line in the order the
client side received them: ``request`` when a request is sent, one
``text_completion`` per streamed chunk, ``error`` when a stream breaks, ``fault``
when a fault injector fires. ``stream(...)`` / ``record_stream(...)`` consume an
OpenAI-compatible streaming response (Server-Sent Events: ``data: {...}`` lines,
then ``data: [DONE]``) of ``/v1/completions`` or ``/v1/chat/completions`` and
record each chunk as the client saw it.
"""

import json
import math
import re
import threading
import time

from .writer import _Sink, _SinkOwner, dumps


_EOL = re.compile(r"\r\n|\r|\n")
_EOL_AT_END = re.compile(r"(\r\n|\r|\n)\Z")


def _id(request):
    if isinstance(request, bool) or not isinstance(request, (str, int)):
        raise ValueError("a request id is a string or an integer, got %r" % (request,))
    return request


def _monotonic_ms():
    """Epoch milliseconds that never go back: the wall clock at the first call, moved on by the monotonic clock."""
    base = time.time() * 1000.0 - time.monotonic() * 1000.0
    return lambda: base + time.monotonic() * 1000.0


class StreamResult:
    """What a client saw of one stream."""

    def __init__(self, request):
        self.request = request
        self.token_ids = []          # every token id received, in order (token-id histories)
        self.text = ""               # the text received
        self.finish_reason = None    # "length", "stop", ... or None
        self.error = None            # the error record's message, or None
        self.done = False            # the stream ended with data: [DONE]
        self.chunks = 0              # text_completion records written

    def __repr__(self):
        return ("StreamResult(request=%r, tokens=%d, finish_reason=%r, error=%r, done=%r)"
                % (self.request, len(self.token_ids), self.finish_reason, self.error, self.done))


class HistoryRecorder(_SinkOwner):
    """Writes one client history.

    ``out``: a path, a binary or text file, or a callable taking each line.
    ``clock``: a function returning the client's time in ms (by default epoch
    milliseconds that never go back). ``token_ids``: True for a history whose chunks
    carry token ids (what the kit's token model judges), False for a text-only history,
    None to let the first chunk with content decide (docs/history-format.md: a history
    carries ``token_ids`` in every chunk or in none). Thread-safe.
    """

    def __init__(self, out, clock=None, token_ids=None, flush=True):
        self._sink = _Sink(out, flush)
        self._clock = clock or _monotonic_ms()
        self.token_ids = token_ids
        self._lock = threading.RLock()
        self._last = {}              # request -> its last record's time
        self._finished = set()
        self.lines = 0

    # --------------------------------------------------------------- records
    def request(self, request, max_tokens, seed=None, prompt_tokens=None, retries=None, t=None, **extra):
        """The client sent ``request`` (its own id, a string or an integer)."""
        request = _id(request)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError("request %r: max_tokens must be an integer >= 1, got %r" % (request, max_tokens))
        rec = {"object": "request", "request": request, "t": None}
        if prompt_tokens is not None:
            if isinstance(prompt_tokens, bool) or not isinstance(prompt_tokens, int) or prompt_tokens < 0:
                raise ValueError("request %r: prompt_tokens must be a non-negative integer, got %r" % (request, prompt_tokens))
            rec["prompt_tokens"] = prompt_tokens
        rec["max_tokens"] = max_tokens
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or not -(1 << 63) <= seed < (1 << 63):
                raise ValueError("request %r: seed must be a signed 64-bit integer, got %r" % (request, seed))
            rec["seed"] = seed
        if retries is not None:
            rec["retries"] = _id(retries)
        rec.update(extra)
        with self._lock:
            if request in self._last:
                raise ValueError("request %r was sent already: a retry is a request of its own, with a new id and"
                                 " retries=%r" % (request, request))
            if retries is not None and retries not in self._finished:
                raise ValueError("request %r retries %r, whose stream has not ended (an error record or a finish)"
                                 % (request, retries))
            return self._write(rec, request, t)

    def chunk(self, request, data, t=None):
        """One ``data:`` chunk the client received for ``request`` (the parsed JSON object).
        Completion chunks are written as they came, with ``request`` and ``t`` added; chat
        chunks (``choices[0].delta``) are written as completion chunks (``text`` from the
        delta's ``content``). Returns the record written, or None for a chunk that carries
        nothing a client sees (no choice, or no tokens, no text and no finish)."""
        with self._lock:
            rec = self._completion(request, data)
            if rec is None:
                return None
            self._write(rec, request, t)
            if rec["choices"][0].get("finish_reason") is not None:
                self._finished.add(request)
            return rec

    def error(self, request, error, t=None):
        """The stream of ``request`` failed (``error``: a message, an exception, or an object with ``message``)."""
        if isinstance(error, BaseException):
            error = {"message": "%s: %s" % (type(error).__name__, error)}
        elif not isinstance(error, (str, dict)):
            error = {"message": str(error)}
        with self._lock:
            rec = self._write({"object": "error", "request": _id(request), "t": None, "error": error}, request, t)
            self._finished.add(request)
            return rec

    def fault(self, worker=None, target=None, t=None):
        """A fault was injected (``worker``, or ``target``: free text)."""
        if (worker is None) == (target is None):
            raise ValueError("a fault names a worker or a target")
        rec = {"object": "fault", "t": None}
        if worker is not None:
            rec["worker"] = str(worker)
        else:
            rec["target"] = str(target)
        with self._lock:
            return self._write(rec, None, t)

    # --------------------------------------------------------------- streams
    def stream(self, request):
        """A consumer of ``request``'s Server-Sent Events: ``feed`` it lines (or ``feed_raw``
        pieces of the body), bytes or str, as they arrive, then ``close`` it. For async clients."""
        return SseStream(self, _id(request))

    def record_stream(self, request, lines, raw=False):
        """Consumes a whole streaming response, given as an iterable of lines or raw
        pieces (``raw=True``; bytes or str), recording each chunk as it is read. A stream that breaks
        (the iterable raises, the server sends an error object, or the stream ends with
        neither a finish nor ``[DONE]``) gets an ``error`` record; an exception from the
        iterable is raised again after it is recorded. Returns a ``StreamResult``."""
        s = self.stream(request)
        feed = s.feed_raw if raw else s.feed
        try:
            for piece in lines:
                feed(piece)
                if s.result.done or s.result.error is not None:
                    break
        except Exception as exc:
            s.fail(exc)
            raise
        return s.close()

    # ------------------------------------------------------------- internals
    def _completion(self, request, data):
        if not isinstance(data, dict):
            raise ValueError("request %r: a chunk is a JSON object, got %r" % (request, data))
        choices = data.get("choices")
        if not choices:
            return None
        if len(choices) != 1 or choices[0].get("index", 0) != 0:
            raise ValueError("request %r: a history has one choice per stream (n=1), got %s" % (request, json.dumps(choices)[:200]))
        choice = choices[0]
        delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else None
        ids = choice.get("token_ids")
        if ids is None and delta is not None:
            ids = delta.get("token_ids")
        text = choice.get("text")
        if text is None and delta is not None:
            text = delta.get("content")
        finish = choice.get("finish_reason")
        if ids is None and not text and finish is None:
            return None
        if ids is not None and self.token_ids is None:
            self.token_ids = True
        elif ids is None and text and self.token_ids is None:
            self.token_ids = False
        if self.token_ids is not False and ids is None:
            if text:
                raise ValueError("request %r: a chunk with text and no token_ids in a history whose chunks carry token ids"
                                 " (ask the server for them, e.g. vLLM's return_token_ids)" % (request,))
            ids = []
        if self.token_ids is False and ids is not None:
            raise ValueError("request %r: a chunk with token_ids in a text-only history" % (request,))
        if delta is None and data.get("object", "text_completion") == "text_completion":
            rec = {"object": "text_completion", "request": _id(request), "t": None}
            rec.update((k, v) for k, v in data.items() if k not in ("object", "request", "t"))
            if ids is not None and "token_ids" not in choice:
                rec["choices"] = [dict(choice, token_ids=ids)]
            return rec
        out = {"index": 0}
        if ids is not None:
            out["token_ids"] = list(ids)
        out["text"] = text or ""
        out["finish_reason"] = finish
        rec = {"object": "text_completion", "request": _id(request), "t": None}
        rec.update((k, data[k]) for k in ("id", "model", "created") if k in data)
        rec["choices"] = [out]
        return rec

    def _write(self, rec, request, t):
        if request is not None and rec["object"] != "request" and request not in self._last:
            raise ValueError("request %r: a record before the request's own (record the request first)" % (request,))
        if t is None:
            t = self._clock()
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
            raise ValueError("the time t must be a finite number of ms, got %r" % (t,))
        if request is not None:
            last = self._last.get(request)
            if last is not None and t < last:
                raise ValueError("request %r: time goes backwards: t=%r after t=%r" % (request, t, last))
            self._last[request] = t
        rec["t"] = t
        self._sink.write(dumps(rec))
        self.lines += 1
        return rec


class SseStream:
    """Parses one response's Server-Sent Events and records what the client saw.

    ``feed(line)`` takes one line (bytes or str, its line end optional; an empty
    line is the blank line that ends an event), as ``requests``' ``iter_lines()`` or
    ``aiohttp``'s ``async for line in resp.content`` give them. ``feed_raw(piece)``
    takes any piece of the body, as ``iter_bytes()`` gives it. ``data:`` lines are
    gathered into an event until a blank line (or until the next ``data:`` line when
    the gathered data is already a whole JSON value or ``[DONE]``); comments (``:``)
    and the other fields (``event:``, ``id:``, ``retry:``) are skipped."""

    def __init__(self, recorder, request):
        self.recorder, self.request = recorder, request
        self.result = StreamResult(request)
        self._buf = ""
        self._data = []
        self._closed = False
        self._decoder = None

    def feed(self, line):
        """Feeds one line; returns the records it completed."""
        self._open()
        if isinstance(line, (bytes, bytearray, memoryview)):
            line = bytes(line).decode("utf-8", "replace")
        if line == "":
            return self._line("")
        written = []
        for part in _EOL.split(_EOL_AT_END.sub("", line, count=1)):
            written += self._line(part)
        return written

    def feed_raw(self, piece):
        """Feeds any piece of the body; returns the records it completed."""
        self._open()
        if isinstance(piece, (bytes, bytearray, memoryview)):
            if self._decoder is None:
                import codecs
                self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
            piece = self._decoder.decode(bytes(piece))
        self._buf += piece
        written = []
        while True:
            m = _EOL.search(self._buf)
            if m is None or (m.group() == "\r" and m.end() == len(self._buf)):
                break                          # no whole line yet (a CR at the end: its LF may follow)
            line, self._buf = self._buf[:m.start()], self._buf[m.end():]
            written += self._line(line)
        return written

    def _open(self):
        if self._closed:
            raise ValueError("request %r: the stream is closed" % (self.request,))

    def _line(self, line):
        if self.result.done or self.result.error is not None:
            return []
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return []
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name != "data":
            return []
        written = []
        if self._data and self._whole("\n".join(self._data)):
            written += self._dispatch()
        self._data.append(value)
        return written

    @staticmethod
    def _whole(data):
        if data.strip() == "[DONE]":
            return True
        try:
            json.loads(data)
            return True
        except ValueError:
            return False

    def _dispatch(self):
        if not self._data:
            return []
        data, self._data = "\n".join(self._data), []
        r = self.result
        if data.strip() == "[DONE]":
            r.done = True
            return []
        try:
            obj = json.loads(data)
        except ValueError:
            return [self.fail("the stream sent data that is not JSON: %s" % data[:200])]
        if isinstance(obj, dict) and "error" in obj and not obj.get("choices"):
            err = obj["error"]
            return [self.fail(err if isinstance(err, (str, dict)) else {"message": str(err)})]
        rec = self.recorder.chunk(self.request, obj)
        if rec is None:
            return []
        r.chunks += 1
        choice = rec["choices"][0]
        r.token_ids.extend(choice.get("token_ids") or [])
        r.text += choice.get("text") or ""
        if choice.get("finish_reason") is not None:
            r.finish_reason = choice["finish_reason"]
        return [rec]

    def fail(self, error):
        """Records that the stream broke (an exception, a message, or an error object)."""
        if self.result.error is not None:
            return None
        rec = self.recorder.error(self.request, error)
        self.result.error = rec["error"]["message"] if isinstance(rec["error"], dict) and "message" in rec["error"] else rec["error"]
        return rec

    def close(self):
        """Ends the stream: what is left is dispatched; a stream that ended with neither a
        finish nor ``[DONE]`` gets an error record. Returns the ``StreamResult``."""
        if self._closed:
            return self.result
        if self._decoder is not None:
            self._buf += self._decoder.decode(b"", True)
        if self._buf:
            self._line(self._buf.rstrip("\r"))
            self._buf = ""
        self._dispatch()
        self._closed = True
        r = self.result
        if not r.done and r.finish_reason is None and r.error is None:
            self.fail("the stream ended with neither a finish_reason nor [DONE]")
        return r
