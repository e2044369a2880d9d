package lumen.gpu;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import lumen.runtime.KvGeometry;

/**
 * The JCuda backend: the paged pool in device memory, and every operation a kernel of
 * {@code lumen_kernels.cu}, loaded as PTX through the driver API. Streaming gathers pages into a
 * device staging buffer and copies them to pinned host memory on a side stream, so that it
 * overlaps with decode kernels on the main stream; a restore copies pages host to device and
 * proves them bit-exact with the checksum kernel. {@link #probe()} says why it is unavailable
 * where it is: no kernels (nvcc was absent at build time), no driver, or no device.
 */
public final class CudaBackend extends PooledBackend {
    static final String PTX = "/lumen/gpu/lumen_kernels.ptx";
    private static final int THREADS = 256;

    private final CUcontext ctx = new CUcontext();
    private final CUdevice dev = new CUdevice();
    private final CUmodule module = new CUmodule();
    private final CUstream main = new CUstream();
    private final CUstream side = new CUstream();
    private final CUdeviceptr mem = new CUdeviceptr();
    final String device;
    private final java.util.Map<String, CUfunction> fns = new java.util.HashMap<>();

    /** Null when the backend can run here, else why not. */
    private static volatile String unavailable;
    private static volatile boolean probed;

    /** Why the JCuda backend cannot run on this machine, or empty when it can. */
    public static synchronized Optional<String> probe() {
        if (!probed) {
            unavailable = check();
            probed = true;
        }
        return Optional.ofNullable(unavailable);
    }

    private static String check() {
        if (CudaBackend.class.getResource(PTX) == null) {
            return "the kernels were not built: nvcc was not found when the kit was built (install the CUDA toolkit and rebuild)";
        }
        try {
            JCudaDriver.setExceptionsEnabled(true);
            cuInit(0);
            int[] n = new int[1];
            cuDeviceGetCount(n);
            if (n[0] == 0) {
                return "no CUDA device";
            }
            return null;
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            return "the JCuda native library could not be loaded: " + rootCause(e.getMessage());
        } catch (CudaException e) {
            return "the CUDA driver refused: " + firstLine(e.getMessage());
        }
    }

    /** JCuda's message nests every attempt; the line that names a missing shared object (libcuda.so.1: no driver) says why. */
    static String rootCause(String m) {
        if (m == null) {
            return "";
        }
        return m.lines().filter(l -> l.contains("cannot open shared object file")).map(l -> l.substring(l.lastIndexOf(": ", l.indexOf("cannot open")
                - 3) + 2).trim()).findFirst().map(l -> l + (l.contains("libcuda.so") ? " (no NVIDIA driver on this machine)" : "")).orElse(firstLine(m));
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }

    /** A pool of {@code capacityPages} pages of geometry {@code g} on device 0. */
    public CudaBackend(KvGeometry g, int capacityPages) {
        super(usable(g), capacityPages);
        cuDeviceGet(dev, 0);
        byte[] name = new byte[256];
        cuDeviceGetName(name, name.length, dev);
        this.device = new String(name, StandardCharsets.US_ASCII).trim().replace("\0", "");
        // the device's primary context, shared by every backend of the process (one per worker in a runtime)
        cuDevicePrimaryCtxRetain(ctx, dev);
        cuCtxSetCurrent(ctx);
        loadModule();
        cuStreamCreate(main, 0);
        cuStreamCreate(side, 0);
        cuMemAlloc(mem, (long) capacityPages * g.pageBytes());
    }

    /** {@code g}, when this backend can run with it: the JCuda backend is available, and pages and token rows fit its vector reads. */
    private static KvGeometry usable(KvGeometry g) {
        probe().ifPresent(r -> {
            throw new IllegalStateException("the JCuda backend is unavailable: " + r);
        });
        if (g.pageBytes() % 16 != 0 || (g.layers() * g.bytesPerTokenLayer()) % 4 != 0) {
            throw new IllegalArgumentException("the JCuda backend needs pages of a multiple of 16 bytes and token rows of a multiple of 4; got "
                    + g.pageBytes() + " and " + g.layers() * g.bytesPerTokenLayer());
        }
        return g;
    }

