package io.lodestar.jmh;

import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Test data and waits shared by the benchmarks. */
final class Fixtures {
    /** The service the read, write and propagation benchmarks work on. */
    static final String SERVICE = "orders";
    /** The zones instances are spread over; {@code eu-1} is "my" zone in the selector benchmarks. */
    static final String[] ZONES = {"eu-1", "eu-2", "eu-3"};

    private Fixtures() {
    }

    /**
     * A realistic instance: a private IPv4 address, a zone, a version and a weight that differ between instances.
     * Persistent, so that a read fixture causes no renewal traffic while it is measured.
     *
     * @param serviceId the service
     * @param index     the instance's number, which determines everything else
     * @return the instance
     */
    static ServiceInstance instance(String serviceId, int index) {
        return builder(serviceId, index).persistent().build();
    }

    /** Like {@link #instance}, but ephemeral with the default TTL, as an application registers itself. */
    static ServiceInstance ephemeral(String serviceId, int index) {
        return builder(serviceId, index).build();
    }

    private static ServiceInstance.Builder builder(String serviceId, int index) {
        return ServiceInstance.builder(serviceId, String.format("%s-%04d", serviceId, index))
                .host("10.0." + (index / 250) + "." + (index % 250 + 1))
                .port(8080)
                .weight(50 + (index % 4) * 50)
                .metadata("zone", ZONES[index % ZONES.length])
                .metadata("version", index % 2 == 0 ? "2" : "1");
    }

    /**
     * {@code count} instances of one service, see {@link #instance}; every tenth one is {@code DOWN} when
     * {@code someDown}, so that the status filter of a balancer has something to do.
     */
    static List<ServiceInstance> instances(String serviceId, int count, boolean someDown) {
        List<ServiceInstance> instances = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ServiceInstance instance = instance(serviceId, i);
            if (someDown && i % 10 == 9) {
                instance = instance.toBuilder().status(InstanceStatus.DOWN).build();
            }
            instances.add(instance);
        }
        return List.copyOf(instances);
    }

    /** One instance in each of {@code count} services named {@code svc-0000}...: a namespace's other services. */
    static List<ServiceInstance> otherServices(int count) {
        List<ServiceInstance> instances = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            instances.add(instance(String.format("svc-%04d", i), 0));
        }
        return instances;
    }

    /**
     * Waits, parked (no spinning, no fixed sleep), until {@code done} is true. Whoever makes it true should
     * {@link LockSupport#unpark} the waiting thread; a short park bound makes the wait robust without that.
     *
     * @param done          the condition
     * @param timeoutMillis the bound
     * @param what          for the failure message
     * @throws IllegalStateException when the condition is still false after the bound
     */
    static void await(BooleanSupplier done, long timeoutMillis, String what) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!done.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("Timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            LockSupport.parkNanos(Fixtures.class, Math.min(left, 1_000_000L));
        }
    }

    /**
     * @param condition what a fixture must satisfy before anything is measured
     * @param what      that, in words
     * @throws IllegalStateException when it does not
     */
    static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("Fixture broken: expected " + what);
        }
    }

    /**
     * The {@code --name value} arguments of a harness's {@code main} (and the {@code --name} flags it names, which take
     * no value: "true"), in order.
     *
     * @throws IllegalArgumentException on an argument that is not an option, or an option without its value
     */
    static Map<String, String> options(String[] args, Set<String> flags) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String key = args[i].startsWith("--") ? args[i].substring(2) : null;
            boolean flag = flags.contains(key);
            if (key == null || !flag && i + 1 >= args.length) {
                throw new IllegalArgumentException("Unexpected argument " + args[i] + "; see the class javadoc");
            }
            options.put(key, flag ? "true" : args[++i]);
        }
        return options;
    }

    /**
     * Starts {@code main} in a child JVM on this JVM's class path (its standard error goes to this one's), as the
     * cross-process harnesses run their listeners and fleet members.
     */
    static Process childJvm(List<String> jvmArgs, Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /**
     * A properties text of about {@code bytes} bytes whose first line carries {@code seq}, so that two calls with
     * different {@code seq} give different contents (a config set of the same content is a no-op).
     */
    static String properties(int bytes, long seq) {
        StringBuilder text = new StringBuilder(bytes + 64).append("seq=").append(seq).append('\n');
        for (int i = 0; text.length() < bytes; i++) {
            text.append("orders.client.setting").append(i).append("=value-").append(i).append('\n');
        }
        return text.toString();
    }
}
