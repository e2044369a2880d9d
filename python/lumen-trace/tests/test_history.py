import io
import itertools
import json
import unittest

import _path  # noqa: F401
from lumen_trace import HistoryRecorder

# A canned /v1/completions stream (vLLM with return_token_ids), as iter_lines() gives it
COMPLETIONS = [
    b'data: {"id":"cmpl-7","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a","token_ids":[22487],"finish_reason":null}]}',
    b'',
    b': keep-alive',
    b'',
    b'data: {"id":"cmpl-7","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" b c","token_ids":[11804,25346],"finish_reason":null}]}\r\n',
    b'',
    b'data: {"id":"cmpl-7","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" d","token_ids":[203],"finish_reason":"length"}],"usage":null}',
    b'',
    b'data: [DONE]',
    b'',
]
EXPECTED = [
    '{"object":"request","request":"7","t":0.0,"prompt_tokens":24,"max_tokens":4,"seed":7}',
    '{"object":"text_completion","request":"7","t":1.0,"id":"cmpl-7","created":1,"model":"m","choices":[{"index":0,"text":" a","token_ids":[22487],"finish_reason":null}]}',
    '{"object":"text_completion","request":"7","t":2.0,"id":"cmpl-7","created":1,"model":"m","choices":[{"index":0,"text":" b c","token_ids":[11804,25346],"finish_reason":null}]}',
    '{"object":"text_completion","request":"7","t":3.0,"id":"cmpl-7","created":1,"model":"m","choices":[{"index":0,"text":" d","token_ids":[203],"finish_reason":"length"}],"usage":null}',
]


def recorder(**kw):
    out = io.StringIO()
    return out, HistoryRecorder(out, clock=itertools.count(0.0).__next__, **kw)


def records(out):
    return out.getvalue().splitlines()


