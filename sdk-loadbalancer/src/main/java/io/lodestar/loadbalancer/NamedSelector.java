package io.lodestar.loadbalancer;

/**
 * Base of the ready-made selectors: they know a short stage name ({@code "zone"}), used as a count key in
 * {@link NoInstanceAvailableException}, and a criterion ({@code "zone=eu-1 preferred"}), used in its message.
 */
abstract class NamedSelector implements Selector {
    private final String stage;
    private final String criterion;

    NamedSelector(String stage, String criterion) {
        this.stage = stage;
        this.criterion = criterion;
    }

    final String stage() {
        return stage;
    }

    final String criterion() {
        return criterion;
    }

    @Override
    public final String toString() {
        return criterion;
    }
}
