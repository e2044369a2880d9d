package lumen.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import lumen.fuzz.ReaderMutator.Base;
import lumen.runtime.ScenarioRun;
import lumen.trace.Observation;
import lumen.trace.Observe;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * The valid inputs of each kind the mutants start from, all made from what the kit writes: the
 * accepted atomic traces ({@link ReaderMutator#defaultBases}) as they are, written with begin and
 * end forms ({@link BeginEnd}), observed at a partial level ({@link Observe}), split into
 * per-process logs with vector or Lamport clocks ({@link lumen.validate.ProcessLogs#split}); and
 * the histories the reference scenarios' clients see. Only inputs the kit accepts are kept.
 */
public final class FuzzBases {
    /** The partial levels that need no search, the traces observed at them in turn: each alone, and two composed ones together. */
    static final List<Observation> LEVELS = List.of(Observation.NO_LOADS, Observation.BATCH, Observation.SIZES,
            new Observation(false, false, true, true, Observation.DEFAULT_HIDDEN_STEPS, Observation.DEFAULT_CANDIDATES));
    /** The levels whose hidden Place lines are searched for, given to every other short trace. */
    static final List<Observation> SEARCHED = List.of(Observation.NO_PLACE, Observation.LEAST);
    /** The longest trace observed at a searched level: the search costs some hundred times a full trace's validation. */
    static final int SEARCHED_LINES = 800;

    private FuzzBases() {}

    /**
     * A generator for each kind, in the kinds' order, from the accepted reference scenarios and
     * {@code schedules} random schedules; each kind's mutants drawn from {@code seed}.
     */
    public static List<Generator> generators(Collection<InputKind> kinds, int schedules, long seed) {
        List<ScenarioRun> runs = ReaderMutator.acceptedRuns();
        List<Base> atomic = ReaderMutator.defaultBases(runs, schedules);
        List<Generator> out = new ArrayList<>();
        for (InputKind k : InputKind.values()) {
            if (!kinds.contains(k)) {
                continue;
            }
            long s = seed + 0x632BE59BD9B4E019L * k.ordinal();
            switch (k) {
                case ATOMIC -> out.add(new ReaderMutator(atomic, s));
                case BEGIN_END -> out.add(new ReaderMutator(beginEnd(atomic), s));
                case PARTIAL -> out.add(new ReaderMutator(partial(atomic), s));
                case PROCESS_LOGS -> out.add(new ProcessLogMutator(processLogs(atomic), s));
                case HISTORY -> out.add(new HistoryMutator(histories(runs), s));
            }
        }
        return out;
    }

    /**
     * Each atomic trace with about half its splittable steps written as begin, chunks and end. Each
     * means what its atomic trace means, so the kit must accept every one (the tests check that none
     * is left out).
     */
    static List<Base> beginEnd(List<Base> atomic) {
        List<Base> out = new ArrayList<>();
        for (Base b : atomic) {
            List<String> ls = BeginEnd.split(b.lines(), new SplittableRandom(b.name().hashCode() * 31L), 0.5);
            Base x = new Base(b.name() + " (begin-end)", List.copyOf(ls), b.workers(), InputKind.BEGIN_END);
            if (accepted(x.bytes())) {
                out.add(x);
            }
        }
        return nonEmpty(out, InputKind.BEGIN_END);
    }

    /**
     * Each atomic trace at one partial level: every other trace of at most {@link #SEARCHED_LINES}
     * lines, not under lumen-dual (whose hidden holders and backups make the costliest search), at a
     * level with Place not logged, the others at the levels without a search, each set in turn.
     */
    static List<Base> partial(List<Base> atomic) {
        List<Base> out = new ArrayList<>();
        int plain = 0;
        int searched = 0;
        for (int i = 0; i < atomic.size(); i++) {
            Base b = atomic.get(i);
            boolean small = b.lines().size() <= SEARCHED_LINES && !b.lines().get(0).contains("\"policy\":\"lumen-dual\"");
            Observation o = small && i % 2 == 0 ? SEARCHED.get(searched++ % SEARCHED.size()) : LEVELS.get(plain++ % LEVELS.size());
            byte[] t = Observe.at(b.bytes(), o);
            if (accepted(t)) {
                out.add(Base.of(b.name() + " (" + o.describe() + ")", InputKind.PARTIAL, t));
            }
        }
        return nonEmpty(out, InputKind.PARTIAL);
    }

    /** Each atomic trace as per-process logs, with vector clocks and with Lamport clocks in turn. */
    static List<ProcessLogMutator.Logs> processLogs(List<Base> atomic) {
        List<ProcessLogMutator.Logs> out = new ArrayList<>();
        for (int i = 0; i < atomic.size(); i++) {
            ProcessLogMutator.Logs l = ProcessLogMutator.of(atomic.get(i).name(), atomic.get(i).bytes(), i % 3 == 2);
            if (l != null) {
                out.add(l);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no per-process base logs are accepted");
        }
        return out;
    }

    /** The client histories of the reference scenarios' runs, those the kit accepts. */
    static List<Base> histories(List<ScenarioRun> runs) {
        List<Base> out = new ArrayList<>();
        for (ScenarioRun run : runs) {
            Base b = HistoryMutator.of(run.scenario().name() + " (history)", run.history());
            if (b != null) {
                out.add(b);
            }
        }
        return nonEmpty(out, InputKind.HISTORY);
    }

    static boolean accepted(byte[] trace) {
        try {
            return Validator.validate(trace, "base", Validator.Options.defaults()).verdict() == Verdict.ACCEPTED;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static List<Base> nonEmpty(List<Base> bs, InputKind k) {
        if (bs.isEmpty()) {
            throw new IllegalStateException("no " + k.label() + " base inputs are accepted");
        }
        return bs;
    }
}
