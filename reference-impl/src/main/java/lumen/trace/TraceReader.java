package lumen.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import lumen.core.Action;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Policies;
import lumen.core.Readings;
import lumen.core.RouteMode;

/**
 * Reads a trace in Jackson's streaming mode, one event at a time, in memory bounded by the
 * longest line. Every departure from docs/trace-format.md and the schema (trace-v1.schema.json)
 * is a {@link TraceFormatException} with the line it is on, never another exception: not UTF-8
 * or not JSON, a blank line, an object that is not one whole line, a duplicate key, an unknown
 * event type or field, a missing or mistyped field, a number out of its documented range or not
 * finite, a worker outside 0..workers-1, a time that goes backwards. Whether a request is known
 * is the validator's business, since only it tracks arrivals. Input quoted in a message is cut
 * ({@link Echo}).
 */
public final class TraceReader implements Closeable {
    private static final JsonFactory JSON = JsonFactory.builder()
            // a key twice in one object is an error, not "the last one wins": the reader detects
            // it itself, by one bit per field of an event (Jackson's detection hashes every name)
            // NaN, Infinity and -Infinity are not JSON (Jackson's default, stated here)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(TraceFormat.MAX_NESTING)
                    .maxNumberLength(TraceFormat.MAX_NUMBER_LENGTH)
                    .maxStringLength(TraceFormat.MAX_STRING_LENGTH)
                    .maxNameLength(TraceFormat.MAX_NAME_LENGTH)
                    .build())
            .build();

    private final String source;
    /** What the header declares the system observes ({@code observes}; {@link Observation#FULL} when it declares nothing). */
    private Observation observation = Observation.FULL;
    private final JsonParser p;
    /** The parser's own line counter, read without allocating a location (null: read it from a location). */
    private final com.fasterxml.jackson.core.base.ParserBase pb;
    private final Config config;
    private int version;
    private long lastLine;
    private long eventLine;
    private double eventTime = Double.NaN;
    private double lastTime = Double.NEGATIVE_INFINITY;
    private long lastTimeLine;
    private double[] citedLoads;
    private long[] citedReserved;
    /** The bytes, a line at a time: scanned in place ({@link #scanLine}) or read by the parser. */
    private final Lines lines;
    private final boolean scan;
    /** Whether the scan may read the next line: the parser has nothing left of the lines it read but a line break. */
    private boolean scanNext = true;
    /**
     * What the parser's line numbers lack: the lines the scan read, which the parser never saw, up to
     * the line it reads now (its line numbers plus this are the trace's).
     */
    private long shift;

    public TraceReader(InputStream in, String source) throws IOException, TraceFormatException {
        this(in, source, true);
    }

    /**
     * @param scan whether a line of the common shape is read by the line scan ({@link #scanLine});
     *             false: every line by the JSON parser (the two read every trace alike, which the
     *             tests check line by line)
     */
    TraceReader(InputStream in, String source, boolean scan) throws IOException, TraceFormatException {
        this.source = source;
        this.lines = new Lines(in);
        this.scan = scan;
        JsonParser parser = null;
        try {
            parser = JSON.createParser(new TraceBytes(lines));
        } catch (TraceBytes.Refused ex) {
            throw error(ex.line, ex.getMessage());
        } catch (JsonProcessingException ex) {
            throw error(1, "not valid JSON: " + Echo.cut(ex.getOriginalMessage()));
        }
        this.p = parser;
        this.pb = parser instanceof com.fasterxml.jackson.core.base.ParserBase b ? b : null;
        try {
            this.config = readHeader();
        } catch (JsonProcessingException | TraceBytes.Refused ex) {
            throw refused(ex);
        }
        // the scan takes line 2 only when nothing but its line break is left of the header's line (a second value there is the parser's)
        scanNext = lines.onlyLineBreakLeft(p.currentLocation().getByteOffset());
    }

    public Config config() {
        return config;
    }

    /**
     * What the system observes, as the header declares it ({@code "observes"}, docs/trace-format.md,
     * Partial traces): with {@code Decode=batch} a Decode line may be a batch iteration, with
     * {@code StreamPage=sizes} a StreamPage carries no {@code pages} and may be a size report; such a
     * composed line is read as its steps, one event each, all on the line's line.
     */
    public Observation observation() {
        return observation;
    }

    /** The trace contract version the header declares (1 or 2). */
    public int version() {
        return version;
    }

    /**
     * The KV content the last event reported ({@code pages}), or null when it reported none (a
     * v1 trace, or an event without content).
     */
    public lumen.core.PageDigest[] pages() {
        return pages;
    }

    /** The line of the event {@link #next} returned last. */
    public long line() {
        return eventLine;
    }

    /**
     * The loads the last event's decision cites ({@code loads}, one per worker, as the deciding
     * component saw them), or null when it cites none. Only Place, Route, Assist and DraftReady may cite loads.
     */
    public double[] citedLoads() {
        return citedLoads;
    }

    /**
     * The reservations the last event's placement cites ({@code reserved}, one per worker, as the
     * gateway's counters had them before the decision), or null when it cites none. Only Place
     * may cite them.
     */
    public long[] citedReserved() {
        return citedReserved;
    }

    /** The time ({@code t}, ms) of the last event, or NaN when it had none. */
    public double time() {
        return eventTime;
    }

    /**
     * A located error. Found on a later line while an object is still open, it is the open
     * object's error: its line does not end it (a line cut short, a line break inside it).
     */
    private TraceFormatException error(long line, String msg) {
        if (line > eventLine && eventLine > lastLine) {
            return new TraceFormatException(source, eventLine, "the JSON object on this line does not end on it"
                    + " (a trace has one object per line); at line " + line + ": " + msg);
        }
        return new TraceFormatException(source, line, msg);
    }

    /**
     * The located error for what the byte check or the JSON parser refused: not UTF-8, not JSON,
     * a duplicate key, a number, string or name over its length limit, nesting too deep.
     */
    private static final java.util.regex.Pattern QUOTED_LINE = java.util.regex.Pattern.compile("line: ([0-9]{1,18})");

    private TraceFormatException refused(IOException ex) {
        if (ex instanceof TraceBytes.Refused r) {
            return error(r.line + shift, r.getMessage());
        }
        JsonProcessingException j = (JsonProcessingException) ex;
        JsonLocation at = j.getLocation() != null ? j.getLocation() : p.currentLocation();
        long line = at == null || at.getLineNr() < 1 ? Math.max(1, lastLine) : at.getLineNr() + shift;
        String msg = j.getOriginalMessage();
        int nl = msg.indexOf('\n');
        msg = Echo.cut((nl > 0 ? msg.substring(0, nl) : msg)
                .replaceFirst(", from `StreamReadConstraints\\.[A-Za-z]+\\(\\)`", "")
                .replaceFirst("[:;,]? *enable `[A-Za-z_.]+` to allow.*$", ""));
        if (shift != 0) {
            // a location the parser quotes in its message ("for Array starting at ...; line: 2") is in its own line numbers
            msg = QUOTED_LINE.matcher(msg).replaceAll(m -> "line: " + (Long.parseLong(m.group(1)) + shift));
        }
        if (msg.startsWith("Non-standard token")) {
            msg += " (NaN, Infinity and -Infinity are not JSON numbers)";
        }
        return error(line, (j instanceof StreamConstraintsException ? "over the reader's limits: " : "not valid JSON: ") + msg);
    }

    private JsonToken token() throws IOException {
        return p.nextToken();
    }

    private long tokenLine() {
        return (pb != null ? pb.getTokenLineNr() : p.currentTokenLocation().getLineNr()) + shift;
    }

    /** A key seen twice in one object, at the key's line, in the words of JSON's own errors. */
    private TraceFormatException duplicate(String f) {
        return error(tokenLine(), "not valid JSON: Duplicate field '" + Echo.cut(f) + "'");
    }

    /** Adds {@code f} to the names an object has shown, or throws at a duplicate. */
    private void once(java.util.Set<String> names, String f) throws TraceFormatException {
        if (!names.add(f)) {
            throw duplicate(f);
        }
    }

    /** Starts the next line's object, or returns false at the end. */
    private boolean startObject() throws IOException, TraceFormatException {
        JsonToken t = token();
        if (t == null) {
            JsonLocation end = p.currentLocation();
            long endLine = end.getLineNr() + shift;
            if (endLine > lastLine + 1 || endLine == lastLine + 1 && end.getColumnNr() > 1) {
                throw blankLine();
            }
            return false;
        }
        long line = tokenLine();
        if (line > lastLine + 1) {
            throw blankLine();
        }
        if (t != JsonToken.START_OBJECT) {
            throw error(line, "expected a JSON object, found " + describe(t));
        }
        if (line == lastLine) {
            throw error(line, "two JSON values on one line; a trace has one event per line");
        }
        eventLine = line;
        return true;
    }

    /** Only whitespace on the line after the last object (LF and CRLF end a line; trace-format.md, "Shape"). */
    private TraceFormatException blankLine() {
        return error(lastLine + 1, "a blank line; a trace has one JSON object on every line, and no empty lines");
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
        };
    }

    private void endObject() throws TraceFormatException {
        // the current token is the object's closing brace: its line is where the object ends
        lastLine = tokenLine();
        if (lastLine != eventLine) {
            throw error(eventLine, "the JSON object on this line does not end on it (it ends on line " + lastLine + "); a trace has one object per line");
        }
    }

    /** An {@code ext} object: vendor or debug fields the kit ignores, any JSON object within the nesting limit. */
    private void skipExt(JsonToken v) throws IOException, TraceFormatException {
        if (v != JsonToken.START_OBJECT) {
            throw error(tokenLine(), "field 'ext' must be a JSON object, found " + describe(v));
        }
        skipValue(v);
    }

    /** Skips the value that starts with {@code v}, holding each object inside it to one key each. */
    private void skipValue(JsonToken v) throws IOException, TraceFormatException {
        if (v == JsonToken.START_ARRAY) {
            JsonToken t;
            while ((t = token()) != JsonToken.END_ARRAY) {
                skipValue(t);
            }
        } else if (v == JsonToken.START_OBJECT) {
            java.util.Set<String> names = new java.util.HashSet<>();
            while (token() == JsonToken.FIELD_NAME) {
                once(names, p.currentName());
                skipValue(token());
            }
        }
    }

    /** An event's time must not go backwards; events without {@code t} do not count. */
    private void checkTime() throws TraceFormatException {
        if (Double.isNaN(eventTime)) {
            if (config.readings().citedLoads().millis()) {
                throw error(eventLine, "event without 't': under citedLoads=" + config.readings().citedLoads()
                        + " every event needs its time, which the window of the loads a decision cites is measured in");
            }
            return;
        }
        if (eventTime < lastTime) {
            throw error(eventLine, "time goes backwards: t=" + eventTime + " after t=" + lastTime + " at line " + lastTimeLine);
        }
        lastTime = eventTime;
        lastTimeLine = eventLine;
    }

    private Config readHeader() throws IOException, TraceFormatException {
        if (!startObject()) {
            throw error(1, "empty trace: the first line must be the header {\"type\":\"header\",\"format\":\"lumen-trace\",...}");
        }
        String type = null;
        String format = null;
        Integer version = null;
        Config cfg = null;
        java.util.Set<String> names = new java.util.HashSet<>();
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            once(names, f);
            JsonToken v = token();
            switch (f) {
                case "type" -> {
                    type = string(f, v);
                    if (!"header".equals(type)) {
                        throw error(eventLine, "the first line must be the header (\"type\":\"header\"), found type " + quote(type));
                    }
                }
                case "format" -> format = string(f, v);
                case "version" -> version = integer(f, v, 0, TraceFormat.MAX_INT);
                case "config" -> cfg = readConfig(v);
                case "observes" -> observation = readObservation(v);
                case "ext" -> skipExt(v);
                default -> throw error(tokenLine(), "header: unknown field '" + Echo.cut(f) + "'");
            }
        }
        endObject();
        if (!"header".equals(type)) {
            throw error(eventLine, "the first line must be the header (\"type\":\"header\"), found type " + quote(type));
        }
        if (!TraceFormat.FORMAT.equals(format)) {
            throw error(eventLine, "header: format must be \"" + TraceFormat.FORMAT + "\", found " + quote(format));
        }
        if (version == null || version < TraceFormat.OLDEST || version > TraceFormat.VERSION) {
            throw error(eventLine, "header: this kit reads trace format versions " + TraceFormat.OLDEST + " to " + TraceFormat.VERSION
                    + ", found " + version);
        }
        this.version = version;
        if (cfg == null) {
            throw error(eventLine, "header: missing field 'config'");
        }
        return cfg;
    }

    private static String quote(String s) {
        return s == null ? "nothing" : "\"" + Echo.cut(s) + "\"";
    }

    private static final String[] CONFIG_FIELDS = {"workers", "alpha", "beta", "theta", "tau", "budget", "pageTokens", "k"};
    /** Each integer config field's range (trace-format.md, "The header"); null: a finite number. */
    private static final int[][] CONFIG_RANGES = {{2, TraceFormat.MAX_WORKERS}, null, null, null, {0, TraceFormat.MAX_INT},
        {0, TraceFormat.MAX_INT}, {1, TraceFormat.MAX_PAGE_TOKENS}, {1, TraceFormat.MAX_K}};

    private Config readConfig(JsonToken start) throws IOException, TraceFormatException {
        long at = tokenLine();
        if (start != JsonToken.START_OBJECT) {
            throw error(at, "header: config must be an object");
        }
        String policy = null;
        Readings readings = Readings.DEFAULT;
        double[] num = new double[CONFIG_FIELDS.length];
        boolean[] seen = new boolean[CONFIG_FIELDS.length];
        java.util.Set<String> names = new java.util.HashSet<>();
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            once(names, f);
            JsonToken v = token();
            if (f.equals("policy")) {
                policy = string("config.policy", v);
                continue;
            }
            if (f.equals("readings")) {
                readings = readReadings(v);
                continue;
            }
            int i = Arrays.asList(CONFIG_FIELDS).indexOf(f);
            if (i < 0) {
                throw error(tokenLine(), "header: unknown config field '" + Echo.cut(f) + "'");
            }
            int[] range = CONFIG_RANGES[i];
            num[i] = range != null ? integer("config." + f, v, range[0], range[1]) : number("config." + f, v);
            seen[i] = true;
        }
        if (policy == null) {
            throw error(at, "header: config is missing 'policy'");
        }
        if (Policies.find(policy) == null) {
            throw error(at, "header: config.policy: unknown policy " + quote(policy) + "; known: " + Policies.keys());
        }
        for (int i = 0; i < CONFIG_FIELDS.length; i++) {
            if (!seen[i]) {
                throw error(at, "header: config is missing '" + CONFIG_FIELDS[i] + "'");
            }
        }
        try {
            return new Config(policy, (int) num[0], num[1], num[2], num[3], (int) num[4], (long) num[5], (int) num[6], (int) num[7],
                    readings);
        } catch (IllegalArgumentException ex) {
            throw error(at, "header: config." + ex.getMessage());
        }
    }

    /** config.readings: an object of the readings that differ from the default (docs/readings.md). */
    private Readings readReadings(JsonToken start) throws IOException, TraceFormatException {
        if (start != JsonToken.START_OBJECT) {
            throw error(tokenLine(), "header: config.readings must be an object, found " + describe(start));
        }
        Readings rd = Readings.DEFAULT;
        java.util.Set<String> names = new java.util.HashSet<>();
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            once(names, f);
            JsonToken v = token();
            if (!Readings.NAMES.contains(f)) {
                throw error(tokenLine(), "header: unknown reading '" + Echo.cut(f) + "'; known: " + String.join(", ", Readings.NAMES));
            }
            String text;
            if (Readings.isBoolean(f)) {
                if (v != JsonToken.VALUE_TRUE && v != JsonToken.VALUE_FALSE) {
                    throw error(tokenLine(), "field 'config.readings." + f + "' must be true or false, found " + describe(v));
                }
                text = Boolean.toString(v == JsonToken.VALUE_TRUE);
            } else {
                text = string("config.readings." + f, v);
            }
            try {
                rd = rd.with(f, text);
            } catch (IllegalArgumentException ex) {
                throw error(tokenLine(), "field 'config.readings." + f + "' must be one of " + Readings.values(f) + ", found " + quote(text));
            }
        }
        return rd;
    }

    /** The header's {@code observes}: what the system logs (docs/trace-format.md, Partial traces). */
    private Observation readObservation(JsonToken start) throws IOException, TraceFormatException {
        if (start != JsonToken.START_OBJECT) {
            throw error(tokenLine(), "header: observes must be an object, found " + describe(start));
        }
        boolean[] level = new boolean[4];
        int steps = Observation.DEFAULT_HIDDEN_STEPS;
        int cands = Observation.DEFAULT_CANDIDATES;
        java.util.Set<String> names = new java.util.HashSet<>();
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            once(names, f);
            JsonToken v = token();
            int i = java.util.List.of(Observation.LEVELS).indexOf(f);
            if (i >= 0) {
                String[] values = Observation.LEVEL_VALUES[i];
                String text = v == JsonToken.VALUE_STRING ? p.getText() : null;
                if (!values[0].equals(text) && !values[1].equals(text)) {
                    throw error(tokenLine(), "header: observes." + f + " must be \"" + values[0] + "\" or \"" + values[1] + "\", found "
                            + (text != null ? quote(text) : describe(v)));
                }
                level[i] = values[1].equals(text);
            } else if (f.equals("hiddenSteps")) {
                steps = bound("observes.hiddenSteps", v, Observation.MAX_HIDDEN_STEPS);
            } else if (f.equals("candidates")) {
                cands = bound("observes.candidates", v, Observation.MAX_CANDIDATES);
            } else {
                throw error(tokenLine(), "header: unknown field 'observes." + Echo.cut(f) + "' (known: Place, loads, Decode, StreamPage,"
                        + " hiddenSteps, candidates)");
            }
        }
        return new Observation(level[0], level[1], level[2], level[3], steps, cands);
    }

    private int bound(String field, JsonToken v, int max) throws IOException, TraceFormatException {
        if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT || p.getIntValue() < 1 || p.getIntValue() > max) {
            throw error(tokenLine(), "header: " + field + " must be an integer from 1 to " + max + ", found "
                    + (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT || v == JsonToken.VALUE_STRING ? Echo.cut(p.getText()) : describe(v)));
        }
        return p.getIntValue();
    }

    private String string(String field, JsonToken v) throws TraceFormatException, IOException {
        if (v != JsonToken.VALUE_STRING) {
            throw error(tokenLine(), "field '" + field + "' must be a string, found " + describe(v));
        }
        return p.getText();
    }

    /**
     * The current value as an integer in {@code min..max}: an integer literal (no fraction, no
     * exponent) within the field's documented range, which is within TLC's 32-bit integers.
     */
    private int integer(String field, JsonToken v, int min, int max) throws TraceFormatException, IOException {
        if (v == JsonToken.VALUE_NUMBER_FLOAT) {
            throw error(tokenLine(), "field '" + field + "' must be an integer, found " + Echo.cut(p.getText()) + " (an integer has no fraction or exponent)");
        }
        if (v != JsonToken.VALUE_NUMBER_INT) {
            throw error(tokenLine(), "field '" + field + "' must be an integer, found " + describe(v));
        }
        if (p.getNumberType() == JsonParser.NumberType.INT) {
            int x = p.getIntValue();
            if (x >= min && x <= max) {
                return x;
            }
        }
        throw error(tokenLine(), "field '" + field + "' must be an integer in " + min + ".." + max + ", found " + Echo.cut(p.getText()));
    }

    /** The current value as a finite number (NaN, Infinity and literals that overflow a double, such as 1e999, are errors). */
    private double number(String field, JsonToken v) throws TraceFormatException, IOException {
        if (v != JsonToken.VALUE_NUMBER_INT && v != JsonToken.VALUE_NUMBER_FLOAT) {
            throw error(tokenLine(), "field '" + field + "' must be a number, found " + describe(v));
        }
        double d = p.getDoubleValue();
        if (!Double.isFinite(d)) {
            throw error(tokenLine(), "field '" + field + "' must be a finite number, found " + Echo.cut(p.getText()));
        }
        return d;
    }

    // ---- events ------------------------------------------------------------------------------

    private static final int F_REQ = 0;
    private static final int F_WORKER = 1;
    private static final int F_HOLDER = 2;
    private static final int F_PROMPT = 3;
    private static final int F_CKPT = 4;
    private static final int F_FREED = 5;
    private static final int F_RESUMED = 6;
    private static final int F_BACKUP = 7;
    private static final int F_MAXOUT = 8;
    private static final int F_TARGET = 9;
    private static final int F_TOKEN = 10;
    private static final int F_EPOCH = 11;
    private static final int N_INTS = 12;
    private static final String[] INT_NAMES = {"req", "worker", "holder", "promptLen", "ckpt", "freed", "resumed", "backup", "maxOut", "target",
        "token", "epoch"};
    /** The array fields, numbered after the integer fields ({@link #A_REF} is field N_INTS). */
    private static final String[] ARRAY_NAMES = {"ref", "tokens", "interrupted", "orphaned", "draft", "dropped", "promoted"};
    private static final int A_REF = N_INTS;
    private static final int A_TOKENS = N_INTS + 1;
    private static final int A_INTERRUPTED = N_INTS + 2;
    private static final int A_ORPHANED = N_INTS + 3;
    private static final int A_DRAFT = N_INTS + 4;
    private static final int A_DROPPED = N_INTS + 5;
    private static final int A_PROMOTED = N_INTS + 6;
    /** The other fields of an event, numbered after the arrays; every field has one bit of {@link #present}. */
    private static final int X_TYPE = A_PROMOTED + 1;
    private static final int X_T = X_TYPE + 1;
    private static final int X_LOADS = X_T + 1;
    private static final int X_RESERVED = X_LOADS + 1;
    private static final int X_MODE = X_RESERVED + 1;
    private static final int X_PAGES = X_MODE + 1;
    private static final int X_EXT = X_PAGES + 1;
    /** A composed line's steps: a batch iteration's Decodes (observes.Decode=batch), a size report's StreamPages (observes.StreamPage=sizes). */
    private static final int X_BATCH = X_EXT + 1;
    private static final int X_SIZES = X_BATCH + 1;
    /** A zombie's write: whether the gateway or the holder took it (ZombieToken, ZombiePage). */
    private static final int X_ACCEPTED = X_SIZES + 1;
    /** The bits of the integer and array fields, which each event type allows some of ({@link #onlyFields}). */
    private static final long INTS_AND_ARRAYS = (1L << X_TYPE) - 1;
    /**
     * The least element of each array: reference tokens and request ids are 0..2^31-1; delivered
     * and draft tokens may be negative (-1 is the spec's Wrong), down to -(2^31-1), which TLC can write.
     */
    private static final int[] ARRAY_MIN = {0, -TraceFormat.MAX_INT, 0, 0, -TraceFormat.MAX_INT, 0, 0};

    /** An event's field by name: its number, or -1 for a name the contract does not know. */
    private static int fieldNumber(String f) {
        return switch (f) {
            case "req" -> F_REQ;
            case "worker" -> F_WORKER;
            case "holder" -> F_HOLDER;
            case "promptLen" -> F_PROMPT;
            case "ckpt" -> F_CKPT;
            case "freed" -> F_FREED;
            case "resumed" -> F_RESUMED;
            case "backup" -> F_BACKUP;
            case "maxOut" -> F_MAXOUT;
            case "target" -> F_TARGET;
            case "ref" -> A_REF;
            case "tokens" -> A_TOKENS;
            case "interrupted" -> A_INTERRUPTED;
            case "orphaned" -> A_ORPHANED;
            case "draft" -> A_DRAFT;
            case "dropped" -> A_DROPPED;
            case "promoted" -> A_PROMOTED;
            case "type" -> X_TYPE;
            case "t" -> X_T;
            case "loads" -> X_LOADS;
            case "reserved" -> X_RESERVED;
            case "mode" -> X_MODE;
            case "pages" -> X_PAGES;
            case "ext" -> X_EXT;
            case "batch" -> X_BATCH;
            case "sizes" -> X_SIZES;
            case "accepted" -> X_ACCEPTED;
            case "token" -> F_TOKEN;
            case "epoch" -> F_EPOCH;
            default -> -1;
        };
    }

    /** Every field's name, by number, with its quoted bytes ready for the parser to compare. */
    private static final com.fasterxml.jackson.core.io.SerializedString[] FIELD_STRINGS = new com.fasterxml.jackson.core.io.SerializedString[X_ACCEPTED + 1];
    /** The fields of each event type in the order the kit's writer puts them (TraceWriter), by action ordinal. */
    private static final int[][] FIELD_ORDER = new int[Action.values().length][];
    /**
     * The field most likely next, after field n: {@code NEXT[0][n]} before the type is known, and
     * {@code NEXT[a + 1][n]} in an event of action ordinal a (the writer's order; X_TYPE where none follows).
     */
    private static final int[][] NEXT = new int[Action.values().length + 1][X_ACCEPTED + 1];

    static {
        for (int f = 0; f <= X_ACCEPTED; f++) {
            String name = f < A_REF ? INT_NAMES[f] : f < X_TYPE ? ARRAY_NAMES[f - A_REF]
                    : new String[] {"type", "t", "loads", "reserved", "mode", "pages", "ext", "batch", "sizes", "accepted"}[f - X_TYPE];
            FIELD_STRINGS[f] = new com.fasterxml.jackson.core.io.SerializedString(name);
        }
        FIELD_ORDER[Action.ARRIVE.ordinal()] = new int[] {F_REQ, F_WORKER, F_PROMPT, A_REF, F_MAXOUT};
        FIELD_ORDER[Action.PLACE.ordinal()] = new int[] {F_REQ, F_HOLDER, F_BACKUP, X_LOADS, X_RESERVED};
        FIELD_ORDER[Action.PREFILL.ordinal()] = new int[] {F_REQ, F_WORKER, A_TOKENS, X_PAGES};
        FIELD_ORDER[Action.DECODE.ordinal()] = new int[] {F_REQ, F_WORKER, A_TOKENS, X_PAGES};
        FIELD_ORDER[Action.STREAM_PAGE.ordinal()] = new int[] {F_REQ, F_HOLDER, F_CKPT, X_PAGES};
        FIELD_ORDER[Action.COMPLETE.ordinal()] = new int[] {F_REQ, F_WORKER, F_FREED};
        FIELD_ORDER[Action.FAIL.ordinal()] = new int[] {F_WORKER, A_INTERRUPTED, A_ORPHANED, A_PROMOTED};
        FIELD_ORDER[Action.ROUTE.ordinal()] = new int[] {F_REQ, X_MODE, F_WORKER, F_RESUMED, F_FREED, X_PAGES};
        FIELD_ORDER[Action.RESTART.ordinal()] = new int[] {F_WORKER};
        FIELD_ORDER[Action.DRAFT_READY.ordinal()] = new int[] {F_WORKER, F_TARGET};
        FIELD_ORDER[Action.ASSIST.ordinal()] = new int[] {F_WORKER, F_REQ, A_DRAFT};
        FIELD_ORDER[Action.FULL_READY.ordinal()] = new int[] {F_WORKER, A_DROPPED};
        FIELD_ORDER[Action.ZOMBIE_TOKEN.ordinal()] = new int[] {F_WORKER, F_REQ, F_TOKEN, F_EPOCH, X_ACCEPTED};
        FIELD_ORDER[Action.ZOMBIE_PAGE.ordinal()] = new int[] {F_WORKER, F_REQ, F_HOLDER, F_EPOCH, X_PAGES, X_ACCEPTED};
        FIELD_ORDER[Action.ZOMBIE_STOPS.ordinal()] = new int[] {F_WORKER};
        FIELD_ORDER[Action.ZOMBIE_ACK.ordinal()] = new int[] {F_WORKER, F_REQ, F_EPOCH, X_ACCEPTED};
        for (int[] row : NEXT) {
            Arrays.fill(row, X_TYPE);
        }
        NEXT[0][X_TYPE] = X_T;
        for (Action a : Action.values()) {
            int[] order = FIELD_ORDER[a.ordinal()];
            NEXT[a.ordinal() + 1][X_T] = order[0];
            for (int i = 0; i + 1 < order.length; i++) {
                NEXT[a.ordinal() + 1][order[i]] = order[i + 1];
            }
        }
    }

    private final int[] ints = new int[N_INTS];
    /** The current event's {@code accepted} (a zombie's write). */
    private boolean accepted;
    /** Every event type, for the error that names an unknown one. */
    private static final String KNOWN_TYPES = String.join(", ", Arrays.stream(Action.values()).map(Action::specName).toList());
    private final int[][] arrays = new int[ARRAY_NAMES.length][];
    /** The fields the current event has shown so far, one bit each (a second one is a duplicate key). */
    private long present;
    private int[] buf = new int[64];
    private lumen.core.PageDigest[] pageBuf = new lumen.core.PageDigest[8];
    private lumen.core.PageDigest[] pages;

    /**
     * For the event {@link #next} returned last, when it is one step of a composed line (a batch
     * iteration, a size report): which entry of how many, in words ("entry 2 of 3 of the line's
     * batch"); null for an event that is its line's only step.
     */
    public String entry() {
        return composedSize < 2 ? null : "entry " + (composedSize - queued.size()) + " of " + composedSize + " of the line's " + composedName;
    }

    /** The next event, or null at the end of the trace. */
    public Event next() throws IOException, TraceFormatException {
        if (!queued.isEmpty()) {
            return queued.poll();
        }
        composedSize = 0;
        try {
            if (scan && scanNext) {
                Event e = scanLine();
                if (e != null) {
                    return e;
                }
            }
            // the parser reads this line: it has seen every line break served to it, and none of the lines scanned
            shift = lines.line - (lines.served + 1);
            Event e = readEvent();
            // the scan takes the next line only when nothing but its line break is left of this one
            scanNext = e != null && lines.onlyLineBreakLeft(p.currentLocation().getByteOffset());
            return e;
        } catch (JsonProcessingException | TraceBytes.Refused ex) {
            throw refused(ex);
        }
    }

    /** The steps of a composed line after its first, on the same line. */
    private final java.util.ArrayDeque<Event> queued = new java.util.ArrayDeque<>();

    /** One entry of a composed line: its fields, as a line's are held. */
    private static final class Entry {
        long present;
        final int[] ints = new int[N_INTS];
        final int[][] arrays = new int[ARRAY_NAMES.length][];
        lumen.core.PageDigest[] pages;
    }

    private final java.util.List<Entry> entries = new java.util.ArrayList<>();
    private int entryCount;
    /** The composed line the last events came from: its field's name and its number of entries (0: not composed). */
    private String composedName;
    private int composedSize;

    /** A composed line's kind: its action, its field, and the fields of an entry. */
    private record Composed(Action action, int field, String name, long entryFields, String entryNames) {}

    private static final Composed BATCH = new Composed(Action.DECODE, X_BATCH, "batch", allowing(F_REQ, A_TOKENS, X_PAGES), "req, tokens, pages");
    private static final Composed SIZES = new Composed(Action.STREAM_PAGE, X_SIZES, "sizes", allowing(F_REQ, F_HOLDER, F_CKPT),
            "req, holder, ckpt");

    /** The entries of a composed line's array, each an object of the fields {@code c} allows. */
    private void readEntries(Composed c, String type, JsonToken v) throws IOException, TraceFormatException {
        String shape = (type == null ? c.action().specName() : type) + ": '" + c.name() + "' must be a non-empty array of objects with "
                + c.entryNames();
        if (v != JsonToken.START_ARRAY) {
            throw error(tokenLine(), shape + ", found " + describe(v));
        }
        entryCount = 0;
        JsonToken t;
        while ((t = token()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) {
                throw error(tokenLine(), entryName(c, entryCount + 1) + " must be an object");
            }
            if (entryCount == entries.size()) {
                entries.add(new Entry());
            }
            Entry en = entries.get(entryCount++);
            en.present = 0;
            en.pages = null;
            while (token() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                int n = fieldNumber(f);
                if (n < 0 || (c.entryFields() & 1L << n) == 0) {
                    throw error(tokenLine(), entryName(c, entryCount) + ": unknown field '" + Echo.cut(f) + "' (an entry has " + c.entryNames() + ")");
                }
                if ((en.present & 1L << n) != 0) {
                    throw duplicate(f);
                }
                en.present |= 1L << n;
                JsonToken ev = token();
                if (n < X_TYPE) {
                    intOrArray(n, f, ev, en.ints, en.arrays);
                } else {
                    en.pages = pagesField(ev);
                }
            }
        }
        if (entryCount == 0) {
            throw error(tokenLine(), shape);
        }
    }

    /** Entry k of a composed line, as errors name it ("Decode: batch entry 2"). */
    private static String entryName(Composed c, int k) {
        return c.action().specName() + ": " + c.name() + " entry " + k;
    }

    /** The fields an entry of either kind gives, which none may give beside its entries. */
    private static final long ENTRY_FIELDS = allowing(F_REQ, A_TOKENS, F_HOLDER, F_CKPT, X_PAGES);

    /** A composed line as its steps, in order: the first returned, the rest queued, all on this line. */
    private Event composed(Composed c, Action a, String type, String mode) throws TraceFormatException {
        if (a != c.action()) {
            throw error(eventLine, type + ": unexpected field '" + c.name() + "'");
        }
        long beside = present & ENTRY_FIELDS;
        if (beside != 0) {
            int f = Long.numberOfTrailingZeros(beside);
            throw error(eventLine, type + ": a '" + c.name() + "' line gives " + c.entryNames() + " per entry of '" + c.name() + "', not '"
                    + FIELD_STRINGS[f].getValue() + "' beside them");
        }
        long line = present & ~(1L << c.field());
        Event first = null;
        composedName = c.name();
        composedSize = entryCount;
        for (int i = 0; i < entryCount; i++) {
            Entry en = entries.get(i);
            present = line | en.present;
            // the entry's own fields over the line's (the two are disjoint: nothing an entry gives stands beside it)
            for (long m = en.present & INTS_AND_ARRAYS; m != 0; m &= m - 1) {
                int f = Long.numberOfTrailingZeros(m);
                if (f < A_REF) {
                    ints[f] = en.ints[f];
                } else {
                    arrays[f - A_REF] = en.arrays[f - A_REF];
                }
            }
            pages = en.pages;
            Event e;
            try {
                e = build(a, type, mode);
            } catch (TraceFormatException ex) {
                // the entry's own error, named as the entry ("Decode: batch entry 2: missing field 'pages' ...")
                String msg = ex.reason();
                throw error(eventLine, entryName(c, i + 1) + ": " + msg.replaceFirst("^" + c.action().specName() + ": ", ""));
            }
            if (first == null) {
                first = e;
            } else {
                queued.add(e);
            }
        }
        return first;
    }

    /** Integer or array field n's value, into a line's fields or an entry's; holder and backup may be null (None). */
    private void intOrArray(int n, String f, JsonToken v, int[] intsInto, int[][] arraysInto) throws IOException, TraceFormatException {
        if (n < A_REF) {
            intsInto[n] = v == JsonToken.VALUE_NULL && (n == F_HOLDER || n == F_BACKUP) ? -1 : integer(f, v, 0, TraceFormat.MAX_INT);
        } else {
            arraysInto[n - A_REF] = intArray(f, v, ARRAY_MIN[n - A_REF]);
        }
    }

    /** The {@code pages} field, which only a version-2 trace has. */
    private lumen.core.PageDigest[] pagesField(JsonToken v) throws IOException, TraceFormatException {
        if (version < 2) {
            throw error(tokenLine(), "unknown field 'pages' (KV content is trace contract v2; the header declares version " + version + ")");
        }
        return pageList(v);
    }

    private boolean has(int field) {
        return (present & 1L << field) != 0;
    }

    private Event readEvent() throws IOException, TraceFormatException {
        if (!startObject()) {
            return null;
        }
        present = 0;
        String type = null;
        Action action = null;
        String mode = null;
        eventTime = Double.NaN;
        citedLoads = null;
        citedReserved = null;
        pages = null;
        accepted = false;
        // the name the kit's writer puts next is tried first, as bytes in the parser's buffer: a
        // trace written in another order reads the same, by name
        int predicted = X_TYPE;
        while (true) {
            String f;
            int n;
            if (p.nextFieldName(FIELD_STRINGS[predicted])) {
                n = predicted;
                f = FIELD_STRINGS[n].getValue();
            } else {
                if (p.currentToken() != JsonToken.FIELD_NAME) {
                    break;
                }
                f = p.currentName();
                n = fieldNumber(f);
                if (n < 0 || n == X_BATCH && !observation.batchDecode() || n == X_SIZES && !observation.streamSizes()) {
                    throw error(tokenLine(), "unknown field '" + Echo.cut(f) + "'");
                }
            }
            if (has(n)) {
                throw duplicate(f);
            }
            present |= 1L << n;
            predicted = NEXT[action == null ? 0 : action.ordinal() + 1][n];
            JsonToken v = token();
            if (n < X_TYPE) {
                intOrArray(n, f, v, ints, arrays);
                continue;
            }
            switch (n) {
                case X_TYPE -> {
                    if (v != JsonToken.VALUE_STRING) {
                        string(f, v); // the error for a type that is not a string
                    }
                    action = typeOf();
                    type = action != null ? action.specName() : p.getText();
                    predicted = action == null ? X_T : FIELD_ORDER[action.ordinal()][0];
                }
                case X_T -> eventTime = number(f, v);
                case X_LOADS -> citedLoads = loads(v);
                case X_RESERVED -> citedReserved = reservedList(v);
                case X_MODE -> mode = string(f, v);
                case X_PAGES -> pages = pagesField(v);
                case X_BATCH -> readEntries(BATCH, type, v);
                case X_SIZES -> readEntries(SIZES, type, v);
                case X_ACCEPTED -> {
                    if (v != JsonToken.VALUE_TRUE && v != JsonToken.VALUE_FALSE) {
                        throw error(tokenLine(), "field 'accepted' must be true or false, found " + describe(v));
                    }
                    accepted = v == JsonToken.VALUE_TRUE;
                }
                default -> skipExt(v);
            }
        }
        endObject();
        checkTime();
        if (type == null) {
            throw error(eventLine, "event without a 'type'");
        }
        if (has(X_BATCH) || has(X_SIZES)) {
            if (action == null) {
                build(null, type, mode); // the unknown type's error
            }
            return composed(has(X_BATCH) ? BATCH : SIZES, action, type, mode);
        }
        return build(action, type, mode);
    }

    private static final Action[] ACTION_LIST = Action.values();

    /** The action the current string token names, matched in the parser's buffer; null for none. */
    private Action typeOf() throws IOException {
        char[] cs = p.getTextCharacters();
        int off = p.getTextOffset();
        int n = p.getTextLength();
        for (Action a : ACTION_LIST) {
            String name = a.specName();
            if (name.length() == n && same(name, cs, off)) {
                return a;
            }
        }
        return null;
    }

    private static boolean same(String name, char[] cs, int off) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) != cs[off + i]) {
                return false;
            }
        }
        return true;
    }

    private int[] intArray(String f, JsonToken v, int min) throws IOException, TraceFormatException {
        if (v != JsonToken.START_ARRAY) {
            throw error(tokenLine(), "field '" + f + "' must be an array of integers, found " + describe(v));
        }
        int n = 0;
        JsonToken t;
        while ((t = token()) != JsonToken.END_ARRAY) {
            if (t == JsonToken.VALUE_NUMBER_FLOAT) {
                throw error(tokenLine(), "field '" + f + "' must hold integers only, found " + Echo.cut(p.getText())
                        + " (an integer has no fraction or exponent)");
            }
            if (t != JsonToken.VALUE_NUMBER_INT) {
                throw error(tokenLine(), "field '" + f + "' must hold integers only, found " + describe(t));
            }
            if (n == buf.length) {
                buf = Arrays.copyOf(buf, n * 2);
            }
            int x = p.getNumberType() == JsonParser.NumberType.INT ? p.getIntValue() : min - 1;
            if (x < min) {
                throw error(tokenLine(), "field '" + f + "' holds " + Echo.cut(p.getText()) + ", outside " + min + ".." + TraceFormat.MAX_INT);
            }
            buf[n++] = x;
        }
        return Arrays.copyOf(buf, n);
    }

    /** {@code pages}: [[first, count, "16 hex digits"], ...], page-aligned, in order, each within one page. */
    private lumen.core.PageDigest[] pageList(JsonToken v) throws IOException, TraceFormatException {
        String shape = "field 'pages' must be an array of [first, count, \"digest\"] entries (digest: 16 hexadecimal digits)";
        if (v != JsonToken.START_ARRAY) {
            throw error(tokenLine(), shape + ", found " + describe(v));
        }
        int pt = config.pageTokens();
        int n = 0;
        JsonToken t;
        while ((t = token()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_ARRAY) {
                throw error(tokenLine(), shape + ", found " + describe(t) + " as an entry");
            }
            long first = integer("pages[].first", token(), 1, TraceFormat.MAX_CONTEXT);
            long count = integer("pages[].count", token(), 1, TraceFormat.MAX_PAGE_TOKENS);
            JsonToken d = token();
            if (d != JsonToken.VALUE_STRING) {
                throw error(tokenLine(), shape + ": the digest must be a string, found " + describe(d));
            }
            long digest = hex64();
            if (digest == BAD_HEX && badHex) {
                throw error(tokenLine(), "field 'pages': digest \"" + cut(p.getText()) + "\" is not 16 hexadecimal digits");
            }
            if (token() != JsonToken.END_ARRAY) {
                throw error(tokenLine(), shape + ": an entry has exactly three members");
            }
            if (first < 1 || (first - 1) % pt != 0) {
                throw error(tokenLine(), "field 'pages': an entry starts at position " + first + ", which is not the first position of a page ("
                        + pt + " positions per page: 1, " + (pt + 1) + ", " + (2 * pt + 1) + ", ...)");
            }
            if (count < 1 || count > pt) {
                throw error(tokenLine(), "field 'pages': an entry holds " + count + " positions; a page holds 1 to " + pt);
            }
            if (n > 0 && first <= pageBuf[n - 1].first()) {
                throw error(tokenLine(), "field 'pages': entries must be in increasing order of position, one per page");
            }
            if (n == pageBuf.length) {
                pageBuf = Arrays.copyOf(pageBuf, n * 2);
            }
            pageBuf[n++] = new lumen.core.PageDigest((int) first, (int) count, digest);
        }
        return Arrays.copyOf(pageBuf, n);
    }

    /** Each ASCII character's value as a hexadecimal digit, or -1. */
    private static final byte[] HEX = new byte[128];

    static {
        java.util.Arrays.fill(HEX, (byte) -1);
        for (int i = 0; i < 16; i++) {
            HEX["0123456789abcdef".charAt(i)] = (byte) i;
            HEX["0123456789ABCDEF".charAt(i)] = (byte) i;
        }
    }

    /** What {@link #hex64} returns for a string that is not 16 hexadecimal digits (with {@link #badHex} set). */
    private static final long BAD_HEX = 0x5EED_BAD0_5EED_BAD0L;
    private boolean badHex;

    /**
     * The current string token as 16 hexadecimal digits, read in place from the parser's buffer;
     * {@link #BAD_HEX} when it is not (a real digest equal to it is told apart by {@link #badHex}).
     */
    private long hex64() throws IOException {
        char[] cs = p.getTextCharacters();
        int off = p.getTextOffset();
        int n = p.getTextLength();
        badHex = true;
        if (n != 16) {
            return BAD_HEX;
        }
        long v = 0;
        for (int i = 0; i < 16; i++) {
            char c = cs[off + i];
            int d = c < HEX.length ? HEX[c] : -1;
            if (d < 0) {
                return BAD_HEX;
            }
            v = (v << 4) | d;
        }
        badHex = false;
        return v;
    }

    private static String cut(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "... (" + s.length() + " characters)";
    }

    /** In a v2 trace, an event that writes or copies KV must show its content. */
    private lumen.core.PageDigest[] content(String type) throws TraceFormatException {
        if (version >= 2 && pages == null) {
            throw error(eventLine, type + ": missing field 'pages' (trace contract v2: the KV content of every page the event writes or copies)");
        }
        return pages;
    }

    private long[] reservedList(JsonToken v) throws IOException, TraceFormatException {
        if (v != JsonToken.START_ARRAY) {
            throw error(tokenLine(), "field 'reserved' must be an array of integers, one per worker, found " + describe(v));
        }
        long[] out = new long[config.workers()];
        int n = 0;
        JsonToken t;
        while ((t = token()) != JsonToken.END_ARRAY) {
            if (n == out.length) {
                throw error(tokenLine(), "field 'reserved' holds more than one value per worker (" + out.length + ")");
            }
            out[n++] = integer("reserved[]", t, 0, TraceFormat.MAX_INT);
        }
        if (n != out.length) {
            throw error(tokenLine(), "field 'reserved' holds " + n + " values, the header declares " + out.length + " workers");
        }
        return out;
    }

    private double[] loads(JsonToken v) throws IOException, TraceFormatException {
        if (v != JsonToken.START_ARRAY) {
            throw error(tokenLine(), "field 'loads' must be an array of numbers, one per worker, found " + describe(v));
        }
        double[] out = new double[config.workers()];
        int n = 0;
        JsonToken t;
        while ((t = token()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                throw error(tokenLine(), "field 'loads' must hold numbers only, found " + describe(t));
            }
            if (n == out.length) {
                throw error(tokenLine(), "field 'loads' holds more than one load per worker (" + out.length + ")");
            }
            double d = p.getDoubleValue();
            if (!Double.isFinite(d)) {
                throw error(tokenLine(), "field 'loads' must hold finite numbers, found " + Echo.cut(p.getText()));
            }
            out[n++] = d;
        }
        if (n != out.length) {
            throw error(tokenLine(), "field 'loads' holds " + n + " loads, the header declares " + out.length + " workers");
        }
        return out;
    }

    private int need(String type, int i) throws TraceFormatException {
        if (!has(i)) {
            throw error(eventLine, type + ": missing field '" + INT_NAMES[i] + "'");
        }
        return ints[i];
    }

    private int[] needArray(String type, int a) throws TraceFormatException {
        if (!has(a)) {
            throw error(eventLine, type + ": missing field '" + ARRAY_NAMES[a - A_REF] + "'");
        }
        return arrays[a - A_REF];
    }

    private int workerField(String type, int i) throws TraceFormatException {
        int w = need(type, i);
        if (w >= config.workers() || (w < 0 && i != F_HOLDER && i != F_BACKUP)) {
            throw error(eventLine, type + ": unknown worker " + w + " in '" + INT_NAMES[i] + "' (the header declares workers 0.." + (config.workers() - 1) + ")");
        }
        return w;
    }

    /** The bits of the integer and array fields {@code fields}. */
    private static long allowing(int... fields) {
        long m = 0;
        for (int f : fields) {
            m |= 1L << f;
        }
        return m;
    }

    /** The integer and array fields each event type may carry, by {@link Action#ordinal()}. */
    private static final long[] ALLOWED = new long[Action.values().length];

    static {
        ALLOWED[Action.ARRIVE.ordinal()] = allowing(F_REQ, F_WORKER, F_PROMPT, A_REF, F_MAXOUT);
        ALLOWED[Action.PLACE.ordinal()] = allowing(F_REQ, F_HOLDER, F_BACKUP);
        ALLOWED[Action.PREFILL.ordinal()] = allowing(F_REQ, F_WORKER, A_TOKENS);
        ALLOWED[Action.DECODE.ordinal()] = allowing(F_REQ, F_WORKER, A_TOKENS);
        ALLOWED[Action.STREAM_PAGE.ordinal()] = allowing(F_REQ, F_HOLDER, F_CKPT);
        ALLOWED[Action.COMPLETE.ordinal()] = allowing(F_REQ, F_WORKER, F_FREED);
        ALLOWED[Action.FAIL.ordinal()] = allowing(F_WORKER, A_INTERRUPTED, A_ORPHANED, A_PROMOTED);
        ALLOWED[Action.ROUTE.ordinal()] = allowing(F_REQ, F_WORKER, F_RESUMED, F_FREED);
        ALLOWED[Action.RESTART.ordinal()] = allowing(F_WORKER);
        ALLOWED[Action.DRAFT_READY.ordinal()] = allowing(F_WORKER, F_TARGET);
        ALLOWED[Action.ASSIST.ordinal()] = allowing(F_WORKER, F_REQ, A_DRAFT);
        ALLOWED[Action.FULL_READY.ordinal()] = allowing(F_WORKER, A_DROPPED);
        ALLOWED[Action.ZOMBIE_TOKEN.ordinal()] = allowing(F_WORKER, F_REQ, F_TOKEN, F_EPOCH);
        ALLOWED[Action.ZOMBIE_PAGE.ordinal()] = allowing(F_WORKER, F_REQ, F_HOLDER, F_EPOCH);
        ALLOWED[Action.ZOMBIE_STOPS.ordinal()] = allowing(F_WORKER);
        ALLOWED[Action.ZOMBIE_ACK.ordinal()] = allowing(F_WORKER, F_REQ, F_EPOCH);
    }

    /** The first integer or array field (integers first, each in its listed order) that type {@code a} does not carry. */
    private void onlyFields(String type, Action a) throws TraceFormatException {
        long extra = present & INTS_AND_ARRAYS & ~ALLOWED[a.ordinal()];
        if (extra != 0) {
            int f = Long.numberOfTrailingZeros(extra);
            throw error(eventLine, type + ": unexpected field '" + (f < A_REF ? INT_NAMES[f] : ARRAY_NAMES[f - A_REF]) + "'");
        }
    }

    private Event build(Action a, String type, String mode) throws TraceFormatException {
        if (a == null) {
            throw error(eventLine, "unknown event type " + quote(type) + "; known: " + KNOWN_TYPES);
        }
        if (mode != null && a != Action.ROUTE) {
            throw error(eventLine, type + ": unexpected field 'mode'");
        }
        if (citedLoads != null && a != Action.PLACE && a != Action.ROUTE && a != Action.ASSIST && a != Action.DRAFT_READY) {
            throw error(eventLine, type + ": unexpected field 'loads' (only Place, Route, Assist and DraftReady cite loads)");
        }
        if (citedReserved != null && a != Action.PLACE) {
            throw error(eventLine, type + ": unexpected field 'reserved' (only Place cites reservations)");
        }
        if (pages != null && a != Action.PREFILL && a != Action.DECODE && a != Action.STREAM_PAGE && a != Action.ROUTE && a != Action.ZOMBIE_PAGE) {
            throw error(eventLine, type + ": unexpected field 'pages' (only Prefill, Decode, StreamPage, Route and ZombiePage carry KV content)");
        }
        if (has(X_ACCEPTED) != (a == Action.ZOMBIE_TOKEN || a == Action.ZOMBIE_PAGE || a == Action.ZOMBIE_ACK)) {
            throw error(eventLine, has(X_ACCEPTED) ? type + ": unexpected field 'accepted' (only a zombie's write, ZombieToken, ZombiePage or"
                    + " ZombieAck, has one)"
                    : type + ": missing field 'accepted' (whether the fence refused this write of a fenced incarnation: false, or let it through: true)");
        }
        onlyFields(type, a);
        switch (a) {
            case ARRIVE -> {
                int[] ref = needArray(type, A_REF);
                int prompt = need(type, F_PROMPT);
                if (prompt < 1) {
                    throw error(eventLine, "Arrive: promptLen must be at least 1");
                }
                if (ref.length < 1) {
                    throw error(eventLine, "Arrive: ref must hold at least one token");
                }
                if ((long) prompt + ref.length > TraceFormat.MAX_CONTEXT) {
                    throw error(eventLine, "Arrive: the request's context, promptLen + the length of ref, must be at most "
                            + TraceFormat.MAX_CONTEXT + " positions, found " + ((long) prompt + ref.length));
                }
                int maxOut = has(F_MAXOUT) ? ints[F_MAXOUT] : 0;
                if (has(F_MAXOUT) && maxOut < ref.length) {
                    throw error(eventLine, "Arrive: maxOut, the request's declared maximum output, must be at least the length of ref ("
                            + ref.length + "), found " + maxOut);
                }
                if ((long) prompt + maxOut > TraceFormat.MAX_CONTEXT) {
                    throw error(eventLine, "Arrive: the request's declared context, promptLen + maxOut, must be at most "
                            + TraceFormat.MAX_CONTEXT + " positions, found " + ((long) prompt + maxOut));
                }
                for (int x : ref) {
                    if (x < 0) {
                        throw error(eventLine, "Arrive: reference tokens are integers >= 0, found " + x);
                    }
                }
                return new Event.Arrive(need(type, F_REQ), workerField(type, F_WORKER), prompt, ref, maxOut);
            }
            case PLACE -> {
                int backup = has(F_BACKUP) ? workerField(type, F_BACKUP) : -1;
                return new Event.Place(need(type, F_REQ), workerField(type, F_HOLDER), backup);
            }
            case PREFILL -> {
                return new Event.Prefill(need(type, F_REQ), workerField(type, F_WORKER), needArray(type, A_TOKENS), content(type));
            }
            case DECODE -> {
                int[] toks = needArray(type, A_TOKENS);
                if (toks.length == 0) {
                    throw error(eventLine, "Decode: tokens must hold at least one token");
                }
                return new Event.Decode(need(type, F_REQ), workerField(type, F_WORKER), toks, content(type));
            }
            case STREAM_PAGE -> {
                if (observation.streamSizes() && pages != null) {
                    throw error(eventLine, "StreamPage: unexpected field 'pages' (the header declares observes.StreamPage=sizes: streaming"
                            + " is reported by its sizes, without content)");
                }
                return new Event.StreamPage(need(type, F_REQ), workerField(type, F_HOLDER), need(type, F_CKPT), observation.streamSizes() ? null : content(type));
            }
            case COMPLETE -> {
                return new Event.Complete(need(type, F_REQ), workerField(type, F_WORKER), need(type, F_FREED));
            }
            case FAIL -> {
                int[] promoted = has(A_PROMOTED) ? arrays[A_PROMOTED - A_REF] : null;
                return new Event.Fail(workerField(type, F_WORKER), needArray(type, A_INTERRUPTED), needArray(type, A_ORPHANED),
                        promoted == null ? new int[0] : promoted);
            }
            case ROUTE -> {
                if (mode == null) {
                    throw error(eventLine, "Route: missing field 'mode'");
                }
                RouteMode m;
                try {
                    m = RouteMode.valueOf(mode);
                } catch (IllegalArgumentException ex) {
                    throw error(eventLine, "Route: mode must be \"RESTORE\" or \"REPREFILL\", found " + quote(mode));
                }
                if (m == RouteMode.RESTORE) {
                    content(type + " (RESTORE)");
                } else if (pages != null && pages.length > 0) {
                    throw error(eventLine, "Route: a REPREFILL restores no pages; 'pages' must be empty or absent");
                }
                return new Event.Route(need(type, F_REQ), m, workerField(type, F_WORKER), need(type, F_RESUMED), need(type, F_FREED),
                        m == RouteMode.RESTORE || version < 2 ? pages : new lumen.core.PageDigest[0]);
            }
            case RESTART -> {
                return new Event.Restart(workerField(type, F_WORKER));
            }
            case DRAFT_READY -> {
                return new Event.DraftReady(workerField(type, F_WORKER), has(F_TARGET) ? workerField(type, F_TARGET) : -1);
            }
            case ASSIST -> {
                return new Event.Assist(workerField(type, F_WORKER), need(type, F_REQ), needArray(type, A_DRAFT));
            }
            case FULL_READY -> {
                return new Event.FullReady(workerField(type, F_WORKER), needArray(type, A_DROPPED));
            }
            case ZOMBIE_TOKEN -> {
                return new Event.ZombieToken(workerField(type, F_WORKER), need(type, F_REQ), need(type, F_TOKEN),
                        has(F_EPOCH) ? ints[F_EPOCH] : -1, accepted);
            }
            case ZOMBIE_PAGE -> {
                int h = workerField(type, F_HOLDER);
                if (h < 0) {
                    throw error(eventLine, "ZombiePage: holder must name the worker the page was sent to, found " + h);
                }
                return new Event.ZombiePage(workerField(type, F_WORKER), need(type, F_REQ), h, has(F_EPOCH) ? ints[F_EPOCH] : -1,
                        version >= 2 ? pages : null, accepted);
            }
            case ZOMBIE_STOPS -> {
                return new Event.ZombieStops(workerField(type, F_WORKER));
            }
            case ZOMBIE_ACK -> {
                return new Event.ZombieAck(workerField(type, F_WORKER), need(type, F_REQ), has(F_EPOCH) ? ints[F_EPOCH] : -1, accepted);
            }
        }
        throw new AssertionError(a);
    }

    // ---- the line scan -----------------------------------------------------------------------

    /*
     * Most lines of a trace are a handful of shapes the kit's writer puts out: an object of known
     * fields holding non-negative integers, arrays of integers, the event's type and its pages,
     * with no whitespace. The scan reads such a line in place, byte by byte, into the fields the
     * parser's path fills (present, ints, arrays, pages, eventTime), and then the same checks and
     * the same build run on them. It takes a line only when every byte is one its grammar allows and
     * every value is within the range the parser's path would accept without an error; at the first
     * byte it does not expect, the line goes to the JSON parser whole, which reads it as it reads any
     * line (and reports whatever is wrong with it). So a line the scan takes reads as the parser
     * would read it, and the scan never reports an error of its own.
     */

    /** Every field's name as bytes, by number. */
    private static final byte[][] FIELD_BYTES = new byte[X_ACCEPTED + 1][];
    /** Every action's name as bytes, by ordinal. */
    private static final byte[][] ACTION_BYTES = new byte[Action.values().length][];
    /** The fields the scan reads: the integers, the arrays, the type, the time and the pages. */
    private static final long SCANNED = INTS_AND_ARRAYS | 1L << X_TYPE | 1L << X_T | 1L << X_PAGES;

    static {
        for (int f = 0; f <= X_ACCEPTED; f++) {
            FIELD_BYTES[f] = FIELD_STRINGS[f].getValue().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        for (Action a : Action.values()) {
            ACTION_BYTES[a.ordinal()] = a.specName().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    /** Lines the scan read so far. */
    private long scanned;

    long scanned() {
        return scanned;
    }

    /** What a scan helper returns when the line is not one the scan takes (or needs more bytes, {@link #short_}). */
    private static final long NO = Long.MIN_VALUE;
    /** The scan's cursor in {@code lines.buf}. */
    private int at;
    /** Whether the scan stopped at the end of the bytes read so far, inside the line: more may make it a line it takes. */
    private boolean short_;

    /**
     * The next line, read by the scan when it is one of the shapes it takes ({@link #scanOnce});
     * null when it is not (the parser then reads it), at the end of the trace, and when the line is
     * longer than {@link Lines#MAX_SCANNED}.
     */
    private Event scanLine() throws IOException, TraceFormatException {
        while (true) {
            short_ = false;
            Action a = scanOnce();
            if (a != null) {
                scanned++;
                eventLine = lines.line;
                lastLine = lines.line;
                lines.line++;
                lines.pos = at + 1;
                checkTime();
                return build(a, a.specName(), null);
            }
            if (!short_ || !lines.more()) {
                return null;
            }
        }
    }

    /** The line at {@code lines.pos} read into the event's fields when the scan takes it: its action; else null. */
    private Action scanOnce() {
        byte[] b = lines.buf;
        int lim = lines.lim;
        at = lines.pos;
        present = 0;
        eventTime = Double.NaN;
        citedLoads = null;
        citedReserved = null;
        pages = null;
        Action action = null;
        if (!expect(b, lim, '{')) {
            return null;
        }
        // the name the kit's writer puts next is tried first, in place; any other by its bytes
        int predicted = X_TYPE;
        // after the type: the time if the line has one, else the type's first field
        int alt = -1;
        while (true) {
            int n = named(b, lim, predicted) ? predicted : alt >= 0 && named(b, lim, alt) ? alt : name(b, lim);
            alt = -1;
            if (n < 0 || (SCANNED & 1L << n) == 0 || has(n)) {
                return null;
            }
            predicted = NEXT[action == null ? 0 : action.ordinal() + 1][n];
            present |= 1L << n;
            if (n < A_REF) {
                long x;
                if ((n == F_HOLDER || n == F_BACKUP) && at < lim && b[at] == 'n') {
                    x = literalNull(b, lim) ? -1 : NO;
                } else {
                    x = integer(b, lim, false);
                }
                if (x == NO) {
                    return null;
                }
                ints[n] = (int) x;
            } else if (n < X_TYPE) {
                int[] arr = intArray(b, lim, ARRAY_MIN[n - A_REF] < 0);
                if (arr == null) {
                    return null;
                }
                arrays[n - A_REF] = arr;
            } else if (n == X_TYPE) {
                action = action(b, lim);
                if (action == null) {
                    return null;
                }
                predicted = X_T;
                alt = FIELD_ORDER[action.ordinal()][0];
            } else if (n == X_T) {
                if (!time(b, lim)) {
                    return null;
                }
            } else {
                pages = pageList(b, lim);
                if (pages == null) {
                    return null;
                }
            }
            int next = afterItem(b, lim, '}');
            if (next == END) {
                break;
            }
            if (next != MORE_ITEMS) {
                return null;
            }
        }
        if (at >= lim) {
            short_ = true;
            return null;
        }
        // the object ends its line (a line break, not CR LF: that line goes to the parser, which knows both)
        return b[at] == '\n' ? action : null;
    }

    /** Whether the next byte is c (consumed); false, with {@link #short_} at the end of the bytes. */
    private boolean expect(byte[] b, int lim, char c) {
        if (at >= lim) {
            short_ = true;
            return false;
        }
        return b[at++] == c;
    }

    /** Whether field f's quoted name and a colon are next (then consumed); else nothing is consumed. */
    private boolean named(byte[] b, int lim, int f) {
        byte[] want = FIELD_BYTES[f];
        int end = at + want.length + 3;
        if (end > lim || b[at] != '"' || b[end - 2] != '"' || b[end - 1] != ':') {
            return false;
        }
        for (int i = 0; i < want.length; i++) {
            if (b[at + 1 + i] != want[i]) {
                return false;
            }
        }
        at = end;
        return true;
    }

    /** A quoted field name and its colon: the field's number, or -1 for a name the scan does not know. */
    private int name(byte[] b, int lim) {
        int from = at + 1;
        int len = quotedWord(b, lim);
        if (len < 0 || !expect(b, lim, ':')) {
            return -1;
        }
        for (int f = 0; f <= X_ACCEPTED; f++) {
            if (same(FIELD_BYTES[f], b, from, len)) {
                return f;
            }
        }
        return -1;
    }

    /**
     * A quoted word of letters (every field and action name is one): its length, the cursor past
     * its closing quote; -1 for anything else (escapes among it: those go to the parser).
     */
    private int quotedWord(byte[] b, int lim) {
        if (!expect(b, lim, '"')) {
            return -1;
        }
        int from = at;
        while (true) {
            if (at >= lim) {
                short_ = true;
                return -1;
            }
            byte c = b[at];
            if (c == '"') {
                break;
            }
            if ((c | 0x20) < 'a' || (c | 0x20) > 'z') {
                return -1;
            }
            at++;
        }
        at++;
        return at - 1 - from;
    }

    private static boolean same(byte[] want, byte[] b, int from, int len) {
        if (want.length != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (want[i] != b[from + i]) {
                return false;
            }
        }
        return true;
    }

    private boolean literalNull(byte[] b, int lim) {
        if (at + 4 > lim) {
            short_ = true;
            return false;
        }
        if (b[at] == 'n' && b[at + 1] == 'u' && b[at + 2] == 'l' && b[at + 3] == 'l') {
            at += 4;
            return true;
        }
        return false;
    }

    /**
     * An integer literal of at most nine digits (within every integer field's range), without a
     * leading zero, negative only when {@code negative} allows it (and never -0): its value, or
     * {@link #NO}. What follows it is the caller's to check: a fraction or an exponent is not the
     * delimiter the caller expects.
     */
    private long integer(byte[] b, int lim, boolean negative) {
        boolean neg = false;
        if (at < lim && b[at] == '-') {
            if (!negative) {
                return NO;
            }
            neg = true;
            at++;
        }
        int from = at;
        long v = 0;
        while (true) {
            if (at >= lim) {
                short_ = true;
                return NO;
            }
            int d = b[at] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            v = v * 10 + d;
            at++;
        }
        int digits = at - from;
        if (digits == 0 || digits > 9 || digits > 1 && b[from] == '0' || neg && v == 0) {
            return NO;
        }
        return neg ? -v : v;
    }

    /** An array of integer literals ({@link #integer}); null when the line is not one the scan takes. */
    private int[] intArray(byte[] b, int lim, boolean negative) {
        if (!expect(b, lim, '[')) {
            return null;
        }
        int n = 0;
        if (at < lim && b[at] == ']') {
            at++;
            return new int[0];
        }
        while (true) {
            long x = integer(b, lim, negative);
            if (x == NO) {
                return null;
            }
            if (n == buf.length) {
                buf = Arrays.copyOf(buf, n * 2);
            }
            buf[n++] = (int) x;
            int next = afterItem(b, lim, ']');
            if (next != MORE_ITEMS) {
                return next == END ? Arrays.copyOf(buf, n) : null;
            }
        }
    }

    /** What {@link #afterItem} found: the list's closing byte, a comma, or anything else. */
    private static final int END = 1;
    private static final int MORE_ITEMS = 0;

    /**
     * After an item of a list that {@code close} ends: {@link #END} at {@code close},
     * {@link #MORE_ITEMS} at a comma (both consumed), -1 otherwise (with {@link #short_} at the
     * end of the bytes).
     */
    private int afterItem(byte[] b, int lim, char close) {
        if (at >= lim) {
            short_ = true;
            return -1;
        }
        byte c = b[at++];
        return c == close ? END : c == ',' ? MORE_ITEMS : -1;
    }

    /** The event type, a quoted action name: its action, or null. */
    private Action action(byte[] b, int lim) {
        int from = at + 1;
        int len = quotedWord(b, lim);
        if (len < 0) {
            return null;
        }
        for (Action a : ACTION_LIST) {
            if (same(ACTION_BYTES[a.ordinal()], b, from, len)) {
                return a;
            }
        }
        return null;
    }

    /**
     * The time, a JSON number (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?) of at most 24
     * characters, read as the parser reads it (Double.parseDouble of its text), finite; false when
     * the line is not one the scan takes.
     */
    private boolean time(byte[] b, int lim) {
        int from = at;
        while (true) {
            if (at >= lim) {
                short_ = true;
                return false;
            }
            byte c = b[at];
            if (c == ',' || c == '}') {
                break;
            }
            if (at - from >= 24) {
                return false;
            }
            at++;
        }
        int i = from;
        int end = at;
        if (i < end && b[i] == '-') {
            i++;
        }
        int digits = i;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        if (i == digits || i - digits > 1 && b[digits] == '0') {
            return false;
        }
        boolean whole = i == end;
        if (whole && i - digits > 15) {
            return false; // an integer past a long's exact doubles: the parser converts it by its own route
        }
        if (i < end && b[i] == '.') {
            int frac = ++i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == frac) {
                return false;
            }
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int exp = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == exp) {
                return false;
            }
        }
        if (i != end) {
            return false;
        }
        double d = Double.parseDouble(new String(b, from, end - from, java.nio.charset.StandardCharsets.US_ASCII));
        if (!Double.isFinite(d) || d == 0 && b[from] == '-') {
            return false; // not finite (the parser's error), or -0, which the parser reads as the integer 0
        }
        eventTime = d;
        return true;
    }

    /**
     * {@code pages} of a version-2 trace, as {@link #pageList(JsonToken)} reads it, when every
     * entry is one that reading accepts; else null.
     */
    private lumen.core.PageDigest[] pageList(byte[] b, int lim) {
        if (version < 2 || !expect(b, lim, '[')) {
            return null;
        }
        int pt = config.pageTokens();
        int n = 0;
        if (at < lim && b[at] == ']') {
            at++;
            return new lumen.core.PageDigest[0];
        }
        while (true) {
            if (!expect(b, lim, '[')) {
                return null;
            }
            long first = integer(b, lim, false);
            if (first == NO || !expect(b, lim, ',')) {
                return null;
            }
            long count = integer(b, lim, false);
            if (count == NO || !expect(b, lim, ',') || !expect(b, lim, '"')) {
                return null;
            }
            if (at + 18 > lim) {
                short_ = true;
                return null;
            }
            long digest = 0;
            for (int i = 0; i < 16; i++) {
                int c = b[at + i];
                int d = c >= 0 && c < HEX.length ? HEX[c] : -1;
                if (d < 0) {
                    return null;
                }
                digest = digest << 4 | d;
            }
            at += 16;
            if (b[at] != '"' || b[at + 1] != ']') {
                return null;
            }
            at += 2;
            if (first < 1 || first > TraceFormat.MAX_CONTEXT || (first - 1) % pt != 0 || count < 1 || count > pt
                    || n > 0 && first <= pageBuf[n - 1].first()) {
                return null;
            }
            if (n == pageBuf.length) {
                pageBuf = Arrays.copyOf(pageBuf, n * 2);
            }
            pageBuf[n++] = new lumen.core.PageDigest((int) first, (int) count, digest);
            int next = afterItem(b, lim, ']');
            if (next != MORE_ITEMS) {
                return next == END ? Arrays.copyOf(pageBuf, n) : null;
            }
        }
    }

    @Override
    public void close() throws IOException {
        p.close();
    }
}
