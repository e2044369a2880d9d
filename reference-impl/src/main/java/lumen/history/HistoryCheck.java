package lumen.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import lumen.core.Finding;
import lumen.core.KitTokens;
import lumen.core.PropertyId;
import lumen.sim.SimMetrics;
import lumen.sim.SimResult;
import lumen.validate.Verdict;

/**
 * Checks a client history (docs/history-format.md) with no view of the system's insides, in the
 * spec's vocabulary:
 * <ul>
 *   <li>S7 OutputIsReferencePrefix: every request's tokens, in the order they streamed, are a
 *       prefix of its reference output, so no token is lost, reordered or altered across a
 *       failure;</li>
 *   <li>S16 DeliveredOnce: no token the client already has is streamed to it again (a resume one
 *       position too early, a re-prefill that restarts the stream);</li>
 *   <li>S2 NoDuplicateServing: nothing streams for a request after it finished, and it finishes
 *       once (a request answered twice);</li>
 *   <li>S1 NoLostRequest: a finish is explained: {@code length} (or {@code stop}) with the whole
 *       reference output, never an error or a short output;</li>
 *   <li>L1 EveryRequestCompletes: every request sent finishes (a history that ends with a request
 *       open is INCOMPLETE, or with {@code complete} REJECTED).</li>
 * </ul>
 * The reference is the kit's token model (from each request's {@code seed} and
 * {@code max_tokens}), or a reference history: the same workload's failure-free run. The metrics
 * are the simulator's ({@link SimMetrics}): TTFT, TPOT, the requests in flight at a fault and the
 * time to their next token (the paper's replay TTFT), and with a failure-free baseline history the
 * recovery time.
 */
public final class HistoryCheck {
    private HistoryCheck() {}

    /** How a text-only reference history judges, in its label. */
    public static final String BY_TEXT = "text only: judged character by character";

    /** What judges the outputs: the kit's token model over a vocabulary, or a reference history. */
    public record Reference(int vocab, History history, String label) {
        public static Reference kit(int vocab) {
            return new Reference(vocab, null, "the kit's token model (" + KitTokens.NAME + ", vocabulary " + vocab + ")");
        }

        public static Reference of(History h) {
            return new Reference(0, h, "the reference history " + h.source + (h.textOnly ? " (" + BY_TEXT + ")" : ""));
        }
    }

    /**
     * The outcome.
     *
     * @param finding   the first thing wrong (null when none), with {@code line} and {@code request}
     * @param open      the requests that never finished (INCOMPLETE, or L1 with {@code complete})
     * @param summary   the simulator's metrics of this history (recovery only with a baseline; its
     *                  TTFT and TPOT cover the failure-impact window, as the simulator's do)
     * @param ttft      TTFT over every request of the history (ms)
     * @param tpot      TPOT over every request of the history (ms)
     */
    public record Result(String source, Verdict verdict, Finding finding, long line, String request, int requests, long tokens,
                         int faults, List<String> open, String reference, SimMetrics.Summary summary, String baseline,
                         SimMetrics.Stats ttft, SimMetrics.Stats tpot) {}

    /**
     * A request's reference output: its length and its tokens. The kit's token model gives token n
     * of a request from its seed alone, so its output is never held whole: a request may ask for
     * 2147483647 tokens. A reference history's outputs are the tokens it holds.
     */
    interface Output {
        int length();

        /** Token {@code i + 1}. */
        int at(int i);

        static Output kit(long seed, int length, int vocab) {
            return new Output() {
                @Override
                public int length() {
                    return length;
                }

                @Override
                public int at(int i) {
                    return KitTokens.token(seed, i + 1, vocab);
                }
            };
        }

        static Output of(int[] tokens) {
            return new Output() {
                @Override
                public int length() {
                    return tokens.length;
                }

                @Override
                public int at(int i) {
                    return tokens[i];
                }
            };
        }
    }

