package io.lodestar.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lodestar.core.LodestarException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One Lua script from {@code io/lodestar/redis/scripts/NAME.lua}. Runs by EVALSHA; when Redis does not know the
 * script (after a restart or failover: NOSCRIPT) it runs it once by EVAL, which also caches it again. A line
 * {@code --#include other.lua} is replaced by that resource, so helpers are written once.
 */
final class LuaScript {
    private static final String INCLUDE = "--#include ";

    private final String name;
    private final String body;
    private final String sha;

    private LuaScript(String name, String body) {
        this.name = name;
        this.body = body;
        this.sha = sha1(body);
    }

    static LuaScript load(String name) {
        return new LuaScript(name, expand(read(name + ".lua")));
    }

    String name() {
        return name;
    }

    String body() {
        return body;
    }

    String sha() {
        return sha;
    }

    <T> CompletionStage<T> run(RedisClusterAsyncCommands<String, String> redis, ScriptOutputType type,
                               String[] keys, String... args) {
        CompletableFuture<T> result = new CompletableFuture<>();
        redis.<T>evalsha(sha, type, keys, args).whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else if (unwrap(failure) instanceof RedisNoScriptException) {
                redis.<T>eval(body, type, keys, args).whenComplete((retried, again) -> {
                    if (again == null) {
                        result.complete(retried);
                    } else {
                        result.completeExceptionally(again);
                    }
                });
            } else {
                result.completeExceptionally(failure);
            }
        });
        return result;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable current = failure;
        while (current.getCause() != null && !(current instanceof RedisNoScriptException)) {
            current = current.getCause();
        }
        return current;
    }

    private static String expand(String source) {
        StringBuilder out = new StringBuilder(source.length() * 2);
        for (String line : source.split("\n", -1)) {
            if (line.startsWith(INCLUDE)) {
                out.append(read(line.substring(INCLUDE.length()).trim())).append('\n');
            } else {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static String read(String resource) {
        try (InputStream in = LuaScript.class.getResourceAsStream("scripts/" + resource)) {
            if (in == null) {
                throw new LodestarException("Lua script resource io/lodestar/redis/scripts/" + resource
                        + " is missing from the lodestar-redis jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new LodestarException("Cannot read Lua script " + resource, e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JDK", e);
        }
    }
}
