package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Time left per ephemeral instance of a service, read from Redis at most once a second per service. The console
 * builds a service's view on every event of every service it watches, and watch draws up to four times a second;
 * reading the leases each time cost a Redis round trip per event (a script that reads every deadline of the
 * service). Between two reads the time left is the last read's, less the time since: a renewal shows at the next
 * read, within a second. An ephemeral instance the last read did not have (registered since) makes it read again,
 * at most every {@link #MIN_AGE}, so a new instance shows its time left at once and churn still costs few reads.
 */
final class TtlLeft {
    static final Duration MAX_AGE = Duration.ofSeconds(1);
    static final Duration MIN_AGE = Duration.ofMillis(100);

    private final Function<String, Map<String, Duration>> read;
    private final LongSupplier nanoTime;
    private final Map<String, Read> last = new ConcurrentHashMap<>();

    /** Reads through {@link Instances#ttlLeft} (empty while Redis cannot be asked). */
    TtlLeft(LodestarClient client) {
        this(service -> Instances.ttlLeft(client, service), System::nanoTime);
    }

    TtlLeft(Function<String, Map<String, Duration>> read, LongSupplier nanoTime) {
        this.read = read;
        this.nanoTime = nanoTime;
    }

    /** @return time left per ephemeral instance id of the service, at most a second old (absent: unknown) */
    Map<String, Duration> of(ServiceSnapshot snapshot) {
        String service = snapshot.serviceId();
        long now = nanoTime.getAsLong();
        Read known = last.get(service);
        long age = known == null ? Long.MAX_VALUE : now - known.atNanos;
        if (age >= MAX_AGE.toNanos() || (age >= MIN_AGE.toNanos() && !knowsEveryLease(known, snapshot))) {
            known = new Read(now, read.apply(service));
            last.put(service, known);
            return known.left;
        }
        Duration since = Duration.ofNanos(age);
        Map<String, Duration> left = new LinkedHashMap<>();
        known.left.forEach((id, duration) -> left.put(id, max(Duration.ZERO, duration.minus(since))));
        return left;
    }

    private static boolean knowsEveryLease(Read known, ServiceSnapshot snapshot) {
        for (ServiceInstance instance : snapshot.instances()) {
            if (instance.ephemeral() && !known.left.containsKey(instance.instanceId())) {
                return false;
            }
        }
        return true;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private record Read(long atNanos, Map<String, Duration> left) {
    }
}
