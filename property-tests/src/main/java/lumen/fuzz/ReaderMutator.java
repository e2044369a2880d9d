package lumen.fuzz;

import static lumen.fuzz.TraceText.insert;
import static lumen.fuzz.TraceText.pick;
import static lumen.fuzz.TraceText.replace;
import static lumen.fuzz.TraceText.tokens;
import static lumen.fuzz.TraceText.where;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import lumen.core.Policies;
import lumen.fuzz.TraceText.Tok;
import lumen.props.ScheduleGenerator;
import lumen.props.ScheduleTraces;
import lumen.runtime.Scenario;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * A seeded generator of mutated traces for the trace reader, each labelled with the rule of
 * docs/trace-format.md it breaks, or with the variation the docs say is fine. It starts from
 * valid traces the kit writes (the accepted reference scenarios, and runtime traces of random
 * schedules under every policy) and changes one thing: a number beyond its range, a blank line,
 * a byte-order mark, a duplicate key, a 10 MB line, a time that goes backwards, and so on.
 *
 * <p>Every malformed mutant breaks its rule on one known line, which every line before it
 * leaves intact (the bases are accepted traces), so the reader must refuse it there. Tolerated
 * mutants (CRLF, ext objects, extra spaces, other spellings of the same JSON) must be accepted.
 * "Any" mutants push values to their documented extremes: any verdict will do, but never an
 * exception or a hang. The same seed and index give the same mutant.
 *
 * <p>The same rules serve every trace kind: a rule that adds or removes a field knows what each
 * line form carries ({@link LineForms}: an atomic event, a begin, a chunk, an end, a batch line, a
 * size report, a process's event, a header). Traces with begin and end forms and partial traces
 * add the rules of their own forms ({@link BeginEndRules}, {@link PartialRules}), and the
 * per-process logs apply these rules to one log of a run ({@link ProcessLogMutator}).
 */
public final class ReaderMutator implements Generator {
    /** What the validator must conclude about a mutant. */
    public enum Expect {
        /** The docs call it malformed: MALFORMED, at {@link Mutant#line()} when that is known. */
        MALFORMED,
        /** The docs say it is fine: ACCEPTED, as its base was. */
        ACCEPTED,
        /** Values at their documented limits: any verdict, but a verdict. */
        ANY
    }

    /** One file of an input: its name, as errors must name it, and its bytes. */
    public record Input(String name, byte[] bytes) {}

    /**
     * One mutated input: one file, or one run's per-process logs.
     *
     * @param rule   the rule it breaks, or the tolerated variation it makes
     * @param inputs its files, in the order they are given to the reader
     * @param file   the file the error must be in (MALFORMED)
     * @param line   the line the error must be on (MALFORMED), or 0 when not one line
     * @param what   the change, in words (for reports)
     */
    public record Mutant(InputKind kind, String rule, Expect expect, String base, List<Input> inputs, String file, long line, String what) {
        /** The bytes of its (first) file. */
        public byte[] bytes() {
            return inputs.get(0).bytes();
        }
    }

    /**
     * A valid input to start from, as its lines (without line ends): a trace of one kind, or one
     * process's log ({@link InputKind#PROCESS_LOGS}); {@code workers} from its header's config.
     */
    public record Base(String name, List<String> lines, int workers, InputKind kind) {
        static Base of(String name, byte[] trace) {
            return of(name, InputKind.ATOMIC, trace);
        }

        static Base of(String name, InputKind kind, byte[] trace) {
            List<String> ls = new ArrayList<>(Arrays.asList(new String(trace, StandardCharsets.UTF_8).split("\n", -1)));
            if (ls.get(ls.size() - 1).isEmpty()) {
                ls.remove(ls.size() - 1);
            }
            int w;
            try {
                w = MAPPER.readTree(ls.get(0)).get("config").get("workers").asInt();
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            return new Base(name, List.copyOf(ls), w, kind);
        }

        /** The base's bytes, every line ended. */
        byte[] bytes() {
            return join(lines).getBytes(StandardCharsets.UTF_8);
        }

        /** A per-process log whose events carry Lamport clocks. */
        boolean lamport() {
            return kind == InputKind.PROCESS_LOGS && lines.size() > 1 && tree(lines.get(1)).has("lc");
        }
    }

    /** One rule: its name, what it expects, and the mutation (null when it does not apply to this base; another is drawn). */
    public record Rule(String name, Expect expect, String doc, Mutation mutation) {}

    interface Mutation {
        Change apply(Base b, SplittableRandom r);
    }

    /** What a mutation made: the trace's bytes, the line that breaks the rule (0: none or not one), the change in words. */
    record Change(byte[] bytes, long line, String what) {
        static Change lines(List<String> lines, long line, String what) {
            return new Change(join(lines).getBytes(StandardCharsets.UTF_8), line, what);
        }
    }

    static final ObjectMapper MAPPER = new ObjectMapper();
    static final int MAX = Integer.MAX_VALUE;
    static final int TEN_MB = 10 << 20;
    private static final String[] ID_FIELDS = {"req", "worker", "holder", "backup"};
    private static final String[] ID_ARRAYS = {"interrupted", "orphaned", "promoted", "dropped", "ref"};

    /** The name every single-file mutant's file has. */
    public static final String SOURCE = "fuzz.jsonl";

    private final List<Base> bases;
    private final List<Rule> rules;
    private final long seed;
    private final InputKind kind;

    /** Mutants of {@code bases}, all of one kind: a trace kind (atomic, begin-end or partial). */
    public ReaderMutator(List<Base> bases, long seed) {
        if (bases.isEmpty()) {
            throw new IllegalArgumentException("no base traces");
        }
        this.kind = bases.get(0).kind();
        if (bases.stream().anyMatch(b -> b.kind() != kind) || kind == InputKind.PROCESS_LOGS || kind == InputKind.HISTORY) {
            throw new IllegalArgumentException("base traces of one trace kind (atomic, begin-end or partial) are needed");
        }
        this.bases = List.copyOf(bases);
        this.rules = rules(kind);
        this.seed = seed;
    }

    @Override
    public InputKind kind() {
        return kind;
    }

    @Override
    public int bases() {
        return bases.size();
    }

    @Override
    public ReaderMutator withSeed(long seed) {
        return new ReaderMutator(bases, seed);
    }

    /** The valid traces the mutants start from. */
    List<Base> baseList() {
        return bases;
    }

    /** The rules, in the order mutants cycle through them. */
    public List<Rule> rules() {
        return rules;
    }

    @Override
    public List<Generator.Label> labels() {
        return rules.stream().map(x -> new Generator.Label(x.name(), x.expect(), x.doc())).toList();
    }

    /** Mutant {@code i}: rule {@code i mod rules}, so every rule gets its share. */
    @Override
    public Mutant mutant(long i) {
        return Generator.draw(rules, bases, seed, i, (rule, b, r) -> {
            Change c = rule.mutation().apply(b, r);
            return c == null ? null : new Mutant(kind, rule.name(), rule.expect(), b.name(), List.of(new Input(SOURCE, c.bytes())), SOURCE,
                    c.line(), c.what());
        }, Rule::name, kind.label() + " base inputs");
    }

    /**
     * The rules for inputs of {@code kind}: the reading rules every trace line follows (the
     * per-process logs' too, applied to one log), and the rules of the kind's own forms.
     */
    static List<Rule> rules(InputKind kind) {
        List<Rule> out = new ArrayList<>();
        for (Rule x : lineRules()) {
            // each process's t is its own wall clock: the merge drops it, and nothing in the docs orders one log's times
            if (kind == InputKind.PROCESS_LOGS && x.name().equals("time-backwards")) {
                continue;
            }
            out.add(x);
        }
        if (kind == InputKind.BEGIN_END) {
            out.addAll(BeginEndRules.rules());
        } else if (kind == InputKind.PARTIAL) {
            out.addAll(PartialRules.rules());
        }
        return List.copyOf(out);
    }

    // ---- the base traces ------------------------------------------------------------------------

    /**
     * The accepted reference scenarios (run through the runtime, byte for byte the checked-in
     * traces) and {@code schedules} runtime traces of random schedules under every policy; only
     * those the validator accepts.
     */
    public static List<Base> defaultBases(int schedules) {
        return defaultBases(acceptedRuns(), schedules);
    }

    /** The reference scenarios that must be accepted, run through the runtime. */
    static List<ScenarioRun> acceptedRuns() {
        List<ScenarioRun> out = new ArrayList<>();
        for (Scenario sc : Scenarios.all()) {
            if (sc.expectsAcceptance()) {
                out.add(ScenarioRun.run(sc));
            }
        }
        return out;
    }

    /** The traces of {@code runs} and of {@code schedules} random schedules, those the validator accepts. */
    static List<Base> defaultBases(List<ScenarioRun> runs, int schedules) {
        List<Base> out = new ArrayList<>();
        for (ScenarioRun run : runs) {
            out.add(Base.of(run.scenario().name(), run.trace()));
        }
        ScheduleGenerator gen = new ScheduleGenerator(Policies.keys());
        for (int s = 1; s <= schedules; s++) {
            byte[] trace = ScheduleTraces.record(gen.generate(s));
            out.add(Base.of("schedule-" + s, trace));
        }
        out.removeIf(b -> !accepted(join(b.lines()).getBytes(StandardCharsets.UTF_8)));
        return out;
    }

    static boolean accepted(byte[] trace) {
        try {
            return Validator.validate(new ByteArrayInputStream(trace), "base").verdict() == Verdict.ACCEPTED;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The trace with the header and about a third of the other lines respelled token by token,
     * last token first (so earlier offsets stay valid): {@code f} returns the line with token t
     * respelled, or null to leave it.
     */
    private static Change respelled(Base b, SplittableRandom r, String what, java.util.function.BiFunction<String, Tok, String> f) {
        List<String> ls = new ArrayList<>(b.lines());
        for (int i = 0; i < ls.size(); i++) {
            if (r.nextInt(3) != 0 && i != 0) {
                continue;
            }
            String s = ls.get(i);
            List<Tok> ts = tokens(s);
            for (int k = ts.size() - 1; k >= 0; k--) {
                String t = f.apply(s, ts.get(k));
                s = t == null ? s : t;
            }
            ls.set(i, s);
        }
        return Change.lines(ls, 0, what);
    }

    static String join(List<String> lines) {
        return String.join("\n", lines) + "\n";
    }

    /** The lines, each with its line end; nothing for none. */
    static String text(List<String> lines) {
        return lines.isEmpty() ? "" : join(lines);
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /** A line index (0 = the header) and that line's tokens. */
    record At(int index, String line, List<Tok> toks) {}

    static At line(Base b, SplittableRandom r, boolean header) {
        int i = header ? r.nextInt(b.lines().size()) : 1 + r.nextInt(b.lines().size() - 1);
        return new At(i, b.lines().get(i), tokens(b.lines().get(i)));
    }

    /** A random event line of one of these types, or null when the trace has none. */
    static At lineOf(Base b, SplittableRandom r, String... types) {
        List<Integer> is = new ArrayList<>();
        for (int i = 1; i < b.lines().size(); i++) {
            for (String t : types) {
                if (b.lines().get(i).startsWith("{\"type\":\"" + t + "\"")) {
                    is.add(i);
                }
            }
        }
        if (is.isEmpty()) {
            return null;
        }
        int i = pick(is, r);
        return new At(i, b.lines().get(i), tokens(b.lines().get(i)));
    }

    /** The form of a line of {@code b}: what its fields must and may be. */
    static LineForms form(Base b, At at) {
        return LineForms.of(b.kind(), at.index(), tree(at.line()), b.lamport());
    }

    static At header(Base b) {
        return new At(0, b.lines().get(0), tokens(b.lines().get(0)));
    }

    static List<String> with(Base b, int index, String newLine) {
        List<String> ls = new ArrayList<>(b.lines());
        ls.set(index, newLine);
        return ls;
    }

    /** The header line with {@code readings} added to its config object, after its "k". */
    static String withReadings(String header, String readings) {
        return header.replaceFirst("(\"k\"\\s*:\\s*[0-9]+)", "$1,\"readings\":" + java.util.regex.Matcher.quoteReplacement(readings));
    }

    static Change changed(Base b, At at, String newLine, String what) {
        return Change.lines(with(b, at.index(), newLine), at.index() + 1, what);
    }

    /** The line with one token replaced. */
    static Change swap(Base b, At at, int tok, String with, String what) {
        Tok t = at.toks().get(tok);
        return changed(b, at, replace(at.line(), t.start(), TraceText.valueEnd(at.toks(), tok), with),
                what + " (" + name(t) + ": " + at.line().substring(t.start(), t.end()) + " -> " + abbreviate(with) + ")");
    }

    static String name(Tok t) {
        return t.array() != null ? t.array() + "[]" : String.valueOf(t.field());
    }

    static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 40) + "... (" + s.length() + " chars)";
    }

    /** The line with {@code text} put right after the opening brace of the object that token {@code obj} starts. */
    static String afterBrace(At at, int obj, String text) {
        int at0 = at.toks().get(obj).start() + 1;
        boolean empty = at.toks().get(obj + 1).kind() == JsonToken.END_OBJECT;
        return insert(at.line(), at0, empty ? text : text + ",");
    }

    static String typeOf(At at) {
        for (Tok t : at.toks()) {
            if (t.kind() == JsonToken.VALUE_STRING && "type".equals(t.field()) && t.depth() == 1) {
                return at.line().substring(t.start() + 1, t.end() - 1);
            }
        }
        return null;
    }

    static String big(SplittableRandom r, int digits) {
        StringBuilder b = new StringBuilder();
        b.append((char) ('1' + r.nextInt(9)));
        for (int i = 1; i < digits; i++) {
            b.append((char) ('0' + r.nextInt(10)));
        }
        return b.toString();
    }

    static String quoted(String s) {
        return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /** The trace's bytes with {@code insert} at byte {@code pos} of line {@code index}. */
    static byte[] insertBytes(Base b, int index, SplittableRandom r, byte[] what) {
        List<String> ls = b.lines();
        byte[] line = utf8(ls.get(index));
        int pos = r.nextInt(line.length + 1);
        byte[] before = utf8(text(ls.subList(0, index)));
        byte[] after = utf8(text(ls.subList(index + 1, ls.size())));
        return concat(before, Arrays.copyOf(line, pos), what, Arrays.copyOfRange(line, pos, line.length), utf8("\n"), after);
    }

    static String ints(int n, String each) {
        StringBuilder b = new StringBuilder(n * (each.length() + 1) + 2).append('[');
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append(each);
        }
        return b.append(']').toString();
    }

    static int logUniform(SplittableRandom r, int lo, int hi) {
        return (int) Math.round(Math.exp(Math.log(lo) + r.nextDouble() * (Math.log(hi) - Math.log(lo))));
    }

    static ObjectNode tree(String line) {
        try {
            return (ObjectNode) MAPPER.readTree(line);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static String json(JsonNode n) {
        try {
            return MAPPER.writeValueAsString(n);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    // ---- the rules -----------------------------------------------------------------------------

    private static List<Rule> lineRules() {
        List<Rule> rs = new ArrayList<>();
        Expect m = Expect.MALFORMED;

        rs.add(new Rule("int-beyond-64-bits", m, "an integer field within 32 bits (Numbers)", (b, r) -> {
            At at = line(b, r, true);
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT);
            if (is.isEmpty()) {
                return null;
            }
            String v = (r.nextBoolean() ? "-" : "") + big(r, 20 + r.nextInt(60));
            return swap(b, at, pick(is, r), v, "an integer beyond 64 bits");
        }));
        rs.add(new Rule("int-beyond-32-bits", m, "an integer field within 32 bits (Numbers)", (b, r) -> {
            At at = line(b, r, true);
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT);
            if (is.isEmpty()) {
                return null;
            }
            long v = 2147483648L + (r.nextBoolean() ? r.nextInt(1000) : r.nextLong(Long.MAX_VALUE - 2147483648L));
            return swap(b, at, pick(is, r), Long.toString(v), "an integer beyond 2^31-1");
        }));
        rs.add(new Rule("float-for-int", m, "an integer has no fraction or exponent (Numbers)", (b, r) -> {
            At at = line(b, r, true);
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT);
            if (is.isEmpty()) {
                return null;
            }
            int i = pick(is, r);
            Tok t = at.toks().get(i);
            String n = at.line().substring(t.start(), t.end());
            return swap(b, at, i, pick(r, n + ".0", n + "e0", n + "E+0", n + ".5", n + "0e-1", "1.0e1"), "a float where an integer is required");
        }));
        rs.add(new Rule("non-finite-number", m, "numbers are finite; NaN and Infinity are not JSON (Numbers)", (b, r) -> {
            At at = line(b, r, true);
            List<Integer> is = where(at.toks(), t -> t.kind().isNumeric());
            if (is.isEmpty()) {
                return null;
            }
            String v = pick(r, "1e999", "-1e999", "1E400", "NaN", "-NaN", "Infinity", "-Infinity", "+Infinity", "inf",
                    "1" + "0".repeat(400), "-" + "9".repeat(330) + ".5");
            return swap(b, at, pick(is, r), v, "a number that is not finite");
        }));
        rs.add(new Rule("negative-id", m, "ids and sizes are >= 0 (Numbers and limits)", (b, r) -> {
            At at = line(b, r, true);
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT
                    && (Arrays.asList(ID_FIELDS).contains(t.field()) || Arrays.asList(ID_ARRAYS).contains(t.array())
                    || t.depth() == 2 && at.index() == 0));
            if (is.isEmpty()) {
                return null;
            }
            return swap(b, at, pick(is, r), "-" + (1 + (r.nextBoolean() ? r.nextInt(10) : r.nextInt(MAX))), "a negative id or size");
        }));
        rs.add(new Rule("unknown-worker", m, "workers are 0..workers-1 (What the validator checks, 1)", (b, r) -> {
            At at = line(b, r, false);
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT && t.depth() == 1
                    && in(t.field(), "worker", "holder", "backup"));
            if (is.isEmpty()) {
                return null;
            }
            return swap(b, at, pick(is, r), Integer.toString(b.workers() + r.nextInt(r.nextBoolean() ? 3 : MAX - b.workers())), "an unknown worker");
        }));
        rs.add(new Rule("unknown-request", m, "a request is named only after its Arrive (What the validator checks, 1)", (b, r) -> {
            At at = line(b, r, false);
            if ("Arrive".equals(typeOf(at))) {
                return null;
            }
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT
                    && ("req".equals(t.field()) && t.depth() == 1 || in(t.array(), "interrupted", "orphaned", "promoted", "dropped")));
            if (is.isEmpty()) {
                return null;
            }
            return swap(b, at, pick(is, r), Integer.toString(2_000_000_000 + r.nextInt(100_000_000)), "a request that never arrived");
        }));
        rs.add(new Rule("duplicate-key", m, "a key at most once in an object (Objects)", (b, r) -> {
            At at = line(b, r, true);
            List<Integer> objs = where(at.toks(), t -> t.kind() == JsonToken.START_OBJECT);
            int obj = pick(objs, r);
            int depth = at.toks().get(obj).depth() + 1;
            List<Integer> names = new ArrayList<>();
            int close = TraceText.valueEnd(at.toks(), obj);
            for (int i : where(at.toks(), t -> t.kind() == JsonToken.FIELD_NAME && t.depth() == depth)) {
                if (at.toks().get(i).start() > at.toks().get(obj).start() && at.toks().get(i).end() < close) {
                    names.add(i);
                }
            }
            if (names.isEmpty()) {
                return null;
            }
            String nm = at.toks().get(pick(names, r)).field();
            String v = pick(r, "0", "1", "\"x\"", "null", "[]", "{}", "1.5");
            return changed(b, at, afterBrace(at, obj, quoted(nm) + ":" + v), "the key '" + nm + "' twice");
        }));
        rs.add(new Rule("unknown-field", m, "every field is one the line's form names; ext is the one exception (Objects; Begin and end;"
                + " Partial traces)", (b, r) -> {
            At at = line(b, r, true);
            LineForms form = form(b, at);
            // the objects whose fields the contract names: the line's own, config, observes, an entry of a batch or a size report
            List<Integer> objs = where(at.toks(), t -> t.kind() == JsonToken.START_OBJECT && (t.depth() == 0
                    || at.index() == 0 && in(t.field(), "config", "observes") || t.depth() == 2 && in(t.array(), "batch", "sizes")));
            int obj = pick(objs, r);
            Tok o = at.toks().get(obj);
            Set<String> allowed = new HashSet<>();
            Set<String> foreign = new TreeSet<>(LineForms.EVENT_FIELDS);
            if (o.depth() == 0) {
                if (form == null) {
                    return null;
                }
                allowed.addAll(LineForms.ALWAYS);
                allowed.addAll(form.required());
                allowed.addAll(form.optional());
                if (at.index() == 0) {
                    // a header names none of an event's fields, nor the other kinds' declarations (observes:{} is a full
                    // observation, fine on any trace: it is left out)
                    foreign.addAll(List.of("steps", "process", "vc", "lc"));
                } else if (b.kind() == InputKind.PROCESS_LOGS) {
                    foreign.add(b.lamport() ? "vc" : "lc");   // both clocks
                }
            } else if ("config".equals(o.field())) {
                allowed.addAll(LineForms.CONFIG);
                foreign.add("ext");   // ext goes next to config, not inside it
            } else if ("observes".equals(o.field())) {
                allowed.addAll(LineForms.OBSERVES);
                foreign.add("ext");
            } else {
                allowed.addAll("batch".equals(o.array()) ? LineForms.BATCH_ENTRY : LineForms.SIZES_ENTRY);
            }
            foreign.removeAll(allowed);
            String nm = r.nextBoolean() && !foreign.isEmpty() ? pick(new ArrayList<>(foreign), r)
                    : pick(r, "colour", "Type", "REQ", "req_", "tt", "time", "x", "\u00e9t\u00e9", "", " ", "Ext", "exts", "_ext", "loads2",
                            "type ", "t\u0000", "\ud83d\ude00");
            if (allowed.contains(nm)) {
                return null;
            }
            String v = nm.equals("ext") ? "{}" : pick(r, "1", "\"x\"", "null", "[]", "{}", "true", "[1,2]");
            return changed(b, at, afterBrace(at, obj, quoted(nm) + ":" + v), "an unknown field '" + nm + "' on "
                    + (o.depth() == 0 ? "a " + form.name() + " line" : "its " + (o.field() != null ? o.field() : o.array() + " entry")));
        }));
        rs.add(new Rule("ext-not-an-object", m, "ext must be a JSON object (Objects)", (b, r) -> {
            At at = line(b, r, true);
            String v = pick(r, "[]", "[{}]", "\"ext\"", "0", "-1.5", "null", "true", "false", "\"{}\"");
            return changed(b, at, afterBrace(at, 0, "\"ext\":" + v), "ext that is not an object: " + v);
        }));
        rs.add(new Rule("huge-header-size", m, "the header's sizes have limits (The header)", (b, r) -> {
            At at = header(b);
            String f = pick(r, "workers", "k", "pageTokens", "budget", "tau");
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT && f.equals(t.field()));
            String v = switch (f) {
                case "workers" -> pick(r, "4097", "10000000", "2147483647", "1000000000000", big(r, 30));
                case "k" -> pick(r, "65", "1000", "2147483647");
                case "pageTokens" -> pick(r, "65537", "1000000000", "2147483647");
                default -> pick(r, "2147483648", "9223372036854775807", big(r, 25));
            };
            return swap(b, at, is.get(0), v, "a header size beyond its limit");
        }));
        rs.add(new Rule("bad-header-value", m, "the header's values (The header)", (b, r) -> {
            At at = header(b);
            String f = pick(r, "format", "version", "policy", "workers", "k", "pageTokens", "alpha", "beta", "type");
            List<Integer> is = where(at.toks(), t -> t.scalar() && f.equals(t.field()));
            String v = switch (f) {
                case "format" -> pick(r, "\"lumen\"", "\"LUMEN-TRACE\"", "\"lumen-trace \"", "\"\"");
                case "version" -> pick(r, "0", "3", "10");
                case "policy" -> pick(r, "\"LUMEN\"", "\"nope\"", "\"lumen_dual\"", "\"\"", "\"lumen \"");
                case "workers" -> pick(r, "0", "1");
                case "alpha", "beta" -> pick(r, "-1.0", "-0.5", "-1e-300");
                case "type" -> pick(r, "\"Header\"", "\"Arrive\"", "\"headers\"");
                default -> "0";
            };
            return swap(b, at, is.get(0), v, "a bad header value");
        }));
        rs.add(new Rule("bad-readings", m, "config.readings names known readings with their values (The header; readings.md)", (b, r) -> {
            String rd = pick(r, "[]", "\"waiting\"", "{\"queue\":\"all\"}", "{\"queueDepth\":\"run\"}", "{\"rebackup\":\"true\"}",
                    "{\"rebackup\":1}", "{\"ringDirection\":\"left\"}", "{\"ringFallThrough\":null}", "{\"queue\":\"run\",\"queue\":\"waiting\"}");
            return Change.lines(with(b, 0, withReadings(b.lines().get(0), rd)), 1, "a header with readings " + rd);
        }));
        rs.add(new Rule("missing-header", m, "line 1 is the header (Shape)", (b, r) -> {
            int kind = r.nextInt(5);
            if (kind == 0) {
                return new Change(new byte[0], 1, "an empty file");
            }
            if (kind == 1) {
                return Change.lines(b.lines().subList(1, b.lines().size()), 1, "the header line removed");
            }
            String h = pick(r, "{}", "{\"type\":\"header\"}", "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1}",
                    "{\"format\":\"lumen-trace\",\"version\":1,\"config\":{}}");
            return Change.lines(with(b, 0, h), 1, "an incomplete header: " + h);
        }));
        rs.add(new Rule("blank-line", m, "no blank lines (Lines)", (b, r) -> {
            int k = r.nextInt(b.lines().size() + 1);
            String blank = pick(r, "", " ", "\t", "  \t ");
            List<String> ls = new ArrayList<>(b.lines());
            ls.add(k, blank);
            if (k == ls.size() - 1 && r.nextBoolean()) {
                // a last line of only whitespace, without a line end
                String s = join(ls.subList(0, k)) + (blank.isEmpty() ? " " : blank);
                return new Change(utf8(s), k + 1, "whitespace after the last line's end");
            }
            return Change.lines(ls, k + 1, "a blank line " + (k + 1));
        }));
        rs.add(new Rule("byte-order-mark", m, "UTF-8 without a BOM (Bytes)", (b, r) ->
                new Change(concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, utf8(join(b.lines()))), 1, "a UTF-8 BOM")));
        rs.add(new Rule("not-utf8-encoding", m, "a trace is UTF-8 (Bytes)", (b, r) -> {
            Charset cs = Charset.forName(pick(r, "UTF-16", "UTF-16LE", "UTF-16BE", "UTF-32", "UTF-32LE"));
            byte[] body = join(b.lines()).getBytes(cs);
            if (r.nextBoolean() && cs.name().endsWith("LE")) {
                body = concat(cs.name().startsWith("UTF-16") ? new byte[] {(byte) 0xFF, (byte) 0xFE} : new byte[] {(byte) 0xFF, (byte) 0xFE, 0, 0}, body);
            }
            return new Change(body, 1, "the trace in " + cs.name());
        }));
        rs.add(new Rule("invalid-utf8", m, "strict UTF-8, in ext too (Bytes)", (b, r) -> {
            byte[][] seqs = {{(byte) 0x80}, {(byte) 0xBF}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xC1, (byte) 0xBF}, {(byte) 0xE0, (byte) 0x80, (byte) 0x80},
                {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xED, (byte) 0xBF, (byte) 0xBF}, {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0x80},
                {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0xFE}, {(byte) 0xFF},
                {(byte) 0xC3}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0, (byte) 0x9F, (byte) 0x98}};
            byte[] bad = seqs[r.nextInt(seqs.length)];
            At at = line(b, r, true);
            if (r.nextBoolean()) {
                return new Change(insertBytes(b, at.index(), r, bad), at.index() + 1, "invalid UTF-8 " + hex(bad) + " in the line");
            }
            String[] parts = afterBrace(at, 0, "\"ext\":{\"note\":\"@\"}").split("@", 2);
            List<String> ls = b.lines();
            byte[] trace = concat(utf8(text(ls.subList(0, at.index()))), utf8(parts[0]), bad, utf8(parts[1] + "\n"),
                    utf8(text(ls.subList(at.index() + 1, ls.size()))));
            return new Change(trace, at.index() + 1, "invalid UTF-8 " + hex(bad) + " in an ext string");
        }));
        rs.add(new Rule("nul-byte", m, "no NUL byte (Bytes)", (b, r) -> {
            At at = line(b, r, true);
            return new Change(insertBytes(b, at.index(), r, new byte[] {0}), at.index() + 1, "a NUL byte");
        }));
        rs.add(new Rule("garbage-bytes", m, "strict JSON (Bytes)", (b, r) -> {
            At at = line(b, r, true);
            byte[] g = new byte[1 + r.nextInt(8)];
            byte[] set = garbage();
            for (int i = 0; i < g.length; i++) {
                g[i] = set[r.nextInt(set.length)];
            }
            return new Change(insertBytes(b, at.index(), r, g), at.index() + 1, "garbage bytes " + hex(g));
        }));
        rs.add(new Rule("invalid-json-syntax", m, "strict RFC 8259 JSON (Bytes)", (b, r) -> {
            At at = line(b, r, true);
            List<Tok> ts = at.toks();
            int kind = r.nextInt(9);
            switch (kind) {
                case 0 -> {
                    return changed(b, at, insert(at.line(), at.line().length() - 1, ","), "a trailing comma");
                }
                case 1 -> {
                    int i = pick(where(ts, t -> t.kind() == JsonToken.FIELD_NAME || t.kind() == JsonToken.VALUE_STRING), r);
                    Tok t = ts.get(i);
                    String s = "'" + at.line().substring(t.start() + 1, t.end() - 1) + "'";
                    return changed(b, at, replace(at.line(), t.start(), t.end(), s), "single quotes");
                }
                case 2 -> {
                    int p = pick(TraceText.boundaries(ts), r);
                    return changed(b, at, insert(at.line(), p, pick(r, "/*c*/", "#c", "/**/")), "a comment");
                }
                case 3 -> {
                    List<Integer> is = where(ts, t -> t.kind() == JsonToken.VALUE_NUMBER_INT && at.line().charAt(t.start()) != '-');
                    if (is.isEmpty()) {
                        return null;
                    }
                    Tok t = ts.get(pick(is, r));
                    return changed(b, at, insert(at.line(), t.start(), "0"), "a leading zero");
                }
                case 4 -> {
                    Tok t = ts.get(pick(where(ts, x -> x.kind() == JsonToken.FIELD_NAME), r));
                    return changed(b, at, replace(at.line(), t.start(), t.end(), t.field()), "an unquoted key");
                }
                case 5 -> {
                    List<Integer> commas = new ArrayList<>();
                    for (int i = 1; i < ts.size(); i++) {
                        int e = ts.get(i - 1).end();
                        if (e < ts.get(i).start() && at.line().charAt(e) == ',') {
                            commas.add(e);
                        }
                    }
                    if (commas.isEmpty()) {
                        return null;
                    }
                    int c = pick(commas, r);
                    String ln = at.line();
                    // between two numbers, dropping the comma alone would join them into one valid number
                    boolean joins = c > 0 && c + 1 < ln.length() && Character.isDigit(ln.charAt(c - 1))
                            && (Character.isDigit(ln.charAt(c + 1)) || ln.charAt(c + 1) == '-');
                    return changed(b, at, replace(ln, c, c + 1, joins || r.nextBoolean() ? " " : ""), "a missing comma");
                }
                case 6 -> {
                    Tok t = ts.get(pick(where(ts, x -> x.kind() == JsonToken.FIELD_NAME), r));
                    return changed(b, at, replace(at.line(), t.end(), t.end() + 1, pick(r, "", " ", "=")), "a missing colon");
                }
                case 7 -> {
                    List<Integer> is = where(ts, t -> t.kind().isNumeric());
                    if (is.isEmpty()) {
                        return null;
                    }
                    Tok t = ts.get(pick(is, r));
                    String n = at.line().substring(t.start(), t.end());
                    String v = pick(r, "+" + n, "0x1F", "." + n.replace("-", ""), n + ".", n + "e", "--" + n, n + "_0");
                    return changed(b, at, replace(at.line(), t.start(), t.end(), v), "a number that is not JSON: " + v);
                }
                default -> {
                    List<Integer> is = where(ts, t -> t.kind() == JsonToken.VALUE_NULL || t.kind() == JsonToken.VALUE_STRING && t.depth() == 1);
                    Tok t = ts.get(pick(is, r));
                    String v = pick(r, "None", "Null", "NULL", "True", "nil", "undefined");
                    return changed(b, at, replace(at.line(), t.start(), t.end(), v), "a literal that is not JSON: " + v);
                }
            }
        }));
        rs.add(new Rule("truncated-line", m, "one whole object on every line (Lines)", (b, r) -> {
            At at = line(b, r, true);
            // cut short, but not to nothing (a blank line is a rule of its own)
            return changed(b, at, at.line().substring(0, 1 + r.nextInt(at.line().length() - 1)), "a truncated line");
        }));
        rs.add(new Rule("line-split", m, "an object ends on the line it starts on (Lines)", (b, r) -> {
            At at = line(b, r, true);
            int p = pick(TraceText.boundaries(at.toks()), r);
            return changed(b, at, insert(at.line(), p, pick(r, "\n", "\r\n", " \n ")), "a line break inside the object");
        }));
        rs.add(new Rule("two-objects-on-a-line", m, "one object per line (Lines)", (b, r) -> {
            int i = r.nextInt(b.lines().size() - 1);
            List<String> ls = new ArrayList<>(b.lines());
            if (r.nextInt(4) == 0) {
                ls.set(i, ls.get(i) + pick(r, " 5", "[]", " \"x\"", "null", "{}"));
                return Change.lines(ls, i + 1, "a second value after the object");
            }
            ls.set(i, ls.get(i) + pick(r, "", " ", "\t") + ls.remove(i + 1));
            return Change.lines(ls, i + 1, "lines " + (i + 1) + " and " + (i + 2) + " joined");
        }));
        rs.add(new Rule("not-an-object", m, "every line is a JSON object (Shape)", (b, r) -> {
            At at = line(b, r, true);
            return changed(b, at, pick(r, "[]", "[1,2]", "\"x\"", "5", "null", "true", "false", "[" + at.line() + "]"), "a line that is not an object");
        }));
        rs.add(new Rule("lone-cr", m, "lines end with LF or CRLF (Lines)", (b, r) -> {
            int i = r.nextInt(b.lines().size());
            String t = join(b.lines());
            if (r.nextBoolean()) {
                At at = new At(i, b.lines().get(i), tokens(b.lines().get(i)));
                return changed(b, at, insert(at.line(), pick(TraceText.boundaries(at.toks()), r), "\r"), "a CR inside the line");
            }
            int pos = -1;
            for (int k = 0; k <= i; k++) {
                pos = t.indexOf('\n', pos + 1);
            }
            return new Change(utf8(t.substring(0, pos) + "\r" + t.substring(pos + 1)), i + 1, "line " + (i + 1) + " ends with a lone CR");
        }));
        rs.add(new Rule("missing-field", m, "every field a form requires is there (Events; Begin and end; Per-process logs)", (b, r) -> {
            At at = line(b, r, true);
            ObjectNode n = tree(at.line());
            LineForms form = form(b, at);
            if (form == null) {
                return null;
            }
            boolean config = at.index() == 0 && r.nextBoolean();
            ObjectNode target = config ? (ObjectNode) n.get("config") : n;
            List<String> required = new ArrayList<>();
            target.fieldNames().forEachRemaining(f -> {
                if (config ? !f.equals("readings") : form.required().contains(f) || f.equals("type")) {
                    required.add(f);
                }
            });
            if (required.isEmpty()) {
                return null;
            }
            String f = pick(required, r);
            target.remove(f);
            return changed(b, at, json(n), "the field '" + f + "' removed from a " + (config ? "header's config" : form.name() + " line"));
        }));
        rs.add(new Rule("wrong-json-type", m, "each field has its type (Events)", (b, r) -> {
            At at = line(b, r, true);
            List<Integer> is = where(at.toks(), t -> (t.depth() == 1 || t.depth() == 2 && at.index() == 0) && t.field() != null
                    && t.kind() != JsonToken.FIELD_NAME && !t.kind().isStructEnd());
            int i = pick(is, r);
            Tok t = at.toks().get(i);
            boolean nullOk = in(t.field(), "holder", "backup");
            String v = switch (t.kind()) {
                case VALUE_NUMBER_INT -> pick(r, "\"7\"", "true", "false", "{}", "[]", "[1]", nullOk ? "\"null\"" : "null");
                case VALUE_NUMBER_FLOAT -> pick(r, "\"1.5\"", "null", "true", "[]", "{}");
                case VALUE_STRING -> pick(r, "5", "null", "[]", "{}", "true", "[\"Decode\"]");
                case VALUE_NULL -> pick(r, "\"null\"", "false", "[]", "{}", "-1");
                case START_ARRAY -> pick(r, "5", "\"x\"", "{}", "null", "true", "[[1]]", "[\"1\"]", "[null]", "[true]");
                case START_OBJECT -> pick(r, "[]", "5", "null", "\"x\"");
                default -> "{}";
            };
            return swap(b, at, i, v, "a value of the wrong JSON type");
        }));
        rs.add(new Rule("unknown-type", m, "type is an event type (Events)", (b, r) -> {
            At at = line(b, r, true);
            int i = where(at.toks(), t -> t.kind() == JsonToken.VALUE_STRING && "type".equals(t.field()) && t.depth() == 1).get(0);
            String v = at.index() == 0 ? pick(r, "\"Arrive\"", "\"headers\"", "\"HEADER\"")
                    : pick(r, "\"Teleport\"", "\"arrive\"", "\"ARRIVE\"", "\"Arrive \"", "\" Decode\"", "\"\"", "\"header\"", "\"Decode\\u0000\"", "\"Route(r)\"");
            return swap(b, at, i, v, "an unknown event type");
        }));
        rs.add(new Rule("context-overflow", m, "promptLen + |ref| <= 2^24 (Numbers and limits)", (b, r) -> {
            At at = lineOf(b, r, "Arrive");
            if (at == null) {
                return null;
            }
            int refs = where(at.toks(), t -> "ref".equals(t.array())).size();
            int i = where(at.toks(), t -> "promptLen".equals(t.field()) && t.kind() == JsonToken.VALUE_NUMBER_INT).get(0);
            int lo = lumen.trace.TraceFormat.MAX_CONTEXT - refs + 1;
            return swap(b, at, i, Integer.toString(r.nextBoolean() ? lo + r.nextInt(refs) : lo + r.nextInt(MAX - lo)), "a context beyond 2^24 positions");
        }));
        rs.add(new Rule("time-backwards", m, "t never goes backwards (Time)", (b, r) -> {
            At at = line(b, r, false);
            List<Integer> ts = where(at.toks(), t -> "t".equals(t.field()) && t.kind().isNumeric() && t.depth() == 1);
            double last = Double.NaN;
            for (int k = at.index() - 1; k >= 1 && Double.isNaN(last); k--) {
                ObjectNode n = tree(b.lines().get(k));
                if (n.has("t")) {
                    last = n.get("t").asDouble();
                }
            }
            if (ts.isEmpty() || Double.isNaN(last)) {
                return null;
            }
            double delta = pick(r, 0.001, 0.5, 1.0, 1000.0, last + 1, 1e300);
            double v = last - delta;
            if (!(v < last)) {
                return null;
            }
            return swap(b, at, ts.get(0), Double.toString(v), "t=" + v + " after t=" + last);
        }));
        rs.add(new Rule("deep-nesting", m, "nesting at most 64 levels, in ext too (Numbers and limits)", (b, r) -> {
            At at = line(b, r, true);
            int d = logUniform(r, 64, 20_000);
            String deep = r.nextBoolean() ? "{\"a\":".repeat(d) + "1" + "}".repeat(d) : "{\"a\":" + "[".repeat(d) + "]".repeat(d) + "}";
            return changed(b, at, afterBrace(at, 0, "\"ext\":" + deep), "ext nested " + d + " levels deep");
        }));
        rs.add(new Rule("huge-array", m, "loads holds one number per worker (Events)", (b, r) -> {
            At at = lineOf(b, r, "Place", "Route", "Assist", "Fail");
            if (at == null) {
                return null;
            }
            String type = typeOf(at);
            int n = logUniform(r, 5_000, 1_000_000);
            if ("Fail".equals(type) && r.nextBoolean()) {
                int i = where(at.toks(), t -> "interrupted".equals(t.field()) && t.kind() == JsonToken.START_ARRAY).get(0);
                return swap(b, at, i, ints(n, "2000000001"), "interrupted holding " + n + " unknown requests");
            }
            if (type.equals("Fail")) {
                return null;
            }
            return changed(b, at, afterBrace(at, 0, "\"loads\":" + ints(n, "0")), "loads of " + n + " numbers");
        }));
        rs.add(new Rule("ten-mb-line", m, "limits on strings, names and numbers; errors quote 200 bytes (Numbers and limits)", (b, r) -> {
            At at = line(b, r, true);
            String big = "x".repeat(TEN_MB);
            int kind = r.nextInt(6);
            return switch (kind) {
                case 0 -> swap(b, at, where(at.toks(), t -> "type".equals(t.field()) && t.kind() == JsonToken.VALUE_STRING).get(0),
                        "\"" + big + "\"", "a 10 MB type");
                case 1 -> changed(b, at, afterBrace(at, 0, "\"" + big + "\":1"), "a 10 MB field name");
                case 2 -> changed(b, at, afterBrace(at, 0, "\"colour\":\"" + big + "\""), "an unknown field with a 10 MB string");
                case 3 -> {
                    List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT);
                    yield is.isEmpty() ? null : swap(b, at, pick(is, r), "1".repeat(TEN_MB), "a 10 MB number");
                }
                case 4 -> changed(b, at, big, "a 10 MB line of letters");
                default -> changed(b, at, afterBrace(at, 0, "\"ext\":{\"a\":\"" + big + "\"},\"ext\":1"), "a 10 MB ext, then ext twice");
            };
        }));

        // ---- tolerated: the docs say these are fine ----
        Expect ok = Expect.ACCEPTED;
        rs.add(new Rule("crlf", ok, "CRLF ends a line like LF (Lines)", (b, r) -> {
            String t = join(b.lines());
            if (r.nextBoolean()) {
                return new Change(utf8(t.replace("\n", "\r\n")), 0, "every line ends with CRLF");
            }
            StringBuilder s = new StringBuilder();
            for (char c : t.toCharArray()) {
                s.append(c == '\n' && r.nextBoolean() ? "\r\n" : String.valueOf(c));
            }
            return new Change(utf8(s.toString()), 0, "some lines end with CRLF");
        }));
        rs.add(new Rule("ext-objects", ok, "any line may carry an ext object, which the kit ignores (Objects)", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            int n = 1 + r.nextInt(6);
            for (int k = 0; k < n; k++) {
                // each log of a run has the same header: an ext on one alone makes it differ from the others'
                int i = b.kind() == InputKind.PROCESS_LOGS ? 1 + r.nextInt(ls.size() - 1) : r.nextInt(ls.size());
                At at = new At(i, ls.get(i), tokens(ls.get(i)));
                if (ls.get(i).contains("\"ext\"")) {
                    continue;
                }
                String ext = "\"ext\":" + extObject(r, 1 + r.nextInt(12));
                ls.set(i, r.nextBoolean() ? afterBrace(at, 0, ext) : insert(at.line(), at.line().length() - 1, "," + ext));
            }
            return Change.lines(ls, 0, "ext objects on some lines");
        }));
        rs.add(new Rule("extra-whitespace", ok, "spaces and tabs around and between tokens are fine (Lines)", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            for (int i = 0; i < ls.size(); i++) {
                if (r.nextInt(3) != 0 && i != 0) {
                    continue;
                }
                String s = ls.get(i);
                List<Integer> bs = TraceText.boundaries(tokens(s));
                StringBuilder out = new StringBuilder();
                int from = 0;
                for (int p : new java.util.TreeSet<>(bs)) {
                    out.append(s, from, p);
                    if (r.nextInt(3) == 0) {
                        out.append(spaces(r));
                    }
                    from = p;
                }
                out.append(s.substring(from));
                ls.set(i, (r.nextBoolean() ? spaces(r) : "") + out + (r.nextBoolean() ? spaces(r) : ""));
            }
            return Change.lines(ls, 0, "spaces and tabs added");
        }));
        rs.add(new Rule("no-final-newline", ok, "the last line's line end is optional (Lines)", (b, r) -> {
            String t = join(b.lines());
            return new Change(utf8(t.substring(0, t.length() - 1)), 0, "no line end after the last line");
        }));
        rs.add(new Rule("field-order", ok, "fields may come in any order (Objects)", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            for (int i = 0; i < ls.size(); i++) {
                if (r.nextInt(3) == 0 || i == 0) {
                    ObjectNode n = shuffled(tree(ls.get(i)), r);
                    if (n.has("config")) {
                        n.set("config", shuffled((ObjectNode) n.get("config"), r));
                    }
                    ls.set(i, json(n));
                }
            }
            return Change.lines(ls, 0, "fields reordered");
        }));
        rs.add(new Rule("escaped-strings", ok, "JSON string escapes are JSON (Bytes)", (b, r) ->
                respelled(b, r, "some characters of names and strings written as \\u escapes", (s, t) -> {
                    if ((t.kind() != JsonToken.FIELD_NAME && t.kind() != JsonToken.VALUE_STRING) || !r.nextBoolean()) {
                        return null;
                    }
                    String inner = s.substring(t.start() + 1, t.end() - 1);
                    int c = r.nextInt(inner.length() == 0 ? 1 : inner.length());
                    if (inner.isEmpty()) {
                        return null;
                    }
                    String esc = String.format(java.util.Locale.ROOT, r.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) inner.charAt(c));
                    return replace(s, t.start() + 1 + c, t.start() + 2 + c, esc);
                })));
        rs.add(new Rule("number-spelling", ok, "a number field takes any JSON spelling of its value (Numbers)", (b, r) ->
                respelled(b, r, "floats spelled with exponents or trailing zeros, some zeros as -0", (s, t) -> {
                    String n = s.substring(t.start(), t.end());
                    if (t.kind() == JsonToken.VALUE_NUMBER_FLOAT && r.nextBoolean()) {
                        BigDecimal d = new BigDecimal(n);
                        String v = switch (r.nextInt(4)) {
                            case 0 -> d.unscaledValue() + "e" + (-d.scale());
                            case 1 -> n.contains("e") || n.contains("E") ? n.replaceFirst("[eE]", "00E") : n + "000";
                            case 2 -> d.movePointLeft(3).toPlainString() + "E+3";
                            default -> d.movePointRight(2).toPlainString() + "e-2";
                        };
                        return replace(s, t.start(), t.end(), v);
                    }
                    if (t.kind() == JsonToken.VALUE_NUMBER_INT && n.equals("0") && r.nextInt(4) == 0) {
                        return replace(s, t.start(), t.end(), "-0");
                    }
                    return null;
                })));
        rs.add(new Rule("optional-times", ok, "t is optional, and equal times are fine (Time)", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            JsonNode last = null;
            for (int i = 1; i < ls.size(); i++) {
                ObjectNode n = tree(ls.get(i));
                int what = r.nextInt(4);
                if (what == 0 && n.has("t")) {
                    n.remove("t");
                    ls.set(i, json(n));
                } else if (what == 1 && last != null && n.has("t")) {
                    n.set("t", last);
                    ls.set(i, json(n));
                } else if (n.has("t")) {
                    last = n.get("t");
                }
            }
            return Change.lines(ls, 0, "some times removed, some equal to the one before");
        }));

        // ---- any verdict, but a verdict ----
        Expect any = Expect.ANY;
        rs.add(new Rule("extreme-in-range", any, "values at the ends of their documented ranges", (b, r) -> {
            At at = line(b, r, false);
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.VALUE_NUMBER_INT);
            if (is.isEmpty()) {
                return null;
            }
            int i = pick(is, r);
            Tok t = at.toks().get(i);
            boolean signed = in(t.array(), "tokens", "draft");
            boolean worker = in(t.field(), "worker", "holder", "backup");
            String v = worker ? pick(r, "0", Integer.toString(b.workers() - 1))
                    : pick(r, "0", "1", "2147483647", "2147483646", signed ? "-2147483647" : "65536", signed ? "-1" : "65537");
            return swap(b, at, i, v, "an extreme value in range");
        }));
        rs.add(new Rule("header-at-limits", any, "the header's sizes at their limits", (b, r) -> {
            At at = header(b);
            String f = pick(r, "workers", "k", "pageTokens", "budget", "tau", "theta", "alpha", "beta");
            if (f.equals("workers") && b.lines().get(0).contains("\"Place\":\"hidden\"")) {
                // a hidden Place is searched for among every worker: 4096 of them take the search past the harness's limit
                return null;
            }
            int i = where(at.toks(), t -> f.equals(t.field()) && t.kind().isNumeric()).get(0);
            String v = switch (f) {
                case "workers" -> "4096";
                case "k" -> "64";
                case "pageTokens" -> "65536";
                case "theta" -> pick(r, "1.0E308", "-1.0E308", "0.0", "4.9E-324");
                case "alpha", "beta" -> pick(r, "1.0E300", "0.0", "4.9E-324", "1.7976931348623157E308");
                default -> pick(r, "2147483647", "0");
            };
            return swap(b, at, i, v, "a header value at its limit");
        }));
        rs.add(new Rule("declared-readings", any, "a header may declare readings (The header; readings.md)", (b, r) -> {
            String rd = pick(r, "{}", "{\"queue\":\"waiting\"}", "{\"rebackup\":true}", "{\"ringDirection\":\"previous\",\"ringFallThrough\":true}",
                    "{\"queue\":\"run\",\"ringDirection\":\"next\",\"ringFallThrough\":false,\"rebackup\":false}");
            return Change.lines(with(b, 0, withReadings(b.lines().get(0), rd)), 1, "a header with readings " + rd);
        }));
        rs.add(new Rule("reordered-lines", any, "events swapped, dropped or repeated", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            int i = 1 + r.nextInt(ls.size() - 1);
            int j = 1 + r.nextInt(ls.size() - 1);
            switch (r.nextInt(3)) {
                case 0 -> Collections.swap(ls, i, j);
                case 1 -> ls.remove(i);
                default -> ls.add(i, ls.get(j));
            }
            return Change.lines(ls, 0, "events reordered");
        }));
        rs.add(new Rule("huge-in-range-arrays", any, "long arrays of valid values", (b, r) -> {
            At at = line(b, r, false);
            List<Integer> is = where(at.toks(), t -> t.kind() == JsonToken.START_ARRAY && t.depth() == 1
                    && in(t.field(), "tokens", "ref", "draft", "dropped", "orphaned"));
            if (is.isEmpty()) {
                return null;
            }
            int n = logUniform(r, 1_000, 1_000_000);
            return swap(b, at, pick(is, r), ints(n, r.nextBoolean() ? "0" : "2147483647"), "an array of " + n + " values");
        }));
        return List.copyOf(rs);
    }

    static boolean in(String x, String... xs) {
        return x != null && Arrays.asList(xs).contains(x);
    }

    static String hex(byte[] bs) {
        StringBuilder s = new StringBuilder();
        for (byte x : bs) {
            s.append(String.format("%02X ", x & 0xFF));
        }
        return s.toString().trim();
    }

    /** Bytes that are never valid where they land in a kit-written line: control bytes, bytes no UTF-8 character starts with here, and JSON punctuation out of place. */
    static byte[] garbage() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = 1; c < 0x20; c++) {
            if (c != '\t' && c != '\n' && c != '\r') {
                b.write(c);
            }
        }
        for (char c : "#@'}]\\`~".toCharArray()) {
            b.write(c);
        }
        for (int c = 0x80; c <= 0xFF; c++) {
            b.write(c);
        }
        return b.toByteArray();
    }

    static String spaces(SplittableRandom r) {
        StringBuilder s = new StringBuilder();
        for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
            s.append(r.nextBoolean() ? ' ' : '\t');
        }
        return s.toString();
    }

    static ObjectNode shuffled(ObjectNode n, SplittableRandom r) {
        List<Map.Entry<String, JsonNode>> es = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            es.add(it.next());
        }
        for (int i = es.size() - 1; i > 0; i--) {
            Collections.swap(es, i, r.nextInt(i + 1));
        }
        ObjectNode out = MAPPER.createObjectNode();
        for (Map.Entry<String, JsonNode> e : es) {
            out.set(e.getKey(), e.getValue());
        }
        return out;
    }

    /** A random JSON object, nested at most {@code depth} levels: what a vendor might put in ext. */
    static String extObject(SplittableRandom r, int depth) {
        StringBuilder b = new StringBuilder("{");
        Set<String> keys = new HashSet<>();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            String k = pick(r, "a", "b", "vendor", "run", "debug", "\u00e9", "ts", "", "k" + r.nextInt(100), "type", "t", "req", "ext");
            if (!keys.add(k)) {
                continue;
            }
            b.append(keys.size() == 1 ? "" : ",").append(quoted(k)).append(':').append(extValue(r, depth - 1));
        }
        return b.append('}').toString();
    }

    static String extValue(SplittableRandom r, int depth) {
        int kind = r.nextInt(depth > 0 ? 12 : 9);
        return switch (kind) {
            case 0 -> Integer.toString(r.nextInt());
            case 1 -> (r.nextBoolean() ? "-" : "") + big(r, 1 + r.nextInt(60));
            case 2 -> pick(r, "1.5", "-0.0", "1e999", "-1e999", "1e-999", "6.02214076e23", "0.1");
            case 3 -> quoted(pick(r, "", "acme", "caf\u00e9", "\u4e2d\u6587", "\ud83d\ude00", "tab\tnew\nline \"q\" \\", "\u0000\u001f",
                    "x".repeat(1 + r.nextInt(1000))));
            case 4 -> pick(r, "true", "false", "null");
            case 5 -> r.nextInt(20) == 0 ? quoted("y".repeat(100_000 + r.nextInt(900_000))) : quoted("s" + r.nextLong());
            case 6 -> r.nextInt(20) == 0 ? ints(10_000 + r.nextInt(90_000), "7") : "[]";
            case 7 -> "[" + r.nextInt(10) + "," + pick(r, "null", "\"z\"", "2.5") + "]";
            case 8 -> "{}";
            case 9, 10 -> extObject(r, depth);
            default -> "[" + extValue(r, depth - 1) + "," + extValue(r, depth - 1) + "]";
        };
    }
}
