"""The synthetic model: the kit's token model, KV content, page digests.

A real serving stack would have a GPU and a model here. This example keeps a
stand-in that behaves like one where the kit can see it:

* output token n of a request is the kit's token model (docs/conformance.md,
  "The reference"), but only when the KV the decoder reads is intact;
  a decoder reading corrupted KV emits a different token, as a real one would;
* the KV of context position i is the kit's KV content model: a few 64-bit
  words, a function of the request's seed and i, so that a page copied from
  the wrong place or the wrong request has different bytes and therefore a
  different digest, which the kit predicts.
"""

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


# The kit's KV content model (docs/conformance.md, "The kit's KV content"): the
# bytes of each context position, LAYERS layers of BYTES_PER_TOKEN_LAYER bytes,
# and the digest of a page's bytes. The kit predicts every digest this adapter
# reports, so a page holding another position's bytes, or a digest taken over
# anything but the bytes, is caught.
LAYERS, BYTES_PER_TOKEN_LAYER = 2, 16
# The bytes of a position nothing ever wrote: zeros.
NEVER_WRITTEN = (0,) * (LAYERS * BYTES_PER_TOKEN_LAYER // 8)
# The bug `digest-over-metadata`: a page's digest taken over where the page is
# (its first position and count) instead of over its bytes.
DIGEST_OVER_METADATA = False


def mix(x):
    """The 64-bit finaliser of MurmurHash3."""
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & M64
    return x ^ (x >> 33)


def kv_word(seed, pos):
    """The KV bytes of context position `pos` (1-based): its 64-bit words, layer by layer."""
    words = []
    for layer in range(LAYERS):
        h = mix(((seed & M64) * GOLDEN + (layer << 32) + pos) & M64)
        for b in range(BYTES_PER_TOKEN_LAYER // 8):
            if b > 0:
                h = mix((h + 8 * b) & M64)
            words.append(h)
    return tuple(words)


def page_digest(positions):
    """16 hex digits over the bytes of the positions a copy holds of one page:
    the sum mod 2^64 of mix(w_j XOR j * GOLDEN) over its 64-bit words w_j."""
    acc = 0
    j = 0
    for words in positions:
        for w in words:
            acc = (acc + mix(w ^ ((j * GOLDEN) & M64))) & M64
            j += 1
    return format(acc, "016x")


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
        digest = (format(mix((start * GOLDEN + end - start + 1) & M64), "016x") if DIGEST_OVER_METADATA
                  else page_digest(kv[start - 1:end]))
        entries.append([start, end - start + 1, digest])
        page += 1
    return entries
