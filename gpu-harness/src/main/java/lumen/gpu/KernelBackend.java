package lumen.gpu;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import lumen.runtime.KvGeometry;

/**
 * The backend whose every operation is a kernel of {@code lumen_kernels.cu} on a {@link Device}:
 * the paged pool in device memory; streaming gathers pages into a device staging buffer and copies
 * them to host memory on the side stream, so that it overlaps with decode kernels on the main
 * stream; a restore copies pages host to device and proves them bit-exact with the checksum
 * kernel. On a GPU it is {@link CudaBackend}.
 */
class KernelBackend extends PooledBackend {
    private static final int THREADS = 256;
    /** The grid's y limit; the kernels that spread work along y loop over it. */
    private static final int MAX_Y = 65_535;

    final Device dev;
    private final Device.Ptr mem;

    /** A pool of {@code capacityPages} pages of geometry {@code g} on the device {@code open} gives once the geometry is known to fit; the backend owns it and closes it. */
    KernelBackend(java.util.function.Supplier<Device> open, KvGeometry g, int capacityPages) {
        super(usable(g), capacityPages);
        this.dev = open.get();
        try {
            this.mem = dev.alloc((long) capacityPages * g.pageBytes());
        } catch (RuntimeException e) {
            dev.close();
            throw e;
        }
    }

    /** {@code g}, when its pages and token rows fit the kernels' vector reads. */
    private static KvGeometry usable(KvGeometry g) {
        if (g.pageBytes() % 16 != 0 || (g.layers() * g.bytesPerTokenLayer()) % 4 != 0) {
            throw new IllegalArgumentException("the kernel backends need pages of a multiple of 16 bytes and token rows of a multiple of 4; got "
                    + g.pageBytes() + " and " + g.layers() * g.bytesPerTokenLayer());
        }
        return g;
    }

    @Override
    public String name() {
        return dev.name();
    }

    /** The slots of req's pages. */
    int[] table(int req) {
        return pool.table(req);
    }

    /** A device copy of an int array; the caller frees it. */
    Device.Ptr upload(int[] a) {
        Device.Ptr p = dev.alloc((long) a.length * Integer.BYTES);
        dev.write(p, a);
        return p;
    }

    Device.Ptr upload(float[] a) {
        Device.Ptr p = dev.alloc((long) a.length * Float.BYTES);
        dev.write(p, a);
        return p;
    }

    Device.Ptr zeros(long bytes) {
        Device.Ptr p = dev.alloc(bytes);
        dev.zero(p, Math.max(1, bytes));
        return p;
    }

    private void free(Device.Ptr... ps) {
        for (Device.Ptr p : ps) {
            dev.free(p);
        }
    }

    static int blocks(long work, int threads) {
        return (int) Math.max(1, Math.min(65_535, (work + threads - 1) / threads));
    }

    @Override
    public void compute(int req, long seed, int from, int to) {
        int[] t = extend(req, from, to);
        Device.Ptr table = upload(t);
        try {
            long work = (long) (to - from + 1) * g.layers();
            dev.launch("fill_kv", (int) Math.max(1, (work + THREADS - 1) / THREADS), 1, THREADS, Device.MAIN,
                    mem, table, seed, from, to, g.pageTokens(), g.layers(), g.bytesPerTokenLayer());
            dev.sync(Device.MAIN);
        } finally {
            free(table);
        }
    }

    @Override
    void zeroPages(int[] slots) {
        Device.Ptr ds = upload(slots);
        try {
            long words = g.pageBytes() / 16;
            dev.launch("zero_pages", blocks(slots.length * words, THREADS), 1, THREADS, Device.MAIN, mem, ds, slots.length, words);
            dev.sync(Device.MAIN);
        } finally {
            free(ds);
        }
    }

    /** Gathers the n pages of {@code slots} into the staging buffer on the side stream, then copies them to its host buffer there; may return at once. */
    void streamAsync(Device.Ptr slots, int n, Device.Staging st) {
        long words = g.pageBytes() / 16;
        dev.launch("gather_pages", blocks(n * words, THREADS), 1, THREADS, Device.SIDE, mem, slots, n, words, st.device());
        dev.toHost(st, (long) n * g.pageBytes(), Device.SIDE);
    }

    /** The inverse: copies n pages from the host buffer to the staging buffer, then scatters them into {@code slots}, on the side stream; may return at once. */
    void restoreAsync(Device.Ptr slots, int n, Device.Staging st) {
        long words = g.pageBytes() / 16;
        dev.toDevice(st, (long) n * g.pageBytes(), Device.SIDE);
        dev.launch("scatter_pages", blocks(n * words, THREADS), 1, THREADS, Device.SIDE, mem, slots, n, words, st.device());
    }

    @Override
    public List<byte[]> stream(int req, int from, int to) {
        int[] ss = slots(req, from, to);
        Device.Ptr slots = upload(ss);
        try (Device.Staging st = dev.staging((long) ss.length * g.pageBytes())) {
            streamAsync(slots, ss.length, st);
            dev.sync(Device.SIDE);
            ByteBuffer b = st.host();
            List<byte[]> out = new ArrayList<>();
            for (int i = 0; i < ss.length; i++) {
                byte[] p = new byte[g.pageBytes()];
                b.get(p);
                out.add(p);
            }
            return out;
        } finally {
            free(slots);
        }
    }

