import io
import json
import os
import tempfile
import unittest

import _path  # noqa: F401
from lumen_trace import LamportClock, ProcessLog, TraceWriter, VectorClock, WallClock

CONFIG = {"policy": "lumen", "workers": 4, "alpha": 1.0, "beta": 1.0, "theta": 1000.0, "tau": 32, "budget": 4096,
          "pageTokens": 16, "k": 4}
HEADER = ('{"type":"header","format":"lumen-trace","version":2,"config":{"policy":"lumen","workers":4,"alpha":1.0,'
          '"beta":1.0,"theta":1000.0,"tau":32,"budget":4096,"pageTokens":16,"k":4}}')
CONFIG_TEXT = HEADER[HEADER.index('"config":') + len('"config":'):-1]

# Event lines of docs/trace-format.md, as written there
DOC_LINES = [
    '{"type":"Place","t":0.0,"req":0,"holder":1,"loads":[1.0,0.0,0.0,0.0],"reserved":[0,0,0,0]}',
    '{"type":"Prefill","t":6.2,"req":0,"worker":0,"tokens":[7551],"pages":[[1,16,"fbf2fcda70ea5e81"],[17,8,"5892210bf7309792"]]}',
    '{"type":"StreamPage","t":6.7,"req":0,"holder":1,"ckpt":16,"pages":[[1,16,"fbf2fcda70ea5e81"]]}',
    '{"type":"Decode","t":18.513,"req":0,"worker":0,"tokens":[13219],"pages":[[17,9,"821e448b56587a50"]]}',
    '{"type":"Arrive","t":0.0,"req":0,"worker":0,"promptLen":24,"ref":[7551,13219,26929,7473]}',
    '{"type":"Arrive","t":0.0,"req":0,"worker":0,"promptLen":24,"ref":[7551,13219,26929,7473],"maxOut":256}',
    '{"type":"Place","t":0.0,"req":0,"holder":1}',
    '{"type":"Place","t":42.0,"req":6,"holder":null}',
    '{"type":"Decode","t":460.35,"req":1,"worker":2,"tokens":[28495,31375],"pages":[[65,5,"2370f145db2c7be8"]]}',
    '{"type":"Complete","t":868.833,"req":2,"worker":3,"freed":0}',
    '{"type":"Fail","t":212.649,"worker":2,"interrupted":[2,6],"orphaned":[1,5]}',
    '{"type":"Fail","t":120.0,"worker":1,"interrupted":[1,5,9],"orphaned":[0,3,4,7,8],"promoted":[0,4,8]}',
    '{"type":"Route","t":163.664,"req":1,"mode":"RESTORE","worker":2,"resumed":32,"freed":32,"pages":[[1,16,"7546bda8c90d7f3a"],[17,16,"ee7ac3f851b038cd"]]}',
    '{"type":"Route","t":263.237,"req":2,"mode":"REPREFILL","worker":3,"resumed":0,"freed":64}',
    '{"type":"Restart","t":312.649,"worker":2}',
    '{"type":"DraftReady","t":462.649,"worker":2,"target":0}',
    '{"type":"Assist","t":474.649,"worker":2,"req":0,"draft":[8010,27179,28806,4692]}',
    '{"type":"FullReady","t":1512.649,"worker":2,"dropped":[]}',
    '{"type":"ZombieToken","t":203.664,"worker":1,"req":1,"token":8832,"epoch":0,"accepted":false}',
    '{"type":"ZombiePage","t":203.664,"worker":1,"req":1,"holder":2,"epoch":0,"accepted":false}',
    '{"type":"ZombieAck","t":203.664,"worker":1,"req":0,"epoch":0,"accepted":false}',
    '{"type":"ZombieStops","t":203.664,"worker":1}',
]
PAGES = [[1, 16, "fbf2fcda70ea5e81"], [17, 8, "5892210bf7309792"]]


def lines(buf):
    data = buf.getvalue()
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    assert data.endswith("\n")
    return data[:-1].split("\n")


