package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The digest a service event carries, which a view compares with the real event of its revision and its reconcile
 * with Redis (docs/redis.md, "Trust model"): the writer's token of the write, drawn by the client for each write, so
 * that Redis does not hash the event (issue 27); and, for an event without one, SHA-1 of the previous digest and the
 * event, as before.
 */
class EventDigestIT extends NamespaceTest {
    private static final String OWNER = "0123456789abcdef";
    private RedisClient subscriber;
    private StatefulRedisPubSubConnection<String, String> pubSub;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @AfterEach
    void closeSubscriber() {
        if (pubSub != null) {
            pubSub.close();
            subscriber.shutdown();
        }
    }

    @Test
    void eachWriteOfAClientCarriesADigestOfItsOwnThatTheStampKeeps() throws Exception {
        // given a client, and a subscriber to the service's events
        LodestarClient client = clients.connect();
        subscribe("orders");

        // when it registers, updates and deregisters
        client.registry().register(instance("orders", "orders-1"));
        String registered = digestOf(nextEvent());
        String afterRegister = stampDigest();
        client.registry().setMetadata("orders", "orders-1", Map.of("zone", "b"));
        String updated = digestOf(nextEvent());
        String afterUpdate = stampDigest();
        client.registry().deregister("orders", "orders-1");
        String deregistered = digestOf(nextEvent());

        // then each event carries 128 random bits of its own, and the stamp the last one's
        assertThat(List.of(registered, updated, deregistered)).allMatch(digest -> digest.matches("[0-9a-f]{32}"))
                .doesNotHaveDuplicates();
        assertThat(afterRegister).isEqualTo(registered);
        assertThat(afterUpdate).isEqualTo(updated);
        assertThat(stampDigest()).isEqualTo(deregistered);
    }

    @Test
    void aWriteWithoutATokenChainsSha1OfThePreviousDigestAndTheEvent() throws Exception {
        // given a service written once by a client (its digest a token)
        clients.connect().registry().register(instance("orders", "orders-1"));
        String previous = stampDigest();
        subscribe("orders");

        // when a caller that passes no token registers an instance by the script
        ServiceInstance second = instance("orders", "orders-2");
        redis().eval(Scripts.REGISTER_INSTANCE.body(), ScriptOutputType.MULTI, keys().service("orders").all(),
                second.instanceId(), Json.instance(second), Long.toString(second.ttl().toMillis()), "register",
                OWNER);

        // then its event's digest is SHA-1 of the previous digest and the event (without its digest and "inc")
        String event = nextEvent();
        String digest = digestOf(event);
        String hashed = event.substring(0, event.indexOf(",\"digest\":"));
        assertThat(digest).isEqualTo(Digests.sha1Hex(previous + hashed)).isEqualTo(stampDigest());
    }

    private void subscribe(String serviceId) throws Exception {
        subscriber = RedisClient.create(redisUri());
        pubSub = subscriber.connectPubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                events.add(message);
            }
        });
        pubSub.sync().ssubscribe(keys().service(serviceId).channel());
    }

    private String nextEvent() throws InterruptedException {
        String event = events.poll(Duration.ofSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(event).as("an event within 5 s").isNotNull();
        return event;
    }

    private static String digestOf(String event) {
        int start = event.indexOf("\"digest\":\"") + "\"digest\":\"".length();
        return event.substring(start, event.indexOf('"', start));
    }

    private String stampDigest() {
        return redis().hget(keys().service("orders").instances(), Keys.DIGEST_FIELD);
    }
}
