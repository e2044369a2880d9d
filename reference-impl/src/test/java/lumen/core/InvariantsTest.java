package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each Java invariant check fails on a state with its seeded bug, and only the full-state check
 * and the per-entity check agree on it. States with bugs are built by applying wrong events with
 * the permissive {@link Transition}, as a buggy implementation would report them.
 */
class InvariantsTest {
    static final int[] REF = {11, 12, 13, 14};

    static ClusterState running() {
        return Core.streamPage(prefilled(), 0, 3).state();
    }

    static ClusterState prefilled() {
        ClusterState s = ClusterState.initial(new Config("lumen", 3, 1, 1, 5, 3, 16, 4, 3));
        s = Core.arrive(s, 0, 4, REF).state();
        s = Core.place(s, 0).state();
        return Core.prefill(s, 0).state();
    }

    static void broken(PropertyId p, ClusterState s) {
        List<Finding> all = Invariants.all(s);
        assertThat(all).as(p + " must be found").isNotEmpty();
        assertThat(all).as(() -> p + " not in " + all).anyMatch(f -> f.property() == p);
    }

    @Test
    void theHonestStateHasNoViolation() {
        assertThat(Invariants.all(running())).isEqualTo(List.of());
    }

    @Test
    void s1() {
        broken(PropertyId.S1, Transition.apply(running(), new Event.Complete(0, 0, 3)));
        RequestRec r = running().request(0);
        assertThat(Invariants.s1(running(), r.withServer(-1))).isNotNull();
        assertThat(Invariants.s1(running(), r.withPhase(RequestPhase.INTERRUPTED))).isNotNull();
        assertThat(Invariants.s1(running(), r.withPhase(RequestPhase.DONE))).isNotNull();
        assertThat(Invariants.s1(running(), r)).isNull();
    }

    @Test
    void s2ScansTheRunQueues() {
        ClusterState s = running();
        s = s.withWorker(s.worker(2).enqueue(0));
        broken(PropertyId.S2, s);
        assertThat(Invariants.s2(running(), 0)).isNull();
    }

    @Test
    void s3() {
        ClusterState down = Core.fail(running(), 0).state();
        broken(PropertyId.S3, Transition.apply(down, new Event.Route(0, RouteMode.REPREFILL, 0, 0, 3)));
    }

    @Test
    void s8ACheckpointLeftBehindByARoute() {
        ClusterState down = Core.fail(running(), 0).state();
        broken(PropertyId.S8, Transition.apply(down, new Event.Route(0, RouteMode.REPREFILL, 2, 0, 0)));
    }

    @Test
    void s15CountersThatDriftFromTheSums() {
        ClusterState s = running();
        broken(PropertyId.S15, s.withWorker(s.worker(1).addStored(1)));
        broken(PropertyId.S15, s.withWorker(s.worker(1).release(0, 1, 0)));
    }

    @Test
    void s4() {
        ClusterState s = running();
        broken(PropertyId.S4, s.withRequest(s.request(0).withHolder(0, s.request(0).ckpt())));
    }

    @Test
    void s5() {
        ClusterState s = running();
        broken(PropertyId.S5, s.withWorker(s.worker(1).addStored(20)));
        assertThat(Invariants.s5(s.withWorker(s.worker(1).addStored(20)), 1).expected()).isEqualTo("<= 16");
        assertThat(Invariants.s5(s.withWorker(s.worker(1).addStored(13)), 1)).as("exactly the budget is allowed").isNull();
    }

    @Test
    void s6() {
        broken(PropertyId.S6, Transition.apply(running(), new Event.StreamPage(0, 1, 7)));
        ClusterState s = running();
        broken(PropertyId.S6, s.withRequest(s.request(0).withHolder(1, PageSeq.intact(9))));
    }

    @Test
    void s7() {
        broken(PropertyId.S7, Transition.apply(running(), new Event.Decode(0, 0, new int[] {99})));
        broken(PropertyId.S7, Transition.apply(running(), new Event.Decode(0, 0, new int[] {12, 13, 14, 15})));
    }

    @Test
    void s8() {
        ClusterState s = running();
        broken(PropertyId.S8, s.withRequest(s.request(0).withHolder(-1, PageSeq.intact(2))));
        broken(PropertyId.S8, Transition.apply(s, new Event.Fail(1, new int[0], new int[0])));
        ClusterState done = s;
        for (int i = 0; i < 3; i++) {
            done = Core.decode(done, 0).state();
        }
        broken(PropertyId.S8, Transition.apply(done, new Event.Complete(0, 0, 1)));
    }

