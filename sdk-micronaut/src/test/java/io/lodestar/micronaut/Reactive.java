package io.lodestar.micronaut;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Reads the single item of a publisher in a test, with a bound. */
final class Reactive {
    private Reactive() {
    }

    static <T> T single(Publisher<T> publisher, Duration timeout) {
        CompletableFuture<T> result = new CompletableFuture<>();
        publisher.subscribe(new Subscriber<T>() {
            @Override
            public void onSubscribe(Subscription subscription) {
                subscription.request(1);
            }

            @Override
            public void onNext(T item) {
                result.complete(item);
            }

            @Override
            public void onError(Throwable error) {
                result.completeExceptionally(error);
            }

            @Override
            public void onComplete() {
                result.completeExceptionally(new AssertionError("completed without an item"));
            }
        });
        return result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join();
    }
}