class TraceWriterTest(unittest.TestCase):
    def test_header_as_in_the_docs(self):
        out = io.BytesIO()
        TraceWriter(out, CONFIG)
        self.assertEqual(out.getvalue(), (HEADER + "\n").encode("utf-8"))

    def test_every_event_line_of_the_docs(self):
        for line in DOC_LINES:
            out = io.StringIO()
            w = TraceWriter(out, dict(CONFIG, policy="lumen-dual"), header=False)
            w.write(json.loads(line))
            self.assertEqual(lines(out), [line])

    def test_event_keeps_the_order_given(self):
        out = io.StringIO()
        w = TraceWriter(out, CONFIG, header=False)
        w.event("Prefill", t=6.2, req=0, worker=0, tokens=[7551], pages=PAGES)
        w.event("StreamPage", req=0, holder=1, ckpt=16, pages=[PAGES[0]], t=6.7)
        self.assertEqual(lines(out), [DOC_LINES[1], '{"type":"StreamPage","req":0,"holder":1,"ckpt":16,"pages":[[1,16,"fbf2fcda70ea5e81"]],"t":6.7}'])

    def test_a_file_by_path_and_a_callable(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.jsonl")
            with TraceWriter(path, CONFIG, ext={"note": "caf\u00e9"}) as w:
                w.event("Restart", t=1, worker=2)
            with open(path, "rb") as f:
                data = f.read()
        self.assertFalse(data.startswith(b"\xef\xbb\xbf"))
        self.assertNotIn(b"\r", data)
        self.assertEqual(data.split(b"\n")[1:], [b'{"type":"Restart","t":1,"worker":2}', b""])
        self.assertIn('"ext":{"note":"caf\u00e9"}}'.encode("utf-8"), data)
        got = []
        w = TraceWriter(got.append, CONFIG)
        w.event("Restart", worker=0)
        self.assertEqual(got, [HEADER + "\n", '{"type":"Restart","worker":0}\n'])

    def test_partial_trace(self):
        out = io.StringIO()
        w = TraceWriter(out, CONFIG, observes={"Place": "hidden", "Decode": "batch", "StreamPage": "sizes"})
        w.event("Decode", t=30.8, worker=0, batch=[{"req": 0, "tokens": [21156], "pages": [[17, 10, "08a6ea9f2c91d7b4"]]},
                                                   {"req": 4, "tokens": [9], "pages": [[33, 5, "5b0d000000000000"]]}])
        w.event("StreamPage", t=31.0, sizes=[{"req": 0, "holder": 1, "ckpt": 16}, {"req": 4, "holder": 2, "ckpt": 32}])
        w.event("StreamPage", t=31.5, req=0, holder=1, ckpt=16)
        self.assertEqual(lines(out), [
            '{"type":"header","format":"lumen-trace","version":2,"observes":{"Place":"hidden","Decode":"batch","StreamPage":"sizes"},"config":' + CONFIG_TEXT + '}',
            '{"type":"Decode","t":30.8,"worker":0,"batch":[{"req":0,"tokens":[21156],"pages":[[17,10,"08a6ea9f2c91d7b4"]]},{"req":4,"tokens":[9],"pages":[[33,5,"5b0d000000000000"]]}]}',
            '{"type":"StreamPage","t":31.0,"sizes":[{"req":0,"holder":1,"ckpt":16},{"req":4,"holder":2,"ckpt":32}]}',
            '{"type":"StreamPage","t":31.5,"req":0,"holder":1,"ckpt":16}'])
        with self.assertRaisesRegex(ValueError, r"StreamPage: unknown field 'pages'"):
            w.event("StreamPage", req=0, holder=1, ckpt=16, pages=[PAGES[0]])
        with self.assertRaisesRegex(ValueError, r"Decode: field 'batch\[0\].pages' must be an array"):
            w.event("Decode", worker=0, batch=[{"req": 0, "tokens": [], "pages": 3}])
        with self.assertRaisesRegex(ValueError, r"field 'sizes\[0\]' is missing 'ckpt'"):
            w.event("StreamPage", sizes=[{"req": 0, "holder": 1}])
        with self.assertRaisesRegex(ValueError, r"observes.hiddenSteps' must be within 1..64, got 65"):
            TraceWriter(io.StringIO(), CONFIG, observes={"hiddenSteps": 65})
        with self.assertRaisesRegex(ValueError, r"observes' has an unknown field 'Route'"):
            TraceWriter(io.StringIO(), CONFIG, observes={"Route": "hidden"})
        hidden = TraceWriter(io.StringIO(), CONFIG, observes={"loads": "hidden"})
        with self.assertRaisesRegex(ValueError, r"'loads' is cited, but the header's observes says"):
            hidden.event("Place", req=0, holder=1, loads=[0.0] * 4)
        plain = TraceWriter(io.StringIO(), CONFIG)
        with self.assertRaisesRegex(ValueError, r"Decode: unknown field 'batch'"):
            plain.event("Decode", worker=0, batch=[{"req": 0, "tokens": [1], "pages": []}], req=0, tokens=[1], pages=[])

    def test_begin_and_end(self):
        out = io.StringIO()
        w = TraceWriter(out, CONFIG, steps="begin-end")
        w.begin("StreamPage", req=4, holder=2)
        w.event("Decode", req=4, worker=1, tokens=[13219], pages=[[33, 2, "821e448b56587a50"]])
        w.end("StreamPage", req=4, holder=2, ckpt=32, pages=[[17, 16, "ee7ac3f851b038cd"]])
        w.begin("Prefill", req=5, worker=0)
        w.chunk("Prefill", req=5, worker=0, pages=[PAGES[0]])
        w.end("Prefill", req=5, worker=0, tokens=[7551])          # its chunk carried the pages
        self.assertEqual(lines(out), [
            '{"type":"header","format":"lumen-trace","version":2,"steps":"begin-end","config":' + CONFIG_TEXT + '}',
            '{"type":"StreamPage","phase":"begin","req":4,"holder":2}',
            '{"type":"Decode","req":4,"worker":1,"tokens":[13219],"pages":[[33,2,"821e448b56587a50"]]}',
            '{"type":"StreamPage","phase":"end","req":4,"holder":2,"ckpt":32,"pages":[[17,16,"ee7ac3f851b038cd"]]}',
            '{"type":"Prefill","phase":"begin","req":5,"worker":0}',
            '{"type":"Prefill","phase":"chunk","req":5,"worker":0,"pages":[[1,16,"fbf2fcda70ea5e81"]]}',
            '{"type":"Prefill","phase":"end","req":5,"worker":0,"tokens":[7551]}'])
        with self.assertRaisesRegex(ValueError, r"Route begin: unknown field 'worker'"):
            w.begin("Route", req=1, worker=2)
        with self.assertRaisesRegex(ValueError, r"Decode: no 'chunk' form"):
            w.chunk("Decode", req=1, worker=2, pages=[])
        with self.assertRaisesRegex(ValueError, r"Complete: no 'begin' form"):
            w.begin("Complete", req=1)
        with self.assertRaisesRegex(ValueError, r"StreamPage end: missing field 'pages'"):
            w.end("StreamPage", req=4, holder=2, ckpt=32)
        with self.assertRaisesRegex(ValueError, r"needs a header with \"steps\":\"begin-end\""):
            TraceWriter(io.StringIO(), CONFIG).begin("StreamPage", req=4)

    def test_errors_name_the_field(self):
        w = TraceWriter(io.StringIO(), CONFIG, header=False)
        cases = [
            (dict(type="Prefill", req=0, worker=0, tokens=[1]), r"^Prefill: missing field 'pages'$"),
            (dict(type="Arrive", req=2147483648, worker=0, promptLen=1, ref=[1]), r"field 'req' must be within 0..2147483647, got 2147483648"),
            (dict(type="Complete", req=0, worker=0, freed=3.0), r"Complete: field 'freed' must be an integer, got 3.0"),
            (dict(type="Restart", worker=True), r"field 'worker' must be an integer, got true"),
            (dict(type="Restart", worker=4), r"Restart: field 'worker' must be within 0..3, got 4"),
            (dict(type="Restart", worker=0, t=float("nan")), r"field 't' must be a finite number, got NaN"),
            (dict(type="Place", req=0, holder=1, loads=[0.0, float("inf"), 0.0, 0.0]), r"field 'loads\[1\]' must be a finite number"),
            (dict(type="Place", req=0, holder=1, loads=[0.0]), r"field 'loads' must hold exactly one element per worker \(4\), got 1"),
            (dict(type="Place", req=0, holder=1, mode="RESTORE"), r"Place: unknown field 'mode'"),
            (dict(type="Decode", req=0, worker=0, tokens=[-2147483648], pages=[]), r"field 'tokens\[0\]' must be within -2147483647..2147483647"),
            (dict(type="Decode", req=0, worker=0, tokens=[1], pages=[[17, 9, "821e448b56587a5"]]), r"the digest must be 16 hexadecimal digits"),
            (dict(type="Decode", req=0, worker=0, tokens=[1], pages=[[18, 9, "821e448b56587a50"]]), r"first position 18 is not the first position of a page"),
            (dict(type="Decode", req=0, worker=0, tokens=[1], pages=[[17, 17, "821e448b56587a50"]]), r"field 'pages\[0\] count' must be within 1..16, got 17"),
            (dict(type="Decode", req=0, worker=0, tokens=[1], pages=[PAGES[1], PAGES[0]]), r"pages must be in increasing order"),
            (dict(type="Route", req=1, mode="RESTORE", worker=2, resumed=0, freed=0), r"Route: missing field 'pages'"),
            (dict(type="Route", req=1, mode="REPREFILL", worker=2, resumed=0, freed=0, pages=[PAGES[0]]), r"a REPREFILL restores nothing"),
            (dict(type="Route", req=1, mode="RESUME", worker=2, resumed=0, freed=0), r"field 'mode' must be \"RESTORE\" or \"REPREFILL\""),
            (dict(type="ZombieToken", worker=1, req=1, token=3, accepted=0), r"field 'accepted' must be true or false, got 0"),
            (dict(type="Assist", worker=1, req=1, draft=[]), r"field 'draft' must hold at least 1 element, got none"),
            (dict(type="Arrive", req=0, worker=0, promptLen=24, ref=[1, 2], maxOut=1), r"'maxOut' must be at least the length of ref \(2\), got 1"),
            (dict(type="Arrive", req=0, worker=0, promptLen=16777215, ref=[1, 2]), r"promptLen \+ the length of ref must be at most 16777216"),
            (dict(type="Restart", worker=0, ext=[1]), r"field 'ext' must be an object"),
            (dict(type="Restart", worker=0, ext={"x": float("inf")}), r"field 'ext.x' must be a finite number"),
            (dict(type="Restart", worker=0, ext={1: "a"}), r"has a key that is not a string"),
            (dict(type="Restart", worker=0, ext={"s": "\ud800"}), r"Restart: the line is not valid UTF-8 text|not valid UTF-8"),
            (dict(type="Teleport", worker=0), r"unknown event type 'Teleport'"),
        ]
        deep = {}
        node = deep
        for _ in range(63):
            node["a"] = {}
            node = node["a"]
        cases.append((dict(type="Restart", worker=0, ext=deep), r"nests deeper than 64 levels"))
        for obj, pattern in cases:
            with self.assertRaisesRegex(ValueError, pattern, msg=str(obj)[:80]):
                w.write(obj)
        self.assertEqual(w.lines, 0)                  # nothing written by a refused event

    def test_time_goes_backwards(self):
        out = io.StringIO()
        w = TraceWriter(out, CONFIG, header=False)
        w.event("Restart", t=7.25, worker=0)
        w.event("Restart", worker=0)                  # no t: neither counts nor breaks the rule
        w.event("Restart", t=7.25, worker=0)
        with self.assertRaisesRegex(ValueError, r"Restart: time goes backwards: t=7.0 after t=7.25"):
            w.event("Restart", t=7.0, worker=0)
        self.assertEqual(len(lines(out)), 3)

    def test_header_errors(self):
        for change, pattern in [({"workers": 1}, r"config.workers' must be within 2..4096, got 1"),
                                ({"policy": "round-robin"}, r"'policy' must be one of"),
                                ({"alpha": -1.0}, r"'alpha' must be >= 0"),
                                ({"theta": float("nan")}, r"config.theta' must be a finite number"),
                                ({"pageTokens": 0}, r"config.pageTokens' must be within 1..65536"),
                                ({"extra": 1}, r"config has an unknown field 'extra'")]:
            with self.assertRaisesRegex(ValueError, pattern):
                TraceWriter(io.StringIO(), dict(CONFIG, **change))
        missing = dict(CONFIG)
        del missing["k"]
        with self.assertRaisesRegex(ValueError, r"config is missing field 'k'"):
            TraceWriter(io.StringIO(), missing)
        with self.assertRaisesRegex(ValueError, r"'steps' must be \"begin-end\""):
            TraceWriter(io.StringIO(), CONFIG, steps="split")

    def test_cited_loads_required_under_stale(self):
        cfg = dict(CONFIG, readings={"citedLoads": "stale:3"})
        w = TraceWriter(io.StringIO(), cfg, header=False)
        with self.assertRaisesRegex(ValueError, r"Place: missing field 'loads'"):
            w.event("Place", req=0, holder=1)
        w.event("DraftReady", worker=2)               # names no target: no decision on loads
        with self.assertRaisesRegex(ValueError, r"DraftReady: missing field 'loads'"):
            w.event("DraftReady", worker=2, target=0)


class ProcessLogTest(unittest.TestCase):
    def test_vector_clocks_as_in_the_docs(self):
        gw_out, wk_out = io.StringIO(), io.StringIO()
        gateway = ProcessLog(gw_out, CONFIG, "gateway", VectorClock("gateway"))
        worker = ProcessLog(wk_out, CONFIG, "worker-1", VectorClock("worker-1"))
        gateway.event("Arrive", req=0, worker=1, promptLen=24, ref=[7551, 13219])
        gateway.event("Place", req=0, holder=2)
        call = {}
        gateway.clock.inject(call)                    # the gateway's call to worker-1
        worker.clock.extract(call)
        worker.event("Prefill", req=0, worker=1, tokens=[7551], pages=PAGES)
        worker.event("Decode", req=0, worker=1, tokens=[13219], pages=[[17, 9, "821e448b56587a50"]])
        self.assertEqual(lines(wk_out), [
            '{"type":"header","format":"lumen-trace","version":2,"process":"worker-1","config":' + CONFIG_TEXT + '}',
            '{"type":"Prefill","req":0,"worker":1,"tokens":[7551],"pages":[[1,16,"fbf2fcda70ea5e81"],[17,8,"5892210bf7309792"]],"vc":{"gateway":2,"worker-1":1}}',
            '{"type":"Decode","req":0,"worker":1,"tokens":[13219],"pages":[[17,9,"821e448b56587a50"]],"vc":{"gateway":2,"worker-1":2}}'])
        self.assertEqual([json.loads(x)["vc"] for x in lines(gw_out)[1:]], [{"gateway": 1}, {"gateway": 2}])

    def test_vector_clock_errors(self):
        log = ProcessLog(io.StringIO(), CONFIG, "worker-0", "vc")
        with self.assertRaisesRegex(ValueError, r"Restart: missing field 'vc'"):
            log.event("Restart", worker=0)
        with self.assertRaisesRegex(ValueError, r"'vc.worker-0' must count this process's events: 1 for its event number 1, got 2"):
            log.event("Restart", worker=0, vc={"worker-0": 2})
        log.event("Restart", worker=0, vc={"worker-0": 1, "gateway": 5})
        with self.assertRaisesRegex(ValueError, r"'vc.gateway' goes back along this log: 5, then 4"):
            log.event("Restart", worker=0, vc={"worker-0": 2, "gateway": 4})
        with self.assertRaisesRegex(ValueError, r"field 'lc' in a log whose clock is 'vc'"):
            log.event("Restart", worker=0, lc=3)
        with self.assertRaisesRegex(ValueError, r"'vc.gateway' must be within 0..2147483647"):
            log.event("Restart", worker=0, vc={"worker-0": 2, "gateway": 2147483648})
        log.event("Restart", worker=0, vc={"worker-0": 2, "gateway": 5})
        with self.assertRaisesRegex(ValueError, r"the vector clock belongs to process 'gateway', not 'worker-0'"):
            ProcessLog(io.StringIO(), CONFIG, "worker-0", VectorClock("gateway"))

    def test_a_refused_event_does_not_tick(self):
        out = io.StringIO()
        log = ProcessLog(out, CONFIG, "worker-0", VectorClock("worker-0"))
        with self.assertRaises(ValueError):
            log.event("Restart", worker=9)
        log.event("Restart", worker=0)
        self.assertEqual(json.loads(lines(out)[1])["vc"], {"worker-0": 1})

    def test_lamport_clocks(self):
        out = io.StringIO()
        clock = LamportClock()
        log = ProcessLog(out, CONFIG, "gateway", clock, steps="begin-end")
        log.event("Arrive", t=5.0, req=0, worker=1, promptLen=24, ref=[7551])
        clock.receive(9)                              # a reply from a worker at lc 9
        log.end("Decode", req=0, worker=1, tokens=[7551])
        self.assertEqual([json.loads(x).get("lc") for x in lines(out)], [None, 1, 11])
        self.assertTrue(lines(out)[2].endswith(',"lc":11}'))
        explicit = ProcessLog(io.StringIO(), CONFIG, "gateway", "lc")
        explicit.event("Restart", worker=0, lc=4)
        with self.assertRaisesRegex(ValueError, r"field 'lc' must grow along a process's log: 4 after 4"):
            explicit.event("Restart", worker=0, lc=4)
        with self.assertRaisesRegex(ValueError, r"field 'lc' must be within 0..2147483647"):
            explicit.event("Restart", worker=0, lc=2147483648)
        with self.assertRaisesRegex(ValueError, r"field 'vc' in a log whose clock is 'lc'"):
            explicit.event("Restart", worker=0, vc={"gateway": 2})

    def test_wall_clock_only(self):
        times = iter([100.0, 101.0])
        out = io.StringIO()
        log = ProcessLog(out, CONFIG, "worker-2", WallClock(2.5, source=lambda: next(times)))
        log.event("Restart", worker=2)
        log.event("Prefill", req=0, worker=2, tokens=[7551], pages=PAGES, t=[100.25, 100.5])
        log.event("Decode", req=0, worker=2, tokens=[13219], pages=[[17, 9, "821e448b56587a50"]], t=[100.5, 101.0])
        log.event("Complete", req=0, worker=2, freed=0)
        got = lines(out)
        self.assertEqual(got[0], '{"type":"header","format":"lumen-trace","version":2,"process":"worker-2","skew_ms":2.5,"config":' + CONFIG_TEXT + '}')
        self.assertEqual(got[1], '{"type":"Restart","worker":2,"t":100.0}')
        self.assertEqual([json.loads(x)["t"] for x in got[2:]], [[100.25, 100.5], [100.5, 101.0], 101.0])
        self.assertEqual(sum('"vc"' in x or '"lc"' in x for x in got), 0)

    def test_wall_clock_errors(self):
        log = ProcessLog(io.StringIO(), CONFIG, "worker-2", "wall", skew_ms=0)
        with self.assertRaisesRegex(ValueError, r"Restart: missing field 't'"):
            log.event("Restart", worker=2)
        log.event("Restart", worker=2, t=[10.0, 20.0])
        with self.assertRaisesRegex(ValueError, r"time goes backwards along this log: t=15.0 after t=\[10.0,20.0\]"):
            log.event("Restart", worker=2, t=15.0)
        with self.assertRaisesRegex(ValueError, r"time goes backwards along this log: t=\[9.0,30.0\]"):
            log.event("Restart", worker=2, t=[9.0, 30.0])
        with self.assertRaisesRegex(ValueError, r"field 't' must have start <= end, got \[31.0,30.0\]"):
            log.event("Restart", worker=2, t=[31.0, 30.0])
        with self.assertRaisesRegex(ValueError, r"field 't\[1\]' must be a finite number"):
            log.event("Restart", worker=2, t=[31.0, float("inf")])
        with self.assertRaisesRegex(ValueError, r"field 't' must be a number or \[start, end\]"):
            log.event("Restart", worker=2, t=[31.0])
        with self.assertRaisesRegex(ValueError, r"field 'lc' in a log whose clock is the wall clock"):
            log.event("Restart", worker=2, t=40.0, lc=1)
        log.event("Restart", worker=2, t=[15.0, 20.0])   # starts and ends never go back
        log.event("Restart", worker=2, t=20.0)
        for skew in (-1, float("nan"), None, True):
            with self.assertRaisesRegex(ValueError, r"'skew_ms' must be a non-negative finite number"):
                ProcessLog(io.StringIO(), CONFIG, "worker-2", "wall", skew_ms=skew)
        with self.assertRaisesRegex(ValueError, r"'skew_ms' is for logs with wall-clock time only"):
            ProcessLog(io.StringIO(), CONFIG, "worker-2", "lc", skew_ms=1)
        with self.assertRaisesRegex(ValueError, r"'process' must be a non-empty string"):
            ProcessLog(io.StringIO(), CONFIG, "", "lc")


if __name__ == "__main__":
    unittest.main()
