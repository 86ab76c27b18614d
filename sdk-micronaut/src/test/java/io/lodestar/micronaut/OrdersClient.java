package io.lodestar.micronaut;

import io.micronaut.http.annotation.Get;
import io.micronaut.http.client.annotation.Client;

/** A declarative client of the {@code orders} service, resolved through discovery. */
@Client(id = "orders")
interface OrdersClient {
    @Get(value = "/whoami", consumes = "text/plain")
    String whoami();
}
