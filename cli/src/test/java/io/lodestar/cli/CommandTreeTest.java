package io.lodestar.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command line gets the branch of the command tree it runs, and the whole tree wherever the whole tree shows
 * (help, usage errors): the same parse and the same messages, built in a fraction of the time (issue 34).
 */
class CommandTreeTest {
    private static final List<String> TOP_LEVEL = List.of("config", "watch", "console", "regions", "deregister",
            "evict", "instances", "purge", "register", "services", "status", "weight");

    @Test
    void aCommandLineThatNamesACommandGetsOnlyTheBranchDownToIt() {
        CommandLine tree = LodestarCli.commandLine("-n", "prod", "config", "get", "orders/limits", "-o", "json");

        assertThat(tree.getSubcommands()).containsOnlyKeys("config");
        assertThat(tree.getSubcommands().get("config").getSubcommands()).containsOnlyKeys("get");
    }

    @Test
    void helpGetsTheWholeTreeInItsOrder() {
        CommandLine tree = LodestarCli.commandLine("--help", "services");

        assertThat(tree.getSubcommands().keySet()).containsExactlyElementsOf(TOP_LEVEL);
        assertThat(tree.getSubcommands().get("config").getSubcommands().keySet()).containsExactly("gray", "log",
                "reencrypt", "who", "export", "import", "copy", "diff", "get", "history", "list", "rm", "rollback",
                "set");
    }

    @Test
    void anUnknownCommandIsAnsweredWithSuggestionsFromTheWholeTree() {
        StringWriter err = new StringWriter();
        CommandLine tree = LodestarCli.commandLine("servces");
        tree.setErr(new PrintWriter(err));

        int exitCode = tree.execute("servces");

        assertThat(exitCode).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("Did you mean: lodestar services or lodestar instances");
    }

    @Test
    void argumentsTheBranchTheyNameCannotParseGetTheWholeTree() {
        // "watch" is the namespace's value here, and "services" the command (which picocli refuses, as before)
        CommandLine tree = LodestarCli.commandLine("-n", "watch", "services");

        assertThat(tree.getSubcommands().keySet()).containsExactlyElementsOf(TOP_LEVEL);
    }

    /** The branch takes every argument as the whole tree does: the same commands, options and values. */
    @ParameterizedTest
    @ValueSource(strings = {"services", "-o json services", "services -o json", "--uri redis://h:1 -n p instances a",
            "instances a -n p --timeout 2s -v", "config -o yaml get orders/limits --version 3",
            "-n get config get x", "config gray start a -f yaml --rule zone=eu-1", "register pg pg-1 --host db --port 1",
            "status pg pg-1 out-of-service", "watch --configs", "config list -n services"})
    void aBranchParsesAsTheWholeTree(String line) {
        String[] args = line.split(" ");

        String branch = parsed(LodestarCli.commandLine(args), args);
        String whole = parsed(CommandTree.build(new LodestarCli(), List.of()), args);

        assertThat(branch).isEqualTo(whole);
    }

    /** Each command the arguments run, with the options and parameters it matched and their values. */
    private static String parsed(CommandLine tree, String... args) {
        return tree.parseArgs(args).asCommandLineList().stream().map(cli -> cli.getParseResult())
                .map(result -> result.commandSpec().qualifiedName() + result.matchedArgs().stream()
                        .map(arg -> " " + (arg instanceof CommandLine.Model.OptionSpec option ? option.longestName()
                                : arg.paramLabel()) + "=" + arg.getValue()).collect(Collectors.joining()))
                .collect(Collectors.joining(" | "));
    }
}
