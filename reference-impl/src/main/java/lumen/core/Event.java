package lumen.core;

import java.util.Arrays;

/**
 * What one action of the spec did: its parameters and the outcome a validator must see. There is
 * one record per spec action, and the trace contract writes each as one JSON line whose
 * {@code type} is the action's spec name. Workers and requests are ints; -1 means the spec's
 * None. Lengths count positions (the spec's pages).
 *
 * <p>The events that write or copy KV (Prefill, Decode, StreamPage, a RESTORE) carry its content
 * in trace contract v2: {@code pages}, one {@link PageDigest} per page touched. {@code null}
 * means the content is not shown (a v1 trace).
 */
public sealed interface Event {
    Action action();

    /** The request the event is about, or -1 for worker events. */
    default int req() {
        return -1;
    }

    /** The worker the event is about (its server, holder, target or source). */
    int worker();

    /** This event without its KV content (what a v1 trace shows of it). */
    default Event withoutContent() {
        if (this instanceof Prefill p) {
            return new Prefill(p.req(), p.worker(), p.tokens());
        }
        if (this instanceof Decode d) {
            return new Decode(d.req(), d.worker(), d.tokens());
        }
        if (this instanceof StreamPage sp) {
            return new StreamPage(sp.req(), sp.holder(), sp.ckpt());
        }
        if (this instanceof Route r) {
            return new Route(r.req(), r.mode(), r.worker(), r.resumed(), r.freed());
        }
        return this;
    }

    /**
     * r arrives and the gateway queues it on {@code worker} (a shortest queue). {@code maxOut} is
     * the maximum output the request declared (its max_tokens), which a placement reserves for
     * (Eq. 5); 0 when the trace does not say, and then the reference's length stands for it.
     */
    record Arrive(int req, int worker, int promptLen, int[] ref, int maxOut) implements Event {
        /** An arrival that declares no maximum output. */
        public Arrive(int req, int worker, int promptLen, int[] ref) {
            this(req, worker, promptLen, ref, 0);
        }

        public Action action() {
            return Action.ARRIVE;
        }

        /** This arrival with another reference output, the declared maximum kept. */
        public Arrive withRef(int[] other) {
            return new Arrive(req, worker, promptLen, other, maxOut);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Arrive a && a.req == req && a.worker == worker && a.promptLen == promptLen
                    && Arrays.equals(a.ref, ref) && a.maxOut == maxOut;
        }

        @Override
        public int hashCode() {
            return 31 * (31 * (31 * req + worker) + Arrays.hashCode(ref)) + maxOut;
        }
    }

    /**
     * The placement decision for r's current run: {@code holder}, or -1 to run unprotected; under
     * lumen-dual also a {@code backup} holder (-1 for none).
     */
    record Place(int req, int holder, int backup) implements Event {
        public Place(int req, int holder) {
            this(req, holder, -1);
        }

        /**
         * Whether this placement keeps the holder r already has in its run: the rebackup
         * reading's step, which only decides a new backup ({@code NeedsBackup}).
         */
        public boolean keepsHolderOf(RequestRec r) {
            return r.placed() && r.holder() >= 0 && holder == r.holder();
        }

        public Action action() {
            return Action.PLACE;
        }

        public int worker() {
            return holder;
        }
    }

    /**
     * r's server computes the KV pages it lacks; {@code tokens} is the first token, if any;
     * {@code pages} the content of every page it wrote to (null: not shown).
     */
    record Prefill(int req, int worker, int[] tokens, PageDigest[] pages) implements Event {
        public Prefill(int req, int worker, int[] tokens) {
            this(req, worker, tokens, null);
        }

