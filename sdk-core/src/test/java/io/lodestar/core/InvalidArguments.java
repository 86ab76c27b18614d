package io.lodestar.core;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Test helper: runs code that must fail validation and hands back the exception, for its violations. */
public final class InvalidArguments {
    private InvalidArguments() {
    }

    /**
     * @param call code that must throw {@link InvalidArgumentException}
     * @return the exception it threw
     */
    public static InvalidArgumentException thrownBy(ThrowingCallable call) {
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).isInstanceOf(InvalidArgumentException.class);
        return (InvalidArgumentException) thrown;
    }
}
