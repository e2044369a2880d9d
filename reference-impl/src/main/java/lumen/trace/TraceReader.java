package lumen.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import lumen.core.Action;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.RouteMode;

/**
 * Reads a trace in Jackson's streaming mode, one event at a time, in memory bounded by the
 * longest line. Every departure from the schema (trace-v1.schema.json) is a
 * {@link TraceFormatException} with the line it is on: not JSON, two events on one line, an
 * unknown event type or field, a missing or mistyped field, a worker outside 0..workers-1.
 * Whether a request is known is the validator's business, since only it tracks arrivals.
 */
public final class TraceReader implements Closeable {
    private static final JsonFactory JSON = new JsonFactory();

    private final String source;
    private final JsonParser p;
    private final Config config;
    private int version;
    private long lastLine;
    private long eventLine;
    private double eventTime = Double.NaN;
    private double[] citedLoads;
    private long[] citedReserved;

    public TraceReader(InputStream in, String source) throws IOException, TraceFormatException {
        this.source = source;
        this.p = JSON.createParser(in);
        this.config = readHeader();
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
     * component saw them), or null when it cites none. Only Place, Route and Assist may cite loads.
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

    private TraceFormatException error(long line, String msg) {
        return new TraceFormatException(source, line, msg);
    }

    private JsonToken token() throws TraceFormatException, IOException {
        try {
            return p.nextToken();
        } catch (JsonParseException ex) {
            long line = ex.getLocation() == null ? lastLine : ex.getLocation().getLineNr();
            String msg = ex.getOriginalMessage();
            int cut = msg.indexOf('\n');
            throw error(line, "not valid JSON: " + (cut > 0 ? msg.substring(0, cut) : msg));
        }
    }

    private long tokenLine() {
        return p.currentTokenLocation().getLineNr();
    }

