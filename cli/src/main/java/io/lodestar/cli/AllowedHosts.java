package io.lodestar.cli;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The host names the console answers to, checked against every request's {@code Host} and {@code Origin}, whatever
 * the address it listens on: a DNS-rebinding page reaches the console under the attacker's name, and a page of
 * another site sends its own origin.
 *
 * <p>Allowed: the loopback names, the IP addresses the console listens on (every address of the machine when bound
 * to a wildcard address: an IP literal cannot be rebound), and the names the operator gave with {@code --allow-host}
 * (a name people type into the browser: the console cannot know it).
 */
final class AllowedHosts {
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*");
    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");

    private final Set<String> names;
    private final Set<InetAddress> addresses;

    private AllowedHosts(Set<String> names, Set<InetAddress> addresses) {
        this.names = Set.copyOf(names);
        this.addresses = Set.copyOf(addresses);
    }

    /**
     * @param bind  the address listened on
     * @param given the operator's {@code --allow-host} values: host names or IP addresses, without port
     * @throws ExitCodes.UsageException naming the value when one is not a host name or IP address
     */
    static AllowedHosts of(InetAddress bind, List<String> given) {
        Set<String> names = new HashSet<>(Set.of("localhost"));
        Set<InetAddress> addresses = new HashSet<>();
        addresses.add(literal("127.0.0.1"));
        addresses.add(literal("::1"));
        if (bind.isAnyLocalAddress()) {
            addresses.addAll(localAddresses());
        } else {
            addresses.add(withoutScope(bind));
        }
        for (String host : given) {
            InetAddress address = literal(host);
            if (address != null) {
                addresses.add(address);
            } else if (NAME.matcher(host.toLowerCase(Locale.ROOT)).matches()) {
                names.add(host.toLowerCase(Locale.ROOT));
            } else {
                throw new ExitCodes.UsageException("--allow-host must be a host name or IP address without port,"
                        + " but was '" + host + "'");
            }
        }
        return new AllowedHosts(names, addresses);
    }

    /** Whether a {@code Host} header ({@code name[:port]}, {@code [v6][:port]}) names this console. */
    boolean allowsHostHeader(String host) {
        if (host == null || host.isEmpty()) {
            return false;
        }
        String name = host.startsWith("[") ? host.substring(0, Math.max(0, host.indexOf(']') + 1))
                : host.replaceFirst(":\\d*$", "");
        return allows(name);
    }

    /** Whether an {@code Origin} header is a page of this console ({@code null} and other schemes are not). */
    boolean allowsOrigin(String origin) {
        try {
            URI uri = new URI(origin);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && allows(uri.getHost());
        } catch (URISyntaxException notAnOrigin) {
            return false;
        }
    }

    private boolean allows(String host) {
        String lower = host.toLowerCase(Locale.ROOT);
        if (names.contains(lower)) {
            return true;
        }
        InetAddress address = literal(lower);
        return address != null && addresses.contains(address);
    }

    /** The address an IP literal names ({@code [v6]} too), or null for anything else: never a DNS lookup. */
    private static InetAddress literal(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean v6 = bare.contains(":") && bare.matches("[0-9a-fA-F:.]+");
        if (!v6 && !IPV4.matcher(bare).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(bare); // a literal: parsed, not resolved
        } catch (UnknownHostException notALiteral) {
            return null;
        }
    }

    private static InetAddress withoutScope(InetAddress address) {
        if (address instanceof Inet6Address v6 && v6.getScopeId() != 0) {
            try {
                return InetAddress.getByAddress(v6.getAddress());
            } catch (UnknownHostException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
        return address;
    }

    private static Set<InetAddress> localAddresses() {
        Set<InetAddress> all = new HashSet<>();
        try {
            for (NetworkInterface network : NetworkInterface.networkInterfaces().toList()) {
                network.inetAddresses().map(AllowedHosts::withoutScope).forEach(all::add);
            }
        } catch (SocketException e) {
            throw new ExitCodes.UsageException("cannot list this machine's addresses: " + e.getMessage());
        }
        return all;
    }
}
