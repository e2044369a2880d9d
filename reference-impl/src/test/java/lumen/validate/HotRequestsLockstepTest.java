package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.Readings;
import lumen.trace.SyntheticTrace;
import lumen.trace.TraceReader;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The mirror's fast path of the common Decode ({@link HotRequests}) against the full step, event
 * by event: on the runtime's scenario traces and on synthetic traces under every policy and the
 * readings the fast path reads (budget=stored, rebackup), with frequent failures, each as written
 * and in seeded mutations (a token, a worker, a page, an event dropped, repeated or moved, a Fail
 * inserted, a Fail's lost copies left out, a request's copies never streamed, a Decode's pages
 * left out), under L3's and L4's default bound and under bounds of 1 to 3 steps. The fast mirror
 * is the validator's: its load index is also updated in place ({@link Mirror#inPlace}). Every
 * event must give the same divergence, or none, in both, and at random points and at the end the
 * two must be in the same state (spec state, content, fairness counters, load index).
 * Mutated traces are stepped past their first divergence, as the mirror allows, so the two are
 * compared in states no faithful trace reaches.
 */
class HotRequestsLockstepTest {
    /** Seeded mutations per trace; the deeper tier raises it ({@code -Dlumen.lockstep.mutants=N}). */
    private static final int MUTANTS = Integer.getInteger("lumen.lockstep.mutants", 12);
    /** Events per synthetic trace ({@code -Dlumen.lockstep.events=N}). */
    private static final int EVENTS = Integer.getInteger("lumen.lockstep.events", 3_000);

    /** A trace: its config and events. */
    private record Trace(String name, Config config, List<Event> events) {}

    @TestFactory
    Stream<DynamicTest> theFastPathGivesTheFullStepsVerdictsAndStates() throws IOException {
        List<Trace> traces = new ArrayList<>(scenarios());
        traces.addAll(synthetic());
        assertThat(traces).hasSizeGreaterThan(30);
        return traces.stream().map(t -> DynamicTest.dynamicTest(t.name(), () -> {
            long fast = lockstep(t.config(), t.events(), 0);
            SplittableRandom rnd = new SplittableRandom(t.name().hashCode());
            for (int m = 0; m < MUTANTS; m++) {
                long seed = rnd.nextLong();
                lockstep(t.config(), mutate(t.events(), new SplittableRandom(seed)), seed);
            }
            if (t.name().startsWith("synthetic")) {
                // the fast path is exercised, not bypassed: most decodes of a synthetic trace take it
                assertThat(fast).as("decodes taken by the fast path in %s", t.name()).isGreaterThan(t.events().size() / 4);
            }
        }));
    }

    /**
     * Two idle ASSISTING workers reach L4's bound at the same decode: the finding names the lower
     * id (a property is named once), in every mirror, with or without the fast path (not the order a hash set happens to
     * iterate in).
     */
    @org.junit.jupiter.api.Test
    void l4NamesTheSameWorkerInEveryMirror() {
        Config c = new Config("lumen", 4, 1, 1, 64, 32, 1 << 20, 16, 4);
        List<Event> events = new ArrayList<>();
        for (int w = 1; w <= 2; w++) {
            events.add(new Event.Fail(w, new int[0], new int[0]));
            events.add(new Event.Restart(w));
            events.add(new Event.DraftReady(w));
        }
        events.add(new Event.Arrive(0, 0, 2, new int[] {1, 2, 3, 4, 5, 6}));
        events.add(new Event.Place(0, 3));
        events.add(new Event.Prefill(0, 0, new int[] {1}));
        events.add(new Event.Decode(0, 0, new int[] {2}));
        events.add(new Event.Decode(0, 0, new int[] {3}));
        for (int run = 0; run < 20; run++) {
            for (Mirror m : new Mirror[] {new Mirror(c, 1), new Mirror(c, 1).withHotRequests(), new Mirror(c, 1).withHotRequests().inPlace()}) {
                Divergence d = firstDivergence(m, events);
                assertThat(d).isNotNull();
                assertThat(d.line()).isEqualTo(events.size() + 1L);
                assertThat(d.finding().property()).isEqualTo(lumen.core.PropertyId.L4);
                assertThat(d.finding().message()).startsWith("worker 1 ");
            }
        }
    }

