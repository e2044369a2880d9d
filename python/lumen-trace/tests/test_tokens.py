import unittest

import _path  # noqa: F401
from lumen_trace import tokens


class TokenModelTest(unittest.TestCase):
    def test_docs_vectors(self):
        # docs/conformance.md, "The reference": test vectors, vocab 32000
        vectors = {
            0: [15535, 19700, 25679, 30444, 14747],
            1: [22465, 28519, 10590, 20235, 24761],
            7: [22487, 11804, 25346, 203, 19674],
            -1: [27936, 969, 1001, 5842, 18606],
            1234567890123: [13016, 21866, 12279, 19260, 30801],
        }
        for seed, want in vectors.items():
            self.assertEqual([tokens.token(seed, n) for n in range(1, 6)], want, seed)
            self.assertEqual(tokens.reference(seed, 5), want, seed)

    def test_golden_values_of_the_example(self):
        # computed by examples/python-adapter/kv.py before it moved here
        self.assertEqual(tokens.reference(-9223372036854775808, 5), [29915, 26130, 9024, 9977, 14803])
        self.assertEqual(tokens.reference(9223372036854775807, 5), [16039, 18247, 1680, 31483, 11723])
        for seed, want in {0: 62, 1: 311, 7: 342, -1: 335, 1234567890123: 470}.items():
            self.assertEqual(tokens.token(seed, 1000, 1000), want, seed)
        self.assertEqual(tokens.splitmix64(0), 0)
        self.assertEqual(tokens.splitmix64(12345), 17540659726606785873)

    def test_reference_length_and_vocab(self):
        self.assertEqual(tokens.reference(7, 0), [])
        self.assertEqual(tokens.reference(7, 4), [22487, 11804, 25346, 203])
        self.assertTrue(all(0 <= t < 10 for t in tokens.reference(3, 50, vocab=10)))
        self.assertEqual(tokens.vocab_of({"tokenModel": {"name": tokens.NAME, "vocab": 1000}}), 1000)
        self.assertEqual(tokens.vocab_of({}), 32000)


if __name__ == "__main__":
    unittest.main()
