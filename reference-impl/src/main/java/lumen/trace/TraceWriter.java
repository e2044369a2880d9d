package lumen.trace;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import lumen.core.Config;
import lumen.core.Event;

/**
 * Writes a trace, in Jackson's streaming mode: the header, then one event per line. It writes
 * trace contract v2 (the KV content an event carries, as {@code pages}); a v1 writer, for tests
 * of the v1 reader, leaves the content out.
 */
public final class TraceWriter implements Closeable {
    private static final JsonFactory JSON = new JsonFactory();
    private final JsonGenerator gen;
    private final int version;

    public TraceWriter(OutputStream out, Config config) throws IOException {
        this(out, config, TraceFormat.VERSION);
    }

    public TraceWriter(OutputStream out, Config config, int version) throws IOException {
        if (version < TraceFormat.OLDEST || version > TraceFormat.VERSION) {
            throw new IllegalArgumentException("trace contract version " + version);
        }
        this.version = version;
        gen = JSON.createGenerator(out, JsonEncoding.UTF8);
        gen.setPrettyPrinter(new MinimalPrettyPrinter(""));
        gen.writeStartObject();
        gen.writeStringField("type", "header");
        gen.writeStringField("format", TraceFormat.FORMAT);
        gen.writeNumberField("version", version);
        gen.writeObjectFieldStart("config");
        gen.writeStringField("policy", config.policy());
        gen.writeNumberField("workers", config.workers());
        gen.writeNumberField("alpha", config.alpha());
        gen.writeNumberField("beta", config.beta());
        gen.writeNumberField("theta", config.theta());
        gen.writeNumberField("tau", config.tau());
        gen.writeNumberField("budget", config.budget());
        gen.writeNumberField("pageTokens", config.pageTokens());
        gen.writeNumberField("k", config.k());
        if (!config.readings().isDefault()) {
            // only readings other than the default are written, so default traces stay as they were
            gen.writeObjectFieldStart("readings");
            for (var e : config.readings().toMap().entrySet()) {
                if (e.getValue() instanceof Boolean b) {
                    gen.writeBooleanField(e.getKey(), b);
                } else {
                    gen.writeStringField(e.getKey(), (String) e.getValue());
                }
            }
            gen.writeEndObject();
        }
        gen.writeEndObject();
        gen.writeEndObject();
        gen.writeRaw('\n');
    }

    /** Writes one event; {@code t} is its time in ms, or NaN to leave it out. */
    public void write(Event e, double t) throws IOException {
        writeEvent(gen, e, t, version >= 2);
        gen.writeRaw('\n');
    }

    public void write(Event e) throws IOException {
        write(e, Double.NaN);
    }

    /** Event e at time t, citing the loads its decider saw ({@code loads}; null: none cited). */
    public void write(Event e, double t, double[] loads) throws IOException {
        if (loads == null) {
            write(e, t);
            return;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(b, JsonEncoding.UTF8)) {
            writeEvent(g, e, t, version >= 2);
        }
        String j = b.toString(StandardCharsets.UTF_8);
        gen.writeRaw(j.substring(0, j.length() - 1) + ",\"loads\":" + numbers(loads) + "}\n");
    }

    public void flush() throws IOException {
        gen.flush();
    }

    @Override
    public void close() throws IOException {
        gen.close();
    }

    /** One event as its JSON line, without the newline (for reports). */
    public static String toJson(Event e) {
        return toJson(e, Double.NaN);
    }

    /** One event as its JSON line with its time {@code t} in ms (NaN: none), without the newline. */
    public static String toJson(Event e, double t) {
        return toJson(e, t, true);
    }

