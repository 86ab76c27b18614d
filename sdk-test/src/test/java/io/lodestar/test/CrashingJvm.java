package io.lodestar.test;

/** Run by {@link JvmCrashIT} in a child JVM: starts a private server, says where, and waits to be SIGKILLed. */
public final class CrashingJvm {

    private CrashingJvm() {
    }

    /**
     * Prints {@code READY <port> <pid> <dataDir>} and sleeps (at most 60 s).
     *
     * @param args unused
     * @throws InterruptedException if interrupted while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        ManagedRedisServer redis = (ManagedRedisServer) TestRedis.startStandalone();
        System.out.println("READY " + redis.port() + " " + redis.pid() + " " + redis.dataDir());
        System.out.flush();
        Thread.sleep(60_000);
    }
}
