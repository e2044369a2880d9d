package lumen.live;

import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import lumen.core.Config;
import lumen.runtime.CostModel;

/**
 * {@code lumen serve} on one machine: the worker processes ({@link Workers}), the gateway's control
 * plane over them ({@link LiveCluster}) and its OpenAI-compatible endpoint ({@link Gateway}), all
 * on loopback. Closing it stops the endpoint and kills every worker process.
 */
public final class LiveServer implements AutoCloseable {
    /**
     * @param port            the endpoint's port (0: any free one)
     * @param restartDelayMs  a killed worker's process is started again this long after it exits
     * @param logDir          where the workers' output goes (null: discarded)
     * @param processLogs     where each process writes its own log (null: none; docs/serve.md, Logs)
     */
    public record Settings(Config config, CostModel cost, int port, long restartDelayMs, LiveCluster.Options cluster,
                           long requestTimeoutMs, Path logDir, LiveMutant mutant, int dropAckEvery, String dieAt, Path processLogs,
                           boolean links) {
        public Settings(Config config, CostModel cost, int port, long restartDelayMs, LiveCluster.Options cluster, long requestTimeoutMs,
                        Path logDir, LiveMutant mutant, int dropAckEvery, String dieAt, Path processLogs) {
            this(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, mutant, dropAckEvery, dieAt, processLogs, false);
        }

        /** The same with the gateway reaching each worker through a link on loopback that a drill can cut ({@link LiveServer#partition}). */
        public Settings withLinks() {
            return new Settings(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, mutant, dropAckEvery, dieAt,
                    processLogs, true);
        }

        public Settings(Config config, CostModel cost, int port, long restartDelayMs, LiveCluster.Options cluster, long requestTimeoutMs,
                        Path logDir) {
            this(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, LiveMutant.NONE, 0, null, null);
        }

        public Settings(Config config, CostModel cost, int port, long restartDelayMs, LiveCluster.Options cluster, long requestTimeoutMs,
                        Path logDir, LiveMutant mutant, int dropAckEvery) {
            this(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, mutant, dropAckEvery, null, null);
        }

        /** The same with a seeded bug and every {@code dropAckEvery}-th page acknowledgement lost (0: none). */
        public Settings with(LiveMutant m, int dropAcks) {
            return new Settings(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, m, dropAcks, dieAt, processLogs, links);
        }

        /**
         * The same with a planned death, {@code W:POINT:N}: worker W's first process (every worker's
         * when W is {@code *}) halts, like kill -9, the N-th time it reaches POINT
         * ({@link WorkerProcess#DIE_POINTS}), in the middle of that work. {@code W:POINT:N:MS} is a
         * planned stall instead: the process stops answering there for MS ms, with its state, and
         * carries on (a gray failure). Several, one per worker, are comma-separated.
         */
        public Settings dyingAt(String pointAndCount) {
            return new Settings(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, mutant, dropAckEvery, pointAndCount,
                    processLogs, links);
        }

        /** The same with each process writing its own log in {@code dir}. */
        public Settings withProcessLogs(Path dir) {
            return new Settings(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, mutant, dropAckEvery, dieAt, dir, links);
        }
    }

    private final Workers workers;
    private final LiveCluster cluster;
    private final Gateway gateway;
    /** Per worker, the link the gateway reaches it through (a drill may cut it); empty when the gateway dials the workers directly. */
    private final List<LinkProxy> links;

    private LiveServer(Workers workers, LiveCluster cluster, Gateway gateway, List<LinkProxy> links) {
        this.workers = workers;
        this.cluster = cluster;
        this.gateway = gateway;
        this.links = links;
    }

