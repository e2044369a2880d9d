package lumen.live;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import lumen.runtime.KvDataPlane;
import lumen.runtime.KvGeometry;
import lumen.runtime.WorkerMemory;

/**
 * A worker's memories in another process, as the gateway's runtime drives them: every call is a
 * gRPC call to that worker ({@link Wire}), and a call that finds the process gone throws
 * {@link WorkerLost}, which the gateway's loop takes as the failure of that worker.
 */
final class Remote implements WorkerMemory, KvDataPlane {
    /** The deadline of one call to a worker, ms: a live worker answers in well under it. */
    static final long CALL_MS = 1_000;

    private final int id;
    private final String address;
    private final KvGeometry g;
    private final ManagedChannel channel;
    /** The boot id of the process this gateway knows as the worker (0: not yet known); an answer from another is a restart. */
    private volatile long boot;
    /**
     * The KV positions of each request the worker holds, as the calls that change them left it: every
     * change goes through this object, so the runtime's checks need no call. Cleared with the process.
     */
    private final java.util.Map<Integer, Integer> positions = new java.util.HashMap<>();

    /** A worker at {@code address}, every call to it carrying the gateway's {@code clock}. */
    Remote(int id, String address, KvGeometry g, Clock clock) {
        this(id, address, address, g, clock);
    }

    /** The same, the gateway dialling it at {@code dial} (a link that may be cut), the other workers at {@code address}. */
    Remote(int id, String address, String dial, KvGeometry g, Clock clock) {
        this.id = id;
        this.address = address;
        this.g = g;
        this.channel = channel(dial, clock.client());
    }

