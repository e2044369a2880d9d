import email
import http.client
import http.server
import threading
import unittest
import urllib.request
from collections import namedtuple

import _path  # noqa: F401
from lumen_trace import LamportClock, VectorClock, WallClock
from lumen_trace.clock import LC_HEADER, VC_HEADER, get_header, set_header

Metadatum = namedtuple("Metadatum", ("key", "value"))   # the shape of grpc's invocation_metadata() items


class LamportTest(unittest.TestCase):
    def test_tick_send_receive(self):
        c = LamportClock()
        self.assertEqual(c.tick(), 1)
        self.assertEqual(c.send(), 2)                 # sending ticks
        self.assertEqual(c.receive(10), 11)           # max, then tick
        self.assertEqual(c.receive(3), 12)
        self.assertEqual(c.value, 12)
        with self.assertRaises(ValueError):
            c.receive(-1)
        with self.assertRaises(ValueError):
            c.receive(True)

    def test_round_trip_through_a_dict(self):
        a, b = LamportClock(4), LamportClock()
        headers = {"Content-Type": "application/json"}
        self.assertIs(a.inject(headers), headers)
        self.assertEqual(headers, {"Content-Type": "application/json", LC_HEADER: "5"})
        self.assertEqual(b.extract({"X-Lumen-LC": "5"}), 6)           # any case
        self.assertEqual(b.extract(headers), 7)
        self.assertIsNone(b.extract({"Other": "1"}))
        self.assertEqual(b.value, 7)
        with self.assertRaisesRegex(ValueError, r"x-lumen-lc: not an integer"):
            b.extract({LC_HEADER: "five"})

    def test_urllib_request_and_http_server_round_trip(self):
        server_clock, client_clock = LamportClock(100), LamportClock()
        seen = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen["merged"] = server_clock.extract(self)          # the request's headers
                self.send_response(200)
                server_clock.inject(self)                            # the reply carries the clock back
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            req = urllib.request.Request("http://127.0.0.1:%d/" % httpd.server_port)
            client_clock.inject(req)
            client_clock.inject(req)                                 # replaces, never duplicates
            self.assertEqual(get_header(req, LC_HEADER), "2")
            self.assertEqual([k for k, _ in req.header_items()], ["X-lumen-lc"])
            with urllib.request.urlopen(req, timeout=10) as resp:
                merged = client_clock.extract(resp.headers)          # an http.client.HTTPMessage
        finally:
            httpd.shutdown()
            httpd.server_close()
        self.assertEqual(seen["merged"], 101)                        # max(100, 2) + 1
        self.assertEqual(merged, 103)                                # the reply was sent at 102

    def test_email_message(self):
        msg = email.message_from_string("Host: x\r\nX-Lumen-Lc: 41\r\n\r\n", _class=http.client.HTTPMessage)
        c = LamportClock()
        self.assertEqual(c.extract(msg), 42)
        c.inject(msg)
        self.assertEqual(msg.get_all(LC_HEADER), ["43"])

    def test_grpc_metadata(self):
        c = LamportClock()
        md = [("authorization", "x")]
        self.assertIs(c.inject(md), md)
        c.inject(md)
        self.assertEqual(md, [("authorization", "x"), (LC_HEADER, "2")])
        frozen = c.inject((("authorization", "x"),))
        self.assertEqual(frozen, (("authorization", "x"), (LC_HEADER, "3")))
        other = LamportClock()
        self.assertEqual(other.extract((Metadatum("authorization", "x"), Metadatum(LC_HEADER, "3"))), 4)
        self.assertEqual(other.extract([(b"x-lumen-lc", b"9")]), 10)
        with self.assertRaises(TypeError):
            c.inject(42)

    def test_thread_safe(self):
        c = LamportClock()
        got = []

        def work():
            mine = [c.tick() for _ in range(2000)]
            got.extend(mine)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(c.value, 16000)
        self.assertEqual(sorted(got), list(range(1, 16001)))


class VectorTest(unittest.TestCase):
    def test_only_logged_events_tick(self):
        gw = VectorClock("gateway")
        self.assertEqual(gw.tick(), {"gateway": 1})
        self.assertEqual(gw.send(), {"gateway": 1})   # sending is not an event of the log
        self.assertEqual(gw.tick(), {"gateway": 2})
        wk = VectorClock("worker-1", {"worker-1": 3, "gateway": 1})
        self.assertEqual(wk.receive(gw.send()), {"worker-1": 3, "gateway": 2})
        self.assertEqual(wk.receive({"gateway": 1, "worker-0": 4}), {"worker-1": 3, "gateway": 2, "worker-0": 4})
        self.assertEqual(wk.tick(), {"worker-1": 4, "gateway": 2, "worker-0": 4})
        with self.assertRaises(ValueError):
            wk.receive({"gateway": -1})
        with self.assertRaises(ValueError):
            wk.receive([1, 2])

    def test_round_trip_through_each_carrier(self):
        gw = VectorClock("gateway", {"gateway": 2, "worker-0": 1})
        carriers = [{}, [], urllib.request.Request("http://localhost/"), http.client.HTTPMessage()]
        for carrier in carriers:
            out = gw.inject(carrier)
            self.assertEqual(get_header(out, VC_HEADER), '{"gateway":2,"worker-0":1}')
            wk = VectorClock("worker-1")
            self.assertEqual(wk.extract(out), {"gateway": 2, "worker-0": 1})
        self.assertEqual(VectorClock("w").extract(gw.inject(())), {"gateway": 2, "worker-0": 1})
        self.assertIsNone(VectorClock("w").extract({}))
        with self.assertRaisesRegex(ValueError, r"x-lumen-vc: not a JSON object"):
            VectorClock("w").extract({VC_HEADER: "{gateway"})
        with self.assertRaisesRegex(ValueError, r"a vector clock must be an object"):
            VectorClock("w").extract({VC_HEADER: "[1]"})

    def test_set_header_replaces_other_cases(self):
        headers = {"X-Lumen-VC": "old"}
        set_header(headers, VC_HEADER, "new")
        self.assertEqual(headers, {VC_HEADER: "new"})


class WallClockTest(unittest.TestCase):
    def test_never_goes_back(self):
        readings = iter([10.0, 12.0, 11.0, 13.0])
        c = WallClock(1.0, source=lambda: next(readings))
        self.assertEqual([c.now(), c.now(), c.now(), c.now()], [10.0, 12.0, 12.0, 13.0])

    def test_span(self):
        readings = iter([5.0, 7.5])
        c = WallClock(0, source=lambda: next(readings))
        self.assertEqual(c.span().end(), [5.0, 7.5])

    def test_default_source_is_epoch_ms(self):
        import time
        now = WallClock(1).now()
        self.assertLess(abs(now - time.time() * 1000.0), 5000.0)
        with self.assertRaises(ValueError):
            WallClock(-1)


if __name__ == "__main__":
    unittest.main()