    /**
     * Partitions worker w from the gateway (both ways; the worker still reaches its holders) for
     * {@code ms}: delaying (what is sent meanwhile goes through at the heal) or {@code lossy}
     * (connections reset, what was in flight lost). The heal comes on its own, and closing the
     * server heals every link. Only a server started with {@link Settings#withLinks()} has links
     * to cut.
     */
    public void partition(int w, long ms, boolean lossy) {
        if (links.isEmpty()) {
            throw new IllegalStateException("this server's gateway dials its workers directly: start it with links to cut one");
        }
        links.get(w).cut(lossy, ms);
    }

    /** Starts the workers, waits until each answers (up to {@code readyMs}), then the endpoint; the trace goes to {@code trace} (null: none). */
    public static LiveServer start(Settings s, OutputStream trace, long readyMs) throws Exception {
        return start(s, trace, null, readyMs);
    }

    /** The same, the gateway recording what it answers as a client history to {@code history} (null: none). */
    public static LiveServer start(Settings s, OutputStream trace, OutputStream history, long readyMs) throws Exception {
        List<String> extra = new java.util.ArrayList<>(List.of("--mutant", s.mutant().key));
        if (s.dropAckEvery() > 0) {
            extra.addAll(List.of("--drop-ack-every", Integer.toString(s.dropAckEvery())));
        }
        if (s.processLogs() != null) {
            extra.addAll(List.of("--log-dir", s.processLogs().toString()));
        }
        // planned deaths and stalls, one per worker: W:POINT:N (a death) or W:POINT:N:MS (a stall), comma-separated
        java.util.Map<Integer, List<String>> planned = new java.util.HashMap<>();
        if (s.dieAt() != null) {
            for (String spec : s.dieAt().split(",")) {
                String[] p = spec.split(":", 2);
                if (p.length != 2) {
                    throw new IllegalArgumentException("a planned death is W:POINT:N or *:POINT:N, not " + spec);
                }
                String[] at = p[1].split(":");
                // W:POINT:N:MS is a planned stall of MS ms instead of a death (a gray failure)
                List<String> args = at.length == 3 ? List.of("--die-at", at[0] + ":" + at[1], "--stall-ms", at[2]) : List.of("--die-at", p[1]);
                if (planned.put(p[0].equals("*") ? -1 : Integer.parseInt(p[0]), args) != null) {
                    throw new IllegalArgumentException("one planned death or stall per worker: " + s.dieAt());
                }
            }
        }
        Workers ws = new Workers(s.config().workers(), s.config().pageTokens(), s.restartDelayMs(), s.logDir(), extra, planned);
        LiveCluster c = null;
        List<LinkProxy> links = new java.util.ArrayList<>();
        try {
            List<String> dial = ws.addresses();
            if (s.links()) {
                dial = new java.util.ArrayList<>();
                for (String a : ws.addresses()) {
                    LinkProxy l = new LinkProxy(a);
                    links.add(l);
                    dial.add(l.address());
                }
            }
            c = new LiveCluster(s.config(), s.cost(), ws.addresses(), s.cluster(), trace, s.mutant(), s.processLogs(), dial);
            if (!c.awaitReady(readyMs)) {
                throw new IllegalStateException("the workers did not all answer within " + readyMs + " ms"
                        + (s.logDir() != null ? " (their output is in " + s.logDir() + ")" : ""));
            }
            return new LiveServer(ws, c, new Gateway(c, "127.0.0.1", s.port(), s.requestTimeoutMs(), history), links);
        } catch (Exception | Error ex) {
            if (c != null) {
                c.close();
            }
            links.forEach(LinkProxy::close);
            ws.close();
            throw ex;
        }
    }

    public int port() {
        return gateway.port();
    }

    public String url() {
        return "http://127.0.0.1:" + port();
    }

    public Workers workers() {
        return workers;
    }

    public LiveCluster cluster() {
        return cluster;
    }

    @Override
    public void close() throws Exception {
        try {
            gateway.close();
        } finally {
            try {
                cluster.close();
            } finally {
                try {
                    workers.close();
                } finally {
                    links.forEach(LinkProxy::close);
                }
            }
        }
    }
}
