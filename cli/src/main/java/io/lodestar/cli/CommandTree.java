package io.lodestar.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code lodestar} command tree, built only as far as a command line needs it. picocli builds the model of a
 * command by reflection (its annotations, options, converters, and the inherited options copied into every
 * subcommand); for all 32 commands that is most of the start-up of a one-shot command before it connects (issue 34).
 * A command line that names one command gets the branch down to it; help, the version, an unknown command and any
 * usage error get the whole tree, so they read as they always did (help lists every command, a typo gets
 * suggestions from all of them). picocli has no lazy subcommands of its own; it parses a branch exactly as the whole
 * tree, because a command only ever looks among its own subcommands (none of ours is {@code subcommandsRepeatable}).
 */
final class CommandTree {
    /**
     * The subcommands of the commands whose {@code @Command} leaves them out ({@code addMethodSubcommands = false} and
     * no {@code subcommands}), in the order picocli listed them: these classes first, then the command methods of the
     * parent by name. Every other command's subcommands are in its annotation.
     */
    private static final Map<Class<?>, List<Class<?>>> SUBCOMMANDS = Map.of(
            LodestarCli.class, List.of(ConfigCommand.class, WatchCommand.class, ConsoleCommand.class,
                    RegionsCommand.class),
            ConfigCommand.class, List.of(GrayCommand.class, ConfigLogCommand.class, ReencryptCommand.class,
                    ConfigWhoCommand.class, ConfigExportCommand.class, ConfigImportCommand.class,
                    ConfigCopyCommand.class));

    private CommandTree() {
    }

    /**
     * A command (an instance, or a class for picocli to make one of) with its subcommands: all of them for an empty
     * {@code path}, else only the one it names first, with the rest of the path applied to that one in turn.
     */
    static CommandLine build(Object command, List<String> path) {
        CommandLine cli = new CommandLine(command);
        String wanted = path.isEmpty() ? null : path.get(0);
        List<String> rest = path.isEmpty() ? List.of() : path.subList(1, path.size());
        for (Subcommand sub : subcommands(command instanceof Class<?> type ? type : command.getClass())) {
            if (wanted == null || wanted.equals(sub.name())) {
                cli.addSubcommand(sub.name(), sub.type() != null ? build(sub.type(), rest)
                        : new CommandLine(sub.method()));
            }
        }
        return cli;
    }

    /**
     * The path of command names these arguments seem to run, e.g. {@code [config, get]}; empty when they name none.
     * A guess from the words alone (an option's value may be a command's name too): the caller parses the arguments
     * with that branch and takes the whole tree when they do not parse.
     */
    static List<String> path(String... args) {
        List<String> path = new ArrayList<>();
        Class<?> parent = LodestarCli.class;
        for (int i = 0; i < args.length && parent != null && !args[i].equals("--"); i++) {
            for (Subcommand sub : subcommands(parent)) {
                if (sub.name().equals(args[i])) {
                    path.add(sub.name());
                    parent = sub.type() != null && SUBCOMMANDS.containsKey(sub.type()) ? sub.type() : null;
                    break;
                }
            }
        }
        return path;
    }

    /** Whether a branch takes these arguments as a command to run (not a request for help or the version). */
    static boolean runs(CommandLine branch, String... args) {
        try {
            return branch.parseArgs(args).asCommandLineList().stream()
                    .noneMatch(cli -> cli.isUsageHelpRequested() || cli.isVersionHelpRequested());
        } catch (CommandLine.ParameterException wholeTreeReportsIt) {
            return false;
        }
    }

    /** The subcommands {@link #SUBCOMMANDS} gives a command, in picocli's order; none for any other command. */
    private static List<Subcommand> subcommands(Class<?> command) {
        List<Class<?>> types = SUBCOMMANDS.get(command);
        if (types == null) {
            return List.of();
        }
        List<Subcommand> subcommands = new ArrayList<>();
        for (Class<?> type : types) {
            subcommands.add(new Subcommand(type.getAnnotation(Command.class).name(), type, null));
        }
        for (Method method : CommandLine.getCommandMethods(command, null)) {
            subcommands.add(new Subcommand(method.getAnnotation(Command.class).name(), null, method));
        }
        return subcommands;
    }

    /** A subcommand: a class of its own, or a command method of its parent. */
    private record Subcommand(String name, Class<?> type, Method method) {
    }
}
