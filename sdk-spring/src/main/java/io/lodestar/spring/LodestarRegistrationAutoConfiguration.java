package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;
import org.springframework.cloud.commons.util.InetUtils;
import org.springframework.cloud.commons.util.InetUtilsProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The application's own registration: registered when the context has started (after the web server), drained and
 * deregistered during shutdown around the web server's graceful shutdown; Spring Cloud's {@link ServiceRegistry} and
 * {@link Registration} for {@code /actuator/serviceregistry}. A non-web application registers when {@code
 * lodestar.registration.port} is set. Off with {@code lodestar.registration.enabled=false}.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class,
        afterName = "org.springframework.cloud.commons.util.UtilAutoConfiguration")
@ConditionalOnBooleanProperty(name = "lodestar.registration.enabled", matchIfMissing = true)
@ConditionalOnBean(LodestarClient.class)
public class LodestarRegistrationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LodestarAutoRegistration lodestarAutoRegistration(LodestarClient lodestar, LodestarProperties properties,
                                                      Environment environment, ObjectProvider<InetUtils> inetUtils) {
        return new LodestarAutoRegistration(lodestar, properties.getRegistration(),
                environment.getProperty("spring.application.name"),
                () -> defaultHost(environment, inetUtils.getIfAvailable()), properties.isFailFast());
    }

    /**
     * The host registered when {@code lodestar.registration.host} is not set: the address the web server is bound to
     * ({@code server.address}), unless it binds every interface; else Spring Cloud's choice of address.
     */
    static String defaultHost(Environment environment, InetUtils inetUtils) {
        String bound = environment.getProperty("server.address");
        if (bound != null && !bound.isBlank() && !isWildcard(bound.strip())) {
            return bound.strip();
        }
        return firstNonLoopbackAddress(inetUtils);
    }

    private static boolean isWildcard(String address) {
        return address.equals("0.0.0.0") || address.equals("::") || address.equals("0:0:0:0:0:0:0:0")
                || address.equals("[::]");
    }

    /** Spring Cloud's choice of address (its {@code spring.cloud.inetutils.*} apply when its bean is there). */
    private static String firstNonLoopbackAddress(InetUtils shared) {
        if (shared != null) {
            return shared.findFirstNonLoopbackHostInfo().getIpAddress();
        }
        try (InetUtils own = new InetUtils(new InetUtilsProperties())) {
            return own.findFirstNonLoopbackHostInfo().getIpAddress();
        }
    }

    @Bean
    @ConditionalOnMissingBean
    LodestarDeregistration lodestarDeregistration(LodestarClient lodestar) {
        return new LodestarDeregistration(lodestar);
    }

    @Bean
    @ConditionalOnMissingBean
    ServiceRegistry<Registration> lodestarServiceRegistry(LodestarClient lodestar) {
        return new LodestarServiceRegistry(lodestar);
    }

    @Bean
    @ConditionalOnMissingBean
    Registration lodestarRegistration(LodestarAutoRegistration registration) {
        return new LodestarRegistration(registration::registered);
    }

    /** Tells the registration the web server's port; a management server on its own port is not registered. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(WebServerInitializedEvent.class)
    static class WebServerPort {
        @Bean
        @ConditionalOnMissingBean(name = "lodestarWebServerPortListener")
        PortListener lodestarWebServerPortListener(LodestarAutoRegistration registration) {
            return new PortListener(registration);
        }
    }

    /** A class, not a lambda, so that Spring sees which events it takes. */
    static final class PortListener implements ApplicationListener<WebServerInitializedEvent> {
        private final LodestarAutoRegistration registration;

        PortListener(LodestarAutoRegistration registration) {
            this.registration = registration;
        }

        @Override
        public void onApplicationEvent(WebServerInitializedEvent event) {
            if (!"management".equals(event.getApplicationContext().getServerNamespace())) {
                registration.webServerStarted(event.getWebServer().getPort());
            }
        }
    }
}
