package lumen.history;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import lumen.core.Event;
import lumen.runtime.Arrival;

/**
 * What the clients of the reference runtime see, written as a client history
 * (docs/history-format.md): a {@code request} record when a request arrives, one
 * {@code text_completion} chunk per Prefill or Decode that delivers tokens (the last one with
 * {@code finish_reason: "length"}), and a {@code fault} record at each failure, as a fault
 * injector would log it. Nothing else of the system shows: interruptions, restores and drafts
 * are invisible to a client. Feed it the runtime's events ({@link #accept}).
 */
public final class HistoryRecorder {
    private final OutputStream out;
    private final Map<Integer, Arrival> arrivals = new HashMap<>();
    private final Map<Integer, Integer> delivered = new HashMap<>();

    public HistoryRecorder(OutputStream out, List<Arrival> workload) {
        this.out = out;
        for (Arrival a : workload) {
            arrivals.put(a.id(), a);
        }
    }

    /** One runtime event at time t (ms). */
    public void accept(Event e, double t) {
        String time = num(Math.round(t * 1000) / 1000.0);
        if (e instanceof Event.Arrive a) {
            Arrival w = arrivals.get(a.req());
            long seed = w == null ? -1 : w.seed();
            write("{\"object\":\"request\",\"request\":\"" + a.req() + "\",\"t\":" + time + ",\"prompt_tokens\":" + a.promptLen()
                    + ",\"max_tokens\":" + a.ref().length + (seed < 0 ? "" : ",\"seed\":" + seed) + "}");
        } else if (e instanceof Event.Prefill p) {
            chunk(p.req(), p.tokens(), time);
        } else if (e instanceof Event.Decode d) {
            chunk(d.req(), d.tokens(), time);
        } else if (e instanceof Event.Fail f) {
            write("{\"object\":\"fault\",\"t\":" + time + ",\"worker\":\"" + f.worker() + "\"}");
        }
    }

    private void chunk(int req, int[] tokens, String time) {
        if (tokens.length == 0) {
            return;
        }
        Arrival a = arrivals.get(req);
        int n = delivered.merge(req, tokens.length, Integer::sum);
        boolean last = a != null && n >= a.outLen();
        StringBuilder b = new StringBuilder("{\"object\":\"text_completion\",\"request\":\"").append(req).append("\",\"t\":").append(time)
                .append(",\"id\":\"cmpl-").append(req).append("\",\"choices\":[{\"index\":0,\"token_ids\":[");
        for (int i = 0; i < tokens.length; i++) {
            b.append(i == 0 ? "" : ",").append(tokens[i]);
        }
        b.append("],\"finish_reason\":").append(last ? "\"length\"" : "null").append("}]}");
        write(b.toString());
    }

    private void write(String line) {
        try {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static String num(double x) {
        return x == Math.rint(x) ? String.format(Locale.ROOT, "%.1f", x) : Double.toString(x);
    }
}
