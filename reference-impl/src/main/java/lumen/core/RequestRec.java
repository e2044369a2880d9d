package lumen.core;

/**
 * One request's part of the spec state. {@code server} is the spec's {@code Server(r)} (-1 for
 * None), {@code holder} its {@code holder[r]} and {@code backup} its {@code backup[r]} (-1 for
 * None; a backup exists only under lumen-dual). The output is kept as its length and whether it
 * is still a prefix of the reference ({@code IsPrefix(out[r], Ref[r])}), which is all any property
 * or action of the spec reads from it.
 *
 * @param ref    the reference (failure-free) output; dropped once the request is DONE
 * @param maxOut the maximum output the request declared at arrival (0: not declared)
 */
public record RequestRec(int id, RequestPhase phase, int server, int holder, boolean placed,
                         PageSeq kv, PageSeq ckpt, int backup, PageSeq bckpt, int outLen, boolean outOk,
                         int promptLen, int refLen, int maxOut, int[] ref, Proposal proposal) {

    /** An in-flight draft: its source worker and its tokens. */
    /** A draft in flight: made by worker {@code src} for this request on its server {@code tgt}, the spec's {@code [src, tgt, toks]}. */
    public record Proposal(int src, int tgt, int[] toks) {}

    public static RequestRec arrived(int id, int server, int promptLen, int[] ref) {
        return arrived(id, server, promptLen, ref, 0);
    }

    public static RequestRec arrived(int id, int server, int promptLen, int[] ref, int maxOut) {
        return new RequestRec(id, RequestPhase.QUEUED, server, -1, false, PageSeq.EMPTY, PageSeq.EMPTY, -1, PageSeq.EMPTY,
                0, true, promptLen, ref.length, maxOut, ref, null);
    }

    /**
     * Size(r): the positions a placement reserves for r (Eq. 5): its prompt and its declared
     * maximum output, or the reference's length when it declared none (or a smaller one).
     */
    public long size() {
        return (long) promptLen + Math.max(refLen, maxOut);
    }

    /** Ctx(r): the tokens of r's context so far (prompt and output). */
    public int ctx() {
        return promptLen + outLen;
    }

    /**
     * KvLen(r): the KV positions r's server has written once r has output, Ctx(r) - 1 (a real
     * decoder writes an emitted token's KV in the next forward pass, which feeds it back); 0
     * before the first token.
     */
    public int kvLen() {
        return outLen == 0 ? 0 : promptLen + outLen - 1;
    }

    /** Checkpoint positions saved over all copies (holder and backup). */
    public int savedPositions() {
        return ckpt.length() + bckpt.length();
    }

    /**
     * KvNeeded(r): the KV a forward pass at r's next position reads before it runs, the whole prompt
     * for the first token, afterwards KvLen (the pass writes its input token's KV itself).
     */
    public int kvNeeded() {
        return outLen == 0 ? promptLen : kvLen();
    }

    /**
     * The target's token at output position i (1-based) given r's KV: TargetToken(r, kv[r], i), the
     * reference only on KV that is intact and whole (at least {@link #kvNeeded} positions).
     */
    public int targetToken(int i) {
        return kv.intact() && kv.length() >= kvNeeded() && ref != null ? ref[i - 1] : Tokens.WRONG;
    }

    public RequestRec withPhase(RequestPhase p) {
        return new RequestRec(id, p, server, holder, placed, kv, ckpt, backup, bckpt, outLen, outOk, promptLen, refLen, maxOut, ref, proposal);
    }

    public RequestRec withServer(int w) {
        return new RequestRec(id, phase, w, holder, placed, kv, ckpt, backup, bckpt, outLen, outOk, promptLen, refLen, maxOut, ref, proposal);
    }

    public RequestRec withHolder(int h, PageSeq c) {
        return new RequestRec(id, phase, server, h, placed, kv, c, backup, bckpt, outLen, outOk, promptLen, refLen, maxOut, ref, proposal);
    }

    public RequestRec withBackup(int b, PageSeq c) {
        return new RequestRec(id, phase, server, holder, placed, kv, ckpt, b, c, outLen, outOk, promptLen, refLen, maxOut, ref, proposal);
    }

    public RequestRec withPlaced(boolean p) {
        return new RequestRec(id, phase, server, holder, p, kv, ckpt, backup, bckpt, outLen, outOk, promptLen, refLen, maxOut, ref, proposal);
    }

    public RequestRec withKv(PageSeq k) {
        return new RequestRec(id, phase, server, holder, placed, k, ckpt, backup, bckpt, outLen, outOk, promptLen, refLen, maxOut, ref, proposal);
    }

    public RequestRec withProposal(Proposal p) {
        return new RequestRec(id, phase, server, holder, placed, kv, ckpt, backup, bckpt, outLen, outOk, promptLen, refLen, maxOut, ref, p);
    }

    /** Appends delivered tokens to the output, tracking whether it is still a prefix of Ref. */
    public RequestRec withOutput(int[] tokens) {
        boolean ok = outOk;
        for (int i = 0; i < tokens.length; i++) {
            int pos = outLen + i;
            ok &= pos < refLen && ref != null && ref[pos] == tokens[i];
        }
        return new RequestRec(id, phase, server, holder, placed, kv, ckpt, backup, bckpt, outLen + tokens.length, ok, promptLen,
                refLen, maxOut, ref, proposal);
    }

    /**
     * One decode iteration as reported: the KV grows by the tokens delivered, the output takes them
     * (tracking whether it is still a prefix of Ref), and any draft in flight is consumed.
     */
    public RequestRec decoded(int[] tokens) {
        boolean ok = outOk;
        for (int i = 0; i < tokens.length; i++) {
            int pos = outLen + i;
            ok &= pos < refLen && ref != null && ref[pos] == tokens[i];
        }
        return new RequestRec(id, phase, server, holder, placed, kv.extendIntact(kv.length() + tokens.length), ckpt, backup, bckpt,
                outLen + tokens.length, ok, promptLen, refLen, maxOut, ref, null);
    }

    /**
     * Whether this record is DONE with nothing left anywhere: no server, no checkpoint copy and no
     * holder, no draft, its whole reference output delivered.
     */
    public boolean finishedClean() {
        return phase == RequestPhase.DONE && server < 0 && holder < 0 && backup < 0 && proposal == null && outOk && outLen == refLen
                && kv.length() == 0 && ckpt.length() == 0 && bckpt.length() == 0;
    }

    /**
     * What a validator keeps of a request it finished with ({@link ClusterState#forget}): DONE
     * with nothing left, and lengths it no longer knows, set so that any later event naming the
     * request is judged as it would be on the full record (it is no step of the spec, and the
     * same properties break); only the lengths in reports differ.
     */
    public static RequestRec forgotten(int id) {
        return new RequestRec(id, RequestPhase.DONE, -1, -1, true, PageSeq.EMPTY, PageSeq.EMPTY, -1, PageSeq.EMPTY, 0, true, 1, 0, 0,
                null, null);
    }

    /** The record kept once DONE: the reference is dropped, so memory follows live requests. */
    public RequestRec finished() {
        return new RequestRec(id, RequestPhase.DONE, -1, holder, placed, PageSeq.EMPTY, ckpt, backup, bckpt, outLen, outOk,
                promptLen, refLen, maxOut, null, null);
    }
}
