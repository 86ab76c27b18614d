package io.lodestar.cli;

import io.lodestar.core.ConfigReader;
import io.lodestar.core.ConfigService;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.model.ConfigEntry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The config operations {@code lodestar config} and the console share, on top of the SDK's {@link ConfigService}:
 * the same answers (and the same not-found messages) whichever tool asks.
 */
final class Configs {
    private Configs() {
    }

    /**
     * The current entry, from {@code config}: a one-shot command passes {@code LodestarClient#directConfig()} (a read
     * of Redis, no subscription and no view, what Redis holds at this moment); the console its live view.
     *
     * @throws NotFoundException when the config does not exist (a removed one included)
     */
    static ConfigEntry current(ConfigReader config, String id) {
        return config.get(id).orElseThrow(() -> notFound(id));
    }

    /** @throws NotFoundException when history does not hold that version */
    static ConfigEntry version(ConfigService config, String id, long version) {
        return config.getVersion(id, version).orElseThrow(() -> new NotFoundException("config version",
                id + "@" + version, "No version " + version + " of config '" + id + "' in history"));
    }

    /**
     * A rollback; with an expected version it is a compare-and-set of the old version's content, so that it
     * cannot overwrite a change it did not see (the SDK's rollback has no expected version).
     */
    static ConfigEntry rollback(ConfigService config, String id, long version, Long expectedVersion) {
        if (expectedVersion == null) {
            return config.rollback(id, version);
        }
        ConfigEntry old = version(config, id, version);
        return config.compareAndSet(id, old.content(), old.format(), expectedVersion);
    }

    /** The current entry (read from {@code current}) of every config, by id (see {@link Views#config}, no content). */
    static List<Map<String, Object>> list(ConfigService config, ConfigReader current) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String id : config.list().stream().sorted().toList()) {
            current.get(id).ifPresent(entry -> rows.add(Views.config(entry, false)));
        }
        return rows;
    }

    /** From version {@code from} to version {@code to}, or to the current one when {@code to} is null. */
    static Compared diff(ConfigService config, ConfigReader current, String id, long from, Long to) {
        ConfigEntry before = version(config, id, from);
        ConfigEntry after = to == null ? current(current, id) : version(config, id, to);
        return new Compared(before, after, Diff.lines(before.content(), after.content()));
    }

    static NotFoundException notFound(String id) {
        return new NotFoundException("config", id, "No config '" + id + "'");
    }

    /** Two versions of a config and the lines that changed between them. */
    record Compared(ConfigEntry from, ConfigEntry to, List<Diff.Line> lines) {
    }
}
