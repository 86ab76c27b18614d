package io.lodestar.redis;

import io.lodestar.core.LeaseListener;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.Leases.Lease;
import io.lodestar.redis.Leases.Outcome;
import io.lodestar.redis.internal.time.Clock;
import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When leases renew, on a manual clock: every third of the TTL with jitter, soon again after a failure, at once on
 * demand, never after a cancel; what a late, failed, taken-over or removed renewal does; and what an outage logs.
 * The renewal itself (the registry's scripts, tested against Redis in the lease ITs) is a function the test answers.
 */
class LeasesTest {
    private static final Duration TTL = Duration.ofSeconds(3);

    private final ManualClock clock = new ManualClock();
    /** When each renewal ran (ms on the clock), and of which instance. */
    private final List<String> renewals = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final List<String> heard = new ArrayList<>();
    private Function<Lease, CompletionStage<Outcome>> answer = lease -> CompletableFuture.completedFuture(
            Outcome.RENEWED);
    private boolean closing;

    private final Leases.Renewal renewal = new Leases.Renewal() {
        @Override
        public CompletionStage<Outcome> renew(Lease lease) {
            renewals.add(lease.instance.instanceId() + "@" + millis());
            return answer.apply(lease);
        }

        @Override
        public void failed(Throwable failure, long startedNanos) {
            failures.add(Errors.unwrap(failure).getMessage() + "@" + TimeUnit.NANOSECONDS.toMillis(startedNanos));
        }
    };

    private final Leases leases = leases(clock);

    @Test
    void aLeaseRenewsEveryThirdOfItsTtlWithinTenPercentJitter() {
        // given a started lease of a 3 s TTL
        start("orders-1");

        // when 899 ms pass, then it has not renewed; by 1,100 ms it has, once
        clock.advance(Duration.ofMillis(899));
        assertThat(renewals).isEmpty();
        clock.advance(Duration.ofMillis(201));
        assertThat(renewals).hasSize(1);
        assertThat(renewedAt(0)).isBetween(900L, 1_100L);

        // and each next renewal comes a third of the TTL (±10 %) after the one before
        clock.advance(Duration.ofSeconds(9));
        assertThat(renewals).hasSizeBetween(9, 10);
        for (int i = 1; i < renewals.size(); i++) {
            assertThat(renewedAt(i) - renewedAt(i - 1)).isBetween(900L, 1_100L);
        }
        assertThat(leases.health().lastRenewalAt()).isAfter(Instant.parse("2026-01-01T00:00:09Z"));
        assertThat(leases.health().lateRenewals()).isZero();
        assertThat(leases.health().failedRenewals()).isZero();
    }

    @Test
    void theJitterSpreadsAFleetSoItDoesNotRenewInLockStep() {
        // given 100 leases started at one moment
        for (int i = 0; i < 100; i++) {
            start("orders-" + i);
        }

        // when their first renewals come, then they are spread over the jitter window
        clock.advance(Duration.ofMillis(1_100));
        assertThat(renewals).hasSize(100);
        assertThat(renewals.stream().map(renewal -> renewal.substring(renewal.indexOf('@'))).distinct().count())
                .isGreaterThan(50);
    }

    @Test
    void aLeaseThatIsNotStartedDoesNotRenew() {
        // given a lease opened for a register still under way
        leases.open(instance("orders-1"));

        // when a TTL passes, then it has not renewed (the register's reply starts it)
        clock.advance(TTL);
        assertThat(renewals).isEmpty();
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aFailedRenewalIsRetriedAfterASecondNotAThirdOfTheTtl() {
        // given a lease of a 6 s TTL whose first renewal (due after about 2 s) fails
        Lease lease = leases.open(instance("orders-1", Duration.ofSeconds(6)));
        lease.start(lease.instance);
        answer = failing();
        clock.advance(Duration.ofMillis(2_200));
        assertThat(renewals).hasSize(1);
        long failedAt = renewedAt(0);

        // when Redis answers again, then the next renewal comes a second after the failure
        answer = renewed();
        clock.advance(Duration.ofMillis(1_000));
        assertThat(renewals).hasSize(2);
        assertThat(renewedAt(1) - failedAt).isEqualTo(1_000);

        // and the failure was counted and reported to the registry
        assertThat(leases.health().failedRenewals()).isEqualTo(1);
        assertThat(failures).containsExactly("Redis is down@" + failedAt);
    }

    @Test
    void aShortTtlIsRetriedAfterAThirdOfItNotASecond() {
        // given a lease of the shortest TTL (1 s) whose renewals fail
        Lease lease = leases.open(instance("orders-1", Duration.ofSeconds(1)));
        lease.start(lease.instance);
        answer = failing();

        // when a second passes, then it tried every third of a second (a wait of a second would let it expire)
        clock.advance(Duration.ofMillis(1_400));
        assertThat(renewals).hasSizeGreaterThanOrEqualTo(3);
        for (int i = 1; i < renewals.size(); i++) {
            assertThat(renewedAt(i) - renewedAt(i - 1)).isEqualTo(333);
        }
    }

    @Test
    void aRenewalThatRunsMoreThanAThirdOfTheTtlLateIsCountedAsLate() {
        // given a lease whose scheduler is starved: what falls due waits in a backlog until the test runs it
        Queue<Runnable> backlog = new ArrayDeque<>();
        Leases starved = leases(new Clock() {
            @Override
            public long nanoTime() {
                return clock.nanoTime();
            }

            @Override
            public Instant instant() {
                return clock.instant();
            }

            @Override
            public Scheduled schedule(Runnable task, long delay, TimeUnit unit) {
                return clock.schedule(() -> backlog.add(task), delay, unit);
            }
        });
        Lease lease = starved.open(instance("orders-1"));
        lease.start(lease.instance);
        clock.advance(Duration.ofMillis(1_100));
        assertThat(backlog).hasSize(1);

        // when the renewal runs two seconds after it was due
        clock.advance(Duration.ofSeconds(2));
        backlog.poll().run();

        // then it renewed, and counted itself late
        assertThat(renewals).hasSize(1);
        assertThat(starved.health().lateRenewals()).isEqualTo(1);
    }

    @Test
    void aRenewalOnTimeIsNotLate() {
        // given a lease renewing on a clock that runs what is due at once
        start("orders-1");

        // when it renews for three TTLs, then none of its renewals was late
        clock.advance(TTL.multipliedBy(3));
        assertThat(renewals).hasSizeGreaterThanOrEqualTo(8);
        assertThat(leases.health().lateRenewals()).isZero();
    }

    @Test
    void renewAllSoonRenewsEveryLeaseAtOnceAndKeepsOneChainEach() {
        // given two started leases, their renewals due in about a second
        start("orders-1");
        start("orders-2");

        // when the connection comes back and every lease is to renew soon
        leases.renewAllSoon();
        clock.runDue();

        // then each renewed now, and its next renewal is a third of the TTL later (the earlier one replaced)
        assertThat(renewals).containsExactlyInAnyOrder("orders-1@0", "orders-2@0");
        assertThat(clock.pending()).isEqualTo(2);
        clock.advance(Duration.ofMillis(1_100));
        assertThat(renewals).hasSize(4);
    }

    @Test
    void aCancelledLeaseNeverRenewsAgainAndLeavesNothingScheduled() {
        // given a started lease
        start("orders-1");

        // when a deregister cancels it
        CompletableFuture<Boolean> removal = new CompletableFuture<>();
        leases.cancel("orders", "orders-1", removal);

        // then nothing is scheduled, it never renews, and it is no longer held
        assertThat(clock.pending()).isZero();
        clock.advance(TTL.multipliedBy(3));
        assertThat(renewals).isEmpty();
        assertThat(leases.health().held()).isZero();
    }

    @Test
    void stopAllCancelsEveryLease() {
        // given three started leases
        for (int i = 0; i < 3; i++) {
            start("orders-" + i);
        }

        // when the client closes
        leases.stopAll();

        // then none renews
        assertThat(clock.pending()).isZero();
        clock.advance(TTL);
        assertThat(renewals).isEmpty();
        assertThat(leases.health().held()).isZero();
    }

    @Test
    void aRenewalCutOffByTheClientsCloseIsNoFailureAndIsNotRetried() {
        // given a lease whose renewal is in flight when the client closes
        start("orders-1");
        CompletableFuture<Outcome> inFlight = new CompletableFuture<>();
        answer = lease -> inFlight;
        clock.advance(Duration.ofMillis(1_100));
        closing = true;
        leases.stopAll();

        // when the close cuts it off
        inFlight.completeExceptionally(new IllegalStateException("connection closed"));

        // then it is not a failure, and nothing retries it
        assertThat(leases.health().failedRenewals()).isZero();
        assertThat(failures).isEmpty();
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aLeaseTakenOverByAnotherRegistrationStopsAndTellsItsListeners() {
        // given a started lease, and another client registers the same id
        start("orders-1");
        answer = lease -> CompletableFuture.completedFuture(Outcome.TAKEN_OVER);

        // when it renews, then it stops, counts the takeover and tells its listener once
        clock.advance(TTL.multipliedBy(3));
        assertThat(renewals).hasSize(1);
        assertThat(heard).containsExactly("orders-1 " + LeaseListener.Cause.TAKEN_OVER);
        assertThat(leases.health().takenOver()).isEqualTo(1);
        assertThat(leases.health().held()).isZero();
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aLeaseWhoseInstanceWasRemovedByAnotherClientStopsAndTellsItsListeners() {
        // given a started lease, and an operator evicts its instance
        start("orders-1");
        answer = lease -> CompletableFuture.completedFuture(Outcome.REMOVED);

        // when it renews, then it stops and tells its listener, without counting a takeover
        clock.advance(TTL.multipliedBy(3));
        assertThat(renewals).hasSize(1);
        assertThat(heard).containsExactly("orders-1 " + LeaseListener.Cause.REMOVED);
        assertThat(leases.health().takenOver()).isZero();
        assertThat(leases.health().held()).isZero();
    }

    @Test
    void aLeaseReplacedByANewRegistrationOfTheSameInstanceStopsRenewing() {
        // given a started lease, replaced by a new register of the same instance on this client
        Lease first = start("orders-1");
        Lease second = leases.open(instance("orders-1"));

        // then the first renews no more, and the second is the one held
        assertThat(first.current()).isFalse();
        assertThat(second.replacedAnother()).isTrue();
        clock.advance(TTL);
        assertThat(renewals).isEmpty();
        assertThat(leases.get("orders", "orders-1")).isSameAs(second);
    }

    @Test
    void aDeregisterThatRanBeforeItsRacingRegisterLeavesTheRegistrationALease() {
        // given a register under way whose lease a deregister cancelled, and the deregister removed nothing in
        // Redis (it ran first there)
        Lease lease = leases.open(instance("orders-1"));
        CompletableFuture<Boolean> removal = new CompletableFuture<>();
        leases.cancel("orders", "orders-1", removal);

        // when the register's reply comes, then the deregister's
        lease.start(lease.instance);
        leases.keepIfRegisteredLast(lease, lease.instance);
        removal.complete(false);

        // then the registration, which stands in Redis, has a fresh lease that renews
        assertThat(leases.get("orders", "orders-1")).isNotNull().isNotSameAs(lease);
        clock.advance(Duration.ofMillis(1_100));
        assertThat(renewals).hasSize(1);
    }

    @Test
    void aDeregisterThatRanAfterItsRacingRegisterLeavesNoLease() {
        // given a register under way whose lease a deregister cancelled, and the deregister removed the instance
        Lease lease = leases.open(instance("orders-1"));
        CompletableFuture<Boolean> removal = new CompletableFuture<>();
        leases.cancel("orders", "orders-1", removal);

        // when both replies come
        lease.start(lease.instance);
        leases.keepIfRegisteredLast(lease, lease.instance);
        removal.complete(true);

        // then nothing renews the removed instance
        assertThat(leases.get("orders", "orders-1")).isNull();
        clock.advance(TTL);
        assertThat(renewals).isEmpty();
    }

    @Test
    void anOutageLogsOneWarningForAllLeasesAndOneInfoWhenRenewalsSucceedAgain() {
        // given 50 started leases
        for (int i = 0; i < 50; i++) {
            start("orders-" + i);
        }
        try (LogCapture log = LogCapture.start()) {
            // when Redis is down for five seconds (every lease fails about five times), then comes back
            answer = failing();
            clock.advance(Duration.ofSeconds(5));
            assertThat(leases.health().failedRenewals()).isGreaterThanOrEqualTo(200);
            answer = renewed();
            clock.advance(Duration.ofSeconds(2));

            // then one WARN said renewals fail, naming how many leases there are, and one INFO that they are back
            assertThat(log.lines("WARN", "Renewing")).singleElement().asString()
                    .contains("one of 50 held").contains("Redis is down");
            assertThat(log.lines("INFO", "Renewing")).singleElement().asString()
                    .contains("succeeds again").contains("of 50 leases");
        }
    }

    @Test
    void aSecondOutageLogsAgain() {
        // given an outage that ended
        start("orders-1");
        answer = failing();
        clock.advance(Duration.ofSeconds(2));
        answer = renewed();
        clock.advance(Duration.ofSeconds(2));
        try (LogCapture log = LogCapture.start()) {
            // when renewals fail again, then that is a new WARN
            answer = failing();
            clock.advance(Duration.ofSeconds(2));
            assertThat(log.lines("WARN", "Renewing")).hasSize(1);
        }
    }

    private Leases leases(Clock on) {
        Leases leases = new Leases(on, new SplittableRandom(7), renewal, () -> closing, Runnable::run);
        leases.addListener((instance, cause) -> heard.add(instance.instanceId() + " " + cause));
        return leases;
    }

    private Lease start(String instanceId) {
        Lease lease = leases.open(instance(instanceId));
        lease.start(lease.instance);
        return lease;
    }

    private long millis() {
        return TimeUnit.NANOSECONDS.toMillis(clock.nanoTime());
    }

    private long renewedAt(int index) {
        String renewal = renewals.get(index);
        return Long.parseLong(renewal.substring(renewal.indexOf('@') + 1));
    }

    private static Function<Lease, CompletionStage<Outcome>> failing() {
        return lease -> CompletableFuture.failedFuture(new IllegalStateException("Redis is down"));
    }

    private static Function<Lease, CompletionStage<Outcome>> renewed() {
        return lease -> CompletableFuture.completedFuture(Outcome.RENEWED);
    }

    private static ServiceInstance instance(String instanceId) {
        return instance(instanceId, TTL);
    }

    private static ServiceInstance instance(String instanceId, Duration ttl) {
        return Clients.instance("orders", instanceId).toBuilder().ttl(ttl).build();
    }
}
