package io.lodestar.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay in front of a Redis server that can stop forwarding without closing anything, as a network partition
 * that drops packets looks to a client: connections stay open, connects still succeed, nothing comes back.
 * {@link #resume()} forwards again, from where it stopped (nothing is lost). With a delay
 * ({@link #to(RedisServer, Duration)}), every chunk is forwarded that long after it arrived, each way, as over a
 * link between regions: latency without a bound on throughput. Two threads per connection and direction; for
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
    private final long delayNanos;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private boolean stalled;
    private volatile boolean closed;

    private StallingRelay(String host, int port, Duration delay) throws IOException {
        this.host = host;
        this.port = port;
        this.delayNanos = delay.toNanos();
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
        return to(target, Duration.ZERO);
    }

    /**
     * Starts a relay to a server that delays what it forwards, each way.
     *
     * @param target the server to forward to
     * @param delay  how long each chunk waits, each way (e.g. 50 ms for a link between regions)
     * @return the running relay
     * @throws IllegalArgumentException when the delay is negative
     * @throws UncheckedIOException     if no port can be opened
     */
    public static StallingRelay to(RedisServer target, Duration delay) {
        Objects.requireNonNull(target, "target");
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("delay must be zero or positive, but was " + delay);
        }
        try {
            return new StallingRelay(target.host(), target.port(), delay);
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

    /**
     * One direction of a connection: a reader queues what arrives with the time it is due, a writer forwards it
     * then, so a delay adds latency without holding up what follows it.
     */
    private void pump(Socket from, Socket to, String direction) {
        BlockingQueue<Chunk> due = new LinkedBlockingQueue<>();
        start("stalling-relay-" + port() + "-" + direction + "-in", () -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                while (true) {
                    awaitForwarding(); // stalled: not even read, so the sender's data waits in its buffers
                    int read = in.read(buffer);
                    if (read < 0) {
                        break;
                    }
                    due.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delayNanos));
                }
            } catch (IOException | InterruptedException e) {
                // a side closed, or the relay did
            } finally {
                due.add(Chunk.END);
            }
        });
        start("stalling-relay-" + port() + "-" + direction + "-out", () -> {
            try (OutputStream out = to.getOutputStream()) {
                for (Chunk chunk = due.take(); chunk != Chunk.END; chunk = due.take()) {
                    long wait = chunk.dueAt - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    awaitForwarding(); // what was read while it stalled is held back
                    out.write(chunk.bytes);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // a side closed, or the relay did
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private static void start(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Bytes read, and when they are due to be forwarded; {@link #END} once the sender closed. */
    private record Chunk(byte[] bytes, long dueAt) {
        static final Chunk END = new Chunk(new byte[0], 0);
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
