package io.lodestar.redis.internal.view;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which topic a PubSub channel belongs to, for every view of a client: one lookup routes a message (or a renewed
 * subscription) to the one topic that follows its channel, which reads the message its own way. Thread-safe: views
 * follow and unfollow on the view thread, messages arrive on Redis' I/O thread.
 */
public final class ChannelRouter {

    /** What follows a channel: a topic of a view. */
    public interface Route {
        /**
         * A message heard on the channel, as it came (the I/O thread: read it and hand it over, nothing more).
         *
         * @throws RuntimeException when the message cannot be read (it is then dropped)
         */
        void offer(String message);

        /** The channel's subscription was renewed (Redis had dropped it): messages may have been missed. */
        void resubscribed();
    }

    private final Map<String, Route> routes = new ConcurrentHashMap<>();

    /** Routes the channel to {@code route} from now on (in place of any other). */
    public void follow(String channel, Route route) {
        routes.put(channel, route);
    }

    /** Stops routing the channel to {@code route}; false when it routes elsewhere or nowhere. */
    public boolean unfollow(String channel, Route route) {
        return routes.remove(channel, route);
    }

    /** The route of a channel, or null. */
    public Route route(String channel) {
        return routes.get(channel);
    }

    /**
     * Hands a message to the topic that follows its channel.
     *
     * @return false when no topic does
     * @throws RuntimeException when that topic cannot read the message
     */
    public boolean offer(String channel, String message) {
        Route route = routes.get(channel);
        if (route == null) {
            return false;
        }
        route.offer(message);
        return true;
    }

    /** Tells the topic that follows a channel that its subscription was renewed; false when none follows it. */
    public boolean resubscribed(String channel) {
        Route route = routes.get(channel);
        if (route == null) {
            return false;
        }
        route.resubscribed();
        return true;
    }
}
