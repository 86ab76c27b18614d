package io.lodestar.micronaut;

import io.micronaut.context.annotation.ConfigurationProperties;

/** A {@code @ConfigurationProperties} bean of an application. */
@ConfigurationProperties("shop")
class ShopProperties {
    private int maxItems;

    public int getMaxItems() {
        return maxItems;
    }

    public void setMaxItems(int maxItems) {
        this.maxItems = maxItems;
    }
}
