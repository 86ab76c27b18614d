package io.lodestar.core.internal;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.Violation;
import io.lodestar.core.model.InstanceStatus;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Every input rule of Lodestar, in one place. The limits are public constants so that documentation, tests and
 * callers can refer to them; every check reports {@code "<field> must be <rule>, but was <value>"}.
 *
 * <p>Use the static {@code require…} methods for a single value, or {@link #collector()} to check several
 * fields and report all broken rules at once.
 */
public final class Validation {
    /** Longest namespace name. */
    public static final int MAX_NAMESPACE_LENGTH = 64;
    /** Longest service, instance or config id. */
    public static final int MAX_ID_LENGTH = 128;
    /** Longest host name (the DNS limit). */
    public static final int MAX_HOST_LENGTH = 253;
    /** Lowest and highest instance weight; 0 means "registered but never chosen". */
    public static final int MIN_WEIGHT = 0, MAX_WEIGHT = 10_000;
    /** The weight an instance gets when none is given. */
    public static final int DEFAULT_WEIGHT = 100;
    /** Shortest and longest time-to-live of an ephemeral instance. */
    public static final Duration MIN_TTL = Duration.ofSeconds(1), MAX_TTL = Duration.ofDays(1);
    /** The TTL an instance gets when none is given. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);
    /** Most metadata entries on one instance. */
    public static final int MAX_METADATA_ENTRIES = 64;
    /** Longest metadata key. */
    public static final int MAX_METADATA_KEY_LENGTH = 128;
    /** Longest metadata value. */
    public static final int MAX_METADATA_VALUE_LENGTH = 1024;
    /**
     * Largest config content (1 MiB). A write counts the bytes as stored: UTF-8, where the history's JSON escapes
     * count too ({@code "}, {@code \}, {@code /} and the control characters with a short escape take 2 bytes, other
     * control characters 6), so no history version takes more than this; see
     * {@link Collector#configContentAsStored}.
     */
    public static final int MAX_CONFIG_CONTENT_BYTES = 1024 * 1024;
    /** Fewest and most config versions kept in history. */
    public static final int MIN_HISTORY = 1, MAX_HISTORY = 1000;

    // Checked by hand, not by regular expressions: every instance a view applies or a direct read returns is
    // validated again (events can be forged), and a Matcher per field was a large share of that cost.
    /** Besides letters and digits (which must come first), the characters each kind of id may hold. */
    private static final String NAMESPACE_CHARS = "._-";
    private static final String SERVICE_ID_CHARS = "._-";
    private static final String INSTANCE_ID_CHARS = "._:@-";
    private static final String CONFIG_ID_CHARS = "._/-";
    private static final String METADATA_KEY_CHARS = "._/-";
    /** The characters of an IPv6 literal with an optional zone (scope id), as {@link URI} accepts them. */
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+(%[A-Za-z0-9._]+)?");

    static final String NAMESPACE_RULE = "1-" + MAX_NAMESPACE_LENGTH
            + " characters of [A-Za-z0-9._-], starting with a letter or digit";
    static final String SERVICE_ID_RULE = "1-" + MAX_ID_LENGTH
            + " characters of [A-Za-z0-9._-], starting with a letter or digit";
    static final String INSTANCE_ID_RULE = "1-" + MAX_ID_LENGTH
            + " characters of [A-Za-z0-9._:@-], starting with a letter or digit";
    static final String CONFIG_ID_RULE = "1-" + MAX_ID_LENGTH
            + " characters of [A-Za-z0-9._/-], starting with a letter or digit";
    static final String HOST_RULE = "a host name (dot-separated labels of [A-Za-z0-9-], none empty or starting or"
            + " ending with '-') or an IP address (IPv6 with or without brackets) of 1-" + MAX_HOST_LENGTH
            + " characters";
    static final String WELL_FORMED_RULE = "well-formed text (no unpaired surrogate: it cannot be stored as UTF-8)";
    static final String METADATA_KEY_RULE = "1-" + MAX_METADATA_KEY_LENGTH
            + " characters of [A-Za-z0-9._/-], starting with a letter or digit";
    // Rules built from non-constant values, built once: a check that passes must not allocate (every write and
    // every instance a view applies or a direct read returns runs them).
    static final String TTL_RULE = "between " + MIN_TTL + " and " + MAX_TTL + " in whole milliseconds";
    static final String METADATA_VALUE_RULE = "non-null and at most " + MAX_METADATA_VALUE_LENGTH + " characters";

    private Validation() {
    }

    /** @return a collector that gathers the violations of several checks */
    public static Collector collector() {
        return new Collector();
    }

    /**
     * @param namespace the namespace name
     * @return the name, when valid
     * @throws InvalidArgumentException when it breaks {@value #MAX_NAMESPACE_LENGTH}-character or charset rules
     */
    public static String requireNamespace(String namespace) {
        return collector().namespace("namespace", namespace).throwIfInvalid(namespace);
    }

    /**
     * @param serviceId a service id
     * @return the id, when valid
     * @throws InvalidArgumentException when it is null, empty, too long or has a character outside the set
     */
    public static String requireServiceId(String serviceId) {
        return collector().serviceId("serviceId", serviceId).throwIfInvalid(serviceId);
    }

    /**
     * @param instanceId an instance id
     * @return the id, when valid
     * @throws InvalidArgumentException when it is null, empty, too long or has a character outside the set
     */
    public static String requireInstanceId(String instanceId) {
        return collector().instanceId("instanceId", instanceId).throwIfInvalid(instanceId);
    }

    /**
     * @param configId a config id
     * @return the id, when valid
     * @throws InvalidArgumentException when it is null, empty, too long or has a character outside the set
     */
    public static String requireConfigId(String configId) {
        return collector().configId("configId", configId).throwIfInvalid(configId);
    }

    /**
     * @param content config content
     * @return the content, when valid
     * @throws InvalidArgumentException when it is null, not well-formed, or larger than
     *     {@value #MAX_CONFIG_CONTENT_BYTES} bytes as stored
     */
    public static String requireConfigContent(String content) {
        return collector().configContentAsStored("content", content).throwIfInvalid(content);
    }

    /**
     * @param field the argument's name for the message
     * @param value the value
     * @param <T>   its type
     * @return the value, when not null
     * @throws InvalidArgumentException when it is null
     */
    public static <T> T requireNonNull(String field, T value) {
        return collector().notNull(field, value).throwIfInvalid(value);
    }

    /**
     * Shows a value in a message: quoted, shortened to 64 characters, {@code null} as {@code null}. A backslash is
     * doubled and every character that does not show as itself is escaped Java-style (a backslash and {@code n},
     * {@code r}, {@code t} or {@code u} and four hex digits): controls, format characters such as the right-to-left
     * override U+202E and zero-width spaces, line and paragraph separators, spaces other than U+0020, private-use
     * and unassigned code points, lone surrogates. So input can never forge a log line, reorder what a reader sees
     * or send a terminal escape.
     *
     * @param value any value
     * @return its printable form
     */
    public static String show(Object value) {
        if (value == null) {
            return "null";
        }
        String text = escape(shorten(value.toString()), true);
        return value instanceof CharSequence ? "'" + text + "'" : text;
    }

    /**
     * A field name that carries a key from the input, e.g. {@code metadata[zone]}: the key shortened and escaped
     * as {@link #show} does, unquoted.
     *
     * @param field the field, e.g. {@code metadata}
     * @param key   the key within it
     * @return {@code field[key]}, printable
     */
    public static String keyed(String field, Object key) {
        return field + "[" + escape(shorten(String.valueOf(key)), true) + "]";
    }

    /**
     * The text with every character that {@link #show} escapes escaped, except that a backslash stays as it is:
     * applying it twice changes nothing, so {@link Violation} can apply it to text that {@link #show} made already.
     *
     * @param text any text
     * @return the text, printable
     */
    public static String printable(String text) {
        return escape(text, false);
    }

    /**
     * The whole text with every character that {@link #show} escapes escaped, the backslash too, neither shortened
     * nor quoted: for a log line that quotes untrusted text (the console's audit line).
     *
     * @param text any text
     * @return the text, printable, and read back unambiguously
     */
    public static String escaped(String text) {
        return escape(text, true);
    }

    private static String shorten(String text) {
        return text.length() > 64 ? text.substring(0, 61) + "...(" + text.length() + " chars)" : text;
    }

    private static String escape(String text, boolean backslashes) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String escaped = switch (c) {
                case '\\' -> backslashes ? "\\\\" : null;
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> c >= ' ' && c < 0x7f || shows(text, i) ? null : String.format("\\u%04x", (int) c);
            };
            if (escaped != null && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (escaped != null) {
                    out.append(escaped);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }

    /** Whether the char at {@code i} shows as itself: false for what could hide text or change how it reads. */
    private static boolean shows(String text, int i) {
        char c = text.charAt(i);
        int codePoint = c;
        if (Character.isHighSurrogate(c)) {
            if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                return false;
            }
            codePoint = Character.toCodePoint(c, text.charAt(i + 1));
        } else if (Character.isLowSurrogate(c)) {
            if (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1))) {
                return false;
            }
            codePoint = Character.toCodePoint(text.charAt(i - 1), c);
        }
        // Both halves of a pair answer for the code point, so a hidden one (a tag character, U+E0001-U+E007F) is
        // escaped as its two halves.
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                    Character.SPACE_SEPARATOR, Character.PRIVATE_USE, Character.UNASSIGNED, Character.SURROGATE ->
                    false;
            default -> true;
        };
    }

    /** Gathers the violations of several checks, so one exception reports every broken rule. */
    public static final class Collector {
        /** Created at the first violation: most collectors never see one. */
        private List<Violation> violations;

        private Collector() {
        }

        /**
         * Records a violation unconditionally.
         *
         * @param field the field
         * @param value the offending value
         * @param rule  what it must be
         * @return this collector
         */
        public Collector add(String field, Object value, String rule) {
            if (violations == null) {
                violations = new ArrayList<>();
            }
            violations.add(new Violation(field, show(value), rule));
            return this;
        }

        /**
         * Records a violation when {@code ok} is false.
         *
         * @param ok    whether the rule holds
         * @param field the field
         * @param value the value
         * @param rule  what it must be
         * @return this collector
         */
        public Collector check(boolean ok, String field, Object value, String rule) {
            return ok ? this : add(field, value, rule);
        }

        /** @return this collector, with a violation when {@code value} is null */
        public Collector notNull(String field, Object value) {
            return check(value != null, field, value, "non-null");
        }

        /** @return this collector, with a violation when {@code value} is not a valid namespace */
        public Collector namespace(String field, String value) {
            return matches(field, value, NAMESPACE_CHARS, MAX_NAMESPACE_LENGTH, NAMESPACE_RULE);
        }

        /**
         * @return this collector, with a violation when {@code value} is not a valid region name (the rule of a
         *     namespace: a region names a Redis, the way a namespace names a part of one)
         */
        public Collector region(String field, String value) {
            return matches(field, value, NAMESPACE_CHARS, MAX_NAMESPACE_LENGTH, NAMESPACE_RULE);
        }

        /** @return this collector, with a violation when {@code value} is not a valid service id */
        public Collector serviceId(String field, String value) {
            return matches(field, value, SERVICE_ID_CHARS, MAX_ID_LENGTH, SERVICE_ID_RULE);
        }

        /** @return this collector, with a violation when {@code value} is null or a status only ever read */
        public Collector writableStatus(String field, InstanceStatus value) {
            return check(value != null && value != InstanceStatus.UNKNOWN, field, value,
                    "UP, DOWN, OUT_OF_SERVICE or STARTING (UNKNOWN only stands for a newer client's status)");
        }

        /** @return this collector, with a violation for a null collection and for every invalid service id in it */
        public Collector serviceIds(String field, Collection<String> values) {
            if (values == null) {
                return notNull(field, null);
            }
            int index = 0;
            for (String value : values) {
                serviceId(field + "[" + index++ + "]", value);
            }
            return this;
        }

        /** @return this collector, with a violation for a null collection and for every null element in it */
        public Collector elements(String field, Collection<?> values) {
            if (values == null) {
                return notNull(field, null);
            }
            int index = 0;
            for (Object value : values) {
                if (value == null) {
                    notNull(field + "[" + index + "]", null);
                }
                index++;
            }
            return this;
        }

        /** @return this collector, with a violation when {@code value} is not a valid instance id */
        public Collector instanceId(String field, String value) {
            return matches(field, value, INSTANCE_ID_CHARS, MAX_ID_LENGTH, INSTANCE_ID_RULE);
        }

        /** @return this collector, with a violation when {@code value} is not a valid config id */
        public Collector configId(String field, String value) {
            return matches(field, value, CONFIG_ID_CHARS, MAX_ID_LENGTH, CONFIG_ID_RULE);
        }

        /** @return this collector, with a violation when {@code value} is not a usable host name or address */
        public Collector host(String field, String value) {
            return check(isHost(value), field, value, HOST_RULE);
        }

        // Only what can stand as the host of an http URI passes: anything else made ServiceInstance.uri() throw
        // ("a%b", "a|b", "[::1]", "host:8080") or point at another host ("a@b", "a/b").
        private static boolean isHost(String value) {
            if (value == null || value.isEmpty() || value.length() > MAX_HOST_LENGTH) {
                return false;
            }
            if (value.indexOf(':') < 0) {
                return isIpv4(value) || isHostName(value);
            }
            String literal = value.startsWith("[") && value.endsWith("]") && value.length() > 2
                    ? value.substring(1, value.length() - 1) : value;
            if (!IPV6_CHARS.matcher(literal).matches()) {
                return false;
            }
            try {
                // The JDK's parser knows the IPv6 grammar ("1::2::3" and "1:2" are not addresses).
                new URI("http://[" + literal + "]").parseServerAuthority();
                return true;
            } catch (URISyntaxException e) {
                return false;
            }
        }

        /** Four decimal numbers of 0-255 separated by dots, as the JDK's URI parser reads an IPv4 address. */
        private static boolean isIpv4(String value) {
            int i = 0;
            for (int part = 0; part < 4; part++) {
                if (part > 0) {
                    if (i >= value.length() || value.charAt(i) != '.') {
                        return false;
                    }
                    i++;
                }
                int start = i;
                int number = 0;
                while (i < value.length() && isAsciiDigit(value.charAt(i))) {
                    number = Math.min(number * 10 + value.charAt(i) - '0', 256);
                    i++;
                }
                if (i == start || number > 255) {
                    return false;
                }
            }
            return i == value.length();
        }

        /**
         * A host name as the JDK's URI parser (RFC 2396) takes it, so that {@code ServiceInstance.uri()} points at
         * it: labels of letters, digits and inner '-' separated by single dots, an optional final dot, and, when
         * there is more than one label, a last label that starts with a letter ("999.1.1.1" is neither).
         */
        private static boolean isHostName(String value) {
            int i = 0;
            int lastLabel = -1;
            while (i < value.length()) {
                if (!isAsciiAlphanumeric(value.charAt(i))) {
                    return false;
                }
                lastLabel = i;
                while (i < value.length() && (isAsciiAlphanumeric(value.charAt(i)) || value.charAt(i) == '-')) {
                    i++;
                }
                if (value.charAt(i - 1) == '-') {
                    return false;
                }
                if (i < value.length()) {
                    if (value.charAt(i) != '.') {
                        return false;
                    }
                    i++;
                }
            }
            return lastLabel == 0 || (lastLabel > 0 && isAsciiLetter(value.charAt(lastLabel)));
        }

        private static boolean isAsciiLetter(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }

        private static boolean isAsciiDigit(char c) {
            return c >= '0' && c <= '9';
        }

        private static boolean isAsciiAlphanumeric(char c) {
            return isAsciiLetter(c) || isAsciiDigit(c);
        }

        /** @return this collector, with a violation when {@code value} is not a TCP port */
        public Collector port(String field, int value) {
            return value >= 1 && value <= 65_535 ? this : add(field, value, "between 1 and 65535");
        }

        /** @return this collector, with a violation when {@code value} is outside the weight range */
        public Collector weight(String field, int value) {
            return value >= MIN_WEIGHT && value <= MAX_WEIGHT ? this
                    : add(field, value, "between " + MIN_WEIGHT + " and " + MAX_WEIGHT);
        }

        /**
         * @return this collector, with a violation when {@code value} is not an ephemeral TTL: Redis keeps
         *     milliseconds, so a finer part would be dropped silently and is rejected instead
         */
        public Collector ttl(String field, Duration value) {
            return check(value != null && value.compareTo(MIN_TTL) >= 0 && value.compareTo(MAX_TTL) <= 0
                    && value.getNano() % 1_000_000 == 0, field, value, TTL_RULE);
        }

        /**
         * @param field the field
         * @param value the duration
         * @param min   shortest allowed
         * @param max   longest allowed
         * @return this collector, with a violation when {@code value} is null or outside {@code [min, max]}
         */
        public Collector duration(String field, Duration value, Duration min, Duration max) {
            boolean ok = value != null && value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
            return ok ? this : add(field, value, "between " + min + " and " + max);
        }

        /**
         * @param field the field
         * @param value the duration
         * @return this collector, with a violation when {@code value} is null, zero or negative
         */
        public Collector positive(String field, Duration value) {
            return check(value != null && !value.isNegative() && !value.isZero(), field, value, "positive");
        }

        /**
         * @param field the field
         * @param value the number
         * @param min   lowest allowed
         * @param max   highest allowed
         * @return this collector, with a violation when {@code value} is outside {@code [min, max]}
         */
        public Collector range(String field, long value, long min, long max) {
            return value >= min && value <= max ? this : add(field, value, "between " + min + " and " + max);
        }

        /** @return this collector, with violations for every broken metadata rule */
        public Collector metadata(String field, Map<String, String> value) {
            if (value == null) {
                return notNull(field, null);
            }
            if (value.size() > MAX_METADATA_ENTRIES) {
                add(field + ".size", value.size(), "at most " + MAX_METADATA_ENTRIES + " entries");
            }
            // A loop, not forEach with a lambda, and field names built only for a violation: no allocation when
            // every entry is valid.
            for (Map.Entry<String, String> pair : value.entrySet()) {
                String key = pair.getKey();
                String entry = pair.getValue();
                if (!isMatch(key, METADATA_KEY_CHARS, MAX_METADATA_KEY_LENGTH)) {
                    add(field + " key", key, METADATA_KEY_RULE);
                }
                if (entry == null || entry.length() > MAX_METADATA_VALUE_LENGTH) {
                    add(keyed(field, key), entry, METADATA_VALUE_RULE);
                }
                if (entry != null && !isWellFormed(entry)) {
                    add(keyed(field, key), entry, WELL_FORMED_RULE);
                }
            }
            return this;
        }

        /** @return this collector, with a violation when {@code value} is null or over the size limit */
        public Collector configContent(String field, String value) {
            if (value == null) {
                return notNull(field, null);
            }
            if (!isWellFormed(value)) {
                return add(field, value, WELL_FORMED_RULE);
            }
            long bytes = value.length() > MAX_CONFIG_CONTENT_BYTES / 3
                    ? value.getBytes(StandardCharsets.UTF_8).length : value.length();
            return bytes <= MAX_CONFIG_CONTENT_BYTES ? this
                    : add(field, bytes + " bytes", "at most " + MAX_CONFIG_CONTENT_BYTES + " bytes of UTF-8");
        }

        /**
         * The rule of a write: like {@link #configContent}, counting the bytes the history stores (JSON escapes
         * included), so the documented limit bounds the memory each kept version takes.
         *
         * @return this collector, with a violation when {@code value} is null, not well-formed or over the limit
         */
        public Collector configContentAsStored(String field, String value) {
            if (value == null || !isWellFormed(value)) {
                return configContent(field, value);
            }
            long bytes = storedBytes(value);
            return bytes <= MAX_CONFIG_CONTENT_BYTES ? this : add(field, bytes + " bytes",
                    "at most " + MAX_CONFIG_CONTENT_BYTES + " bytes of UTF-8 as stored (JSON escapes included)");
        }

        /** The size of the content in the history's JSON, as Redis' cjson escapes it. */
        private static long storedBytes(String value) {
            long bytes = 0;
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '"' || c == '\\' || c == '/' || c == '\b' || c == '\t' || c == '\n' || c == '\f'
                        || c == '\r') {
                    bytes += 2;
                } else if (c < 0x20 || c == 0x7f) {
                    bytes += 6;
                } else if (c < 0x80) {
                    bytes += 1;
                } else if (c < 0x800) {
                    bytes += 2;
                } else if (Character.isHighSurrogate(c)) {
                    bytes += 4; // with its low surrogate, which well-formed content has
                    i++;
                } else {
                    bytes += 3;
                }
            }
            return bytes;
        }

        /** UTF-8 has no form for a lone surrogate: the JDK would store it as '?' without a word. */
        private static boolean isWellFormed(String value) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < value.length()
                        && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++;
                } else if (Character.isSurrogate(c)) {
                    return false;
                }
            }
            return true;
        }

        private Collector matches(String field, String value, String extraChars, int maxLength, String rule) {
            return check(isMatch(value, extraChars, maxLength), field, value, rule);
        }

        private static boolean isMatch(String value, String extraChars, int maxLength) {
            return value != null && !value.isEmpty() && value.length() <= maxLength && isId(value, extraChars);
        }

        /** A letter or digit, then letters, digits and {@code extraChars} (ASCII only). */
        private static boolean isId(String value, String extraChars) {
            if (!isAsciiAlphanumeric(value.charAt(0))) {
                return false;
            }
            for (int i = 1; i < value.length(); i++) {
                char c = value.charAt(i);
                if (!isAsciiAlphanumeric(c) && extraChars.indexOf(c) < 0) {
                    return false;
                }
            }
            return true;
        }

        /** How many violations were gathered so far. */
        int count() {
            return violations == null ? 0 : violations.size();
        }

        /** @return the violations gathered so far */
        public List<Violation> violations() {
            return violations == null ? List.of() : List.copyOf(violations);
        }

        /**
         * @throws InvalidArgumentException when any check failed, naming all of them
         */
        public void throwIfInvalid() {
            if (violations != null) {
                throw new InvalidArgumentException(violations);
            }
        }

        /**
         * @param value returned when every check passed
         * @param <T>   its type
         * @return {@code value}
         * @throws InvalidArgumentException when any check failed, naming all of them
         */
        public <T> T throwIfInvalid(T value) {
            throwIfInvalid();
            return value;
        }
    }
}
