package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.junit.jupiter.api.Test;

/** One test per spec action (and per policy where the policy decides), on small hand-made states. */
class CoreActionsTest {
    static final int[] REF = {11, 12, 13, 14, 15, 16};

    static Config cfg(String policy) {
        return new Config(policy, 3, 1, 1, 5, 3, 40, 4, 3);
    }

    /** r0 arrives on w0 and is placed and prefilled. */
    static ClusterState started(String policy) {
        ClusterState s = ClusterState.initial(cfg(policy));
        s = Core.arrive(s, 0, 4, REF).state();
        s = Core.place(s, 0).state();
        return Core.prefill(s, 0).state();
    }

    @Test
    void arriveQueuesOnAShortestQueueLowestIdFirst() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        Step a = Core.arrive(s, 0, 4, REF);
        assertThat(a.event()).isEqualTo(new Event.Arrive(0, 0, 4, REF));
        Step b = Core.arrive(a.state(), 1, 2, REF);
        assertThat(b.event().worker()).as("w0 has a longer queue now").isEqualTo(1);
        RequestRec r = b.state().request(1);
        assertThat(r.phase()).isEqualTo(RequestPhase.QUEUED);
        assertThat(r.placed()).isFalse();
        assertThat(b.state().worker(1).queue()).isEqualTo(1);
        assertThat(r.size()).isEqualTo(8);
    }

    @Test
    void lumenPlacesOnTheLeastLoadedOtherWorkerWithRoom() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        s = Core.arrive(s, 0, 4, REF).state();
        Step p = Core.place(s, 0);
        assertThat(p.event()).as("w1 and w2 tie at L=0; lowest id").isEqualTo(new Event.Place(0, 1));
        assertThat(p.state().worker(1).reserved()).isEqualTo(10);
        assertThat(p.state().request(0).placed()).isTrue();
        // w1 now has a queued request: L(w1) = 1 > L(w2) = 0
        ClusterState t = Core.arrive(p.state(), 1, 4, REF).state();
        assertThat(t.request(1).server()).isEqualTo(1);
        assertThat(Core.place(t, 1).event().worker()).isEqualTo(2);
    }

    @Test
    void placementDegradesToUnprotectedWhenNoHolderHasRoom() {
        Config tiny = new Config("lumen", 3, 1, 1, 5, 3, 9, 4, 3);
        ClusterState s = Core.arrive(ClusterState.initial(tiny), 0, 4, REF).state();
        Step p = Core.place(s, 0);
        assertThat(((Event.Place) p.event()).holder()).isEqualTo(-1);
        assertThat(p.state().request(0).placed()).isTrue();
        assertThat(Invariants.all(p.state())).isEmpty();
    }

    @Test
    void baselinesPlaceOnTheRingOrNowhere() {
        ClusterState s = Core.arrive(ClusterState.initial(cfg("fixed-checkpointing")), 0, 4, REF).state();
        s = Core.arrive(s, 1, 4, REF).state();
        s = Core.arrive(s, 2, 4, REF).state();
        assertThat(((Event.Place) Core.place(s, 0).event()).holder()).isEqualTo(1);
        assertThat(((Event.Place) Core.place(s, 2).event()).holder()).as("the ring wraps around").isEqualTo(0);
        ClusterState sr = Core.arrive(ClusterState.initial(cfg("stop-and-restart")), 0, 4, REF).state();
        assertThat(((Event.Place) Core.place(sr, 0).event()).holder()).isEqualTo(-1);
        ClusterState np = Core.arrive(ClusterState.initial(cfg("lumen-no-placement")), 0, 4, REF).state();
        assertThat(((Event.Place) Core.place(np, 0).event()).holder()).isEqualTo(1);
    }

    @Test
    void ringSkipsADownNeighbourAndNeedsRoom() {
        ClusterState s = Core.arrive(ClusterState.initial(cfg("fixed-checkpointing")), 0, 4, REF).state();
        s = Core.fail(s, 1).state();
        assertThat(((Event.Place) Core.place(s, 0).event()).holder()).isEqualTo(2);
        Config tiny = new Config("fixed-checkpointing", 3, 1, 1, 5, 3, 9, 4, 3);
        ClusterState t = Core.arrive(ClusterState.initial(tiny), 0, 4, REF).state();
        assertThat(((Event.Place) Core.place(t, 0).event()).holder()).isEqualTo(-1);
    }

    @Test
    void prefillDeliversTheFirstTokenAndWritesTheContext() {
        ClusterState s = started("lumen");
        RequestRec r = s.request(0);
        assertThat(r.phase()).isEqualTo(RequestPhase.DECODE);
        assertThat(r.outLen()).isEqualTo(1);
        assertThat(r.kv().length()).as("the prompt's KV; the first token's own KV is written by the first decode step").isEqualTo(4);
        assertThat(r.kv().length()).isEqualTo(r.kvLen());
        assertThat(r.outOk()).isTrue();
        assertThatExceptionOfType(IllegalStateException.class).as("only a QUEUED request is prefilled").isThrownBy(() -> Core.prefill(s, 0));
    }

    @Test
    void prefillWaitsForThePlacementDecision() {
        ClusterState s = Core.arrive(ClusterState.initial(cfg("lumen")), 0, 4, REF).state();
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.prefill(s, 0));
    }

    @Test
    void decodeAppendsOneTargetTokenOrAVerifiedDraft() {
        ClusterState s = started("lumen");
        Step d = Core.decode(s, 0);
        assertThat(((Event.Decode) d.event()).tokens()).containsExactly(12);
        assertThat(d.state().request(0).kv().length()).as("the decode step wrote the first token's KV").isEqualTo(5);
        assertThat(d.state().request(0).outLen()).isEqualTo(2);
        // with a draft: w2 assists after failing and restarting
        ClusterState t = Core.fail(d.state(), 2).state();
        t = Core.restart(t, 2).state();
        assertThat(t.worker(2).state()).isEqualTo(WorkerState.LOADING_DRAFT);
        t = Core.draftReady(t, 2).state();
        assertThat(t.worker(2).active()).isEqualTo(ActiveModel.DRAFT);
        assertThat(Core.assistCandidate(t, 2)).isEqualTo(0);
        ClusterState u = Core.assist(t, 2, 0, new int[] {13, 14, 99}).state();
        Step v = Core.decode(u, 0);
        assertThat(((Event.Decode) v.event()).tokens()).as("two agree, then the target's own").containsExactly(13, 14, 15);
        assertThat(v.state().request(0).proposal()).isNull();
        ClusterState w = Core.assist(t, 2, 0, new int[] {99}).state();
        assertThat(((Event.Decode) Core.decode(w, 0).event()).tokens()).as("a wrong draft costs nothing").containsExactly(13);
    }

    @Test
    void aDraftNeverRunsPastTheReference() {
        ClusterState s = started("lumen");
        for (int i = 0; i < 4; i++) {
            s = Core.decode(s, 0).state();
        }
        ClusterState t = Core.draftReady(Core.restart(Core.fail(s, 2).state(), 2).state(), 2).state();
        t = Core.assist(t, 2, 0, new int[] {16, 17, 18}).state();
        Step d = Core.decode(t, 0);
        assertThat(((Event.Decode) d.event()).tokens()).containsExactly(16);
        assertThat(d.state().request(0).outLen()).isEqualTo(6);
        Step c = Core.complete(d.state(), 0);
        assertThat(c.state().request(0).phase()).isEqualTo(RequestPhase.DONE);
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.decode(d.state(), 0));
    }

    @Test
    void streamPageAndCompleteFreeTheCheckpoint() {
        ClusterState s = started("lumen");
        Step st = Core.streamPage(s, 0, 3);
        assertThat(st.state().request(0).ckpt().length()).isEqualTo(3);
        assertThat(st.state().worker(1).stored()).isEqualTo(3);
        assertThat(st.state().load(1)).isEqualTo(3.0);
        assertThatExceptionOfType(IllegalStateException.class).as("only written positions stream")
                .isThrownBy(() -> Core.streamPage(st.state(), 0, 9));
        ClusterState done = st.state();
        for (int i = 0; i < 5; i++) {
            done = Core.decode(done, 0).state();
        }
        Step c = Core.complete(done, 0);
        assertThat(c.event()).isEqualTo(new Event.Complete(0, 0, 3));
        assertThat(c.state().request(0).holder()).isEqualTo(-1);
        assertThat(c.state().worker(1).stored()).isEqualTo(0);
        assertThat(c.state().worker(1).reserved()).isEqualTo(0);
        assertThat(c.state().worker(0).queue()).isEqualTo(0);
        assertThat(Invariants.all(c.state())).isEmpty();
    }

    @Test
    void failInterruptsTheQueueAndLosesHeldCheckpoints() {
        ClusterState s = started("lumen");
        s = Core.streamPage(s, 0, 2).state();
        s = Core.arrive(s, 1, 4, REF).state();
        s = Core.place(s, 1).state();
        assertThat(s.request(1).holder()).isEqualTo(2);
        Step f = Core.fail(s, 1);
        Event.Fail e = (Event.Fail) f.event();
        assertThat(e.interrupted()).containsExactly(1);
        assertThat(e.orphaned()).containsExactly(0);
        RequestRec r0 = f.state().request(0);
        assertThat(r0.holder()).isEqualTo(-1);
        assertThat(r0.placed()).as("its placement decision stands").isTrue();
        assertThat(f.state().needsProtection(r0)).as("a running request whose holder died is re-protected (w2 has room)").isTrue();
        assertThatExceptionOfType(IllegalStateException.class)
                .as("and not decoded before its new placement").isThrownBy(() -> Core.decode(f.state(), 0));
        assertThat(Core.place(f.state(), 0).event()).isEqualTo(new Event.Place(0, 2));
        assertThat(f.state().request(1).phase()).isEqualTo(RequestPhase.INTERRUPTED);
        assertThat(f.state().failures()).isEqualTo(1);
        assertThat(f.state().worker(1).state()).isEqualTo(WorkerState.FAILED);
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.fail(f.state(), 1));
        assertThat(Invariants.all(f.state())).isEmpty();
    }

    @Test
    void theLastUpWorkerDoesNotFail() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        s = Core.fail(Core.fail(s, 0).state(), 1).state();
        ClusterState t = s;
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.fail(t, 2));
    }

    /** r0 on w0 with a checkpoint of {@code saved} positions on w1, which has {@code extra} queued requests. */
    static ClusterState interrupted(String policy, int saved, int extra) {
        ClusterState s = started(policy);
        for (int i = 0; i < 3; i++) {
            s = Core.decode(s, 0).state();
        }
        if (saved > 0) {
            s = Core.streamPage(s, 0, saved).state();
        }
        for (int i = 0; i < extra; i++) {
            s = Core.arrive(s, 10 + i, 1, REF).state();
            if (s.request(10 + i).server() != 1) {
                // keep only requests that landed on w1; others complete the queue balance
                continue;
            }
        }
        return Core.fail(s, 0).state();
    }

    @Test
    void routeRestoresOnALightHolderOrALongPrefix() {
        // L(w1) = 2 <= theta 5: restore
        ClusterState s = interrupted("lumen", 2, 0);
        Step r = Core.route(s, 0);
        assertThat(r.event().withoutContent()).isEqualTo(new Event.Route(0, RouteMode.RESTORE, 1, 2, 2));
        assertThat(r.state().request(0).kv().length()).isEqualTo(2);
        assertThat(r.state().request(0).holder()).isEqualTo(-1);
        assertThat(r.state().request(0).phase()).isEqualTo(RequestPhase.QUEUED);
        assertThat(r.state().request(0).placed()).isFalse();
        // after the restore, the prefill recomputes the lagging positions only
        ClusterState t = Core.place(r.state(), 0).state();
        Step p = Core.prefill(t, 0);
        assertThat(((Event.Prefill) p.event()).tokens()).isEmpty();
        assertThat(p.state().request(0).kv().length()).isEqualTo(p.state().request(0).kvLen());
    }

    @Test
    void eq6BoundariesThetaAndTau() {
        Config c = new Config("lumen", 3, 1, 1, 3, 3, 40, 4, 3);
        ClusterState s = ClusterState.initial(c);
        s = Core.arrive(s, 0, 4, REF).state();
        s = Core.place(s, 0).state();
        s = Core.prefill(s, 0).state();
        for (int i = 0; i < 3; i++) {
            s = Core.decode(s, 0).state();
        }
        // |C_r| = 3 = tau and L(h) = 3 = theta: restore (L(h) <= theta)
        ClusterState a = Core.fail(Core.streamPage(s, 0, 3).state(), 0).state();
        assertThat(((Event.Route) Core.route(a, 0).event()).mode()).isEqualTo(RouteMode.RESTORE);
        // |C_r| = 4 > tau, L(h) = 4 > theta: restore (long prefix)
        ClusterState b = Core.fail(Core.streamPage(s, 0, 4).state(), 0).state();
        assertThat(((Event.Route) Core.route(b, 0).event()).mode()).isEqualTo(RouteMode.RESTORE);
        // a loaded holder (theta 0) with a short prefix (tau 10): re-prefill on the least loaded survivor
        Config c2 = new Config("lumen", 3, 1, 1, 0, 10, 40, 4, 3);
        ClusterState t = Core.prefill(Core.place(Core.arrive(ClusterState.initial(c2), 0, 4, REF).state(), 0).state(), 0).state();
        t = Core.fail(Core.streamPage(t, 0, 2).state(), 0).state();
        Step r = Core.route(t, 0);
        assertThat(r.event().withoutContent()).isEqualTo(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 2));
        assertThat(r.state().worker(1).stored()).as("the checkpoint is freed").isEqualTo(0);
        assertThat(r.state().request(0).kv().length()).isEqualTo(0);
    }

    @Test
    void policiesRouteTheirOwnWay() {
        ClusterState fc = interrupted("fixed-checkpointing", 1, 0);
        assertThat(((Event.Route) Core.route(fc, 0).event()).mode()).isEqualTo(RouteMode.RESTORE);
        ClusterState sr = interrupted("stop-and-restart", 0, 0);
        assertThat(((Event.Route) Core.route(sr, 0).event()).mode()).isEqualTo(RouteMode.REPREFILL);
        ClusterState nr = interrupted("lumen-no-routing", 1, 0);
        assertThat(((Event.Route) Core.route(nr, 0).event()).mode()).isEqualTo(RouteMode.RESTORE);
        ClusterState noCkpt = interrupted("lumen", 0, 0);
        assertThat(((Event.Route) Core.route(noCkpt, 0).event()).mode())
                .as("an empty checkpoint on a light holder restores").isEqualTo(RouteMode.RESTORE);
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.route(started("lumen"), 0));
    }

    @Test
    void restartDependsOnThePolicyAndHandoverIsAtomic() {
        for (String p : Policies.keys()) {
            ClusterState s = Core.restart(Core.fail(ClusterState.initial(cfg(p)), 1).state(), 1).state();
            WorkerState want = p.equals("lumen") || p.equals("lumen-dual") || p.equals("lumen-no-placement") || p.equals("lumen-no-routing")
                    || p.equals("lumen-assist-only") ? WorkerState.LOADING_DRAFT : WorkerState.LOADING_FULL;
            assertThat(s.worker(1).state()).as(p).isEqualTo(want);
            assertThat(s.policy().restartState() == WorkerState.LOADING_DRAFT).isEqualTo(want == WorkerState.LOADING_DRAFT);
        }
        ClusterState s = started("lumen");
        s = Core.draftReady(Core.restart(Core.fail(s, 2).state(), 2).state(), 2).state();
        s = Core.assist(s, 2, 0, new int[] {1}).state();
        Step h = Core.fullReady(s, 2);
        assertThat(((Event.FullReady) h.event()).dropped()).containsExactly(0);
        assertThat(h.state().request(0).proposal()).isNull();
        assertThat(h.state().worker(2).state()).isEqualTo(WorkerState.UP);
        assertThat(h.state().worker(2).active()).isEqualTo(ActiveModel.FULL);
        assertThat(h.state().load(2)).as("rejoins with L = 0").isEqualTo(0.0);
        ClusterState noAssist = Core.restart(Core.fail(ClusterState.initial(cfg("lumen-no-assist")), 1).state(), 1).state();
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.draftReady(noAssist, 1));
        assertThat(Core.fullReady(noAssist, 1).state().worker(1).state()).isEqualTo(WorkerState.UP);
    }

    @Test
    void assistGoesOnlyToTheMostLoadedWorker() {
        ClusterState s = started("lumen");
        s = Core.arrive(s, 1, 4, REF).state();
        s = Core.place(s, 1).state();
        s = Core.prefill(s, 1).state();
        s = Core.streamPage(s, 1, 4).state();
        // w1 served r1 with checkpoint on w2? loads: find the most loaded and a request elsewhere
        ClusterState t = Core.draftReady(Core.restart(Core.fail(s, 2).state(), 2).state(), 2).state();
        int top = t.assistTarget();
        int cand = Core.assistCandidate(t, 2);
        assertThat(t.request(cand).server()).isEqualTo(top);
        int other = cand == 0 ? 1 : 0;
        if (t.load(t.request(other).server()) < t.load(top)) {
            ClusterState u = t;
            assertThatExceptionOfType(IllegalStateException.class)
                    .as("not on a most loaded worker").isThrownBy(() -> Core.assist(u, 2, other, new int[] {1}));
        }
        assertThat(Core.assistCandidate(ClusterState.initial(cfg("lumen")), 2)).isEqualTo(-1);
    }

    /**
     * r0 on w0 (holder w1); w2 fails and comes back with its draft while w0 is the most loaded; then
     * r1 arrives on w1 and r0's checkpoint streams to w1, so w1 becomes the most loaded.
     */
    private static ClusterState assistTargetMoves(Readings readings) {
        ClusterState s = ClusterState.initial(cfg("lumen").withReadings(readings));
        s = Core.place(Core.arrive(s, 0, 4, REF).state(), 0).state();
        s = Core.prefill(s, 0).state();
        s = Core.restart(Core.fail(s, 2).state(), 2).state();
        Step ready = Core.draftReady(s, 2);
        s = ready.state();
        assertThat(((Event.DraftReady) ready.event()).target())
                .as("the session reading names its target at DraftReady; the proposal reading names none")
                .isEqualTo(readings.sessionTarget() ? 0 : -1);
        s = Core.arrive(s, 1, 4, REF).state();
        assertThat(s.request(1).server()).isEqualTo(1);
        s = Core.prefill(Core.place(s, 1).state(), 1).state();
        s = Core.streamPage(s, 0, 4).state();
        assertThat(s.load(1)).as("w1 is now the most loaded").isGreaterThan(s.load(0));
        return s;
    }

    @Test
    void underTheSessionReadingTheAssistKeepsItsTargetWhileItIsUp() {
        ClusterState s = assistTargetMoves(Readings.DEFAULT);
        assertThat(s.keptTarget(2)).isEqualTo(0);
        assertThat(Core.assistCandidate(s, 2)).as("r0, on the session's target w0").isEqualTo(0);
        assertThatExceptionOfType(IllegalStateException.class).as("r1 is on the most loaded worker, not on the target")
                .isThrownBy(() -> Core.assist(s, 2, 1, new int[] {1}));
        assertThat(ActionProperties.check(s, new Event.Assist(2, 1, new int[] {1})).property()).isEqualTo(PropertyId.A3);
        // the target fails: the next proposal chooses again, a most loaded UP worker
        ClusterState t = Core.fail(Core.assist(s, 2, 0, new int[] {13}).state(), 0).state();
        assertThat(t.keptTarget(2)).isEqualTo(-1);
        int r = Core.assistCandidate(t, 2);
        assertThat(r).isEqualTo(1);
        assertThat(Core.assist(t, 2, r, new int[] {13}).state().worker(2).target()).isEqualTo(1);
    }

    @Test
    void underTheProposalReadingEveryDraftGoesToTheMostLoadedWorkerOfItsMoment() {
        ClusterState s = assistTargetMoves(Readings.DEFAULT.with("assistTarget", "proposal"));
        assertThat(s.keptTarget(2)).isEqualTo(-1);
        assertThat(Core.assistCandidate(s, 2)).isEqualTo(1);
        assertThatExceptionOfType(IllegalStateException.class).as("w0 is no longer most loaded")
                .isThrownBy(() -> Core.assist(s, 2, 0, new int[] {13}));
        assertThat(Core.assist(s, 2, 1, new int[] {13}).state().worker(2).target()).isEqualTo(-1);
    }

    @Test
    void underTheIncrementReadingAlgorithm2RoutesByTheLoadsAtTheFailurePlusBetaPerRoutedRequest() {
        Config c = cfg("lumen").withReadings(Readings.DEFAULT.with("routeLoads", "increment"));
        ClusterState s = fourRequests(c);
        assertThat(s.request(3).server()).isEqualTo(0);
        double[] before = {s.load(0), s.load(1), s.load(2)};
        ClusterState f = Core.fail(s, 0).state();
        assertThat(f.routeLoad(1)).as("the load at the failure").isEqualTo(before[1]);
        assertThat(f.routeLoad(2)).isEqualTo(before[2]);
        Step first = Core.route(f, 0);
        int t = first.event().worker();
        assertThat(first.state().routeLoad(t)).as("L(t) += beta").isEqualTo(before[t] + c.beta());
        assertThat(first.state().routeLoad(3 - t)).as("the other survivor is not recomputed").isEqualTo(before[3 - t]);
        assertThat(first.state().routeLoad(t)).as("it differs from Eq. 4 now").isNotEqualTo(first.state().load(t));
        ClusterState done = Core.route(first.state(), 3).state();
        assertThat(done.routeLoad(1)).as("the run of Algorithm 2 ends with the last interrupted request").isZero();
        // under the default reading the route loads are Eq. 4 now
        ClusterState plain = Core.route(Core.fail(fourRequests(cfg("lumen")), 0).state(), 0).state();
        assertThat(plain.routeLoad(1)).isEqualTo(plain.load(1));
    }

    /** r0 and r3 on w0, r1 on w1, r2 on w2; each placed and prefilled, r0's checkpoint streamed. */
    private static ClusterState fourRequests(Config c) {
        ClusterState s = ClusterState.initial(c);
        for (int r = 0; r < 4; r++) {
            s = Core.prefill(Core.place(Core.arrive(s, r, 4, REF).state(), r).state(), r).state();
        }
        return Core.streamPage(s, 0, 4).state();
    }

    @Test
    void aDraftReadyThatNamesATargetThatIsNotMostLoadedBreaksA3() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        s = Core.prefill(Core.place(Core.arrive(s, 0, 4, REF).state(), 0).state(), 0).state();
        s = Core.restart(Core.fail(s, 2).state(), 2).state();
        // w0 serves r0 (L=1), w1 serves nothing (L=0)
        assertThat(ActionProperties.check(s, new Event.DraftReady(2, 1)).property()).isEqualTo(PropertyId.A3);
        assertThat(ActionProperties.check(s, new Event.DraftReady(2, 0))).isNull();
        assertThat(ActionProperties.check(s, new Event.DraftReady(2))).isNull();
    }

    @Test
    void lumenDualPlacesABackupThatTakesOverWhenTheHolderFails() {
        Config c = new Config("lumen-dual", 4, 1, 1, 50, 3, 40, 4, 3);
        ClusterState s = Core.arrive(ClusterState.initial(c), 0, 4, REF).state();
        Step p = Core.place(s, 0);
        assertThat(p.event()).as("holder w1, backup w2: the two least loaded others, lowest ids").isEqualTo(new Event.Place(0, 1, 2));
        assertThat(p.state().worker(2).reserved()).isEqualTo(10);
        s = Core.prefill(p.state(), 0).state();
        s = Core.streamPage(s, 0, 4).state();
        s = Core.streamBackupPage(s, 0, 2).state();
        assertThat(s.request(0).bckpt().length()).isEqualTo(2);
        assertThat(s.worker(2).stored()).isEqualTo(2);
        assertThat(s.load(1) + s.load(2)).isEqualTo(6.0);
        // the holder fails: the backup takes over with its own (shorter) copy
        Step f = Core.fail(s, 1);
        assertThat(((Event.Fail) f.event()).promoted()).containsExactly(0);
        RequestRec r = f.state().request(0);
        assertThat(r.holder()).isEqualTo(2);
        assertThat(r.ckpt().length()).isEqualTo(2);
        assertThat(r.backup()).isEqualTo(-1);
        assertThat(r.placed()).as("still protected: no new placement needed").isTrue();
        assertThat(Invariants.all(f.state())).as(() -> Invariants.all(f.state()).toString()).isEmpty();
        // the server fails too: the request restores from the promoted copy
        Step g = Core.fail(f.state(), 0);
        Step rt = Core.route(g.state(), 0);
        assertThat(rt.event().withoutContent()).isEqualTo(new Event.Route(0, RouteMode.RESTORE, 2, 2, 2));
        assertThat(Invariants.all(rt.state())).isEmpty();
    }

    @Test
    void lumenDualLosingTheBackupKeepsTheHolderAndCompleteFreesBoth() {
        Config c = new Config("lumen-dual", 4, 1, 1, 50, 3, 40, 4, 3);
        ClusterState s = Core.prefill(Core.place(Core.arrive(ClusterState.initial(c), 0, 4, REF).state(), 0).state(), 0).state();
        s = Core.streamBackupPage(Core.streamPage(s, 0, 3).state(), 0, 3).state();
        Step f = Core.fail(s, 2);
        assertThat(((Event.Fail) f.event()).promoted()).isEmpty();
        assertThat(((Event.Fail) f.event()).orphaned()).containsExactly(0);
        assertThat(f.state().request(0).holder()).isEqualTo(1);
        assertThat(f.state().request(0).backup()).isEqualTo(-1);
        ClusterState t = s;
        for (int i = 0; i < 5; i++) {
            t = Core.decode(t, 0).state();
        }
        Step done = Core.complete(t, 0);
        assertThat(((Event.Complete) done.event()).freed()).as("both copies of 3 positions").isEqualTo(6);
        assertThat(done.state().worker(1).stored() + done.state().worker(2).stored()).isEqualTo(0);
        assertThat(done.state().worker(1).reserved() + done.state().worker(2).reserved()).isEqualTo(0);
        ClusterState noBackup = Core.arrive(ClusterState.initial(c), 0, 4, REF).state();
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.streamBackupPage(noBackup, 0, 1));
        // with room for one copy only, the request has a holder and no backup
        Config tight = new Config("lumen-dual", 3, 1, 1, 50, 3, 10, 4, 3);
        ClusterState u = Core.arrive(ClusterState.initial(tight), 0, 4, REF).state();
        u = Core.arrive(u, 1, 4, REF).state();
        u = Core.place(u, 0).state();
        assertThat(Core.place(u, 1).event()).isEqualTo(new Event.Place(1, 0, -1));
    }

    @Test
    void unknownRequestsAreRefused() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> Core.place(s, 4));
    }
}
