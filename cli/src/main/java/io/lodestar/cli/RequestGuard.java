package io.lodestar.cli;

/**
 * Who may ask the console what (the threat model is in docs/cli.md): a request whose {@code Host} or {@code Origin}
 * is not a name the console answers to is refused, whatever the address it listens on (no DNS rebinding, no other
 * site's page); every API request needs a token in the {@code X-Lodestar-Token} header (a header, so another site's
 * form or image cannot send it), which names a {@link Users.User user}; what the user may do depends on their
 * {@link Users.Role role} in the namespace asked about; writes are refused in read-only mode.
 */
final class RequestGuard {
    /** The header that carries the token. */
    static final String TOKEN_HEADER = "X-Lodestar-Token";

    private final Access access;

    /**
     * Who may do what.
     *
     * @param users    the users and their roles, by token
     * @param readOnly refuse every write, whatever the role
     * @param hosts    the names and addresses requests may be addressed to and come from
     */
    record Access(Users users, boolean readOnly, AllowedHosts hosts) {
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
     * The user the request's token names.
     *
     * @param token the request's {@link #TOKEN_HEADER}, null when it has none
     * @return null when the token names nobody
     */
    Users.User user(String token) {
        return access.users().authenticate(token);
    }

    /**
     * Every read shows the registry or config contents: it needs a user with a role in the namespace.
     *
     * @param user as {@link #user} found them, null for nobody
     * @return null when the read may go on
     */
    Refusal checkRead(Users.User user, String namespace) {
        if (user == null) {
            return new Refusal(401, "token", "reading needs a token of this console", "no valid token");
        }
        if (user.roleIn(namespace) == null) {
            return new Refusal(403, "role", user.name() + " may not see namespace " + namespace,
                    "no role in " + namespace);
        }
        return null;
    }

    /**
     * A write needs a user whose role in the namespace allows it, and a console that is not read-only.
     *
     * @param user   as {@link #user} found them, null for nobody
     * @param needed the role the write needs
     * @return null when the write may go on
     */
    Refusal checkWrite(Users.User user, String namespace, Users.Role needed) {
        if (access.readOnly()) {
            return new Refusal(403, "read_only", "this console is read-only (--read-only)", "read-only");
        }
        if (user == null) {
            return new Refusal(401, "token", "a write needs a token of this console", "no valid token");
        }
        Users.Role role = user.roleIn(namespace);
        if (role == null || !role.allows(needed)) {
            return new Refusal(403, "role", "this needs the role " + needed.word() + " in namespace " + namespace
                    + ", and " + user.name() + " has " + (role == null ? "none" : role.word()),
                    "needs " + needed.word() + ", has " + (role == null ? "none" : role.word()));
        }
        return null;
    }

    /** Who the audit log names: the authenticated user (or {@code anonymous}) and the address they came from. */
    static String who(Users.User user, String address) {
        return (user == null ? "anonymous" : user.name()) + "@" + address;
    }
}
