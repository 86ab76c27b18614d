package io.lodestar.cli;

import io.lodestar.core.Initial;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.StartupMode;
import io.lodestar.core.Subscription;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ServiceSnapshot;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRolledBack;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code lodestar watch [SERVICE]} and {@code lodestar watch --configs}: a live view of a service's instances (or of
 * all services, or of the configs) from the SDK's local, PubSub-fed view. On a terminal it is a full-screen program: the alternate screen, the cursor hidden, the frame
 * redrawn in place (ANSI) on every event and once a second for ages and staleness, and the terminal restored on
 * Ctrl-C. Piped, it prints one frame per change, without escape codes.
 */
@Command(name = "watch", description = {"Watch a service's instances (or all services, or --configs) live, until"
        + " Ctrl-C.", "Redraws on every change; shows the revision, and how stale the view is and which Redis it is"
        + " trying while Redis is unreachable."})
final class WatchCommand implements Callable<Integer> {
    private static final String ESC = "\u001b[";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss")
            .withZone(ZoneId.systemDefault());

    @ParentCommand
    LodestarCli root;

    @Parameters(arity = "0..1", paramLabel = "SERVICE", description = "the service (default: all services)")
    String service;

    @Option(names = "--configs", description = "the configs of the namespace instead: ids, versions, formats")
    boolean configs;

    /** All services: one subscription per service (see ServiceWatch); else null. */
    private volatile ServiceWatch services;
    /** Draws come up to four times a second: TTL left is read from Redis at most once a second. */
    private TtlLeft ttlLeft;
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private volatile String lastEvent = "none yet";
    private volatile boolean changed = true;
    private String lastFrame = "";
    /** When the last frame was drawn (see {@link #draw}). */
    private long lastDraw;

