package io.lodestar.micronaut;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.context.scope.refresh.RefreshEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module quiets Lettuce's outage warnings by default, and the application's own {@code logger.levels} win: each
 * test starts an application context on the test Redis and reads the effective levels from logback.
 */
class LodestarLettuceLogLevelsIT {
    private static final String WATCHDOG = "io.lettuce.core.protocol.ConnectionWatchdog";
    private static final LoggerContext LOGBACK = (LoggerContext) LoggerFactory.getILoggerFactory();

    /** Levels set through Micronaut's logging system outlive the context: each test starts from the test config. */
    @AfterEach
    void resetLevels() {
        LodestarLettuceLogLevels.LOGGERS.forEach(logger -> LOGBACK.getLogger(logger).setLevel(null));
        LOGBACK.getLogger("io.lettuce").setLevel(null);
    }

    @Test
    void lettuceOutageLoggersDefaultToError() {
        // given an application that says nothing about Lettuce's loggers
        // when it starts
        Map<String, Level> levels = effectiveLevels(Map.of());

        // then every logger docs/redis.md names logs errors only
        assertThat(levels).hasSize(3)
                .allSatisfy((logger, level) -> assertThat(level).as(logger).isEqualTo(Level.ERROR));
    }

    @Test
    void theDefaultOutlivesARefresh() {
        // given a running application with levels of its own (without them Micronaut has no configurer to reload)
        try (ApplicationContext context = Contexts.run(Contexts.namespace(), Map.of("logger.levels.io.netty", "WARN"))) {
            // when its configuration is refreshed (Micronaut reloads the logging configuration then)
            context.publishEvent(new RefreshEvent());

            // then Lettuce's loggers still log errors only
            assertThat(levels()).allSatisfy((logger, level) -> assertThat(level).as(logger).isEqualTo(Level.ERROR));
        }
    }

    @Test
    void theApplicationsOwnLevelForTheLoggerWins() {
        // given an application that sets the watchdog's level
        // when it starts
        Map<String, Level> levels = effectiveLevels(Map.of("logger.levels." + WATCHDOG, "DEBUG"));

        // then its level holds, and the other loggers keep the default
        assertThat(levels).containsEntry(WATCHDOG, Level.DEBUG)
                .containsEntry("io.lettuce.core.protocol.ReconnectionHandler", Level.ERROR);
    }

    @Test
    void theApplicationsLevelForLettucesPackageWins() {
        // given an application that debugs all of Lettuce
        // when it starts
        Map<String, Level> levels = effectiveLevels(Map.of("logger.levels.io.lettuce", "DEBUG"));

        // then no default hides Lettuce's loggers from it
        assertThat(levels).allSatisfy((logger, level) -> assertThat(level).as(logger).isEqualTo(Level.DEBUG));
    }

    @Test
    void theSwitchLeavesLettucesLoggersAlone() {
        // given an application that turns the default off
        // when it starts
        Map<String, Level> levels = effectiveLevels(Map.of("lodestar.quiet-lettuce-logs", "false"));

        // then the loggers keep what the logging configuration gives them: the root's level (logback-test.xml)
        Level root = LOGBACK.getLogger(Logger.ROOT_LOGGER_NAME).getEffectiveLevel();
        assertThat(root).isEqualTo(Level.WARN);
        assertThat(levels).allSatisfy((logger, level) -> assertThat(level).as(logger).isEqualTo(root));
    }

    /** The effective levels of Lettuce's outage loggers while an application context with {@code extra} runs. */
    private static Map<String, Level> effectiveLevels(Map<String, Object> extra) {
        try (ApplicationContext ignored = Contexts.run(Contexts.namespace(), extra)) {
            return levels();
        }
    }

    private static Map<String, Level> levels() {
        return LodestarLettuceLogLevels.LOGGERS.stream().collect(Collectors.toMap(Function.identity(),
                logger -> LOGBACK.getLogger(logger).getEffectiveLevel()));
    }
}
