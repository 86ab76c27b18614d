package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.Subscription;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes Spring Cloud's {@link HeartbeatEvent} when services appear in or disappear from the namespace, with the
 * set of services as its value: what Spring Cloud Gateway's discovery locator watches to rebuild its routes.
 */
class LodestarHeartbeatPublisher implements SmartInitializingSingleton, DisposableBean {
    private final LodestarClient lodestar;
    private final ApplicationEventPublisher publisher;
    private volatile Subscription subscription;

    LodestarHeartbeatPublisher(LodestarClient lodestar, ApplicationEventPublisher publisher) {
        this.lodestar = lodestar;
        this.publisher = publisher;
    }

    @Override
    public void afterSingletonsInstantiated() {
        subscription = lodestar.discovery().subscribeServices(
                change -> publisher.publishEvent(new HeartbeatEvent(this, change.services())));
    }

    @Override
    public void destroy() {
        Subscription current = subscription;
        if (current != null) {
            current.close();
        }
    }
}
