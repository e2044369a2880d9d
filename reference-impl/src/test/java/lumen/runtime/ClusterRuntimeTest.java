package lumen.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Invariants;
import lumen.core.Policies;
import lumen.core.PropertyId;
import lumen.trace.TraceWriter;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

/**
 * The runtime under every policy and every fault point: its trace is a behaviour of the spec,
 * every client receives exactly its failure-free output, restores are bit-exact, and the state
 * satisfies every invariant at the end. A flipped bit in host memory is caught.
 */
class ClusterRuntimeTest {

    record Run(ClusterRuntime rt, byte[] trace, ValidationResult v, List<Event> events) {}

    static Run run(Config cfg, ClusterRuntime.Options opt, List<Arrival> work, List<Fault> faults) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        List<Event> events = new ArrayList<>();
        ClusterRuntime rt;
        try (TraceWriter w = new TraceWriter(buf, cfg)) {
            rt = new ClusterRuntime(cfg, Scenarios.FAST_RELOAD, opt, (e, t) -> {
                events.add(e);
                try {
                    w.write(e, t);
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
            rt.run(work, faults);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        try {
            ValidationResult v = Validator.validate(new ByteArrayInputStream(buf.toByteArray()), "rt");
            return new Run(rt, buf.toByteArray(), v, events);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static List<Arrival> work(int n) {
        List<Arrival> a = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            a.add(new Arrival(i, i * 5.0, 20 + i * 3 % 17, 50 + i * 7 % 40, 77 + i));
        }
        return a;
    }

    static void assertHonest(Run r, String what) {
        assertThat(r.v().verdict()).as(() -> what + ": " + r.v().divergence() + " " + r.v().error()).isEqualTo(Verdict.ACCEPTED);
        r.rt().outputs().forEach((id, out) -> assertThat(out).as(what + ": request " + id).isEqualTo(r.rt().references().get(id)));
        assertThat(r.rt().stats().restoredBytesWrong).as(what).isEqualTo(0);
        assertThat(Invariants.all(r.rt().state())).as(what).isEqualTo(List.of());
    }

    @Test
    void everyPolicyUnderEveryFaultPoint() {
        for (String policy : Policies.keys()) {
            for (Fault.Point point : Fault.Point.values()) {
                Config cfg = new Config(policy, 4, 1, 1, 200, 16, 2048, 16, 4);
                List<Fault> faults = point == Fault.Point.MID_HANDOVER || point == Fault.Point.MID_RESTORE
                        ? List.of(new Fault(1, 50, Fault.Point.MID_DECODE), new Fault(point == Fault.Point.MID_RESTORE ? 2 : 1, 60, point))
                        // a draft is in flight only to an assist target, which the schedule cannot name: armed on every survivor
                        : point == Fault.Point.MID_VERIFY ? List.of(new Fault(1, 50, Fault.Point.MID_DECODE), new Fault(0, 60, point),
                                new Fault(2, 60, point), new Fault(3, 60, point))
                        : List.of(new Fault(1, point == Fault.Point.MID_PREFILL ? 0 : 60, point));
                Run r = run(cfg, ClusterRuntime.Options.defaults(16), work(10), faults);
                assertHonest(r, policy + " " + point);
                assertThat(r.rt().stats().completed).isEqualTo(10);
                if (point == Fault.Point.MID_VERIFY) {
                    boolean drafts = cfg.recoveryPolicy().restartState() == lumen.core.WorkerState.LOADING_DRAFT;
                    // one assist target or more failed with a draft in flight (each failure starts another assist), or none can
                    if (drafts) {
                        assertThat(r.rt().stats().failures).as(policy + " " + point + ": a target failed with a draft in flight").isGreaterThanOrEqualTo(2);
                    } else {
                        assertThat(r.rt().stats().failures).as(policy + " " + point + ": no draft, so no such failure").isEqualTo(1);
                    }
                    continue;
                }
                boolean possible = switch (point) {
                    case MID_STREAM, MID_RESTORE -> !policy.equals("stop-and-restart");
                    case MID_HANDOVER -> cfg.recoveryPolicy().restartState() == lumen.core.WorkerState.LOADING_DRAFT;
                    default -> true;
                };
                if (possible) {
                    assertThat(r.rt().stats().failures).as(policy + " " + point + ": every fault was injected").isEqualTo(faults.size());
                    assertThat(r.rt().stats().faultsSkipped).isEqualTo(0);
                } else {
                    assertThat(r.rt().stats().failures).as(policy + " " + point + " cannot happen").isEqualTo(faults.size() - 1);
                }
            }
        }
    }

    /**
     * A gray failure under every policy and fault point: the paused worker is declared failed,
     * wakes a zombie, and every write of its is refused and in the trace; the run is a behaviour
     * of the spec with every output its reference. The same trace with one zombie write let
     * through is S18 (a token) or S19 (a page), at that write's line.
     */
    @Test
    void aPausedWorkerWakesAZombieWhoseWritesAreRefused() throws IOException {
        int zombies = 0;
        int tokens = 0;
        int pages = 0;
        int acks = 0;
        for (String policy : Policies.keys()) {
            for (Fault.Point point : List.of(Fault.Point.AT_TIME, Fault.Point.MID_DECODE, Fault.Point.MID_STREAM)) {
                Config cfg = new Config(policy, 4, 1, 1, 200, 16, 2048, 16, 4);
                Run r = run(cfg, ClusterRuntime.Options.defaults(16), work(10), List.of(new Fault(1, 60, point, 30)));
                assertHonest(r, policy + " " + point + " paused");
                assertThat(r.rt().stats().completed).isEqualTo(10);
                List<Event> zw = r.events().stream().filter(e -> e instanceof Event.ZombieToken || e instanceof Event.ZombiePage).toList();
                if (r.rt().stats().zombies == 0) {
                    continue;
                }
                assertThat(zw).as(policy + " " + point + ": the zombie wrote").isNotEmpty();
                zombies++;
                assertThat(r.events()).as("the zombie stops").anyMatch(e -> e instanceof Event.ZombieStops);
                assertThat(zw).as(policy + " " + point + ": every zombie write refused")
                        .allMatch(e -> e instanceof Event.ZombieToken t ? !t.accepted() : !((Event.ZombiePage) e).accepted());
                String text = new String(r.trace(), java.nio.charset.StandardCharsets.UTF_8);
                for (String kind : List.of("ZombieToken", "ZombiePage", "ZombieAck")) {
                    int at = text.indexOf("\"type\":\"" + kind + "\"");
                    if (at < 0) {
                        continue;
                    }
                    String broken = text.substring(0, at) + text.substring(at).replaceFirst("\"accepted\":false", "\"accepted\":true");
                    ValidationResult v = Validator.validate(new ByteArrayInputStream(broken.getBytes(java.nio.charset.StandardCharsets.UTF_8)), "rt");
                    assertThat(v.verdict()).isEqualTo(Verdict.REJECTED);
                    assertThat(v.divergence().finding().property()).as(policy + " " + point + " " + kind)
                            .isEqualTo(kind.equals("ZombieToken") ? lumen.core.PropertyId.S18 : lumen.core.PropertyId.S19);
                    if (kind.equals("ZombieAck")) {
                        acks++;
                    }
                    assertThat(v.divergence().line()).isEqualTo(text.substring(0, at).chars().filter(c -> c == '\n').count() + 1);
                    if (kind.equals("ZombieToken")) {
                        tokens++;
                    } else if (kind.equals("ZombiePage")) {
                        pages++;
                    }
                }
            }
        }
        assertThat(zombies).as("gray failures that left a zombie").isGreaterThanOrEqualTo(Policies.keys().size());
        assertThat(tokens).as("zombie tokens let through, caught").isGreaterThan(0);
        assertThat(pages).as("zombie pages let through, caught").isGreaterThan(0);
        assertThat(acks).as("zombie acknowledgements let through, caught").isGreaterThan(0);
    }

    /**
     * A partition from the gateway under every policy: the worker is declared failed and works on;
     * its pages reach its holders at once and are refused there, its tokens and acknowledgements
     * reach the gateway at the heal, refused (or are lost in a lossy partition), and it stops at
     * the heal. Every run is a behaviour of the spec with every output its reference.
     */
    @Test
    void aWorkerCutOffFromTheGatewayWorksOnAndEveryLateWriteIsRefused() throws IOException {
        int delayedTokens = 0;
        int earlyPages = 0;
        for (String policy : Policies.keys()) {
            for (Fault.Partition cut : List.of(Fault.Partition.DELAYED, Fault.Partition.LOST)) {
                Config cfg = new Config(policy, 4, 1, 1, 200, 16, 2048, 16, 4);
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                List<Object[]> timed = new ArrayList<>();
                ClusterRuntime rt = new ClusterRuntime(cfg, Scenarios.FAST_RELOAD, ClusterRuntime.Options.defaults(16),
                        (e, t) -> timed.add(new Object[] {e, t}));
                rt.run(work(10), List.of(new Fault(1, 60, Fault.Point.MID_DECODE, 30, cut)));
                String what = policy + " " + cut;
                assertThat(rt.stats().completed).as(what).isEqualTo(10);
                double failAt = timed.stream().filter(x -> x[0] instanceof Event.Fail).mapToDouble(x -> (double) x[1]).findFirst().orElseThrow();
                List<Object[]> zw = timed.stream().filter(x -> x[0] instanceof Event.ZombieToken || x[0] instanceof Event.ZombiePage
                        || x[0] instanceof Event.ZombieAck || x[0] instanceof Event.ZombieStops).toList();
                assertThat(zw).as(what + ": the zombie stops at the heal").last()
                        .satisfies(x -> assertThat(x[0]).isInstanceOf(Event.ZombieStops.class))
                        .satisfies(x -> assertThat((double) x[1]).isEqualTo(failAt + 30));
                for (Object[] x : zw) {
                    if (x[0] instanceof Event.ZombiePage p) {
                        assertThat(p.accepted()).isFalse();
                        assertThat((double) x[1]).as(what + ": a page reaches its holder at once").isEqualTo(failAt);
                        earlyPages++;
                    } else if (x[0] instanceof Event.ZombieToken || x[0] instanceof Event.ZombieAck) {
                        assertThat(cut).as(what + ": a lossy partition loses the tokens and acks").isEqualTo(Fault.Partition.DELAYED);
                        assertThat((double) x[1]).as(what + ": tokens and acks at the heal").isEqualTo(failAt + 30);
                        assertThat(x[0] instanceof Event.ZombieToken t ? t.accepted() : ((Event.ZombieAck) x[0]).accepted()).isFalse();
                        delayedTokens += x[0] instanceof Event.ZombieToken ? 1 : 0;
                    }
                }
                try (TraceWriter w = new TraceWriter(buf, cfg)) {
                    for (Object[] x : timed) {
                        w.write((Event) x[0], (double) x[1]);
                    }
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
                ValidationResult v = Validator.validate(new ByteArrayInputStream(buf.toByteArray()), what);
                assertThat(v.verdict()).as(what + ": %s", v.divergence()).isEqualTo(Verdict.ACCEPTED);
            }
        }
        assertThat(delayedTokens).as("tokens delivered at a heal").isGreaterThan(0);
        assertThat(earlyPages).as("pages sent during a partition").isGreaterThan(0);
    }

    @Test
    void concurrentAndRepeatedFailures() {
        Config cfg = new Config("lumen", 5, 1, 1, 200, 16, 2048, 16, 4);
        List<Fault> faults = List.of(new Fault(0, 40, Fault.Point.AT_TIME), new Fault(1, 40, Fault.Point.AT_TIME),
                new Fault(2, 40, Fault.Point.AT_TIME), new Fault(0, 400, Fault.Point.MID_DECODE), new Fault(3, 41, Fault.Point.MID_STREAM));
        Run r = run(cfg, ClusterRuntime.Options.defaults(16), work(14), faults);
        assertHonest(r, "concurrent");
        assertThat(r.rt().stats().failures).isGreaterThanOrEqualTo(4);
    }

    @Test
    void drafTAgreementChangesAcceptanceNotOutput() {
        Config cfg = new Config("lumen", 4, 1, 1, 200, 16, 2048, 16, 4);
        int[] accepted = new int[3];
        double[] agree = {0.0, 0.5, 1.0};
        for (int i = 0; i < 3; i++) {
            Run r = run(cfg, ClusterRuntime.Options.defaults(16).withDraftAgreement(agree[i]), work(12),
                    List.of(new Fault(1, 30, Fault.Point.MID_DECODE)));
            assertHonest(r, "agreement " + agree[i]);
            assertThat(r.rt().stats().draftsDelivered).isGreaterThan(0);
            accepted[i] = r.rt().stats().draftTokensAccepted;
        }
        assertThat(accepted[0]).as("a draft that never agrees is never accepted").isEqualTo(0);
        assertThat(accepted[0] < accepted[1] && accepted[1] < accepted[2]).as(java.util.Arrays.toString(accepted)).isTrue();
    }

    /**
     * A drafting worker whose draft model cannot be reached: its drafts never arrive, and the
     * targets decode without them, so every client still gets its reference output. A worker that
     * stays ASSISTING with no draft ever arriving is what L4 (bounded fairness of the assist)
     * rejects; a live system fails such a worker by its heartbeats long before the bound.
     */
    @Test
    void aDraftThatNeverArrivesLeavesTheTargetToDecodeAloneAndL4SeesTheSilentWorker() {
        Config cfg = new Config("lumen", 4, 1, 1, 200, 16, 2048, 16, 4);
        ClusterRuntime.Options base = ClusterRuntime.Options.defaults(16);
        TokenModels models = new TokenModels(base.vocab(), base.draftAgreement(), base.geometry());
        java.util.function.IntFunction<WorkerMemory> unreachableDrafts = w -> new Wrapped(new WorkerMemory.Local(new CpuKvPlane(base.geometry()), models),
                false, new ArrayList<>());
        List<Fault> fault = List.of(new Fault(1, 30, Fault.Point.MID_DECODE));
        Run none = run(cfg, base.withMemories(unreachableDrafts), work(12), fault);
        assertThat(none.rt().stats().completed).isEqualTo(12);
        none.rt().outputs().forEach((id, out) -> assertThat(out).as("request " + id).isEqualTo(none.rt().references().get(id)));
        assertThat(none.rt().stats().draftsDelivered).isZero();
        assertThat(none.events()).noneMatch(e -> e instanceof Event.Assist);
        assertThat(none.v().verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(none.v().divergence().finding().property()).isEqualTo(PropertyId.L4);
        Run some = run(cfg, base, work(12), fault);
        assertHonest(some, "drafts that arrive");
        assertThat(some.rt().stats().draftsDelivered).isGreaterThan(0);
    }

    /**
     * A restarted worker that loads its own models (as a worker process of lumen serve does): the
     * runtime asks it to load, and nothing is ready until the engine says a model is loaded; the
     * draft first, then the full model, each once.
     */
    @Test
    void aWorkerThatLoadsItsOwnModelsIsReadyWhenItSaysSo() {
        Config cfg = new Config("lumen", 4, 1, 1, 200, 16, 2048, 16, 4);
        ClusterRuntime.Options base = ClusterRuntime.Options.defaults(16);
        TokenModels models = new TokenModels(base.vocab(), base.draftAgreement(), base.geometry());
        List<double[]> asked = new ArrayList<>();
        List<Event> events = new ArrayList<>();
        ClusterRuntime rt = new ClusterRuntime(cfg, Scenarios.FAST_RELOAD,
                base.withMemories(w -> new Wrapped(new WorkerMemory.Local(new CpuKvPlane(base.geometry()), models), true, asked)),
                (e, t) -> events.add(e)).withExternalRestarts().withExternalLoads();
        for (Arrival a : work(6)) {
            rt.submit(a);
        }
        rt.advanceTo(40);
        rt.failNow(1);
        rt.advanceTo(60);
        assertThat(rt.restartWorker(1)).isTrue();
        rt.advanceTo(60_000);
        assertThat(asked).as("the restarted worker is asked to load its draft and its full model")
                .containsExactly(new double[] {Scenarios.FAST_RELOAD.draftLoadMs(), Scenarios.FAST_RELOAD.fullLoadMs()});
        assertThat(events).as("however long it takes").noneMatch(e -> e instanceof Event.DraftReady || e instanceof Event.FullReady);
        assertThat(rt.modelLoaded(1, false)).isTrue();
        assertThat(rt.modelLoaded(1, false)).as("a repeated report").isFalse();
        assertThat(rt.state().worker(1).state()).isEqualTo(lumen.core.WorkerState.ASSISTING);
        assertThat(rt.modelLoaded(1, true)).isTrue();
        assertThat(rt.modelLoaded(1, true)).isFalse();
        assertThat(rt.state().worker(1).state()).isEqualTo(lumen.core.WorkerState.UP);
        assertThat(rt.modelLoaded(0, true)).as("a worker that never failed").isFalse();
        assertThat(events.stream().filter(e -> e instanceof Event.DraftReady || e instanceof Event.FullReady).map(e -> e.action().specName()))
                .containsExactly("DraftReady", "FullReady");
    }

    /** A worker's memories in this process: its draft model answers or not, and the loads it is asked for are recorded. */
    private record Wrapped(WorkerMemory.Local local, boolean drafts, List<double[]> loads) implements WorkerMemory {
        @Override
        public KvDataPlane gpu() {
            return local.gpu();
        }

        @Override
        public TargetPass.Pass[] run(List<TargetPass.Job> jobs) {
            return local.run(jobs);
        }

        @Override
        public int[] draft(long seed, int outLen, int from, int k) {
            return drafts ? local.draft(seed, outLen, from, k) : null;
        }

        @Override
        public void loadModels(double draftMs, double fullMs) {
            loads.add(new double[] {draftMs, fullMs});
        }

        @Override
        public void free(int r) {
            local.free(r);
        }

        @Override
        public long sendPage(int r, int page, WorkerMemory holder) {
            return local.sendPage(r, page, ((Wrapped) holder).local());
        }

        @Override
        public List<byte[]> takeCopy(int r) {
            return local.takeCopy(r);
        }

        @Override
        public void dropCopy(int r) {
            local.dropCopy(r);
        }

        @Override
        public void clear() {
            local.clear();
        }
    }

    @Test
    void aCheckpointMayLagAndABoundedQueueFillsUp() {
        Config cfg = new Config("lumen", 4, 1, 1, 200, 16, 4096, 16, 4);
        Run r = run(cfg, ClusterRuntime.Options.defaults(16).withStreamQueueCapacity(1), work(12),
                List.of(new Fault(1, 90, Fault.Point.MID_DECODE)));
        assertHonest(r, "queue of 1");
        assertThat(r.rt().stats().streamQueueFull).isGreaterThan(0);
        assertThat(r.rt().stats().restores).isGreaterThan(0);
    }

    @Test
    void aFlippedBitInHostMemoryIsCaught() {
        Config cfg = new Config("lumen", 4, 1, 1, 200, 16, 2048, 16, 4);
        Run r = run(cfg, ClusterRuntime.Options.defaults(16).withFlipRestoredBit(true), work(10),
                List.of(new Fault(1, 150, Fault.Point.MID_DECODE)));
        assertThat(r.rt().stats().restores).isGreaterThan(0);
        assertThat(r.rt().stats().restoredBytesWrong).as("the restore check sees the flipped byte").isGreaterThan(0);
        assertThat(r.v().verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.v().divergence().finding().property())
                .as("the restored page's digest is not the copy's: caught at the restore, before any token").isEqualTo(PropertyId.S13);
        assertThat(r.rt().outputs().entrySet())
                .as("and the target's next token changes").anyMatch(o -> !java.util.Arrays.equals(o.getValue(), r.rt().references().get(o.getKey())));
    }

    @Test
    void badOptionsAreRefused() {
        Config cfg = Config.defaults("lumen");
        ClusterRuntime.Options wrongPage = new ClusterRuntime.Options(KvGeometry.small(8), 100, 0.5, 4, false);
        assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> new ClusterRuntime(cfg, Scenarios.FAST_RELOAD, wrongPage, (e, t) -> { }));
        ClusterRuntime rt = new ClusterRuntime(cfg, Scenarios.FAST_RELOAD, ClusterRuntime.Options.defaults(16), (e, t) -> { });
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> rt.run(List.of(), List.of(new Fault(9, 0, Fault.Point.AT_TIME))));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new TokenModels(1, 0.5, KvGeometry.small(4)));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new TokenModels(10, 1.5, KvGeometry.small(4)));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new KvGeometry(0, 1, 1));
    }
}
