package io.lodestar.redis;

import io.lodestar.core.internal.FrozenMetadata;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the stored JSON of one instance straight into a {@link ServiceInstance}: no generic map, no boxed numbers,
 * no builder, the metadata parsed into the sorted map the instance keeps. A direct read decodes every instance of
 * the service on every call, so this is most of its client-side cost.
 *
 * <p>The JSON is what Redis' cjson wrote (any field order, slashes escaped as {@code \/}), or what another program
 * put there: anything malformed fails with an {@link IllegalArgumentException} naming the position, and the
 * instance itself is validated as a user's would be. Fields this version does not know (a newer client's) are
 * skipped. The rules are those of the map-based reading it replaces: {@code host}, {@code port}, {@code weight},
 * {@code status} and {@code ttl} are required; {@code secure} is true only when {@code true}; metadata that is
 * missing, {@code null} or not an object (cjson writes an empty table as {@code {}} or {@code []}) is empty; an
 * unknown status reads as {@link InstanceStatus#UNKNOWN}.
 *
 * <p>It also reads a service event ({@link #event}): its top-level fields as Jackson-jr's map had them, an object or
 * array among them kept as its text ({@link Nested}), so the event's instance is read by {@link #read} once the view
 * knows the service, straight from the event's text, without a map of it.
 */
final class InstanceReader {
    private static final InstanceStatus[] STATUSES = InstanceStatus.values();
    /** Deepest nesting an unknown field may have; deeper is refused rather than risking the stack. */
    private static final int MAX_SKIP_DEPTH = 64;
    /** Recently read short strings (see {@link #symbol}): at most 1024 of at most 64 characters. */
    private static final String[] SYMBOLS = new String[1024];
    private static final int MAX_SYMBOL_LENGTH = 64;
    /** A number field not read (no number in range is this). */
    private static final long ABSENT = Long.MIN_VALUE;
    /** The last TTL read, shared: a service's instances mostly have the same one, and a Duration is immutable. */
    private static volatile Duration lastTtl = Duration.ZERO;

    private final String json;
    private int at;
    /** Whether short strings go through {@link #symbol}: not an event's values (ids, digests: each one new). */
    private boolean interning = true;
    /** Whether the string {@link #stringEnd} consumed last has an escape in it (else it is read as it stands). */
    private boolean escaped;

    InstanceReader(String json) {
        this.json = json;
    }

    /**
     * An object or array inside an event, kept as its text (checked well-formed, not read): {@link #read} reads an
     * instance from it. Shown as its text in logs.
     */
    record Nested(String json) {
        @Override
        public String toString() {
            return json;
        }
    }

    /**
     * Reads an event's top-level fields as Jackson-jr's {@code mapFrom} did (strings, {@code Integer} or {@code Long}
     * or {@code BigInteger} for whole numbers, {@code Double} for others, booleans, nulls; a repeated name refused),
     * except that an object or array value is kept as a {@link Nested} text instead of a map, and that text after
     * the object is refused (Jackson-jr ignored it; no script writes it).
     *
     * @throws IllegalArgumentException when the text is not one well-formed JSON object
     */
    static Map<String, Object> event(String json) {
        return new InstanceReader(json).event();
    }

    private Map<String, Object> event() {
        Map<String, Object> fields = new HashMap<>(16);
        expect('{');
        if (!consume('}')) {
            do {
                skipWhitespace();
                String name = string();
                expect(':');
                if (fields.containsKey(name)) {
                    throw new IllegalArgumentException("malformed event JSON: the name " + Validation.show(name)
                            + " is repeated in " + Validation.show(json));
                }
                fields.put(name, value());
            } while (consume(','));
            expect('}');
        }
        skipWhitespace();
        if (at != json.length()) {
            throw malformed("the end");
        }
        return fields;
    }

    /** One top-level value of an event (see {@link #event}). */
    private Object value() {
        skipWhitespace();
        char c = peek();
        if (c == '"') {
            interning = false;
            String value = string();
            interning = true;
            return value;
        }
        if (c == '{' || c == '[') {
            int start = at;
            skipValue(0);
            return new Nested(json.substring(start, at));
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return numberValue();
        }
        if (literal0("true")) {
            return Boolean.TRUE;
        }
        if (literal0("false")) {
            return Boolean.FALSE;
        }
        if (literal0("null")) {
            return null;
        }
        throw malformed("a value");
    }

    private void skipDigits() {
        while (at < json.length() && json.charAt(at) >= '0' && json.charAt(at) <= '9') {
            at++;
        }
    }

    /** One digit or more: a fraction's or an exponent's. */
    private void requireDigits() {
        int from = at;
        skipDigits();
        if (at == from) {
            throw malformed("a digit");
        }
    }

    /** A JSON number as Jackson-jr boxes it: the smallest of Integer, Long, BigInteger; Double when not whole. */
    private Object numberValue() {
        int start = at;
        if (json.charAt(at) == '-') {
            at++;
        }
        int digits = at;
        skipDigits();
        if (at == digits || (json.charAt(digits) == '0' && at - digits > 1)) {
            throw malformed("a number");
        }
        boolean whole = true;
        if (at < json.length() && json.charAt(at) == '.') {
            whole = false;
            at++;
            requireDigits();
        }
        if (at < json.length() && (json.charAt(at) == 'e' || json.charAt(at) == 'E')) {
            whole = false;
            at++;
            if (at < json.length() && (json.charAt(at) == '+' || json.charAt(at) == '-')) {
                at++;
            }
            requireDigits();
        }
        String text = json.substring(start, at);
        if (!whole) {
            return Double.parseDouble(text);
        }
        if (at - start <= 9) {
            return Integer.parseInt(text);
        }
        BigInteger big = new BigInteger(text);
        if (big.bitLength() < 32) {
            return big.intValue();
        }
        return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }

    /** Reads the instance, stamped with the region of the Redis it came from (null: the client names none). */
    ServiceInstance read(String serviceId, String instanceId, String region) {
        String host = null;
        long port = ABSENT;
        long weight = ABSENT;
        long ttl = ABSENT;
        boolean secure = false;
        boolean hasStatus = false;
        InstanceStatus status = null;
        Instant registeredAt = null;
        TreeMap<String, String> metadata = null;
        expect('{');
        if (!consume('}')) {
            do {
                int nameStart = stringStart();
                int nameEnd = stringEnd();
                expect(':');
                if (isName(nameStart, nameEnd, "host")) {
                    host = stringOrNull("host");
                } else if (isName(nameStart, nameEnd, "port")) {
                    port = number("port");
                } else if (isName(nameStart, nameEnd, "secure")) {
                    secure = literal("true");
                } else if (isName(nameStart, nameEnd, "weight")) {
                    weight = number("weight");
                } else if (isName(nameStart, nameEnd, "status")) {
                    status = status();
                    hasStatus = true;
                } else if (isName(nameStart, nameEnd, "ttl")) {
                    ttl = number("ttl");
                } else if (isName(nameStart, nameEnd, "registeredAt")) {
                    registeredAt = peek() == 'n' && literal("null") ? null : Instant.ofEpochMilli(number("registeredAt"));
                } else if (isName(nameStart, nameEnd, "metadata")) {
                    metadata = metadata();
                } else {
                    skipValue(0);
                }
            } while (consume(','));
            expect('}');
        }
        skipWhitespace();
        if (at != json.length()) {
            throw malformed("the end");
        }
        require(hasStatus, "status");
        require(port != ABSENT, "port");
        require(weight != ABSENT, "weight");
        require(ttl != ABSENT, "ttl");
        Validation.Collector checks = Validation.collector();
        FrozenMetadata frozen = FrozenMetadata.adopt("metadata", metadata == null ? new TreeMap<>() : metadata,
                checks);
        checks.throwIfInvalid();
        return new ServiceInstance(serviceId, instanceId, host, toInt(port), secure, toInt(weight), status, frozen,
                ttl(ttl), registeredAt, region);
    }

    /** Out of int range stays out of range (and fails validation) rather than wrapping into it. */
    private static int toInt(long value) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
    }

    private static Duration ttl(long millis) {
        Duration last = lastTtl;
        if (last.toMillis() == millis) {
            return last;
        }
        Duration ttl = Duration.ofMillis(millis);
        lastTtl = ttl;
        return ttl;
    }

    private static void require(boolean present, String field) {
        if (!present) {
            throw new IllegalArgumentException("instance JSON without " + field);
        }
    }

    /** A status name; another string (a newer client's status) is UNKNOWN; anything else is refused. */
    private InstanceStatus status() {
        skipWhitespace();
        if (peek() != '"') {
            throw new IllegalArgumentException("status must be a string, but was "
                    + Validation.show(json.substring(at, Math.min(json.length(), at + 16))));
        }
        int start = stringStart();
        int end = stringEnd();
        for (InstanceStatus status : STATUSES) {
            if (status != InstanceStatus.UNKNOWN && isName(start, end, status.name())) {
                return status;
            }
        }
        return InstanceStatus.UNKNOWN;
    }

    /** An object of string values into a sorted map; null or another kind of value reads as no metadata. */
    private TreeMap<String, String> metadata() {
        skipWhitespace();
        if (peek() != '{') {
            skipValue(0);
            return null;
        }
        at++;
        TreeMap<String, String> entries = new TreeMap<>();
        if (consume('}')) {
            return entries;
        }
        do {
            skipWhitespace();
            String key = string();
            expect(':');
            entries.put(key, stringOrNull("metadata value"));
        } while (consume(','));
        expect('}');
        return entries;
    }

    // ---------------------------------------------------------------- tokens

    private char peek() {
        if (at >= json.length()) {
            throw malformed("a value");
        }
        return json.charAt(at);
    }

    private void skipWhitespace() {
        while (at < json.length()) {
            char c = json.charAt(at);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            at++;
        }
    }

    private boolean consume(char expected) {
        skipWhitespace();
        if (at < json.length() && json.charAt(at) == expected) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char expected) {
        if (!consume(expected)) {
            throw malformed("'" + expected + "'");
        }
    }

    /** Consumes {@code word} when it comes next (true), or skips whatever value comes instead (false). */
    private boolean literal(String word) {
        skipWhitespace();
        if (json.startsWith(word, at)) {
            int end = at + word.length();
            if (end == json.length() || !Character.isLetterOrDigit(json.charAt(end))) {
                at = end;
                return true;
            }
        }
        skipValue(0);
        return false;
    }

    /** An integer; a number with a fraction or an exponent is truncated, as the map-based reading did. */
    private long number(String field) {
        skipWhitespace();
        int start = at;
        boolean negative = consume('-');
        long value = 0;
        int digits = 0;
        while (at < json.length() && json.charAt(at) >= '0' && json.charAt(at) <= '9') {
            if (value > Long.MAX_VALUE / 10 - 1) {
                throw new IllegalArgumentException(field + " is out of range");
            }
            value = value * 10 + json.charAt(at++) - '0';
            digits++;
        }
        if (digits == 0) {
            throw new IllegalArgumentException(field + " must be a number, but was "
                    + Validation.show(json.substring(start, Math.min(json.length(), start + 16))));
        }
        if (at < json.length() && (json.charAt(at) == '.' || json.charAt(at) == 'e' || json.charAt(at) == 'E')) {
            while (at < json.length() && "0123456789.eE+-".indexOf(json.charAt(at)) >= 0) {
                at++;
            }
            try {
                return (long) Double.parseDouble(json.substring(start, at));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(field + " must be a number, but was "
                        + Validation.show(json.substring(start, at)), e);
            }
        }
        return negative ? -value : value;
    }

    private String stringOrNull(String field) {
        skipWhitespace();
        if (peek() == '"') {
            return string();
        }
        if (literal("null")) {
            return null;
        }
        throw new IllegalArgumentException(field + " must be a string");
    }

    private String string() {
        int start = stringStart();
        int end = stringEnd();
        return unescape(start, end);
    }

    /** Consumes the opening quote; returns where the content starts. */
    private int stringStart() {
        skipWhitespace();
        if (at >= json.length() || json.charAt(at) != '"') {
            throw malformed("a string");
        }
        return ++at;
    }

    /**
     * Consumes the content and the closing quote; returns where the content ends (escapes still in it, and
     * {@link #escaped} says whether there are any).
     */
    private int stringEnd() {
        escaped = false;
        while (at < json.length()) {
            char c = json.charAt(at);
            if (c == '"') {
                return at++;
            }
            if (c < 0x20) {
                throw malformed("an escaped control character");
            }
            if (c == '\\') {
                escaped = true;
                at += 2;
            } else {
                at++;
            }
        }
        throw malformed("the end of a string");
    }

    /** Whether the raw content {@code [start, end)} is {@code name} (names and statuses are plain ASCII). */
    private boolean isName(int start, int end, String name) {
        return end - start == name.length() && json.startsWith(name, start);
    }

    /** The content {@code [start, end)} of the string {@link #stringEnd} consumed last, its escapes resolved. */
    private String unescape(int start, int end) {
        if (!escaped) {
            return interning ? symbol(start, end) : json.substring(start, end);
        }
        int escape = json.indexOf('\\', start);
        StringBuilder out = new StringBuilder(end - start).append(json, start, escape);
        int i = escape;
        while (i < end) {
            char c = json.charAt(i++);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char kind = json.charAt(i++);
            switch (kind) {
                case '"', '\\', '/' -> out.append(kind);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 > end) {
                        throw malformed("four hex digits");
                    }
                    int code = 0;
                    for (int k = 0; k < 4; k++) {
                        int digit = Character.digit(json.charAt(i++), 16);
                        if (digit < 0) {
                            throw malformed("four hex digits");
                        }
                        code = code * 16 + digit;
                    }
                    out.append((char) code);
                }
                default -> throw malformed("a valid escape");
            }
        }
        return out.toString();
    }

    /**
     * The text {@code [start, end)}, as a string a recent read made already when there is one: hosts, metadata keys
     * and values repeat across the instances of a service (zones, versions) and across reads of it, so most are
     * found, and neither allocated again nor held twice by a view. A small table indexed by hash, shared by all
     * readers without locks: a String is immutable (its fields final), so a racing reader sees a whole one or
     * another; a collision just replaces the slot.
     */
    private String symbol(int start, int end) {
        int length = end - start;
        if (length > MAX_SYMBOL_LENGTH) {
            return json.substring(start, end);
        }
        int hash = 0;
        for (int i = start; i < end; i++) {
            hash = 31 * hash + json.charAt(i);
        }
        int slot = (hash ^ (hash >>> 16)) & (SYMBOLS.length - 1);
        String known = SYMBOLS[slot];
        if (known != null && known.length() == length && json.startsWith(known, start)) {
            return known;
        }
        String made = json.substring(start, end);
        SYMBOLS[slot] = made;
        return made;
    }

    /** Skips one value of any kind (a field this version does not know). */
    private void skipValue(int depth) {
        if (depth > MAX_SKIP_DEPTH) {
            throw malformed("less nesting");
        }
        skipWhitespace();
        char c = peek();
        if (c == '"') {
            stringStart();
            stringEnd();
        } else if (c == '{' || c == '[') {
            char close = c == '{' ? '}' : ']';
            at++;
            if (consume(close)) {
                return;
            }
            do {
                if (c == '{') {
                    stringStart();
                    stringEnd();
                    expect(':');
                }
                skipValue(depth + 1);
            } while (consume(','));
            expect(close);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            number("a number");
        } else if (!(literal0("true") || literal0("false") || literal0("null"))) {
            throw malformed("a value");
        }
    }

    private boolean literal0(String word) {
        if (json.startsWith(word, at)) {
            at += word.length();
            return true;
        }
        return false;
    }

    private IllegalArgumentException malformed(String expected) {
        return new IllegalArgumentException("malformed instance JSON: expected " + expected + " at offset " + at
                + " of " + Validation.show(json));
    }
}
