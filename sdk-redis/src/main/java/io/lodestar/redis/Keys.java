package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.lodestar.core.model.Namespace;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The Redis key layout, all of it. Services are spread over {@value #BUCKETS} buckets (CRC-32 of the service id's
 * UTF-8 bytes, modulo {@value #BUCKETS}); every key of the services of one bucket shares the hash tag
 * {@code {ns:svc:bucket}}, so one service lives in one cluster slot, different buckets spread over the cluster, and
 * a bucket can keep an index of when each of its services next needs the sweep (its {@code due} set) that every
 * service write updates in the same script. Every key of one config entry shares {@code {ns:cfg:id}}; the
 * namespace's own indexes share {@code {ns}}. Ids never contain {@code :} or braces (see
 * {@link io.lodestar.core.internal.Validation}), so tags and keys cannot collide.
 *
 * <pre>
 * lodestar:{ns:svc:b}:svc:instances   HASH   instance id -&gt; instance JSON, and the service's stamp under fields
 *                                            no instance id can have (ids start with a letter or digit):
 *                                            :revision (+1 per change), :digest (of the last event: the writer's
 *                                            token of that write, see publish in stamps.lua) and :incarnation
 *                                            (random id of this hash, made by the first write), see read_service
 * lodestar:{ns:svc:b}:svc:deadlines   ZSET   instance id -&gt; deadline (epoch ms, Redis time); ephemeral only
 * lodestar:{ns:svc:b}:svc:events      shard channel of the service's events
 * lodestar:{ns:svc:b}:svc:tombstones  ZSET   instance id -&gt; until (epoch ms): deregistered or evicted on purpose
 * lodestar:{ns:svc:b}:due             ZSET   instances key of a service -&gt; when the sweep should look at it
 *                                            (epoch ms, Redis time): its earliest deadline, or the time of a write
 *                                            that made it appear or vanish (see file_due in common.lua)
 * lodestar:{ns:svc:b}:master          HASH   the Redis master the bucket's sweep last ran on (id = its replication id,
 *                                            seen = when), and after a change since when and from which deadline
 *                                            on the sweep spares overdue instances (see sweep_service.lua)
 * lodestar:{ns}:services           HASH   service id -&gt; last reported revision (negative: removed at that revision)
 * lodestar:{ns}:services:revision  STRING index revision
 * lodestar:{ns}:services:events    shard channel of "added"/"removed" services
 * lodestar:{ns}:services:incarnation STRING random id of the index's keys (see common.lua)
 * lodestar:{ns}:sweeper            STRING short lock: which client sweeps this interval
 * lodestar:{ns}:sweeper:full       STRING when the sweeper next looks at every service, not only the due ones
 * lodestar:{ns}:outage             STRING the outages clients noted: "began:ended,..." (epoch ms, Redis time; see
 *                                         elect_sweeper.lua)
 * lodestar:{ns:cfg:id}:current     HASH   the current entry: version, format, hash, createdAt, updatedAt, content
 *                                         (absent after a remove), and the entry's stamp: :revision (version
 *                                         counter: +1 per set, rollback or remove; survives a remove) and
 *                                         :incarnation (random id of these keys, made by the first write)
 * lodestar:{ns:cfg:id}:history     STREAM one stream entry per content version, ID &lt;version&gt;-0, field entry
 *                                         = the entry JSON; the newest N kept (see config_common.lua)
 * lodestar:{ns:cfg:id}:events      shard channel of the entry's events ("changed", "rolledback", "removed")
 * lodestar:{ns:cfg:id}:applied     HASH   client id -&gt; the version and variant it applied, when, and who it is
 *                                         (see record_applied.lua); expires with its longest-lived record
 * lodestar:{ns:cfg:id}:applied-until ZSET client id -&gt; when its record expires unless renewed (epoch ms, Redis
 *                                         time)
 * lodestar:{ns:cfg:id}:log         STREAM the entry's audit trail: one record per write (op, client, host, hash,
 *                                         prev, version), about the newest 1000 kept (see config_common.lua)
 * lodestar:{ns:cfg:id}:gray        STRING the running gray release as JSON (see config_common.lua)
 * lodestar:{ns:cfg:id}:gray:revision STRING gray release counter: +1 per start, update, promote, abort
 * lodestar:{ns:cfg:id}:gray:events shard channel of the gray release's events ("gray", "promoted", "aborted")
 * lodestar:{ns}:configs            HASH   config id -&gt; last reported version (negative: removed at that version)
 * lodestar:{ns}:configs:revision   STRING config index revision: +1 per config added or removed
 * lodestar:{ns}:configs:events     shard channel of "added"/"removed" configs of the namespace
 * lodestar:{ns}:configs:incarnation STRING random id of the config index's keys (see common.lua)
 * </pre>
 */
final class Keys {
    static final String PREFIX = "lodestar:";
    /**
     * How many buckets the services of a namespace are spread over. Part of the layout: every client of a namespace
     * must agree on it. The sweep reads each bucket's due set once per interval, so this bounds its idle cost.
     */
    static final int BUCKETS = 128;
    /**
     * The fields of a stamp in its hash: a service's in its instances hash (see read_service in stamps.lua), a config
     * entry's (revision and incarnation) in its current hash (see config_common.lua).
     */
    static final String REVISION_FIELD = ":revision";
    static final String DIGEST_FIELD = ":digest";
    static final String INCARNATION_FIELD = ":incarnation";
    private static final String INSTANCES = ":instances";

