package io.lodestar.examples.micronaut.greeting;

import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.runtime.context.scope.Refreshable;

/**
 * The greeting template, from property {@code greeting.template}: Lodestar config {@code greeting/template} provides
 * it (its property source ranks above the application's files, which hold a fallback). {@code @Refreshable}: when the config changes in Redis, Lodestar publishes a {@code RefreshEvent} and
 * the next call sees a new instance of this bean, with the new value.
 */
@Refreshable
@Requires(env = GreetingApplication.ENVIRONMENT)
public class GreetingTemplate {
    private final String template;

    GreetingTemplate(@Value("${greeting.template}") String template) {
        this.template = template;
    }

    /**
     * @param name who is greeted
     * @return the template with {@code {name}} replaced
     */
    public String render(String name) {
        return template.replace("{name}", name);
    }
}
