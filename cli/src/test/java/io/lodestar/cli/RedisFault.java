package io.lodestar.cli;

import io.lodestar.test.RedisServer;

/** The two ways Redis stops serving an operator's tools: gone (connections closed), or frozen (open, silent). */
enum RedisFault {
    /** Killed, then restarted: every connection closes. */
    KILLED {
        @Override
        void begin(RedisServer redis) {
            redis.kill();
        }

        @Override
        void end(RedisServer redis) {
            redis.restart();
        }
    },
    /** SIGSTOP, then SIGCONT: every connection stays open and nothing answers. */
    FROZEN {
        @Override
        void begin(RedisServer redis) {
            redis.freeze();
        }

        @Override
        void end(RedisServer redis) {
            redis.thaw();
        }
    };

    abstract void begin(RedisServer redis);

    abstract void end(RedisServer redis);
}
