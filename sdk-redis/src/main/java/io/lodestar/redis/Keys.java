package io.lodestar.redis;

import io.lodestar.core.model.Namespace;

/**
 * The Redis key layout, all of it. Every key of one service shares the hash tag {@code {ns:service}}, so one
 * service lives in one cluster slot and different services spread over the cluster; every key of one config
 * entry shares {@code {ns:cfg:id}}; the namespace's own indexes share {@code {ns}}. Ids never contain
 * {@code :} or braces (see {@link io.lodestar.core.internal.Validation}), so tags cannot collide.
 *
 * <pre>
 * lodestar:{ns:svc}:instances      HASH   instance id -&gt; instance JSON
 * lodestar:{ns:svc}:deadlines      ZSET   instance id -&gt; deadline (epoch ms, Redis time); ephemeral only
 * lodestar:{ns:svc}:revision       STRING service revision, +1 per change
 * lodestar:{ns:svc}:digest         STRING SHA-1 chaining every event of the service (see common.lua)
 * lodestar:{ns:svc}:incarnation    STRING random id of these keys, made by the first write (see common.lua)
 * lodestar:{ns:svc}:events         shard channel of the service's events
 * lodestar:{ns:svc}:tombstones     ZSET   instance id -&gt; until (epoch ms): deregistered or evicted on purpose
 * lodestar:{ns}:services           HASH   service id -&gt; last reported revision (negative: removed at that revision)
 * lodestar:{ns}:services:revision  STRING index revision
 * lodestar:{ns}:services:events    shard channel of "added"/"removed" services
 * lodestar:{ns}:services:incarnation STRING random id of the index's keys (see common.lua)
 * lodestar:{ns}:sweeper            STRING short lock: which client sweeps this interval
 * lodestar:{ns}:outage             STRING when a client last came back from an outage (epoch ms, Redis time)
 * lodestar:{ns:cfg:id}:current     HASH   the current entry: version, format, hash, createdAt, updatedAt, content
 * lodestar:{ns:cfg:id}:history     HASH   version -&gt; entry JSON, the newest N content versions
 * lodestar:{ns:cfg:id}:versions    ZSET   the version numbers kept in history (score = version)
 * lodestar:{ns:cfg:id}:revision    STRING version counter: +1 per set, rollback or remove; survives a remove
 * lodestar:{ns:cfg:id}:incarnation STRING random id of these keys, made by the first write (see common.lua)
 * lodestar:{ns:cfg:id}:events      shard channel of the entry's events ("changed", "rolledback", "removed")
 * lodestar:{ns}:configs            HASH   config id -&gt; last reported version (negative: removed at that version)
 * lodestar:{ns}:configs:revision   STRING config index revision: +1 per config added or removed
 * lodestar:{ns}:configs:events     shard channel of "added"/"removed" configs of the namespace
 * lodestar:{ns}:configs:incarnation STRING random id of the config index's keys (see common.lua)
 * </pre>
 */
final class Keys {
    static final String PREFIX = "lodestar:";

    private final String namespaceTag;
    private final String namespace;

    Keys(Namespace namespace) {
        this.namespace = namespace.name();
        this.namespaceTag = PREFIX + "{" + namespace.name() + "}:";
    }

    /** Keys of one service, in the order every service script expects them. */
    ServiceKeys service(String serviceId) {
        String tag = PREFIX + "{" + namespace + ":" + serviceId + "}:";
        return new ServiceKeys(tag + "instances", tag + "deadlines", tag + "revision", tag + "events",
                tag + "tombstones", tag + "digest", tag + "incarnation");
    }

    /** Keys of the namespace's service index: index hash, index revision, index channel, incarnation. */
    IndexKeys services() {
        return new IndexKeys(namespaceTag + "services", namespaceTag + "services:revision",
                namespaceTag + "services:events", namespaceTag + "services:incarnation");
    }

    /** Keys of one config entry. */
    ConfigKeys config(String configId) {
        String tag = PREFIX + "{" + namespace + ":cfg:" + configId + "}:";
        return new ConfigKeys(tag + "current", tag + "history", tag + "versions", tag + "revision", tag + "events",
                tag + "incarnation");
    }

    /** Keys of the namespace's config index: index hash, index revision, index channel, incarnation. */
    IndexKeys configs() {
        return new IndexKeys(namespaceTag + "configs", namespaceTag + "configs:revision",
                namespaceTag + "configs:events", namespaceTag + "configs:incarnation");
    }

    /** The lock that elects one sweeper per namespace and interval. */
    String sweeperLock() {
        return namespaceTag + "sweeper";
    }

    /** When a client of the namespace last came back from an outage: the sweep's grace starts there. */
    String outage() {
        return namespaceTag + "outage";
    }

    record ServiceKeys(String instances, String deadlines, String revision, String channel, String tombstones,
                       String digest, String incarnation) {
        /** Every key of the service, in the order every service write script expects them. */
        String[] all() {
            return new String[] {instances, deadlines, revision, channel, tombstones, digest, incarnation};
        }

        String[] forRead() {
            return new String[] {instances, deadlines, revision, digest, incarnation};
        }
    }

    record IndexKeys(String index, String revision, String channel, String incarnation) {
        String[] all() {
            return new String[] {index, revision, channel, incarnation};
        }

        String[] forRead() {
            return new String[] {index, revision, incarnation};
        }
    }

    record ConfigKeys(String current, String history, String versions, String revision, String channel,
                      String incarnation) {
        /** Every key of the entry, in the order the config write scripts expect them. */
        String[] all() {
            return new String[] {current, history, versions, revision, channel, incarnation};
        }

        String[] forRead() {
            return new String[] {current, revision, incarnation};
        }

        String[] forHistory() {
            return new String[] {history, versions};
        }

        String[] forReplay() {
            return new String[] {current, revision, history, versions, incarnation};
        }
    }
}
