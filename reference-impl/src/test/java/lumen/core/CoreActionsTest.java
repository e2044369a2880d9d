package lumen.core;

import static org.junit.jupiter.api.Assertions.*;

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
        assertEquals(new Event.Arrive(0, 0, 4, REF), a.event());
        Step b = Core.arrive(a.state(), 1, 2, REF);
        assertEquals(1, b.event().worker(), "w0 has a longer queue now");
        RequestRec r = b.state().request(1);
        assertEquals(RequestPhase.QUEUED, r.phase());
        assertFalse(r.placed());
        assertEquals(1, b.state().worker(1).queue());
        assertEquals(8, r.size());
    }

    @Test
    void lumenPlacesOnTheLeastLoadedOtherWorkerWithRoom() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        s = Core.arrive(s, 0, 4, REF).state();
        Step p = Core.place(s, 0);
        assertEquals(new Event.Place(0, 1), p.event(), "w1 and w2 tie at L=0; lowest id");
        assertEquals(10, p.state().worker(1).reserved());
        assertTrue(p.state().request(0).placed());
        // w1 now has a queued request: L(w1) = 1 > L(w2) = 0
        ClusterState t = Core.arrive(p.state(), 1, 4, REF).state();
        assertEquals(1, t.request(1).server());
        assertEquals(2, Core.place(t, 1).event().worker());
    }

    @Test
    void placementDegradesToUnprotectedWhenNoHolderHasRoom() {
        Config tiny = new Config("lumen", 3, 1, 1, 5, 3, 9, 4, 3);
        ClusterState s = Core.arrive(ClusterState.initial(tiny), 0, 4, REF).state();
        Step p = Core.place(s, 0);
        assertEquals(-1, ((Event.Place) p.event()).holder());
        assertTrue(p.state().request(0).placed());
        assertTrue(Invariants.all(p.state()).isEmpty());
    }

    @Test
    void baselinesPlaceOnTheRingOrNowhere() {
        ClusterState s = Core.arrive(ClusterState.initial(cfg("fixed-checkpointing")), 0, 4, REF).state();
        s = Core.arrive(s, 1, 4, REF).state();
        s = Core.arrive(s, 2, 4, REF).state();
        assertEquals(1, ((Event.Place) Core.place(s, 0).event()).holder());
        assertEquals(0, ((Event.Place) Core.place(s, 2).event()).holder(), "the ring wraps around");
        ClusterState sr = Core.arrive(ClusterState.initial(cfg("stop-and-restart")), 0, 4, REF).state();
        assertEquals(-1, ((Event.Place) Core.place(sr, 0).event()).holder());
        ClusterState np = Core.arrive(ClusterState.initial(cfg("lumen-no-placement")), 0, 4, REF).state();
        assertEquals(1, ((Event.Place) Core.place(np, 0).event()).holder());
    }

    @Test
    void ringSkipsADownNeighbourAndNeedsRoom() {
        ClusterState s = Core.arrive(ClusterState.initial(cfg("fixed-checkpointing")), 0, 4, REF).state();
        s = Core.fail(s, 1).state();
        assertEquals(2, ((Event.Place) Core.place(s, 0).event()).holder());
        Config tiny = new Config("fixed-checkpointing", 3, 1, 1, 5, 3, 9, 4, 3);
        ClusterState t = Core.arrive(ClusterState.initial(tiny), 0, 4, REF).state();
        assertEquals(-1, ((Event.Place) Core.place(t, 0).event()).holder());
    }

    @Test
    void prefillDeliversTheFirstTokenAndWritesTheContext() {
        ClusterState s = started("lumen");
        RequestRec r = s.request(0);
        assertEquals(RequestPhase.DECODE, r.phase());
        assertEquals(1, r.outLen());
        assertEquals(4, r.kv().length(), "the prompt's KV; the first token's own KV is written by the first decode step");
        assertEquals(r.kvLen(), r.kv().length());
        assertTrue(r.outOk());
        assertThrows(IllegalStateException.class, () -> Core.prefill(s, 0), "only a QUEUED request is prefilled");
    }

    @Test
    void prefillWaitsForThePlacementDecision() {
        ClusterState s = Core.arrive(ClusterState.initial(cfg("lumen")), 0, 4, REF).state();
        assertThrows(IllegalStateException.class, () -> Core.prefill(s, 0));
    }

    @Test
    void decodeAppendsOneTargetTokenOrAVerifiedDraft() {
        ClusterState s = started("lumen");
        Step d = Core.decode(s, 0);
        assertArrayEquals(new int[] {12}, ((Event.Decode) d.event()).tokens());
        assertEquals(5, d.state().request(0).kv().length(), "the decode step wrote the first token's KV");
        assertEquals(2, d.state().request(0).outLen());
        // with a draft: w2 assists after failing and restarting
        ClusterState t = Core.fail(d.state(), 2).state();
        t = Core.restart(t, 2).state();
        assertEquals(WorkerState.LOADING_DRAFT, t.worker(2).state());
        t = Core.draftReady(t, 2).state();
        assertEquals(ActiveModel.DRAFT, t.worker(2).active());
        assertEquals(0, Core.assistCandidate(t));
        ClusterState u = Core.assist(t, 2, 0, new int[] {13, 14, 99}).state();
        Step v = Core.decode(u, 0);
        assertArrayEquals(new int[] {13, 14, 15}, ((Event.Decode) v.event()).tokens(), "two agree, then the target's own");
        assertNull(v.state().request(0).proposal());
        ClusterState w = Core.assist(t, 2, 0, new int[] {99}).state();
        assertArrayEquals(new int[] {13}, ((Event.Decode) Core.decode(w, 0).event()).tokens(), "a wrong draft costs nothing");
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
        assertArrayEquals(new int[] {16}, ((Event.Decode) d.event()).tokens());
        assertEquals(6, d.state().request(0).outLen());
        Step c = Core.complete(d.state(), 0);
        assertEquals(RequestPhase.DONE, c.state().request(0).phase());
        assertThrows(IllegalStateException.class, () -> Core.decode(d.state(), 0));
    }

    @Test
    void streamPageAndCompleteFreeTheCheckpoint() {
        ClusterState s = started("lumen");
        Step st = Core.streamPage(s, 0, 3);
        assertEquals(3, st.state().request(0).ckpt().length());
        assertEquals(3, st.state().worker(1).stored());
        assertEquals(3.0, st.state().load(1));
        assertThrows(IllegalStateException.class, () -> Core.streamPage(st.state(), 0, 9), "only written positions stream");
        ClusterState done = st.state();
        for (int i = 0; i < 5; i++) {
            done = Core.decode(done, 0).state();
        }
        Step c = Core.complete(done, 0);
        assertEquals(new Event.Complete(0, 0, 3), c.event());
        assertEquals(-1, c.state().request(0).holder());
        assertEquals(0, c.state().worker(1).stored());
        assertEquals(0, c.state().worker(1).reserved());
        assertEquals(0, c.state().worker(0).queue());
        assertTrue(Invariants.all(c.state()).isEmpty());
    }

    @Test
    void failInterruptsTheQueueAndLosesHeldCheckpoints() {
        ClusterState s = started("lumen");
        s = Core.streamPage(s, 0, 2).state();
        s = Core.arrive(s, 1, 4, REF).state();
        s = Core.place(s, 1).state();
        assertEquals(2, s.request(1).holder());
        Step f = Core.fail(s, 1);
        Event.Fail e = (Event.Fail) f.event();
        assertArrayEquals(new int[] {1}, e.interrupted());
        assertArrayEquals(new int[] {0}, e.orphaned());
        RequestRec r0 = f.state().request(0);
        assertEquals(-1, r0.holder());
        assertTrue(r0.placed(), "its placement decision stands");
        assertTrue(f.state().needsProtection(r0), "a running request whose holder died is re-protected (w2 has room)");
        assertThrows(IllegalStateException.class, () -> Core.decode(f.state(), 0), "and not decoded before its new placement");
        assertEquals(new Event.Place(0, 2), Core.place(f.state(), 0).event());
        assertEquals(RequestPhase.INTERRUPTED, f.state().request(1).phase());
        assertEquals(1, f.state().failures());
        assertEquals(WorkerState.FAILED, f.state().worker(1).state());
        assertThrows(IllegalStateException.class, () -> Core.fail(f.state(), 1));
        assertTrue(Invariants.all(f.state()).isEmpty());
    }

    @Test
    void theLastUpWorkerDoesNotFail() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        s = Core.fail(Core.fail(s, 0).state(), 1).state();
        ClusterState t = s;
        assertThrows(IllegalStateException.class, () -> Core.fail(t, 2));
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
        assertEquals(new Event.Route(0, RouteMode.RESTORE, 1, 2, 2), r.event().withoutContent());
        assertEquals(2, r.state().request(0).kv().length());
        assertEquals(-1, r.state().request(0).holder());
        assertEquals(RequestPhase.QUEUED, r.state().request(0).phase());
        assertFalse(r.state().request(0).placed());
        // after the restore, the prefill recomputes the lagging positions only
        ClusterState t = Core.place(r.state(), 0).state();
        Step p = Core.prefill(t, 0);
        assertArrayEquals(new int[0], ((Event.Prefill) p.event()).tokens());
        assertEquals(p.state().request(0).kvLen(), p.state().request(0).kv().length());
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
        assertEquals(RouteMode.RESTORE, ((Event.Route) Core.route(a, 0).event()).mode());
        // |C_r| = 4 > tau, L(h) = 4 > theta: restore (long prefix)
        ClusterState b = Core.fail(Core.streamPage(s, 0, 4).state(), 0).state();
        assertEquals(RouteMode.RESTORE, ((Event.Route) Core.route(b, 0).event()).mode());
        // a loaded holder (theta 0) with a short prefix (tau 10): re-prefill on the least loaded survivor
        Config c2 = new Config("lumen", 3, 1, 1, 0, 10, 40, 4, 3);
        ClusterState t = Core.prefill(Core.place(Core.arrive(ClusterState.initial(c2), 0, 4, REF).state(), 0).state(), 0).state();
        t = Core.fail(Core.streamPage(t, 0, 2).state(), 0).state();
        Step r = Core.route(t, 0);
        assertEquals(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 2), r.event().withoutContent());
        assertEquals(0, r.state().worker(1).stored(), "the checkpoint is freed");
        assertEquals(0, r.state().request(0).kv().length());
    }

    @Test
    void policiesRouteTheirOwnWay() {
        ClusterState fc = interrupted("fixed-checkpointing", 1, 0);
        assertEquals(RouteMode.RESTORE, ((Event.Route) Core.route(fc, 0).event()).mode());
        ClusterState sr = interrupted("stop-and-restart", 0, 0);
        assertEquals(RouteMode.REPREFILL, ((Event.Route) Core.route(sr, 0).event()).mode());
        ClusterState nr = interrupted("lumen-no-routing", 1, 0);
        assertEquals(RouteMode.RESTORE, ((Event.Route) Core.route(nr, 0).event()).mode());
        ClusterState noCkpt = interrupted("lumen", 0, 0);
        assertEquals(RouteMode.RESTORE, ((Event.Route) Core.route(noCkpt, 0).event()).mode(), "an empty checkpoint on a light holder restores");
        assertThrows(IllegalStateException.class, () -> Core.route(started("lumen"), 0));
    }

    @Test
    void restartDependsOnThePolicyAndHandoverIsAtomic() {
        for (String p : Policies.keys()) {
            ClusterState s = Core.restart(Core.fail(ClusterState.initial(cfg(p)), 1).state(), 1).state();
            WorkerState want = p.equals("lumen") || p.equals("lumen-dual") || p.equals("lumen-no-placement") || p.equals("lumen-no-routing")
                    || p.equals("lumen-assist-only") ? WorkerState.LOADING_DRAFT : WorkerState.LOADING_FULL;
            assertEquals(want, s.worker(1).state(), p);
            assertEquals(want == WorkerState.LOADING_DRAFT, s.policy().restartState() == WorkerState.LOADING_DRAFT);
        }
        ClusterState s = started("lumen");
        s = Core.draftReady(Core.restart(Core.fail(s, 2).state(), 2).state(), 2).state();
        s = Core.assist(s, 2, 0, new int[] {1}).state();
        Step h = Core.fullReady(s, 2);
        assertArrayEquals(new int[] {0}, ((Event.FullReady) h.event()).dropped());
        assertNull(h.state().request(0).proposal());
        assertEquals(WorkerState.UP, h.state().worker(2).state());
        assertEquals(ActiveModel.FULL, h.state().worker(2).active());
        assertEquals(0.0, h.state().load(2), "rejoins with L = 0");
        ClusterState noAssist = Core.restart(Core.fail(ClusterState.initial(cfg("lumen-no-assist")), 1).state(), 1).state();
        assertThrows(IllegalStateException.class, () -> Core.draftReady(noAssist, 1));
        assertEquals(WorkerState.UP, Core.fullReady(noAssist, 1).state().worker(1).state());
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
        int cand = Core.assistCandidate(t);
        assertEquals(top, t.request(cand).server());
        int other = cand == 0 ? 1 : 0;
        if (t.load(t.request(other).server()) < t.load(top)) {
            ClusterState u = t;
            assertThrows(IllegalStateException.class, () -> Core.assist(u, 2, other, new int[] {1}), "not on a most loaded worker");
        }
        assertEquals(-1, Core.assistCandidate(ClusterState.initial(cfg("lumen"))));
    }

    @Test
    void lumenDualPlacesABackupThatTakesOverWhenTheHolderFails() {
        Config c = new Config("lumen-dual", 4, 1, 1, 50, 3, 40, 4, 3);
        ClusterState s = Core.arrive(ClusterState.initial(c), 0, 4, REF).state();
        Step p = Core.place(s, 0);
        assertEquals(new Event.Place(0, 1, 2), p.event(), "holder w1, backup w2: the two least loaded others, lowest ids");
        assertEquals(10, p.state().worker(2).reserved());
        s = Core.prefill(p.state(), 0).state();
        s = Core.streamPage(s, 0, 4).state();
        s = Core.streamBackupPage(s, 0, 2).state();
        assertEquals(2, s.request(0).bckpt().length());
        assertEquals(2, s.worker(2).stored());
        assertEquals(6.0, s.load(1) + s.load(2));
        // the holder fails: the backup takes over with its own (shorter) copy
        Step f = Core.fail(s, 1);
        assertArrayEquals(new int[] {0}, ((Event.Fail) f.event()).promoted());
        RequestRec r = f.state().request(0);
        assertEquals(2, r.holder());
        assertEquals(2, r.ckpt().length());
        assertEquals(-1, r.backup());
        assertTrue(r.placed(), "still protected: no new placement needed");
        assertTrue(Invariants.all(f.state()).isEmpty(), () -> Invariants.all(f.state()).toString());
        // the server fails too: the request restores from the promoted copy
        Step g = Core.fail(f.state(), 0);
        Step rt = Core.route(g.state(), 0);
        assertEquals(new Event.Route(0, RouteMode.RESTORE, 2, 2, 2), rt.event().withoutContent());
        assertTrue(Invariants.all(rt.state()).isEmpty());
    }

    @Test
    void lumenDualLosingTheBackupKeepsTheHolderAndCompleteFreesBoth() {
        Config c = new Config("lumen-dual", 4, 1, 1, 50, 3, 40, 4, 3);
        ClusterState s = Core.prefill(Core.place(Core.arrive(ClusterState.initial(c), 0, 4, REF).state(), 0).state(), 0).state();
        s = Core.streamBackupPage(Core.streamPage(s, 0, 3).state(), 0, 3).state();
        Step f = Core.fail(s, 2);
        assertArrayEquals(new int[0], ((Event.Fail) f.event()).promoted());
        assertArrayEquals(new int[] {0}, ((Event.Fail) f.event()).orphaned());
        assertEquals(1, f.state().request(0).holder());
        assertEquals(-1, f.state().request(0).backup());
        ClusterState t = s;
        for (int i = 0; i < 5; i++) {
            t = Core.decode(t, 0).state();
        }
        Step done = Core.complete(t, 0);
        assertEquals(6, ((Event.Complete) done.event()).freed(), "both copies of 3 positions");
        assertEquals(0, done.state().worker(1).stored() + done.state().worker(2).stored());
        assertEquals(0, done.state().worker(1).reserved() + done.state().worker(2).reserved());
        ClusterState noBackup = Core.arrive(ClusterState.initial(c), 0, 4, REF).state();
        assertThrows(IllegalStateException.class, () -> Core.streamBackupPage(noBackup, 0, 1));
        // with room for one copy only, the request has a holder and no backup
        Config tight = new Config("lumen-dual", 3, 1, 1, 50, 3, 10, 4, 3);
        ClusterState u = Core.arrive(ClusterState.initial(tight), 0, 4, REF).state();
        u = Core.arrive(u, 1, 4, REF).state();
        u = Core.place(u, 0).state();
        assertEquals(new Event.Place(1, 0, -1), Core.place(u, 1).event());
    }

    @Test
    void unknownRequestsAreRefused() {
        ClusterState s = ClusterState.initial(cfg("lumen"));
        assertThrows(IllegalStateException.class, () -> Core.place(s, 4));
    }
}
