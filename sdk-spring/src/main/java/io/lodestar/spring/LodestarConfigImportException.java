package io.lodestar.spring;

import io.lodestar.core.UnavailableException;

/**
 * A non-optional {@code spring.config.import=lodestar:<config-id>} that could not be read because Redis could not be
 * reached; {@link LodestarUnavailableFailureAnalyzer} tells how to start anyway.
 */
class LodestarConfigImportException extends IllegalStateException {
    private final String location;

    LodestarConfigImportException(LodestarConfigDataResource resource, UnavailableException cause) {
        super("Cannot import " + resource + " (spring.config.import): " + cause.getMessage(), cause);
        this.location = resource.toString();
    }

    /** @return the import as written, e.g. {@code lodestar:orders/limits} */
    String location() {
        return location;
    }
}
