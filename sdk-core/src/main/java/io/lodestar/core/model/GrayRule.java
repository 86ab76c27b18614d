package io.lodestar.core.model;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.Violation;
import io.lodestar.core.internal.Validation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which instances a gray release applies to. An instance is in the gray set when its id is one of
 * {@link #instanceIds()}, or when its registration metadata matches every condition of {@link #metadata()} (key →
 * the values allowed) <em>and</em> it falls in the stable {@link #percent()}: a hash of the release's salt and the
 * instance id puts every instance in one of 100 buckets, and buckets below the percentage are in. The salt stays the
 * same for the whole release, so raising the percentage only adds instances, and lowering it only removes some.
 *
 * <p>The text form ({@link #parse(String)}, {@link #toString()}) is clauses separated by {@code ;}:
 * {@code zone=eu-1; version in (2.3, 2.4); 10%; instance in (orders-1, orders-2)}. Without a percentage, metadata
 * conditions select all the instances they match (100 %), and a rule of instance ids alone selects only them.
 *
 * @param metadata   metadata key → the values allowed (each set non-empty); empty = every instance
 * @param instanceIds instances that are in whatever their metadata
 * @param percent    0-100: the share of the instances matching {@link #metadata()} that are in
 */
public record GrayRule(SortedMap<String, Set<String>> metadata, Set<String> instanceIds, int percent) {
    private static final Pattern EQUALS = Pattern.compile("([^=\\s]+)\\s*=\\s*(.*)");
    private static final Pattern IN = Pattern.compile("([^\\s]+)\\s+in\\s*\\((.*)\\)", Pattern.CASE_INSENSITIVE);
    private static final Pattern PERCENT = Pattern.compile("(\\d{1,3})\\s*%");
    private static final String INSTANCE = "instance";

    /**
     * @throws InvalidArgumentException naming every rule broken: a metadata key or value, an instance id, a
     *     percentage outside 0-100, or a rule that selects nothing
     */
    public GrayRule {
        Validation.Collector checks = Validation.collector().notNull("metadata", metadata)
                .notNull("instanceIds", instanceIds).range("percent", percent, 0, 100);
        checks.throwIfInvalid();
        SortedMap<String, Set<String>> copy = new TreeMap<>();
        metadata.forEach((key, values) -> {
            checks.check(key != null && !key.isBlank() && key.length() <= Validation.MAX_METADATA_KEY_LENGTH
                            && !key.contains(";"), "metadata key", key,
                    "1-" + Validation.MAX_METADATA_KEY_LENGTH + " characters without ';'");
            checks.check(values != null && !values.isEmpty() && values.stream().allMatch(GrayRule::isValue),
                    Validation.keyed("metadata", key), values,
                    "a non-empty set of values of at most " + Validation.MAX_METADATA_VALUE_LENGTH
                            + " characters without ',', ';' or ')'");
            if (key != null && values != null) {
                copy.put(key, Collections.unmodifiableSet(new TreeSet<>(values)));
            }
        });
        instanceIds.forEach(id -> checks.instanceId("instanceIds", id));
        checks.check(!(copy.isEmpty() && instanceIds.isEmpty() && percent == 0), "rule", "",
                "a rule that selects instances by metadata, instance id or percentage");
        checks.throwIfInvalid();
        metadata = Collections.unmodifiableSortedMap(copy);
        instanceIds = Collections.unmodifiableSet(new TreeSet<>(instanceIds));
    }

    private static boolean isValue(String value) {
        return value != null && !value.isEmpty() && value.length() <= Validation.MAX_METADATA_VALUE_LENGTH
                && value.chars().noneMatch(c -> c == ',' || c == ';' || c == ')');
    }

    /**
     * @param percent 0-100
     * @return a rule selecting that share of every instance
     */
    public static GrayRule percent(int percent) {
        return new GrayRule(new TreeMap<>(), Set.of(), percent);
    }

    /** @return a rule selecting exactly these instances */
    public static GrayRule instances(String... instanceIds) {
        return new GrayRule(new TreeMap<>(), new LinkedHashSet<>(List.of(instanceIds)), 0);
    }

    /** @return a rule selecting every instance whose metadata {@code key} is one of {@code values} */
    public static GrayRule metadata(String key, String... values) {
        SortedMap<String, Set<String>> metadata = new TreeMap<>();
        metadata.put(key, new LinkedHashSet<>(List.of(values)));
        return new GrayRule(metadata, Set.of(), 100);
    }

    /**
     * @return this rule with another metadata condition (an instance must match every one); a rule of instance ids
     *     alone then selects 100 % of the instances the conditions match
     */
    public GrayRule and(String key, String... values) {
        SortedMap<String, Set<String>> more = new TreeMap<>(metadata);
        more.put(key, new LinkedHashSet<>(List.of(values)));
        return new GrayRule(more, instanceIds, metadata.isEmpty() && percent == 0 ? 100 : percent);
    }

    /** @return this rule with the percentage replaced (0-100) */
    public GrayRule withPercent(int newPercent) {
        return new GrayRule(metadata, instanceIds, newPercent);
    }

    /**
     * Parses the text form (see the class comment).
     *
     * @throws InvalidArgumentException naming the clause that is not understood, or the rule broken
     */
    public static GrayRule parse(String text) {
        Validation.requireNonNull("rule", text);
        SortedMap<String, Set<String>> metadata = new TreeMap<>();
        Set<String> ids = new LinkedHashSet<>();
        Integer percent = null;
        for (String raw : text.split(";")) {
            String clause = raw.trim();
            if (clause.isEmpty()) {
                continue;
            }
            Matcher in = IN.matcher(clause);
            Matcher equals = EQUALS.matcher(clause);
            Matcher share = PERCENT.matcher(clause);
            if (share.matches()) {
                percent = Integer.parseInt(share.group(1));
            } else if (in.matches()) {
                List<String> values = new ArrayList<>();
                for (String value : in.group(2).split(",")) {
                    values.add(value.trim());
                }
                (INSTANCE.equals(in.group(1)) ? ids : metadata.computeIfAbsent(in.group(1), k -> new LinkedHashSet<>()))
                        .addAll(values);
            } else if (equals.matches()) {
                metadata.computeIfAbsent(equals.group(1), k -> new LinkedHashSet<>()).add(equals.group(2).trim());
            } else {
                throw new InvalidArgumentException(new Violation("rule", clause,
                        "clauses like 'zone=eu-1', 'version in (2.3, 2.4)', '10%' or 'instance in (a, b)'"
                                + " separated by ';'"));
            }
        }
        return new GrayRule(metadata, ids, percent != null ? percent : metadata.isEmpty() ? 0 : 100);
    }

    /**
     * @param identity the instance asking
     * @param salt     the release's salt ({@link GrayRelease#salt()})
     * @return whether the instance is in the gray set
     */
    public boolean matches(InstanceIdentity identity, String salt) {
        if (instanceIds.contains(identity.instanceId())) {
            return true;
        }
        if (percent == 0) {
            return false;
        }
        for (Map.Entry<String, Set<String>> condition : metadata.entrySet()) {
            String value = identity.metadata().get(condition.getKey());
            if (value == null || !condition.getValue().contains(value)) {
                return false;
            }
        }
        return bucket(salt, identity.instanceId()) < percent;
    }

    /**
     * The stable bucket (0-99) of an instance in a release: the first 8 bytes of SHA-256 of
     * {@code salt + "/" + instanceId}, unsigned, modulo 100. Every client computes the same.
     */
    public static int bucket(String salt, String instanceId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((salt + "/" + instanceId).getBytes(StandardCharsets.UTF_8));
            long value = 0;
            for (int i = 0; i < 8; i++) {
                value = (value << 8) | (digest[i] & 0xff);
            }
            return (int) Long.remainderUnsigned(value, 100);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    /** @return the text form, which {@link #parse(String)} reads back to an equal rule */
    @Override
    public String toString() {
        List<String> clauses = new ArrayList<>();
        metadata.forEach((key, values) -> clauses.add(values.size() == 1 ? key + "=" + values.iterator().next()
                : key + " in (" + String.join(", ", values) + ")"));
        if (metadata.isEmpty() ? percent > 0 : percent < 100) {
            clauses.add(percent + "%");
        }
        if (!instanceIds.isEmpty()) {
            clauses.add(INSTANCE + " in (" + String.join(", ", instanceIds) + ")");
        }
        return String.join("; ", clauses);
    }
}
