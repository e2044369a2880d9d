package lumen.live;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A link between two processes of lumen serve (the gateway and one worker, or one worker and
 * another as its holder), as a TCP proxy on 127.0.0.1 that a drill can cut: a network partition
 * made on loopback, touching no other address and no other process. The gateway reaches a
 * worker (its calls and its heartbeats) through one; a worker's page transfers to a holder go
 * through another, so each can be cut alone.
 *
 * <p>A cut is either <b>delaying</b> (every byte already sent or sent meanwhile waits, both ways,
 * and goes through at the heal, as on a TCP connection that outlives the partition) or
 * <b>lossy</b> (every open connection is reset and new ones are refused until the heal: what
 * was in flight is lost). {@link #heal()} undoes either; {@link #close()} heals and stops.
 *
 * <p>Short of a cut, a link can be <b>degraded</b> ({@link #degrade}): every chunk it carries is
 * delivered a fixed delay after it was read, in order, and each is lost with a given probability.
 * A TCP connection cannot drop bytes and go on, so a lost chunk resets its connection, as a
 * connection that gives up on a segment never retransmitted does.
 */
final class LinkProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    /** 0: up; 1: cut, delaying; 2: cut, lossy. */
    private volatile int cut;
    private volatile boolean closed;

    /** A proxy to {@code targetAddress} (host:port), listening on a free port of 127.0.0.1. */
    LinkProxy(String targetAddress) throws IOException {
        int colon = targetAddress.lastIndexOf(':');
        this.target = new InetSocketAddress(targetAddress.substring(0, colon), Integer.parseInt(targetAddress.substring(colon + 1)));
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "lumen-link-" + target.getPort());
        t.setDaemon(true);
        t.start();
    }

    /** Where the gateway dials the worker: host:port on loopback. */
    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /**
     * Cuts the link for {@code ms}: delaying (bytes wait for the heal) or lossy (connections reset,
     * new ones refused); the heal comes on its own then, or at {@link #close}.
     */
    void cut(boolean lossy, long ms) {
        int mine;
        synchronized (gate) {
            cut = lossy ? 2 : 1;
            mine = ++cuts;
        }
        if (lossy) {
            for (Socket s : open) {
                reset(s);
            }
        }
        healAfter(mine, ms);
    }

    /** Heals the link {@code ms} from now, unless a heal on command, or a later cut or degradation, came first. */
    private void healAfter(int mine, long ms) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                synchronized (gate) {
                    if (cuts == mine) {
                        heal();
                    }
                }
            }
        }, "lumen-heal-" + target.getPort());
        t.setDaemon(true);
        t.start();
    }

    /** Cuts and degradations so far: a heal timer heals only the latest. */
    private int cuts;
    /** While degraded: each chunk's delay, ns, and the chance that it is lost (its connection reset). */
    private volatile long delayNs;
    private volatile double loss;

    /**
     * Degrades the link for {@code ms}: each chunk, both ways, arrives {@code delayMs} after it was
     * read, and is lost with probability {@code lossPercent}/100 (its connection reset); the link is
     * whole again on its own then, at {@link #heal} or at {@link #close}.
     */
    void degrade(long delayMs, double lossPercent, long ms) {
        int mine;
        synchronized (gate) {
            delayNs = delayMs * 1_000_000L;
            loss = lossPercent / 100;
            mine = ++cuts;
        }
        healAfter(mine, ms);
    }

    /** Heals the link: what waited goes through. */
    void heal() {
        synchronized (gate) {
            cut = 0;
            delayNs = 0;
            loss = 0;
            gate.notifyAll();
        }
    }

    private void accept() {
        while (!closed) {
            Socket in;
            try {
                in = server.accept();
            } catch (IOException ex) {
                return;
            }
            if (cut == 2) {
                reset(in);
                continue;
            }
            Socket out = new Socket();
            try {
                out.connect(target, 1_000);
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
            } catch (IOException ex) {
                reset(in);
                reset(out);
                continue;
            }
            open.add(in);
            open.add(out);
            pump(in, out);
            pump(out, in);
        }
    }

    /** A chunk read, and when it is due at the other end (ns, System.nanoTime). */
    private record Chunk(byte[] data, long due) {}

    /** The end of a connection's chunks in a pump's queue. */
    private static final Chunk END = new Chunk(new byte[0], 0);

    /**
     * Copies from {@code a} to {@code b}: a reader takes each chunk in (one read while the link is
     * cut and delaying waits for the heal), a writer sends it on when it is due (at once, unless
     * the link is degraded), so a delay keeps the chunks' order and does not slow the stream.
     */
    private void pump(Socket a, Socket b) {
        java.util.concurrent.BlockingQueue<Chunk> q = new java.util.concurrent.LinkedBlockingQueue<>();
        Runnable close = () -> {
            reset(a);
            reset(b);
            open.remove(a);
            open.remove(b);
        };
        Thread reader = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = a.getInputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (gate) {
                        while (cut == 1 && !closed) {
                            gate.wait();
                        }
                    }
                    double l = loss;
                    if (cut == 2 || l > 0 && java.util.concurrent.ThreadLocalRandom.current().nextDouble() < l) {
                        // lost: the connection goes at once, with what was still on its way
                        close.run();
                        break;
                    }
                    q.add(new Chunk(java.util.Arrays.copyOf(buf, n), System.nanoTime() + delayNs));
                }
            } catch (IOException | InterruptedException ex) {
                // the connection ended, or was reset by a lossy cut
            } finally {
                q.add(END);
            }
        }, "lumen-link-read");
        Thread writer = new Thread(() -> {
            try (OutputStream out = b.getOutputStream()) {
                for (Chunk c = q.take(); c != END; c = q.take()) {
                    long wait = c.due() - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                    }
                    out.write(c.data());
                    out.flush();
                }
            } catch (IOException | InterruptedException ex) {
                // the connection ended, or was reset
            } finally {
                close.run();
            }
        }, "lumen-link-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    /** Closes a socket as a lost link does: at once, with a reset rather than an orderly close. */
    private static void reset(Socket s) {
        try {
            if (!s.isClosed()) {
                s.setSoLinger(true, 0);
                s.close();
            }
        } catch (IOException ex) {
            // already gone
        }
    }

    @Override
    public void close() {
        closed = true;
        heal();
        try {
            server.close();
        } catch (IOException ex) {
            // closing anyway
        }
        for (Socket s : open) {
            reset(s);
        }
    }
}
