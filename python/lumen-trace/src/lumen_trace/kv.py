"""The kit's KV content model, ``lumen-kv-murmur``, and page digests.

docs/conformance.md, "The kit's KV content": context position p (1-based) of the
request sent with seed s holds, for each layer, ``bytes_per_token_layer`` bytes,
as 64-bit little-endian words; a copy of a page lays out its positions in order,
each position's layers in order, and its digest is

    sum mod 2^64 over the page's words w_j of mix(w_j XOR j * 0x9E3779B97F4A7C15)

written as 16 hexadecimal digits. docs/trace-format.md, "KV content (v2)", says
which pages an event lists: ``pages(...)`` builds that list.
"""

import struct
import sys
from array import array

from .tokens import GOLDEN, M64

NAME = "lumen-kv-murmur"
LAYERS = 2
BYTES_PER_TOKEN_LAYER = 16


def mix(x):
    """The 64-bit finaliser of MurmurHash3 (mix64)."""
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & M64
    return x ^ (x >> 33)


def kv_words(seed, pos, layers=LAYERS, bytes_per_token_layer=BYTES_PER_TOKEN_LAYER):
    """The KV bytes of context position ``pos`` (1-based) as 64-bit words, layer by layer."""
    words = []
    for layer in range(layers):
        h = mix(((seed & M64) * GOLDEN + (layer << 32) + pos) & M64)
        for b in range(bytes_per_token_layer // 8):
            if b > 0:
                h = mix((h + 8 * b) & M64)
            words.append(h)
    return tuple(words)


def page_digest(positions):
    """The digest of what a copy holds of one page: ``positions`` is a sequence of
    positions, each a sequence of 64-bit words, in layout order."""
    acc = 0
    j = 0
    for words in positions:
        for w in words:
            acc = (acc + mix(w ^ ((j * GOLDEN) & M64))) & M64
            j += 1
    return format(acc, "016x")


def words_digest(words):
    """The digest of a page given as one flat sequence of 64-bit words."""
    return page_digest((words,))


def bytes_digest(data):
    """The digest of a page's raw bytes (every layer, K and V, in layout order): the
    same hash over the little-endian 64-bit words of ``data`` (bytes, bytearray,
    memoryview, or anything with the buffer protocol, e.g. a host copy of a tensor).
    Its length must be a multiple of 8."""
    raw = memoryview(data).cast("B")
    if len(raw) % 8:
        raise ValueError("a page's bytes must be a whole number of 64-bit words, got %d bytes" % len(raw))
    words = array("Q")
    if words.itemsize != 8:                      # pragma: no cover (no such platform in practice)
        return words_digest(struct.unpack("<%dQ" % (len(raw) // 8), raw))
    words.frombytes(raw.tobytes())
    if sys.byteorder != "little":                # pragma: no cover
        words.byteswap()
    return words_digest(words)


def words_bytes(words):
    """The little-endian bytes of a sequence of 64-bit words (the inverse of what
    ``bytes_digest`` reads)."""
    return struct.pack("<%dQ" % len(words), *words)


def _by_bytes(first, held):
    return page_digest(held)


def pages(kv, first_pos, last_pos, page_tokens, digest=None):
    """The trace's ``pages`` entries for positions ``first_pos``..``last_pos`` of ``kv``.

    ``kv[i]`` is position i+1 of a copy (a server's KV, a holder's checkpoint), each a
    sequence of 64-bit words. One entry per physical page touched, in increasing order:
    ``[first position of the page, positions the copy holds of it, digest]``. The count
    and digest describe what the copy holds of the page after the event, from the page's
    first position, which may include positions written before this event.

    ``digest(first, held)`` computes an entry's digest from the page's first position and
    the positions the copy holds of it; by default the kit's digest of their bytes.
    """
    if last_pos < first_pos:
        return []
    digest = digest or _by_bytes
    entries = []
    page = (first_pos - 1) // page_tokens
    while page * page_tokens + 1 <= last_pos:
        start = page * page_tokens + 1
        end = min(start + page_tokens - 1, len(kv))
        entries.append([start, end - start + 1, digest(start, kv[start - 1:end])])
        page += 1
    return entries


class KvModel:
    """The kit's KV content model with a given shape (an ``init`` command's ``kvModel``)."""

    name = NAME

    def __init__(self, layers=LAYERS, bytes_per_token_layer=BYTES_PER_TOKEN_LAYER):
        if layers < 1 or bytes_per_token_layer < 8 or bytes_per_token_layer % 8:
            raise ValueError("a KV model needs layers >= 1 and bytesPerTokenLayer a positive multiple of 8, got %r, %r"
                             % (layers, bytes_per_token_layer))
        self.layers, self.bytes_per_token_layer = layers, bytes_per_token_layer

    @classmethod
    def from_init(cls, init):
        """The model an adapter protocol ``init`` command names (the defaults when it names none)."""
        model = init.get("kvModel", {})
        return cls(int(model.get("layers", LAYERS)), int(model.get("bytesPerTokenLayer", BYTES_PER_TOKEN_LAYER)))

    def words(self, seed, pos):
        """Position ``pos``'s words (see ``kv_words``)."""
        return kv_words(seed, pos, self.layers, self.bytes_per_token_layer)

    def zeros(self):
        """The words of a position nothing wrote: zeros."""
        return (0,) * (self.layers * self.bytes_per_token_layer // 8)

    def digest(self, seed, first, count):
        """The digest the kit predicts for positions ``first``..``first+count-1`` of the request sent with ``seed``."""
        return page_digest([self.words(seed, p) for p in range(first, first + count)])

    def __repr__(self):
        return "KvModel(layers=%d, bytes_per_token_layer=%d)" % (self.layers, self.bytes_per_token_layer)
