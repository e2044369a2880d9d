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
 * The link between the gateway and one worker, as a TCP proxy on 127.0.0.1 that a drill can cut:
 * a network partition made on loopback, touching no other address and no other process. The
 * gateway reaches the worker (its calls and its heartbeats) through it; the worker's page
 * transfers to its holders do not pass it, so a cut partitions the worker from the gateway only.
 *
 * <p>A cut is either <b>delaying</b> (every byte already sent or sent meanwhile waits, both ways,
 * and goes through at the heal, as on a TCP connection that outlives the partition) or
 * <b>lossy</b> (every open connection is reset and new ones are refused until the heal: what
 * was in flight is lost). {@link #heal()} undoes either; {@link #close()} heals and stops.
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
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                synchronized (gate) {
                    // a heal on command, or a later cut, may have come first: this timer heals its own cut only
                    if (cuts == mine) {
                        heal();
                    }
                }
            }
        }, "lumen-heal-" + target.getPort());
        t.setDaemon(true);
        t.start();
    }

    /** Cuts so far: a heal timer heals only the latest. */
    private int cuts;

    /** Heals the link: what waited goes through. */
    void heal() {
        synchronized (gate) {
            cut = 0;
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

    /** Copies from {@code a} to {@code b}; a chunk read while the link is cut and delaying waits for the heal. */
    private void pump(Socket a, Socket b) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = a.getInputStream(); OutputStream out = b.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (gate) {
                        while (cut == 1 && !closed) {
                            gate.wait();
                        }
                    }
                    if (cut == 2) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException ex) {
                // the connection ended, or was reset by a lossy cut
            } finally {
                reset(a);
                reset(b);
                open.remove(a);
                open.remove(b);
            }
        }, "lumen-link-pump");
        t.setDaemon(true);
        t.start();
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
