package lumen.fuzz;

import static lumen.fuzz.TraceText.pick;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import lumen.fuzz.ReaderMutator.Base;
import lumen.fuzz.ReaderMutator.Change;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Input;
import lumen.fuzz.ReaderMutator.Mutant;
import lumen.validate.ProcessLogs;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * Mutated per-process logs (docs/trace-format.md, Per-process logs): one run's logs, each a trace
 * of one process whose header names it and whose events carry a vector clock {@code vc} or a
 * Lamport clock {@code lc}, read by {@code lumen validate --processes}. The mutants break the
 * clocks (an own entry that does not count the log's events, another's entry going back, a
 * process or a count no log has, a missing clock, both clocks, a Lamport clock that does not grow,
 * two kinds of clock), the headers (one that differs, two logs of one process), or one log's line
 * by the reading rules every trace line follows ({@link ReaderMutator#rules}); an error must name
 * the file and line the mutation touched. Wall-clock skew between the logs and the order of the
 * files are tolerated.
 */
final class ProcessLogMutator implements Generator {
    /** One run's logs: each a {@link Base} of kind {@link InputKind#PROCESS_LOGS}, named by its file. */
    record Logs(String name, List<Base> logs) {
        List<Input> inputs() {
            return logs.stream().map(l -> new Input(l.name(), l.bytes())).toList();
        }

        boolean lamport() {
            return logs.stream().anyMatch(Base::lamport);
        }
    }

    /** What a mutation made: the files, the file and line the error must be on (line 0: not one line), the change in words. */
    record LogChange(List<Input> files, String file, long line, String what) {}

    interface LogMutation {
        LogChange apply(Logs l, SplittableRandom r);
    }

    record LogRule(String name, Expect expect, String doc, LogMutation mutation) {}

    private final List<Logs> bases;
    private final List<LogRule> rules;
    private final long seed;

    ProcessLogMutator(List<Logs> bases, long seed) {
        if (bases.isEmpty()) {
            throw new IllegalArgumentException("no base logs");
        }
        this.bases = List.copyOf(bases);
        this.rules = rules();
        this.seed = seed;
    }

    @Override
    public InputKind kind() {
        return InputKind.PROCESS_LOGS;
    }

    @Override
    public int bases() {
        return bases.size();
    }

    @Override
    public ProcessLogMutator withSeed(long seed) {
        return new ProcessLogMutator(bases, seed);
    }

    /** The valid inputs the mutants start from. */
    List<Logs> baseList() {
        return bases;
    }

    @Override
    public List<Label> labels() {
        return rules.stream().map(x -> new Label(x.name(), x.expect(), x.doc())).toList();
    }

    @Override
    public Mutant mutant(long i) {
        return Generator.draw(rules, bases, seed, i, (rule, b, r) -> {
            LogChange c = rule.mutation().apply(b, r);
            return c == null ? null : new Mutant(InputKind.PROCESS_LOGS, rule.name(), rule.expect(), b.name(), c.files(), c.file(), c.line(),
                    c.what());
        }, LogRule::name, "per-process base logs");
    }

    // ---- the base logs --------------------------------------------------------------------------

    /**
     * The trace's per-process logs as {@link ProcessLogs#split} writes them (vector clocks), or with
     * Lamport clocks: each event's {@code lc} the sum of its vector clock, which grows along each
     * log and exceeds the clock of every event before it. Null when the logs are not ACCEPTED.
     */
    static Logs of(String name, byte[] trace, boolean lamport) {
        Map<String, String> split;
        try {
            split = ProcessLogs.split(trace);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        List<Base> logs = new ArrayList<>();
        for (Map.Entry<String, String> e : split.entrySet()) {
            String text = e.getValue();
            if (lamport) {
                StringBuilder b = new StringBuilder();
                for (String l : text.split("\n")) {
                    ObjectNode o = ReaderMutator.tree(l);
                    if (o.has("vc")) {
                        long sum = 0;
                        for (JsonNode v : o.get("vc")) {
                            sum += v.asLong();
                        }
                        o.remove("vc");
                        o.put("lc", sum);
                        l = o.toString();
                    }
                    b.append(l).append('\n');
                }
                text = b.toString();
            }
            logs.add(Base.of(e.getKey() + ".jsonl", InputKind.PROCESS_LOGS, text.getBytes(StandardCharsets.UTF_8)));
        }
        Logs out = new Logs(name + (lamport ? " (lc)" : " (vc)"), List.copyOf(logs));
        return accepted(out.inputs()) ? out : null;
    }

    static boolean accepted(List<Input> files) {
        try {
            ValidationResult v = ProcessLogs.validate(files.stream().map(Input::bytes).toList(), files.stream().map(Input::name).toList(),
                    Validator.Options.defaults()).result();
            return v.verdict() == Verdict.ACCEPTED;
        } catch (IOException | lumen.trace.TraceFormatException ex) {
            return false;
        }
    }

    // ---- the rules ------------------------------------------------------------------------------

    /** The files with log {@code k}'s replaced. */
    static List<Input> with(Logs l, int k, byte[] bytes) {
        List<Input> out = new ArrayList<>(l.inputs());
        out.set(k, new Input(l.logs().get(k).name(), bytes));
        return out;
    }

    static LogChange line(Logs l, int k, int index, ObjectNode o, String what) {
        List<String> ls = new ArrayList<>(l.logs().get(k).lines());
        ls.set(index, o.toString());
        return new LogChange(with(l, k, ReaderMutator.join(ls).getBytes(StandardCharsets.UTF_8)), l.logs().get(k).name(), index + 1,
                what + " (" + l.logs().get(k).name() + ":" + (index + 1) + ")");
    }

    /** A log with at least {@code events} events (and a vector clock, or a Lamport clock), drawn at random; -1 when none. */
    static int log(Logs l, SplittableRandom r, int events, Boolean lamport) {
        List<Integer> ks = new ArrayList<>();
        for (int k = 0; k < l.logs().size(); k++) {
            Base b = l.logs().get(k);
            if (b.lines().size() - 1 >= events && (lamport == null || b.lamport() == lamport)) {
                ks.add(k);
            }
        }
        return ks.isEmpty() ? -1 : pick(ks, r);
    }

    static String process(Base log) {
        return ReaderMutator.tree(log.lines().get(0)).path("process").asText();
    }

    private static List<LogRule> rules() {
        List<LogRule> rs = new ArrayList<>();
        Expect m = Expect.MALFORMED;
        rs.add(new LogRule("vc-own-count", m, "a process's own vc entry counts its events: 1 for its first, 2 for its second (Per-process"
                + " logs)", (l, r) -> {
            int k = log(l, r, 1, false);
            if (k < 0) {
                return null;
            }
            Base b = l.logs().get(k);
            int i = 1 + r.nextInt(b.lines().size() - 1);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            ObjectNode vc = (ObjectNode) o.get("vc");
            String p = process(b);
            long v = switch (r.nextInt(4)) {
                case 0 -> i + 1;
                case 1 -> i - 1;
                case 2 -> i + 2 + r.nextInt(1000);
                default -> -1;
            };
            if (v < 0) {
                vc.remove(p);
            } else {
                vc.put(p, v);
            }
            return line(l, k, i, o, "event " + i + "'s own entry " + (v < 0 ? "left out" : "= " + v));
        }));
        rs.add(new LogRule("vc-goes-back", m, "every entry of a vector clock is monotone along a log (Per-process logs)", (l, r) -> {
            int k = log(l, r, 2, false);
            if (k < 0) {
                return null;
            }
            Base b = l.logs().get(k);
            String p = process(b);
            List<int[]> cands = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 2; i < b.lines().size(); i++) {
                ObjectNode prev = (ObjectNode) ReaderMutator.tree(b.lines().get(i - 1)).get("vc");
                for (Iterator<String> it = prev.fieldNames(); it.hasNext(); ) {
                    String q = it.next();
                    if (!q.equals(p) && prev.get(q).asLong() > 0) {
                        cands.add(new int[] {i, (int) prev.get(q).asLong()});
                        names.add(q);
                    }
                }
            }
            if (cands.isEmpty()) {
                return null;
            }
            int c = r.nextInt(cands.size());
            int i = cands.get(c)[0];
            String q = names.get(c);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            ObjectNode vc = (ObjectNode) o.get("vc");
            long to = r.nextInt(cands.get(c)[1]);
            if (to == 0 && r.nextBoolean()) {
                vc.remove(q);
            } else {
                vc.put(q, to);
            }
            return line(l, k, i, o, "vc." + q + " back to " + to + " after " + cands.get(c)[1]);
        }));
        rs.add(new LogRule("vc-unknown-process", m, "a vector clock names processes that have logs (Per-process logs)", (l, r) -> {
            int k = log(l, r, 1, false);
            if (k < 0) {
                return null;
            }
            Base b = l.logs().get(k);
            int i = 1 + r.nextInt(b.lines().size() - 1);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            String ghost = pick(r, "worker-99", "ghost", "Gateway", "gateway ", "", "worker-" + l.logs().size() + 7, "\u00e9");
            for (Base x : l.logs()) {
                if (process(x).equals(ghost)) {
                    return null;
                }
            }
            ((ObjectNode) o.get("vc")).put(ghost, 1 + r.nextInt(3));
            return line(l, k, i, o, "vc names process '" + ghost + "'");
        }));
        rs.add(new LogRule("vc-beyond-log", m, "a vector clock counts events that happened: no more than the process's log has"
                + " (Per-process logs)", (l, r) -> {
            int k = log(l, r, 1, false);
            if (k < 0 || l.logs().size() < 2) {
                return null;
            }
            int j = r.nextInt(l.logs().size() - 1);
            j = j >= k ? j + 1 : j;
            Base b = l.logs().get(k);
            int i = 1 + r.nextInt(b.lines().size() - 1);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            long n = l.logs().get(j).lines().size() - 1;
            long v = n + 1 + (r.nextBoolean() ? 0 : r.nextInt(1000));
            ((ObjectNode) o.get("vc")).put(process(l.logs().get(j)), v);
            return line(l, k, i, o, "vc." + process(l.logs().get(j)) + " = " + v + ", beyond its " + n + " events");
        }));
        rs.add(new LogRule("missing-clock", m, "every event of a per-process log carries a clock (Per-process logs)", (l, r) -> {
            int k = log(l, r, 1, null);
            if (k < 0) {
                return null;
            }
            Base b = l.logs().get(k);
            int i = 1 + r.nextInt(b.lines().size() - 1);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            o.remove(b.lamport() ? "lc" : "vc");
            return line(l, k, i, o, "no clock");
        }));
        rs.add(new LogRule("both-clocks", m, "an event carries one clock: vc or lc (Per-process logs)", (l, r) -> {
            int k = log(l, r, 1, null);
            if (k < 0) {
                return null;
            }
            Base b = l.logs().get(k);
            int i = 1 + r.nextInt(b.lines().size() - 1);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            if (b.lamport()) {
                o.putObject("vc").put(process(b), i);
            } else {
                o.put("lc", i);
            }
            return line(l, k, i, o, "both clocks");
        }));
        rs.add(new LogRule("lc-not-growing", m, "a Lamport clock grows along each log (Per-process logs)", (l, r) -> {
            int k = log(l, r, 2, true);
            if (k < 0) {
                return null;
            }
            Base b = l.logs().get(k);
            int i = 2 + r.nextInt(b.lines().size() - 2);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            long prev = ReaderMutator.tree(b.lines().get(i - 1)).path("lc").asLong();
            long v = r.nextBoolean() ? prev : r.nextInt((int) Math.min(prev + 1, Integer.MAX_VALUE));
            o.put("lc", v);
            return line(l, k, i, o, "lc " + v + " after " + prev);
        }));
        rs.add(new LogRule("mixed-clocks", m, "the logs of one run use one kind of clock (Per-process logs)", (l, r) -> {
            int k = log(l, r, 1, null);
            if (k < 0) {
                return null;
            }
            Base b = l.logs().get(k);
            if (r.nextBoolean()) {
                // one event with the other kind of clock
                int i = 1 + r.nextInt(b.lines().size() - 1);
                ObjectNode o = ReaderMutator.tree(b.lines().get(i));
                other(o);
                return line(l, k, i, o, "one event with the other kind of clock");
            }
            // a whole log with the other kind: which log's line is named depends on the order the logs are read
            List<String> ls = new ArrayList<>();
            ls.add(b.lines().get(0));
            for (int i = 1; i < b.lines().size(); i++) {
                ObjectNode o = ReaderMutator.tree(b.lines().get(i));
                other(o);
                ls.add(o.toString());
            }
            return new LogChange(with(l, k, ReaderMutator.join(ls).getBytes(StandardCharsets.UTF_8)), b.name(), 0,
                    b.name() + " written with the other kind of clock");
        }));
        rs.add(new LogRule("header-differs", m, "the first line is the same header in every log, plus its process (Per-process logs)",
                (l, r) -> {
            if (l.logs().size() < 2) {
                return null;
            }
            // a log after the first: the first log's header is the one the others are held to
            int k = 1 + r.nextInt(l.logs().size() - 1);
            Base b = l.logs().get(k);
            ObjectNode h = ReaderMutator.tree(b.lines().get(0));
            ObjectNode cfg = (ObjectNode) h.get("config");
            String what;
            switch (r.nextInt(5)) {
                case 0 -> {
                    cfg.put("tau", cfg.path("tau").asInt() + 1);
                    what = "tau";
                }
                case 1 -> {
                    cfg.put("budget", cfg.path("budget").asInt() + 1 + r.nextInt(100));
                    what = "budget";
                }
                case 2 -> {
                    cfg.put("k", cfg.path("k").asInt() == 1 ? 2 : cfg.path("k").asInt() - 1);
                    what = "k";
                }
                case 3 -> {
                    cfg.put("theta", cfg.path("theta").asDouble() + 0.5);
                    what = "theta";
                }
                default -> {
                    h.put("version", 1);
                    what = "version";
                }
            }
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(0, h.toString());
            return new LogChange(with(l, k, ReaderMutator.join(ls).getBytes(StandardCharsets.UTF_8)), b.name(), 1,
                    b.name() + "'s header differs in " + what);
        }));
        rs.add(new LogRule("two-logs-of-one-process", m, "each process has one log (Per-process logs)", (l, r) -> {
            int j = r.nextInt(l.logs().size());
            Base b = l.logs().get(j);
            String copy = b.name().replace(".jsonl", "") + pick(r, "-copy", ".1", "-again") + ".jsonl";
            List<Input> files = new ArrayList<>(l.inputs());
            files.add(j + 1 + r.nextInt(files.size() - j), new Input(copy, b.bytes()));
            return new LogChange(files, copy, 1, b.name() + " given twice, the second time as " + copy);
        }));

        for (ReaderMutator.Rule x : ReaderMutator.rules(InputKind.PROCESS_LOGS)) {
            rs.add(new LogRule(x.name(), x.expect(), x.doc() + ", in one log", (l, r) -> {
                int k = r.nextInt(l.logs().size());
                Change c = x.mutation().apply(l.logs().get(k), r);
                if (c == null) {
                    return null;
                }
                return new LogChange(with(l, k, c.bytes()), l.logs().get(k).name(), c.line(), c.what() + " in " + l.logs().get(k).name());
            }));
        }

        Expect ok = Expect.ACCEPTED;
        rs.add(new LogRule("wall-clock-skew", ok, "each process's t is its own wall clock; the merge drops it, so skew cannot matter"
                + " (Per-process logs, Time)", (l, r) -> {
            int k = r.nextInt(l.logs().size());
            Base b = l.logs().get(k);
            double shift = pick(r, -1e9, -86_400_000.0, -1000.5, 0.25, 3_600_000.0, 1e12);
            List<String> ls = new ArrayList<>();
            ls.add(b.lines().get(0));
            for (int i = 1; i < b.lines().size(); i++) {
                ObjectNode o = ReaderMutator.tree(b.lines().get(i));
                if (o.has("t")) {
                    o.put("t", o.get("t").asDouble() + shift);
                }
                ls.add(o.toString());
            }
            return new LogChange(with(l, k, ReaderMutator.join(ls).getBytes(StandardCharsets.UTF_8)), b.name(), 0,
                    b.name() + "'s clock " + shift + " ms off");
        }));
        rs.add(new LogRule("files-reordered", ok, "the logs may be given in any order (Per-process logs)", (l, r) -> {
            List<Input> files = new ArrayList<>(l.inputs());
            for (int i = files.size() - 1; i > 0; i--) {
                java.util.Collections.swap(files, i, r.nextInt(i + 1));
            }
            return new LogChange(files, files.get(0).name(), 0, "files in the order " + String.join(" ", files.stream().map(Input::name).toList()));
        }));
        return List.copyOf(rs);
    }

    /** An event's vector clock replaced by a Lamport clock (its sum), or its Lamport clock by a vector clock of its own entry. */
    private static void other(ObjectNode o) {
        if (o.has("vc")) {
            long sum = 0;
            for (JsonNode v : o.get("vc")) {
                sum += v.asLong();
            }
            o.remove("vc");
            o.put("lc", sum);
        } else {
            long lc = o.path("lc").asLong();
            o.remove("lc");
            o.putObject("vc").put("gateway", Math.max(1, lc));
        }
    }
}
