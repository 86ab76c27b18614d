package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis outage fails every lease's renewals, each about once a second: the log says so once when they start
 * failing and once when they succeed again, with each attempt at DEBUG. Before, every attempt of every lease was a
 * WARN ("Renewing … failed"): a flood with many instances (issue 34, item 3).
 */
class RenewalOutageLogIT extends PrivateRedisTest {
    private static final int LEASES = 20;
    private static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void anOutageLogsOneWarningForAllLeasesAndOneInfoWhenRenewalsSucceedAgain() {
        // given a client with 20 leases of the shortest TTL, so a failing lease retries every third of a second
        LodestarClient owner = clients.connect(options -> options.commandTimeout(Duration.ofSeconds(1)));
        for (int i = 0; i < LEASES; i++) {
            owner.registry().register(instance("renewal-log", "renewal-log-" + i).toBuilder()
                    .ttl(Duration.ofSeconds(1)).build());
        }
        try (LogCapture log = LogCapture.start()) {
            // when Redis is down until every lease has failed about twice
            redis.kill();
            await().atMost(BOUND).until(() -> owner.health().registrations().failedRenewals() >= 2 * LEASES);

            // then one WARN says renewals fail, naming how many leases are held
            assertThat(log.lines("WARN", "Renewing")).singleElement().asString().contains("of " + LEASES + " held");

            // and when Redis is back, one INFO says renewals succeed again, and no more WARN came meanwhile
            redis.restart();
            await().atMost(BOUND).until(() -> !log.lines("INFO", "Renewing leases succeeds again").isEmpty());
            assertThat(log.lines("INFO", "Renewing")).singleElement().asString().contains("of " + LEASES + " leases");
            assertThat(log.lines("WARN", "Renewing")).hasSize(1);
        }
    }
}