    @Override
    public void restore(int req, List<byte[]> pages, int positions) {
        long[] want = sent(req, pages);
        int[] t = pool.replace(req, pages.size(), positions);
        Device.Ptr slots = upload(t);
        try (Device.Staging st = dev.staging((long) t.length * g.pageBytes())) {
            ByteBuffer b = st.host();
            for (byte[] p : pages) {
                b.put(p);
            }
            restoreAsync(slots, t.length, st);
            dev.sync(Device.SIDE);
        } finally {
            free(slots);
        }
        Restores.check(req, want, pageChecksums(req));
    }

    @Override
    public long[] pageChecksums(int req) {
        int[] t = pool.table(req);
        long[] out = new long[t.length];
        if (t.length == 0) {
            return out;
        }
        Device.Ptr slots = upload(t);
        Device.Ptr sums = zeros((long) t.length * Long.BYTES);
        try {
            long words8 = g.pageBytes() / 8;
            dev.launch("page_checksum", blocks(words8, THREADS), Math.min(t.length, MAX_Y), THREADS, Device.MAIN, mem, slots, t.length, words8, sums);
            dev.sync(Device.MAIN);
            dev.read(sums, out);
            return out;
        } finally {
            free(sums, slots);
        }
    }

    /** The batch's page tables, concatenated, with each request's start and positions, on the device (free with {@link #free(Batch)}). */
    record Batch(Device.Ptr tables, Device.Ptr starts, Device.Ptr positions, Device.Ptr out, int size) {}

    Batch batch(int[] reqs) {
        int total = 0;
        for (int r : reqs) {
            total += pool.table(r).length;
        }
        int[] tables = new int[total];
        int[] starts = new int[reqs.length];
        int[] pos = new int[reqs.length];
        int at = 0;
        for (int j = 0; j < reqs.length; j++) {
            int[] t = pool.table(reqs[j]);
            starts[j] = at;
            pos[j] = pool.positions(reqs[j]);
            System.arraycopy(t, 0, tables, at, t.length);
            at += t.length;
        }
        return new Batch(upload(tables), upload(starts), upload(pos), zeros((long) reqs.length * Integer.BYTES), reqs.length);
    }

    /** Launches one decode step's reads of the batch on {@code stream}, {@code blocksPerRequest} blocks sharing each request; may return at once. */
    void decodeAsync(Batch b, int stream, int blocksPerRequest) {
        dev.launch("decode_attend", blocksPerRequest, Math.min(b.size(), MAX_Y), THREADS, stream,
                mem, b.tables(), b.starts(), b.positions(), b.size(), g.pageTokens(), g.layers(), g.bytesPerTokenLayer(), b.out());
    }

    void free(Batch b) {
        free(b.tables(), b.starts(), b.positions(), b.out());
    }

    @Override
    public int[] decode(int[] reqs) {
        int[] out = new int[reqs.length];
        if (reqs.length == 0) {
            return out;
        }
        Batch b = batch(reqs);
        try {
            decodeAsync(b, Device.MAIN, 8);
            dev.sync(Device.MAIN);
            dev.read(b.out(), out);
            return out;
        } finally {
            free(b);
        }
    }

    @Override
    public int[] verifyGreedy(int[] draft, int[] target, int k) {
        int rows = draft.length / k;
        if (target.length != rows * (k + 1) || draft.length != rows * k) {
            throw new IllegalArgumentException("greedy: need rows * k draft and rows * (k + 1) target tokens");
        }
        int[] emitted = new int[rows];
        Device.Ptr d = upload(draft);
        Device.Ptr t = upload(target);
        Device.Ptr e = zeros((long) rows * Integer.BYTES);
        try {
            dev.launch("verify_greedy", blocks(rows, THREADS), 1, THREADS, Device.MAIN, d, t, k, rows, e);
            dev.sync(Device.MAIN);
            dev.read(e, emitted);
            return emitted;
        } finally {
            free(d, t, e);
        }
    }

    @Override
    public Kernels.Emitted verifyRejection(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample, int k, int v) {
        int rows = draft.length / k;
        if (p.length != rows * (k + 1) * v || q.length != rows * k * v || uAccept.length != rows * k || uSample.length != rows * (k + 1)) {
            throw new IllegalArgumentException("rejection: need p of rows*(k+1)*v, q of rows*k*v, uAccept of rows*k, uSample of rows*(k+1)");
        }
        int[] out = new int[rows * (k + 1)];
        int[] emitted = new int[rows];
        Device.Ptr dp = upload(p);
        Device.Ptr dq = upload(q);
        Device.Ptr dd = upload(draft);
        Device.Ptr ua = upload(uAccept);
        Device.Ptr us = upload(uSample);
        Device.Ptr dOut = zeros((long) out.length * Integer.BYTES);
        Device.Ptr dEm = zeros((long) rows * Integer.BYTES);
        try {
            dev.launch("verify_rejection", blocks(rows, 128), 1, 128, Device.MAIN, dp, dq, dd, ua, us, k, v, rows, dOut, dEm);
            dev.sync(Device.MAIN);
            dev.read(dOut, out);
            dev.read(dEm, emitted);
            return new Kernels.Emitted(out, emitted);
        } finally {
            free(dp, dq, dd, ua, us, dOut, dEm);
        }
    }

    @Override
    public void close() {
        dev.close();
    }
}
