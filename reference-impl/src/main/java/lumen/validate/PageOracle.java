package lumen.validate;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import lumen.core.Event;
import lumen.core.KitKv;
import lumen.core.PageDigest;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;

/**
 * What the kit knows a page's digest must be, where it knows it: the digests a trace reports are
 * then held to it, not only to each other. Copies that agree with each other prove nothing of bytes
 * a system never hashed (a digest taken over a page's position and count agrees with every copy),
 * and nothing of bytes its own server wrote wrong.
 */
public interface PageOracle {
    /** The digest page {@code p} of request {@code req} must carry, or null when this oracle says nothing of it. */
    Long expected(int req, PageDigest p);

    /** What the oracle is, for the messages that cite it. */
    String source();

    /**
     * The kit's KV content model ({@link KitKv}) with each request's seed: for a system on the
     * kit's token model, which keeps the kit's bytes.
     */
    static PageOracle kitModel(Map<Integer, Long> seeds) {
        return new PageOracle() {
            @Override
            public Long expected(int req, PageDigest p) {
                Long seed = seeds.get(req);
                return seed == null ? null : KitKv.digest(seed, p);
            }

            @Override
            public String source() {
                return "the kit's KV content model's digest for them (" + KitKv.NAME + ", docs/conformance.md)";
            }
        };
    }

    /** A page of one request: its first position and how many positions a copy holds of it. */
    record Key(int req, int first, int count) {}

    /**
     * The digests a system's own failure-free run reported for the pages its servers wrote (its
     * Prefill and Decode events): with a deterministic model the KV of a position is the same
     * whatever the failures, so a page written, copied or restored under failures must carry the
     * failure-free run's digest for the same positions. Pages that run never wrote with the same
     * count are not judged.
     */
    static PageOracle failureFree(byte[] trace, String source) throws IOException, TraceFormatException {
        Map<Key, Long> written = new HashMap<>();
        try (TraceReader reader = new TraceReader(new ByteArrayInputStream(trace), source)) {
            Event e;
            while ((e = reader.next()) != null) {
                PageDigest[] pages = e instanceof Event.Prefill p ? p.pages() : e instanceof Event.Decode d ? d.pages() : null;
                for (PageDigest p : pages == null ? new PageDigest[0] : pages) {
                    written.put(new Key(e.req(), p.first(), p.count()), p.digest());
                }
            }
        }
        return new PageOracle() {
            @Override
            public Long expected(int req, PageDigest p) {
                return written.get(new Key(req, p.first(), p.count()));
            }

            @Override
            public String source() {
                return "the digest the same system reported for these positions in its failure-free run (--kv-equivalence)";
            }
        };
    }
}
