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
         * carries on (a gray failure). {@code W:POINT:N:MS:engine} stalls only the work it is in (a
         * stuck engine): the process answers its heartbeats and a reset meanwhile. Several are
         * comma-separated, a worker's in the order they are given.
         */
        public Settings dyingAt(String pointAndCount) {
            return new Settings(config, cost, port, restartDelayMs, cluster, requestTimeoutMs, logDir, mutant, dropAckEvery, pointAndCount,
                    processLogs, links);
        }

        /** The same with the process logs carrying wall-clock time only, every header declaring {@code skewMs} (docs/serve.md, Logs). */
        public Settings withWallClockLogs(double skewMs) {
            return new Settings(config, cost, port, restartDelayMs, cluster.withWallClockLogs(skewMs), requestTimeoutMs, logDir, mutant,
                    dropAckEvery, dieAt, processLogs, links);
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

    /** With links: the link each worker's pages to each holder take ([server][holder]; null on the diagonal). */
    private final LinkProxy[][] pairs;

    private LiveServer(Workers workers, LiveCluster cluster, Gateway gateway, List<LinkProxy> links, LinkProxy[][] pairs) {
        this.pairs = pairs;
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

    /**
     * Partitions workers w and h from each other (both ways: the pages each streams to the other as
     * its holder; each still reaches the gateway) for {@code ms}, delaying or {@code lossy}, as
     * {@link #partition} does a worker's link to the gateway.
     */
    public void partitionPeers(int w, int h, long ms, boolean lossy) {
        if (links.isEmpty() || w == h) {
            throw new IllegalStateException(links.isEmpty() ? "this server's workers reach each other directly: start it with links to cut one"
                    : "a worker has no link to itself");
        }
        pairs[w][h].cut(lossy, ms);
        pairs[h][w].cut(lossy, ms);
    }

    /**
     * Degrades worker w's link to the gateway ({@code peer} -1) or the two links between workers w
     * and {@code peer}, for {@code ms}: each chunk delayed {@code delayMs} and lost (its connection
     * reset) with probability {@code lossPercent}/100, both ways ({@link LinkProxy#degrade}).
     */
    public void degrade(int w, int peer, long delayMs, double lossPercent, long ms) {
        if (links.isEmpty() || w == peer) {
            throw new IllegalStateException(links.isEmpty() ? "this server's links are direct: start it with links to degrade one"
                    : "a worker has no link to itself");
        }
        if (peer < 0) {
            links.get(w).degrade(delayMs, lossPercent, ms);
        } else {
            pairs[w][peer].degrade(delayMs, lossPercent, ms);
            pairs[peer][w].degrade(delayMs, lossPercent, ms);
        }
    }

    /** Heals the links between workers w and h now. */
    public void healPeers(int w, int h) {
        if (links.isEmpty() || w == h) {
            throw new IllegalStateException(links.isEmpty() ? "this server's workers reach each other directly: start it with links to cut one"
                    : "a worker has no link to itself");
        }
        pairs[w][h].heal();
        pairs[h][w].heal();
    }

    /** Heals worker w's link now, before its partition's time is up (nothing when it is not cut). */
    public void heal(int w) {
        if (links.isEmpty()) {
            throw new IllegalStateException("this server's gateway dials its workers directly: start it with links to cut one");
        }
        links.get(w).heal();
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
        // planned deaths and stalls: W:POINT:N (a death), W:POINT:N:MS (a stall) or W:POINT:N:MS:engine (an engine stall), comma-separated
        java.util.Map<Integer, List<String>> planned = new java.util.HashMap<>();
        if (s.dieAt() != null) {
            for (String spec : s.dieAt().split(",")) {
                String[] p = spec.split(":", 2);
                String[] at = p.length == 2 ? p[1].split(":") : new String[0];
                if (at.length < 2 || at.length > 4 || at.length == 4 && !at[3].equals("engine") || !p[0].matches("\\*|[0-9]{1,4}")) {
                    throw new IllegalArgumentException("a planned death is W:POINT:N (W a worker, or *), a stall W:POINT:N:MS or"
                            + " W:POINT:N:MS:engine, not " + spec);
                }
                List<String> args = new java.util.ArrayList<>(List.of("--die-at", at[0] + ":" + at[1]));
                if (at.length >= 3) {
                    args.addAll(List.of("--stall-ms", at[2]));
                }
                if (at.length == 4) {
                    args.addAll(List.of("--stall-kind", "engine"));
                }
                planned.computeIfAbsent(p[0].equals("*") ? -1 : Integer.parseInt(p[0]), k -> new java.util.ArrayList<>()).addAll(args);
            }
        }
        Workers ws = new Workers(s.config().workers(), s.config().pageTokens(), s.restartDelayMs(), s.logDir(), extra, planned);
        LiveCluster c = null;
        List<LinkProxy> links = new java.util.ArrayList<>();
        try {
            List<String> dial = ws.addresses();
            int n = ws.addresses().size();
            LinkProxy[][] pairs = new LinkProxy[n][n];
            if (s.links()) {
                dial = new java.util.ArrayList<>();
                for (String a : ws.addresses()) {
                    LinkProxy l = new LinkProxy(a);
                    links.add(l);
                    dial.add(l.address());
                }
                // and one link from each worker to each other, which its pages to that holder take
                for (int w = 0; w < n; w++) {
                    for (int h = 0; h < n; h++) {
                        if (w != h) {
                            pairs[w][h] = new LinkProxy(ws.addresses().get(h));
                            links.add(pairs[w][h]);
                        }
                    }
                }
            }
            java.util.function.BiFunction<Integer, Integer, String> peer = s.links() ? (w, h) -> pairs[w][h].address()
                    : (w, h) -> ws.addresses().get(h);
            c = new LiveCluster(s.config(), s.cost(), ws.addresses(), s.cluster(), trace, s.mutant(), s.processLogs(), dial, peer);
            if (!c.awaitReady(readyMs)) {
                throw new IllegalStateException("the workers did not all answer within " + readyMs + " ms"
                        + (s.logDir() != null ? " (their output is in " + s.logDir() + ")" : ""));
            }
            Gateway g = new Gateway(c, "127.0.0.1", s.port(), s.requestTimeoutMs(), history);
            LiveServer srv = new LiveServer(ws, c, g, links, pairs);
            if (s.links()) {
                // a drill outside cuts and heals a link through the endpoint (POST /admin/partition, /admin/heal)
                g.links(new Gateway.Links() {
                    @Override
                    public void partition(int w, int peer, long ms, boolean lossy) {
                        if (peer < 0) {
                            srv.partition(w, ms, lossy);
                        } else {
                            srv.partitionPeers(w, peer, ms, lossy);
                        }
                    }

                    @Override
                    public void degrade(int w, int peer, long delayMs, double lossPercent, long ms) {
                        srv.degrade(w, peer, delayMs, lossPercent, ms);
                    }

                    @Override
                    public void heal(int w, int peer) {
                        if (peer < 0) {
                            srv.heal(w);
                        } else {
                            srv.healPeers(w, peer);
                        }
                    }
                });
            }
            return srv;
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