    /** How far past a token a later one is looked for, to name a reordering: past this, a token that differs is called altered. */
    static final int LOOK_AHEAD = 1 << 16;

    private static final class Seen {
        final History.Request req;
        final Output ref;
        final String refFinish;
        /** Judged by text: the tokens are characters. */
        boolean text;
        int n;
        long finishLine = -1;
        double first = Double.NaN;
        double done = Double.NaN;
        double afterFault = Double.NaN;
        double faultAt = Double.NaN;
        /** The last chunk with tokens (ms), and each later one as {time, ms per token, tokens}: the client's decode steps. */
        double last = Double.NaN;
        final List<double[]> steps = new ArrayList<>();

        Seen(History.Request req, Output ref, String refFinish) {
            this.req = req;
            this.ref = ref;
            this.refFinish = refFinish;
        }

        /** The times chunk c gives: the first token, the first token after a fault, the finish. */
        void timed(History.Chunk c) {
            if (c.tokens().length > 0) {
                if (Double.isNaN(first)) {
                    first = c.t();
                }
                if (!Double.isNaN(faultAt) && Double.isNaN(afterFault)) {
                    afterFault = c.t();
                }
                if (!Double.isNaN(last)) {
                    steps.add(new double[] {c.t(), (c.t() - last) / c.tokens().length, c.tokens().length});
                }
                last = c.t();
            }
            if (c.finishes() && Double.isNaN(done)) {
                done = c.t();
            }
        }
    }

    public static Result check(History h, Reference ref, History baseline, boolean complete) {
        Result r = judge(h, ref, baseline, complete);
        if (!h.textOnly || r.finding() == null || r.verdict() != Verdict.REJECTED) {
            return r;
        }
        // a text-only history is judged character by character: its findings say so
        Finding f = r.finding();
        Finding t = new Finding(f.property(), characters(f.message()) + " (judged by text: the history carries no token ids)",
                characters(f.expected()), characters(f.actual()));
        return new Result(r.source(), r.verdict(), t, r.line(), r.request(), r.requests(), r.tokens(), r.faults(), r.open(), r.reference(),
                r.summary(), r.baseline(), r.ttft(), r.tpot());
    }