    /** Loads the PTX; a driver older than the compiler gets the same PTX at an ISA version it knows (the kernels use nothing newer). */
    private void loadModule() {
        String ptx;
        try (InputStream in = CudaBackend.class.getResourceAsStream(PTX)) {
            ptx = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + PTX, e);
        }
        try {
            cuModuleLoadData(module, (ptx + "\0").getBytes(StandardCharsets.US_ASCII));
        } catch (CudaException e) {
            int[] v = new int[1];
            cuDriverGetVersion(v);
            String lowered = ptx.replaceFirst("(?m)^\\.version \\d+\\.\\d+", ".version 7.8");
            cuModuleLoadData(module, (lowered + "\0").getBytes(StandardCharsets.US_ASCII));
            System.err.println("lumen: the driver (" + v[0] + ") did not take the PTX as built (" + firstLine(e.getMessage())
                    + "); loaded it at PTX ISA 7.8");
        }
    }

    /** Makes this backend's context current on the calling thread (several backends may share a thread). */
    void bind() {
        cuCtxSetCurrent(ctx);
    }

    private CUfunction fn(String name) {
        return fns.computeIfAbsent(name, n -> {
            CUfunction f = new CUfunction();
            cuModuleGetFunction(f, module, n);
            return f;
        });
    }

    @Override
    public String name() {
        return "jcuda";
    }




    CUdeviceptr pool() {
        return mem;
    }

    /** The slots of req's pages. */
    int[] table(int req) {
        return pool.table(req);
    }

    CUstream mainStream() {
        return main;
    }

    CUstream sideStream() {
        return side;
    }

    /** A device copy of an int array; the caller frees it. */
    static CUdeviceptr upload(int[] a) {
        return upload(Pointer.to(a), (long) a.length * Sizeof.INT);
    }

    static CUdeviceptr upload(float[] a) {
        return upload(Pointer.to(a), (long) a.length * Sizeof.FLOAT);
    }

    private static CUdeviceptr upload(Pointer src, long bytes) {
        CUdeviceptr d = new CUdeviceptr();
        cuMemAlloc(d, Math.max(1, bytes));
        if (bytes > 0) {
            cuMemcpyHtoD(d, src, bytes);
        }
        return d;
    }

    /** A device staging buffer and a pinned host buffer of the same size, allocated and freed together. */
    record Staging(CUdeviceptr device, Pointer host, long bytes) implements AutoCloseable {
        static Staging of(long bytes) {
            long b = Math.max(1, bytes);
            CUdeviceptr d = new CUdeviceptr();
            Pointer h = new Pointer();
            cuMemAlloc(d, b);
            cuMemAllocHost(h, b);
            return new Staging(d, h, b);
        }

        @Override
        public void close() {
            cuMemFreeHost(host);
            cuMemFree(device);
        }
    }

    static CUdeviceptr zeros(long bytes) {
        CUdeviceptr d = new CUdeviceptr();
        cuMemAlloc(d, Math.max(1, bytes));
        cuMemsetD8(d, (byte) 0, Math.max(1, bytes));
        return d;
    }

    /**
     * Each kernel's parameters, as byte sizes in declaration order (8: a device pointer or a 64-bit
     * integer; 4: a 32-bit integer). A test checks them against the PTX, and every launch checks its
     * arguments against them, so a kernel and its Java caller cannot drift apart unnoticed.
     */
    static final Map<String, int[]> SIGNATURES = Map.of(
            "fill_kv", new int[] {8, 8, 8, 4, 4, 4, 4, 4},
            "gather_pages", new int[] {8, 8, 4, 8, 8},
            "scatter_pages", new int[] {8, 8, 4, 8, 8},
            "page_checksum", new int[] {8, 8, 4, 8, 8},
            "decode_attend", new int[] {8, 8, 8, 8, 4, 4, 4, 8},
            "verify_greedy", new int[] {8, 8, 4, 4, 8},
            "verify_rejection", new int[] {8, 8, 8, 8, 8, 4, 4, 4, 8, 8});

    /** The kernel parameter block for {@code args} (CUdeviceptr, Long or Integer), checked against the kernel's signature. */
    static Pointer params(String kernel, Object... args) {
        int[] sig = SIGNATURES.get(kernel);
        if (sig == null) {
            throw new IllegalArgumentException("no kernel " + kernel + " in lumen_kernels.cu");
        }
        if (sig.length != args.length) {
            throw new IllegalArgumentException(kernel + " takes " + sig.length + " parameters; launched with " + args.length);
        }
        Pointer[] ps = new Pointer[args.length];
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int size;
            if (a instanceof CUdeviceptr d) {
                ps[i] = Pointer.to(d);
                size = 8;
            } else if (a instanceof Long l) {
                ps[i] = Pointer.to(new long[] {l});
                size = 8;
            } else if (a instanceof Integer n) {
                ps[i] = Pointer.to(new int[] {n});
                size = 4;
            } else {
                throw new IllegalArgumentException(kernel + " parameter " + i + ": cannot pass a " + (a == null ? "null" : a.getClass().getSimpleName()));
            }
            if (size != sig[i]) {
                throw new IllegalArgumentException(kernel + " parameter " + i + " takes " + sig[i] + " bytes; launched with " + size);
            }
        }
        return Pointer.to(ps);
    }

    void launch(String kernel, int blocksX, int blocksY, int threads, CUstream s, Object... args) {
        cuLaunchKernel(fn(kernel), blocksX, blocksY, 1, threads, 1, 1, 0, s, params(kernel, args), null);
    }

    static int blocks(long work, int threads) {
        return (int) Math.max(1, Math.min(65_535, (work + threads - 1) / threads));
    }

    @Override
    public void compute(int req, long seed, int from, int to) {
        bind();
        int[] t = pool.extend(req, from, to);
        CUdeviceptr table = upload(t);
        try {
            long work = (long) (to - from + 1) * g.layers();
            launch("fill_kv", (int) Math.max(1, (work + THREADS - 1) / THREADS), 1, THREADS, main, mem, table, (long) seed, from, to, g.pageTokens(), g.layers(), g.bytesPerTokenLayer());
            cuStreamSynchronize(main);
        } finally {
            cuMemFree(table);
        }
    }



    /** Gathers the n pages of {@code slots} into the staging buffer on the side stream, then copies them to its pinned host buffer there; returns at once. */
    void streamAsync(CUdeviceptr slots, int n, Staging st) {
        long words = g.pageBytes() / 16;
        launch("gather_pages", blocks(n * words, THREADS), 1, THREADS, side, mem, slots, n, (long) words, st.device());
        cuMemcpyDtoHAsync(st.host(), st.device(), (long) n * g.pageBytes(), side);
    }

    /** The inverse: copies n pages from the pinned host buffer to the staging buffer, then scatters them into {@code slots}, on the side stream; returns at once. */
    void restoreAsync(CUdeviceptr slots, int n, Staging st) {
        long words = g.pageBytes() / 16;
        cuMemcpyHtoDAsync(st.device(), st.host(), (long) n * g.pageBytes(), side);
        launch("scatter_pages", blocks(n * words, THREADS), 1, THREADS, side, mem, slots, n, (long) words, st.device());
    }

    @Override
    public List<byte[]> stream(int req, int from, int to) {
        bind();
        int[] ss = slots(req, from, to);
        CUdeviceptr slots = upload(ss);
        try (Staging st = Staging.of((long) ss.length * g.pageBytes())) {
            streamAsync(slots, ss.length, st);
            cuStreamSynchronize(side);
            ByteBuffer b = st.host().getByteBuffer(0, st.bytes());
            List<byte[]> out = new ArrayList<>();
            for (int i = 0; i < ss.length; i++) {
                byte[] p = new byte[g.pageBytes()];
                b.get(p);
                out.add(p);
            }
            return out;
        } finally {
            cuMemFree(slots);
        }
    }

    @Override
    public void restore(int req, List<byte[]> pages, int positions) {
        bind();
        long[] want = sent(req, pages);
        int[] t = pool.replace(req, pages.size(), positions);
        CUdeviceptr slots = upload(t);
        try (Staging st = Staging.of((long) t.length * g.pageBytes())) {
            ByteBuffer b = st.host().getByteBuffer(0, st.bytes());
            for (byte[] p : pages) {
                b.put(p);
            }
            restoreAsync(slots, t.length, st);
            cuStreamSynchronize(side);
        } finally {
            cuMemFree(slots);
        }
        Restores.check(req, want, pageChecksums(req));
    }

    @Override
    public long[] pageChecksums(int req) {
        bind();
        int[] t = pool.table(req);
        long[] out = new long[t.length];
        if (t.length == 0) {
            return out;
        }
        CUdeviceptr slots = upload(t);
        CUdeviceptr sums = zeros((long) t.length * Sizeof.LONG);
        try {
            long words8 = g.pageBytes() / 8;
            launch("page_checksum", blocks(words8, THREADS), t.length, THREADS, main, mem, slots, t.length, (long) words8, sums);
            cuStreamSynchronize(main);
            cuMemcpyDtoH(Pointer.to(out), sums, (long) t.length * Sizeof.LONG);
            return out;
        } finally {
            cuMemFree(sums);
            cuMemFree(slots);
        }
    }

    /** The batch's page tables, concatenated, with each request's start and positions, on the device (free with {@link #free(Batch)}). */
    record Batch(CUdeviceptr tables, CUdeviceptr starts, CUdeviceptr positions, CUdeviceptr out, int size) {}

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
        return new Batch(upload(tables), upload(starts), upload(pos), zeros((long) reqs.length * Sizeof.INT), reqs.length);
    }

    /** Launches one decode step's reads of the batch on {@code s}, {@code blocksPerRequest} blocks sharing each request; returns at once. */
    void decodeAsync(Batch b, CUstream s, int blocksPerRequest) {
        launch("decode_attend", blocksPerRequest, b.size(), THREADS, s, mem, b.tables(), b.starts(), b.positions(), g.pageTokens(), g.layers(), g.bytesPerTokenLayer(), b.out());
    }

    static void free(Batch b) {
        cuMemFree(b.tables());
        cuMemFree(b.starts());
        cuMemFree(b.positions());
        cuMemFree(b.out());
    }

    @Override
    public int[] decode(int[] reqs) {
        bind();
        int[] out = new int[reqs.length];
        if (reqs.length == 0) {
            return out;
        }
        Batch b = batch(reqs);
        try {
            decodeAsync(b, main, 8);
            cuStreamSynchronize(main);
            cuMemcpyDtoH(Pointer.to(out), b.out(), (long) reqs.length * Sizeof.INT);
            return out;
        } finally {
            free(b);
        }
    }

    @Override
    public int[] verifyGreedy(int[] draft, int[] target, int k) {
        bind();
        int rows = draft.length / k;
        if (target.length != rows * (k + 1) || draft.length != rows * k) {
            throw new IllegalArgumentException("greedy: need rows * k draft and rows * (k + 1) target tokens");
        }
        int[] emitted = new int[rows];
        CUdeviceptr d = upload(draft);
        CUdeviceptr t = upload(target);
        CUdeviceptr e = zeros((long) rows * Sizeof.INT);
        try {
            launch("verify_greedy", blocks(rows, THREADS), 1, THREADS, main, d, t, k, rows, e);
            cuStreamSynchronize(main);
            cuMemcpyDtoH(Pointer.to(emitted), e, (long) rows * Sizeof.INT);
            return emitted;
        } finally {
            cuMemFree(d);
            cuMemFree(t);
            cuMemFree(e);
        }
    }

    @Override
    public Kernels.Emitted verifyRejection(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample, int k, int v) {
        bind();
        int rows = draft.length / k;
        if (p.length != rows * (k + 1) * v || q.length != rows * k * v || uAccept.length != rows * k || uSample.length != rows * (k + 1)) {
            throw new IllegalArgumentException("rejection: need p of rows*(k+1)*v, q of rows*k*v, uAccept of rows*k, uSample of rows*(k+1)");
        }
        int[] out = new int[rows * (k + 1)];
        int[] emitted = new int[rows];
        CUdeviceptr dp = upload(p);
        CUdeviceptr dq = upload(q);
        CUdeviceptr dd = upload(draft);
        CUdeviceptr ua = upload(uAccept);
        CUdeviceptr us = upload(uSample);
        CUdeviceptr dOut = zeros((long) out.length * Sizeof.INT);
        CUdeviceptr dEm = zeros((long) rows * Sizeof.INT);
        try {
            launch("verify_rejection", blocks(rows, 128), 1, 128, main, dp, dq, dd, ua, us, k, v, rows, dOut, dEm);
            cuStreamSynchronize(main);
            cuMemcpyDtoH(Pointer.to(out), dOut, (long) out.length * Sizeof.INT);
            cuMemcpyDtoH(Pointer.to(emitted), dEm, (long) rows * Sizeof.INT);
            return new Kernels.Emitted(out, emitted);
        } finally {
            for (CUdeviceptr x : new CUdeviceptr[] {dp, dq, dd, ua, us, dOut, dEm}) {
                cuMemFree(x);
            }
        }
    }



    @Override
    public void close() {
        bind();
        cuMemFree(mem);
        cuStreamDestroy(main);
        cuStreamDestroy(side);
        cuModuleUnload(module);
        cuDevicePrimaryCtxRelease(dev);
    }
}
