package io.lodestar.redis;

import io.lodestar.core.model.Namespace;

import java.util.List;
import java.util.stream.Stream;

/**
 * The Redis ACL rules a Lodestar user needs, and no more (documented in docs/redis.md; LeastPrivilegeTest derives
 * the script commands from the scripts themselves, SecurityIT runs every script path as each user). Keys and shard
 * channels are limited to Lodestar's prefix (or to one namespace, {@link #forNamespace}); commands to those the
 * client and its scripts use.
 */
final class LeastPrivilege {
    /**
     * What Lettuce sends to set up a connection ({@code HELLO} authenticates too; {@code SELECT} for a database
     * number in the URI), check its health, and learn a cluster's topology ({@code CLUSTER NODES}, {@code INFO},
     * {@code CLUSTER MYID}): what SecurityIT and ClusterSecurityIT see it send, and no more.
     */
    static final List<String> CONNECTION = List.of(
            "+hello", "+ping", "+client|setname", "+select", "+info", "+cluster|nodes", "+cluster|myid");

    /**
     * What the client sends itself, outside a script: the scripts, the stamps of direct reads ({@code GET},
     * {@code HGET}, {@code HMGET}), its subscriptions, reads of a config's audit log ({@code XREVRANGE}) and of one
     * kept version of a config ({@code XRANGE}).
     */
    static final List<String> CLIENT = List.of(
            "+evalsha", "+eval", "+get", "+hget", "+hmget", "+ssubscribe", "+sunsubscribe", "+xrevrange", "+xrange");

    /** What the read scripts ({@code read_*.lua}) call, besides what {@link #CLIENT} holds: reads only. */
    static final List<String> READ_SCRIPTS = List.of(
            "+time", "+hlen", "+hgetall", "+hscan", "+zscore", "+zrange", "+zrangebyscore");

    /**
     * What the other scripts (writes, the sweep) call beyond that: the writes, and the reads only they make (the
     * sweep's {@code INFO replication} is granted with {@link #CONNECTION}).
     */
    static final List<String> OTHER_SCRIPTS = List.of(
            "+type", "+set", "+mget", "+mset", "+del", "+exists", "+pttl", "+pexpire", "+persist", "+hset", "+hdel",
            "+zadd", "+zrem", "+zremrangebyscore", "+spublish", "+xadd", "+xlen");

    private static final List<String> ALL_KEYS_AND_CHANNELS = List.of(
            "resetkeys", "~lodestar:*", "resetchannels", "&lodestar:*", "-@all");

    /**
     * A user that discovers, reads configs and listens, but can neither write a key nor publish an event, so it
     * cannot forge one: no write command and no {@code SPUBLISH} (the key pattern cannot be read-only, {@code %R~}:
     * Redis counts the keys of every EVALSHA as written). A write script it runs stops at its first command it may
     * not call, before anything changed. Its client does not sweep (it may not take the sweep lock) and fails every
     * write with a clear refusal.
     */
    static final List<String> READER_ACL_RULES = concat(ALL_KEYS_AND_CHANNELS, CONNECTION, CLIENT, READ_SCRIPTS);

    /** A user that does everything Lodestar does: the reader's rules plus what the writes and the sweep call. */
    static final List<String> ACL_RULES = concat(READER_ACL_RULES, OTHER_SCRIPTS);

    private LeastPrivilege() {
    }

    /**
     * The same rules limited to one namespace's keys and channels. Its keys start <code>lodestar:{ns}:</code> (its
     * indexes) or <code>lodestar:{ns:</code> (its services and configs); a pattern <code>lodestar:{ns*</code> would
     * also match every namespace whose name starts with {@code ns}.
     */
    static List<String> forNamespace(List<String> rules, Namespace namespace) {
        String name = namespace.name();
        return rules.stream().flatMap(rule -> switch (rule) {
            case "~lodestar:*" -> Stream.of("~lodestar:{" + name + "}:*", "~lodestar:{" + name + ":*");
            case "&lodestar:*" -> Stream.of("&lodestar:{" + name + "}:*", "&lodestar:{" + name + ":*");
            default -> Stream.of(rule);
        }).toList();
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        return Stream.of(parts).flatMap(List::stream).toList();
    }
}
