package io.lodestar.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lodestar.core.LodestarException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Lua script from {@code io/lodestar/redis/scripts/NAME.lua}. Runs by EVALSHA; when Redis does not know the
 * script (after a restart or failover: NOSCRIPT) it runs it once by EVAL, which also caches it again. A line
 * {@code --#include other.lua} is replaced by that resource, so helpers are written once; the helpers a script
 * does not call are then left out ({@link #withoutUnusedHelpers}), since Redis runs a script's whole text on every
 * call and each function it defines costs that call a closure.
 *
 * <p>A script checks no key's type on its usual path (each key's first command is a read, before any write, or the
 * script's first write: a key of another type stops it before it writes). When Redis answers WRONGTYPE, this class
 * looks up which of the script's keys holds another type than Lodestar keeps there ({@link Keys#keptType}) and fails
 * with an error that names it: the cost of naming the key is paid on the error path only.
 */
final class LuaScript {
    private static final String INCLUDE = "--#include ";
    private static final Pattern HELPER = Pattern.compile("local function (\\w+)\\(");

    private final String name;
    private final String body;
    private final String sha;

    private LuaScript(String name, String body) {
        this.name = name;
        this.body = body;
        this.sha = Digests.sha1Hex(body);
    }

    static LuaScript load(String name) {
        return new LuaScript(name, withoutUnusedHelpers(expand(read(name + ".lua"))));
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
                        fail(result, redis, keys, again);
                    }
                });
            } else {
                fail(result, redis, keys, failure);
            }
        });
        return result;
    }

    /** Fails with the failure, a WRONGTYPE error replaced by one that names the key (see the class comment). */
    private static void fail(CompletableFuture<?> result, RedisClusterAsyncCommands<String, String> redis,
                             String[] keys, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (!(cause instanceof RedisCommandExecutionException)
                || !String.valueOf(cause.getMessage()).contains("WRONGTYPE Operation")) {
            result.completeExceptionally(failure);
            return;
        }
        List<CompletableFuture<String>> types = new ArrayList<>();
        for (String key : keys) {
            types.add(Keys.keptType(key) == null ? CompletableFuture.completedFuture(null)
                    : redis.type(key).toCompletableFuture());
        }
        CompletableFuture.allOf(types.toArray(CompletableFuture[]::new)).whenComplete((ignored, typeFailure) -> {
            for (int i = 0; typeFailure == null && i < keys.length; i++) {
                String have = types.get(i).join();
                String want = Keys.keptType(keys[i]);
                if (have != null && !"none".equals(have) && !have.equals(want)) {
                    result.completeExceptionally(new RedisCommandExecutionException("WRONGTYPE " + keys[i] + " is a "
                            + have + " where Lodestar keeps a " + want, cause));
                    return;
                }
            }
            result.completeExceptionally(failure); // nothing to name (the key was repaired meanwhile)
        });
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
                // a helper file may include others (common.lua is its parts, see there)
                out.append(expand(read(line.substring(INCLUDE.length()).trim())));
            } else {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    /**
     * The script without the top-level helpers ({@code local function name(} at the start of a line, up to the next
     * line that is {@code end}) that no code outside them names, repeated until every helper left is named: a helper
     * only other unused helpers call goes too. Comments do not count as naming one (they often say "see name").
     */
    static String withoutUnusedHelpers(String script) {
        List<String> lines = new ArrayList<>(List.of(script.split("\n", -1)));
        for (boolean pruned = true; pruned; ) {
            pruned = false;
            for (int start = 0; start < lines.size() && !pruned; start++) {
                Matcher helper = HELPER.matcher(lines.get(start));
                if (!helper.lookingAt()) {
                    continue;
                }
                int end = lines.subList(start, lines.size()).indexOf("end") + start;
                if (end < start) {
                    throw new LodestarException("Lua helper " + helper.group(1) + " has no 'end' line");
                }
                Pattern call = Pattern.compile("\\b" + Pattern.quote(helper.group(1)) + "\\b");
                boolean named = false;
                for (int i = 0; i < lines.size() && !named; i++) {
                    named = (i < start || i > end) && call.matcher(code(lines.get(i))).find();
                }
                if (!named) {
                    lines.subList(start, end + 1).clear();
                    pruned = true;
                }
            }
        }
        return String.join("\n", lines);
    }

    /** A line without its comment: a whole-line comment, or one after " -- " (no script has that in a string). */
    private static String code(String line) {
        if (line.stripLeading().startsWith("--")) {
            return "";
        }
        int comment = line.indexOf(" -- ");
        return comment < 0 ? line : line.substring(0, comment);
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

}