    @Test
    void s9() {
        ClusterState s = Core.fail(running(), 0).state();
        broken(PropertyId.S9, Transition.apply(s, new Event.Route(0, RouteMode.RESTORE, 1, 6, 3)));
        ClusterState t = running();
        broken(PropertyId.S9, t.withRequest(t.request(0).withKv(PageSeq.intact(9))));
    }

    @Test
    void s10() {
        ClusterState s = Core.restart(Core.fail(running(), 2).state(), 2).state();
        s = Core.fail(s, 0).state();
        broken(PropertyId.S10, Transition.apply(s, new Event.Route(0, RouteMode.REPREFILL, 2, 0, 3)));
    }

    @Test
    void s11() {
        ClusterState s = Core.draftReady(Core.restart(Core.fail(prefilled(), 2).state(), 2).state(), 2).state();
        s = Core.assist(s, 2, 0, new int[] {12}).state();
        broken(PropertyId.S11, Transition.apply(s, new Event.FullReady(2, new int[0])));
        ClusterState t = running();
        broken(PropertyId.S11, t.withWorker(t.worker(2).withState(WorkerState.UP, ActiveModel.DRAFT)));
    }

    @Test
    void s17() {
        ClusterState s = Core.draftReady(Core.restart(Core.fail(prefilled(), 2).state(), 2).state(), 2).state();
        s = Core.assist(s, 2, 0, new int[] {12}).state();
        assertThat(s.request(0).proposal().tgt()).isEqualTo(s.request(0).server());
        assertThat(Invariants.all(s)).isEqualTo(List.of());
        // a failure of the draft's target that kept the draft of the request it interrupts
        ClusterState failed = Core.fail(s, s.request(0).server()).state();
        assertThat(failed.request(0).proposal()).as("Fail drops the drafts of the requests it interrupts").isNull();
        broken(PropertyId.S17, failed.withRequest(failed.request(0).withProposal(s.request(0).proposal())));
        // a draft aimed at another server than the request's
        RequestRec r = s.request(0);
        broken(PropertyId.S17, s.withRequest(r.withProposal(new RequestRec.Proposal(2, r.server() == 0 ? 1 : 0, new int[] {12}))));
    }

    @Test
    void touchedChecksFindWhatTheFullCheckFinds() {
        ClusterState pre = running();
        Event bad = new Event.Fail(1, new int[0], new int[0]);
        List<Finding> touched = Invariants.touched(pre, Transition.apply(pre, bad), bad);
        assertThat(touched).as(touched::toString).anyMatch(f -> f.property() == PropertyId.S8);
        Event ok = new Event.Fail(1, new int[0], new int[] {0});
        assertThat(Invariants.touched(pre, Transition.apply(pre, ok), ok)).isEqualTo(List.of());
    }

    @Test
    void aDecodeStepBreaksOnlyWhatAfterDecodeStepChecks() {
        // every Decode of random walks under every policy: a step of the spec from a state where every
        // invariant holds; the whole touched check finds exactly what the Decode footprint finds
        int decodes = 0;
        for (String policy : Policies.keys()) {
            for (long seed = 0; seed < 15; seed++) {
                Config cfg = new Config(policy, 2 + (int) (seed % 4), 1, 1, 3, 2, 8 + seed % 20, 4, 3);
                RandomWalk walk = new RandomWalk(cfg, seed, 6, 3);
                ClusterState[] pre = {walk.state};
                for (int i = 0; i < 300 && walk.step(st -> { }); i++) {
                    Event e = walk.events.get(walk.events.size() - 1);
                    if (e instanceof Event.Decode d && SpecStep.check(pre[0], e) == null) {
                        ClusterState post = Transition.apply(pre[0], e);
                        assertThat(Invariants.afterDecodeStep(post, d.req())).isEqualTo(Invariants.touched(pre[0], post, e));
                        // the same step delivering a wrong token: S7 in both
                        Event.Decode wrong = new Event.Decode(d.req(), d.worker(), new int[] {-7});
                        ClusterState bad = Transition.apply(pre[0], wrong);
                        assertThat(Invariants.afterDecodeStep(bad, d.req())).isEqualTo(Invariants.touched(pre[0], bad, wrong));
                        decodes++;
                    }
                    pre[0] = walk.state;
                }
            }
        }
        assertThat(decodes).isGreaterThan(500);
    }
}
