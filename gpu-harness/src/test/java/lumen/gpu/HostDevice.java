package lumen.gpu;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A {@link Device} that runs the kernel source, {@code lumen_kernels.cu}, on the host: the source
 * is compiled by the machine's C++ compiler together with {@code host_device.cpp}, which runs a
 * grid one thread at a time, and this class speaks to that process over its standard streams. It
 * lets everything of the GPU path but the CUDA driver itself ({@link KernelBackend}: the uploads,
 * grids, launch arguments, staging, and the kernels' indexing and arithmetic) run and be checked
 * where there is no GPU. Built with AddressSanitizer and UndefinedBehaviorSanitizer where the
 * compiler has them: a kernel that touches memory outside its buffers stops the process with the
 * report, which the next call raises.
 */
final class HostDevice implements Device {
    private static final Map<String, Path> BUILT = new HashMap<>();
    private static Optional<String> unavailable;
    private static String flags = "";

    private final Process proc;
    private final DataInputStream from;
    private final OutputStream to;
    private final Path log;
    private long next;

    /** Why the kernels cannot be built for the host here (no C++ compiler), or empty when they can. */
    static synchronized Optional<String> probe() {
        if (unavailable == null) {
            try {
                binary(resource("lumen_kernels.cu"));
                unavailable = Optional.empty();
            } catch (IllegalStateException e) {
                unavailable = Optional.of(e.getMessage());
            }
        }
        return unavailable;
    }

    /** Skips the calling tests, with the reason, where the kernels cannot be built for the host. */
    static void assumeBuildable() {
        probe().ifPresent(r -> org.junit.jupiter.api.Assumptions.abort("the kernels cannot be built for the host: " + r));
    }

    /** How the host binary was compiled (the sanitizers it has). */
    static synchronized String flags() {
        return flags;
    }

    /** A device running the kernel source as built. */
    static HostDevice start() {
        return new HostDevice(binary(resource("lumen_kernels.cu")));
    }

    /** A device running the kernel source after {@code mutate} (a seeded bug), which must change it. */
    static HostDevice start(UnaryOperator<String> mutate) {
        String original = resource("lumen_kernels.cu");
        String kernels = mutate.apply(original);
        if (kernels.equals(original)) {
            throw new IllegalArgumentException("the mutation changed nothing in lumen_kernels.cu");
        }
        return new HostDevice(binary(kernels));
    }

    private static String resource(String name) {
        try (InputStream in = HostDevice.class.getResourceAsStream("/lumen/gpu/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no resource /lumen/gpu/" + name + " on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The host binary for this kernel source, compiled once per source. */
    private static synchronized Path binary(String kernels) {
        Path bin = BUILT.get(kernels);
        if (bin != null) {
            return bin;
        }
        try {
            Path dir = Files.createTempDirectory("lumen-host-kernels");
            removedAtExit(dir);
            Files.writeString(dir.resolve("lumen_kernels.cu"), kernels);
            Files.writeString(dir.resolve("host_kernels.h"), resource("host_kernels.h"));
            Files.writeString(dir.resolve("host_device.cpp"), resource("host_device.cpp"));
            bin = dir.resolve("host_device");
            List<String> base = List.of("g++", "-std=c++17", "-O1", "-ffp-contract=off", "-o", bin.toString(), dir.resolve("host_device.cpp").toString());
            List<String> sanitized = new ArrayList<>(base);
            sanitized.addAll(1, List.of("-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"));
            String out = compile(sanitized, dir);
            if (out == null && !starts(bin)) {
                out = "the sanitized binary does not start here";
            }
            if (out == null) {
                flags = "with AddressSanitizer and UndefinedBehaviorSanitizer";
            } else {
                String plain = compile(base, dir);
                if (plain != null) {
                    throw new IllegalStateException("the kernel source did not compile for the host:\n" + plain);
                }
                flags = "without sanitizers (the compiler lacks them: " + out.lines().findFirst().orElse("") + ")";
            }
            BUILT.put(kernels, bin);
            return bin;
        } catch (IOException e) {
            throw new IllegalStateException("no C++ compiler (g++) on this machine: " + e.getMessage());
        }
    }

    /** Deletes {@code dir} and what it holds when the JVM exits. */
    private static void removedAtExit(Path dir) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary folder left behind
            }
        }));
    }

    /** Whether the binary starts and quits cleanly when asked to (a sanitizer runtime may not start in every container). */
    private static boolean starts(Path bin) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(bin.toString()).redirectErrorStream(true);
        pb.environment().put("ASAN_OPTIONS", "detect_leaks=0");
        Process p = pb.start();
        p.getOutputStream().write(0);
        p.getOutputStream().flush();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Null when it compiled, else the compiler's output. */
    private static String compile(List<String> cmd, Path dir) throws IOException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            return p.waitFor() == 0 ? null : out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while compiling the kernels for the host");
        }
    }

    private HostDevice(Path bin) {
        try {
            log = Files.createTempFile("lumen-host-device", ".log");
            ProcessBuilder pb = new ProcessBuilder(bin.toString()).redirectError(log.toFile());
            pb.environment().put("ASAN_OPTIONS", "detect_leaks=0");
            proc = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        from = new DataInputStream(new BufferedInputStream(proc.getInputStream(), 1 << 16));
        to = new BufferedOutputStream(proc.getOutputStream(), 1 << 16);
    }

    @Override
    public String name() {
        return "kernels-on-host";
    }

    @Override
    public String model() {
        return "the host CPU, one thread at a time (" + flags() + ")";
    }

    // ---- the protocol

    private static ByteBuffer le(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private void send(ByteBuffer b) {
        send(b.array(), 0, b.position());
    }

    private void send(byte[] data, int off, int len) {
        try {
            to.write(data, off, len);
        } catch (IOException e) {
            throw died(e);
        }
    }

    /** Flushes the request and reads the status; a refused request becomes an IllegalArgumentException with the device's reason. */
    private void reply() {
        try {
            to.flush();
            int status = from.read();
            if (status == 0) {
                return;
            }
            if (status == 1) {
                byte[] n = from.readNBytes(4);
                int len = ByteBuffer.wrap(n).order(ByteOrder.LITTLE_ENDIAN).getInt();
                throw new IllegalArgumentException("the host device refused: " + new String(from.readNBytes(len), StandardCharsets.UTF_8));
            }
            throw died(null);
        } catch (IOException e) {
            throw died(e);
        }
    }

    private void receive(byte[] into, int off, int len) {
        try {
            from.readFully(into, off, len);
        } catch (IOException e) {
            throw died(e);
        }
    }

    /** The process stopped: a sanitizer report (a kernel out of bounds) or a crash; the error carries its log. */
    private IllegalStateException died(IOException cause) {
        String report = "";
        try {
            proc.waitFor(5, TimeUnit.SECONDS);
            report = Files.readString(log);
        } catch (IOException | InterruptedException e) {
            report = "(no log: " + e + ")";
        }
        String exit = proc.isAlive() ? "still running" : "exit " + proc.exitValue();
        return new IllegalStateException("the host device stopped (" + exit + "):\n" + report, cause);
    }

    @Override
    public Ptr alloc(long bytes) {
        Ptr p = new Ptr(next++);
        send(le(17).put((byte) 1).putLong(p.id()).putLong(Math.max(1, bytes)));
        reply();
        return p;
    }

    @Override
    public void free(Ptr p) {
        send(le(9).put((byte) 2).putLong(p.id()));
        reply();
    }

    @Override
    public void zero(Ptr p, long bytes) {
        send(le(17).put((byte) 3).putLong(p.id()).putLong(bytes));
        reply();
    }

    private void write(Ptr p, long offset, byte[] data, int off, int len) {
        send(le(25).put((byte) 4).putLong(p.id()).putLong(offset).putLong(len));
        send(data, off, len);
        reply();
    }

    private void read(Ptr p, long offset, byte[] into, int off, int len) {
        send(le(25).put((byte) 5).putLong(p.id()).putLong(offset).putLong(len));
        reply();
        receive(into, off, len);
    }

    @Override
    public void write(Ptr p, int[] src) {
        ByteBuffer b = le(src.length * 4);
        b.asIntBuffer().put(src);
        write(p, 0, b.array(), 0, b.capacity());
    }

    @Override
    public void write(Ptr p, float[] src) {
        ByteBuffer b = le(src.length * 4);
        b.asFloatBuffer().put(src);
        write(p, 0, b.array(), 0, b.capacity());
    }

    @Override
    public void read(Ptr p, int[] dst) {
        byte[] raw = new byte[dst.length * 4];
        read(p, 0, raw, 0, raw.length);
        ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(dst);
    }

    @Override
    public void read(Ptr p, long[] dst) {
        byte[] raw = new byte[dst.length * 8];
        read(p, 0, raw, 0, raw.length);
        ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(dst);
    }

    @Override
    public Staging staging(long bytes) {
        long n = Math.max(1, bytes);
        Ptr d = alloc(n);
        byte[] host = new byte[Math.toIntExact(n)];
        return new Staging() {
            @Override
            public Ptr device() {
                return d;
            }

            @Override
            public ByteBuffer host() {
                return ByteBuffer.wrap(host);
            }

            @Override
            public long bytes() {
                return n;
            }

            @Override
            public void close() {
                free(d);
            }
        };
    }

    /** Host work runs at once: the streams are one queue, run in order. */
    @Override
    public void toHost(Staging s, long bytes, int stream) {
        read(s.device(), 0, s.host().array(), 0, Math.toIntExact(bytes));
    }

    @Override
    public void toDevice(Staging s, long bytes, int stream) {
        write(s.device(), 0, s.host().array(), 0, Math.toIntExact(bytes));
    }

    @Override
    public void launch(String kernel, int blocksX, int blocksY, int threads, int stream, Object... args) {
        Device.check(kernel, args);
        byte[] name = kernel.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = le(3 + name.length + 16 + args.length * 9).put((byte) 6).putShort((short) name.length).put(name)
                .putInt(blocksX).putInt(blocksY).putInt(threads).putInt(args.length);
        for (Object a : args) {
            if (a instanceof Ptr p) {
                b.put((byte) 'P').putLong(p.id());
            } else if (a instanceof Long l) {
                b.put((byte) 'L').putLong(l);
            } else {
                b.put((byte) 'I').putLong((Integer) a);
            }
        }
        send(b);
        reply();
    }

    @Override
    public void sync(int stream) {
        // every request has run when its reply comes
    }

    private record Instant(long nanos) implements Mark {}

    /** The host's clock: every request has run when its reply comes. */
    @Override
    public Mark mark(int stream) {
        return new Instant(System.nanoTime());
    }

    @Override
    public double elapsedMs(Mark from, Mark to) {
        return (((Instant) to).nanos() - ((Instant) from).nanos()) / 1e6;
    }

    @Override
    public void close() {
        try {
            to.write(0);
            to.flush();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!proc.waitFor(10, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
            }
            Files.deleteIfExists(log);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            proc.destroyForcibly();
        } catch (IOException ignored) {
            // a temporary file left behind
        }
    }
}
