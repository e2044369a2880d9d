package lumen.gpu;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
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
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * CUDA device 0 through the JCuda driver API: the device's primary context (shared by every
 * device object of the process, one per worker in a runtime), the kernels loaded from the PTX the
 * build compiled, and two streams. The streams are blocking ones: the synchronous copies, on the
 * legacy default stream, are ordered after the work already on them and before the work that
 * follows. {@link #probe()} says why it is unavailable where it is: no kernels (nvcc was absent
 * at build time), no driver, or no device.
 */
class CudaDevice implements Device {
    static final String PTX = "/lumen/gpu/lumen_kernels.ptx";

    private final CUcontext ctx = new CUcontext();
    private final CUdevice dev = new CUdevice();
    private final CUmodule module = new CUmodule();
    private final CUstream[] streams = {new CUstream(), new CUstream()};
    private final Map<String, CUfunction> fns = new HashMap<>();
    private final Map<Long, CUdeviceptr> mem = new HashMap<>();
    private final String model;
    private long next;

    /** Null when the backend can run here, else why not. */
    private static volatile String unavailable;
    private static volatile boolean probed;

    /** Why CUDA kernels cannot run on this machine, or empty when they can. */
    static synchronized Optional<String> probe() {
        if (!probed) {
            unavailable = check();
            probed = true;
        }
        return Optional.ofNullable(unavailable);
    }

