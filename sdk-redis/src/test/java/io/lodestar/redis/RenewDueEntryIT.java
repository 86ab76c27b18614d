package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a renewal does to its service's entry in the bucket's due set (renew_instance.lua; docs/redis.md, "Expiry: the
 * due sets"): the entry may stay early, never late. A renewal leaves an entry at least half a TTL ahead alone (in a
 * steady fleet the renewing instance mostly holds the earliest deadline, and refiling on each renewal cost most
 * renewals two commands), refiles one that is closer, missing or later than the new deadline, and leaves one whose
 * time has come to the sweep.
 */
class RenewDueEntryIT extends NamespaceTest {
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String OWNER = "0123456789abcdef";

    private Keys.ServiceKeys orders;

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @BeforeEach
    void twoInstances() {
        orders = keys().service("orders");
        for (String id : List.of("orders-1", "orders-2")) {
            ServiceInstance instance = instance("orders", id).toBuilder().ttl(TTL).build();
            redis().eval(Scripts.REGISTER_INSTANCE.body(), ScriptOutputType.MULTI, orders.all(), id,
                    Json.instance(instance), Long.toString(TTL.toMillis()), "register", OWNER);
        }
    }

    @Test
    void aRenewalLeavesAnEntryAtLeastHalfATtlAheadWhereItIs() {
        // given the entry filed at the earliest deadline, orders-1's, about a TTL ahead
        double earliest = earliestDeadline();
        file(earliest);

        // when orders-1, which holds that deadline, renews
        renew("orders-1");

        // then the entry stays where it was: early (orders-2's deadline is now the earliest), never late
        assertThat(filed()).isEqualTo(earliest).isLessThanOrEqualTo(earliestDeadline());
    }

    @Test
    void aRenewalRefilesAnEntryLessThanHalfATtlAhead() {
        // given the entry a third of a TTL ahead
        file(redisNow() + TTL.toMillis() / 3.0);

        // when an instance renews
        renew("orders-1");

        // then the entry is at the earliest deadline again
        assertThat(filed()).isEqualTo(earliestDeadline());
    }

    @Test
    void aRenewalLowersAnEntryLaterThanTheNewDeadline() {
        // given an entry an hour ahead: later than any deadline (another program moved it)
        file(redisNow() + Duration.ofHours(1).toMillis());

        // when an instance renews
        renew("orders-2");

        // then the entry is at the earliest deadline
        assertThat(filed()).isEqualTo(earliestDeadline());
    }

    @Test
    void aRenewalLeavesAnEntryWhoseTimeHasComeToTheSweep() {
        // given an entry due now (a write that took the service's count to 0 or 1 leaves it so, for the sweep to
        // report the service to the namespace index)
        double due = redisNow() - 1;
        file(due);

        // when an instance renews
        renew("orders-1");

        // then the entry is still due: the sweep looks, reports, and files it
        assertThat(filed()).isEqualTo(due);
    }

    private void renew(String id) {
        Long renewed = redis().eval(Scripts.RENEW_INSTANCE.body(), ScriptOutputType.INTEGER, orders.all(), id, OWNER,
                Long.toString(TTL.toMillis()));
        assertThat(renewed).as("renewed").isEqualTo(1L);
    }

    private void file(double score) {
        redis().zadd(orders.due(), score, orders.instances());
    }

    private Double filed() {
        return redis().zscore(orders.due(), orders.instances());
    }

    private double earliestDeadline() {
        return redis().zrangeWithScores(orders.deadlines(), 0, 0).get(0).getScore();
    }

    private double redisNow() {
        List<String> time = redis().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }
}
