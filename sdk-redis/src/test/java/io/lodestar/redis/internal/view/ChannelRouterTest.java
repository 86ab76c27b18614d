package io.lodestar.redis.internal.view;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One map from channel to the topic that follows it, for every view of a client. */
class ChannelRouterTest {
    private final ChannelRouter router = new ChannelRouter();
    private final Topic orders = new Topic();
    private final Topic config = new Topic();

    @Test
    void aMessageReachesOnlyTheTopicThatFollowsItsChannelAsItCame() {
        router.follow("svc:orders", orders);
        router.follow("cfg:app", config);

        assertThat(router.offer("svc:orders", "{\"rev\":1}")).isTrue();
        assertThat(router.offer("svc:unknown", "{\"rev\":1}")).as("no topic follows it").isFalse();

        assertThat(orders.messages).containsExactly("{\"rev\":1}");
        assertThat(config.messages).isEmpty();
    }

    @Test
    void aRenewedSubscriptionIsToldToTheTopicThatFollowsTheChannel() {
        router.follow("svc:orders", orders);

        assertThat(router.resubscribed("svc:orders")).isTrue();
        assertThat(router.resubscribed("svc:unknown")).isFalse();

        assertThat(orders.resubscribed).isEqualTo(1);
    }

    @Test
    void aTopicUnfollowsOnlyWhileTheChannelStillRoutesToIt() {
        router.follow("svc:orders", orders);
        Topic replacement = new Topic();
        router.follow("svc:orders", replacement); // a new topic of the id took the channel over

        assertThat(router.unfollow("svc:orders", orders)).as("the old topic's unfollow").isFalse();
        assertThat(router.route("svc:orders")).isSameAs(replacement);
        assertThat(router.unfollow("svc:orders", replacement)).isTrue();
        assertThat(router.route("svc:orders")).isNull();
    }

    @Test
    void aMessageTheTopicCannotReadFailsTheOfferForTheCallerToDrop() {
        router.follow("svc:orders", new ChannelRouter.Route() {
            @Override
            public void offer(String message) {
                throw new IllegalArgumentException("not JSON: " + message);
            }

            @Override
            public void resubscribed() {
            }
        });

        assertThatThrownBy(() -> router.offer("svc:orders", "{")).hasMessage("not JSON: {");
    }

    private static final class Topic implements ChannelRouter.Route {
        final List<String> messages = new ArrayList<>();
        int resubscribed;

        @Override
        public void offer(String message) {
            messages.add(message);
        }

        @Override
        public void resubscribed() {
            resubscribed++;
        }
    }
}