    /**
     * The validator, reading a file, judges an altered token deep in a long run of decodes as the
     * full step does: the same line and finding, and the faithful file is accepted.
     */
    @org.junit.jupiter.api.Test
    void theValidatorReadingAFileGivesTheFullStepsVerdict() throws IOException {
        Config c = new Config("lumen", 16, 1, 1, 64, 32, 1 << 20, 16, 4);
        SyntheticTrace.Spec spec = new SyntheticTrace.Spec(c, 40_000, 8, 32, 64, 5_000, 3);
        byte[] honest = SyntheticTrace.toBytes(spec);
        ValidationResult ok = Validator.validate(new ByteArrayInputStream(honest), "honest");
        assertThat(ok.verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(ok.events()).isGreaterThan(40_000);
        List<Event> events = read("honest", honest).events();
        SplittableRandom rnd = new SplittableRandom(5);
        for (int trial = 0; trial < 5; trial++) {
            int at;
            do {
                at = 20_000 + rnd.nextInt(20_000);
            } while (!(events.get(at) instanceof Event.Decode));
            Event.Decode d = (Event.Decode) events.get(at);
            int[] tokens = d.tokens().clone();
            tokens[0] ^= 1 + rnd.nextInt(7);
            List<Event> bad = new ArrayList<>(events);
            bad.set(at, new Event.Decode(d.req(), d.worker(), tokens, d.pages()));
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            try (lumen.trace.TraceWriter w = new lumen.trace.TraceWriter(out, c)) {
                for (Event e : bad) {
                    w.write(e);
                }
            }
            ValidationResult r = Validator.validate(new ByteArrayInputStream(out.toByteArray()), "altered");
            Divergence want = firstDivergence(new Mirror(c), bad);
            assertThat(want).isNotNull();
            assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
            assertThat(r.divergence().line()).as("the line of the altered token").isEqualTo(at + 2L).isEqualTo(want.line());
            assertThat(r.divergence().finding()).isEqualTo(want.finding());
            assertThat(r.divergence().others()).isEqualTo(want.others());
            assertThat(r.divergence().state()).isEqualTo(want.state());
        }
    }

    /** A state the validator's mirror hands out is a value: the mirror's later steps do not change it. */
    @org.junit.jupiter.api.Test
    void theStateTheMirrorHandsOutIsAValue() throws IOException {
        Config c = new Config("lumen", 80, 1, 1, 64, 32, 300, 16, 4);
        List<Event> events = new ArrayList<>();
        SyntheticTrace.generate(new SyntheticTrace.Spec(c, 4_000, 1, 20, 40, 500, 21), events::add);
        Mirror m = new Mirror(c).withHotRequests().inPlace();
        Mirror value = new Mirror(c);
        List<lumen.core.ClusterState> handed = new ArrayList<>();
        List<lumen.core.LoadIndex> expected = new ArrayList<>();
        long line = 1;
        for (Event e : events) {
            line++;
            assertThat(m.step(e, line, null)).isNull();
            value.step(e, line, null);
            if (line % 500 == 0) {
                handed.add(m.state());
                expected.add(value.state().index());
            }
        }
        assertThat(handed).hasSizeGreaterThan(5);
        for (int i = 0; i < handed.size(); i++) {
            sameIndex(handed.get(i).index(), expected.get(i), c.workers(), "state handed out " + i);
        }
    }

    /** The load index kept in place answers as the one kept as a value: every entry, and the choices read at its root. */
    private static void sameIndex(lumen.core.LoadIndex in, lumen.core.LoadIndex value, int workers, String where) {
        assertThat(in.size()).as(where).isEqualTo(value.size());
        for (int w = 0; w < workers; w++) {
            assertThat(in.get(w)).as("%s: worker %d's entry", where, w).isEqualTo(value.get(w));
        }
        assertThat(new int[] {in.minLoad(), in.maxLoad(), in.minQueue(), in.minLoadWithRoom(1, 0)}).as(where)
                .containsExactly(value.minLoad(), value.maxLoad(), value.minQueue(), value.minLoadWithRoom(1, 0));
    }

    /**
     * Steps both mirrors through the events; returns how many decodes the fast path took. Stops
     * where the validator would: at an event naming a request that never arrived.
     */
    private static long lockstep(Config c, List<Event> events, long seed) {
        // the default bound of L3 and L4 for the traces as written, and small ones for mutations, so the bounds are reached
        int bound = seed == 0 ? Mirror.DEFAULT_FAIRNESS_STEPS : new int[] {Mirror.DEFAULT_FAIRNESS_STEPS, 1, 2, 3}[(int) (seed & 3)];
        Mirror full = new Mirror(c, bound);
        // the validator's mirror: the fast path, and the load index updated in place
        Mirror hot = new Mirror(c, bound).withHotRequests().inPlace();
        SplittableRandom when = new SplittableRandom(seed ^ 0x5DEECE66DL);
        long taken = 0;
        long line = 1;
        for (Event e : events) {
            line++;
            boolean known = true;
            for (int id : e.action() == lumen.core.Action.ARRIVE ? new int[0] : Validator.namedRequests(e)) {
                known &= full.knows(id);
                assertThat(hot.knows(id)).as("seed %d line %d: request %d arrived", seed, line, id).isEqualTo(full.knows(id));
            }
            if (e.req() >= 0 && e.action() != lumen.core.Action.ARRIVE) {
                known &= full.knows(e.req());
                assertThat(hot.knows(e.req())).as("seed %d line %d: request %d arrived", seed, line, e.req()).isEqualTo(full.knows(e.req()));
            }
            if (!known) {
                break;
            }
            Object a = outcome(full, e, line);
            long before = hot.hotDecodes();
            Object b = outcome(hot, e, line);
            taken += hot.hotDecodes() - before;
            assertThat(b).as("seed %d line %d: %s", seed, line, e).isEqualTo(a);
            if (a instanceof Class) {
                break; // both threw the same: the trace is beyond what the mirror steps
            }
            if (when.nextInt(8) == 0) {
                assertThat(hot.fingerprint(null)).as("seed %d state after line %d", seed, line).isEqualTo(full.fingerprint(null));
                sameIndex(hot.state().index(), full.state().index(), c.workers(), "seed " + seed + " line " + line);
            }
        }
        assertThat(hot.fingerprint(null)).as("seed %d final state", seed).isEqualTo(full.fingerprint(null));
        sameIndex(hot.state().index(), full.state().index(), c.workers(), "seed " + seed + " at the end");
        assertThat(hot.running()).isEqualTo(full.running());
        assertThat(hot.state().requests().keys()).containsExactly(full.state().requests().keys());
        return taken;
    }

    /** The first divergence of the events on the mirror, each on its line (the header is line 1), or null. */
    private static Divergence firstDivergence(Mirror m, List<Event> events) {
        long line = 1;
        for (Event e : events) {
            Divergence d = m.step(e, ++line, null);
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    /** The divergence of one step (null: none), or the class of what it threw. */
    private static Object outcome(Mirror m, Event e, long line) {
        try {
            return m.step(e, line, null);
        } catch (RuntimeException ex) {
            return ex.getClass();
        }
    }

    private static List<Trace> scenarios() throws IOException {
        List<Trace> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("src/test/resources/scenarios"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList()) {
                out.add(read("scenario " + f.getFileName(), Files.readAllBytes(f)));
            }
        }
        return out;
    }

    private static Trace read(String name, byte[] bytes) throws IOException {
        try (TraceReader r = new TraceReader(new ByteArrayInputStream(bytes), name)) {
            List<Event> events = new ArrayList<>();
            Event e;
            while ((e = r.next()) != null) {
                events.add(e);
            }
            return new Trace(name, r.config(), events);
        } catch (lumen.trace.TraceFormatException ex) {
            throw new IllegalStateException(name + ": " + ex.getMessage(), ex);
        }
    }

    /** Synthetic traces under every policy, with small budgets and frequent failures, and the readings the fast path reads. */
    private static List<Trace> synthetic() throws IOException {
        List<Trace> out = new ArrayList<>();
        long seed = 7;
        for (String policy : lumen.core.Policies.keys()) {
            for (String reading : new String[] {"", "budget=stored", "rebackup=true"}) {
                if (reading.startsWith("rebackup") && !policy.equals("lumen-dual")) {
                    continue;
                }
                for (long budget : new long[] {1 << 20, 300}) {
                    Readings rd = Readings.DEFAULT;
                    if (!reading.isEmpty()) {
                        String[] kv = reading.split("=");
                        rd = rd.with(kv[0], kv[1]);
                    }
                    Config c = new Config(policy, 5, 1, 1, 64, 32, budget, 16, 4).withReadings(rd);
                    List<Event> events = new ArrayList<>();
                    SyntheticTrace.generate(new SyntheticTrace.Spec(c, EVENTS, 4, 20, 40, 500, seed++), events::add);
                    out.add(new Trace("synthetic " + policy + (reading.isEmpty() ? "" : " " + reading) + " budget " + budget, c, events));
                }
            }
        }
        // 80 workers, past ActionProperties.SCAN_MAX (64), where A1 and A3 read the load index that the
        // validator's mirror updates in place; a tight budget makes its search meet full workers
        for (String policy : new String[] {"lumen", "lumen-dual"}) {
            for (long budget : new long[] {1 << 20, 300}) {
                Config c = new Config(policy, 80, 1, 1, 64, 32, budget, 16, 4);
                List<Event> events = new ArrayList<>();
                SyntheticTrace.generate(new SyntheticTrace.Spec(c, EVENTS, 1, 20, 40, 500, seed++), events::add);
                out.add(new Trace("synthetic " + policy + " " + c.workers() + " workers budget " + budget, c, events));
            }
        }
        return out;
    }

    /** One to three seeded changes to a copy of the events. */
    private static List<Event> mutate(List<Event> events, SplittableRandom rnd) {
        List<Event> out = new ArrayList<>(events);
        int workers = 5;
        for (int n = 1 + rnd.nextInt(3); n > 0 && out.size() > 2; n--) {
            int i = 1 + rnd.nextInt(out.size() - 1);
            Event e = out.get(i);
            switch (rnd.nextInt(9)) {
                case 0 -> out.remove(i);
                case 4 -> {
                    // a request whose copies never stream (L3)
                    int r = e.req();
                    out.removeIf(x -> x instanceof Event.StreamPage sp && sp.req() == r);
                }
                case 5 -> {
                    // a Fail that lists none of the copies it loses (S8), or the next Fail when e is none
                    for (int j = i; j < out.size(); j++) {
                        if (out.get(j) instanceof Event.Fail f) {
                            out.set(j, new Event.Fail(f.worker(), f.interrupted(), new int[0], new int[0]));
                            break;
                        }
                    }
                }
                case 1 -> out.add(i, e);
                case 2 -> {
                    Event moved = out.remove(i);
                    out.add(Math.min(out.size(), i + 1 + rnd.nextInt(40)), moved);
                }
                case 3 -> out.add(i, new Event.Fail(rnd.nextInt(workers), new int[0], new int[0], new int[0]));
                default -> out.set(i, e instanceof Event.Decode d ? decodeMutant(d, rnd, workers) : e);
            }
        }
        return out;
    }

    private static Event decodeMutant(Event.Decode d, SplittableRandom rnd, int workers) {
        int[] tokens = d.tokens().clone();
        PageDigest[] pages = d.pages() == null ? null : d.pages().clone();
        switch (rnd.nextInt(5)) {
            case 0 -> tokens[rnd.nextInt(tokens.length)] ^= 1;
            case 4 -> pages = null; // a Decode that reports no content, between ones that do
            case 1 -> {
                return new Event.Decode(d.req(), (d.worker() + 1) % workers, tokens, pages);
            }
            case 2 -> {
                if (pages != null && pages.length > 0) {
                    PageDigest p = pages[0];
                    pages[0] = rnd.nextBoolean() ? new PageDigest(p.first(), p.count(), p.digest() ^ 1)
                            : new PageDigest(p.first(), Math.max(1, p.count() - 1), p.digest());
                }
            }
            default -> tokens = java.util.Arrays.copyOf(tokens, tokens.length + 1);
        }
        return new Event.Decode(d.req(), d.worker(), tokens, pages);
    }
}
