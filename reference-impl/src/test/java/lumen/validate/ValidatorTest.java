package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Core;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.PropertyId;
import lumen.core.Readings;
import lumen.core.RouteMode;
import lumen.core.Step;
import lumen.trace.TraceWriter;
import org.junit.jupiter.api.Test;

/**
 * The validator rejects a seeded bug of every property that can be a trace's first divergence,
 * names that property, and points at the line; it accepts the honest prefix. Malformed input
 * gets a located error.
 */
class ValidatorTest {
    static final int[] REF = {11, 12, 13, 14, 15, 16};

    /** Builds a trace with the core, then appends the bad event built from the final state. */
    static final class Trace {
        final Config cfg;
        ClusterState s;
        final List<Event> events = new ArrayList<>();

        Trace(Config cfg) {
            this.cfg = cfg;
            this.s = ClusterState.initial(cfg);
        }

        Trace step(Function<ClusterState, Step> f) {
            Step st = f.apply(s);
            s = st.state();
            events.add(st.event());
            return this;
        }

        byte[] bytes(Event... extra) throws Exception {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            try (TraceWriter w = new TraceWriter(b, cfg)) {
                for (Event e : events) {
                    w.write(e, 1.5);
                }
                for (Event e : extra) {
                    w.write(Core.withSyntheticContent(s, e));
                }
            }
            return b.toByteArray();
        }

        ValidationResult validate(Event... extra) throws Exception {
            return Validator.validate(new ByteArrayInputStream(bytes(extra)), "t.jsonl");
        }
    }

    static Config cfg() {
        // one position per page: a copy may stop at any position (it takes pages as the server wrote them)
        return new Config("lumen", 3, 1, 1, 5, 3, 40, 1, 3);
    }

    /** r0 arrived on w0, placed on w1, prefilled, decoded twice, 3 positions streamed. */
    static Trace running() {
        return decoding().step(s -> Core.streamPage(s, 0, 3));
    }

