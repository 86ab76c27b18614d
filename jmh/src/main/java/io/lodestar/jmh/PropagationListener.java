package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.Initial;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.Subscription;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.redis.RedisLodestar;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The listening process of {@link CrossProcessPropagation}: a JVM of its own, started by the writer, which tells it
 * over stdout when each event reached a listener, as wall-clock epoch nanoseconds ({@link #now()}; both processes
 * read the same kernel clock, {@code CLOCK_REALTIME}, so their readings compare directly).
 *
 * <p>Arguments: Redis URI, namespace, service id, raw channel, {@code probe} or {@code noprobe}, {@code compare}
 * or {@code nocompare}, and a relay URI or {@code norelay}. With a relay, every Lodestar client below is at home on
 * the Redis URI (region {@code home}) and reads the service from region {@code remote}, the same Redis reached
 * through the relay ({@code discovery("remote")}), and the plain Lettuce subscriber connects through the relay:
 * a reader in another region. It listens with:
 * <ul>
 *   <li>a Lodestar client of the namespace, subscribed to the service with {@code discovery().subscribe}
 *       (default options, the listener on Lodestar's own listener executor): {@code R <seq> <nanos>} for a
 *       registration of instance {@code <service>-x-<seq>}, {@code D <seq> <nanos>} for its deregistration;</li>
 *   <li>with {@code compare}, a second Lodestar client subscribed to the service {@code <service>-direct} with a
 *       direct executor ({@code Runnable::run}: the listener runs on the view thread, one hand-off fewer):
 *       {@code S <seq> <nanos>} and {@code U <seq> <nanos>} likewise;</li>
 *   <li>for either client, {@code XR <nanos>} (or {@code XS}) when its listener got a {@code ServiceResynced}
 *       instead of a step: the view re-read the service (its periodic reconcile read Redis after a write and
 *       before that write's event), so the step's event never comes;</li>
 *   <li>a plain Lettuce SSUBSCRIBE to the raw channel (RESP3, like Lodestar), timed on Lettuce's I/O thread:
 *       {@code P <seq> <nanos>} for a message {@code <seq> ...};</li>
 *   <li>a plain Lettuce SSUBSCRIBE to the channel of the raw register script's service, whose messages it
 *       ignores: so that script publishes to a subscriber, as Lodestar's register does;</li>
 *   <li>with {@code probe}, a second plain SSUBSCRIBE to the service's own channel: {@code Q <revision> <nanos>} when
 *       a Lodestar event reached this process's socket, which splits a Lodestar sample into "Redis to this process"
 *       and "inside Lodestar". Off by default: a second connection waking up at the same moment shares the CPUs.</li>
 * </ul>
 * Prints {@code READY} once everything is subscribed. On stdin, a line {@code T} is answered with
 * {@code T <nanos>} (the writer checks the clocks agree); end of input closes everything and exits.
 */
public final class PropagationListener {
    /** The last argument when the listener reads the writer's Redis directly. */
    static final String NO_RELAY = "norelay";
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private PropagationListener() {
    }

    /** Wall-clock time as epoch nanoseconds: what both processes stamp events with. */
    static long now() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * @param args Redis URI, namespace, service id, raw channel, {@code probe} or {@code noprobe}, {@code compare}
     *             or {@code nocompare}, relay URI or {@code norelay}
     * @throws Exception when setting up fails
     */
    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String namespace = args[1];
        String serviceId = args[2];
        String rawChannel = args[3];
        boolean probe = args.length > 4 && args[4].equals("probe");
        boolean compare = args.length > 5 && args[5].equals("compare");
        String relay = args.length > 6 && !args[6].equals(NO_RELAY) ? args[6] : null;

        LodestarClient client = client(uri, namespace, "propagation-listener", relay);
        Subscription subscription = discovery(client, relay).subscribe(serviceId, listener(serviceId, "R", "D"));
        LodestarClient directClient = null;
        Subscription directSubscription = null;
        if (compare) {
            String directService = serviceId + "-direct";
            directClient = client(uri, namespace, "propagation-listener-direct", relay);
            directSubscription = discovery(directClient, relay).subscribe(directService,
                    listener(directService, "S", "U"), Initial.SKIP, Runnable::run);
        }

        RedisClient raw = RawRedis.client(relay == null ? uri : relay);
        StatefulRedisPubSubConnection<String, String> pubSub = raw.connectPubSub(StringCodec.UTF8);
        String serviceChannel = RawRedis.serviceChannel(namespace, serviceId);
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                long at = now();
                if (channel.equals(rawChannel)) {
                    OUT.println("P " + message.substring(0, message.indexOf(' ')) + " " + at);
                } else if (channel.equals(serviceChannel)) {
                    OUT.println("Q " + revision(message) + " " + at);
                }
            }
        });
        // The raw register script's service has a subscriber too, so that its EVALSHA publishes to a socket, as
        // Lodestar's register does: the call baseline pays the same Redis-side fan-out (its messages are ignored).
        pubSub.sync().ssubscribe(rawChannel, RawRedis.serviceChannel(namespace, CrossProcessPropagation.RAW_SERVICE));
        if (probe) {
            pubSub.sync().ssubscribe(serviceChannel);
        }
        OUT.println("READY");

        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("T")) {
                    OUT.println("T " + now());
                }
            }
        } finally {
            if (directClient != null) {
                directSubscription.close();
                directClient.close();
            }
            subscription.close();
            pubSub.close();
            raw.shutdown();
            client.close();
        }
    }

    /** A client on {@code uri}; with a relay, at home there and reading the same Redis through it as "remote". */
    private static LodestarClient client(String uri, String namespace, String name, String relay) {
        LodestarOptions.Builder options = LodestarOptions.builder(uri).namespace(namespace).clientName(name);
        if (relay != null) {
            options.region("home").remoteRegion("remote", relay);
        }
        return RedisLodestar.create(options.build());
    }

    private static ServiceDiscovery discovery(LodestarClient client, String relay) {
        return relay == null ? client.discovery() : client.discovery("remote");
    }

    /** Reports registrations and deregistrations of {@code <service>-x-<seq>} instances with the given letters. */
    private static ServiceListener listener(String serviceId, String registeredLetter, String deregisteredLetter) {
        String prefix = serviceId + "-x-";
        return event -> {
            long at = now(); // first: everything below is not part of the sample
            if (event instanceof InstanceRegistered registered
                    && registered.instance().instanceId().startsWith(prefix)) {
                OUT.println(registeredLetter + " " + registered.instance().instanceId().substring(prefix.length())
                        + " " + at);
            } else if (event instanceof InstanceDeregistered deregistered
                    && deregistered.instanceId().startsWith(prefix)) {
                OUT.println(deregisteredLetter + " " + deregistered.instanceId().substring(prefix.length()) + " "
                        + at);
            } else if (event instanceof ServiceResynced) {
                // the view re-read the service (e.g. its reconcile read Redis between a write and its event):
                // the listener hears the new state in one event instead of the step
                OUT.println("X" + registeredLetter + " " + at);
            }
        };
    }

    /** The {@code "rev":N} field of a Lodestar event, read without a JSON parser (a probe must be cheap). */
    private static long revision(String message) {
        int at = message.indexOf("\"rev\":");
        if (at < 0) {
            return -1;
        }
        int start = at + 6;
        int end = start;
        while (end < message.length() && Character.isDigit(message.charAt(end))) {
            end++;
        }
        return end > start ? Long.parseLong(message.substring(start, end)) : -1;
    }
}
