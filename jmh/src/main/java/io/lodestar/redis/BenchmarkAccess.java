package io.lodestar.redis;

import io.lodestar.core.model.Namespace;

/**
 * What the raw baselines of the benchmarks need from Lodestar's internals: the key layout ({@link Keys}) and the
 * scripts as Redis runs them ({@link LuaScript}, includes expanded). It sits in Lodestar's package, in the
 * benchmarks' jar only, so that the baselines use the layout and scripts themselves rather than a copy that could
 * drift from them.
 */
public final class BenchmarkAccess {
    private BenchmarkAccess() {
    }

    /** The keys of one service, in the order every service write script expects them. */
    public static String[] serviceKeys(String namespace, String serviceId) {
        return new Keys(Namespace.of(namespace)).service(serviceId).all();
    }

    /** The keys a read of one service passes (read_service_page.lua). */
    public static String[] serviceReadKeys(String namespace, String serviceId) {
        return new Keys(Namespace.of(namespace)).service(serviceId).forRead();
    }

    /** The shard channel of a service's events. */
    public static String serviceChannel(String namespace, String serviceId) {
        return new Keys(Namespace.of(namespace)).service(serviceId).channel();
    }

    /** The keys of one config entry, in the order the config write scripts expect them. */
    public static String[] configKeys(String namespace, String configId) {
        return new Keys(Namespace.of(namespace)).config(configId).all();
    }

    /** The hash Lodestar passes with a plain config content (set_config.lua's ARGV[6]). */
    public static String contentHash(String content) {
        return Digests.sha1Hex(content);
    }

    /** The text of script {@code name} as Lodestar sends it to Redis. */
    public static String script(String name) {
        return LuaScript.load(name).body();
    }
}
