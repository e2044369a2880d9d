"""The synthetic model: the kit's token model, KV content, page digests.

A real serving stack would have a GPU and a model here. This example keeps a
stand-in that behaves like one where the kit can see it:

* output token n of a request is the kit's token model (docs/conformance.md,
  "The reference"), but only when the KV the decoder reads is intact;
  a decoder reading corrupted KV emits a different token, as a real one would;
* the KV of context position i is one 64-bit word, a function of the
  request and i, so that a page copied from the wrong place or the wrong
  request has different bytes and therefore a different digest.
"""

import hashlib

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def token(seed, n, vocab):
    """Output token n (1-based) of the request sent with `seed` (signed 64-bit)."""
    return splitmix64((seed + n * GOLDEN) & M64) % vocab


def wrong_token(seed, n, vocab):
    """What a decoder reading bad KV emits instead of token n: anything else."""
    return (token(seed, n, vocab) + 1) % vocab


def kv_word(seed, pos):
    """The KV bytes of context position `pos` (1-based), abbreviated to one word."""
    return splitmix64(((seed ^ 0x5DEECE66D) + pos * 0xD1B54A32D192ED69) & M64)


def page_digest(words):
    """16 hex digits over the bytes of the positions a copy holds of one page.

    The kit never computes a digest, it only compares them, so any 64-bit hash
    will do as long as every copy is hashed the same way.
    """
    data = b"".join(w.to_bytes(8, "little") for w in words)
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def pages(kv, first_pos, last_pos, page_tokens):
    """Trace-contract `pages` entries for positions first_pos..last_pos of `kv`.

    `kv[i]` is position i+1. One entry per physical page touched, in
    increasing order: [first position of the page, positions held, digest].
    `count` and `digest` describe what the copy holds of that page after the
    event, from the page's first position, which may include positions
    written before this event.
    """
    if last_pos < first_pos:
        return []
    entries = []
    page = (first_pos - 1) // page_tokens
    while page * page_tokens + 1 <= last_pos:
        start = page * page_tokens + 1
        end = min(start + page_tokens - 1, len(kv))
        entries.append([start, end - start + 1, page_digest(kv[start - 1:end])])
        page += 1
    return entries
