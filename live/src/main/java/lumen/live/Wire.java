package lumen.live;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The worker service's methods on gRPC: unary calls whose messages are JSON (Jackson), so the
 * service needs no generated code. The gateway calls a worker for what the runtime asks of its
 * memories ({@link lumen.runtime.WorkerMemory}); a server calls its holder's {@link #STORE} to
 * stream a checkpoint page, process to process.
 */
final class Wire {
    private Wire() {}

    /** A call's arguments; each method reads the fields it names. */
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    record Op(int req, long seed, int from, int to, int page, int count, List<byte[]> pages, byte[] data, String holder,
              List<lumen.runtime.TargetPass.Job> jobs, int worker, int epoch, long addressee) {
        Op(int req, long seed, int from, int to, int page, int count, List<byte[]> pages, byte[] data, String holder,
           List<lumen.runtime.TargetPass.Job> jobs) {
            this(req, seed, from, to, page, count, pages, data, holder, jobs, 0, 0, 0);
        }

        Op(int req, long seed, int from, int to, int page, int count, List<byte[]> pages, byte[] data, String holder) {
            this(req, seed, from, to, page, count, pages, data, holder, null);
        }

        /** A write's sender and the epoch it carries ({@link #SEND_PAGE}, {@link #STORE}), or a fence ({@link #FENCE}). */
        Op withEpoch(int w, int e) {
            return new Op(req, seed, from, to, page, count, pages, data, holder, jobs, w, e, addressee);
        }

        /**
         * A page's addressee: the boot id of the holder's incarnation the gateway sent it to
         * ({@link #SEND_PAGE}, {@link #STORE}; 0: any). A holder that has since been reset is
         * another incarnation, and refuses it.
         */
        Op to(long boot) {
            return new Op(req, seed, from, to, page, count, pages, data, holder, jobs, worker, epoch, boot);
        }

        static Op req(int r) {
            return new Op(r, 0, 0, 0, 0, 0, null, null, null);
        }

        static Op jobs(List<lumen.runtime.TargetPass.Job> jobs) {
            return new Op(0, 0, 0, 0, 0, 0, null, null, null, jobs);
        }
    }

    /** A call's answer. */
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    record Reply(long value, byte[] data, List<byte[]> pages, long boot, long pid, List<lumen.runtime.TargetPass.Pass> passes, int models) {
        static final Reply OK = new Reply(0, null, null, 0, 0, null);

        Reply(long value, byte[] data, List<byte[]> pages, long boot, long pid, List<lumen.runtime.TargetPass.Pass> passes) {
            this(value, data, pages, boot, pid, passes, 0);
        }

        Reply(long value, byte[] data, List<byte[]> pages, long boot, long pid) {
            this(value, data, pages, boot, pid, null);
        }

        static Reply of(long value) {
            return new Reply(value, null, null, 0, 0);
        }
    }

    static final String SERVICE = "lumen.Worker";

    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private static final class Json<T> implements MethodDescriptor.Marshaller<T> {
        private final Class<T> type;

        Json(Class<T> type) {
            this.type = type;
        }

        @Override
        public InputStream stream(T value) {
            try {
                return new ByteArrayInputStream(JSON.writeValueAsBytes(value));
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        @Override
        public T parse(InputStream in) {
            try {
                return JSON.readValue(in, type);
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }

    private static MethodDescriptor<Op, Reply> method(String name) {
        return MethodDescriptor.<Op, Reply>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(new Json<>(Op.class))
                .setResponseMarshaller(new Json<>(Reply.class))
                .build();
    }

    /** One iteration's steps on the worker's target ({@link lumen.runtime.TargetPass}): tokens and page content for each. */
    static final MethodDescriptor<Op, Reply> RUN = method("Run");
    /** Wipes both memories and takes a new boot id: a worker the gateway failed while it was only slow starts again as new. */
    static final MethodDescriptor<Op, Reply> RESET = method("Reset");
    /**
     * Opens the process's own log, once, with {@code data} as the run's trace header; answers 1 when
     * the process writes one (it was started with a log directory), else 0.
     */
    static final MethodDescriptor<Op, Reply> LOG = method("Log");
    /** The worker's draft model: {@code count} tokens for output positions {@code from}.. of the request with {@code seed} and {@code to} reference tokens. */
    static final MethodDescriptor<Op, Reply> DRAFT = method("Draft");
    /**
     * A restarted worker starts loading its models: the draft in {@code from} ms (0: none) and the
     * full model in {@code to} ms. Its heartbeats then say what it has loaded ({@link Reply#models}).
     */
    static final MethodDescriptor<Op, Reply> LOAD = method("Load");
    /** Liveness: the process's boot id (new at every start) and pid, and the models it has loaded (0 none, 1 the draft, 2 the full model). */
    static final MethodDescriptor<Op, Reply> PING = method("Ping");
    /** Writes the true KV of positions from..to of req (seed). */
    static final MethodDescriptor<Op, Reply> COMPUTE = method("Compute");
    /** Positions of req held in the GPU's KV. */
    static final MethodDescriptor<Op, Reply> POSITIONS = method("Positions");
    /** A copy of page {@code page} of req. */
    static final MethodDescriptor<Op, Reply> GATHER = method("Gather");
    /** Replaces req's KV with {@code pages} holding positions 1..count. */
    static final MethodDescriptor<Op, Reply> RESTORE = method("Restore");
    /** The digest of page {@code page} of req over its first {@code count} positions. */
    static final MethodDescriptor<Op, Reply> PAGE_DIGEST = method("PageDigest");
    /** The digest of req's KV for positions 1..count. */
    static final MethodDescriptor<Op, Reply> DIGEST = method("Digest");
    /** Frees req's KV. */
    static final MethodDescriptor<Op, Reply> FREE = method("Free");
    /** Streams page {@code page} of req to the host memory of the worker at {@code holder}; answers its digest as stored. */
    static final MethodDescriptor<Op, Reply> SEND_PAGE = method("SendPage");
    /** Stores {@code data} as page {@code page} of req's checkpoint copy in host memory (replacing it if sent before); answers its digest. */
    static final MethodDescriptor<Op, Reply> STORE = method("Store");
    /**
     * The fence: from now on this worker refuses a page worker {@code worker} sends under an epoch
     * below {@code epoch} (the sender's epoch travels with {@link #SEND_PAGE} and {@link #STORE}).
     */
    static final MethodDescriptor<Op, Reply> FENCE = method("Fence");
    /** The status a holder answers a page whose sender it has fenced. */
    static final String FENCED = "fenced";
    /** Takes req's checkpoint copy out of host memory. */
    static final MethodDescriptor<Op, Reply> TAKE_COPY = method("TakeCopy");
    /** Frees req's checkpoint copy in host memory. */
    static final MethodDescriptor<Op, Reply> DROP_COPY = method("DropCopy");


    /** The status a server answers when the holder it streams to cannot be reached (the holder, not the server, is lost). */
    static final String HOLDER_LOST = "holder unreachable";

    /** A holder's refusal of a page addressed to an incarnation of it that a reset has ended. */
    static final String NOT_ADDRESSEE = "addressed to an earlier incarnation";

    /** The status a server answers when its holder stored a page and the acknowledgement was lost on the way. */
    static final String ACK_LOST = "acknowledgement lost";
}
