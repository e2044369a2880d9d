package lumen.live;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One process's Lamport clock. Every call between the processes of {@code lumen serve} carries the
 * caller's clock in a header, and every answer the callee's, so that an event a process logs
 * after hearing of another's has a larger clock ({@link ProcessLog}). Only the events logged tick
 * it; a message only raises it to the largest clock heard of.
 */
final class Clock {
    static final Metadata.Key<String> HEADER = Metadata.Key.of("lumen-lc", Metadata.ASCII_STRING_MARSHALLER);

    private final AtomicLong lc = new AtomicLong();

    /** The clock of the next event logged. */
    long tick() {
        return lc.incrementAndGet();
    }

    private void heard(Metadata m) {
        String v = m == null ? null : m.get(HEADER);
        if (v != null) {
            try {
                long other = Long.parseLong(v);
                lc.accumulateAndGet(other, Math::max);
            } catch (NumberFormatException ex) {
                // a peer that sends no clock, or a bad one, orders nothing
            }
        }
    }

    private void stamp(Metadata m) {
        m.put(HEADER, Long.toString(lc.get()));
    }

    /** For a channel: each call sends this clock and takes in the answer's. */
    ClientInterceptor client() {
        return new ClientInterceptor() {
            @Override
            public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> m, CallOptions o, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(m, o)) {
                    @Override
                    public void start(Listener<A> listener, Metadata headers) {
                        stamp(headers);
                        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                            @Override
                            public void onHeaders(Metadata h) {
                                heard(h);
                                super.onHeaders(h);
                            }

                            @Override
                            public void onClose(Status s, Metadata trailers) {
                                heard(trailers);
                                super.onClose(s, trailers);
                            }
                        }, headers);
                    }
                };
            }
        };
    }

    /** For a server: each call's clock is taken in before it runs, and the answer carries this clock after it. */
    ServerInterceptor server() {
        return new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                heard(headers);
                return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                    @Override
                    public void sendHeaders(Metadata h) {
                        stamp(h);
                        super.sendHeaders(h);
                    }

                    @Override
                    public void close(Status s, Metadata trailers) {
                        stamp(trailers);
                        super.close(s, trailers);
                    }
                }, headers);
            }
        };
    }
}
