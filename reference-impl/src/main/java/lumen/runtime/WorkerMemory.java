package lumen.runtime;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One worker's memories as the runtime drives them: its GPU's paged KV ({@link #gpu}) and the
 * checkpoint copies it holds for other workers' requests in its host memory. In the runtime both
 * live in the runtime's own process ({@link Local}); in {@code lumen serve} each worker is a
 * process of its own and these calls go over the network, so a page streamed to a holder goes from
 * the server's process to the holder's, and a crash takes both memories with the process.
 */
public interface WorkerMemory {
    KvDataPlane gpu();

    /** Runs one iteration's steps on this worker's target, in order ({@link TargetPass}); what each did. */
    TargetPass.Pass[] run(List<TargetPass.Job> jobs);

    /**
     * This worker's draft model, while it assists: its {@code k} tokens for output positions
     * {@code from}.. of the request with {@code seed} and {@code outLen} reference tokens
     * ({@link TokenModels#drafts}); null when the worker cannot be reached (its drafts never arrive).
     */
    int[] draft(long seed, int outLen, int from, int k);

    /**
     * A restarted worker starts loading its models: its draft model in {@code draftMs} (0: none),
     * its full model in {@code fullMs}, both from now. Only where the worker loads its own models
     * ({@link ClusterRuntime#withExternalLoads}); in this process the runtime's timers do.
     */
    default void loadModels(double draftMs, double fullMs) {
        throw new IllegalStateException("a worker in the runtime's process loads its models on the runtime's timers");
    }

    /** r is done on this worker: its KV is freed. */
    void free(int r);

    /**
     * Streams page {@code page} (0-based) of request r from this worker's GPU to {@code holder}'s host
     * memory, appended to r's copy there; returns the content digest of the page as the holder
     * stored it ({@link PageBytes#pageDigest} over the whole page). The holder keeps page i of a copy
     * at index i, so a page sent again replaces itself. Throws {@link NotAcknowledged} when the
     * holder's acknowledgement did not come back: the page is then not in the checkpoint.
     */
    long sendPage(int r, int page, WorkerMemory holder);

    /**
     * As {@link #sendPage(int, int, WorkerMemory)}, the write carrying {@code epoch}, the epoch the
     * gateway knows this worker by: a holder fenced against this worker at a later epoch refuses it.
     */
    default long sendPage(int r, int page, WorkerMemory holder, int epoch) {
        return sendPage(r, page, holder);
    }

    /**
     * The fence (GrayFailure): from now on this worker, as a holder, refuses every page worker
     * {@code worker} sends under an epoch below {@code epoch}. The gateway raises it for every other
     * worker when it fails {@code worker}, before any of its requests is routed again; a memory in
     * one process has no zombies to refuse.
     */
    default void fence(int worker, int epoch) {
    }

    /** A page was sent and its acknowledgement lost (a network fault): the runtime sends it again later. */
    final class NotAcknowledged extends RuntimeException {
        public NotAcknowledged(String message) {
            super(message, null, false, false);
        }
    }

    /** Takes r's checkpoint copy out of host memory: its pages in order (none when it holds none). */
    List<byte[]> takeCopy(int r);

    /** Frees r's checkpoint copy in host memory, if any. */
    void dropCopy(int r);

    /** A crash: the GPU's KV and the host memory are gone. */
    void clear();

    /** Both memories in this process: a KV data plane and a map of copies. */
    final class Local implements WorkerMemory {
        private final KvDataPlane gpu;
        private final TargetPass target;
        private final TokenModels models;
        private final Map<Integer, List<byte[]>> host = new HashMap<>();

        public Local(KvDataPlane gpu, TokenModels models) {
            this.gpu = gpu;
            this.models = models;
            this.target = new TargetPass(gpu, models);
        }

        @Override
        public int[] draft(long seed, int outLen, int from, int k) {
            return models.drafts(seed, outLen, from, k);
        }

        @Override
        public KvDataPlane gpu() {
            return gpu;
        }

        @Override
        public TargetPass.Pass[] run(List<TargetPass.Job> jobs) {
            TargetPass.Pass[] out = new TargetPass.Pass[jobs.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = target.run(jobs.get(i));
            }
            return out;
        }

        @Override
        public void free(int r) {
            target.free(r);
        }

        /** Stores streamed page {@code index} of r's copy (replacing a copy of it sent before); returns its digest as stored. */
        public long store(int r, int index, byte[] page) {
            storeAt(host.computeIfAbsent(r, k -> new java.util.ArrayList<>()), index, page);
            return PageBytes.pageDigest(page, 0, page.length);
        }

        /** Page {@code index} of a copy: replaced when sent before, appended when next; a gap is a bug of the sender. */
        public static void storeAt(List<byte[]> copy, int index, byte[] page) {
            if (index < copy.size()) {
                copy.set(index, page);
            } else if (index == copy.size()) {
                copy.add(page);
            } else {
                throw new IllegalStateException("page " + index + " of a copy that holds " + copy.size());
            }
        }

        @Override
        public long sendPage(int r, int page, WorkerMemory holder) {
            if (!(holder instanceof Local h)) {
                throw new IllegalArgumentException("a worker in this process streams to another in this process");
            }
            return h.store(r, page, gpu.gather(r, page));
        }

        @Override
        public List<byte[]> takeCopy(int r) {
            List<byte[]> pages = host.remove(r);
            return pages == null ? new java.util.ArrayList<>() : pages;
        }

        @Override
        public void dropCopy(int r) {
            host.remove(r);
        }

        @Override
        public void clear() {
            target.clear();
            host.clear();
        }
    }
}
