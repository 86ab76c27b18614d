package io.lodestar.spring;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Quiets Lettuce during a Redis outage: its reconnect and topology-refresh warnings (one per connection every few
 * seconds, through netty's logging) repeat what Lodestar's {@code OutageLog} says in two lines, and a library cannot
 * lower them from inside. So the starter gives the loggers docs/redis.md names a default {@code logging.level} of
 * ERROR, in a property source of the lowest precedence, added after the application's own configuration is read and
 * before {@code LoggingApplicationListener} applies the levels (Boot runs the environment post-processors first).
 *
 * <p>The application's word wins: no default is added for a logger when any property source sets
 * {@code logging.level} for it or for one of its packages (say {@code logging.level.io.lettuce=DEBUG} to debug
 * Lettuce), and {@code lodestar.quiet-lettuce-logs=false} adds none. A level set only in a logback or log4j2 file is
 * not seen here: such an application turns the default off with that property.
 */
class LodestarLettuceLogLevels implements EnvironmentPostProcessor, Ordered {
    /** The switch, {@code true} by default. */
    static final String ENABLED = LodestarProperties.PREFIX + ".quiet-lettuce-logs";
    /** Lettuce's loggers that write during an outage (docs/redis.md, "When Redis misbehaves"). */
    static final List<String> LOGGERS = List.of("io.lettuce.core.protocol.ConnectionWatchdog",
            "io.lettuce.core.protocol.ReconnectionHandler",
            "io.lettuce.core.cluster.topology.DefaultClusterTopologyRefresh");
    static final String LEVEL = "ERROR";
    private static final String SOURCE = "lodestarLettuceLogLevels";
    private static final String LOGGING_LEVEL = "logging.level.";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getProperty(ENABLED, Boolean.class, true)) {
            return;
        }
        Map<String, Object> levels = new LinkedHashMap<>();
        for (String logger : LOGGERS) {
            if (!levelSetFor(environment, logger)) {
                levels.put(LOGGING_LEVEL + logger, LEVEL);
            }
        }
        if (!levels.isEmpty()) {
            environment.getPropertySources().addLast(new MapPropertySource(SOURCE, levels));
        }
    }

    /** Whether the application sets a level for the logger or one of its packages (the root does not count). */
    private static boolean levelSetFor(ConfigurableEnvironment environment, String logger) {
        for (int end = logger.indexOf('.'); ; end = logger.indexOf('.', end + 1)) {
            String name = end < 0 ? logger : logger.substring(0, end);
            if (environment.containsProperty(LOGGING_LEVEL + name)) {
                return true;
            }
            if (end < 0) {
                return false;
            }
        }
    }

    /** After every other post-processor, so that the application's configuration (config data) is there to see. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
