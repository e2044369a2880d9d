package lumen.live;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import lumen.runtime.CpuKvPlane;
import lumen.runtime.KvGeometry;
import lumen.runtime.PageBytes;
import lumen.runtime.TargetPass;
import lumen.runtime.TokenModels;

/**
 * One worker of {@code lumen serve}, as a process of its own: its GPU memory (a paged KV data
 * plane holding real bytes) and its host memory (the checkpoint copies it holds for requests served
 * elsewhere), behind the worker service ({@link Wire}) on a TCP port. It streams a checkpoint page
 * to its holder's process itself. Nothing of it survives the process: a {@code kill -9} takes both
 * memories, and a restarted process starts empty, with a new boot id.
 *
 * <p>With a log directory, and once the gateway sends it the run's trace header ({@link Wire#LOG}),
 * the process writes its own log there ({@link ProcessLog}): each Prefill and Decode it computes,
 * as the begin of that step with the pages it wrote, under its Lamport clock ({@link Clock}), which
 * every call to and from it carries. The gateway logs the step's end when it takes the tokens, so a
 * step whose answer never reached the gateway (the process died or stalled) stays a begin, and
 * changes nothing (docs/trace-format.md, Begin and end).
 *
 * <p>Usage: {@code WorkerProcess --id W --port P [--host H] [--page-tokens N] [--vocab V] [--mutant NAME] [--drop-ack-every N]
 * [--die-at POINT[:N] [--stall-ms MS [--stall-kind process|engine]]]... [--log-dir DIR] [--parent-pid PID]}.
 * With a parent pid, the process ends when its parent does, so a supervisor that dies leaves
 * nothing behind.
 */
public final class WorkerProcess {
    private final int id;
    private final CpuKvPlane gpu;
    private final TargetPass target;
    private final TokenModels models;
    private final Map<Integer, List<byte[]>> host = new HashMap<>();
    /** This incarnation's id: new at every start, and at every {@link Wire#RESET}. */
    private volatile long boot = newBoot();
    private final Map<String, ManagedChannel> holders = new ConcurrentHashMap<>();

    /** The seeded bug this worker runs (append-unacked concerns workers), and every how many page acknowledgements one is lost (0: none). */
    private final LiveMutant mutant;
    private final int dropAckEvery;
    private final java.util.concurrent.atomic.AtomicLong sends = new java.util.concurrent.atomic.AtomicLong();
    /** The planned faults (--die-at, with --stall-ms and --stall-kind): each fires at the N-th time the process reaches its point. */
    private final List<Plan> plans;
    /** The points some plan names: the only ones {@link #point} counts (it runs for every job and page). */
    private final java.util.Set<String> plannedPoints;
    private final Map<String, Integer> reached = new ConcurrentHashMap<>();
    /** This process's Lamport clock, carried by every call it answers or makes. */
    private final Clock clock = new Clock();
    /** Where this process writes its log (null: it writes none), and the log, once the gateway sent the header. */
    private final java.nio.file.Path logDir;
    private volatile ProcessLog log;

    /** The points where a worker can be made to die in the middle of its work ("sending": a server, before its holder stored the page). */
    public static final List<String> DIE_POINTS = List.of("prefill", "decode", "sending", "send", "store", "restore");
    /** The fences (Wire#FENCE): per worker, the lowest epoch whose pages this worker, as a holder, still takes. */
    private final Map<Integer, Integer> fences = new ConcurrentHashMap<>();

    /**
     * A planned fault: at the {@code n}-th time the process reaches {@code point}, it dies (kill -9,
     * {@code stallMs} 0) or stalls for {@code stallMs} ms with its state and carries on (a gray
     * failure). A stall of the whole process ({@code engine} false: a long GC pause, SIGSTOP)
     * answers nothing meanwhile; an engine stall ({@code engine} true: a stuck CUDA call) freezes
     * only the work it is in, while the process answers its heartbeats and a reset.
     */
    record Plan(String point, int n, long stallMs, boolean engine) {}

