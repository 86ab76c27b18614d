package io.lodestar.redis;

import java.util.List;

/**
 * The Redis ACL rules a Lodestar user needs, and no more (documented in docs/redis.md; SecurityIT proves them).
 * Keys and shard channels are limited to Lodestar's prefix; commands to those the client and its scripts use.
 */
final class LeastPrivilege {
    static final List<String> ACL_RULES = List.of(
            "resetkeys", "~lodestar:*",
            "resetchannels", "&lodestar:*",
            "-@all",
            // connection set-up and health
            "+auth", "+hello", "+ping", "+client|setname", "+select", "+info",
            // cluster topology (Lettuce reads it to route commands)
            "+cluster|slots", "+cluster|nodes", "+cluster|shards", "+cluster|myid", "+readonly", "+command",
            // scripts, and what they call
            "+evalsha", "+eval", "+script|load",
            "+time", "+type", "+get", "+mget", "+set", "+incr", "+exists", "+del", "+pttl", "+pexpire",
            "+hget", "+hset", "+hdel", "+hlen", "+hgetall", "+hkeys", "+hexists", "+hmget", "+hincrby",
            "+zadd", "+zrem", "+zscore", "+zrangebyscore", "+zrange", "+zremrangebyrank", "+zremrangebyscore",
            "+zcard", "+zrevrange",
            // events
            "+spublish", "+ssubscribe", "+sunsubscribe");

    private LeastPrivilege() {
    }
}
