import unittest

import _path  # noqa: F401
from lumen_trace import kv
from lumen_trace.tokens import GOLDEN, M64


def words(seed, first, last, model=None):
    model = model or kv.KvModel()
    return [model.words(seed, p) for p in range(first, last + 1)]


class DigestTest(unittest.TestCase):
    def test_docs_vectors(self):
        # docs/conformance.md, "The kit's KV content": L = 2, B = 16
        model = kv.KvModel()
        self.assertEqual(model.digest(0, 1, 1), "772ab66cb3320138")
        self.assertEqual(model.digest(0, 1, 16), "fe25c0a2475a8e1e")
        self.assertEqual(model.digest(7, 17, 8), "53bf8270a658944d")
        self.assertEqual(model.digest(-1, 1, 16), "2dff94752c3d8e90")
        self.assertEqual(model.digest(1234567890123, 33, 3), "276a63c1aae00301")

    def test_golden_words_and_mix(self):
        # computed by examples/python-adapter/kv.py before it moved here
        self.assertEqual(kv.mix(0), 0)
        self.assertEqual(kv.mix(1), 12994781566227106604)
        self.assertEqual(kv.mix(0xDEADBEEF), 15153440252345589164)
        self.assertEqual(kv.kv_words(7, 1), (0xB4FD2B980A7B907A, 0xF60C4DC179892D5A, 0x7EEC14A24FC32889, 0x415F44C5CD8590FB))
        self.assertEqual(kv.kv_words(-1, 17), (0xE87DD25E8556FB2C, 0xC81B6795BBDBFB24, 0x4B8DDBACD8D207B7, 0xA782C082BEEE7855))

    def test_other_shapes(self):
        big = kv.KvModel(3, 32)
        self.assertEqual(big.words(7, 1), (
            0xB4FD2B980A7B907A, 0xF60C4DC179892D5A, 0xCAB5F6A2F90E2CA3, 0xAA0575F5D0FD367F,
            0x7EEC14A24FC32889, 0x415F44C5CD8590FB, 0x30957BB5E2AA906B, 0x6720E51F5550F592,
            0x52087B06745983E5, 0xEBCF28735683216E, 0x739F5044643345E4, 0xFD2559581BF9272A))
        self.assertEqual(big.digest(7, 1, 4), "73a3115fe132d08d")
        small = kv.KvModel(1, 8)
        self.assertEqual(small.words(7, 1), (0xB4FD2B980A7B907A,))
        self.assertEqual(small.digest(7, 1, 4), "d7a571759e97a43f")
        self.assertEqual(kv.KvModel.from_init({"kvModel": {"name": kv.NAME, "layers": 3, "bytesPerTokenLayer": 32}}).words(7, 1),
                         big.words(7, 1))
        self.assertEqual(kv.KvModel.from_init({}).words(7, 1), kv.kv_words(7, 1))
        self.assertEqual(big.zeros(), (0,) * 12)
        with self.assertRaises(ValueError):
            kv.KvModel(2, 12)

    def test_never_written_and_empty(self):
        self.assertEqual(kv.page_digest([kv.KvModel().zeros()] * 3), "21aefa00f26e85dc")
        self.assertEqual(kv.page_digest([]), "0000000000000000")

    def test_bytes_digest_is_the_same_hash(self):
        ws = [w for pos in words(7, 17, 24) for w in pos]
        data = kv.words_bytes(ws)
        self.assertEqual(len(data), 8 * 8 * 4)
        self.assertEqual(data[:8], kv.kv_words(7, 17)[0].to_bytes(8, "little"))   # position 17, word 0, little-endian
        self.assertEqual(kv.bytes_digest(data), "53bf8270a658944d")
        self.assertEqual(kv.bytes_digest(memoryview(bytearray(data))), "53bf8270a658944d")
        self.assertEqual(kv.bytes_digest(kv.words_bytes(kv.kv_words(7, 1))[:8] + b"\0" * 24),
                         kv.page_digest([(0xB4FD2B980A7B907A, 0, 0, 0)]))
        with self.assertRaises(ValueError) as e:
            kv.bytes_digest(b"\1" * 12)
        self.assertIn("12 bytes", str(e.exception))


class PagesTest(unittest.TestCase):
    def test_pages_entries(self):
        copy = words(7, 1, 24)
        self.assertEqual(kv.pages(copy, 1, 24, 16), [[1, 16, "858359a4699a70ca"], [17, 8, "53bf8270a658944d"]])
        self.assertEqual(kv.pages(copy, 17, 24, 16), [[17, 8, "53bf8270a658944d"]])
        self.assertEqual(kv.pages(copy, 5, 4, 16), [])
        self.assertEqual(kv.pages(copy, 3, 10, 4), [[1, 4, "45724d7a213050fb"], [5, 4, "b2b2aeb2331c7dce"], [9, 4, "7ff619470abc72ee"]])
        # the count is what the copy holds of the page, past last_pos too
        self.assertEqual(kv.pages(copy, 17, 18, 16), [[17, 8, "53bf8270a658944d"]])

    def test_digest_function(self):
        def over_metadata(first, held):
            return format(kv.mix((first * GOLDEN + len(held)) & M64), "016x")
        self.assertEqual(kv.pages(words(7, 1, 24), 1, 24, 16, over_metadata),
                         [[1, 16, "78a88066161b56ef"], [17, 8, "b274fed6effa321c"]])


if __name__ == "__main__":
    unittest.main()
