package io.lodestar.cli;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import picocli.CommandLine;

import java.util.Locale;

/**
 * The words the CLI's arguments and the console's requests name a config format, an instance status or a weight
 * by, in any case: one reading for both, with one message for a word that names none.
 */
final class Converters {
    private Converters() {
    }

    /** {@code yaml}, {@code YAML} and {@code Yaml} all name the same format. */
    static final class Format implements CommandLine.ITypeConverter<ConfigFormat> {
        @Override
        public ConfigFormat convert(String value) {
            try {
                return ConfigFormat.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("format must be one of properties, yaml, json, text,"
                        + " but was " + Validation.show(value));
            }
        }
    }

    /** {@code out-of-service}, {@code OUT_OF_SERVICE} and {@code Out_Of_Service} all name the same status. */
    static final class Status implements CommandLine.ITypeConverter<InstanceStatus> {
        @Override
        public InstanceStatus convert(String value) {
            try {
                return InstanceStatus.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("status must be one of up, down, out-of-service,"
                        + " starting, but was " + Validation.show(value));
            }
        }
    }

    /**
     * A weight is a whole number; its range is the registry's to check (the same rule and message as a
     * registration's), so only a word that is no number at all is refused here.
     */
    static final class Weight implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            try {
                return Integer.valueOf(value.trim());
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("weight must be a whole number between "
                        + Validation.MIN_WEIGHT + " and " + Validation.MAX_WEIGHT + ", but was "
                        + Validation.show(value));
            }
        }
    }
}
