package lumen.core;

/**
 * The incarnation of a worker that a Fail fenced and that may live on (the spec's
 * {@code gray.zombie[w]}, GrayFailure): the epoch it still writes under, and its own view of each
 * request it served when it was failed ({@code ZombieOf(w)}). A fail-stop run never hears from
 * it; a gray one may see it write that view's next token and next page, and acknowledge a copy
 * it held as a holder ({@code held}: each request's copy then, non-empty), each of which a fence
 * must refuse.
 */
public record Zombie(int epoch, PIntMap<Req> reqs, PIntMap<PageSeq> held) {

    /** A zombie that held no copies. */
    public Zombie(int epoch, PIntMap<Req> reqs) {
        this(epoch, reqs, PIntMap.empty());
    }

    /**
     * The zombie's view of one request: how many output tokens it had (of the {@code refLen} the
     * request wants), the KV it held, the holder
     * it streamed to (-1: none) and the next checkpoint position it would stream (1-based).
     */
    public record Req(int out, int refLen, PageSeq kv, int holder, int next) {
        /** This view after the zombie wrote its next token. */
        public Req tokenWritten() {
            return new Req(out + 1, refLen, kv, holder, next);
        }

        /** This view after the zombie wrote its next page. */
        public Req pageWritten() {
            return new Req(out, refLen, kv, holder, next + 1);
        }
    }

    /** This zombie with r's view {@code q}. */
    public Zombie with(int r, Req q) {
        return new Zombie(epoch, reqs.put(r, q), held);
    }

    /** This zombie once it has acknowledged its copy of r (it holds it no more, as far as its writes go). */
    public Zombie acknowledged(int r) {
        return new Zombie(epoch, reqs, held.remove(r));
    }
}
