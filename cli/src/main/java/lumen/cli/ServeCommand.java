package lumen.cli;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import lumen.core.Config;
import lumen.core.Policies;
import lumen.live.Gateway;
import lumen.live.LiveCluster;
import lumen.live.LiveServer;
import lumen.live.WorkerProcess;
import lumen.runtime.CostModel;
import lumen.runtime.SimpleCostModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lumen serve}: the reference LUMEN as real processes on loopback (docs/serve.md). */
@Command(name = "serve",
        mixinStandardHelpOptions = true,
        description = {"Runs the reference LUMEN as a gateway and worker processes on 127.0.0.1: the gateway serves an"
                + " OpenAI-compatible streaming endpoint (POST /v1/completions) and runs the control plane on the decision core;"
                + " each worker is a JVM of its own holding paged KV with real bytes and the checkpoint copies of its holder role."
                + " A worker killed (kill -9 $(cat RUN_DIR/worker-W.pid)) is detected by heartbeats, its requests are routed by"
                + " Eq. 6, and it is restarted.",
            "--worker W --listen HOST:PORT runs one worker alone, and --connect HOST:PORT,... a gateway over workers started"
                + " so, for a cluster on several machines (restarts are then the operator's)."})
final class ServeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "4", description = "worker processes (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--port", paramLabel = "P", defaultValue = "8000", description = "the endpoint's port on 127.0.0.1 (0: any free"
            + " one; default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--policy", paramLabel = "P", defaultValue = "lumen", description = "the recovery policy (default: ${DEFAULT-VALUE})")
    String policy;

    @Option(names = "--trace", paramLabel = "FILE", description = "write the gateway's spec trace (lumen validate reads it)")
    Path trace;

    @Option(names = "--logs", paramLabel = "DIR", description = "each process writes its own log in DIR, with Lamport clocks (or"
            + " wall-clock time only, --wall-clock-logs):"
            + " DIR/gateway.jsonl, and DIR/worker-W-PID.jsonl for each worker process (lumen validate --processes DIR/*.jsonl, or"
            + " lumen conform --live --logs DIR, merges and validates them); with --worker, where that worker writes its log")
    Path logs;

    @Option(names = "--wall-clock-logs", paramLabel = "SKEW_MS", description = "with --logs, the logs carry wall-clock time only: each"
            + " event its process's own clock (t, ms since the epoch), no Lamport clock, every header declaring skew_ms SKEW_MS; the"
            + " gateway logs each step whole when it takes it, a holder the zombie pages it sees (docs/serve.md, Logs)")
    Double wallClockLogs;

    @Option(names = "--history", paramLabel = "FILE", description = "record what the gateway answers as a client history"
            + " (docs/history-format.md; lumen history reads it)")
    Path history;

    @Option(names = "--run-dir", paramLabel = "DIR", description = "the workers' pid files and output (default: a new temporary"
            + " directory, printed)")
    Path runDir;

    @Option(names = "--restart-delay-ms", paramLabel = "MS", defaultValue = "500", description = "a worker process that exits is"
            + " started again this long after (default: ${DEFAULT-VALUE})")
    long restartDelayMs;

    @Option(names = "--heartbeat-ms", paramLabel = "MS", defaultValue = "100", description = "how often the gateway pings each worker"
            + " (default: ${DEFAULT-VALUE})")
    long heartbeatMs;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "600", description = "a worker silent this long is failed"
            + " (default: ${DEFAULT-VALUE})")
    long timeoutMs;

    @Option(names = "--cost", paramLabel = "MODEL", defaultValue = "fast", description = "the durations the workers run at:"
            + " fast (model loads of 0.15 s and 1.2 s) or default (3 s and 30 s) (default: ${DEFAULT-VALUE})")
    String cost;

    @Option(names = "--duration-s", paramLabel = "S", defaultValue = "0", description = "stop after S seconds (0: when interrupted)")
    long durationS;

    @Option(names = "--mutant", paramLabel = "NAME", defaultValue = "none", description = "run a seeded distributed bug (docs/serve.md):"
            + " reissue-interrupted, drop-interrupted, append-unacked, late-draft (default: ${DEFAULT-VALUE}, the reference)")
    String mutant;

    @Option(names = "--drop-ack-every", paramLabel = "N", defaultValue = "0", description = "a network fault: every N-th page"
            + " acknowledgement is lost on its way back (default: ${DEFAULT-VALUE}, none)")
    int dropAckEvery;

    @Option(names = "--die-at", paramLabel = "W:POINT:N", description = "a planned death: worker W's first process (every worker's"
            + " with *) halts like kill -9 the N-th time it is in the middle of POINT: prefill, decode, sending (a server that"
            + " gathered a page and has not sent it), send, store or restore")
    String dieAt;

    @Option(names = "--stall-at", paramLabel = "W:POINT:N:MS[:engine]", description = "a planned stall (a gray failure): worker W's first"
            + " process stops answering for MS ms the N-th time it is in the middle of POINT (as --die-at), with its state, and then"
            + " carries on; the gateway fails it meanwhile and its late writes meet the fences. With :engine only the work it is in"
            + " stalls (a stuck engine): the process answers its heartbeats and its reset meanwhile")
    String stallAt;

    @Option(names = "--links", description = "the gateway reaches each worker through a TCP proxy on 127.0.0.1 that a drill can cut:"
            + " POST /admin/partition?worker=W&ms=MS[&lossy=true] cuts worker W off from the gateway for MS ms, POST"
            + " /admin/heal?worker=W joins it again")
    boolean links;

    @Option(names = "--connect", paramLabel = "HOST:PORT", split = ",", description = "run the gateway only, over these workers"
            + " (worker i at the i-th address)")
    List<String> connect;

    @Option(names = "--worker", paramLabel = "W", description = "run worker W only (with --listen)")
    Integer worker;

    @Option(names = "--listen", paramLabel = "HOST:PORT", description = "where --worker listens")
    String listen;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (worker != null) {
            if (listen == null || !listen.matches(".+:[0-9]+")) {
                throw new UserError("--worker needs --listen HOST:PORT");
            }
            int colon = listen.lastIndexOf(':');
            List<String> a = new java.util.ArrayList<>(List.of("--id", worker.toString(), "--host", listen.substring(0, colon), "--port",
                listen.substring(colon + 1)));
            if (logs != null) {
                a.addAll(List.of("--log-dir", logs.toString()));
            }
            WorkerProcess.main(a.toArray(new String[0]));
            return 0;
        }
        if (!Policies.keys().contains(policy)) {
            throw new UserError("--policy: unknown policy '" + policy + "' (known: " + String.join(", ", Policies.keys()) + ")");
        }
        if (workers < 2 || workers > 64) {
            throw new UserError("--workers: 2 to 64 worker processes, not " + workers);
        }
        if (heartbeatMs < 10 || timeoutMs < 2 * heartbeatMs) {
            throw new UserError("--heartbeat-ms at least 10 and --timeout-ms at least twice it, not " + heartbeatMs + " and " + timeoutMs);
        }
        lumen.live.LiveMutant bug = lumen.live.LiveMutant.of(mutant);
        if (bug == null) {
            throw new UserError("--mutant: unknown '" + mutant + "' (known: " + String.join(", ",
                    java.util.Arrays.stream(lumen.live.LiveMutant.values()).map(m -> m.key).toList()) + ")");
        }
        if (dropAckEvery < 0) {
            throw new UserError("--drop-ack-every: 0 or more, not " + dropAckEvery);
        }
        if (connect != null && links) {
            throw new UserError("--links puts a proxy in front of the workers lumen serve starts; with --connect it starts none");
        }
        if (connect != null && (bug != lumen.live.LiveMutant.NONE || dropAckEvery > 0)) {
            throw new UserError("--mutant and --drop-ack-every start the workers with them; with --connect the workers are started by you");
        }
        CostModel cm = switch (cost) {
            case "fast" -> SimpleCostModel.fastReload();
            case "default" -> SimpleCostModel.defaults();
            default -> throw new UserError("--cost: fast or default, not '" + cost + "'");
        };
        if (logs != null && Files.isDirectory(logs)) {
            try (var in = Files.list(logs)) {
                List<Path> old = in.filter(f -> f.getFileName().toString().endsWith(".jsonl")).limit(3).toList();
                if (!old.isEmpty()) {
                    // another run's logs would be merged with this one's
                    throw new UserError("--logs " + logs + " already holds logs (" + old.get(0).getFileName() + (old.size() > 1 ? ", ..." : "")
                            + "): give a directory without *.jsonl files");
                }
            }
        }
        int n = connect != null ? connect.size() : workers;
        Config cfg = Config.defaults(policy).withWorkers(n);
        Path dir = runDir != null ? Files.createDirectories(runDir) : Files.createTempDirectory("lumen-serve-");
        OutputStream traceOut = trace == null ? null : new BufferedOutputStream(Files.newOutputStream(trace), 1 << 16);
        OutputStream historyOut = history == null ? null : Files.newOutputStream(history);
        LiveCluster.Options co = new LiveCluster.Options(heartbeatMs, timeoutMs);
        if (wallClockLogs != null) {
            if (logs == null) {
                throw new UserError("--wall-clock-logs is for --logs DIR");
            }
            if (!(wallClockLogs >= 0) || wallClockLogs.isInfinite()) {
                throw new UserError("--wall-clock-logs: a skew in ms, 0 or more, not " + wallClockLogs);
            }
            co = co.withWallClockLogs(wallClockLogs);
        }
        AutoCloseable running;
        String url;
        if (connect != null) {
            LiveCluster c = new LiveCluster(cfg, cm, connect, co, traceOut, lumen.live.LiveMutant.NONE, logs);
            if (!c.awaitReady(30_000)) {
                c.close();
                throw new UserError("--connect: not every worker answered within 30 s (" + String.join(", ", connect) + ")");
            }
            Gateway g = new Gateway(c, "127.0.0.1", port, 120_000, historyOut);
            running = () -> {
                g.close();
                c.close();
            };
            url = "http://127.0.0.1:" + g.port();
        } else {
            if (dieAt != null && !dieAt.matches("(\\*|[0-9]+):(prefill|decode|sending|send|store|restore)(:[1-9][0-9]*)?")) {
                throw new UserError("--die-at takes W:POINT:N (POINT: prefill, decode, sending, send, store, restore), found '" + dieAt + "'");
            }
            if (stallAt != null && !stallAt.matches("(\\*|[0-9]+):(prefill|decode|sending|send|store|restore):[1-9][0-9]*:[1-9][0-9]{0,6}(:engine)?")) {
                throw new UserError("--stall-at takes W:POINT:N:MS or W:POINT:N:MS:engine (POINT: prefill, decode, sending, send, store,"
                        + " restore; MS up to 9999999), found '" + stallAt + "'");
            }
            if (stallAt != null && dieAt != null) {
                throw new UserError("--stall-at and --die-at: one planned fault per run");
            }
            if (stallAt != null) {
                dieAt = stallAt;
            }
            LiveServer.Settings ls = new LiveServer.Settings(cfg, cm, port, restartDelayMs, co, 120_000, dir).with(bug, dropAckEvery)
                    .withProcessLogs(logs);
            if (links) {
                ls = ls.withLinks();
            }
            LiveServer s = LiveServer.start(dieAt == null ? ls : ls.dyingAt(dieAt), traceOut, historyOut, 60_000);
            running = s;
            url = s.url();
            StringBuilder pids = new StringBuilder();
            for (int w = 0; w < n; w++) {
                pids.append(w == 0 ? "" : ", ").append(w).append(": ").append(s.workers().pid(w));
            }
            out.printf("lumen serve: %d workers (pids %s); pid files and output in %s%n", n, pids, dir);
        }
        out.printf("lumen serve: %s policy, OpenAI-compatible endpoint at %s/v1/completions%s%s%n", policy, url,
                trace != null ? "; trace to " + trace : "", bug != lumen.live.LiveMutant.NONE ? "; SEEDED BUG " + bug.key + ": " + bug.bug : "");
        out.flush();
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(stop::countDown);
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (durationS > 0) {
                stop.await(durationS, TimeUnit.SECONDS);
            } else {
                stop.await();
            }
        } finally {
            running.close();
            if (historyOut != null) {
                historyOut.close();
            }
            out.println("lumen serve: stopped");
            out.flush();
        }
        if (logs != null) {
            out.println("lumen serve: each process's own log in " + logs);
            out.flush();
        }
        return 0;
    }
}
