package lumen.core;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Map;

/**
 * A 64-bit fingerprint of a value's content, for telling candidate spec states apart as TLC does:
 * two states with equal fingerprints are taken to be the same state. It follows records component
 * by component, arrays element by element and maps entry by entry (order-independent), so two
 * states built by different histories hash alike when their content is alike. A finished
 * request counts by what later events and the invariants read of it (its output and its copies'
 * lengths), not by where its copies were. Collisions are
 * possible, with TLC's odds: one in about 2^64 per pair of states.
 */
public final class Fingerprint {
    private Fingerprint() {}

    /** MurmurHash3's 64-bit finaliser. */
    public static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** Combines a running fingerprint with one more value, in order. */
    public static long add(long h, long v) {
        return mix(h * 0x9E3779B97F4A7C15L + v + 0x632BE59BD9B4E019L);
    }

    /**
     * The fingerprint of o's content, remembering each record's in {@code memo} by identity: the
     * candidate states of a partial trace share most of their (persistent) records, so each is
     * hashed once. A record is never changed once built, so its fingerprint stays right.
     */
    public static long of(Object o, java.util.IdentityHashMap<Object, Long> memo) {
        if (memo == null || !(o instanceof Record)) {
            return content(o, memo);
        }
        Long h = memo.get(o);
        if (h == null) {
            h = content(o, memo);
            memo.put(o, h);
        }
        return h;
    }

    /** The fingerprint of o's content. */
    public static long of(Object o) {
        return of(o, null);
    }

    private static long content(Object o, java.util.IdentityHashMap<Object, Long> memo) {
        if (o == null) {
            return 0x5bd1e995L;
        }
        if (o instanceof Integer || o instanceof Long || o instanceof Short || o instanceof Byte) {
            return mix(((Number) o).longValue());
        }
        if (o instanceof Double d) {
            return mix(Double.doubleToLongBits(d));
        }
        if (o instanceof Boolean b) {
            return b ? 0x1234567L : 0x7654321L;
        }
        if (o instanceof Enum<?> e) {
            return mix(e.ordinal() + 0xABCDL);
        }
        if (o instanceof int[] a) {
            return mix(Arrays.hashCode(a) * 31L + a.length);
        }
        if (o instanceof long[] a) {
            long h = a.length;
            for (long x : a) {
                h = add(h, x);
            }
            return h;
        }
        if (o instanceof double[] a) {
            long h = a.length;
            for (double x : a) {
                h = add(h, Double.doubleToLongBits(x));
            }
            return h;
        }
        if (o instanceof PIntMap<?> m) {
            return mix(m.size() + m.entrySum(v -> of(v, memo), memo));
        }
        if (o instanceof Map<?, ?> m) {
            long sum = m.size();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sum += mix(add(of(e.getKey(), memo), of(e.getValue(), memo)));
            }
            return mix(sum);
        }
        if (o instanceof RequestRec q && q.phase() == RequestPhase.DONE) {
            // a finished request as later events can read it: where its copies were is history (the
            // workers' held sets say what is held now), so states that differ only there are one state
            long h = add(add(add(q.id(), q.outLen()), q.outOk() ? 1 : 2), add(q.ckpt().length(), q.bckpt().length()));
            return add(h, of(q.ckpt().holes()) + 31 * of(q.bckpt().holes()));
        }
        // the state's own records, component by component, without reflection; a request's reference
        // output, shared by all its records, is hashed once per array
        if (o instanceof RequestRec q) {
            long h = add(add(add(add(0x52E9L, q.id()), q.phase().ordinal()), q.server()), q.holder());
            h = add(add(add(h, q.placed() ? 1 : 2), of(q.kv(), memo)), of(q.ckpt(), memo));
            h = add(add(add(add(h, q.backup()), of(q.bckpt(), memo)), q.outLen()), q.outOk() ? 1 : 2);
            long ref = memo == null ? content(q.ref(), null) : memo.computeIfAbsent(q.ref(), a -> content(a, null));
            h = add(add(add(add(h, q.promptLen()), q.refLen()), q.maxOut()), ref);
            return add(h, q.proposal() == null ? 0 : add(add(0x9F0L, q.proposal().src()), content(q.proposal().toks(), memo)));
        }
        if (o instanceof WorkerRec w) {
            long h = add(add(add(add(0x3A7BL, w.id()), w.state().ordinal()), w.active().ordinal()), of(w.runq(), memo));
            h = add(add(add(add(add(h, w.waiting()), of(w.held(), memo)), w.stored()), w.reserved()), w.target());
            return add(add(h, w.epoch()), w.zombie() == null ? 0 : of(w.zombie(), memo));
        }
        if (o instanceof PageSeq p) {
            return add(add(0x9A6EL, p.length()), content(p.holes(), memo));
        }
        if (o instanceof Record r) {
            long h = mix(r.getClass().getName().hashCode());
            for (RecordComponent c : r.getClass().getRecordComponents()) {
                try {
                    h = add(h, of(c.getAccessor().invoke(r), memo));
                } catch (ReflectiveOperationException ex) {
                    throw new IllegalStateException("fingerprint of " + r.getClass().getName() + "." + c.getName(), ex);
                }
            }
            return h;
        }
        if (o instanceof String s) {
            return mix(s.hashCode());
        }
        throw new IllegalArgumentException("no fingerprint for " + o.getClass().getName());
    }
}
