package io.lodestar.core;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.core.model.Namespace;
import org.jspecify.annotations.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
    /**
     * Default {@link Builder#regionFailoverThreshold(int)}: a region is left for the next one only when none of its
     * instances may be chosen.
     */
    public static final int DEFAULT_REGION_FAILOVER_THRESHOLD = 1;
    /** Largest {@link Builder#regionFailoverThreshold(int)}. */
    public static final int MAX_REGION_FAILOVER_THRESHOLD = 10_000;
    /** Default {@link Builder#clientName(String)}. */
    public static final String DEFAULT_CLIENT_NAME = "lodestar";

    /** The scheme (if any) and everything up to the last {@code @}: Lettuce splits user info at the last one. */
    private static final Pattern USER_INFO = Pattern.compile("^((?:[A-Za-z][A-Za-z0-9+.-]*://)?)(?s:.*)@");
    private static final String URI_RULE = "a URI of the form redis://, rediss://, redis-sentinel://,"
            + " rediss-sentinel://, redis-cluster://, rediss-cluster:// or redis-socket:// followed by the address";
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
    private final @Nullable Path serviceSnapshotDirectory;
    private final boolean deregisterOnClose;
    private final String clientName;
    private final @Nullable Path tlsTrustedCertificates;
    private final StartupMode startupMode;
    private final Set<String> preloadServices;
    private final @Nullable InstanceIdentity identity;
    private final @Nullable ConfigKeys configKeys;
    private final boolean encryptedConfigPlaceholders;
    private final boolean recordAppliedConfigs;
    private final @Nullable String region;
    private final Map<String, RemoteRegion> remoteRegions;
    private final int regionFailoverThreshold;

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
        this.serviceSnapshotDirectory = builder.serviceSnapshotDirectory;
        this.deregisterOnClose = builder.deregisterOnClose;
        this.clientName = builder.clientName;
        this.tlsTrustedCertificates = builder.tlsTrustedCertificates;
        this.startupMode = builder.startupMode;
        this.preloadServices = Set.copyOf(builder.preloadServices);
        this.identity = builder.identity;
        this.configKeys = builder.configKeys;
        this.encryptedConfigPlaceholders = builder.encryptedConfigPlaceholders;
        this.recordAppliedConfigs = builder.recordAppliedConfigs;
        this.region = builder.region;
        this.remoteRegions = Collections.unmodifiableMap(new LinkedHashMap<>(builder.remoteRegions));
        this.regionFailoverThreshold = builder.regionFailoverThreshold;
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
     * @return how often a view compares its revisions with Redis as a last line of defence, and a cluster client
     *     looks at the cluster's topology (default 60 s; 100 ms to 1 day)
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
     * Where the discovery view keeps the last instance list it read of each service (one owner-only file per
     * service under {@code <directory>/<namespace>/services/}; it may be the {@link #configSnapshotDirectory()}).
     * They are read only when Redis cannot be reached while a service is first loaded, e.g. after a
     * {@link StartupMode#OFFLINE} start during an outage ({@link ViewStatus#restoredFromDisk()} then says so), and
     * replaced by what Redis holds as soon as it answers. A file of another namespace or Redis deployment is refused.
     *
     * @return the service snapshot directory, if any (default none)
     */
    public Optional<Path> serviceSnapshotDirectory() {
        return Optional.ofNullable(serviceSnapshotDirectory);
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

    /**
     * Where the keys of encrypted config entries come from, if anywhere (default: nowhere). With keys, every config
     * this client writes is encrypted in the client (Redis, its replicas, AOF/RDB files and the snapshot directory
     * hold only ciphertext) and every encrypted entry it reads is decrypted; without them, reading an encrypted entry
     * throws a {@link ConfigEncryptionException} naming its key.
     *
     * @return the key source, if any
     */
    public Optional<ConfigKeys> configKeys() {
        return Optional.ofNullable(configKeys);
    }

    /**
     * For operator tools only (the CLI and console): whether an encrypted entry whose key this client does not hold
     * reads as the text {@code <encrypted: key K>} instead of throwing (default false; an application must never
     * turn it on, it would take the placeholder for the value). A failed integrity check still throws.
     *
     * @return whether undecryptable entries read as placeholders
     */
    public boolean encryptedConfigPlaceholders() {
        return encryptedConfigPlaceholders;
    }

    /**
     * Whether this client records, in Redis, which config versions it applied, for who runs what
     * ({@link ConfigService#applied(String)}; default true). A tool's read-only view of configs (the CLI, the
     * console) is not an application running them, and turns it off so that it is not listed.
     *
     * @return whether the versions this client's view applies are recorded
     */
    public boolean recordAppliedConfigs() {
        return recordAppliedConfigs;
    }

    /**
     * @return the home region: the one whose Redis this client registers in and writes to, stamped on every instance
     *     read from it ({@link io.lodestar.core.model.ServiceInstance#region()}); empty when none is named (then
     *     instances carry no region and no remote region may be named)
     */
    public Optional<String> region() {
        return Optional.ofNullable(region);
    }

    /**
     * @return the other regions this client reads (never writes), by name in the order they were named: the order
     *     {@link LodestarClient#discovery()} fails over in
     */
    public Map<String, RemoteRegion> remoteRegions() {
        return remoteRegions;
    }

    /**
     * @return how many instances a region must have {@link io.lodestar.core.model.InstanceStatus#UP} for
     *     {@link LodestarClient#discovery()} to answer with it alone (default 1, at most 10,000): with fewer, the
     *     next region's instances are added, in the order named, until that many are UP or every region is in
     */
    public int regionFailoverThreshold() {
        return regionFailoverThreshold;
    }

    /**
     * The options of the reader of one remote region: these options with that region's URI, TLS trust and name, no
     * remote regions of its own, no services preloaded and no config snapshots, and {@link StartupMode#OFFLINE}, so
     * that a region that is down when the client starts never stops the home region from starting.
     *
     * @param remote one of {@link #remoteRegions()}
     * @return the reader's options
     * @throws InvalidArgumentException when {@code remote} is not one of this client's remote regions
     */
    public LodestarOptions forRemoteRegion(RemoteRegion remote) {
        Validation.collector().check(remote != null && remote.equals(remoteRegions.get(remote.name())), "remote",
                remote, "one of " + remoteRegions.keySet()).throwIfInvalid();
        return builder(remote.redisUri()).namespace(namespace.name()).commandTimeout(commandTimeout)
                .sweepInterval(sweepInterval).reconcileInterval(reconcileInterval).idleViewTimeout(idleViewTimeout)
                .viewTopicLimit(viewTopicLimit).configHistoryLimit(configHistoryLimit).clientName(clientName)
                .tlsTrustedCertificates(remote.tlsTrustedCertificates()).startupMode(StartupMode.OFFLINE)
                .region(remote.name()).build();
    }

    @Override
    public String toString() {
        return "LodestarOptions[redisUri=" + redactedRedisUri() + ", namespace=" + namespace + ", commandTimeout="
                + commandTimeout + ", sweepInterval=" + sweepInterval + ", reconcileInterval=" + reconcileInterval
                + ", idleViewTimeout=" + idleViewTimeout + ", viewTopicLimit=" + viewTopicLimit
                + ", configHistoryLimit=" + configHistoryLimit
                + ", configSnapshotDirectory=" + configSnapshotDirectory
                + ", serviceSnapshotDirectory=" + serviceSnapshotDirectory + ", deregisterOnClose=" + deregisterOnClose
                + ", clientName=" + clientName + ", tlsTrustedCertificates=" + tlsTrustedCertificates + ", startupMode=" + startupMode
                + ", preloadServices=" + preloadServices + ", identity=" + identity + ", configKeys=" + configKeys
                + ", encryptedConfigPlaceholders=" + encryptedConfigPlaceholders
                + ", recordAppliedConfigs=" + recordAppliedConfigs + ", region=" + region
                + ", remoteRegions=" + remoteRegions.values() + ", regionFailoverThreshold=" + regionFailoverThreshold
                + "]";
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

    private static boolean isRedisUri(@Nullable String uri) {
        return uri != null && uri.matches("(?i)(redis|rediss|redis-sentinel|rediss-sentinel|redis-cluster"
                + "|rediss-cluster|redis-socket)://.+");
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
        private @Nullable Path serviceSnapshotDirectory;
        private boolean deregisterOnClose = true;
        private String clientName = DEFAULT_CLIENT_NAME;
        private @Nullable Path tlsTrustedCertificates;
        private StartupMode startupMode = StartupMode.FAIL_FAST;
        private Collection<String> preloadServices = Set.of();
        private @Nullable InstanceIdentity identity;
        private @Nullable ConfigKeys configKeys;
        private boolean encryptedConfigPlaceholders;
        private boolean recordAppliedConfigs = true;
        private @Nullable String region;
        private final Map<String, RemoteRegion> remoteRegions = new LinkedHashMap<>();
        private final List<String> repeatedRegions = new ArrayList<>();
        private int regionFailoverThreshold = DEFAULT_REGION_FAILOVER_THRESHOLD;

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

        /**
         * @return this builder with the service snapshot directory set (null = none); see
         *     {@link LodestarOptions#serviceSnapshotDirectory()}
         */
        public Builder serviceSnapshotDirectory(@Nullable Path serviceSnapshotDirectory) {
            this.serviceSnapshotDirectory = serviceSnapshotDirectory;
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
         * @return this builder with the home region named (null = none; checked by {@link #build()}); see
         *     {@link LodestarOptions#region()}
         */
        public Builder region(@Nullable String region) {
            this.region = region;
            return this;
        }

        /** @return this builder with a remote region added, trusting the JVM's default CAs for its TLS */
        public Builder remoteRegion(String name, String redisUri) {
            return remoteRegion(name, redisUri, null);
        }

        /**
         * Adds a region this client reads, never writes; regions are failed over to in the order they are added.
         * Checked by {@link #build()}: a name like a namespace's, each name once and not the home region's, a
         * Redis URI as {@link LodestarOptions#builder(String)} takes, a readable PEM file or null.
         *
         * @param name                   the region's name
         * @param redisUri               its Redis (its own credentials; {@code rediss://} for TLS)
         * @param tlsTrustedCertificates the CA certificates to trust for its TLS, or null for the JVM's default
         * @return this builder
         */
        public Builder remoteRegion(String name, String redisUri, @Nullable Path tlsTrustedCertificates) {
            if (remoteRegions.putIfAbsent(name, new RemoteRegion(name, redisUri, tlsTrustedCertificates)) != null) {
                repeatedRegions.add(name);
            }
            return this;
        }

        /**
         * @return this builder with the keys of encrypted config entries set (null = none); see
         *     {@link LodestarOptions#configKeys()}
         */
        public Builder configKeys(@Nullable ConfigKeys configKeys) {
            this.configKeys = configKeys;
            return this;
        }

        /**
         * @return this builder with placeholders for undecryptable entries on or off; see
         *     {@link LodestarOptions#encryptedConfigPlaceholders()}
         */
        public Builder encryptedConfigPlaceholders(boolean encryptedConfigPlaceholders) {
            this.encryptedConfigPlaceholders = encryptedConfigPlaceholders;
            return this;
        }

        /**
         * @return this builder with the recording of applied config versions on (the default) or off; see
         *     {@link LodestarOptions#recordAppliedConfigs()}
         */
        public Builder recordAppliedConfigs(boolean recordAppliedConfigs) {
            this.recordAppliedConfigs = recordAppliedConfigs;
            return this;
        }

        /**
         * @return this builder with the region failover threshold set (1 to 10,000; checked by {@link #build()});
         *     see {@link LodestarOptions#regionFailoverThreshold()}
         */
        public Builder regionFailoverThreshold(int regionFailoverThreshold) {
            this.regionFailoverThreshold = regionFailoverThreshold;
            return this;
        }

        /**
         * @return the options
         * @throws InvalidArgumentException naming every invalid option
         */
        public LodestarOptions build() {
            Validation.Collector checks = Validation.collector()
                    .check(isRedisUri(redisUri), "redisUri", redact(redisUri), URI_RULE)
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
                    .range("regionFailoverThreshold", regionFailoverThreshold, 1, MAX_REGION_FAILOVER_THRESHOLD);
            if (region != null) {
                checks.region("region", region);
            }
            checks.check(region != null || remoteRegions.isEmpty(), "region", region,
                    "set when remote regions are named (they are " + remoteRegions.keySet() + ")");
            for (String repeated : repeatedRegions) {
                checks.add("regions", repeated, "named once");
            }
            for (RemoteRegion remote : remoteRegions.values()) {
                String field = "regions." + remote.name();
                checks.region("regions", remote.name())
                        .check(!Objects.equals(remote.name(), region), field, remote.name(),
                                "another region than the home region")
                        .check(isRedisUri(remote.redisUri()), field + ".redisUri", redact(remote.redisUri()),
                                URI_RULE)
                        .check(remote.tlsTrustedCertificates() == null
                                        || Files.isReadable(remote.tlsTrustedCertificates()),
                                field + ".tlsTrustedCertificates", remote.tlsTrustedCertificates(),
                                "a readable PEM file, or null");
            }
            checks.throwIfInvalid();
            return new LodestarOptions(this);
        }
    }
}