class HistoryTest(unittest.TestCase):
    def test_completions_stream(self):
        out, h = recorder()
        h.request("7", max_tokens=4, seed=7, prompt_tokens=24)
        r = h.record_stream("7", iter(COMPLETIONS))
        self.assertEqual(records(out), EXPECTED)
        self.assertEqual(r.token_ids, [22487, 11804, 25346, 203])
        self.assertEqual(r.text, " a b c d")
        self.assertEqual((r.finish_reason, r.error, r.done, r.chunks), ("length", None, True, 3))

    def test_raw_pieces_give_the_same_records(self):
        body = b"".join(line + b"\n" for line in COMPLETIONS).replace(b"\r\n\n", b"\r\n")
        for size in (1, 7, 64, len(body)):
            out, h = recorder()
            h.request("7", max_tokens=4, seed=7, prompt_tokens=24)
            pieces = [body[i:i + size] for i in range(0, len(body), size)]
            r = h.record_stream("7", pieces, raw=True)
            self.assertEqual(records(out), EXPECTED, size)
            self.assertTrue(r.done)

    def test_text_lines_with_their_line_ends(self):
        out, h = recorder()
        h.request("7", max_tokens=4, seed=7, prompt_tokens=24)
        h.record_stream("7", [line.decode() + "\n" if line else "\n" for line in COMPLETIONS])
        self.assertEqual(records(out), EXPECTED)

    def test_chat_stream_text_only(self):
        out, h = recorder()
        h.request(3, max_tokens=2, seed=1)
        stream = [
            'data: {"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
            '',
            'data: {"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hé"},"finish_reason":null}]}',
            '',
            'data: {"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
            '',
            'data: {"id":"c3","object":"chat.completion.chunk","choices":[],"usage":{"completion_tokens":1}}',
            '',
            'data: [DONE]',
        ]
        r = h.record_stream(3, stream)
        self.assertEqual(records(out)[1:], [
            '{"object":"text_completion","request":3,"t":1.0,"id":"c3","choices":[{"index":0,"text":"Hé","finish_reason":null}]}',
            '{"object":"text_completion","request":3,"t":2.0,"id":"c3","choices":[{"index":0,"text":"","finish_reason":"stop"}]}'])
        self.assertEqual((r.text, r.finish_reason, r.token_ids, h.token_ids), ("Hé", "stop", [], False))

    def test_chat_stream_with_token_ids(self):
        out, h = recorder()
        h.request("a", max_tokens=2, seed=5)
        h.record_stream("a", [
            'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
            'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"},"token_ids":[9],"finish_reason":null}]}',
            'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}',
            'data: [DONE]'])                                     # no blank lines between events
        self.assertEqual(records(out)[1:], [
            '{"object":"text_completion","request":"a","t":1.0,"choices":[{"index":0,"token_ids":[9],"text":"x","finish_reason":null}]}',
            '{"object":"text_completion","request":"a","t":2.0,"choices":[{"index":0,"token_ids":[],"text":"","finish_reason":"length"}]}'])

    def test_error_object_in_the_stream(self):
        out, h = recorder()
        h.request("7", max_tokens=4, seed=7)
        r = h.record_stream("7", COMPLETIONS[:2] + [b'data: {"error":{"message":"worker 2 lost","code":503}}', b""] + COMPLETIONS[4:])
        self.assertEqual(records(out)[2], '{"object":"error","request":"7","t":2.0,"error":{"message":"worker 2 lost","code":503}}')
        self.assertEqual(len(records(out)), 3)                  # nothing read after the error
        self.assertEqual((r.error, r.token_ids), ("worker 2 lost", [22487]))

    def test_broken_connection(self):
        out, h = recorder()
        h.request("7", max_tokens=4, seed=7)

        def body():
            yield COMPLETIONS[0]
            yield b""
            raise ConnectionResetError("peer closed")
        with self.assertRaises(ConnectionResetError):
            h.record_stream("7", body())
        self.assertEqual(json.loads(records(out)[-1]),
                         {"object": "error", "request": "7", "t": 2.0, "error": {"message": "ConnectionResetError: peer closed"}})

    def test_stream_that_just_ends(self):
        out, h = recorder()
        h.request("7", max_tokens=4, seed=7)
        r = h.record_stream("7", COMPLETIONS[:2])
        self.assertEqual(r.error, "the stream ended with neither a finish_reason nor [DONE]")
        self.assertEqual(json.loads(records(out)[-1])["object"], "error")

    def test_async_style_feed(self):
        out, h = recorder()
        h.request("7", max_tokens=4, seed=7, prompt_tokens=24)
        s = h.stream("7")
        written = [rec for line in COMPLETIONS for rec in s.feed(line)]
        self.assertEqual(len(written), 3)
        self.assertTrue(s.close().done)
        self.assertEqual(records(out), EXPECTED)
        with self.assertRaises(ValueError):
            s.feed(b"data: [DONE]")

    def test_records_and_their_rules(self):
        out, h = recorder()
        with self.assertRaisesRegex(ValueError, r"request 'x': a record before the request's own"):
            h.error("x", "boom")
        h.request("x", max_tokens=1, seed=-5)
        with self.assertRaisesRegex(ValueError, r"request 'x' was sent already"):
            h.request("x", max_tokens=1, seed=-5)
        with self.assertRaisesRegex(ValueError, r"retries 'x', whose stream has not ended"):
            h.request("y", max_tokens=1, seed=-5, retries="x")
        h.error("x", TimeoutError("client timeout"))
        h.request("y", max_tokens=1, seed=-5, retries="x")
        h.fault(worker=2)
        with self.assertRaisesRegex(ValueError, r"request 'y': time goes backwards: t=1.0 after t=2.0"):
            h.chunk("y", {"choices": [{"index": 0, "token_ids": [1], "finish_reason": None}]}, t=1.0)
        with self.assertRaisesRegex(ValueError, r"one choice per stream"):
            h.chunk("y", {"choices": [{"index": 0, "text": "a"}, {"index": 1, "text": "b"}]})
        with self.assertRaisesRegex(ValueError, r"max_tokens must be an integer >= 1"):
            h.request("z", max_tokens=0)
        with self.assertRaisesRegex(ValueError, r"a request id is a string or an integer"):
            h.request(1.5, max_tokens=1)
        self.assertEqual(records(out), [
            '{"object":"request","request":"x","t":0.0,"max_tokens":1,"seed":-5}',
            '{"object":"error","request":"x","t":1.0,"error":{"message":"TimeoutError: client timeout"}}',
            '{"object":"request","request":"y","t":2.0,"max_tokens":1,"seed":-5,"retries":"x"}',
            '{"object":"fault","t":3.0,"worker":"2"}'])

    def test_token_and_text_histories_do_not_mix(self):
        out, h = recorder(token_ids=True)
        h.request(1, max_tokens=3)
        with self.assertRaisesRegex(ValueError, r"a chunk with text and no token_ids"):
            h.chunk(1, {"object": "text_completion", "choices": [{"index": 0, "text": "a", "finish_reason": None}]})
        out, h = recorder(token_ids=False)
        h.request(1, max_tokens=3)
        with self.assertRaisesRegex(ValueError, r"a chunk with token_ids in a text-only history"):
            h.chunk(1, {"object": "text_completion", "choices": [{"index": 0, "text": "a", "token_ids": [1], "finish_reason": None}]})


if __name__ == "__main__":
    unittest.main()
