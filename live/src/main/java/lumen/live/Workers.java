package lumen.live;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The worker processes of {@code lumen serve} on this machine: one JVM each ({@link WorkerProcess})
 * on a loopback port chosen at start, watched and restarted on the same port a restart delay after
 * it exits, whatever killed it. Each ends with this process too (it watches its parent), and
 * {@link #close} kills them all.
 */
public final class Workers implements AutoCloseable {
    private final int n;
    private final int[] ports;
    private final Process[] procs;
    private final long restartDelayMs;
    private final int pageTokens;
    private final Path logDir;
    private final ScheduledExecutorService restarter = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lumen-worker-restarts");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;
    private final List<String> extra;
    /** Per worker (-1: every worker not named), the arguments of its first process only (planned deaths and stalls). */
    private final java.util.Map<Integer, List<String>> firstOnly;
    private final int[] starts;
    private final List<String> restarts = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Starts {@code n} workers; each writes its output to {@code logDir}/worker-W.out and its pid to
     * {@code logDir}/worker-W.pid, rewritten at each restart (null: output discarded, no pid files).
     * A worker that exits is started again after {@code restartDelayMs} (negative: never).
     */
    public Workers(int n, int pageTokens, long restartDelayMs, Path logDir) throws IOException {
        this(n, pageTokens, restartDelayMs, logDir, List.of());
    }

    /** The same, each worker started with {@code extra} arguments (a seeded bug, a network fault). */
    public Workers(int n, int pageTokens, long restartDelayMs, Path logDir, List<String> extra) throws IOException {
        this(n, pageTokens, restartDelayMs, logDir, extra, java.util.Map.of());
    }

    /**
     * The same, the first process of each worker in {@code firstOnly} (key -1: every worker not
     * named) also started with its arguments there (planned deaths and stalls, {@code --die-at}).
     */
    public Workers(int n, int pageTokens, long restartDelayMs, Path logDir, List<String> extra, java.util.Map<Integer, List<String>> firstOnly)
            throws IOException {
        this.extra = List.copyOf(extra);
        this.firstOnly = java.util.Map.copyOf(firstOnly);
        this.starts = new int[n];
        this.n = n;
        this.ports = new int[n];
        this.procs = new Process[n];
        this.restartDelayMs = restartDelayMs;
        this.pageTokens = pageTokens;
        this.logDir = logDir;
        for (int w = 0; w < n; w++) {
            ports[w] = freePort();
        }
        for (int w = 0; w < n; w++) {
            start(w);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private synchronized void start(int w) throws IOException {
        String javaCmd = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(javaCmd, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), WorkerProcess.class.getName(),
                "--id", Integer.toString(w), "--port", Integer.toString(ports[w]), "--page-tokens", Integer.toString(pageTokens),
                "--parent-pid", Long.toString(ProcessHandle.current().pid())));
        cmd.addAll(extra);
        if (starts[w]++ == 0) {
            // a fault planned inside the worker (--die-at) hits its first process only, not the restarted one
            cmd.addAll(firstOnly.getOrDefault(w, firstOnly.getOrDefault(-1, List.of())));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (logDir != null) {
            pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("worker-" + w + ".out").toFile()));
        } else {
            pb.redirectOutput(ProcessBuilder.Redirect.to(new File("/dev/null")));
        }
        Process p = pb.start();
        procs[w] = p;
        if (logDir != null) {
            // for a fault injector outside: kill -9 $(cat DIR/worker-W.pid)
            java.nio.file.Files.writeString(logDir.resolve("worker-" + w + ".pid"), p.pid() + "\n");
        }
        p.onExit().thenRun(() -> exited(w, p));
    }

    private void exited(int w, Process p) {
        if (closed || restartDelayMs < 0) {
            return;
        }
        restarts.add("worker " + w + " (pid " + p.pid() + ") exited with " + p.exitValue() + "; restarting in " + restartDelayMs + " ms");
        restarter.schedule(() -> {
            if (!closed) {
                try {
                    start(w);
                } catch (IOException ex) {
                    restarts.add("worker " + w + " could not be restarted: " + ex.getMessage());
                }
            }
        }, restartDelayMs, TimeUnit.MILLISECONDS);
    }

    /** The workers' addresses, host:port, worker i at index i. */
    public List<String> addresses() {
        List<String> a = new ArrayList<>();
        for (int p : ports) {
            a.add("127.0.0.1:" + p);
        }
        return a;
    }

    /** Worker w's current process id. */
    public synchronized long pid(int w) {
        return procs[w].pid();
    }

    /** Kills worker w's process at once ({@code kill -9}): its memories are gone with it. */
    public synchronized void kill(int w) {
        procs[w].destroyForcibly();
    }

    public int size() {
        return n;
    }

    /** What the supervisor saw: exits and restarts, one line each. */
    public List<String> restarts() {
        return List.copyOf(restarts);
    }

    @Override
    public synchronized void close() {
        closed = true;
        restarter.shutdownNow();
        for (Process p : procs) {
            if (p != null) {
                p.destroyForcibly();
            }
        }
        for (Process p : procs) {
            if (p != null) {
                try {
                    p.waitFor(5, TimeUnit.SECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
