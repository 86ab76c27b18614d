package io.lodestar.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEvent;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.core.annotation.Order;
import io.micronaut.core.naming.conventions.StringConvention;
import io.micronaut.core.order.Ordered;
import io.micronaut.logging.LogLevel;
import io.micronaut.logging.LoggingSystem;
import io.micronaut.runtime.context.scope.refresh.RefreshEvent;
import jakarta.inject.Singleton;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Quiets Lettuce during a Redis outage: its reconnect and topology-refresh warnings (one per connection every few
 * seconds, through netty's logging) repeat what Lodestar's {@code OutageLog} says in two lines, and a library cannot
 * lower them from inside. So the module sets the loggers docs/redis.md names to ERROR through Micronaut's
 * {@link LoggingSystem} (logback or log4j2) once the context has started, and again after each refresh: Micronaut's
 * own {@code logger.levels} configurer reloads the logging configuration then, which drops levels set before (hence
 * after it: on the {@link StartupEvent}, which follows the eager beans, and last among the refresh listeners).
 *
 * <p>The application's word wins: a logger gets no default when {@code logger.levels} sets a level for it or for one
 * of its packages (say {@code logger.levels.io.lettuce: DEBUG} to debug Lettuce), and
 * {@code lodestar.quiet-lettuce-logs: false} sets none. A level set only in a logback or log4j2 file is not seen
 * here: such an application turns the default off with that property.
 */
@Singleton
// last among the listeners: after Micronaut's logger.levels configurer, which reloads the logging configuration on a
// refresh (the listeners are ordered by this annotation)
@Order(Ordered.LOWEST_PRECEDENCE)
@Requires(beans = LoggingSystem.class)
@Requires(property = LodestarLettuceLogLevels.ENABLED, notEquals = "false")
class LodestarLettuceLogLevels implements ApplicationEventListener<ApplicationEvent> {
    /** {@code false} leaves Lettuce's loggers to the logging configuration. */
    static final String ENABLED = LodestarConfiguration.PREFIX + ".quiet-lettuce-logs";
    /** Lettuce's loggers that write during an outage (docs/redis.md, "When Redis misbehaves"). */
    static final List<String> LOGGERS = List.of("io.lettuce.core.protocol.ConnectionWatchdog",
            "io.lettuce.core.protocol.ReconnectionHandler",
            "io.lettuce.core.cluster.topology.DefaultClusterTopologyRefresh");
    private static final String LOGGER_LEVELS = "logger.levels";

    private final Environment environment;
    private final List<LoggingSystem> loggingSystems;

    LodestarLettuceLogLevels(Environment environment, List<LoggingSystem> loggingSystems) {
        this.environment = environment;
        this.loggingSystems = loggingSystems;
    }

    @Override
    public boolean supports(ApplicationEvent event) {
        return event instanceof StartupEvent || event instanceof RefreshEvent;
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        Set<String> configured = configuredLoggers(environment);
        for (String logger : LOGGERS) {
            if (!levelSetFor(configured, logger)) {
                loggingSystems.forEach(system -> system.setLogLevel(logger, LogLevel.ERROR));
            }
        }
    }

    /**
     * The loggers {@code logger.levels} names, lower case: as Micronaut's own configurer reads them, raw (from
     * files) and normalized (environment variables such as {@code LOGGER_LEVELS_IO_LETTUCE}).
     */
    private static Set<String> configuredLoggers(Environment environment) {
        Set<String> names = new HashSet<>();
        names.addAll(environment.getProperties(LOGGER_LEVELS, StringConvention.RAW).keySet());
        names.addAll(environment.getProperties(LOGGER_LEVELS).keySet());
        Set<String> lowerCase = new HashSet<>();
        names.forEach(name -> lowerCase.add(name.toLowerCase(Locale.ROOT)));
        return lowerCase;
    }

    /** Whether a level is configured for the logger or one of its packages (the root does not count). */
    private static boolean levelSetFor(Set<String> configured, String logger) {
        String name = logger.toLowerCase(Locale.ROOT);
        for (int end = name.indexOf('.'); end >= 0; end = name.indexOf('.', end + 1)) {
            if (configured.contains(name.substring(0, end))) {
                return true;
            }
        }
        return configured.contains(name);
    }
}
