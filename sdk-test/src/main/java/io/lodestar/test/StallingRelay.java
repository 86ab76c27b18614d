package io.lodestar.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of a Redis server that can stop forwarding without closing anything, as a network partition
 * that drops packets looks to a client: connections stay open, connects still succeed, nothing comes back.
 * {@link #resume()} forwards again, from where it stopped (nothing is lost). One thread pair per connection; for
 * tests only.
 *
 * <pre>{@code
 * try (StallingRelay relay = StallingRelay.to(redis)) {
 *     client = connect(relay.uri());
 *     relay.stall();   // the client hears nothing from now on
 *     relay.resume();
 * }
 * }</pre>
 */
public final class StallingRelay implements AutoCloseable {
    private final String host;
    private final int port;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private boolean stalled;
    private volatile boolean closed;

    private StallingRelay(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "stalling-relay-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a relay to a server, listening on a free loopback port.
     *
     * @param target the server to forward to
     * @return the running relay
     * @throws UncheckedIOException if no port can be opened
     */
    public static StallingRelay to(RedisServer target) {
        Objects.requireNonNull(target, "target");
        try {
            return new StallingRelay(target.host(), target.port());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open a relay to " + target.uri(), e);
        }
    }

    /** @return {@code redis://127.0.0.1:PORT}: the relay's address, for clients */
    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /** @return the port the relay listens on */
    public int port() {
        return server.getLocalPort();
    }

    /** Stops forwarding, both ways, on every connection and on those still to come; closes nothing. */
    public void stall() {
        synchronized (lock) {
            stalled = true;
        }
    }

    /** Forwards again what was held back, and everything after it. */
    public void resume() {
        synchronized (lock) {
            stalled = false;
            lock.notifyAll();
        }
    }

    /** Closes the relay and every connection through it (resuming first: no thread stays parked). */
    @Override
    public void close() {
        closed = true;
        resume();
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                continue; // the relay closed (the loop ends), or one accept failed
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(host, port), 5_000);
            } catch (IOException e) {
                closeQuietly(client); // the server is down: the client sees its connection closed
                continue;
            }
            sockets.add(client);
            sockets.add(upstream);
            pump(client, upstream, "up");
            pump(upstream, client, "down");
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                while (true) {
                    awaitForwarding(); // stalled: not even read, so the sender's data waits in its buffers
                    int read = in.read(buffer);
                    if (read < 0) {
                        break;
                    }
                    awaitForwarding(); // what was read while it stalled is held back
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // a side closed, or the relay did
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "stalling-relay-" + port() + "-" + direction);
        thread.setDaemon(true);
        thread.start();
    }

    private void awaitForwarding() throws InterruptedException {
        synchronized (lock) {
            while (stalled && !closed) {
                lock.wait();
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
