package io.lodestar.core;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.core.model.Namespace;
import org.jspecify.annotations.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Immutable client options. Build with {@link #builder(String)}; every unset option has the documented default,
 * and {@link Builder#build()} reports every invalid option at once.
 */
public final class LodestarOptions {
    /** Default {@link Builder#commandTimeout(Duration)}. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);
    /** Default {@link Builder#sweepInterval(Duration)}. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(5);
    /** Default {@link Builder#reconcileInterval(Duration)}. */
    public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofSeconds(60);
    /** Default {@link Builder#idleViewTimeout(Duration)}. */
    public static final Duration DEFAULT_IDLE_VIEW_TIMEOUT = Duration.ofMinutes(10);
    /** Default {@link Builder#configHistoryLimit(int)}. */
    public static final int DEFAULT_CONFIG_HISTORY_LIMIT = 20;
    /**
     * Default {@link Builder#viewTopicLimit(int)}: the most entries a view has been measured holding (its idle-expiry
     * scan, a few ms per second at 100,000), far above what an application reads, and a bound on reads of arbitrary
     * ids (each holds a shard subscription until it is dropped).
     */
    public static final int DEFAULT_VIEW_TOPIC_LIMIT = 100_000;
    /** Smallest {@link Builder#viewTopicLimit(int)}. */
    public static final int MIN_VIEW_TOPIC_LIMIT = 10;
    /** Largest {@link Builder#viewTopicLimit(int)}. */
    public static final int MAX_VIEW_TOPIC_LIMIT = 10_000_000;
    /**
     * Shortest {@link Builder#commandTimeout(Duration)}: below it, a Redis round trip can hardly fit, and every call
     * would fail.
     */
    public static final Duration MIN_COMMAND_TIMEOUT = Duration.ofMillis(10);
    /**
     * Shortest {@link Builder#sweepInterval(Duration)}, {@link Builder#reconcileInterval(Duration)} and
     * {@link Builder#idleViewTimeout(Duration)}: shorter ones make an idle client flood Redis with commands, or
     * reload a view on nearly every read.
     */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(100);
    /** Longest value of every duration option. */
    public static final Duration MAX_DURATION = Duration.ofDays(1);
    /** Default {@link Builder#clientName(String)}. */
    public static final String DEFAULT_CLIENT_NAME = "lodestar";

    /** The scheme (if any) and everything up to the last {@code @}: Lettuce splits user info at the last one. */
    private static final Pattern USER_INFO = Pattern.compile("^((?:[A-Za-z][A-Za-z0-9+.-]*://)?)(?s:.*)@");
    private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)(password=)[^&#]*");

    private final String redisUri;
    private final Namespace namespace;
    private final Duration commandTimeout;
    private final Duration sweepInterval;
    private final Duration reconcileInterval;
    private final Duration idleViewTimeout;
    private final int viewTopicLimit;
    private final int configHistoryLimit;
    private final @Nullable Path configSnapshotDirectory;
    private final boolean deregisterOnClose;
    private final String clientName;
    private final @Nullable Path tlsTrustedCertificates;
    private final StartupMode startupMode;
    private final Set<String> preloadServices;
    private final @Nullable InstanceIdentity identity;

    private LodestarOptions(Builder builder) {
        this.redisUri = builder.redisUri;
        this.namespace = Namespace.of(builder.namespace);
        this.commandTimeout = builder.commandTimeout;
        this.sweepInterval = builder.sweepInterval;
        this.reconcileInterval = builder.reconcileInterval;
        this.idleViewTimeout = builder.idleViewTimeout;
        this.viewTopicLimit = builder.viewTopicLimit;
        this.configHistoryLimit = builder.configHistoryLimit;
        this.configSnapshotDirectory = builder.configSnapshotDirectory;
        this.deregisterOnClose = builder.deregisterOnClose;
        this.clientName = builder.clientName;
        this.tlsTrustedCertificates = builder.tlsTrustedCertificates;
        this.startupMode = builder.startupMode;
        this.preloadServices = Set.copyOf(builder.preloadServices);
        this.identity = builder.identity;
    }

    /**
     * @param redisUri where Redis is; see {@link Lodestar#connect(String)} for the forms
     * @return a builder with every other option at its default
     */
    public static Builder builder(String redisUri) {
        return new Builder(redisUri);
    }

    /** @return the Redis URI, secrets included: never log it, use {@link #redactedRedisUri()} */
    public String redisUri() {
        return redisUri;
    }

    /** @return the Redis URI with any user info replaced by {@code ***} */
    public String redactedRedisUri() {
        return redact(redisUri);
    }

    /** @return the namespace (default {@code default}) */
    public Namespace namespace() {
        return namespace;
    }

    /** @return how long one Redis command may take before it fails (default 5 s; 10 ms to 1 day) */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** @return how often this client sweeps expired instances (default 5 s; 100 ms to 1 day) */
    public Duration sweepInterval() {
        return sweepInterval;
    }

    /**
     * @return how often a view compares its revisions with Redis as a last line of defence (default 60 s; 100 ms
     *     to 1 day)
     */
    public Duration reconcileInterval() {
        return reconcileInterval;
    }

    /** @return after how long without reads a view drops a service it holds (default 10 min; 100 ms to 1 day) */
    public Duration idleViewTimeout() {
        return idleViewTimeout;
    }

    /**
     * @return the most entries (services, configs) one view holds (default 100,000; 10 to 10,000,000): past it, the
     *     entry read least recently is dropped (and unsubscribed), except entries with listeners
     */
    public int viewTopicLimit() {
        return viewTopicLimit;
    }

    /** @return how many versions of a config are kept (default 20) */
    public int configHistoryLimit() {
        return configHistoryLimit;
    }

    /**
     * Where the last good config contents are kept on disk, if anywhere (default: nowhere). The client writes the
     * last state it read of every config it holds there, and reads it back only when Redis cannot be reached while
     * a config is first loaded ({@link ViewStatus#restoredFromDisk()} then says so), which only happens when the
     * client may start without Redis ({@link StartupMode#OFFLINE}) or loses Redis before a config's first read.
     *
     * @return the snapshot directory, if any
     */
    public Optional<Path> configSnapshotDirectory() {
        return Optional.ofNullable(configSnapshotDirectory);
    }

    /**
     * @return whether {@link LodestarClient#close()} deregisters this client's ephemeral instances (default true);
     *     persistent ones (TTL zero) always stay, see {@link Registration}
     */
    public boolean deregisterOnClose() {
        return deregisterOnClose;
    }

    /** @return the prefix of this client's Redis connection names (CLIENT SETNAME); default {@code lodestar} */
    public String clientName() {
        return clientName;
    }

    /**
     * @return a PEM file of the CA certificates to trust for {@code rediss://} connections (a private CA), if set;
     *     otherwise the JVM's default trust store is used
     */
    public Optional<Path> tlsTrustedCertificates() {
        return Optional.ofNullable(tlsTrustedCertificates);
    }

    /** @return what {@link Lodestar#connect} does when Redis cannot be reached (default {@link StartupMode#FAIL_FAST}) */
    public StartupMode startupMode() {
        return startupMode;
    }

    /**
     * @return the services the discovery view loads while the client starts (default none), so the first request
     *     that calls one reads locally; see {@link ServiceDiscovery#preload}
     */
    public Set<String> preloadServices() {
        return preloadServices;
    }

    /**
     * @return who this client is for gray releases, when given; else the first instance it registers is (and a
     *     client that registers nothing is in no gray set)
     */
    public Optional<InstanceIdentity> identity() {
        return Optional.ofNullable(identity);
    }

    @Override
    public String toString() {
        return "LodestarOptions[redisUri=" + redactedRedisUri() + ", namespace=" + namespace + ", commandTimeout="
                + commandTimeout + ", sweepInterval=" + sweepInterval + ", reconcileInterval=" + reconcileInterval
                + ", idleViewTimeout=" + idleViewTimeout + ", viewTopicLimit=" + viewTopicLimit
                + ", configHistoryLimit=" + configHistoryLimit
                + ", configSnapshotDirectory=" + configSnapshotDirectory + ", deregisterOnClose=" + deregisterOnClose
                + ", clientName=" + clientName + ", tlsTrustedCertificates=" + tlsTrustedCertificates + ", startupMode=" + startupMode
                + ", preloadServices=" + preloadServices + ", identity=" + identity + "]";
    }

    /**
     * Hides user name and password in a Redis URI, e.g. {@code redis://***@host:6379}. Also hides a
     * {@code password=} query parameter. Errs on the side of hiding: everything up to the last {@code @} goes, so
     * a password with a raw {@code @}, {@code /} or {@code #}, or a malformed URI without {@code ://}, leaks
     * nothing either.
     *
     * @param uri a Redis URI, or null
     * @return the URI without secrets
     */
    public static @Nullable String redact(@Nullable String uri) {
        if (uri == null) {
            return null;
        }
        String redacted = USER_INFO.matcher(uri).replaceFirst("$1***@");
        return PASSWORD_PARAMETER.matcher(redacted).replaceAll("$1***");
    }

    /** Builds {@link LodestarOptions}. */
    public static final class Builder {
        private final String redisUri;
        private String namespace = Namespace.DEFAULT.name();
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
        private Duration reconcileInterval = DEFAULT_RECONCILE_INTERVAL;
        private Duration idleViewTimeout = DEFAULT_IDLE_VIEW_TIMEOUT;
        private int viewTopicLimit = DEFAULT_VIEW_TOPIC_LIMIT;
        private int configHistoryLimit = DEFAULT_CONFIG_HISTORY_LIMIT;
        private @Nullable Path configSnapshotDirectory;
        private boolean deregisterOnClose = true;
        private String clientName = DEFAULT_CLIENT_NAME;
        private @Nullable Path tlsTrustedCertificates;
        private StartupMode startupMode = StartupMode.FAIL_FAST;
        private Collection<String> preloadServices = Set.of();
        private @Nullable InstanceIdentity identity;

        private Builder(String redisUri) {
            this.redisUri = redisUri;
        }

        /** @return this builder with the namespace set */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** @return this builder with the command timeout set (10 ms to 1 day; checked by {@link #build()}) */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = commandTimeout;
            return this;
        }

        /** @return this builder with the sweep interval set (100 ms to 1 day; checked by {@link #build()}) */
        public Builder sweepInterval(Duration sweepInterval) {
            this.sweepInterval = sweepInterval;
            return this;
        }

        /** @return this builder with the reconcile interval set (100 ms to 1 day; checked by {@link #build()}) */
        public Builder reconcileInterval(Duration reconcileInterval) {
            this.reconcileInterval = reconcileInterval;
            return this;
        }

        /** @return this builder with the idle view timeout set (100 ms to 1 day; checked by {@link #build()}) */
        public Builder idleViewTimeout(Duration idleViewTimeout) {
            this.idleViewTimeout = idleViewTimeout;
            return this;
        }

        /**
         * @return this builder with the most entries one view holds set (10 to 10,000,000; checked by
         *     {@link #build()}); see {@link LodestarOptions#viewTopicLimit()}
         */
        public Builder viewTopicLimit(int viewTopicLimit) {
            this.viewTopicLimit = viewTopicLimit;
            return this;
        }

        /** @return this builder with the config history limit set */
        public Builder configHistoryLimit(int configHistoryLimit) {
            this.configHistoryLimit = configHistoryLimit;
            return this;
        }

        /**
         * @return this builder with the config snapshot directory set (null = none); see
         *     {@link LodestarOptions#configSnapshotDirectory()}
         */
        public Builder configSnapshotDirectory(@Nullable Path configSnapshotDirectory) {
            this.configSnapshotDirectory = configSnapshotDirectory;
            return this;
        }

        /** @return this builder with deregistration on close on or off */
        public Builder deregisterOnClose(boolean deregisterOnClose) {
            this.deregisterOnClose = deregisterOnClose;
            return this;
        }

        /** @return this builder with the connection name prefix set */
        public Builder clientName(String clientName) {
            this.clientName = clientName;
            return this;
        }

        /** @return this builder, trusting the CA certificates of this PEM file for TLS (null = JVM default) */
        public Builder tlsTrustedCertificates(@Nullable Path tlsTrustedCertificates) {
            this.tlsTrustedCertificates = tlsTrustedCertificates;
            return this;
        }

        /** @return this builder with the start-up mode set; see {@link StartupMode} */
        public Builder startupMode(StartupMode startupMode) {
            this.startupMode = startupMode;
            return this;
        }

        /** @return this builder with the services to load at start-up set (replacing any set before) */
        public Builder preloadServices(Collection<String> serviceIds) {
            this.preloadServices = serviceIds;
            return this;
        }

        /**
         * @return this builder with the identity gray releases look at set (null = the first instance this client
         *     registers); see {@link LodestarOptions#identity()}
         */
        public Builder identity(@Nullable InstanceIdentity identity) {
            this.identity = identity;
            return this;
        }

        /**
         * @return the options
         * @throws InvalidArgumentException naming every invalid option
         */
        public LodestarOptions build() {
            Validation.collector()
                    .check(redisUri != null && redisUri.matches("(?i)(redis|rediss|redis-sentinel|rediss-sentinel"
                                    + "|redis-cluster|rediss-cluster|redis-socket)://.+"), "redisUri", redact(redisUri),
                            "a URI of the form redis://, rediss://, redis-sentinel://, rediss-sentinel://,"
                                    + " redis-cluster://, rediss-cluster:// or redis-socket:// followed by the address")
                    .namespace("namespace", namespace)
                    .duration("commandTimeout", commandTimeout, MIN_COMMAND_TIMEOUT, MAX_DURATION)
                    .duration("sweepInterval", sweepInterval, MIN_INTERVAL, MAX_DURATION)
                    .duration("reconcileInterval", reconcileInterval, MIN_INTERVAL, MAX_DURATION)
                    .duration("idleViewTimeout", idleViewTimeout, MIN_INTERVAL, MAX_DURATION)
                    .range("viewTopicLimit", viewTopicLimit, MIN_VIEW_TOPIC_LIMIT, MAX_VIEW_TOPIC_LIMIT)
                    .range("configHistoryLimit", configHistoryLimit, Validation.MIN_HISTORY, Validation.MAX_HISTORY)
                    .check(clientName != null && clientName.matches("[A-Za-z0-9._-]{1,32}"), "clientName",
                            clientName, "1-32 characters of [A-Za-z0-9._-]")
                    .check(tlsTrustedCertificates == null || Files.isReadable(tlsTrustedCertificates),
                            "tlsTrustedCertificates", tlsTrustedCertificates, "a readable PEM file, or null")
                    .notNull("startupMode", startupMode)
                    .serviceIds("preloadServices", preloadServices)
                    .throwIfInvalid();
            return new LodestarOptions(this);
        }
    }
}