    /** Starts the next line's object, or returns false at the end. */
    private boolean startObject() throws IOException, TraceFormatException {
        JsonToken t = token();
        if (t == null) {
            return false;
        }
        long line = tokenLine();
        if (t != JsonToken.START_OBJECT) {
            throw error(line, "expected a JSON object, found " + describe(t));
        }
        if (line == lastLine) {
            throw error(line, "two JSON values on one line; a trace has one event per line");
        }
        eventLine = line;
        return true;
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

    private void endObject() {
        lastLine = p.currentLocation().getLineNr();
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
                case "version" -> version = (int) integer(f, v);
                case "config" -> cfg = readConfig(v);
                default -> throw error(tokenLine(), "header: unknown field '" + f + "'");
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
        return s == null ? "nothing" : "\"" + s + "\"";
    }

    private Config readConfig(JsonToken start) throws IOException, TraceFormatException {
        long at = tokenLine();
        if (start != JsonToken.START_OBJECT) {
            throw error(at, "header: config must be an object");
        }
        String policy = null;
        double[] num = new double[8];
        boolean[] seen = new boolean[8];
        String[] names = {"workers", "alpha", "beta", "theta", "tau", "budget", "pageTokens", "k"};
        while (token() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = token();
            if (f.equals("policy")) {
                policy = string("config.policy", v);
                continue;
            }
            int i = Arrays.asList(names).indexOf(f);
            if (i < 0) {
                throw error(tokenLine(), "header: unknown config field '" + f + "'");
            }
            boolean isInt = i == 0 || i >= 4;
            num[i] = isInt ? integer("config." + f, v) : number("config." + f, v);
            seen[i] = true;
        }
        if (policy == null) {
            throw error(at, "header: config is missing 'policy'");
        }
        for (int i = 0; i < names.length; i++) {
            if (!seen[i]) {
                throw error(at, "header: config is missing '" + names[i] + "'");
            }
        }
        try {
            return new Config(policy, (int) num[0], num[1], num[2], num[3], (int) num[4], (long) num[5], (int) num[6], (int) num[7]);
        } catch (IllegalArgumentException ex) {
            throw error(at, "header: config." + ex.getMessage());
        }
    }

    private String string(String field, JsonToken v) throws TraceFormatException {
        if (v != JsonToken.VALUE_STRING) {
            throw error(tokenLine(), "field '" + field + "' must be a string, found " + describe(v));
        }
        try {
            return p.getText();
        } catch (IOException ex) {
            throw error(tokenLine(), "field '" + field + "': " + ex.getMessage());
        }
    }

    private long integer(String field, JsonToken v) throws TraceFormatException, IOException {
        if (v != JsonToken.VALUE_NUMBER_INT) {
            throw error(tokenLine(), "field '" + field + "' must be an integer, found " + describe(v));
        }
        long x = p.getValueAsLong();
        if (x < 0 || x > Integer.MAX_VALUE && !field.equals("config.budget")) {
            throw error(tokenLine(), "field '" + field + "' must be an integer in 0.." + Integer.MAX_VALUE + ", found " + p.getText());
        }
        return x;
    }

    private double number(String field, JsonToken v) throws TraceFormatException, IOException {
        if (v != JsonToken.VALUE_NUMBER_INT && v != JsonToken.VALUE_NUMBER_FLOAT) {
            throw error(tokenLine(), "field '" + field + "' must be a number, found " + describe(v));
        }
        return p.getDoubleValue();
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
    private static final int N_INTS = 8;
    private static final String[] INT_NAMES = {"req", "worker", "holder", "promptLen", "ckpt", "freed", "resumed", "backup"};
    private static final String[] ARRAY_NAMES = {"ref", "tokens", "interrupted", "orphaned", "draft", "dropped", "promoted"};

    private final long[] ints = new long[N_INTS];
    private final boolean[] hasInt = new boolean[N_INTS];
    private final int[][] arrays = new int[ARRAY_NAMES.length][];
    private int[] buf = new int[64];
    private lumen.core.PageDigest[] pages;

    /** The next event, or null at the end of the trace. */
    public Event next() throws IOException, TraceFormatException {
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
                default -> field(f, v);
            }
        }
        endObject();
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
                    ints[i] = integer(f, v);
                }
                hasInt[i] = true;
                return;
            }
        }
        for (int i = 0; i < ARRAY_NAMES.length; i++) {
            if (ARRAY_NAMES[i].equals(f)) {
                arrays[i] = intArray(f, v);
                return;
            }
        }
        throw error(tokenLine(), "unknown field '" + f + "'");
    }

    private int[] intArray(String f, JsonToken v) throws IOException, TraceFormatException {
        if (v != JsonToken.START_ARRAY) {
            throw error(tokenLine(), "field '" + f + "' must be an array of integers, found " + describe(v));
        }
        int n = 0;
        JsonToken t;
        while ((t = token()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_NUMBER_INT) {
                throw error(tokenLine(), "field '" + f + "' must hold integers only, found " + describe(t));
            }
            if (n == buf.length) {
                buf = Arrays.copyOf(buf, n * 2);
            }
            long x = p.getValueAsLong();
            if (x < Integer.MIN_VALUE || x > Integer.MAX_VALUE) {
                throw error(tokenLine(), "field '" + f + "' holds " + p.getText() + ", outside the int range");
            }
            buf[n++] = (int) x;
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
            long first = integer("pages[].first", token());
            long count = integer("pages[].count", token());
            JsonToken d = token();
            if (d != JsonToken.VALUE_STRING) {
                throw error(tokenLine(), shape + ": the digest must be a string, found " + describe(d));
            }
            String hex = p.getText();
            if (token() != JsonToken.END_ARRAY) {
                throw error(tokenLine(), shape + ": an entry has exactly three members");
            }
            if (hex.length() != 16 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw error(tokenLine(), "field 'pages': digest \"" + cut(hex) + "\" is not 16 hexadecimal digits");
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
            out.add(new lumen.core.PageDigest((int) first, (int) count, Long.parseUnsignedLong(hex, 16)));
        }
        return out.toArray(new lumen.core.PageDigest[0]);
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
            out[n++] = integer("reserved[]", t);
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
            out[n++] = p.getDoubleValue();
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
        return (int) ints[i];
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
            throw error(eventLine, "unknown event type \"" + type + "\"; known: Arrive, Place, Prefill, Decode, StreamPage, Complete, Fail, Route, Restart, DraftReady, Assist, FullReady");
        }
        if (mode != null && a != Action.ROUTE) {
            throw error(eventLine, type + ": unexpected field 'mode'");
        }
        if (citedLoads != null && a != Action.PLACE && a != Action.ROUTE && a != Action.ASSIST) {
            throw error(eventLine, type + ": unexpected field 'loads' (only Place, Route and Assist cite loads)");
        }
        if (citedReserved != null && a != Action.PLACE) {
            throw error(eventLine, type + ": unexpected field 'reserved' (only Place cites reservations)");
        }
        if (pages != null && a != Action.PREFILL && a != Action.DECODE && a != Action.STREAM_PAGE && a != Action.ROUTE) {
            throw error(eventLine, type + ": unexpected field 'pages' (only Prefill, Decode, StreamPage and Route carry KV content)");
        }
        switch (a) {
            case ARRIVE -> {
                onlyFields(type, "req", "worker", "promptLen", "ref");
                int[] ref = needArray(type, "ref");
                int prompt = need(type, F_PROMPT);
                if (prompt < 1) {
                    throw error(eventLine, "Arrive: promptLen must be at least 1");
                }
                if (ref.length < 1) {
                    throw error(eventLine, "Arrive: ref must hold at least one token");
                }
                for (int x : ref) {
                    if (x < 0) {
                        throw error(eventLine, "Arrive: reference tokens are integers >= 0, found " + x);
                    }
                }
                return new Event.Arrive(need(type, F_REQ), workerField(type, F_WORKER), prompt, ref);
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
                    throw error(eventLine, "Route: mode must be \"RESTORE\" or \"REPREFILL\", found \"" + mode + "\"");
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
                onlyFields(type, "worker");
                return new Event.DraftReady(workerField(type, F_WORKER));
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