    /** A channel to host:port whose calls carry a process's clock. */
    static ManagedChannel channel(String address, io.grpc.ClientInterceptor clock) {
        int colon = address.lastIndexOf(':');
        return NettyChannelBuilder.forAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)))
                .usePlaintext().intercept(clock).build();
    }

    /** Asks the worker's process to open its own log with the run's trace header; whether it writes one. */
    boolean openLog(byte[] header) {
        return call(Wire.LOG, new Wire.Op(0, 0, 0, 0, 0, 0, null, header, null)).value() == 1;
    }

    static Wire.Reply call(ManagedChannel ch, MethodDescriptor<Wire.Op, Wire.Reply> m, Wire.Op op, long deadlineMs) {
        return ClientCalls.blockingUnaryCall(ch, m, CallOptions.DEFAULT.withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS), op);
    }

    int id() {
        return id;
    }

    ManagedChannel channelForPing() {
        return channel;
    }

    /**
     * Asks a live worker that was failed (it stalled, and came back with its old memories) to wipe
     * them and start as a new incarnation; how many writes of its old incarnation may come yet (an
     * iteration stuck in its engine, a page it sent that had no answer), or -1 when it did not answer.
     */
    int reset() {
        try {
            long stuck = call(channel, Wire.RESET, Wire.Op.req(0), CALL_MS).value();
            positions.clear();
            return (int) stuck;
        } catch (StatusRuntimeException ex) {
            return -1;
        }
    }

    /** Where this worker reaches each holder, by the holder's id (a link a drill can cut, or the holder's own address). */
    private volatile java.util.function.IntFunction<String> peers;

    void peers(java.util.function.IntFunction<String> p) {
        peers = p;
    }

    /** Forgets what this object knows of the worker's KV (as a reset does), the worker keeping it. */
    void forget() {
        positions.clear();
    }

    /** From now on only the process with this boot id is this worker. */
    void knowBoot(long b) {
        boot = b;
    }

    private Wire.Reply checked(Wire.Reply r) {
        long b = boot;
        if (b != 0 && r.boot() != 0 && r.boot() != b) {
            throw new WorkerLost(id, "it answered as a new process (boot " + Long.toHexString(r.boot()) + ")");
        }
        return r;
    }

    /** Every call's round trip to this worker, µs (the loop's calls; not the heartbeats). */
    final org.HdrHistogram.ConcurrentHistogram calls = new org.HdrHistogram.ConcurrentHistogram(3);

    /**
     * Whether the gateway knows this worker gone while its Fail step waits for another UP worker:
     * no call reaches it meanwhile. A worker found gone by a slow call may still live, and one that
     * went on serving would hold memories the runtime's view of it no longer has when its Fail
     * comes (the gateway wipes a failed worker that answers again, before it rejoins).
     */
    private volatile boolean gone;

    void gone(boolean g) {
        gone = g;
    }

    private void notGone() {
        if (gone) {
            throw new WorkerLost(id, "known gone: its Fail step waits for another UP worker");
        }
    }

    private Wire.Reply call(MethodDescriptor<Wire.Op, Wire.Reply> m, Wire.Op op) {
        notGone();
        long t = System.nanoTime();
        try {
            return checked(call(channel, m, op, CALL_MS));
        } catch (StatusRuntimeException ex) {
            throw lost(ex);
        } finally {
            calls.recordValue(Math.min(60_000_000L, (System.nanoTime() - t) / 1000));
        }
    }

    /** A call that failed: the worker is lost, unless it refused the call (a bug of the gateway's, not a failure of the worker). */
    private RuntimeException lost(StatusRuntimeException ex) {
        if (ex.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
            return new IllegalStateException(ex.getStatus().getDescription(), ex);
        }
        return new WorkerLost(id, ex.getStatus().toString());
    }

    /**
     * How long an iteration's call stays open after the gateway gave up on its answer, ms: an
     * answer in that time is a fenced incarnation's write, which reaches the gateway as a late
     * answer does on a real transport, and which the gateway must refuse ({@link LateAnswers}).
     */
    static final long LATE_MS = 60_000;

    /** Where the answer to an iteration goes when it comes after the gateway gave up on it (and failed the worker). */
    interface LateAnswers {
        /** Worker {@code worker}'s incarnation of {@code epoch} answered {@code jobs} with {@code passes}, too late. */
        void late(int worker, int epoch, List<lumen.runtime.TargetPass.Job> jobs, List<lumen.runtime.TargetPass.Pass> passes);
    }

    private volatile LateAnswers lateAnswers;
    private volatile java.util.function.IntSupplier epoch = () -> 0;

    /** Late answers go to {@code to}, each with the epoch {@code epoch} gave (on the caller's thread) when its call was made. */
    void onLateAnswers(java.util.function.IntSupplier epoch, LateAnswers to) {
        this.epoch = epoch;
        this.lateAnswers = to;
    }

    /**
     * One iteration's call: the gateway waits {@link #CALL_MS} for the answer, then takes the
     * worker as lost; the call itself stays open ({@link #LATE_MS}), as a stalled worker's
     * connection does, so that an answer it sends when it wakes reaches the gateway, which hands
     * it to {@link LateAnswers} instead of the runtime.
     */
    private Wire.Reply iteration(List<lumen.runtime.TargetPass.Job> jobs) {
        notGone();
        long t = System.nanoTime();
        int at = epoch.getAsInt();
        com.google.common.util.concurrent.ListenableFuture<Wire.Reply> f = ClientCalls.futureUnaryCall(
                channel.newCall(Wire.RUN, CallOptions.DEFAULT.withDeadlineAfter(LATE_MS, TimeUnit.MILLISECONDS)), Wire.Op.jobs(jobs));
        try {
            return checked(f.get(CALL_MS, TimeUnit.MILLISECONDS));
        } catch (java.util.concurrent.TimeoutException ex) {
            LateAnswers to = lateAnswers;
            if (to == null) {
                f.cancel(true);
            } else {
                f.addListener(() -> {
                    Wire.Reply late;
                    try {
                        late = com.google.common.util.concurrent.Futures.getDone(f);
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException gone) {
                        return; // no answer after all: the process died, or the call ran out
                    }
                    to.late(id, at, jobs, late.passes());
                }, com.google.common.util.concurrent.MoreExecutors.directExecutor());
            }
            throw new WorkerLost(id, "its iteration had no answer within " + CALL_MS + " ms");
        } catch (java.util.concurrent.ExecutionException ex) {
            if (ex.getCause() instanceof StatusRuntimeException s) {
                throw lost(s);
            }
            throw new WorkerLost(id, String.valueOf(ex.getCause()));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw new WorkerLost(id, "interrupted while waiting for its iteration");
        } finally {
            calls.recordValue(Math.min(60_000_000L, (System.nanoTime() - t) / 1000));
        }
    }

    void close() {
        channel.shutdownNow();
    }

    // ---- WorkerMemory ----

    @Override
    public KvDataPlane gpu() {
        return this;
    }

    @Override
    public long sendPage(int r, int page, WorkerMemory holder) {
        return sendPage(r, page, holder, 0);
    }

    /** Best effort: a worker that cannot be reached is down or stalled, and is fenced again when it rejoins. */
    @Override
    public void fence(int worker, int epoch) {
        try {
            call(channel, Wire.FENCE, Wire.Op.req(0).withEpoch(worker, epoch), CALL_MS);
        } catch (StatusRuntimeException ex) {
            // unreachable now: LiveCluster fences a rejoining worker against every other one
        }
    }

    @Override
    public long sendPage(int r, int page, WorkerMemory holder, int epoch) {
        notGone();
        Remote h = (Remote) holder;
        h.notGone();
        try {
            // to the holder's incarnation this gateway knows, at the address this worker reaches it at
            return checked(call(channel, Wire.SEND_PAGE, new Wire.Op(r, 0, 0, 0, page, 0, null, null, peers.apply(h.id))
                    .withEpoch(id, epoch).to(h.boot), CALL_MS)).value();
        } catch (StatusRuntimeException ex) {
            if (ex.getStatus().getCode() == Status.Code.ABORTED && Wire.ACK_LOST.equals(ex.getStatus().getDescription())) {
                throw new WorkerMemory.NotAcknowledged("page " + page + " of request " + r + " from worker " + id + " to " + h.id);
            }
            if (ex.getStatus().getCode() == Status.Code.FAILED_PRECONDITION && Wire.HOLDER_LOST.equals(ex.getStatus().getDescription())) {
                throw new WorkerLost(h.id, "its server " + id + " could not reach it");
            }
            if (ex.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
                throw new IllegalStateException(ex.getStatus().getDescription(), ex);
            }
            throw new WorkerLost(id, ex.getStatus().toString());
        }
    }

    @Override
    public lumen.runtime.TargetPass.Pass[] run(List<lumen.runtime.TargetPass.Job> jobs) {
        lumen.runtime.TargetPass.Pass[] out = iteration(jobs).passes().toArray(new lumen.runtime.TargetPass.Pass[0]);
        for (int i = 0; i < out.length; i++) {
            positions.put(jobs.get(i).req(), out[i].positions());
        }
        return out;
    }

    /**
     * The worker's draft model runs in its process. A drafting worker that does not answer is not
     * failed here (the target's iteration is not its work): its drafts never arrive, and the
     * heartbeats find it gone.
     */
    @Override
    public int[] draft(long seed, int outLen, int from, int k) {
        try {
            return call(Wire.DRAFT, new Wire.Op(0, seed, from, outLen, 0, k, null, null, null)).passes().get(0).tokens();
        } catch (WorkerLost lost) {
            return null;
        }
    }

    /** The worker's process loads its models itself; its heartbeats say when each is loaded. */
    @Override
    public void loadModels(double draftMs, double fullMs) {
        call(Wire.LOAD, new Wire.Op(0, 0, (int) Math.round(draftMs), (int) Math.round(fullMs), 0, 0, null, null, null));
    }

    @Override
    public List<byte[]> takeCopy(int r) {
        List<byte[]> pages = call(Wire.TAKE_COPY, Wire.Op.req(r)).pages();
        return pages == null ? new ArrayList<>() : new ArrayList<>(pages);
    }

    @Override
    public void dropCopy(int r) {
        call(Wire.DROP_COPY, Wire.Op.req(r));
    }

    /** The process is gone, and its memories with it: nothing to clear there (a restarted process starts empty). */
    @Override
    public void clear() {
        positions.clear();
    }

    // ---- KvDataPlane ----

    @Override
    public KvGeometry geometry() {
        return g;
    }

    @Override
    public void compute(int req, long seed, int from, int to) {
        positions.remove(req);
        call(Wire.COMPUTE, new Wire.Op(req, seed, from, to, 0, 0, null, null, null));
    }

    @Override
    public int positions(int req) {
        Integer known = positions.get(req);
        if (known != null) {
            return known;
        }
        int n = (int) call(Wire.POSITIONS, Wire.Op.req(req)).value();
        positions.put(req, n);
        return n;
    }

    @Override
    public byte[] gather(int req, int page) {
        return call(Wire.GATHER, new Wire.Op(req, 0, 0, 0, page, 0, null, null, null)).data();
    }

    @Override
    public void restore(int req, List<byte[]> pages, int count) {
        positions.remove(req);
        call(Wire.RESTORE, new Wire.Op(req, 0, 0, 0, 0, count, pages, null, null));
        positions.put(req, count);
    }

    @Override
    public long pageDigest(int req, int page, int count) {
        return call(Wire.PAGE_DIGEST, new Wire.Op(req, 0, 0, 0, page, count, null, null, null)).value();
    }

    @Override
    public long digest(int req, int n) {
        return call(Wire.DIGEST, new Wire.Op(req, 0, 0, 0, 0, n, null, null, null)).value();
    }

    @Override
    public void free(int req) {
        positions.remove(req);
        call(Wire.FREE, Wire.Op.req(req));
    }
}
