package io.lodestar.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocketFactory;

/**
 * A minimal blocking RESP2 client for the kit's own control commands (PING, INFO, CLIENT KILL, CLUSTER …).
 *
 * <p>Why not Lettuce: the kit polls freshly started processes many times a second, and a plain socket with a
 * short timeout is cheaper and has no event loops to shut down. Tests use Lettuce against the servers.
 */
final class Resp implements AutoCloseable {

    /** An error reply ({@code -ERR …}) from the server. */
    static final class ErrorReply extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Resp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to a plain, password-less server (the kit's own processes). */
    static Resp connect(String host, int port, Duration timeout) throws IOException {
        return connect(RedisEndpoint.plain(host, port), timeout);
    }

    /** Connects, upgrades to TLS for {@code rediss://}, authenticates and selects the database of the endpoint. */
    static Resp connect(RedisEndpoint endpoint, Duration timeout) throws IOException {
        return connect(endpoint, timeout, null);
    }

    /**
     * Like {@link #connect(RedisEndpoint, Duration)}, with the sockets for {@code rediss://} made by {@code tls}
     * ({@code null}: the JVM's default, which trusts the JVM's CAs), e.g. one that trusts a test CA.
     */
    static Resp connect(RedisEndpoint endpoint, Duration timeout, SSLSocketFactory tls) throws IOException {
        int millis = (int) Math.max(1, timeout.toMillis());
        Socket plain = new Socket();
        Resp resp = null;
        try {
            plain.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), millis);
            plain.setSoTimeout(millis);
            plain.setTcpNoDelay(true);
            SSLSocketFactory factory = tls != null ? tls : (SSLSocketFactory) SSLSocketFactory.getDefault();
            Socket socket = endpoint.tls() ? factory.createSocket(plain, endpoint.host(), endpoint.port(), true)
                    : plain;
            resp = new Resp(socket);
            if (endpoint.password() != null) {
                if (endpoint.user() != null) {
                    resp.call("AUTH", endpoint.user(), endpoint.password());
                } else {
                    resp.call("AUTH", endpoint.password());
                }
            }
            if (endpoint.database() != 0) {
                resp.call("SELECT", Integer.toString(endpoint.database()));
            }
            return resp;
        } catch (IOException | RuntimeException e) {
            if (resp != null) {
                resp.close();
            } else {
                plain.close();
            }
            throw e;
        }
    }

    /**
     * Sends one command and reads its reply: {@code String} for simple and bulk strings, {@code Long} for
     * integers, {@code List<Object>} for arrays, {@code null} for nil.
     *
     * @throws ErrorReply if the server answers with an error
     * @throws IOException on any I/O failure or timeout
     */
    Object call(String... args) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        buf.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            buf.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            buf.writeBytes(bytes);
            buf.writeBytes(new byte[] {'\r', '\n'});
        }
        out.write(buf.toByteArray());
        out.flush();
        Object reply = read();
        if (reply instanceof ErrorReply error) {
            throw new ErrorReply(error.getMessage() + " (command " + args[0] + ")");
        }
        return reply;
    }

    /** Like {@link #call} but expects a string reply. */
    String callString(String... args) throws IOException {
        Object reply = call(args);
        if (reply instanceof String s) {
            return s;
        }
        throw new IOException("Expected a string reply to " + args[0] + ", but was " + reply);
    }

    /** Like {@link #call} but expects an integer reply. */
    long callLong(String... args) throws IOException {
        Object reply = call(args);
        if (reply instanceof Long l) {
            return l;
        }
        throw new IOException("Expected an integer reply to " + args[0] + ", but was " + reply);
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("Connection closed by server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                if (bytes.length != length + 2) {
                    throw new EOFException("Connection closed inside a bulk reply");
                }
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("Unexpected RESP type byte '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("Connection closed inside a reply line");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing a control connection cannot fail in a way the caller could act on.
        }
    }
}