    private static String check() {
        if (CudaDevice.class.getResource(PTX) == null) {
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

    CudaDevice() {
        probe().ifPresent(r -> {
            throw new IllegalStateException("the JCuda backend is unavailable: " + r);
        });
        cuDeviceGet(dev, 0);
        byte[] name = new byte[256];
        cuDeviceGetName(name, name.length, dev);
        this.model = new String(name, StandardCharsets.US_ASCII).replace("\0", "").trim();
        cuDevicePrimaryCtxRetain(ctx, dev);
        bind();
        loadModule();
        for (CUstream s : streams) {
            cuStreamCreate(s, 0);
        }
    }

    /** Loads the PTX; a driver older than the compiler gets the same PTX at an ISA version it knows (the kernels use nothing newer). */
    private void loadModule() {
        String ptx;
        try (InputStream in = CudaDevice.class.getResourceAsStream(PTX)) {
            ptx = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + PTX, e);
        }
        try {
            cuModuleLoadData(module, (ptx + "\0").getBytes(StandardCharsets.US_ASCII));
        } catch (CudaException e) {
            int[] v = new int[1];
            cuDriverGetVersion(v);
            cuModuleLoadData(module, (lowered(ptx) + "\0").getBytes(StandardCharsets.US_ASCII));
            System.err.println("lumen: the driver (" + v[0] + ") did not take the PTX as built (" + firstLine(e.getMessage())
                    + "); loaded it at PTX ISA 7.8");
        }
    }

    /** The PTX at ISA version 7.8 (CUDA 11.8, the first with sm_90), for a driver older than the compiler. */
    static String lowered(String ptx) {
        return ptx.replaceFirst("(?m)^\\.version \\d+\\.\\d+", ".version 7.8");
    }

    /** Makes the context current on the calling thread (several devices and threads may share it). */
    private void bind() {
        cuCtxSetCurrent(ctx);
    }

    /** The device name the tests' stand-in for the driver library reports (no GPU behind it). */
    static final String STAND_IN = "lumen stand-in driver (host)";

    /** "jcuda"; under the tests' stand-in driver, a name the simulator's cost model does not take for a GPU's. */
    @Override
    public String name() {
        return model.equals(STAND_IN) ? "jcuda-on-stand-in-driver" : "jcuda";
    }

    @Override
    public String model() {
        return model;
    }

    CUstream stream(int s) {
        return streams[s];
    }

    final CUdeviceptr at(Ptr p) {
        CUdeviceptr d = mem.get(p.id());
        if (d == null) {
            throw new IllegalArgumentException("no device allocation " + p.id() + " (freed, or from another device)");
        }
        return d;
    }

    @Override
    public Ptr alloc(long bytes) {
        bind();
        CUdeviceptr d = new CUdeviceptr();
        cuMemAlloc(d, Math.max(1, bytes));
        Ptr p = new Ptr(next++);
        mem.put(p.id(), d);
        return p;
    }

    @Override
    public void free(Ptr p) {
        bind();
        cuMemFree(at(p));
        mem.remove(p.id());
    }

    @Override
    public void zero(Ptr p, long bytes) {
        bind();
        cuMemsetD8(at(p), (byte) 0, bytes);
    }

    @Override
    public void write(Ptr p, int[] src) {
        copyIn(p, Pointer.to(src), (long) src.length * Sizeof.INT);
    }

    @Override
    public void write(Ptr p, float[] src) {
        copyIn(p, Pointer.to(src), (long) src.length * Sizeof.FLOAT);
    }

    @Override
    public void read(Ptr p, int[] dst) {
        copyOut(Pointer.to(dst), p, (long) dst.length * Sizeof.INT);
    }

    @Override
    public void read(Ptr p, long[] dst) {
        copyOut(Pointer.to(dst), p, (long) dst.length * Sizeof.LONG);
    }

    /** Host to device, synchronous; an empty copy makes no driver call. */
    private void copyIn(Ptr p, Pointer src, long bytes) {
        if (bytes > 0) {
            bind();
            cuMemcpyHtoD(at(p), src, bytes);
        }
    }

    /** Device to host, synchronous; an empty copy makes no driver call. */
    private void copyOut(Pointer dst, Ptr p, long bytes) {
        if (bytes > 0) {
            bind();
            cuMemcpyDtoH(dst, at(p), bytes);
        }
    }

    /** A device buffer and a pinned host buffer. */
    final class CudaStaging implements Staging {
        final Ptr device;
        final Pointer host = new Pointer();
        final long bytes;

        CudaStaging(long bytes) {
            this.bytes = Math.max(1, bytes);
            this.device = alloc(this.bytes);
            cuMemAllocHost(host, this.bytes);
        }

        @Override
        public Ptr device() {
            return device;
        }

        @Override
        public ByteBuffer host() {
            return host.getByteBuffer(0, bytes);
        }

        @Override
        public long bytes() {
            return bytes;
        }

        @Override
        public void close() {
            bind();
            cuMemFreeHost(host);
            free(device);
        }
    }

    @Override
    public Staging staging(long bytes) {
        bind();
        return new CudaStaging(bytes);
    }

    @Override
    public void toHost(Staging s, long bytes, int stream) {
        bind();
        CudaStaging c = (CudaStaging) s;
        cuMemcpyDtoHAsync(c.host, at(c.device), bytes, streams[stream]);
    }

    @Override
    public void toDevice(Staging s, long bytes, int stream) {
        bind();
        CudaStaging c = (CudaStaging) s;
        cuMemcpyHtoDAsync(at(c.device), c.host, bytes, streams[stream]);
    }

    /** The kernel parameter block for {@code args}, checked against the kernel's signature. */
    private Pointer params(String kernel, Object... args) {
        Device.check(kernel, args);
        Pointer[] ps = new Pointer[args.length];
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof Ptr p) {
                ps[i] = Pointer.to(at(p));
            } else if (a instanceof Long l) {
                ps[i] = Pointer.to(new long[] {l});
            } else {
                ps[i] = Pointer.to(new int[] {(Integer) a});
            }
        }
        return Pointer.to(ps);
    }

    @Override
    public void launch(String kernel, int blocksX, int blocksY, int threads, int stream, Object... args) {
        bind();
        Pointer params = params(kernel, args);
        CUfunction f = fns.computeIfAbsent(kernel, n -> {
            CUfunction fn = new CUfunction();
            cuModuleGetFunction(fn, module, n);
            return fn;
        });
        cuLaunchKernel(f, blocksX, blocksY, 1, threads, 1, 1, 0, streams[stream], params, null);
    }

    @Override
    public void sync(int stream) {
        bind();
        cuStreamSynchronize(streams[stream]);
    }

    private record Event(CUevent e) implements Mark {}

    @Override
    public Mark mark(int stream) {
        bind();
        CUevent e = new CUevent();
        cuEventCreate(e, 0);
        cuEventRecord(e, streams[stream]);
        return new Event(e);
    }

    @Override
    public double elapsedMs(Mark from, Mark to) {
        bind();
        CUevent a = ((Event) from).e();
        CUevent b = ((Event) to).e();
        try {
            cuEventSynchronize(b);
            float[] ms = new float[1];
            cuEventElapsedTime(ms, a, b);
            return ms[0];
        } finally {
            cuEventDestroy(a);
            cuEventDestroy(b);
        }
    }

    @Override
    public void close() {
        bind();
        for (CUdeviceptr d : mem.values()) {
            cuMemFree(d);
        }
        mem.clear();
        for (CUstream s : streams) {
            cuStreamDestroy(s);
        }
        cuModuleUnload(module);
        cuDevicePrimaryCtxRelease(dev);
    }
}
