package io.lodestar.test;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where a server listens and how to log in, parsed from a {@code redis://} or {@code rediss://} URI
 * ({@code redis://[[user:]password@]host[:port][/database]}, as Lettuce reads it).
 */
record RedisEndpoint(String uri, String host, int port, boolean tls, String user, String password, int database) {

    /** The port Redis uses when a URI names none. */
    static final int DEFAULT_PORT = 6379;

    static RedisEndpoint plain(String host, int port) {
        return new RedisEndpoint("redis://" + host + ":" + port, host, port, false, null, null, 0);
    }

    /**
     * Parses a standalone Redis URI.
     *
     * @throws IllegalArgumentException if the text is not a {@code redis://} or {@code rediss://} URI with a host
     */
    static RedisEndpoint parse(String text, String source) {
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    source + " must be a redis:// or rediss:// URI, but was '" + text + "'", e);
        }
        String scheme = uri.getScheme();
        if (!"redis".equalsIgnoreCase(scheme) && !"rediss".equalsIgnoreCase(scheme)) {
            throw new IllegalArgumentException(
                    source + " must be a redis:// or rediss:// URI, but was '" + text + "'");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException(source + " must name a host, but was '" + text + "'");
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort();
        String user = null;
        String password = null;
        String userInfo = uri.getUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                password = userInfo;
            } else {
                user = colon == 0 ? null : userInfo.substring(0, colon);
                password = userInfo.substring(colon + 1);
            }
        }
        int database = 0;
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        source + " database must be a number, but was '" + path.substring(1) + "'", e);
            }
        }
        return new RedisEndpoint(text.trim(), host, port, "rediss".equalsIgnoreCase(scheme), user, password,
                database);
    }

    /** The URI without its password, for messages and logs. */
    String redacted() {
        return password == null ? uri : uri.replace(password, "***");
    }

    @Override
    public String toString() {
        return redacted();
    }
}
