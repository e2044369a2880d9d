package lumen.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
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
            // a key twice in one object is an error, not "the last one wins"
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
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
    private final JsonParser p;
    private final Config config;
    private int version;
    private long lastLine;
    private long eventLine;
    private double eventTime = Double.NaN;
    private double lastTime = Double.NEGATIVE_INFINITY;
    private long lastTimeLine;
    private double[] citedLoads;
    private long[] citedReserved;

    public TraceReader(InputStream in, String source) throws IOException, TraceFormatException {
        this.source = source;
        JsonParser parser = null;
        try {
            parser = JSON.createParser(new TraceBytes(in));
        } catch (TraceBytes.Refused ex) {
            throw error(ex.line, ex.getMessage());
        } catch (JsonProcessingException ex) {
            throw error(1, "not valid JSON: " + Echo.cut(ex.getOriginalMessage()));
        }
        this.p = parser;
        try {
            this.config = readHeader();
        } catch (JsonProcessingException | TraceBytes.Refused ex) {
            throw refused(ex);
        }
    }

    public Config config() {
        return config;
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
    private TraceFormatException refused(IOException ex) {
        if (ex instanceof TraceBytes.Refused r) {
            return error(r.line, r.getMessage());
        }
        JsonProcessingException j = (JsonProcessingException) ex;
        JsonLocation at = j.getLocation() != null ? j.getLocation() : p.currentLocation();
        long line = at == null || at.getLineNr() < 1 ? Math.max(1, lastLine) : at.getLineNr();
        String msg = j.getOriginalMessage();
        int nl = msg.indexOf('\n');
        msg = Echo.cut((nl > 0 ? msg.substring(0, nl) : msg)
                .replaceFirst(", from `StreamReadConstraints\\.[A-Za-z]+\\(\\)`", "")
                .replaceFirst("[:;,]? *enable `[A-Za-z_.]+` to allow.*$", ""));
        if (msg.startsWith("Non-standard token")) {
            msg += " (NaN, Infinity and -Infinity are not JSON numbers)";
        }
        return error(line, (j instanceof StreamConstraintsException ? "over the reader's limits: " : "not valid JSON: ") + msg);
    }

    private JsonToken token() throws IOException {
        return p.nextToken();
    }

    private long tokenLine() {
        return p.currentTokenLocation().getLineNr();
    }

    /** Starts the next line's object, or returns false at the end. */
    private boolean startObject() throws IOException, TraceFormatException {
        JsonToken t = token();
        if (t == null) {
            JsonLocation end = p.currentLocation();
            if (end.getLineNr() > lastLine + 1 || end.getLineNr() == lastLine + 1 && end.getColumnNr() > 1) {
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
        lastLine = p.currentLocation().getLineNr();
        if (lastLine != eventLine) {
            throw error(eventLine, "the JSON object on this line does not end on it (it ends on line " + lastLine + "); a trace has one object per line");
        }
    }

    /** An {@code ext} object: vendor or debug fields the kit ignores, any JSON object within the nesting limit. */
    private void skipExt(JsonToken v) throws IOException, TraceFormatException {
        if (v != JsonToken.START_OBJECT) {
            throw error(tokenLine(), "field 'ext' must be a JSON object, found " + describe(v));
        }
        p.skipChildren();
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
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
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
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
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
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
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
    private static final int N_INTS = 10;
    private static final String[] INT_NAMES = {"req", "worker", "holder", "promptLen", "ckpt", "freed", "resumed", "backup", "maxOut", "target"};
    private static final String[] ARRAY_NAMES = {"ref", "tokens", "interrupted", "orphaned", "draft", "dropped", "promoted"};
    /**
     * The least element of each array: reference tokens and request ids are 0..2^31-1; delivered
     * and draft tokens may be negative (-1 is the spec's Wrong), down to -(2^31-1), which TLC can write.
     */
    private static final int[] ARRAY_MIN = {0, -TraceFormat.MAX_INT, 0, 0, -TraceFormat.MAX_INT, 0, 0};

    private final int[] ints = new int[N_INTS];
    private final boolean[] hasInt = new boolean[N_INTS];
    private final int[][] arrays = new int[ARRAY_NAMES.length][];
    private int[] buf = new int[64];
    private lumen.core.PageDigest[] pages;

    /** The next event, or null at the end of the trace. */
    public Event next() throws IOException, TraceFormatException {
        try {
            return readEvent();
        } catch (JsonProcessingException | TraceBytes.Refused ex) {
            throw refused(ex);
        }
    }

    private Event readEvent() throws IOException, TraceFormatException {
        if (!startObject()) {
            return null;
        }
        Arrays.fill(hasInt, false);
        Arrays.fill(arrays, null);
        String type = null;
        String mode = null;
        eventTime = Double.NaN;
        citedLoads = null;
        citedReserved = null;
        pages = null;
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = token();
            switch (f) {
                case "type" -> type = string(f, v);
                case "t" -> eventTime = number(f, v);
                case "loads" -> citedLoads = loads(v);
                case "reserved" -> citedReserved = reservedList(v);
                case "mode" -> mode = string(f, v);
                case "pages" -> {
                    if (version < 2) {
                        throw error(tokenLine(), "unknown field 'pages' (KV content is trace contract v2; the header declares version " + version + ")");
                    }
                    pages = pageList(v);
                }
                case "ext" -> skipExt(v);
                default -> field(f, v);
            }
        }
        endObject();
        checkTime();
        if (type == null) {
            throw error(eventLine, "event without a 'type'");
        }
        return build(type, mode);
    }

    private void field(String f, JsonToken v) throws IOException, TraceFormatException {
        for (int i = 0; i < N_INTS; i++) {
            if (INT_NAMES[i].equals(f)) {
                if (v == JsonToken.VALUE_NULL && (i == F_HOLDER || i == F_BACKUP)) {
                    ints[i] = -1;
                } else {
                    ints[i] = integer(f, v, 0, TraceFormat.MAX_INT);
                }
                hasInt[i] = true;
                return;
            }
        }
        for (int i = 0; i < ARRAY_NAMES.length; i++) {
            if (ARRAY_NAMES[i].equals(f)) {
                arrays[i] = intArray(f, v, ARRAY_MIN[i]);
                return;
            }
        }
        throw error(tokenLine(), "unknown field '" + Echo.cut(f) + "'");
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
        java.util.List<lumen.core.PageDigest> out = new java.util.ArrayList<>();
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
            if (!out.isEmpty() && first <= out.get(out.size() - 1).first()) {
                throw error(tokenLine(), "field 'pages': entries must be in increasing order of position, one per page");
            }
            out.add(new lumen.core.PageDigest((int) first, (int) count, digest));
        }
        return out.toArray(new lumen.core.PageDigest[0]);
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
            int d = Character.digit(cs[off + i], 16);
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
        if (!hasInt[i]) {
            throw error(eventLine, type + ": missing field '" + INT_NAMES[i] + "'");
        }
        return ints[i];
    }

    private int[] needArray(String type, String name) throws TraceFormatException {
        int i = Arrays.asList(ARRAY_NAMES).indexOf(name);
        if (arrays[i] == null) {
            throw error(eventLine, type + ": missing field '" + name + "'");
        }
        return arrays[i];
    }

    private int workerField(String type, int i) throws TraceFormatException {
        int w = need(type, i);
        if (w >= config.workers() || (w < 0 && i != F_HOLDER && i != F_BACKUP)) {
            throw error(eventLine, type + ": unknown worker " + w + " in '" + INT_NAMES[i] + "' (the header declares workers 0.." + (config.workers() - 1) + ")");
        }
        return w;
    }

    private static boolean among(String name, String[] names) {
        for (String n : names) {
            if (n.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private void onlyFields(String type, String... allowed) throws TraceFormatException {
        for (int i = 0; i < N_INTS; i++) {
            if (hasInt[i] && !among(INT_NAMES[i], allowed)) {
                throw error(eventLine, type + ": unexpected field '" + INT_NAMES[i] + "'");
            }
        }
        for (int i = 0; i < ARRAY_NAMES.length; i++) {
            if (arrays[i] != null && !among(ARRAY_NAMES[i], allowed)) {
                throw error(eventLine, type + ": unexpected field '" + ARRAY_NAMES[i] + "'");
            }
        }
    }

    private Event build(String type, String mode) throws TraceFormatException {
        Action a = null;
        for (Action x : Action.values()) {
            if (x.specName().equals(type)) {
                a = x;
            }
        }
        if (a == null) {
            throw error(eventLine, "unknown event type " + quote(type) + "; known: Arrive, Place, Prefill, Decode, StreamPage, Complete, Fail, Route, Restart, DraftReady, Assist, FullReady");
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
        if (pages != null && a != Action.PREFILL && a != Action.DECODE && a != Action.STREAM_PAGE && a != Action.ROUTE) {
            throw error(eventLine, type + ": unexpected field 'pages' (only Prefill, Decode, StreamPage and Route carry KV content)");
        }
        switch (a) {
            case ARRIVE -> {
                onlyFields(type, "req", "worker", "promptLen", "ref", "maxOut");
                int[] ref = needArray(type, "ref");
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
                int maxOut = hasInt[F_MAXOUT] ? ints[F_MAXOUT] : 0;
                if (hasInt[F_MAXOUT] && maxOut < ref.length) {
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
                onlyFields(type, "req", "holder", "backup");
                int backup = hasInt[F_BACKUP] ? workerField(type, F_BACKUP) : -1;
                return new Event.Place(need(type, F_REQ), workerField(type, F_HOLDER), backup);
            }
            case PREFILL -> {
                onlyFields(type, "req", "worker", "tokens");
                return new Event.Prefill(need(type, F_REQ), workerField(type, F_WORKER), needArray(type, "tokens"), content(type));
            }
            case DECODE -> {
                onlyFields(type, "req", "worker", "tokens");
                int[] toks = needArray(type, "tokens");
                if (toks.length == 0) {
                    throw error(eventLine, "Decode: tokens must hold at least one token");
                }
                return new Event.Decode(need(type, F_REQ), workerField(type, F_WORKER), toks, content(type));
            }
            case STREAM_PAGE -> {
                onlyFields(type, "req", "holder", "ckpt");
                return new Event.StreamPage(need(type, F_REQ), workerField(type, F_HOLDER), need(type, F_CKPT), content(type));
            }
            case COMPLETE -> {
                onlyFields(type, "req", "worker", "freed");
                return new Event.Complete(need(type, F_REQ), workerField(type, F_WORKER), need(type, F_FREED));
            }
            case FAIL -> {
                onlyFields(type, "worker", "interrupted", "orphaned", "promoted");
                int[] promoted = arrays[Arrays.asList(ARRAY_NAMES).indexOf("promoted")];
                return new Event.Fail(workerField(type, F_WORKER), needArray(type, "interrupted"), needArray(type, "orphaned"),
                        promoted == null ? new int[0] : promoted);
            }
            case ROUTE -> {
                onlyFields(type, "req", "worker", "resumed", "freed");
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
                onlyFields(type, "worker");
                return new Event.Restart(workerField(type, F_WORKER));
            }
            case DRAFT_READY -> {
                onlyFields(type, "worker", "target");
                return new Event.DraftReady(workerField(type, F_WORKER), hasInt[F_TARGET] ? workerField(type, F_TARGET) : -1);
            }
            case ASSIST -> {
                onlyFields(type, "worker", "req", "draft");
                return new Event.Assist(workerField(type, F_WORKER), need(type, F_REQ), needArray(type, "draft"));
            }
            case FULL_READY -> {
                onlyFields(type, "worker", "dropped");
                return new Event.FullReady(workerField(type, F_WORKER), needArray(type, "dropped"));
            }
        }
        throw new AssertionError(a);
    }

    @Override
    public void close() throws IOException {
        p.close();
    }
}