    /**
     * A finding's words as a text-only judgement says them: "token" becomes "character", in the
     * report's own words only, never inside a value quoted from the history (a request id, an
     * error text, a character shown), which {@link History#quote} sets apart.
     */
    static String characters(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder out = new StringBuilder(s.length() + 16);
        StringBuilder words = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quoted) {
                out.append(c);
                if (c == '\\' && i + 1 < s.length()) {
                    out.append(s.charAt(++i));
                } else if (c == '\'') {
                    quoted = false;
                }
            } else if (c == '\'' && (i == 0 || " ([,:=".indexOf(s.charAt(i - 1)) >= 0)) {
                // a quote that opens a value (not the apostrophe of "request '5''s")
                out.append(reworded(words));
                words.setLength(0);
                out.append(c);
                quoted = true;
            } else {
                words.append(c);
            }
        }
        return out.append(reworded(words)).toString();
    }

    private static String reworded(CharSequence words) {
        return words.toString().replace("token ids", "code points").replace("tokens", "characters").replace("token", "character");
    }

    private static Result judge(History h, Reference ref, History baseline, boolean complete) {
        if (h.textOnly && ref.history() == null) {
            return bad(h, ref, h.kindLine(), null, Verdict.MALFORMED, Finding.of(null, "the history carries text without token ids (no"
                    + " choices[0].token_ids, from its first chunk on), which the kit's token model cannot judge; only a reference"
                    + " history of the same workload can: its text under failures must equal the failure-free"
                    + " run's (lumen history check --reference FILE; lumen conform --live URL --reference equivalence)"), 0);
        }
        if (ref.history() != null && ref.history().textOnly != h.textOnly) {
            return bad(h, ref, 0, null, Verdict.MALFORMED, Finding.of(null, (h.textOnly ? "the history carries text only and the"
                    + " reference history " + ref.history().source + " token ids" : "the history carries token ids and the reference history "
                    + ref.history().source + " text only") + ": record both the same way"), 0);
        }
        Map<String, Seen> seen = new HashMap<>();
        Map<String, List<History.Chunk>> refChunks = ref.history() == null ? Map.of() : byRequest(ref.history());
        for (History.Request r : h.requests.values()) {
            Output tokens;
            String finish = null;
            if (ref.history() == null) {
                if (r.seed() < 0) {
                    return bad(h, ref, r.line(), r.id(), Verdict.MALFORMED, Finding.of(null, "request " + History.quote(r.id())
                            + " has no 'seed': the kit's token model derives its reference output from it (or judge against a"
                            + " reference history, --reference FILE)"), 0);
                }
                tokens = Output.kit(r.seed(), r.maxTokens(), ref.vocab());
            } else {
                if (!ref.history().requests.containsKey(r.id())) {
                    return bad(h, ref, r.line(), r.id(), Verdict.MALFORMED, Finding.of(null, "request " + History.quote(r.id())
                            + " is not in the reference history " + ref.history().source), 0);
                }
                List<History.Chunk> cs = refChunks.getOrDefault(r.id(), List.of());
                tokens = Output.of(cs.stream().flatMapToInt(c -> java.util.Arrays.stream(c.tokens())).toArray());
                finish = cs.isEmpty() ? null : cs.get(cs.size() - 1).finishReason();
            }
            Seen sn = new Seen(r, tokens, finish);
            sn.text = h.textOnly;
            seen.put(r.id(), sn);
        }
        long tokens = 0;
        // the requests a later one retries: an error that ends such a request is the client's retry's to answer
        java.util.Set<String> retried = new java.util.HashSet<>();
        for (History.Request r : h.requests.values()) {
            if (r.retries() != null) {
                retried.add(r.retries());
            }
        }
        List<History.Fault> faults = byTime(h);
        int[] next = {0};
        // what each request's client received, in order, and what came after each chunk: a wrong
        // token is named by what follows it (a swap, a second answer interleaved with the first)
        Map<String, com.carrotsearch.hppc.IntArrayList> delivered = new HashMap<>();
        Map<String, Integer> lastChunk = new HashMap<>();
        for (int i = 0; i < h.chunks.size(); i++) {
            History.Chunk c = h.chunks.get(i);
            delivered.computeIfAbsent(c.request(), k -> new com.carrotsearch.hppc.IntArrayList()).add(c.tokens());
            lastChunk.put(c.request(), i);
        }
        for (int ci = 0; ci < h.chunks.size(); ci++) {
            History.Chunk c = h.chunks.get(ci);
            markFaults(faults, next, seen, c.t());
            Seen s = seen.get(c.request());
            if (s.finishLine >= 0 && c.error() != null) {
                return bad(h, ref, c.line(), c.request(), Verdict.REJECTED, new Finding(PropertyId.S2, "request " + History.quote(c.request())
                        + " reports an error (" + History.quote(c.error()) + ") after it finished at line " + s.finishLine
                        + ": nothing may follow a request's finish", "nothing after the finish", "an error"), tokens);
            }
            if (s.finishLine >= 0) {
                return bad(h, ref, c.line(), c.request(), Verdict.REJECTED, new Finding(PropertyId.S2, "request " + History.quote(c.request())
                        + " is answered again after it finished at line " + s.finishLine + " (a request served twice, as when an"
                        + " interrupted request is re-issued and also resumed)", "nothing after the finish",
                        c.error() != null ? "an error" : c.tokens().length + " more token(s)"
                                + (c.finishReason() != null ? " and a second finish" : "")), tokens);
            }
            for (int tok : c.tokens()) {
                Finding f = token(s, tok, delivered.get(c.request()));
                if (f != null) {
                    return bad(h, ref, c.line(), c.request(), Verdict.REJECTED, f, tokens);
                }
                s.n++;
                tokens++;
            }
            s.timed(c);
            if (c.finishes()) {
                s.finishLine = c.line();
                if (c.error() != null && lastChunk.get(c.request()) > ci) {
                    // the error did not end the stream: name what followed, not a lost request
                    int more = delivered.get(c.request()).size() - s.n;
                    return bad(h, ref, c.line(), c.request(), Verdict.REJECTED, new Finding(PropertyId.S2, "request "
                            + History.quote(c.request()) + " reports an error (" + History.quote(c.error()) + ") after " + s.n
                            + " tokens and then streams " + more + " more token(s): tokens after an error, an answer that goes on"
                            + " after its finish", "nothing after the error", more + " more token(s)"), tokens);
                }
                Finding f = finish(s, c, ref.history() != null, retried.contains(c.request()));
                if (f != null) {
                    return bad(h, ref, c.line(), c.request(), Verdict.REJECTED, f, tokens);
                }
            }
        }
        List<String> open = new ArrayList<>();
        for (Seen s : seen.values()) {
            if (s.finishLine < 0) {
                open.add(s.req.id());
            }
        }
        open.sort(null);
        // the metrics, by times from the history's first record (a client's clock may read epoch milliseconds), when its times
        // span no more than MAX_METRICS_SPAN_MS: they are filed by the second
        double t0 = start(h);
        double b0 = baseline == null ? 0 : start(baseline);
        SimMetrics.Summary summary = null;
        SimMetrics.Stats ttft = null;
        SimMetrics.Stats tpot = null;
        if (!Double.isNaN(t0) && !Double.isNaN(b0)) {
            SimResult run = run(h, seen, t0);
            summary = summary(run, t0, baseline, b0);
            ttft = SimMetrics.stats(run.requests, SimResult.Req::ttftMs);
            tpot = SimMetrics.stats(run.requests, SimResult.Req::tpotMs);
        }
        if (!open.isEmpty()) {
            Finding f = new Finding(PropertyId.L1, open.size() + " request(s) never finished: " + String.join(", ", open.subList(0, Math.min(8, open.size())))
                    + (open.size() > 8 ? ", ..." : ""), "a finish for every request", "none for " + open.size());
            return new Result(h.source, complete ? Verdict.REJECTED : Verdict.INCOMPLETE, complete ? f : null, 0,
                    complete ? open.get(0) : null, h.requests.size(), tokens, h.faults.size(), open, ref.label(), summary,
                    baseline == null ? null : baseline.source, ttft, tpot);
        }
        return new Result(h.source, Verdict.ACCEPTED, null, 0, null, h.requests.size(), tokens, h.faults.size(), open, ref.label(), summary,
                baseline == null ? null : baseline.source, ttft, tpot);
    }

    /**
     * Marks the requests in flight at each fault up to time t (sent by then, not finished by then)
     * with that fault, once; {@code next[0]} is the first fault not yet applied. Faults are taken in
     * time order and records in file order, so each fault costs one pass over the requests.
     */
    private static void markFaults(List<History.Fault> faults, int[] next, Map<String, Seen> seen, double t) {
        while (next[0] < faults.size() && faults.get(next[0]).t() <= t) {
            double at = faults.get(next[0]++).t();
            for (Seen s : seen.values()) {
                if (Double.isNaN(s.faultAt) && s.req.t() <= at && (Double.isNaN(s.done) || s.done > at)) {
                    s.faultAt = at;
                }
            }
        }
    }

    private static List<History.Fault> byTime(History h) {
        List<History.Fault> f = new ArrayList<>(h.faults);
        f.sort(java.util.Comparator.comparingDouble(History.Fault::t));
        return f;
    }

    /**
     * S7 for one streamed token at position s.n + 1, with what it looks like; S16 when it is a token
     * the client already has, delivered again (a resume one position too early, a re-prefill that
     * restarts the stream).
     */
    private static Finding token(Seen s, int tok, com.carrotsearch.hppc.IntArrayList got) {
        int i = s.n;
        String id = History.quote(s.req.id());
        Output ref = s.ref;
        int len = ref.length();
        if (i < len && tok == ref.at(i)) {
            return null;
        }
        int after = i + 1 < got.size() ? got.get(i + 1) : -1;
        // by text, a character the client already has proves nothing (characters recur): a span of the
        // rest of the stream, up to 8 characters, that the reference holds earlier does
        int again = s.text ? repeatedSpan(ref, got, i) : lastIndexOf(ref, tok, Math.min(i, len) - 1);
        if (again == 0 && i >= 1 && i < len && interleaved(ref, got, i)) {
            // token 1 again, and then the first answer goes on where it was: a second answer interleaved with it
            return new Finding(PropertyId.S2, "request " + id + " gets a second answer interleaved with the first: its token 1 arrives"
                    + " again after token " + i + ", and then token " + (i + 1) + " of the first answer (a request served twice)",
                    "token " + (i + 1) + " = " + shown(s, ref.at(i)), shown(s, tok));
        }
        if (again >= 0) {
            return new Finding(PropertyId.S16, "request " + id + " is sent token " + (again + 1) + " again, as its token " + (i + 1)
                    + ": what a client has received only grows, and a token is delivered once"
                    + (again == 0 && i > 1 ? " (a re-prefill that restarts the stream)" : again == i - 1 ? " (a resume one position too early)" : ""),
                    i < len ? "token " + (i + 1) + " = " + shown(s, ref.at(i)) : len + " tokens", shown(s, tok));
        }
        if (i >= len) {
            return new Finding(PropertyId.S7, "request " + id + " streams token " + (i + 1) + " (" + tok + ") past the end of its reference"
                    + " output of " + len + " tokens (an output that runs on)",
                    len + " tokens", (i + 1) + " or more");
        }
        String what;
        int reach = (int) Math.min(len, (long) i + 2 + Math.max(got.size(), LOOK_AHEAD));
        if (!s.text && i + 1 < len && tok == ref.at(i + 1) && after == ref.at(i)) {
            what = "tokens " + (i + 1) + " and " + (i + 2) + " arrive swapped (tokens reordered)";
        } else if (i + 1 < len && (s.text ? spanAt(ref, got, i, i + 1) : tok == ref.at(i + 1))) {
            what = "token " + (i + 2) + " arrives as token " + (i + 1) + ": token " + (i + 1) + " was lost (as after a resume one position too late)";
        } else if (s.text ? laterSpan(ref, got, i, reach) : indexOf(ref, tok, i + 2, reach) >= 0) {
            what = "a later token arrives as token " + (i + 1) + " (tokens reordered or skipped)";
        } else {
            what = "token " + (i + 1) + " differs from the reference (an altered token)";
        }
        return new Finding(PropertyId.S7, "request " + id + "'s output is not a prefix of its reference output: " + what,
                "token " + (i + 1) + " = " + shown(s, ref.at(i)), shown(s, tok));
    }

    /** A token as a report shows it: its id, or, judged by text, the character quoted. */
    private static String shown(Seen s, int tok) {
        return s.text ? History.quote(new String(Character.toChars(tok))) : Integer.toString(tok);
    }

    /** Judged by text: whether what the client got from position i on, up to 8 characters, is the reference's from j on. */
    static boolean spanAt(Output ref, com.carrotsearch.hppc.IntArrayList got, int i, int j) {
        int len = Math.min(8, got.size() - i);
        if (j + len > ref.length()) {
            return false;
        }
        for (int k = 0; k < len; k++) {
            if (got.get(i + k) != ref.at(j + k)) {
                return false;
            }
        }
        return true;
    }

    /** Judged by text: whether what the client got from position i on is the reference's from a later position, before {@code reach}. */
    private static boolean laterSpan(Output ref, com.carrotsearch.hppc.IntArrayList got, int i, int reach) {
        for (int j = i + 2; j < reach; j++) {
            if (spanAt(ref, got, i, j)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether what the client got from position i on is two answers interleaved: the first going on
     * from ref[i], a second starting again from ref[0], each in order (greedily, the first answer
     * preferred), with at least one more token of the first and two of the second.
     */
    static boolean interleaved(Output ref, com.carrotsearch.hppc.IntArrayList got, int i) {
        // one answer explains it when the rest is the reference from its start: a restart (S16), not two answers
        boolean restart = true;
        for (int k = i; restart && k < got.size(); k++) {
            restart = k - i < ref.length() && got.get(k) == ref.at(k - i);
        }
        if (restart) {
            return false;
        }
        int p = i;
        int q = 0;
        for (int k = i; k < got.size(); k++) {
            int x = got.get(k);
            if (p < ref.length() && x == ref.at(p)) {
                p++;
            } else if (q < ref.length() && x == ref.at(q)) {
                q++;
            } else {
                return false;
            }
        }
        return p > i && q >= 2;
    }

    /**
     * The last position j before i (and before the reference's end) where the reference holds what
     * the client got from position i on, for up to 8 characters, or -1.
     */
    static int repeatedSpan(Output ref, com.carrotsearch.hppc.IntArrayList got, int i) {
        int len = Math.min(8, got.size() - i);
        for (int j = Math.min(i, ref.length()) - 1; j >= 0; j--) {
            boolean same = j + len <= ref.length();
            for (int k = 0; same && k < len; k++) {
                same = got.get(i + k) == ref.at(j + k);
            }
            if (same) {
                return j;
            }
        }
        return -1;
    }

    /** The last index at most {@code from} where {@code a} holds {@code x}, or -1. */
    private static int lastIndexOf(Output a, int x, int from) {
        for (int i = from; i >= 0; i--) {
            if (a.at(i) == x) {
                return i;
            }
        }
        return -1;
    }

    /** The first index from {@code from} to before {@code to} where {@code a} holds {@code x}, or -1. */
    private static int indexOf(Output a, int x, int from, int to) {
        for (int i = from; i < to; i++) {
            if (a.at(i) == x) {
                return i;
            }
        }
        return -1;
    }

    /** S1: the finish is explained by the reference. */
    private static Finding finish(Seen s, History.Chunk c, boolean refHistory, boolean retried) {
        String id = History.quote(s.req.id());
        if (c.error() != null && retried) {
            // the client retried it: the retry answers for the pair (S1 and L1 judge the last attempt)
            return null;
        }
        if (c.error() != null) {
            return new Finding(PropertyId.S1, "request " + id + " failed after " + s.n + " of " + s.ref.length() + " tokens: " + History.quote(c.error())
                    + " (the system lost a request it had accepted)", "the whole output, finished", "an error");
        }
        String r = c.finishReason();
        boolean whole = s.n == s.ref.length();
        boolean reasonOk = refHistory ? r.equals(s.refFinish) : r.equals("length") || r.equals("stop");
        if (whole && reasonOk) {
            return null;
        }
        if (!whole) {
            return new Finding(PropertyId.S1, "request " + id + " finishes (" + r + ") with " + s.n + " of its " + s.ref.length()
                    + " reference tokens (a request completed short)", s.ref.length() + " tokens", s.n + " tokens");
        }
        return new Finding(PropertyId.S1, "request " + id + " finishes with the reason " + History.quote(r) + ", which the reference does not explain",
                refHistory ? "finish_reason " + s.refFinish : "finish_reason length (or stop)", r);
    }

    private static Map<String, List<History.Chunk>> byRequest(History h) {
        Map<String, List<History.Chunk>> m = new HashMap<>();
        for (History.Chunk c : h.chunks) {
            m.computeIfAbsent(c.request(), k -> new ArrayList<>()).add(c);
        }
        return m;
    }

    private static Result bad(History h, Reference ref, long line, String request, Verdict v, Finding f, long tokens) {
        return new Result(h.source, v, f, line, request, h.requests.size(), tokens, h.faults.size(), List.of(), ref.label(), null, null, null, null);
    }

    /** The longest span of a history's times its metrics are computed over: they are filed by the second. */
    public static final double MAX_METRICS_SPAN_MS = 30 * 86_400_000.0;

    /** The time of a history's first record, or NaN when its records span more than {@link #MAX_METRICS_SPAN_MS} (or none has a time). */
    static double start(History h) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (History.Request r : h.requests.values()) {
            lo = Math.min(lo, r.t());
            hi = Math.max(hi, r.t());
        }
        for (History.Chunk c : h.chunks) {
            lo = Math.min(lo, c.t());
            hi = Math.max(hi, c.t());
        }
        for (History.Fault f : h.faults) {
            lo = Math.min(lo, f.t());
            hi = Math.max(hi, f.t());
        }
        return hi - lo <= MAX_METRICS_SPAN_MS ? lo : Double.NaN;
    }

    /** The history as the simulator's per-request times (ids renumbered in order of sending), its faults as failures. */
    public static SimResult asRun(History h) {
        return asRun(h, 0);
    }

    /** As {@link #asRun(History)}, every time less {@code t0}. */
    private static SimResult asRun(History h, double t0) {
        Map<String, Seen> seen = new HashMap<>();
        for (History.Request r : h.requests.values()) {
            seen.put(r.id(), new Seen(r, Output.of(new int[0]), null));
        }
        List<History.Fault> faults = byTime(h);
        int[] next = {0};
        for (History.Chunk c : h.chunks) {
            markFaults(faults, next, seen, c.t());
            Seen s = seen.get(c.request());
            s.n += c.tokens().length;
            s.timed(c);
        }
        return run(h, seen, t0);
    }

    /** The history's requests as the simulator's, every time less {@code t0}. */
    private static SimResult run(History h, Map<String, Seen> seen, double t0) {
        SimResult out = new SimResult();
        int i = 0;
        for (History.Request r : h.requests.values()) {
            Seen s = seen.get(r.id());
            SimResult.Req q = new SimResult.Req(i++, r.t() - t0, Math.max(0, r.promptTokens()), s.n);
            q.firstMs = s.first - t0;
            q.doneMs = s.done - t0;
            for (double[] st : s.steps) {
                out.tpotSteps.add(st[0] - t0, st[1], st[2]);
            }
            if (!Double.isNaN(s.faultAt) && !Double.isNaN(s.afterFault)) {
                q.interrupted = true;
                q.interruptedMs = s.faultAt - t0;
                q.replayFirstMs = s.afterFault - t0;
            }
            out.requests.add(q);
        }
        for (History.Fault f : h.faults) {
            out.failures.add(new SimResult.Failure(f.t() - t0, new int[0]));
        }
        return out;
    }

    /** The run's summary (its times less {@code t0}), its fault at the history's own time; the baseline's times less {@code b0}. */
    private static SimMetrics.Summary summary(SimResult run, double t0, History baseline, double b0) {
        SimResult base = baseline == null ? run : asRun(baseline, b0);
        SimMetrics.Summary s = SimMetrics.summarize("history", run, base);
        if (baseline == null) {
            // no failure-free run to compare with: no recovery time
            s = s.withoutRecovery();
        }
        return new SimMetrics.Summary(s.policy(), s.failAtMs() + t0, s.recoveryMs(), s.windowMs(), s.ttftAll(), s.ttftInterrupted(),
                s.ttftSurvivors(), s.tpotAll(), s.tpotInterrupted(), s.tpotSurvivors(), s.requests(), s.interrupted(), s.restored(),
                s.draftAcceptance(), s.excessTtftS(), s.paperRecoveryMs());
    }
}
