package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the kit reads a start-up log that ended in an exit. */
class ManagedRedisServerTest {

    private static final String GLIBC = "26:M 23 Nov 2026 20:27:52.358 # Warning: Could not create server TCP listening"
            + " socket 127.0.0.1:39369: bind: Address already in use\n"
            + "26:M 23 Nov 2026 20:27:52.358 # Failed listening on port 39369 (TCP), aborting.\n";

    @Test
    void aTakenPortInGlibcWordsIsATakenPort() {
        assertThat(ManagedRedisServer.portTaken(GLIBC)).isTrue();
    }

    @Test
    void aTakenPortInMuslWordsIsATakenPortToo() {
        // given: what the static embedded-redis binary (musl libc) logs for EADDRINUSE
        String musl = GLIBC.replace("Address already in use", "Address in use");

        // when / then
        assertThat(ManagedRedisServer.portTaken(musl)).isTrue();
    }

    @Test
    void anotherStartFailureIsNoTakenPort() {
        assertThat(ManagedRedisServer.portTaken("*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
                + ">>> 'logfile \"/gone/redis.log\"'\nCan't open the log file: No such file or directory\n"))
                .isFalse();
    }
}
