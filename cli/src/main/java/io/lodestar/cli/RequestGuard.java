package io.lodestar.cli;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may ask the console what (the threat model is in docs/cli.md): a request whose {@code Host} or {@code Origin}
 * is not a name the console answers to is refused, whatever the address it listens on (no DNS rebinding, no other
 * site's page); every API request needs a token in the {@code X-Lodestar-Token} header (a header, so another site's
 * form or image cannot send it), compared in constant time: the read token allows reads, the write token reads and
 * writes; writes are refused in read-only mode.
 */
final class RequestGuard {
    /** The header that carries the token. */
    static final String TOKEN_HEADER = "X-Lodestar-Token";
    /** The header that carries the operator's name for the audit log. */
    static final String OPERATOR_HEADER = "X-Lodestar-Operator";

    private final Access access;

    /**
     * Who may do what.
     *
     * @param writeToken reads and writes (writes only when not read-only); never empty
     * @param readToken  reads only; null when there is none (then only the write token reads)
     * @param readOnly   refuse every write, whatever the token
     * @param hosts      the names and addresses requests may be addressed to and come from
     */
    record Access(String writeToken, String readToken, boolean readOnly, AllowedHosts hosts) {
        @Override
        public String toString() {
            return "Access[readOnly=" + readOnly + "]"; // never the tokens
        }
    }

    /**
     * Why a request is refused.
     *
     * @param status  the HTTP status of the answer
     * @param error   the answer's error code
     * @param message the answer's message
     * @param reason  in a few words, for the audit log of a refused write
     */
    record Refusal(int status, String error, String message, String reason) {
    }

    RequestGuard(Access access) {
        this.access = access;
    }

    boolean readOnly() {
        return access.readOnly();
    }

    /**
     * @param host   the request's {@code Host} header
     * @param origin its {@code Origin} header, null when it has none
     * @return null when the request is addressed to, and comes from, a name the console answers to
     */
    Refusal checkOrigin(String host, String origin) {
        if (!access.hosts().allowsHostHeader(host)
                || origin != null && !access.hosts().allowsOrigin(origin)) {
            return new Refusal(403, "forbidden", "this console answers only to the host names it was given"
                    + " (--allow-host) and to pages it served itself", "foreign host or origin");
        }
        return null;
    }

    /**
     * Every read shows the registry or config contents: it needs the read or the write token.
     *
     * @param given the request's {@link #TOKEN_HEADER}, null when it has none
     * @return null when the read may go on
     */
    Refusal checkRead(String given) {
        if (!matches(given, access.readToken()) && !matches(given, access.writeToken())) {
            return new Refusal(401, "token", "reading needs the console's read or write token", "no token");
        }
        return null;
    }

    /**
     * A write needs the write token, and a console that is not read-only.
     *
     * @param given the request's {@link #TOKEN_HEADER}, null when it has none
     * @return null when the write may go on
     */
    Refusal checkWrite(String given) {
        if (access.readOnly()) {
            return new Refusal(403, "read_only", "this console is read-only (--read-only)", "read-only");
        }
        if (!matches(given, access.writeToken())) {
            return new Refusal(401, "token", "a write needs the console's write token (a read token only reads)",
                    "no valid token");
        }
        return null;
    }

    /**
     * The operator's name as the page sends it (unverified, for the log: letters, digits and {@code ._@-} only, at
     * most 64 of them) and the address the request came from.
     *
     * @param operator the request's {@link #OPERATOR_HEADER}, null when it has none
     */
    static String who(String operator, String address) {
        String name = operator == null || operator.isBlank() ? "anonymous"
                : operator.replaceAll("[^\\p{Alnum}._@-]", "_");
        if (name.length() > 64) {
            name = name.substring(0, 64);
        }
        return name + "@" + address;
    }

    /** Constant time: how much of a token a guess got right does not show in the answer's timing. */
    private static boolean matches(String given, String token) {
        return given != null && token != null && !token.isEmpty() && MessageDigest.isEqual(
                given.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
    }
}
