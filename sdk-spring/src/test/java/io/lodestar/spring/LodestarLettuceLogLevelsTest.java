package io.lodestar.spring;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter quiets Lettuce's outage warnings by default, and the application's own logging configuration wins:
 * each test starts an application and reads the effective levels from Boot's logging system (logback here).
 */
class LodestarLettuceLogLevelsTest {
    private static final String WATCHDOG = "io.lettuce.core.protocol.ConnectionWatchdog";

    @Configuration(proxyBeanMethods = false)
    static class App {
    }

    @Test
    void lettuceOutageLoggersDefaultToError() {
        // given an application that says nothing about Lettuce's loggers
        // when it starts
        Map<String, LogLevel> levels = effectiveLevels().lettuce();

        // then every logger docs/redis.md names logs errors only
        assertThat(LodestarLettuceLogLevels.LOGGERS).hasSize(3);
        assertThat(levels).containsOnlyKeys(LodestarLettuceLogLevels.LOGGERS)
                .allSatisfy((logger, level) -> assertThat(level).as(logger).isEqualTo(LogLevel.ERROR));
    }

    @Test
    void theApplicationsOwnLevelForTheLoggerWins() {
        // given an application that sets the watchdog's level
        // when it starts
        Map<String, LogLevel> levels = effectiveLevels("--logging.level." + WATCHDOG + "=DEBUG").lettuce();

        // then its level holds, and the other loggers keep the default
        assertThat(levels).containsEntry(WATCHDOG, LogLevel.DEBUG)
                .containsEntry("io.lettuce.core.protocol.ReconnectionHandler", LogLevel.ERROR);
    }

    @Test
    void theApplicationsLevelForLettucesPackageWins() {
        // given an application that debugs all of Lettuce
        // when it starts
        Map<String, LogLevel> levels = effectiveLevels("--logging.level.io.lettuce=DEBUG").lettuce();

        // then no default hides Lettuce's loggers from it
        assertThat(levels).allSatisfy((logger, level) -> assertThat(level).as(logger).isEqualTo(LogLevel.DEBUG));
    }

    @Test
    void theSwitchLeavesLettucesLoggersAlone() {
        // given an application that turns the default off
        // when it starts
        Levels levels = effectiveLevels("--lodestar.quiet-lettuce-logs=false");

        // then the loggers keep what the logging configuration gives them: the root's level
        assertThat(levels.root()).isNotEqualTo(LogLevel.ERROR);
        assertThat(levels.lettuce()).allSatisfy((logger, level) -> assertThat(level).as(logger).isEqualTo(levels.root()));
    }

    /** The effective levels of Lettuce's outage loggers, and the root's, in a freshly started application. */
    private record Levels(Map<String, LogLevel> lettuce, LogLevel root) {
    }

    private static Levels effectiveLevels(String... args) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).run(args)) {
            LoggingSystem logging = context.getBean(LoggingSystem.class);
            // logback describes only the loggers that exist, and Lettuce has not created its own here
            Function<String, LogLevel> effective = logger -> {
                LoggerFactory.getLogger(logger);
                return logging.getLoggerConfiguration(logger).getEffectiveLevel();
            };
            return new Levels(LodestarLettuceLogLevels.LOGGERS.stream()
                    .collect(Collectors.toMap(Function.identity(), effective)),
                    effective.apply(LoggingSystem.ROOT_LOGGER_NAME));
        }
    }
}
