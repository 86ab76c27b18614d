package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * Live refresh of {@code spring.config.import=lodestar:…} entries through Spring Cloud Context's refresh, when it is
 * on the class path. Off with {@code lodestar.config.refresh.enabled=false}.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.cloud.context.refresh.ContextRefresher")
@ConditionalOnBooleanProperty(name = "lodestar.config.refresh.enabled", matchIfMissing = true)
@ConditionalOnBean({LodestarClient.class, LodestarConfigImports.class})
public class LodestarConfigRefreshAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LodestarConfigRefresher lodestarConfigRefresher(LodestarClient lodestar, LodestarConfigImports imports,
                                                    ApplicationEventPublisher publisher) {
        return new LodestarConfigRefresher(lodestar, imports, publisher);
    }
}
