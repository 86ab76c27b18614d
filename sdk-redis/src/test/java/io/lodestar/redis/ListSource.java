package io.lodestar.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The topics of the view unit tests: a topic's value is a list of strings, an event {@code {"value": v}} appends v
 * (unless held) and is heard as {@code "revision:v"}, an event with a {@code type} is one this version does not know. Subclasses
 * decide how loads complete.
 */
abstract class ListSource implements ViewSource<List<String>, String> {
    @Override
    public String channel(String id) {
        return "channel:" + id;
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Void>> stamp(String id) {
        return CompletableFuture.completedFuture(new SyncedView.Versioned<>(0, null));
    }

    @Override
    public ViewSource.Batch<List<String>, String> batch(String id, SyncedView.Versioned<List<String>> current) {
        List<String> values = new ArrayList<>(current.value());
        List<String> events = new ArrayList<>();
        return new ViewSource.Batch<>() {
            @Override
            public void apply(ViewSource.Message message) {
                if (message.fields().containsKey("type")) {
                    throw new IllegalArgumentException("unknown event type " + message.fields().get("type"));
                }
                String value = (String) message.fields().get("value");
                if (!values.contains(value)) { // written again (after Redis lost it): held once
                    values.add(value);
                }
                events.add(message.revision() + ":" + message.fields().get("value"));
            }

            @Override
            public List<String> value() {
                return List.copyOf(values);
            }

            @Override
            public List<String> events() {
                return events;
            }
        };
    }

    @Override
    public String resynced(String id, SyncedView.Versioned<List<String>> before,
                           SyncedView.Versioned<List<String>> after) {
        return before.value().equals(after.value()) ? null : "resynced@" + after.revision();
    }
}
