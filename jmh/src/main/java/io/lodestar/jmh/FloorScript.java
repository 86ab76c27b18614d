package io.lodestar.jmh;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.model.ServiceInstance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The fixed floor of the write benchmarks (issue 27): {@code floor_register.lua}, a script of this jar that does the
 * least a register-shaped write can do (TIME, HSET of 5 fields, ZADD, INCR, SADD, SPUBLISH), run by a plain
 * EVALSHA. Unlike the raw baselines ({@link RawRedis}), which run Lodestar's own scripts and so grow with them, it
 * never changes, so a write's Redis time divided by the floor's is comparable between runs and commits. Its keys
 * share the hash tag {@code {lodestar-floor:<namespace>}}, apart from Lodestar's keys.
 */
final class FloorScript {
    private static final String RESOURCE = "floor_register.lua";

    private final String sha;
    private final String instanceKeyPrefix;
    private final String deadlines;
    private final String revision;
    private final String ids;
    private final String events;

    private FloorScript(String sha, String namespace) {
        this.sha = sha;
        String tag = "lodestar-floor:{" + namespace + "}:";
        this.instanceKeyPrefix = tag + "instance:";
        this.deadlines = tag + "deadlines";
        this.revision = tag + "revision";
        this.ids = tag + "ids";
        this.events = tag + "events";
    }

    /** Loads the script into the server of {@code redis} (SCRIPT LOAD), for keys of {@code namespace}. */
    static FloorScript load(RedisCommands<String, String> redis, String namespace) {
        try (InputStream in = FloorScript.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the benchmarks' jar");
            }
            return new FloorScript(redis.scriptLoad(new String(in.readAllBytes(), StandardCharsets.UTF_8)),
                    namespace);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + RESOURCE, e);
        }
    }

    /**
     * Registers {@code instance} the floor's way: its fields, deadline, id and event, from what a client has (the
     * metadata map written as JSON in the call, as the raw baselines write theirs).
     *
     * @return the new revision
     */
    Long register(RedisCommands<String, String> redis, ServiceInstance instance) {
        String id = instance.instanceId();
        return redis.evalsha(sha, ScriptOutputType.INTEGER,
                new String[] {instanceKeyPrefix + id, deadlines, revision, ids, events},
                id, instance.host(), Integer.toString(instance.port()), Integer.toString(instance.weight()),
                RawRedis.json(instance.metadata()), Long.toString(instance.ttl().toMillis()));
    }
}
