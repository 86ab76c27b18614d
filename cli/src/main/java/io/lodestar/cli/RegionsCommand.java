package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.StartupMode;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import io.lodestar.redis.RedisLodestar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code lodestar regions SERVICE --home eu --remote us=redis://...}: a service's instances in every region, each
 * region read from its own Redis (the {@code --uri} one is home), with a row that says so for a region that cannot
 * be read now.
 */
@Command(name = "regions", description = {"List a service's instances by region: home (--uri) and every --remote",
        "region, each read from its own Redis."})
final class RegionsCommand implements Callable<Integer> {
    static final List<String> COLUMNS = List.of("region", "id", "address", "weight", "status", "zone");

    @ParentCommand
    LodestarCli root;

    @Parameters(paramLabel = "SERVICE", description = "the service id")
    String service;

    @Mixin
    RegionOptions regions;

    @Override
    public Integer call() {
        if (regions.home == null) {
            throw new ExitCodes.UsageException("regions needs --home NAME, the name of the --uri region");
        }
        try (LodestarClient client = RedisLodestar.create(regions.apply(root.optionsBuilder(StartupMode.FAIL_FAST))
                .build())) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (String region : client.regions()) {
                rows.addAll(rows(region, client.discovery(region)));
            }
            root.output().table(rows, COLUMNS, "no instances of " + service + " in any region");
            return ExitCodes.OK;
        }
    }

    /** The region's instances (its view loads the service, bounded by --timeout), or one row saying why not. */
    private List<Map<String, Object>> rows(String region, ServiceDiscovery discovery) {
        ServiceSnapshot snapshot;
        try {
            snapshot = discovery.getSnapshot(service);
        } catch (LodestarException unreadable) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("region", region);
            row.put("status", "unreachable: " + unreadable.getMessage());
            return List.of(row);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ServiceInstance instance : snapshot.instances()) {
            rows.add(Views.instance(instance, snapshot.revision(), Instant.now(), null));
        }
        return rows;
    }
}