    /** At a point of {@link #DIE_POINTS}: halts the process like kill -9 (no cleanup, memories gone), or stalls it, if a plan says so now. */
    private void point(String p, int req) {
        // the gateway's warm-up (scratch requests, negative ids) does not count
        if (req < 0 || !plannedPoints.contains(p)) {
            return;
        }
        int count = reached.merge(p, 1, Integer::sum);
        for (Plan plan : plans) {
            if (!plan.point().equals(p) || plan.n() != count) {
                continue;
            }
            if (plan.stallMs() <= 0) {
                say("worker " + id + " dies in the middle of " + p + " #" + count);
                Runtime.getRuntime().halt(137);
            }
            say("worker " + id + (plan.engine() ? "'s engine" : "") + " stalls for " + plan.stallMs() + " ms in the middle of "
                    + p + " #" + count);
            long until = System.nanoTime() + plan.stallMs() * 1_000_000L;
            synchronized (this) {
                try {
                    for (long left; (left = until - System.nanoTime()) > 0; ) {
                        if (plan.engine()) {
                            // the work stays frozen; the lock goes, so the process answers what needs no engine meanwhile
                            wait(Math.max(1, left / 1_000_000L));
                        } else {
                            Thread.sleep(Math.max(1, left / 1_000_000L));
                        }
                    }
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            say("worker " + id + (plan.engine() ? "'s engine" : "") + " resumes");
        }
    }

    WorkerProcess(int id, KvGeometry g, int vocab, LiveMutant mutant, int dropAckEvery, List<Plan> plans, java.nio.file.Path logDir) {
        this.plans = List.copyOf(plans);
        this.plannedPoints = plans.stream().map(Plan::point).collect(java.util.stream.Collectors.toUnmodifiableSet());
        this.id = id;
        this.logDir = logDir;
        this.mutant = mutant;
        this.dropAckEvery = dropAckEvery;
        this.gpu = new CpuKvPlane(g);
        // the draft model agrees with the target as the gateway's runtime expects of it
        this.models = new TokenModels(vocab, lumen.runtime.ClusterRuntime.Options.defaults(g.pageTokens()).draftAgreement(), g);
        this.target = new TargetPass(gpu, models);
    }

    private static long newBoot() {
        return (System.nanoTime() ^ ProcessHandle.current().pid() << 32) | 1;
    }

    /** The models this process has loaded: 0 none, 1 its draft model, 2 its full model. */
    private volatile int loaded;
    /** Pages this incarnation sent that had no answer (they may land yet): a reset reports them, and starts again from 0. */
    private final java.util.concurrent.atomic.AtomicInteger unsettled = new java.util.concurrent.atomic.AtomicInteger();
    /** Iterations (Wire#RUN) in progress: under this worker's lock, only one whose engine stalls leaves another to see it. */
    private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
    /** Loads in progress belong to one incarnation: a reset (new boot) stops them. */
    private final java.util.concurrent.atomic.AtomicLong loads = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Loads the models, as a restarted worker does (the draft, when {@code draftMs} > 0, then the full
     * model, {@code fullMs} from now), in the background: the heartbeats say what is loaded. This
     * process has no weights to read, so a load is the time it takes; a kill during it loses it.
     */
    private void loadModels(int draftMs, int fullMs) {
        long mine = loads.incrementAndGet();
        loaded = 0;
        Thread t = new Thread(() -> {
            try {
                long start = System.nanoTime();
                if (draftMs > 0) {
                    Thread.sleep(draftMs);
                    if (loads.get() == mine) {
                        loaded = 1;
                    }
                }
                long left = fullMs - (System.nanoTime() - start) / 1_000_000;
                if (left > 0) {
                    Thread.sleep(left);
                }
                if (loads.get() == mine) {
                    loaded = 2;
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, "worker-" + id + "-load");
        t.setDaemon(true);
        t.start();
    }

    /** The service: every method runs under this worker's lock, so the memories see one call at a time. */
    ServerServiceDefinition service() {
        ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(Wire.SERVICE);
        bind(b, Wire.RUN, op -> {
            // the incarnation this iteration runs in, which its answer names, however late it comes
            long mine = boot;
            running.incrementAndGet();
            try {
                List<TargetPass.Pass> passes = new ArrayList<>();
                for (TargetPass.Job j : op.jobs()) {
                    TargetPass.Pass pass = target.run(j);
                    passes.add(pass);
                    logBegin(j, pass);
                    // after the KV is written, before the answer: the work is half done when the process dies
                    point(j.prefill() ? "prefill" : "decode", j.req());
                    if (boot != mine) {
                        // its engine stalled past a reset: the incarnation it ran in is gone, so it computes no more; what it
                        // computed still goes back (a fenced incarnation's late write, which the gateway must refuse)
                        break;
                    }
                }
                return new Wire.Reply(0, null, null, mine, 0, passes);
            } finally {
                running.decrementAndGet();
            }
        });
        bind(b, Wire.DRAFT, op -> new Wire.Reply(0, null, null, 0, 0,
                List.of(new TargetPass.Pass(models.drafts(op.seed(), op.to(), op.from(), op.count()), new lumen.core.PageDigest[0], 0))));
        bind(b, Wire.PING, op -> new Wire.Reply(id, null, null, boot, ProcessHandle.current().pid(), null, loaded));
        bind(b, Wire.LOAD, op -> {
            loadModels(op.from(), op.to());
            return Wire.Reply.OK;
        });
        bind(b, Wire.LOG, op -> {
            if (logDir == null) {
                return Wire.Reply.of(0);
            }
            if (log == null) {
                // one log per process: a restarted worker is another process, with a log of its own
                String name = "worker-" + id + "-" + ProcessHandle.current().pid();
                try {
                    log = new ProcessLog(logDir.resolve(name + ".jsonl"), new String(op.data(), java.nio.charset.StandardCharsets.UTF_8), name,
                            clock);
                } catch (java.io.IOException ex) {
                    throw new java.io.UncheckedIOException("worker " + id + " cannot write its log in " + logDir, ex);
                }
            }
            return Wire.Reply.of(1);
        });
        bindAfterSends(b, Wire.RESET, op -> {
            // the gateway failed this worker while it lived (a stall): its memories count as gone, so they go. An iteration
            // whose engine is stuck (an engine stall) cannot be stopped from here, nor a page sent that had no answer (it may
            // still land): the answer says how many writes of the old incarnation may come yet
            int stuck = running.get() + unsettled.getAndSet(0);
            target.clear();
            host.clear();
            // the models go with the incarnation: the next restart loads them again
            loads.incrementAndGet();
            loaded = 0;
            long old = boot;
            boot = newBoot();
            say("worker " + id + " reset: boot " + Long.toHexString(old) + " -> " + Long.toHexString(boot)
                    + (stuck > 0 ? "; " + stuck + " write(s) of the old incarnation may come yet (an iteration stuck, a page unanswered)" : ""));
            return Wire.Reply.of(stuck);
        });
        bind(b, Wire.COMPUTE, op -> {
            gpu.compute(op.req(), op.seed(), op.from(), op.to());
            return Wire.Reply.OK;
        });
        bind(b, Wire.POSITIONS, op -> Wire.Reply.of(gpu.positions(op.req())));
        bind(b, Wire.GATHER, op -> new Wire.Reply(0, gpu.gather(op.req(), op.page()), null, 0, 0));
        bind(b, Wire.RESTORE, op -> {
            gpu.restore(op.req(), op.pages() == null ? List.of() : op.pages(), op.count());
            point("restore", op.req());
            return Wire.Reply.OK;
        });
        bind(b, Wire.PAGE_DIGEST, op -> Wire.Reply.of(gpu.pageDigest(op.req(), op.page(), op.count())));
        bind(b, Wire.DIGEST, op -> Wire.Reply.of(gpu.digest(op.req(), op.count())));
        bind(b, Wire.FREE, op -> {
            target.free(op.req());
            return Wire.Reply.OK;
        });
        bind(b, Wire.FENCE, op -> {
            fences.merge(op.worker(), op.epoch(), Math::max);
            return Wire.Reply.OK;
        });
        bind(b, Wire.STORE, op -> {
            if (op.addressee() != 0 && op.addressee() != boot) {
                // sent to the incarnation of this holder a reset ended (it came late, through a partition): that copy is gone
                say("worker " + id + " refused page " + op.page() + " of request " + op.req() + " from worker " + op.worker()
                        + ": it was sent to its earlier incarnation (boot " + Long.toHexString(op.addressee()) + ")");
                throw new NotAddressee();
            }
            if (op.epoch() < fences.getOrDefault(op.worker(), 0)) {
                // a page from an incarnation of its sender that the gateway has failed since: a zombie's write
                boolean take = mutant == LiveMutant.HOLDER_NO_FENCE;
                logZombiePage(op, take);
                if (!take) {
                    throw new Fenced();
                }
            }
            List<byte[]> copy = host.computeIfAbsent(op.req(), k -> new ArrayList<>());
            if (mutant == LiveMutant.APPEND_UNACKED) {
                copy.add(op.data());
            } else {
                lumen.runtime.WorkerMemory.Local.storeAt(copy, op.page(), op.data());
            }
            point("store", op.req());
            return Wire.Reply.of(PageBytes.pageDigest(op.data(), 0, op.data().length));
        });
        bind(b, Wire.TAKE_COPY, op -> {
            List<byte[]> pages = host.remove(op.req());
            return new Wire.Reply(0, null, pages == null ? List.of() : pages, 0, 0);
        });
        bind(b, Wire.DROP_COPY, op -> {
            host.remove(op.req());
            return Wire.Reply.OK;
        });
        b.addMethod(Wire.SEND_PAGE, ServerCalls.asyncUnaryCall((op, out) -> {
            // a transfer in flight ends before a reset (sendsDone): the incarnation's last write lands before the gateway hears it stopped
            inFlight.readLock().lock();
            try {
                sendPage(op, out);
            } finally {
                inFlight.readLock().unlock();
            }
        }));
        return b.build();
    }

    /** Page transfers in flight (read: one transfer; write: a reset, which waits for them). Taken before this worker's lock. */
    private final java.util.concurrent.locks.ReentrantReadWriteLock inFlight = new java.util.concurrent.locks.ReentrantReadWriteLock();

    /** One page transfer: gather under this worker's lock, then the page goes to its holder on a call of its own. */
    private void sendPage(Wire.Op op, io.grpc.stub.StreamObserver<Wire.Reply> out) {
        byte[] page;
        synchronized (this) {
            page = gpu.gather(op.req(), op.page());
        }
        // a server stalled (or dead) here has gathered the page and not sent it
        point("sending", op.req());
        // the page goes from this process to the holder's, not through the gateway, with the epoch the gateway sent it under
        try {
            // the transfer is a call of its own, as a KV transfer on its own connection is: the gateway's call that asked for
            // it may have given up (its deadline passed while this process stalled), and the page still goes
            ManagedChannel to = holders.computeIfAbsent(op.holder(), a -> Remote.channel(a, clock.client()));
            Wire.Op store = new Wire.Op(op.req(), 0, 0, 0, op.page(), 0, null, page, null).withEpoch(id, op.epoch()).to(op.addressee());
            Wire.Reply stored = store(to, store);
            // the holder has the page; the server dies before its acknowledgement goes back
            point("send", op.req());
            if (dropAckEvery > 0 && sends.incrementAndGet() % dropAckEvery == 0) {
                // a network fault: the holder stored the page, and its acknowledgement is lost on the way back
                out.onError(Status.ABORTED.withDescription(Wire.ACK_LOST).asRuntimeException());
                return;
            }
            out.onNext(new Wire.Reply(stored.value(), null, null, boot, 0, null));
            out.onCompleted();
        } catch (StatusRuntimeException ex) {
            Status.Code c = ex.getStatus().getCode();
            if (c == Status.Code.DEADLINE_EXCEEDED || c == Status.Code.UNAVAILABLE || c == Status.Code.CANCELLED) {
                // no answer: the page may still be on its way (a partition holds it) and land after this incarnation ends
                unsettled.incrementAndGet();
            }
            if (Wire.FENCED.equals(ex.getStatus().getDescription())) {
                // the holder refused the page: this incarnation was failed while it stalled
                say("worker " + id + " was fenced (epoch " + op.epoch() + "): its page of request " + op.req() + " refused");
            }
            out.onError(Status.FAILED_PRECONDITION.withDescription(Wire.FENCED.equals(ex.getStatus().getDescription()) ? Wire.FENCED
                    : Wire.HOLDER_LOST).asRuntimeException());
        }
    }

    /**
     * The store call: this server waits {@link Remote#CALL_MS} for the holder's answer, and the call
     * itself stays open ({@link Remote#LATE_MS}), as bytes on a connection do: a page held up on
     * its way (a partition that delays) still lands when the way clears, after this incarnation
     * may have ended, and meets its holder's fence then.
     */
    private static Wire.Reply store(ManagedChannel to, Wire.Op store) {
        // not under the gateway's call that asked for the page: that call's end does not cancel this one
        io.grpc.Context prev = io.grpc.Context.ROOT.attach();
        com.google.common.util.concurrent.ListenableFuture<Wire.Reply> f;
        try {
            f = io.grpc.stub.ClientCalls.futureUnaryCall(to.newCall(Wire.STORE,
                    io.grpc.CallOptions.DEFAULT.withDeadlineAfter(Remote.LATE_MS, java.util.concurrent.TimeUnit.MILLISECONDS)), store);
        } finally {
            io.grpc.Context.ROOT.detach(prev);
        }
        try {
            return f.get(Remote.CALL_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException ex) {
            throw Status.DEADLINE_EXCEEDED.withDescription("the holder did not answer within " + Remote.CALL_MS + " ms").asRuntimeException();
        } catch (java.util.concurrent.ExecutionException ex) {
            throw ex.getCause() instanceof StatusRuntimeException sre ? sre : Status.UNKNOWN.withCause(ex.getCause()).asRuntimeException();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
        }
    }

    /** A page for an incarnation of this holder that is gone: refused, as a fenced write is. */
    private static final class NotAddressee extends RuntimeException {
        NotAddressee() {
            super(Wire.NOT_ADDRESSEE, null, false, false);
        }
    }

    /** A write its fence refused: said as such, not as the worker's bug of an invalid call. */
    private static final class Fenced extends RuntimeException {
        Fenced() {
            super(Wire.FENCED, null, false, false);
        }
    }

    /** One line of this process's output, with the wall-clock time it is said at (the output is for people reading a run). */
    private static void say(String line) {
        System.out.println(java.time.LocalTime.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS) + " " + line);
        System.out.flush();
    }

    /** A zombie's page this holder received: its ZombiePage, refused or (the holder-no-fence bug) taken, in this process's log. */
    private void logZombiePage(Wire.Op op, boolean taken) {
        ProcessLog l = log;
        say("worker " + id + (taken ? " took" : " refused") + " page " + op.page() + " of request " + op.req() + " from worker "
                + op.worker() + " under its fenced epoch " + op.epoch());
        if (l == null || op.req() < 0) {
            return;
        }
        try {
            l.write(lumen.trace.TraceWriter.toJson(new lumen.core.Event.ZombiePage(op.worker(), op.req(), id, op.epoch(), null, taken)));
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException("worker " + id + " cannot write its log", ex);
        }
    }

    /** The begin of a Prefill or Decode this process computed, with the pages it wrote (the gateway's warm-up is not logged). */
    private void logBegin(TargetPass.Job j, TargetPass.Pass pass) {
        ProcessLog l = log;
        if (l == null || j.req() < 0 || l.wallClock()) {
            // with wall-clock time only, the gateway logs the step whole when it takes it
            return;
        }
        lumen.core.Event e = j.prefill() ? new lumen.core.Event.Prefill(j.req(), id, pass.tokens(), pass.content())
                : new lumen.core.Event.Decode(j.req(), id, pass.tokens(), pass.content());
        try {
            l.write(lumen.trace.TraceWriter.begin(e));
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException("worker " + id + " cannot write its log", ex);
        }
    }

    /**
     * As {@link #bind}, once every page transfer in flight has ended (for a reset: the writes of the
     * incarnation it ends have landed, and their answers raised this process's clock, before the
     * gateway hears of the reset and logs the zombie's stop after them). The transfers' lock is taken
     * before this worker's, as a transfer takes them.
     */
    private void bindAfterSends(ServerServiceDefinition.Builder b, io.grpc.MethodDescriptor<Wire.Op, Wire.Reply> m,
                                Function<Wire.Op, Wire.Reply> f) {
        b.addMethod(m, ServerCalls.asyncUnaryCall((op, out) -> {
            inFlight.writeLock().lock();
            try {
                answer(op, out, f);
            } finally {
                inFlight.writeLock().unlock();
            }
        }));
    }

    private void bind(ServerServiceDefinition.Builder b, io.grpc.MethodDescriptor<Wire.Op, Wire.Reply> m,
                      Function<Wire.Op, Wire.Reply> f) {
        b.addMethod(m, ServerCalls.asyncUnaryCall((op, out) -> answer(op, out, f)));
    }

    /** One call: {@code f} under this worker's lock, its answer naming this process's boot. */
    private void answer(Wire.Op op, io.grpc.stub.StreamObserver<Wire.Reply> out, Function<Wire.Op, Wire.Reply> f) {
        Wire.Reply r;
        try {
            synchronized (this) {
                r = f.apply(op);
            }
        } catch (Fenced ex) {
            out.onError(Status.FAILED_PRECONDITION.withDescription(Wire.FENCED).asRuntimeException());
            return;
        } catch (NotAddressee ex) {
            out.onError(Status.FAILED_PRECONDITION.withDescription(Wire.NOT_ADDRESSEE).asRuntimeException());
            return;
        } catch (RuntimeException ex) {
            // a call this worker's memories refuse (a bug of the caller): said, not swallowed
            out.onError(Status.INVALID_ARGUMENT.withDescription("worker " + id + ": " + ex.getMessage()).asRuntimeException());
            return;
        }
        // every answer names this process's boot (an iteration's: the one it ran in): a caller that finds another knows the worker restarted
        out.onNext(new Wire.Reply(r.value(), r.data(), r.pages(), r.boot() != 0 ? r.boot() : boot, r.pid(), r.passes(), r.models()));
        out.onCompleted();
    }

    /** Starts the service on host:port, with its planned faults; the server, already listening. */
    static Server start(int id, String host, int port, KvGeometry g, int vocab, LiveMutant mutant, int dropAckEvery, List<Plan> plans,
                        java.nio.file.Path logDir) throws IOException {
        WorkerProcess w = new WorkerProcess(id, g, vocab, mutant, dropAckEvery, plans, logDir);
        return NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .addService(io.grpc.ServerInterceptors.intercept(w.service(), w.clock.server())).build().start();
    }

    public static void main(String[] args) throws Exception {
        int id = -1;
        int port = -1;
        int pageTokens = 16;
        int vocab = lumen.core.KitTokens.VOCAB;
        LiveMutant mutant = LiveMutant.NONE;
        int dropAckEvery = 0;
        List<Plan> plans = new ArrayList<>();
        boolean bad = false;
        String host = "127.0.0.1";
        long parent = -1;
        java.nio.file.Path logDir = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--id" -> id = Integer.parseInt(args[i + 1]);
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--host" -> host = args[i + 1];
                case "--page-tokens" -> pageTokens = Integer.parseInt(args[i + 1]);
                case "--vocab" -> vocab = Integer.parseInt(args[i + 1]);
                case "--mutant" -> mutant = LiveMutant.of(args[i + 1]);
                case "--drop-ack-every" -> dropAckEvery = Integer.parseInt(args[i + 1]);
                case "--die-at" -> {
                    // each --die-at is a planned fault of its own; --stall-ms and --stall-kind after it make it a stall
                    String[] p = args[i + 1].split(":");
                    int n = p.length > 1 && p[1].matches("[0-9]{1,9}") ? Integer.parseInt(p[1]) : p.length > 1 ? 0 : 1;
                    bad |= !DIE_POINTS.contains(p[0]) || n < 1;
                    plans.add(new Plan(p[0], n, 0, false));
                }
                case "--stall-ms", "--stall-kind" -> {
                    if (plans.isEmpty()) {
                        bad = true;
                        break;
                    }
                    Plan last = plans.remove(plans.size() - 1);
                    if (args[i].equals("--stall-ms")) {
                        long ms = args[i + 1].matches("[0-9]{1,9}") ? Long.parseLong(args[i + 1]) : -1;
                        bad |= ms < 1;
                        plans.add(new Plan(last.point(), last.n(), ms, last.engine()));
                    } else {
                        bad |= !List.of("process", "engine").contains(args[i + 1]);
                        plans.add(new Plan(last.point(), last.n(), last.stallMs(), args[i + 1].equals("engine")));
                    }
                }
                case "--parent-pid" -> parent = Long.parseLong(args[i + 1]);
                case "--log-dir" -> logDir = java.nio.file.Path.of(args[i + 1]);
                default -> {
                    System.err.println("WorkerProcess: unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        if (id < 0 || port < 0 || mutant == null || dropAckEvery < 0 || bad || plans.stream().anyMatch(x -> x.engine() && x.stallMs() == 0)) {
            System.err.println("usage: WorkerProcess --id W --port P [--host H] [--page-tokens N] [--vocab V] [--mutant NAME] [--drop-ack-every N]"
                    + " [--die-at POINT[:N] [--stall-ms MS [--stall-kind process|engine]]]... [--log-dir DIR] [--parent-pid PID] (POINT: " + String.join(", ", DIE_POINTS) + ")");
            System.exit(2);
        }
        if (parent > 0) {
            ProcessHandle.of(parent).ifPresentOrElse(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(0)),
                    () -> Runtime.getRuntime().halt(0));
        }
        if (logDir != null) {
            java.nio.file.Files.createDirectories(logDir);
        }
        Server s = start(id, host, port, KvGeometry.small(pageTokens), vocab, mutant, dropAckEvery, plans, logDir);
        say("worker " + id + " listening on " + host + ":" + s.getPort() + " pid " + ProcessHandle.current().pid());
        s.awaitTermination();
    }
}
