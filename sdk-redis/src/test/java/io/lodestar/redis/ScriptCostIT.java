package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each write script costs Redis, in commands per call (counted by {@code INFO commandstats} around a known
 * number of calls on a private Redis): every path of every write, in a steady state (a service with instances whose
 * due entry is filed at their earliest deadline, a config with history). A count above the one recorded here fails:
 * a new guarantee that costs commands is then a decision, taken by raising its record in the same change (see
 * docs/redis.md, "What a write costs Redis"). No path checks a key's type on its usual path.
 */
class ScriptCostIT extends PrivateRedisTest {
    private static final int CALLS = 30;
    private static final String OWNER = "0123456789abcdef";
    private static final int HISTORY = 10;
    /** The calls of the scripts themselves (EVAL once, when Redis does not have the script yet) and of this test. */
    private static final Set<String> SCRIPT_CALLS = Set.of("evalsha", "eval", "info");
    /** Path, Redis commands it may run per call (beside its EVALSHA). */
    enum Path {
        REGISTER_NEW(7), // 10 before the service's stamp moved into its instances hash, 8 before HLEN only without a
        // due entry in the future
        REGISTER_NEW_WHILE_DUE(8), // the service's due entry is due: the sweep has not looked at it since
        REGISTER_UNCHANGED(4), // 5 before the stamp moved
        REGISTER_CHANGED(6), // 8 before the stamp moved
        RENEW_LEASE(4),
        RENEW_EXPLICIT(4),
        DEREGISTER(9), // 11 before the stamp moved into the instances hash, 10 before PTTL only without a stamp
        SET_METADATA(5), // 7 before the stamp moved
        SET_WEIGHT(5), // 7 before the stamp moved
        CONFIG_SET(6), // 12 before the stamp moved into the current hash and the history into a stream
        CONFIG_SET_UNCHANGED(1),
        CONFIG_REMOVE(5), // 6 before the stamp moved
        CONFIG_ROLLBACK(7); // 13 before the stamp and the history moved

        final int recorded;

        Path(int recorded) {
            this.recorded = recorded;
        }
    }

    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private RedisAsyncCommands<String, String> async;

    @BeforeEach
    void connect() {
        client = RedisClient.create(redisUri());
        connection = client.connect();
        async = connection.async();
    }

