"""The kit's token model, ``lumen-splitmix64`` (docs/conformance.md, "The reference").

Output token n (1-based) of the request the kit sent with ``seed`` is

    splitmix64(seed + n * 0x9E3779B97F4A7C15) mod vocab

in unsigned 64-bit arithmetic. It depends on the seed and the position only.
"""

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

NAME = "lumen-splitmix64"
DEFAULT_VOCAB = 32000


def splitmix64(z):
    """The splitmix64 finaliser of a 64-bit value."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def token(seed, n, vocab=DEFAULT_VOCAB):
    """Output token ``n`` (1-based) of the request sent with ``seed`` (a signed 64-bit integer)."""
    return splitmix64((seed + n * GOLDEN) & M64) % vocab


def reference(seed, length, vocab=DEFAULT_VOCAB):
    """The request's whole reference output: tokens 1..``length``."""
    return [token(seed, n, vocab) for n in range(1, length + 1)]


def vocab_of(init):
    """The vocabulary an adapter protocol ``init`` command names (32000 when it names none)."""
    return int(init.get("tokenModel", {}).get("vocab", DEFAULT_VOCAB))