        public Action action() {
            return Action.PREFILL;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Prefill p && p.req == req && p.worker == worker && Arrays.equals(p.tokens, tokens)
                    && Arrays.equals(p.pages, pages);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * req + worker) + Arrays.hashCode(tokens);
        }
    }

    /**
     * One decode iteration of r: the tokens it delivered (one, or a verified draft plus one), and
     * the content of every page it wrote to (null: not shown).
     */
    record Decode(int req, int worker, int[] tokens, PageDigest[] pages) implements Event {
        public Decode(int req, int worker, int[] tokens) {
            this(req, worker, tokens, null);
        }

        public Action action() {
            return Action.DECODE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Decode d && d.req == req && d.worker == worker && Arrays.equals(d.tokens, tokens)
                    && Arrays.equals(d.pages, pages);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * req + worker) + Arrays.hashCode(tokens);
        }
    }

    /**
     * r's server streamed pages to {@code holder} (its holder, or under lumen-dual its backup):
     * that copy now holds positions 1..ckpt, and {@code pages} is the content of every page of the
     * copy that changed (null: not shown). One event may stand for several of the spec's
     * one-position StreamPage steps.
     */
    record StreamPage(int req, int holder, int ckpt, PageDigest[] pages) implements Event {
        public StreamPage(int req, int holder, int ckpt) {
            this(req, holder, ckpt, null);
        }

        public Action action() {
            return Action.STREAM_PAGE;
        }

        public int worker() {
            return holder;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StreamPage p && p.req == req && p.holder == holder && p.ckpt == ckpt && Arrays.equals(p.pages, pages);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * req + holder) + ckpt;
        }
    }

    /** r completed on {@code worker}; {@code freed} checkpoint positions were freed (over all copies). */
    record Complete(int req, int worker, int freed) implements Event {
        public Action action() {
            return Action.COMPLETE;
        }
    }

    /**
     * {@code worker} crashed: the requests it served and the checkpoint copies it held (as holder
     * or backup) are lost; under lumen-dual the requests in {@code promoted} lost their holder and
     * their backup takes over.
     */
    record Fail(int worker, int[] interrupted, int[] orphaned, int[] promoted) implements Event {
        public Fail(int worker, int[] interrupted, int[] orphaned) {
            this(worker, interrupted, orphaned, new int[0]);
        }

        public Action action() {
            return Action.FAIL;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Fail f && f.worker == worker && Arrays.equals(f.interrupted, interrupted)
                    && Arrays.equals(f.orphaned, orphaned) && Arrays.equals(f.promoted, promoted);
        }

        @Override
        public int hashCode() {
            return 31 * worker + Arrays.hashCode(interrupted);
        }
    }

    /**
     * Interrupted r is routed to {@code worker} in {@code mode}, starting with {@code resumed}
     * KV positions; {@code freed} checkpoint positions were freed (over all copies); for a
     * RESTORE, {@code pages} is the content of every page restored into the GPU (null: not shown).
     */
    record Route(int req, RouteMode mode, int worker, int resumed, int freed, PageDigest[] pages) implements Event {
        public Route(int req, RouteMode mode, int worker, int resumed, int freed) {
            this(req, mode, worker, resumed, freed, null);
        }

        public Action action() {
            return Action.ROUTE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Route r && r.req == req && r.mode == mode && r.worker == worker && r.resumed == resumed
                    && r.freed == freed && Arrays.equals(r.pages, pages);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * (31 * req + worker) + resumed) + freed;
        }
    }

    /** A failed worker restarts: it loads its draft (LUMEN) or its full model. */
    record Restart(int worker) implements Event {
        public Action action() {
            return Action.RESTART;
        }
    }

    /**
     * The draft model is loaded: the worker assists. {@code target} is the survivor it will assist
     * when the event names one (the session reading's choice made here), else -1 (chosen at the
     * first proposal).
     */
    record DraftReady(int worker, int target) implements Event {
        public DraftReady(int worker) {
            this(worker, -1);
        }

        public Action action() {
            return Action.DRAFT_READY;
        }
    }

    /** Assisting {@code worker} proposes {@code draft} for r on a most loaded survivor. */
    record Assist(int worker, int req, int[] draft) implements Event {
        public Action action() {
            return Action.ASSIST;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Assist a && a.req == req && a.worker == worker && Arrays.equals(a.draft, draft);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * req + worker) + Arrays.hashCode(draft);
        }
    }

    /** The atomic handover: full model active, draft freed, the listed proposals dropped, UP. */
    record FullReady(int worker, int[] dropped) implements Event {
        public Action action() {
            return Action.FULL_READY;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FullReady f && f.worker == worker && Arrays.equals(f.dropped, dropped);
        }

        @Override
        public int hashCode() {
            return 31 * worker + Arrays.hashCode(dropped);
        }
    }

    /**
     * The zombie of {@code worker} (its incarnation before its latest Fail, which may live on: a
     * gray failure) sent r's next token, {@code token}, to the gateway; {@code accepted} says
     * whether the gateway took it into r's stream (its client got it), which the fence forbids
     * (S18). {@code epoch} is the epoch the write carried as the system numbers them (-1: not
     * shown); the kit keys nothing on it.
     */
    record ZombieToken(int worker, int req, int token, int epoch, boolean accepted) implements Event {
        public Action action() {
            return Action.ZOMBIE_TOKEN;
        }

        /** This write as a fence that let it through reports it. */
        public ZombieToken taken() {
            return new ZombieToken(worker, req, token, epoch, true);
        }
    }

    /**
     * The zombie of {@code worker} streamed r's next page to {@code holder}, the holder it
     * streamed to before it was failed, with {@code pages} its content (null: not shown);
     * {@code accepted} says whether the holder took it into r's checkpoint, which the fence
     * forbids (S19). {@code epoch} as for {@link ZombieToken}.
     */
    record ZombiePage(int worker, int req, int holder, int epoch, PageDigest[] pages, boolean accepted) implements Event {
        public Action action() {
            return Action.ZOMBIE_PAGE;
        }

        /** This write as a fence that let it through reports it. */
        public ZombiePage taken() {
            return new ZombiePage(worker, req, holder, epoch, pages, true);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ZombiePage z && z.worker == worker && z.req == req && z.holder == holder && z.epoch == epoch
                    && Arrays.equals(z.pages, pages) && z.accepted == accepted;
        }

        @Override
        public int hashCode() {
            return 31 * (31 * worker + req) + holder;
        }
    }

    /** The zombie of {@code worker} stops: it learned of its fence and reset, or it died. */
    record ZombieStops(int worker) implements Event {
        public Action action() {
            return Action.ZOMBIE_STOPS;
        }
    }

    /**
     * The zombie of {@code worker}, which was r's holder when it was failed, acknowledged the copy
     * of r its host memory still holds (a late acknowledgement of the pages it stored) to the
     * gateway; {@code accepted} says whether the gateway took it, making the worker r's holder
     * again with that copy, which the fence forbids (S19). {@code epoch} as for {@link ZombieToken}.
     */
    record ZombieAck(int worker, int req, int epoch, boolean accepted) implements Event {
        public Action action() {
            return Action.ZOMBIE_ACK;
        }

        /** This write as a fence that let it through reports it. */
        public ZombieAck taken() {
            return new ZombieAck(worker, req, epoch, true);
        }
    }
}
