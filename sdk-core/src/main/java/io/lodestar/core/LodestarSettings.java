package io.lodestar.core;

import io.lodestar.core.model.InstanceIdentity;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings model as a mutable bean, for property binding: Spring Boot and Micronaut subclass it and add only
 * their annotations. Defaults equal {@link LodestarOptions}', except the start-up mode (see {@link #getStartupMode()});
 * {@link #toOptions()} validates every field at once.
 */
public class LodestarSettings {
    private String redisUri;
    private String namespace = "default";
    private Duration commandTimeout = LodestarOptions.DEFAULT_COMMAND_TIMEOUT;
    private Duration sweepInterval = LodestarOptions.DEFAULT_SWEEP_INTERVAL;
    private Duration reconcileInterval = LodestarOptions.DEFAULT_RECONCILE_INTERVAL;
    private Duration idleViewTimeout = LodestarOptions.DEFAULT_IDLE_VIEW_TIMEOUT;
    private int viewTopicLimit = LodestarOptions.DEFAULT_VIEW_TOPIC_LIMIT;
    private int configHistoryLimit = LodestarOptions.DEFAULT_CONFIG_HISTORY_LIMIT;
    private Path configSnapshotDirectory;
    private boolean deregisterOnClose = true;
    private String clientName = LodestarOptions.DEFAULT_CLIENT_NAME;
    private Path tlsTrustedCertificates;
    private StartupMode startupMode;
    private boolean failFast;
    private List<String> preloadServices = new ArrayList<>();
    private String identityInstanceId;
    private Map<String, String> identityMetadata = new LinkedHashMap<>();

    /**
     * @return validated, immutable options
     * @throws InvalidArgumentException naming every invalid setting
     */
    public LodestarOptions toOptions() {
        return LodestarOptions.builder(redisUri)
                .namespace(namespace)
                .commandTimeout(commandTimeout)
                .sweepInterval(sweepInterval)
                .reconcileInterval(reconcileInterval)
                .idleViewTimeout(idleViewTimeout)
                .viewTopicLimit(viewTopicLimit)
                .configHistoryLimit(configHistoryLimit)
                .configSnapshotDirectory(configSnapshotDirectory)
                .deregisterOnClose(deregisterOnClose)
                .clientName(clientName)
                .tlsTrustedCertificates(tlsTrustedCertificates)
                .startupMode(getStartupMode())
                .preloadServices(preloadServices)
                .identity(identityInstanceId == null ? null : new InstanceIdentity(identityInstanceId, identityMetadata))
                .build();
    }

    /** @return the Redis URI (secret: never log it) */
    public String getRedisUri() {
        return redisUri;
    }

    /** @param redisUri the Redis URI */
    public void setRedisUri(String redisUri) {
        this.redisUri = redisUri;
    }

    /** @return the namespace */
    public String getNamespace() {
        return namespace;
    }

    /** @param namespace the namespace */
    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    /** @return the command timeout */
    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    /** @param commandTimeout the command timeout (10 ms to 1 day, default 5 s) */
    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    /** @return the sweep interval */
    public Duration getSweepInterval() {
        return sweepInterval;
    }

    /** @param sweepInterval the sweep interval (100 ms to 1 day, default 5 s) */
    public void setSweepInterval(Duration sweepInterval) {
        this.sweepInterval = sweepInterval;
    }

    /** @return the reconcile interval */
    public Duration getReconcileInterval() {
        return reconcileInterval;
    }

    /** @param reconcileInterval the reconcile interval (100 ms to 1 day, default 60 s) */
    public void setReconcileInterval(Duration reconcileInterval) {
        this.reconcileInterval = reconcileInterval;
    }

    /** @return the idle view timeout */
    public Duration getIdleViewTimeout() {
        return idleViewTimeout;
    }

    /** @param idleViewTimeout the idle view timeout (100 ms to 1 day, default 10 min) */
    public void setIdleViewTimeout(Duration idleViewTimeout) {
        this.idleViewTimeout = idleViewTimeout;
    }

    /** @return the most entries one view holds */
    public int getViewTopicLimit() {
        return viewTopicLimit;
    }

    /** @param viewTopicLimit the most entries one view holds (10 to 10,000,000, default 100,000) */
    public void setViewTopicLimit(int viewTopicLimit) {
        this.viewTopicLimit = viewTopicLimit;
    }

    /** @return the config history limit */
    public int getConfigHistoryLimit() {
        return configHistoryLimit;
    }

    /** @param configHistoryLimit the config history limit */
    public void setConfigHistoryLimit(int configHistoryLimit) {
        this.configHistoryLimit = configHistoryLimit;
    }

    /** @return the config snapshot directory, or null */
    public Path getConfigSnapshotDirectory() {
        return configSnapshotDirectory;
    }

    /** @param configSnapshotDirectory the config snapshot directory, or null */
    public void setConfigSnapshotDirectory(Path configSnapshotDirectory) {
        this.configSnapshotDirectory = configSnapshotDirectory;
    }

    /** @return whether close deregisters */
    public boolean isDeregisterOnClose() {
        return deregisterOnClose;
    }

    /** @param deregisterOnClose whether close deregisters */
    public void setDeregisterOnClose(boolean deregisterOnClose) {
        this.deregisterOnClose = deregisterOnClose;
    }

    /** @return the connection name prefix */
    public String getClientName() {
        return clientName;
    }

    /** @param clientName the connection name prefix */
    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    /** @return the PEM file of CA certificates trusted for TLS, or null */
    public Path getTlsTrustedCertificates() {
        return tlsTrustedCertificates;
    }

    /** @param tlsTrustedCertificates the PEM file of CA certificates trusted for TLS, or null */
    public void setTlsTrustedCertificates(Path tlsTrustedCertificates) {
        this.tlsTrustedCertificates = tlsTrustedCertificates;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[redisUri=" + LodestarOptions.redact(redisUri) + ", namespace="
                + namespace + "]";
    }

    /**
     * @return what the client does when Redis cannot be reached at start-up: the start-up mode when one was set,
     *     else {@code FAIL_FAST} with {@link #isFailFast() fail-fast} and {@code OFFLINE} without. An application
     *     started by a framework comes up and heals when Redis returns rather than fail its start (the one default
     *     that differs from {@link LodestarOptions}')
     */
    public StartupMode getStartupMode() {
        return startupMode != null ? startupMode : failFast ? StartupMode.FAIL_FAST : StartupMode.OFFLINE;
    }

    /** @param startupMode how the client starts; wins over {@link #isFailFast() fail-fast} for the client itself */
    public void setStartupMode(StartupMode startupMode) {
        this.startupMode = startupMode;
    }

    /**
     * @return whether an unreachable Redis fails the application's start (default false): the client's creation
     *     (unless a start-up mode is set) and the framework adapters' auto-registration, which otherwise is retried
     *     until Redis answers
     */
    public boolean isFailFast() {
        return failFast;
    }

    /** @param failFast whether an unreachable Redis fails the application's start */
    public void setFailFast(boolean failFast) {
        this.failFast = failFast;
    }

    /** @return the services the discovery view loads at start-up (default none) */
    public List<String> getPreloadServices() {
        return preloadServices;
    }

    /** @param preloadServices the services the discovery view loads at start-up */
    public void setPreloadServices(List<String> preloadServices) {
        this.preloadServices = preloadServices;
    }

    /** @return the instance id gray releases see this client as (default none: the first instance it registers) */
    public String getIdentityInstanceId() {
        return identityInstanceId;
    }

    /** @param identityInstanceId the instance id gray releases see this client as */
    public void setIdentityInstanceId(String identityInstanceId) {
        this.identityInstanceId = identityInstanceId;
    }

    /** @return the metadata gray releases see this client with (used with {@link #getIdentityInstanceId()}) */
    public Map<String, String> getIdentityMetadata() {
        return identityMetadata;
    }

    /** @param identityMetadata the metadata gray releases see this client with */
    public void setIdentityMetadata(Map<String, String> identityMetadata) {
        this.identityMetadata = identityMetadata;
    }
}
