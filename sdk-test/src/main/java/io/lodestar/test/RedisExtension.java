package io.lodestar.test;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit Jupiter extension that resolves parameters of test methods, constructors and lifecycle methods:
 * <ul>
 *   <li>{@link RedisServer}: the shared standalone server, {@link TestRedis#standalone()};</li>
 *   <li>{@link RedisCluster}: the shared cluster, {@link TestRedis#cluster()};</li>
 *   <li>either annotated {@link Private}: a fresh one, closed by this extension when the extension context
 *       that asked for it ends (the test method, or the class for {@code @BeforeAll} parameters).</li>
 * </ul>
 * Register it with {@link RedisTest} or {@code @ExtendWith(RedisExtension.class)}. If no Redis can be found,
 * parameter resolution fails with the message of {@link TestRedis}, which says what to install.
 */
public final class RedisExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final AtomicLong PRIVATE_COUNT = new AtomicLong();

    /** Creates the extension; JUnit does this for {@code @ExtendWith}. */
    public RedisExtension() {
    }

    /**
     * Supports parameters declared as exactly {@link RedisServer} or {@link RedisCluster}.
     *
     * @param parameterContext the parameter
     * @param extensionContext the current extension context
     * @return whether this extension resolves the parameter
     */
    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisServer.class || type == RedisCluster.class;
    }

    /**
     * Returns the shared server or cluster, or starts a private one for a {@link Private} parameter and puts it
     * in the extension context's store, which closes it when the context ends.
     *
     * @param parameterContext the parameter
     * @param extensionContext the current extension context
     * @return a {@link RedisServer} or a {@link RedisCluster}
     * @throws ParameterResolutionException if the server or cluster cannot be started
     */
    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        boolean cluster = parameterContext.getParameter().getType() == RedisCluster.class;
        try {
            if (!parameterContext.isAnnotated(Private.class)) {
                return cluster ? TestRedis.cluster() : TestRedis.standalone();
            }
            AutoCloseable resource = cluster ? TestRedis.startCluster() : TestRedis.startStandalone();
            String key = "private-" + PRIVATE_COUNT.incrementAndGet() + "-" + parameterContext.getParameter();
            extensionContext.getStore(NAMESPACE).put(key, resource);
            return resource;
        } catch (RuntimeException e) {
            throw new ParameterResolutionException("Cannot provide " + (cluster ? "a Redis Cluster" : "a Redis server")
                    + " for parameter [" + parameterContext.getParameter() + "] of "
                    + parameterContext.getDeclaringExecutable() + ": " + e.getMessage(), e);
        }
    }
}
