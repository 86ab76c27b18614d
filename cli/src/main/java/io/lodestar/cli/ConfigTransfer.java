package io.lodestar.cli;

import io.lodestar.core.ConfigReader;
import io.lodestar.core.ConfigService;
import io.lodestar.core.ConflictException;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Moving configs between namespaces (export, import, copy): what a source holds, the plan of what a target would
 * become ({@code --dry-run} prints it), and carrying the plan out with compare-and-set. Each write expects the
 * version the plan read from the target, so an edit made in between is a conflict, reported per config, never
 * overwritten. With {@code --prune} the plan also removes the target's configs (of the prefix) that the source
 * lacks, each with compare-and-remove on the version the plan read. Configs live in different slots, so a transfer is not atomic as a whole: the configs that did not
 * conflict are written, and running it again finishes the rest.
 */
final class ConfigTransfer {
    static final List<String> OUTCOME_COLUMNS = List.of("id", "result", "sourceVersion", "expectedVersion",
            "version");

    private ConfigTransfer() {
    }

    /** One config as a source holds it: its current content and format, and its version there (for people). */
    record Item(String id, ConfigFormat format, String content, long version, String contentHash) {
        static Item of(ConfigEntry entry) {
            return new Item(entry.id(), entry.format(), entry.content(), entry.version(), entry.contentHash());
        }
    }

    /** What one config of the plan does to the target. */
    enum Action {
        CREATE, UPDATE, UNCHANGED, REMOVE;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One config of the plan: the item (for a {@link Action#REMOVE}, an empty one of version 0: the source lacks
     * it), what it does, the target's version it was planned against (0: absent) and
     * format, and the lines that change.
     */
    record Step(Item item, Action action, long targetVersion, ConfigFormat targetFormat, List<Diff.Line> lines) {
    }

    /** What writing a step did: {@code result} is created, updated, unchanged, removed or conflict; {@code version}
     * the target's version after it (a remove takes a version too; on a conflict: the version someone else wrote,
     * 0 when they removed it). */
    record Outcome(Step step, String result, long version) {
        boolean conflict() {
            return "conflict".equals(result);
        }
    }

    /** The current entries of the configs whose id starts with {@code prefix} ("" for all), by id. */
    static List<Item> read(ConfigService config, ConfigReader current, String prefix) {
        List<Item> items = new ArrayList<>();
        for (String id : config.list().stream().filter(id -> id.startsWith(prefix)).sorted().toList()) {
            current.get(id).ifPresent(entry -> items.add(Item.of(entry))); // removed since the list: not exported
        }
        return items;
    }

    /** What writing {@code items} would do to the target, read from {@code target} now (nothing is written). */
    static List<Step> plan(ConfigReader target, List<Item> items) {
        List<Step> steps = new ArrayList<>();
        for (Item item : items) {
            Optional<ConfigEntry> now = target.get(item.id());
            if (now.isEmpty()) {
                steps.add(new Step(item, Action.CREATE, 0, null, Diff.lines("", item.content())));
            } else if (now.get().content().equals(item.content()) && now.get().format() == item.format()) {
                steps.add(new Step(item, Action.UNCHANGED, now.get().version(), now.get().format(), List.of()));
            } else {
                steps.add(new Step(item, Action.UPDATE, now.get().version(), now.get().format(),
                        Diff.lines(now.get().content(), item.content())));
            }
        }
        return steps;
    }

    /**
     * The removals {@code --prune} adds to a plan: the target's configs whose id starts with {@code prefix} and that
     * {@code items} (the source) lack, in id order, each planned against the version read now.
     */
    static List<Step> prune(ConfigService target, ConfigReader targetCurrent, List<Item> items, String prefix) {
        Set<String> kept = items.stream().map(Item::id).collect(Collectors.toSet());
        List<Step> steps = new ArrayList<>();
        for (String id : target.list().stream().filter(id -> id.startsWith(prefix) && !kept.contains(id)).sorted()
                .toList()) {
            targetCurrent.get(id).ifPresent(entry -> steps.add(new Step(new Item(id, entry.format(), "", 0, ""),
                    Action.REMOVE, entry.version(), entry.format(), Diff.lines(entry.content(), ""))));
        }
        return steps;
    }

    /**
     * Carries the plan out: each create or update is a compare-and-set, each removal a compare-and-remove, on the
     * version the plan read. A conflict is that config's outcome; the others are still written.
     */
    static List<Outcome> apply(ConfigService target, List<Step> plan) {
        List<Outcome> outcomes = new ArrayList<>();
        for (Step step : plan) {
            if (step.action() == Action.UNCHANGED) {
                outcomes.add(new Outcome(step, "unchanged", step.targetVersion()));
                continue;
            }
            Item item = step.item();
            try {
                if (step.action() == Action.REMOVE) {
                    target.compareAndRemove(item.id(), step.targetVersion());
                    outcomes.add(new Outcome(step, "removed", step.targetVersion() + 1));
                    continue;
                }
                ConfigEntry written = target.compareAndSet(item.id(), item.content(), item.format(),
                        step.targetVersion());
                outcomes.add(new Outcome(step, step.action() == Action.CREATE ? "created" : "updated",
                        written.version()));
            } catch (ConflictException e) {
                outcomes.add(new Outcome(step, "conflict", e.currentVersion()));
            }
        }
        return outcomes;
    }

    /** A step for structured output: the action, both versions, a format change, the changed lines. */
    static Map<String, Object> view(Step step) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", step.item().id());
        row.put("action", step.action().word());
        row.put("sourceVersion", step.item().version());
        row.put("targetVersion", step.targetVersion());
        row.put("format", step.item().format().name().toLowerCase(Locale.ROOT));
        if (step.targetFormat() != null && step.targetFormat() != step.item().format()) {
            row.put("targetFormat", step.targetFormat().name().toLowerCase(Locale.ROOT));
        }
        List<Map<String, Object>> lines = new ArrayList<>();
        for (Diff.Line line : step.lines()) {
            if (line.op() != ' ') {
                lines.add(Map.of("op", String.valueOf(line.op()), "text", line.text()));
            }
        }
        row.put("lines", lines);
        return row;
    }

