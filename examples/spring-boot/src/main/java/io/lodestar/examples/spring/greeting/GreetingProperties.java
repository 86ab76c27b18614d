package io.lodestar.examples.spring.greeting;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code greeting.*}, imported from the config entry {@code greeting/template}. A JavaBean with a setter, not a record:
 * Spring Cloud's refresh rebinds it in place when the entry changes in Redis, so the next request sees the new value.
 */
@ConfigurationProperties("greeting")
public class GreetingProperties {
    /** The greeting; {name} is replaced by the name asked for. */
    private String template = "Hello, {name}!";

    /** @return the template */
    public String getTemplate() {
        return template;
    }

    /** @param template the template; {name} is replaced by the name asked for */
    public void setTemplate(String template) {
        this.template = template;
    }
}