    @Override
    public Integer call() throws Exception {
        if (configs && service != null) {
            throw new ExitCodes.UsageException("watch either a SERVICE or --configs, not both");
        }
        boolean terminal = System.console() != null && !"dumb".equals(System.getenv("TERM"));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        LodestarClient client = root.connect(StartupMode.OFFLINE);
        ScheduledExecutorService screen = Executors.newSingleThreadScheduledExecutor(Threads.daemon("lodestar-watch"));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            screen.shutdownNow();
            try {
                screen.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (terminal) {
                out.print(ESC + "?25h" + ESC + "?1049l");
                out.flush();
            }
            subscriptions.forEach(Subscription::close);
            if (services != null) {
                services.close();
            }
            client.close();
            stopped.countDown();
        }, "lodestar-watch-exit"));
        if (terminal) {
            out.print(ESC + "?1049h" + ESC + "?25l");
        }
        if (configs) {
            screen.execute(() -> subscriptions.add(client.config().subscribeAll(this::onConfigEvent)));
        } else if (service != null) {
            // subscribing waits for Redis: on the screen thread, not before the first frame
            screen.execute(() -> subscriptions.add(client.discovery().subscribe(service, this::onEvent,
                    Initial.DELIVER)));
        } else {
            services = new ServiceWatch(client, screen, id -> this::onEvent);
            services.start(change -> {
                lastEvent = describe(change.added(), change.removed());
                changed = true;
            });
            services.watchAll();
        }
        screen.scheduleWithFixedDelay(() -> draw(client, out, terminal), 0, 250, TimeUnit.MILLISECONDS);
        stopped.await();
        return ExitCodes.OK;
    }

    private void onConfigEvent(ConfigEvent event) {
        lastEvent = describe(event) + " at " + CLOCK.format(Instant.now());
        changed = true;
    }

    private void onEvent(ServiceEvent event) {
        lastEvent = describe(event) + " at " + CLOCK.format(Instant.now());
        changed = true;
    }

    /** Every 250 ms: draws when something changed, and on a terminal at least once a second (ages, staleness). */
    private void draw(LodestarClient client, PrintStream out, boolean terminal) {
        try {
            long now = System.nanoTime();
            boolean due = terminal && now - lastDraw >= TimeUnit.SECONDS.toNanos(1);
            if (!changed && !due) {
                return;
            }
            changed = false;
            String frame = frame(client);
            if (!terminal && frame.equals(lastFrame)) {
                return;
            }
            lastFrame = frame;
            lastDraw = now;
            if (terminal) {
                StringBuilder screen = new StringBuilder(ESC + "H");
                for (String line : frame.split("\n", -1)) {
                    screen.append(line).append(ESC).append("K\n"); // the terminal (onlcr) adds the \r
                }
                out.print(screen.append(ESC).append("J"));
            } else {
                out.print(frame.replaceAll("\u001b\\[[0-9;]*m", "") + "\n");
            }
            out.flush();
        } catch (RuntimeException e) {
            lastEvent = "cannot read the view: " + ExitCodes.describe(e);
        }
    }

    private TtlLeft ttlLeft(LodestarClient client) {
        if (ttlLeft == null) { // only the screen thread draws
            ttlLeft = new TtlLeft(client);
        }
        return ttlLeft;
    }

    private String frame(LodestarClient client) {
        ViewStatus status = configs ? client.config().status() : client.discovery().status();
        Instant now = Instant.now();
        StringBuilder frame = new StringBuilder();
        String title = configs ? "configs" : service == null ? "all services" : service;
        String live = status.stale()
                ? ESC + "1;33;7m STALE " + Views.human(status.staleFor()) + ": Redis unreachable (trying "
                + LodestarOptions.redact(root.redisUri()) + "), showing the last known state " + ESC + "0m"
                : ESC + "32mlive" + ESC + "0m";
        List<Map<String, Object>> rows = new ArrayList<>();
        long revision = 0;
        if (configs) {
            rows.addAll(configRows(client));
        } else if (service != null) {
            ServiceSnapshot snapshot = Instances.snapshot(client.discovery(), service);
            revision = snapshot.revision();
            rows.addAll(Views.instances(snapshot, now, ttlLeft(client).of(snapshot)));
        } else {
            rows.addAll(Instances.serviceRows(client.discovery(), services.services()));
        }
        frame.append(ESC).append("1mlodestar watch ").append(title).append(ESC).append("0m")
                .append("   namespace ").append(root.namespace);
        if (service != null) {
            frame.append("   revision ").append(revision);
        }
        frame.append("   ").append(live).append("   ").append(CLOCK.format(now)).append('\n').append('\n');
        if (rows.isEmpty()) {
            frame.append(configs ? "no configs yet" : service == null ? "no services yet"
                    : "no instances of " + service + " yet").append('\n');
        } else {
            frame.append(Output.Table.render(rows, configs ? Views.CONFIG_COLUMNS
                    : service == null ? Views.SERVICE_COLUMNS : Views.INSTANCE_COLUMNS));
        }
        frame.append('\n').append("last event: ").append(lastEvent).append('\n');
        frame.append(ESC).append("2mCtrl-C to quit").append(ESC).append("0m");
        return frame.toString();
    }

    /** The configs from the view; none while it cannot load them (the staleness line says why). */
    private static List<Map<String, Object>> configRows(LodestarClient client) {
        try {
            return Configs.list(client.config(), client.config());
        } catch (LodestarException offline) {
            return List.of();
        }
    }

    static String describe(ConfigEvent event) {
        String what = event instanceof ConfigRolledBack e ? "rolled back to the content of version "
                + e.fromVersion()
                : event instanceof ConfigChanged ? "changed"
                : "removed"; // ConfigRemoved: the events are sealed
        return event.configId() + ": " + what + ", version " + event.version();
    }

    static String describe(ServiceEvent event) {
        String what;
        if (event instanceof InstanceRegistered e) {
            what = e.instance().instanceId() + " registered";
        } else if (event instanceof InstanceUpdated e) {
            what = e.instance().instanceId() + " updated (" + Views.statusName(e.instance().status()) + ", weight "
                    + e.instance().weight() + ")";
        } else if (event instanceof InstanceDeregistered e) {
            what = e.instanceId() + (e.evicted() ? " evicted" : " deregistered");
        } else if (event instanceof InstanceExpired e) {
            what = e.instanceId() + " expired";
        } else if (event instanceof ServiceResynced e) {
            what = "loaded " + e.snapshot().instances().size() + " instances";
        } else {
            what = event.getClass().getSimpleName();
        }
        return event.serviceId() + ": " + what + ", revision " + event.revision();
    }

    private static String describe(Set<String> added, Set<String> removed) {
        List<String> parts = new ArrayList<>();
        added.stream().sorted().forEach(id -> parts.add("+" + id));
        removed.stream().sorted().forEach(id -> parts.add("-" + id));
        return "services " + String.join(" ", parts);
    }

}