    /** An outcome for structured output and tables. */
    static Map<String, Object> view(Outcome outcome) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", outcome.step().item().id());
        row.put("result", outcome.result());
        row.put("sourceVersion", outcome.step().item().version());
        row.put("expectedVersion", outcome.step().targetVersion());
        row.put("version", outcome.version());
        return row;
    }

    /** How import and copy were asked to transfer: the prefix, whether to prune the target, whether to write. */
    record Options(String prefix, boolean prune, boolean dryRun) {
    }

    /**
     * What import and copy share: plans {@code items} against the target, then prints the plan ({@code dryRun}) or
     * carries it out and prints the outcomes.
     *
     * @return {@link ExitCodes#OK}, or {@link ExitCodes#CONFLICT} when a config changed in the target meanwhile
     */
    static int transfer(Output out, ConfigService target, ConfigReader targetCurrent, List<Item> items,
                        Options options, String targetName) {
        List<Step> plan = new ArrayList<>(plan(targetCurrent, items));
        if (options.prune()) {
            plan.addAll(prune(target, targetCurrent, items, options.prefix()));
        }
        boolean dryRun = options.dryRun();
        if (dryRun) {
            if (out.structured()) {
                out.value(plan.stream().map(ConfigTransfer::view).toList());
            } else {
                out.text(describe(plan, targetName));
            }
            return ExitCodes.OK;
        }
        return write(out, target, plan, targetName);
    }

    /**
     * Carries a plan out and prints the outcomes.
     *
     * @return {@link ExitCodes#OK}, or {@link ExitCodes#CONFLICT} when a config changed in the target since the plan
     */
    static int write(Output out, ConfigService target, List<Step> plan, String targetName) {
        List<Outcome> outcomes = apply(target, plan);
        out.table(outcomes.stream().map(ConfigTransfer::view).toList(), OUTCOME_COLUMNS,
                "no configs to write to " + targetName);
        long conflicts = outcomes.stream().filter(Outcome::conflict).count();
        if (conflicts > 0 && !out.structured()) {
            out.text(conflicts + " of " + outcomes.size() + " configs changed in " + targetName
                    + " while this ran and were not written (run again to see the new plan)");
        }
        return conflicts > 0 ? ExitCodes.CONFLICT : ExitCodes.OK;
    }

    /** The plan as a diff people read: one header per config that changes, its changed lines, a summary. */
    static String describe(List<Step> plan, String target) {
        StringBuilder text = new StringBuilder();
        int create = 0;
        int update = 0;
        int remove = 0;
        for (Step step : plan) {
            String id = step.item().id();
            switch (step.action()) {
                case UNCHANGED -> {
                    continue;
                }
                case CREATE -> create++;
                case UPDATE -> update++;
                case REMOVE -> remove++;
            }
            text.append("--- ").append(id).append(step.action() == Action.CREATE ? " (absent)" : " (version "
                    + step.targetVersion() + ", " + step.targetFormat().name().toLowerCase(Locale.ROOT) + ")")
                    .append('\n');
            text.append("+++ ").append(id).append(step.action() == Action.REMOVE ? " (absent from the source: removed)"
                    : " (source version " + step.item().version() + ", "
                    + step.item().format().name().toLowerCase(Locale.ROOT) + ")").append('\n');
            step.lines().stream().filter(line -> line.op() != ' ')
                    .forEach(line -> text.append(line).append('\n'));
        }
        text.append("dry run against ").append(target).append(": ").append(create).append(" to create, ")
                .append(update).append(" to update, ");
        if (remove > 0) {
            text.append(remove).append(" to remove, ");
        }
        text.append(plan.size() - create - update - remove).append(" unchanged; nothing written");
        return text.toString();
    }
}