    /** Service keys recently used: a write or read need not build five strings and a checksum each call. */
    private static final int CACHED_SERVICES = 10_000;

    private final String namespaceTag;
    private final String namespace;
    private final Cache<String, ServiceKeys> services = Caffeine.newBuilder().maximumSize(CACHED_SERVICES).build();

    Keys(Namespace namespace) {
        this.namespace = namespace.name();
        this.namespaceTag = PREFIX + "{" + namespace.name() + "}:";
    }

    /** Keys of one service, in the order every service script expects them. */
    ServiceKeys service(String serviceId) {
        return services.get(serviceId, this::layOut);
    }

    private ServiceKeys layOut(String serviceId) {
        String bucketTag = bucketTag(bucket(serviceId));
        String service = bucketTag + serviceId;
        return new ServiceKeys(service + INSTANCES, service + ":deadlines", service + ":events",
                service + ":tombstones", bucketTag + "due");
    }

    /** The bucket of a service: CRC-32 of its id's UTF-8 bytes, modulo {@link #BUCKETS}. */
    static int bucket(String serviceId) {
        CRC32 crc = new CRC32();
        crc.update(serviceId.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % BUCKETS);
    }

    /** The due set of one bucket: which of its services the sweep should look at, and from when. */
    String due(int bucket) {
        return bucketTag(bucket) + "due";
    }

    /**
     * Which Redis master the sweep of a bucket last ran on, and since when the sweep spares its overdue instances
     * after that master changed (a failover, a restart; see sweep_service.lua).
     */
    String master(int bucket) {
        return bucketTag(bucket) + "master";
    }

    /**
     * The service a member of a bucket's due set names (the member is the service's instances key), or null when
     * the member is not of this layout (written by another program). The id still needs validating.
     */
    String serviceOfDue(int bucket, String member) {
        String tag = bucketTag(bucket);
        if (!member.startsWith(tag) || !member.endsWith(INSTANCES)) {
            return null;
        }
        String serviceId = member.substring(tag.length(), member.length() - INSTANCES.length());
        return bucket(serviceId) == bucket ? serviceId : null;
    }

    private String bucketTag(int bucket) {
        return PREFIX + "{" + namespace + ":svc:" + bucket + "}:";
    }

    /**
     * The Redis type Lodestar keeps at a key of this layout (hash, zset or string), from its role (the name after its
     * last ':'); null for a channel or a key no write script passes. Names the key of a WRONGTYPE error (see
     * {@link LuaScript}).
     */
    static String keptType(String key) {
        return switch (key.substring(key.lastIndexOf(':') + 1)) {
            case "instances", "current", "services", "configs", "applied" -> "hash";
            case "deadlines", "tombstones", "due", "applied-until" -> "zset";
            case "revision", "incarnation", "gray" -> "string";
            case "log", "history" -> "stream";
            default -> null;
        };
    }

    /** Keys of the namespace's service index: index hash, index revision, index channel, incarnation. */
    IndexKeys services() {
        return new IndexKeys(namespaceTag + "services", namespaceTag + "services:revision",
                namespaceTag + "services:events", namespaceTag + "services:incarnation");
    }

    /** Keys of one config entry. */
    ConfigKeys config(String configId) {
        String tag = PREFIX + "{" + namespace + ":cfg:" + configId + "}:";
        return new ConfigKeys(tag + "current", tag + "history", tag + "events", tag + "log", tag + "gray",
                tag + "gray:revision", tag + "gray:events");
    }

    /** Who runs a config: the applied hash and its expiry set, in the order the applied scripts expect them. */
    String[] applied(String configId) {
        String tag = PREFIX + "{" + namespace + ":cfg:" + configId + "}:";
        return new String[] {tag + "applied", tag + "applied-until"};
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

    /** When the elected sweeper next makes a full pass (every service, not only the due ones). */
    String fullSweep() {
        return namespaceTag + "sweeper:full";
    }

    /** The outages clients of the namespace noted, which the sweep's grace follows (see elect_sweeper.lua). */
    String outage() {
        return namespaceTag + "outage";
    }

    /**
     * Whether a field of a service's instances hash is one of the service's stamp (whose names start with ':'), not
     * an instance: instance ids start with a letter or digit.
     */
    static boolean isStampField(Object field) {
        return field instanceof String name && name.startsWith(":");
    }

    record ServiceKeys(String instances, String deadlines, String channel, String tombstones, String due) {
        /** Every key of the service and its bucket's due set, in the order every service write script expects. */
        String[] all() {
            return new String[] {instances, deadlines, channel, tombstones, due};
        }

        String[] forRead() {
            return new String[] {instances, deadlines};
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

    record ConfigKeys(String current, String history, String channel, String log, String gray, String grayRevision,
                      String grayChannel) {
        /** Every key of the entry, in the order the config write scripts expect them (config_keys in Lua). */
        String[] all() {
            return new String[] {current, history, channel, log, gray, grayRevision, grayChannel};
        }

        /** The gray release, its counter and the current hash (the entry's incarnation), for read_gray.lua. */
        String[] forGray() {
            return new String[] {gray, grayRevision, current};
        }

        String[] forRead() {
            return new String[] {current};
        }

        String[] forHistory() {
            return new String[] {history};
        }

        String[] forReplay() {
            return new String[] {current, history};
        }
    }
}
