package io.lodestar.cli;

import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The pages' event streams, each written by its own thread from its own bounded queue, so a page that stops reading
 * holds up nobody: the one thread that makes the events only queues them. A stream whose queue would pass
 * {@link #MAX_QUEUED_BYTES}, or whose writer has been stuck in one write for {@link #WRITE_TIMEOUT}, is dropped
 * (counted and logged); a page that was only slow reconnects and starts again from the full state. Whoever made
 * the streams hears when the first one opens and when the last one ends, so it follows Redis only while a page
 * watches.
 */
final class EventStreams implements AutoCloseable {
    /** A page's console has one stream; more than this many at once are refused, each costs a thread. */
    static final int MAX_STREAMS = 32;
    /** About a thousand typical events (a state, a service's instances): a page that fell this far behind left. */
    static final long MAX_QUEUED_BYTES = 1 << 20;
    static final Duration WRITE_TIMEOUT = Duration.ofSeconds(30);

    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();
    private final ExecutorService writers;
    private final AtomicLong dropped = new AtomicLong();
    private final PrintStream log;
    private final Consumer<Boolean> watched;

    /**
     * @param watched hears {@code true} when the first stream opens and {@code false} when the last one ends (in
     *                that order, under this object's lock: it must not wait)
     */
    EventStreams(ThreadFactory threads, PrintStream log, Consumer<Boolean> watched) {
        this.writers = Executors.newCachedThreadPool(threads);
        this.log = log;
        this.watched = watched;
    }

    /**
     * Starts writing to the exchange, beginning with {@code first}.
     *
     * @return false, without taking the exchange, when {@link #MAX_STREAMS} are open
     */
    synchronized boolean open(HttpExchange exchange, byte[] first) {
        if (streams.size() >= MAX_STREAMS) {
            return false;
        }
        Stream stream = new Stream(exchange);
        stream.offer(first);
        streams.add(stream);
        if (streams.size() == 1) {
            watched.accept(true);
        }
        writers.execute(stream);
        return true;
    }

    /** @return whether the stream was open until now */
    private synchronized boolean remove(Stream stream) {
        boolean removed = streams.remove(stream);
        if (removed && streams.isEmpty()) {
            watched.accept(false);
        }
        return removed;
    }

    /** Queues the event for every stream; never waits for one. Only from the one thread that makes the events. */
    void send(byte[] event) {
        long now = System.nanoTime();
        for (Stream stream : streams) {
            long since = stream.writingSince;
            if (since != 0 && now - since > WRITE_TIMEOUT.toNanos()) {
                drop(stream, "its last write has been waiting for more than " + WRITE_TIMEOUT.toSeconds() + " s");
            } else if (!stream.offer(event)) {
                drop(stream, "it fell more than " + MAX_QUEUED_BYTES / 1024 + " KiB of events behind");
            }
        }
    }

    int openCount() {
        return streams.size();
    }

    private void drop(Stream stream, String why) {
        if (remove(stream)) {
            stream.close();
            log.println(Instant.now() + " console dropped the event stream of "
                    + stream.exchange.getRemoteAddress().getAddress().getHostAddress() + ": " + why + " ("
                    + dropped.incrementAndGet() + " dropped since start)");
            log.flush();
        }
    }

    /** Ends every stream; whoever made them hears nothing more (they are closing too). */
    @Override
    public void close() {
        List<Stream> open;
        synchronized (this) {
            open = List.copyOf(streams);
            streams.clear();
        }
        open.forEach(Stream::close);
        writers.shutdownNow();
    }

    private final class Stream implements Runnable {
        private final HttpExchange exchange;
        private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
        private final AtomicLong queuedBytes = new AtomicLong();
        /** System.nanoTime() when the write under way began; 0 between writes. */
        private volatile long writingSince;
        /** Both under the stream's lock: an interrupt must reach this stream's writer, never a later task's. */
        private boolean closed;
        private Thread writer;

        Stream(HttpExchange exchange) {
            this.exchange = exchange;
        }

        boolean offer(byte[] event) {
            if (queuedBytes.addAndGet(event.length) > MAX_QUEUED_BYTES) {
                return false;
            }
            queue.add(event);
            return true;
        }

        /**
         * Interrupting the writer closes the connection: the server's socket channel is interruptible, so a write
         * blocked on a page that stopped reading ends at once.
         */
        synchronized void close() {
            closed = true;
            if (writer != null) {
                writer.interrupt();
            }
        }

        private synchronized boolean start() {
            writer = Thread.currentThread();
            return !closed;
        }

        private synchronized boolean end() {
            writer = null;
            return closed;
        }

        @Override
        public void run() {
            OutputStream body = exchange.getResponseBody();
            try {
                while (start()) {
                    byte[] event = queue.take();
                    queuedBytes.addAndGet(-event.length);
                    writingSince = System.nanoTime();
                    body.write(event);
                    body.flush();
                    writingSince = 0;
                }
            } catch (IOException | InterruptedException gone) {
                // the page left, or was dropped
            } finally {
                remove(this);
                // a dropped page may not read the stream's last chunk: with the interrupt set, closing closes the
                // connection at once instead of waiting to write it
                synchronized (this) {
                    if (closed) {
                        Thread.currentThread().interrupt();
                    }
                    exchange.close();
                }
                end();
                Thread.interrupted(); // the pool's thread goes back clean
            }
        }
    }
}
