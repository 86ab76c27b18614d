package io.lodestar.redis;

import java.util.List;
import java.util.stream.Stream;

/**
 * The Redis ACL rules a Lodestar user needs, and no more (documented in docs/redis.md; SecurityIT proves them).
 * Keys and shard channels are limited to Lodestar's prefix; commands to those the client and its scripts use.
 */
final class LeastPrivilege {
    /**
     * A user that discovers, reads configs and listens, but can neither write a key nor publish an event, so it
     * cannot forge one: no write command and no {@code SPUBLISH} (the key pattern cannot be read-only, {@code %R~}:
     * Redis counts the keys of every EVALSHA as written). A write script it runs stops at its first write, before
     * anything changed. Its client does not sweep (it may not take the sweep lock) and fails every write with a clear
     * refusal.
     */
    static final List<String> READER_ACL_RULES = List.of(
            "resetkeys", "~lodestar:*",
            "resetchannels", "&lodestar:*",
            "-@all",
            // connection set-up and health
            "+auth", "+hello", "+ping", "+client|setname", "+select", "+info",
            // cluster topology (Lettuce reads it to route commands)
            "+cluster|slots", "+cluster|nodes", "+cluster|shards", "+cluster|myid", "+readonly", "+command",
            // the scripts, and the reads they call
            "+evalsha", "+eval", "+script|load",
            "+time", "+type", "+get", "+mget", "+exists",
            "+hget", "+hlen", "+hgetall", "+hkeys", "+hexists", "+hmget",
            "+zscore", "+zrangebyscore", "+zrange", "+zcard", "+zrevrange", "+zrevrangebyscore",
            // events
            "+ssubscribe", "+sunsubscribe");

    /** A user that does everything Lodestar does: the reader's rules plus the writes the scripts make. */
    static final List<String> ACL_RULES = Stream.concat(READER_ACL_RULES.stream(), Stream.of(
            "+set", "+mset", "+incr", "+del", "+pttl", "+pexpire",
            "+hset", "+hdel", "+hincrby",
            "+zadd", "+zrem", "+zpopmin", "+zremrangebyrank", "+zremrangebyscore",
            "+spublish")).toList();

    private LeastPrivilege() {
    }
}
