package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.Violation;

import java.util.HashMap;
import java.util.Map;

/**
 * The attributes of one request that routing may look at, such as a canary hint header or a user id for sticky
 * canary bucketing. Adapters wrap what they have (e.g. {@code headers::getFirst}); plain callers use
 * {@link #of(Map)} or {@link #NONE}.
 */
@FunctionalInterface
public interface RequestContext {
    /** A request without attributes. */
    RequestContext NONE = name -> null;

    /**
     * @param name the attribute name, e.g. a header name
     * @return its value, or {@code null} when the request does not carry it
     */
    String attribute(String name);

    /**
     * @param attributes the attributes; copied
     * @return a context answering from a copy of {@code attributes}
     * @throws InvalidArgumentException when {@code attributes} is null or holds a null key or value
     */
    static RequestContext of(Map<String, String> attributes) {
        Validation.requireNonNull("attributes", attributes);
        Map<String, String> copy = new HashMap<>();
        attributes.forEach((key, value) -> {
            if (key == null || value == null) {
                throw new InvalidArgumentException(new Violation("attributes[" + key + "]", Validation.show(value),
                        "a non-null key with a non-null value"));
            }
            copy.put(key, value);
        });
        Map<String, String> frozen = Map.copyOf(copy);
        return frozen::get;
    }
}