    /** r0 arrived on w0, placed on w1, prefilled, decoded twice; nothing streamed, so w0 is most loaded. */
    static Trace decoding() {
        return new Trace(cfg()).step(s -> Core.arrive(s, 0, 4, REF)).step(s -> Core.place(s, 0))
                .step(s -> Core.prefill(s, 0)).step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0));
    }

    static void rejectedBy(PropertyId p, ValidationResult r, long line) {
        assertThat(r.verdict()).as(() -> String.valueOf(r.error())).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().finding().property()).as(() -> r.divergence().toString()).isEqualTo(p);
        assertThat(r.divergence().line()).isEqualTo(line);
        assertThat(r.divergence().state()).isNotBlank();
        String text = ValidationReport.text(r);
        assertThat(text).contains("REJECTED by " + p.label());
        assertThat(text).contains("t.jsonl:" + line);
    }

    @Test
    void acceptsTheHonestTrace() throws Exception {
        Trace t = running();
        for (int i = 0; i < 3; i++) {
            t.step(s -> Core.decode(s, 0));
        }
        t.step(s -> Core.complete(s, 0)).step(s -> Core.fail(s, 1)).step(s -> Core.restart(s, 1))
                .step(s -> Core.draftReady(s, 1)).step(s -> Core.fullReady(s, 1));
        ValidationResult r = t.validate();
        assertThat(r.verdict()).as(() -> String.valueOf(r.divergence())).isEqualTo(Verdict.ACCEPTED);
        assertThat(r.events()).isEqualTo(t.events.size());
        assertThat(r.done()).isEqualTo(1);
        assertThat(r.open()).isEqualTo(0);
        assertThat(r.byType().get("Arrive")).isEqualTo(1L);
        assertThat(ValidationReport.text(r)).contains("ACCEPTED");
        assertThat(ValidationReport.json(r).get("verdict")).isEqualTo("ACCEPTED");
    }

    @Test
    void s1CompleteBeforeTheOutputIsWhole() throws Exception {
        rejectedBy(PropertyId.S1, running().validate(new Event.Complete(0, 0, 3)), 8);
    }

    @Test
    void s2ARequestQueuedTwice() throws Exception {
        rejectedBy(PropertyId.S2, running().validate(new Event.Arrive(0, 2, 4, REF)), 8);
        rejectedBy(PropertyId.S2, running().validate(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 0)), 8);
    }

    @Test
    void s1AFailThatLeavesAQueuedRequestOut() throws Exception {
        // the failed worker's queue is gone whatever the event lists: the request it leaves out is lost
        rejectedBy(PropertyId.S1, running().validate(new Event.Fail(0, new int[0], new int[0])), 8);
    }

    @Test
    void s3ARouteToAFailedWorker() throws Exception {
        Trace t = running().step(s -> Core.fail(s, 0));
        rejectedBy(PropertyId.S3, t.validate(new Event.Route(0, RouteMode.REPREFILL, 0, 0, t.s.request(0).savedPositions())), 9);
    }

    @Test
    void s4HolderIsTheServer() throws Exception {
        Trace t = new Trace(cfg()).step(s -> Core.arrive(s, 0, 4, REF));
        rejectedBy(PropertyId.S4, t.validate(new Event.Place(0, 0)), 3);
    }

    @Test
    void s6StreamingPagesNotYetWritten() throws Exception {
        rejectedBy(PropertyId.S6, running().validate(new Event.StreamPage(0, 1, 9)), 8);
    }

    @Test
    void s7ATokenThatIsNotTheReference() throws Exception {
        rejectedBy(PropertyId.S7, running().validate(new Event.Decode(0, 0, new int[] {99})), 8);
        // accepting an unverified draft token: the draft says 14 where the target says 14? no: 77
        Trace t = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.assist(s, 2, 0, new int[] {14, 77}));
        rejectedBy(PropertyId.S7, t.validate(new Event.Decode(0, 0, new int[] {14, 77})), 11);
    }

    @Test
    void s8ALeakedCheckpoint() throws Exception {
        Trace t = running();
        for (int i = 0; i < 3; i++) {
            t.step(s -> Core.decode(s, 0));
        }
        rejectedBy(PropertyId.S8, t.validate(new Event.Complete(0, 0, 0)), 11);
        rejectedBy(PropertyId.S8, running().validate(new Event.Fail(1, new int[0], new int[0])), 8);
    }

    @Test
    void s9ResumingPastTheCheckpoint() throws Exception {
        // positions 4 and 5 were never saved: the bytes the server resumes with there are not r's (digest 0)
        Trace t = running().step(s -> Core.fail(s, 0));
        PageDigest[] pages = PageDigest.synthetic(0, 1, 5, 1);
        pages[3] = new PageDigest(4, 1, 0);
        pages[4] = new PageDigest(5, 1, 0);
        rejectedBy(PropertyId.S9, t.validate(new Event.Route(0, RouteMode.RESTORE, 1, 5, 3, pages)), 9);
    }

    @Test
    void s13ResumingPastTheCheckpointWithBytesFromElsewhere() throws Exception {
        // positions 4 and 5 hold what the failed server wrote, but the holder never received them:
        // the request's own KV, read from somewhere other than its holder's memory
        Trace t = running().step(s -> Core.fail(s, 0));
        rejectedBy(PropertyId.S13, t.validate(new Event.Route(0, RouteMode.RESTORE, 1, 5, 3)), 9);
    }

    @Test
    void s10ServingBeforeTheFullModel() throws Exception {
        Trace t = running().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.fail(s, 0));
        rejectedBy(PropertyId.S10, t.validate(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 3)), 11);
    }

    @Test
    void s11TwoModelsOrAnOrphanDraft() throws Exception {
        Trace t = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.assist(s, 2, 0, new int[] {14}));
        rejectedBy(PropertyId.S11, t.validate(new Event.FullReady(2, new int[0])), 11);
    }

    @Test
    void a1APlacementThatIsNotTheArgMin() throws Exception {
        Trace t = new Trace(cfg()).step(s -> Core.arrive(s, 0, 4, REF)).step(s -> Core.arrive(s, 1, 4, REF));
        // w1 serves r1 (L=1), w2 is idle (L=0): placing r0 on w1 is not the argmin
        rejectedBy(PropertyId.A1, t.validate(new Event.Place(0, 1)), 4);
        // running unprotected while a holder has room
        rejectedBy(PropertyId.A1, t.validate(new Event.Place(0, -1)), 4);
    }

    @Test
    void a2AnInvertedTau() throws Exception {
        // |C_r| = 3 = tau, L(h) = 3 <= theta 5: Eq. 6 restores; a re-prefill breaks A2
        Trace t = running().step(s -> Core.fail(s, 0));
        rejectedBy(PropertyId.A2, t.validate(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 3)), 9);
    }

    @Test
    void a2AReprefillMustGoToALeastLoadedSurvivorFromNothing() throws Exception {
        // a loaded holder (theta 0) and a short prefix (tau 10): Eq. 6 re-prefills on w2 (L=0)
        Config c = new Config("lumen", 3, 1, 1, 0, 10, 40, 1, 3);
        Trace t = new Trace(c).step(s -> Core.arrive(s, 0, 4, REF)).step(s -> Core.place(s, 0)).step(s -> Core.prefill(s, 0))
                .step(s -> Core.streamPage(s, 0, 2)).step(s -> Core.fail(s, 0));
        assertThat(t.validate(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 2)).verdict()).isEqualTo(Verdict.ACCEPTED);
        rejectedBy(PropertyId.A2, t.validate(new Event.Route(0, RouteMode.REPREFILL, 1, 0, 2)), 7);
        rejectedBy(PropertyId.A2, t.validate(new Event.Route(0, RouteMode.RESTORE, 1, 2, 2)), 7);
        ValidationResult nonEmpty = t.validate(new Event.Route(0, RouteMode.REPREFILL, 2, 1, 2));
        assertThat(nonEmpty.verdict()).isEqualTo(Verdict.REJECTED);
        // a re-prefill that frees only part of the checkpoint leaves it behind: S8, as the request moved on
        rejectedBy(PropertyId.S8, t.validate(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 1)), 7);
        assertThat(((java.util.Map<?, ?>) ValidationReport.json(t.validate(new Event.Route(0, RouteMode.REPREFILL, 1, 0, 2)))
                .get("divergence")).get("property")).isEqualTo("A2");
    }

    /** r0 on w0 under {@code policy}, placed, prefilled and decoded once (its client has 11, 12), then w0 fails. */
    static Trace interruptedWithOutput(String policy) {
        return new Trace(new Config(policy, 3, 1, 1, 5, 3, 40, 1, 3)).step(s -> Core.arrive(s, 0, 4, REF)).step(s -> Core.place(s, 0))
                .step(s -> Core.prefill(s, 0)).step(s -> Core.decode(s, 0)).step(s -> Core.fail(s, 0));
    }

    @Test
    void s16TokensSentAgain() throws Exception {
        // a re-prefill whose prefill sends the first token again: the client already has 11 and 12
        Trace t = interruptedWithOutput("stop-and-restart").step(s -> Core.route(s, 0)).step(s -> Core.place(s, 0));
        assertThat(t.validate(new Event.Prefill(0, 1, new int[0])).verdict()).isEqualTo(Verdict.ACCEPTED);
        ValidationResult again = t.validate(new Event.Prefill(0, 1, new int[] {11}));
        rejectedBy(PropertyId.S16, again, 9);
        assertThat(again.divergence().finding().message()).contains("sends again output tokens 1..1").contains("it has tokens 1..2");
        // the S7 its repeated token also makes is reported beside it
        assertThat(again.divergence().others()).anyMatch(f -> f.property() == PropertyId.S7);
        // a decode that repeats the last two tokens instead of delivering the next one
        t.step(s -> Core.prefill(s, 0));
        rejectedBy(PropertyId.S16, t.validate(new Event.Decode(0, 1, new int[] {11, 12})), 10);
        // a wrong token that repeats nothing is S7, not S16
        rejectedBy(PropertyId.S7, t.validate(new Event.Decode(0, 1, new int[] {99})), 10);
    }

    @Test
    void s17ADraftVerifiedWhereNoneIsInFlight() throws Exception {
        // two tokens at once, the reference's next ones, with no draft in flight for r0 on w0
        ValidationResult r = decoding().validate(new Event.Decode(0, 0, new int[] {14, 15}));
        rejectedBy(PropertyId.S17, r, 7);
        assertThat(r.divergence().finding().message()).contains("no draft is in flight for it there");
        // the same two tokens after an Assist in flight are a verified draft
        Trace t = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.assist(s, 2, 0, new int[] {14}));
        assertThat(t.validate(new Event.Decode(0, 0, new int[] {14, 15})).verdict()).isEqualTo(Verdict.ACCEPTED);
    }

    @Test
    void l4AHandoverWithoutADraft() throws Exception {
        // w2 assists with its draft loaded; r0 decodes on w0, the most loaded survivor, and w2 proposes nothing
        Trace t = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0));
        // two opportunities let pass (the target's iteration in flight when the draft model was ready,
        // and the one it drafted during) are a draft not yet delivered: the handover is accepted
        assertThat(t.validate(new Event.FullReady(2, new int[0])).verdict()).isEqualTo(Verdict.ACCEPTED);
        t.step(s -> Core.decode(s, 0));
        ValidationResult r = t.validate(new Event.FullReady(2, new int[0]));
        rejectedBy(PropertyId.L4, r, 13);
        assertThat(r.divergence().finding().message()).contains("hands over (FullReady) without having proposed a draft")
                .contains("request 0 at 3 consecutive decode steps of it");
        // two recovering workers on one target share its request: while w1 drafts for r0, w2's missed steps on it are excused
        Trace two = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.fail(s, 1)).step(s -> Core.restart(s, 1)).step(s -> Core.draftReady(s, 1))
                .step(s -> Core.decode(s, 0)).step(s -> Core.assist(s, 1, 0, new int[] {99})).step(s -> Core.decode(s, 0))
                .step(s -> Core.decode(s, 0));
        assertThat(two.validate(new Event.FullReady(2, new int[0])).verdict()).as("w2's steps on r0 are excused").isEqualTo(Verdict.ACCEPTED);
        Trace alone = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.fail(s, 1)).step(s -> Core.restart(s, 1)).step(s -> Core.draftReady(s, 1))
                .step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0));
        rejectedBy(PropertyId.L4, alone.validate(new Event.FullReady(2, new int[0])), 16);
        // a worker that proposed once in its stint has assisted
        Trace proposed = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.assist(s, 2, 0, new int[] {14})).step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0));
        assertThat(proposed.validate(new Event.FullReady(2, new int[0])).verdict()).isEqualTo(Verdict.ACCEPTED);
    }

    @Test
    void l3ACompletionWhoseCheckpointNeverCaughtUp() throws Exception {
        // r0's checkpoint on w1 lags a page (one position here) across all five of its decode steps: a short
        // decode, far below the fairness bound, and the completion's own bound (4) catches it
        Trace never = decoding().step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0));
        ValidationResult r = never.validate(new Event.Complete(0, 0, 0));
        rejectedBy(PropertyId.L3, r, 10);
        assertThat(r.divergence().finding().message()).contains("completes with its checkpoint a page or more behind its KV across its last 5");
        // one StreamPage in between resets the count: two lagging steps since are within the bound
        Trace streamed = decoding().step(s -> Core.decode(s, 0)).step(s -> Core.streamPage(s, 0, 5)).step(s -> Core.decode(s, 0))
                .step(s -> Core.decode(s, 0));
        assertThat(streamed.validate(new Event.Complete(0, 0, 5)).verdict()).isEqualTo(Verdict.ACCEPTED);
    }

    /**
     * A server streams one page at a time: while it streams another request's pages between a
     * request's decode steps, those steps are not streaming failing to act, and the request may
     * complete behind them (after a recovery many requests get a holder at once). A server that
     * streams nothing at all between them is still caught.
     */
    @Test
    void l3AServerBusyStreamingOtherPagesIsNotIdle() throws Exception {
        Config two = new Config("lumen", 2, 1, 1, 5, 3, 40, 1, 3);
        java.util.function.Supplier<Trace> start = () -> new Trace(two)
                .step(s -> Core.arrive(s, 0, 4, REF)).step(s -> Core.place(s, 0)).step(s -> Core.prefill(s, 0))
                .step(s -> Core.arrive(s, 1, 4, REF)).step(s -> Core.place(s, 1)).step(s -> Core.prefill(s, 1))
                .step(s -> Core.arrive(s, 2, 4, REF)).step(s -> Core.place(s, 2)).step(s -> Core.prefill(s, 2));
        Trace busy = start.get();
        assertThat(busy.s.request(0).server()).isEqualTo(0);
        assertThat(busy.s.request(2).server()).as("requests 0 and 2 share server 0").isEqualTo(0);
        assertThat(busy.s.request(0).holder()).isEqualTo(1);
        assertThat(busy.s.request(2).holder()).isEqualTo(1);
        busy.step(s -> Core.decode(s, 0));
        for (int page = 1; page <= 4; page++) {
            int upTo = page;
            busy.step(s -> Core.streamPage(s, 2, upTo)).step(s -> Core.decode(s, 0));
        }
        assertThat(busy.validate(new Event.Complete(0, 0, 0)).verdict()).as("r0 completes behind r2's pages").isEqualTo(Verdict.ACCEPTED);
        // the same decode steps with the server's stream idle: the completion's bound catches it
        Trace idle = start.get();
        for (int i = 0; i < 5; i++) {
            idle.step(s -> Core.decode(s, 0));
        }
        rejectedBy(PropertyId.L3, idle.validate(new Event.Complete(0, 0, 0)), 16);
    }

    @Test
    void a4AFixedCheckpointingThatPlacesLikeLumen() throws Exception {
        Trace t = new Trace(new Config("fixed-checkpointing", 3, 1, 1, 5, 3, 40, 1, 3)).step(s -> Core.arrive(s, 0, 4, REF));
        assertThat(t.validate(new Event.Place(0, 1)).verdict()).isEqualTo(Verdict.ACCEPTED);
        ValidationResult r = t.validate(new Event.Place(0, 2));
        rejectedBy(PropertyId.A4, r, 3);
        assertThat(r.divergence().finding().message()).contains("the first UP worker after its server 0 on the fixed ring");
        // Stop-and-Restart places nothing
        Trace sr = new Trace(new Config("stop-and-restart", 3, 1, 1, 5, 3, 40, 1, 3)).step(s -> Core.arrive(s, 0, 4, REF));
        rejectedBy(PropertyId.A4, sr.validate(new Event.Place(0, 1)), 3);
    }

    @Test
    void a6AGatewayThatDoesNotJoinTheShortestQueue() throws Exception {
        Config c = new Config("lumen", 3, 1, 1, 5, 3, 40, 1, 3);
        // request 0 is queued on worker 0; request 1 must go to a worker with Q_w=0, not to worker 0
        Trace t = new Trace(c).step(s -> Core.arrive(s, 0, 4, REF));
        assertThat(t.validate(new Event.Arrive(1, 1, 4, REF)).verdict()).isEqualTo(Verdict.ACCEPTED);
        ValidationResult r = t.validate(new Event.Arrive(1, 0, 4, REF));
        rejectedBy(PropertyId.A6, r, 3);
        assertThat(r.divergence().finding().message()).contains("shortest queue").contains("arrival=shortest");
        assertThat(r.divergence().finding().actual()).isEqualTo("worker 0 with Q_w=1");
        // under arrival=any the gateway's rule is its own: the same step is one of the spec's
        Trace any = new Trace(c.withReadings(Readings.DEFAULT.with("arrival", "any"))).step(s -> Core.arrive(s, 0, 4, REF));
        assertThat(any.validate(new Event.Arrive(1, 0, 4, REF)).verdict()).isEqualTo(Verdict.ACCEPTED);
        // but a request queued on a worker that is not UP is S3 under either reading
        Trace down = new Trace(c.withReadings(Readings.DEFAULT.with("arrival", "any"))).step(s -> Core.fail(s, 2));
        rejectedBy(PropertyId.S3, down.validate(new Event.Arrive(0, 2, 4, REF)), 3);
    }

    @Test
    void a5ABaselineThatDoesNotRouteByItsRule() throws Exception {
        // FC restores on its live holder w1 whatever its load: a re-prefill is A5
        Trace fc = interruptedWithOutput("fixed-checkpointing");
        assertThat(fc.validate(new Event.Route(0, RouteMode.RESTORE, 1, 0, 0)).verdict()).isEqualTo(Verdict.ACCEPTED);
        rejectedBy(PropertyId.A5, fc.validate(new Event.Route(0, RouteMode.REPREFILL, 2, 0, 0)), 7);
        // Stop-and-Restart never restores
        Trace sr = interruptedWithOutput("stop-and-restart");
        rejectedBy(PropertyId.A5, sr.validate(new Event.Route(0, RouteMode.RESTORE, 1, 0, 0)), 7);
    }

    @Test
    void a3ADraftForARequestOnNoUpWorker() throws Exception {
        Trace t = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.fail(s, 0));
        ValidationResult r = t.validate(new Event.Assist(2, 0, new int[] {14}));
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().others().stream().anyMatch(f -> f.property() == PropertyId.A3)
                || r.divergence().finding().property() == PropertyId.A3).as(r.divergence()::toString).isTrue();
    }

    @Test
    void citedLoadsMustBeTheDerivedLoads() throws Exception {
        String header = HEADER;
        String arrive = ARRIVE;
        assertThat(text(header + arrive + "{\"type\":\"Place\",\"req\":0,\"holder\":1,\"loads\":[1,0,0]}\n").verdict()).isEqualTo(Verdict.ACCEPTED);
        ValidationResult stale = text(header + arrive + "{\"type\":\"Place\",\"req\":0,\"holder\":1,\"loads\":[0,0,0]}\n");
        assertThat(stale.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(stale.divergence().finding().property()).isEqualTo(PropertyId.A1);
        // the difference named as it is (one request fewer in Q_w), never as staleness under the exact reading
        assertThat(stale.divergence().finding().message()).contains("for worker 0 a load that is not Eq. 4")
                .contains("1 fewer request in Q_w than the 1 the trace has queued on worker 0").doesNotContain("stale");
        assertThat(stale.divergence().finding().expected()).isEqualTo("L=1.0");
        malformed(header + arrive + "{\"type\":\"Place\",\"req\":0,\"holder\":1,\"loads\":[1,0]}\n", 3, "holds 2 loads");
        malformed(header + arrive + "{\"type\":\"Place\",\"req\":0,\"holder\":1,\"loads\":[1,0,0,0]}\n", 3, "more than one load per worker");
        malformed(header + arrive + "{\"type\":\"Place\",\"req\":0,\"holder\":1,\"loads\":[1,\"x\",0]}\n", 3, "numbers only");
        malformed(header + arrive + "{\"type\":\"Place\",\"req\":0,\"holder\":1,\"loads\":3}\n", 3, "must be an array");
        malformed(header + arrive + "{\"type\":\"Restart\",\"worker\":1,\"loads\":[1,0,0]}\n", 3, "only Place, Route, Assist and DraftReady");
    }

    /** A header under citedLoads=stale:N, and two arrivals: r0 on worker 0, r1 on worker 1 (loads 1, 1, 0 after them). */
    static String staleHeader(String bound) {
        return HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":{\"citedLoads\":\"" + bound + "\"}}") + ARRIVE
                + "{\"type\":\"Arrive\",\"req\":1,\"worker\":1,\"promptLen\":4,\"ref\":[11,12]}\n";
    }

    static String place(int req, int holder, String loads) {
        return "{\"type\":\"Place\",\"req\":" + req + ",\"holder\":" + holder + (loads == null ? "" : ",\"loads\":" + loads) + "}\n";
    }

    @Test
    void staleCitedLoadsAreJudgedAgainstTheLoadsTheMonitorCouldHaveHad() throws Exception {
        // the initial loads (0, 0, 0) are two events old at the first Place: within stale:2, and on them worker 1 is least loaded
        assertThat(text(staleHeader("stale:2") + place(0, 1, "[0,0,0]")).verdict()).isEqualTo(Verdict.ACCEPTED);
        // ... but not within stale:1, where worker 0's load has been 1 all along
        ValidationResult old = text(staleHeader("stale:1") + place(0, 1, "[0,0,0]"));
        assertThat(old.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(old.divergence().finding().property()).isEqualTo(PropertyId.A1);
        assertThat(old.divergence().finding().message()).contains("worker 0").contains("within the last 1 event");
        assertThat(old.divergence().finding().expected()).isEqualTo("one of L=1, 1");
        // loads of one event ago (1, 0, 0) are within stale:1, and the decision is judged on them
        assertThat(text(staleHeader("stale:1") + place(0, 1, "[1,0,0]")).verdict()).isEqualTo(Verdict.ACCEPTED);
        ValidationResult notMin = text(staleHeader("stale:1") + place(0, 1, "[1,1,0]"));
        assertThat(notMin.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(notMin.divergence().finding().property()).isEqualTo(PropertyId.A1);
        assertThat(notMin.divergence().finding().message()).contains("not least loaded");
    }

    @Test
    void underStaleLoadsADecisionMustCiteThemAndReportsArriveInOrder() throws Exception {
        ValidationResult none = text(staleHeader("stale:3") + place(0, 2, null));
        assertThat(none.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(none.divergence().finding().property()).isEqualTo(PropertyId.A1);
        assertThat(none.divergence().finding().message()).contains("must cite them");
        // worker 1's report of load 1 was cited; a later decision cannot cite its older load 0
        String first = staleHeader("stale:3") + place(0, 2, "[1,1,0]");
        assertThat(text(first + place(1, 2, "[1,1,0]")).verdict()).isEqualTo(Verdict.ACCEPTED);
        ValidationResult back = text(first + place(1, 2, "[1,0,0]"));
        assertThat(back.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(back.divergence().finding().message()).contains("worker 1").contains("reports arrive in order");
    }

    /** A mirror that has stepped the two arrivals of {@link #staleHeader}: worker 0's load is 1 from state 2, worker 1's from state 3. */
    static Mirror afterTwoArrivals(String bound) throws Exception {
        try (lumen.trace.TraceReader r = new lumen.trace.TraceReader(new ByteArrayInputStream(staleHeader(bound).getBytes(StandardCharsets.UTF_8)), "t")) {
            Mirror m = new Mirror(r.config());
            long line = 1;
            for (Event e; (e = r.next()) != null; ) {
                assertThat(m.step(e, ++line, null)).isNull();
            }
            return m;
        }
    }

    @Test
    void aHiddenPlaceUnderStaleLoadsTakesItsReportInOrderToo() throws Exception {
        Event.Place hidden = new Event.Place(0, 2, -1);
        // a hidden Place before event 3 took place after event 2 was logged: its window is event 2's (states 1..2
        // under stale:1) reaching on to now (state 3), not event 3's (states 2..3, where worker 0's load is 1 only)
        assertThat(afterTwoArrivals("stale:1").hiddenLoadChoices(hidden)).isDeepEqualTo(new double[][] {{0, 1}, {0, 1}, {0}});
        Mirror m = afterTwoArrivals("stale:3");
        Mirror copy = m.copy();
        // the hidden Place rests on worker 1's newest report: a later decision cannot cite its older one
        assertThat(m.stepHidden(hidden, 3, new double[] {1, 1, 0}, Double.NaN)).isNull();
        Divergence back = m.step(new Event.Place(1, 2, -1), 4, new double[] {1, 0, 0});
        assertThat(back).isNotNull();
        assertThat(back.finding().property()).isEqualTo(PropertyId.A1);
        assertThat(back.finding().message()).contains("worker 1").contains("reports arrive in order");
        // on worker 1's older report, the same later decision is a step
        assertThat(copy.stepHidden(hidden, 3, new double[] {1, 0, 0}, Double.NaN)).isNull();
        assertThat(copy.step(new Event.Place(1, 2, -1), 4, new double[] {1, 0, 0})).isNull();
    }

    /**
     * Of candidates equal but for where a worker's reports resume, the search keeps the one that
     * resumes earliest (Candidates.undominated). r0's hidden Place (revealed on worker 2 by its
     * StreamPage) may rest on worker 1's older report (0) or its newer one (1); a later decision
     * citing the older is a step only after the first. With the comparison the wrong way round (a
     * seeded bug) the search kept the newer and rejected this trace by A1.
     */
    @Test
    void ofTheReportsAHiddenPlaceCouldRestOnTheSearchKeepsTheOneALaterDecisionMayStillCiteAfter() throws Exception {
        String header = staleHeader("stale:3").replace("{\"type\":\"header\",", "{\"type\":\"header\",\"observes\":{\"Place\":\"hidden\"},");
        String before = header + "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[11]}\n"
                + "{\"type\":\"StreamPage\",\"req\":0,\"holder\":2,\"ckpt\":4}\n";
        ValidationResult r = text(before + place(1, 2, "[1,0,0]"));
        assertThat(r.verdict()).as(() -> r.divergence() + " " + r.notes()).isEqualTo(Verdict.ACCEPTED);
        // the citation is still judged: a load worker 1 never had in the window is rejected
        ValidationResult bad = text(before + place(1, 2, "[1,2,0]"));
        assertThat(bad.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(bad.divergence().finding().property()).isEqualTo(PropertyId.A1);
    }

    @Test
    void aTimeBoundNeedsTheTimeOfEveryEvent() throws Exception {
        malformed(staleHeader("stale:250ms") + place(0, 2, "[1,1,0]"), 2, "every event needs its time");
        String timed = staleHeader("stale:250ms").replace("\"req\":0,", "\"t\":0,\"req\":0,").replace("\"req\":1,", "\"t\":100,\"req\":1,");
        // at t=300 the initial state (current until t=0) is out of reach, the state after the first arrival (until t=100) is not
        assertThat(text(timed + "{\"type\":\"Place\",\"t\":300,\"req\":0,\"holder\":1,\"loads\":[1,0,0]}\n").verdict())
                .isEqualTo(Verdict.ACCEPTED);
        assertThat(text(timed + "{\"type\":\"Place\",\"t\":300,\"req\":0,\"holder\":1,\"loads\":[0,0,0]}\n").verdict())
                .isEqualTo(Verdict.REJECTED);
    }

    static Trace dual() {
        Config c = new Config("lumen-dual", 4, 1, 1, 50, 3, 40, 1, 3);
        return new Trace(c).step(s -> Core.arrive(s, 0, 4, REF)).step(s -> Core.place(s, 0)).step(s -> Core.prefill(s, 0))
                .step(s -> Core.streamPage(s, 0, 3)).step(s -> Core.streamBackupPage(s, 0, 2));
    }

    @Test
    void lumenDualSeededBugs() throws Exception {
        Trace t = dual();
        assertThat(t.validate().verdict()).isEqualTo(Verdict.ACCEPTED);
        Trace p = new Trace(t.cfg).step(s -> Core.arrive(s, 0, 4, REF));
        rejectedBy(PropertyId.S4, p.validate(new Event.Place(0, 1, 1)), 3);
        rejectedBy(PropertyId.S4, p.validate(new Event.Place(0, 1, 0)), 3);
        rejectedBy(PropertyId.A1, p.validate(new Event.Place(0, 1, -1)), 3);
        // a backup that is not the least loaded of the rest
        Trace q = new Trace(t.cfg).step(s -> Core.arrive(s, 0, 4, REF)).step(s -> Core.arrive(s, 1, 4, REF));
        rejectedBy(PropertyId.A1, q.validate(new Event.Place(0, 2, 1)), 4);
        // the holder fails but the backup is not promoted: not what the spec does
        ValidationResult r = t.validate(new Event.Fail(1, new int[0], new int[] {0}, new int[0]));
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().finding().message()).as(r.divergence()::toString).contains("backup");
        // a backup copy leaked at completion (both copies streamed on the way: a copy a page behind across
        // the last four decodes would break L3)
        Trace d = dual().step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0)).step(s -> Core.streamPage(s, 0, 6))
                .step(s -> Core.streamBackupPage(s, 0, 6)).step(s -> Core.decode(s, 0)).step(s -> Core.decode(s, 0))
                .step(s -> Core.decode(s, 0));
        rejectedBy(PropertyId.S8, d.validate(new Event.Complete(0, 0, 6)), 14);
        assertThat(d.validate(new Event.Complete(0, 0, 12)).verdict()).isEqualTo(Verdict.ACCEPTED);
        // streaming to a worker that holds no copy
        assertThat(t.validate(new Event.StreamPage(0, 3, 3)).verdict()).isEqualTo(Verdict.REJECTED);
        // a promoted holder's copy round-trips through the trace
        Trace f = dual().step(s -> Core.fail(s, 1));
        assertThat(f.validate().verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(new String(f.bytes(), java.nio.charset.StandardCharsets.UTF_8)).contains("\"promoted\":[0]");
        assertThat(new String(f.bytes(), java.nio.charset.StandardCharsets.UTF_8)).contains("\"backup\":2");
    }

    @Test
    void syntheticTracesAreValid() throws Exception {
        for (String p : lumen.core.Policies.keys()) {
            Config c = new Config(p, 5, 1, 1, 64, 32, 2048, 16, 4);
            byte[] trace = lumen.trace.SyntheticTrace.toBytes(new lumen.trace.SyntheticTrace.Spec(c, 20_000, 4, 20, 40, 3_000, 3));
            ValidationResult r = Validator.validate(new ByteArrayInputStream(trace), p);
            assertThat(r.verdict()).as(() -> p + ": " + r.divergence() + " " + r.error()).isEqualTo(Verdict.ACCEPTED);
            assertThat(r.events()).isGreaterThanOrEqualTo(20_000);
            assertThat(r.byType().getOrDefault("Fail", 0L)).as(p + ": " + r.byType()).isGreaterThanOrEqualTo(3);
            assertThat(r.byType().getOrDefault("Route", 0L)).as(p + ": " + r.byType()).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void a3ADraftForALightWorker() throws Exception {
        Trace t = running().step(s -> Core.arrive(s, 1, 4, REF)).step(s -> Core.place(s, 1)).step(s -> Core.prefill(s, 1))
                .step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2));
        // w0: Q=1, L=1; w1: Q=1 plus 3 stored, L=4. r0 is on w0, the lighter one
        rejectedBy(PropertyId.A3, t.validate(new Event.Assist(2, 0, new int[] {14})), 14);
    }

    @Test
    void aStepOutsideTheSpecWithoutAPropertyIsStillRejected() throws Exception {
        ValidationResult r = running().validate(new Event.DraftReady(2));
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().finding().property()).isNull();
        assertThat(r.divergence().finding().label()).isEqualTo("not a step of the spec");
        assertThat(ValidationReport.text(r)).contains("expected: LOADING_DRAFT");
        assertThat(((java.util.Map<?, ?>) ValidationReport.json(r).get("divergence")).get("line")).isEqualTo(8L);
    }

    // ---- malformed input -------------------------------------------------------------------

    static final String HEADER = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"config\":{\"policy\":\"lumen\","
            + "\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":40,\"pageTokens\":4,\"k\":3}}\n";
    static final String ARRIVE = "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[11,12]}\n";

    static ValidationResult text(String s) throws Exception {
        return Validator.validate(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)), "bad.jsonl");
    }

    static void malformed(String trace, long line, String fragment) throws Exception {
        ValidationResult r = text(trace);
        assertThat(r.verdict()).as(() -> trace).isEqualTo(Verdict.MALFORMED);
        assertThat(r.error().line()).as(r.error().getMessage()).isEqualTo(line);
        assertThat(r.error().getMessage()).startsWith("bad.jsonl:" + line + ": ");
        assertThat(r.error().getMessage()).contains(fragment);
        assertThat(ValidationReport.text(r)).contains(fragment);
        assertThat(ValidationReport.json(r).get("error")).isNotNull();
    }

    /**
     * A mirror stepped past a divergence (as the lockstep test and a candidate search do) judges
     * every later event on the state as reported: a Complete before the output is whole leaves a
     * DONE record without its reference, and an event naming that request afterwards is a
     * divergence, not an exception, in every mirror.
     */
    @Test
    void eventsAfterAnUnfinishedCompleteAreJudgedWithoutAnException() throws Exception {
        Trace t = decoding();
        ClusterState mid = t.s;
        Event complete = Core.withSyntheticContent(mid, new Event.Complete(0, 0, 0));
        List<Event> after = List.of(Core.decode(mid, 0).event(), new Event.Prefill(0, 0, new int[] {11}),
                Core.withSyntheticContent(mid, new Event.StreamPage(0, 1, 3)), new Event.Route(0, RouteMode.REPREFILL, 2, 0, 0),
                new Event.Assist(1, 0, new int[] {13, 14}), complete);
        for (Event later : after) {
            for (int mode = 0; mode < 3; mode++) {
                Mirror m = mode == 0 ? new Mirror(cfg()) : mode == 1 ? new Mirror(cfg()).withHotRequests() : new Mirror(cfg()).withHotRequests().inPlace();
                long line = 1;
                for (Event e : t.events) {
                    assertThat(m.step(e, ++line, null)).isNull();
                }
                assertThat(m.step(complete, ++line, null).finding().property()).isEqualTo(PropertyId.S1);
                long at = ++line;
                Divergence d = m.step(later, at, null);
                assertThat(d).as("%s in mirror %d", later, mode).isNotNull();
                assertThat(d.line()).isEqualTo(at);
            }
        }
    }

    /**
     * The validator reads a few events ahead of the one it steps: a line the reader refuses a few
     * lines after a divergence does not hide the divergence, which is the verdict as if read one
     * line at a time; a refused line before any divergence is.
     */
    @Test
    void aDivergenceBeforeAMalformedLineIsTheVerdictThoughTheLineWasReadFirst() throws Exception {
        String complete = "{\"type\":\"Complete\",\"req\":0,\"worker\":0,\"freed\":0}\n";
        String place = "{\"type\":\"Place\",\"req\":0,\"holder\":1}\n";
        ValidationResult r = text(HEADER + ARRIVE + place + complete + place + "{\"type\":\"Place\",\"req\":0,\n");
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().line()).isEqualTo(4);
        malformed(HEADER + ARRIVE + place + "{\"type\":\"Place\",\"req\":0,\n" + complete, 4, "not valid JSON");
    }

    @Test
    void malformedInputGetsALocatedError() throws Exception {
        assertThat(text(HEADER + ARRIVE).verdict()).isEqualTo(Verdict.ACCEPTED);
        malformed("", 1, "empty trace");
        malformed("[1,2]\n", 1, "expected a JSON object");
        malformed(ARRIVE, 1, "the first line must be the header");
        malformed(HEADER.replace("lumen-trace", "other"), 1, "format must be");
        malformed(HEADER.replace("\"version\":1", "\"version\":3"), 1, "versions 1 to 2");
        malformed(HEADER.replace("\"workers\":3", "\"workers\":1"), 1, "config.workers");
        malformed(HEADER.replace("\"policy\":\"lumen\"", "\"policy\":\"nope\""), 1, "unknown policy");
        malformed(HEADER.replace(",\"k\":3", ""), 1, "missing 'k'");
        malformed(HEADER.replace("\"k\":3", "\"k\":3,\"zz\":1"), 1, "unknown config field");
        malformed(HEADER + "{\"type\":\"Arrive\",\n", 2, "does not end on it");
        malformed(HEADER + "{oops}\n", 2, "not valid JSON");
        malformed(HEADER + ARRIVE.trim() + ARRIVE, 2, "two JSON values on one line");
        malformed(HEADER + "{\"type\":\"Teleport\",\"worker\":0}\n", 2, "unknown event type");
        malformed(HEADER + "{\"worker\":0}\n", 2, "without a 'type'");
        malformed(HEADER + "{\"type\":\"Restart\",\"worker\":0,\"colour\":1}\n", 2, "unknown field 'colour'");
        malformed(HEADER + "{\"type\":\"Restart\",\"worker\":0,\"req\":1}\n", 2, "unexpected field 'req'");
        malformed(HEADER + "{\"type\":\"Restart\"}\n", 2, "missing field 'worker'");
        malformed(HEADER + "{\"type\":\"Restart\",\"worker\":\"w0\"}\n", 2, "must be an integer");
        malformed(HEADER + "{\"type\":\"Restart\",\"worker\":7}\n", 2, "unknown worker 7");
        malformed(HEADER + "{\"type\":\"Restart\",\"worker\":-1}\n", 2, "must be an integer in 0..");
        malformed(HEADER + "{\"type\":\"Place\",\"req\":4,\"holder\":1}\n", 2, "unknown request 4");
        malformed(HEADER + ARRIVE + "{\"type\":\"Fail\",\"worker\":1,\"interrupted\":[9],\"orphaned\":[]}\n", 3, "unknown request 9");
        malformed(HEADER + "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":0,\"ref\":[1]}\n", 2, "promptLen must be at least 1");
        malformed(HEADER + "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":2,\"ref\":[]}\n", 2, "at least one token");
        malformed(HEADER + "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":2,\"ref\":[1,\"x\"]}\n", 2, "integers only");
        malformed(HEADER + ARRIVE + "{\"type\":\"Route\",\"req\":0,\"mode\":\"TELEPORT\",\"worker\":1,\"resumed\":0,\"freed\":0}\n", 3, "mode must be");
        malformed(HEADER + ARRIVE + "{\"type\":\"Decode\",\"req\":0,\"worker\":0,\"tokens\":[]}\n", 3, "at least one token");
        malformed(HEADER + ARRIVE + "{\"type\":\"Place\",\"req\":0,\"holder\":1,\"mode\":\"RESTORE\"}\n", 3, "unexpected field 'mode'");
    }

    @Test
    void theReaderRoundTripsEveryEventType() throws Exception {
        Trace t = decoding().step(s -> Core.fail(s, 2)).step(s -> Core.restart(s, 2)).step(s -> Core.draftReady(s, 2))
                .step(s -> Core.assist(s, 2, 0, new int[] {14})).step(s -> Core.fullReady(s, 2)).step(s -> Core.fail(s, 0))
                .step(s -> Core.route(s, 0));
        lumen.trace.TraceReader rd = new lumen.trace.TraceReader(new ByteArrayInputStream(t.bytes()), "x");
        assertThat(rd.config()).isEqualTo(t.cfg);
        for (Event e : t.events) {
            assertThat(rd.next()).isEqualTo(e);
            assertThat(rd.time()).isEqualTo(1.5);
        }
        assertThat(rd.next()).isNull();
        rd.close();
    }
}
