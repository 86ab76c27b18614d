package io.lodestar.cli;

import io.lodestar.core.LodestarOptions;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code --home NAME --remote NAME=URI ...}: the regions a command reads, home being the {@code --uri} Redis
 * ({@code lodestar regions}, {@code lodestar console}). A picocli mixin, so both take the same options.
 */
final class RegionOptions {
    @Option(names = "--home", paramLabel = "NAME", description = "the name of the --uri region")
    String home;

    @Option(names = "--remote", paramLabel = "NAME=URI",
            description = "another region and its Redis, only read (repeatable; needs --home)")
    Map<String, String> remotes = new LinkedHashMap<>();

    /**
     * Names the regions on a client's options.
     *
     * @throws ExitCodes.UsageException for a --remote without --home: its instances would be told apart from no home
     */
    LodestarOptions.Builder apply(LodestarOptions.Builder options) {
        if (home == null && !remotes.isEmpty()) {
            throw new ExitCodes.UsageException("--remote needs --home, the name of the --uri region, but only --remote "
                    + String.join(", ", remotes.keySet()) + " was given");
        }
        if (home != null) {
            options.region(home);
        }
        remotes.forEach(options::remoteRegion);
        return options;
    }
}