    private static String toJson(Event e, double t, boolean content) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(b, JsonEncoding.UTF8)) {
            writeEvent(g, e, t, content);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /**
     * A Prefill or Decode as the worker that computed it logs its begin (docs/trace-format.md, Begin
     * and end): its request, its worker and the pages it wrote, without the newline.
     */
    public static String begin(Event e) {
        if (!(e instanceof Event.Prefill || e instanceof Event.Decode)) {
            throw new IllegalArgumentException("only a Prefill or a Decode begins on a worker: " + e.action().specName());
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(b, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("type", e.action().specName());
            g.writeNumberField("req", e.req());
            g.writeNumberField("worker", e.worker());
            pages(g, e instanceof Event.Prefill p ? p.pages() : ((Event.Decode) e).pages(), true);
            g.writeStringField("phase", "begin");
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** The end of a step whose begin carried its pages ({@link #begin}): every field but the pages, at time {@code t}. */
    public static String end(Event e, double t) {
        String j = toJson(e, t, false);
        return j.substring(0, j.length() - 1) + ",\"phase\":\"end\"}";
    }

    /**
     * One event as its JSON line with the loads ({@code loads}) and reservations ({@code reserved})
     * its decider cited (null: none cited), as a report shows the line the system wrote.
     */
    public static String toJson(Event e, double[] loads, long[] reserved) {
        String j = toJson(e);
        if (loads == null && reserved == null) {
            return j;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(b, JsonEncoding.UTF8)) {
            g.writeStartObject();
            if (loads != null) {
                g.writeFieldName("loads");
                g.writeArray(loads, 0, loads.length);
            }
            if (reserved != null) {
                g.writeFieldName("reserved");
                g.writeArray(reserved, 0, reserved.length);
            }
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        String extra = b.toString(StandardCharsets.UTF_8);
        return j.substring(0, j.length() - 1) + "," + extra.substring(1);
    }

    /** A JSON array of numbers, as the writer writes them ({@code [1.0,0.0]}). */
    public static String numbers(double[] xs) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(b, JsonEncoding.UTF8)) {
            g.writeArray(xs, 0, xs.length);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    private static void ints(JsonGenerator g, String name, int[] xs) throws IOException {
        g.writeFieldName(name);
        g.writeArray(xs, 0, xs.length);
    }

    private static void worker(JsonGenerator g, String name, int w) throws IOException {
        if (w < 0) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, w);
        }
    }

    private static void pages(JsonGenerator g, lumen.core.PageDigest[] pages, boolean content) throws IOException {
        if (!content || pages == null) {
            return;
        }
        g.writeArrayFieldStart("pages");
        for (lumen.core.PageDigest p : pages) {
            g.writeStartArray();
            g.writeNumber(p.first());
            g.writeNumber(p.count());
            g.writeString(p.hex());
            g.writeEndArray();
        }
        g.writeEndArray();
    }

    /** A zombie write's epoch, when the system showed one (-1: not shown). */
    private static void epoch(JsonGenerator g, int epoch) throws IOException {
        if (epoch >= 0) {
            g.writeNumberField("epoch", epoch);
        }
    }

    static void writeEvent(JsonGenerator g, Event e, double t, boolean content) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", e.action().specName());
        if (!Double.isNaN(t)) {
            g.writeNumberField("t", t);
        }
        switch (e.action()) {
            case ARRIVE -> {
                Event.Arrive a = (Event.Arrive) e;
                g.writeNumberField("req", a.req());
                g.writeNumberField("worker", a.worker());
                g.writeNumberField("promptLen", a.promptLen());
                ints(g, "ref", a.ref());
                if (a.maxOut() > 0) {
                    g.writeNumberField("maxOut", a.maxOut());
                }
            }
            case PLACE -> {
                Event.Place p = (Event.Place) e;
                g.writeNumberField("req", p.req());
                worker(g, "holder", p.holder());
                if (p.backup() >= 0) {
                    g.writeNumberField("backup", p.backup());
                }
            }
            case PREFILL -> {
                Event.Prefill p = (Event.Prefill) e;
                g.writeNumberField("req", p.req());
                g.writeNumberField("worker", p.worker());
                ints(g, "tokens", p.tokens());
                pages(g, p.pages(), content);
            }
            case DECODE -> {
                Event.Decode d = (Event.Decode) e;
                g.writeNumberField("req", d.req());
                g.writeNumberField("worker", d.worker());
                ints(g, "tokens", d.tokens());
                pages(g, d.pages(), content);
            }
            case STREAM_PAGE -> {
                Event.StreamPage s = (Event.StreamPage) e;
                g.writeNumberField("req", s.req());
                worker(g, "holder", s.holder());
                g.writeNumberField("ckpt", s.ckpt());
                pages(g, s.pages(), content);
            }
            case COMPLETE -> {
                Event.Complete c = (Event.Complete) e;
                g.writeNumberField("req", c.req());
                g.writeNumberField("worker", c.worker());
                g.writeNumberField("freed", c.freed());
            }
            case FAIL -> {
                Event.Fail f = (Event.Fail) e;
                g.writeNumberField("worker", f.worker());
                ints(g, "interrupted", f.interrupted());
                ints(g, "orphaned", f.orphaned());
                if (f.promoted().length > 0) {
                    ints(g, "promoted", f.promoted());
                }
            }
            case ROUTE -> {
                Event.Route r = (Event.Route) e;
                g.writeNumberField("req", r.req());
                g.writeStringField("mode", r.mode().name());
                g.writeNumberField("worker", r.worker());
                g.writeNumberField("resumed", r.resumed());
                g.writeNumberField("freed", r.freed());
                if (r.mode() == lumen.core.RouteMode.RESTORE) {
                    pages(g, r.pages(), content);
                }
            }
            case RESTART -> g.writeNumberField("worker", e.worker());
            case DRAFT_READY -> {
                g.writeNumberField("worker", e.worker());
                if (((Event.DraftReady) e).target() >= 0) {
                    g.writeNumberField("target", ((Event.DraftReady) e).target());
                }
            }
            case ASSIST -> {
                Event.Assist a = (Event.Assist) e;
                g.writeNumberField("worker", a.worker());
                g.writeNumberField("req", a.req());
                ints(g, "draft", a.draft());
            }
            case FULL_READY -> {
                Event.FullReady f = (Event.FullReady) e;
                g.writeNumberField("worker", f.worker());
                ints(g, "dropped", f.dropped());
            }
            case ZOMBIE_TOKEN -> {
                Event.ZombieToken z = (Event.ZombieToken) e;
                g.writeNumberField("worker", z.worker());
                g.writeNumberField("req", z.req());
                g.writeNumberField("token", z.token());
                epoch(g, z.epoch());
                g.writeBooleanField("accepted", z.accepted());
            }
            case ZOMBIE_PAGE -> {
                Event.ZombiePage z = (Event.ZombiePage) e;
                g.writeNumberField("worker", z.worker());
                g.writeNumberField("req", z.req());
                g.writeNumberField("holder", z.holder());
                epoch(g, z.epoch());
                pages(g, z.pages(), content);
                g.writeBooleanField("accepted", z.accepted());
            }
            case ZOMBIE_STOPS -> g.writeNumberField("worker", e.worker());
            case ZOMBIE_ACK -> {
                Event.ZombieAck z = (Event.ZombieAck) e;
                g.writeNumberField("worker", z.worker());
                g.writeNumberField("req", z.req());
                epoch(g, z.epoch());
                g.writeBooleanField("accepted", z.accepted());
            }
        }
        g.writeEndObject();
    }
}