    @AfterEach
    void disconnect() {
        connection.close();
        client.shutdown();
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void aWriteRunsNoMoreCommandsPerCallThanRecordedAndNoTypeCheck(Path path) {
        // given a steady state for the path
        IntFunction<CompletionStage<?>> call = prepare(path);

        // when it runs CALLS times
        Map<String, Long> before = CommandStats.calls(redis());
        for (int i = 0; i < CALLS; i++) {
            join(call.apply(i));
        }
        Map<String, Long> after = CommandStats.calls(redis());

        // then it ran at most its recorded number of commands per call, none of them TYPE
        long evalsha = delta(before, after, "evalsha");
        long commands = after.keySet().stream().filter(command -> !SCRIPT_CALLS.contains(command))
                .mapToLong(command -> delta(before, after, command)).sum();
        assertThat(evalsha + delta(before, after, "eval")).as("scripts run").isEqualTo(CALLS);
        assertThat((double) commands / CALLS).as(path + ": Redis commands per call; if a new guarantee needs more,"
                + " raise the record here and in docs/redis.md").isLessThanOrEqualTo(path.recorded);
        assertThat(delta(before, after, "type")).as(path + ": TYPE calls").isZero();
    }

    private IntFunction<CompletionStage<?>> prepare(Path path) {
        for (LuaScript script : List.of(Scripts.REGISTER_INSTANCE, Scripts.RENEW_INSTANCE, Scripts.DEREGISTER_INSTANCE,
                Scripts.UPDATE_INSTANCE, ConfigScripts.SET_CONFIG, ConfigScripts.REMOVE_CONFIG,
                ConfigScripts.ROLLBACK_CONFIG)) {
            redis().scriptLoad(script.body()); // every call an EVALSHA, none a NOSCRIPT and an EVAL
        }
        Keys.ServiceKeys orders = keys().service("orders");
        for (int i = 0; i < 3; i++) {
            join(register(instance("orders", "orders-" + i), OWNER));
        }
        settleDue(orders);
        Keys.ConfigKeys app = keys().config("app");
        for (int i = 0; i < HISTORY; i++) { // a full history: every new version trims the oldest
            join(setConfig(app, "app", "a=" + i));
        }
        return switch (path) {
            case REGISTER_NEW -> i -> register(instance("orders", "new-" + i), OWNER);
            case REGISTER_NEW_WHILE_DUE -> {
                redis().zadd(orders.due(), 1, orders.instances());
                yield i -> register(instance("orders", "new-" + i), OWNER);
            }
            case REGISTER_UNCHANGED -> i -> register(instance("orders", "orders-" + i % 3), OWNER);
            case REGISTER_CHANGED -> i -> register(instance("orders", "orders-" + i % 3).toBuilder()
                    .host("10.0.1." + i).build(), OWNER);
            case RENEW_LEASE -> i -> renew(orders, "orders-" + i % 3, OWNER);
            case RENEW_EXPLICIT -> i -> renew(orders, "orders-" + i % 3, "");
            case DEREGISTER -> {
                for (int i = 0; i < CALLS; i++) {
                    join(register(instance("orders", "gone-" + i), OWNER));
                }
                settleDue(orders);
                yield i -> Scripts.DEREGISTER_INSTANCE.run(async, ScriptOutputType.MULTI, orders.all(), "gone-" + i,
                        "60000");
            }
            case SET_METADATA -> i -> Scripts.UPDATE_INSTANCE.run(async, ScriptOutputType.MULTI, orders.all(),
                    "orders-" + i % 3, "replace", Json.object(Map.of("call", Integer.toString(i))), "[]");
            case SET_WEIGHT -> i -> Scripts.UPDATE_INSTANCE.run(async, ScriptOutputType.MULTI, orders.all(),
                    "orders-" + i % 3, "weight", Integer.toString(i % 2 + 1), "[]"); // 1 or 2: a change every call
            case CONFIG_SET -> i -> setConfig(app, "app", "b=" + i);
            case CONFIG_SET_UNCHANGED -> i -> setConfig(app, "app", "a=" + (HISTORY - 1));
            case CONFIG_REMOVE -> {
                for (int i = 0; i < CALLS; i++) {
                    join(setConfig(keys().config("app-" + i), "app-" + i, "a=1"));
                }
                yield i -> ConfigScripts.REMOVE_CONFIG.run(async, ScriptOutputType.MULTI,
                        keys().config("app-" + i).all(), "app-" + i, "-1", "cost", "test-host");
            }
            case CONFIG_ROLLBACK -> i -> ConfigScripts.ROLLBACK_CONFIG.run(async, ScriptOutputType.MULTI, app.all(),
                    "app", Integer.toString(HISTORY - 1 + i), Integer.toString(HISTORY), "cost", "test-host"); // the version before the current
        };
    }

    private CompletionStage<Object> register(ServiceInstance instance, String owner) {
        return Scripts.REGISTER_INSTANCE.run(async, ScriptOutputType.MULTI,
                keys().service(instance.serviceId()).all(), instance.instanceId(), Json.instance(instance),
                Long.toString(instance.ttl().toMillis()), "register", owner);
    }

    private CompletionStage<Object> renew(Keys.ServiceKeys service, String instanceId, String owner) {
        return Scripts.RENEW_INSTANCE.run(async, ScriptOutputType.INTEGER, service.all(), instanceId, owner,
                Long.toString(Duration.ofSeconds(30).toMillis()));
    }

    private CompletionStage<Object> setConfig(Keys.ConfigKeys keys, String id, String content) {
        return ConfigScripts.SET_CONFIG.run(async, ScriptOutputType.MULTI, keys.all(), id, content, "PROPERTIES",
                Integer.toString(HISTORY), "-1", Digests.sha1Hex(content), "cost", "test-host");
    }

    /** Files the service's due entry at its earliest deadline, as the sweep leaves it (a first write makes it due now). */
    private void settleDue(Keys.ServiceKeys service) {
        var first = redis().zrangeWithScores(service.deadlines(), 0, 0).get(0);
        redis().zadd(service.due(), first.getScore(), service.instances());
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }

    private static void join(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
