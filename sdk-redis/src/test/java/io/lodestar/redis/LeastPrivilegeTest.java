package io.lodestar.redis;

import io.lodestar.core.model.Namespace;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ACL rules hold exactly the commands the scripts call, read from the scripts themselves: a script that starts
 * calling a new command fails here, not in a least-privilege deployment. A script's commands are those it calls
 * itself plus those of the helper functions (from its {@code --#include} files) it calls, transitively.
 */
class LeastPrivilegeTest {
    private static final Pattern CALL = Pattern.compile("redis\\.p?call\\(\\s*'([A-Za-z]+)'");
    private static final Pattern INCLUDE = Pattern.compile("(?m)^--#include (\\S+)");
    private static final Pattern FUNCTION = Pattern.compile("(?m)^local function ([a-z_]+)\\(");

    @Test
    void theReaderMayCallExactlyWhatTheReadScriptsCall() {
        Set<String> readScripts = commands(script -> script.startsWith("read_"));

        assertThat(rules(LeastPrivilege.READ_SCRIPTS)).isEqualTo(minus(readScripts, rules(LeastPrivilege.CLIENT)));
    }

    @Test
    void theWriterMayCallExactlyWhatEveryScriptCalls() {
        Set<String> granted = rules(LeastPrivilege.ACL_RULES);

        assertThat(granted).isEqualTo(union(commands(script -> true),
                union(rules(LeastPrivilege.CLIENT), rules(LeastPrivilege.CONNECTION))));
    }

    @Test
    void theReaderMayNeitherWriteNorPublish() {
        assertThat(rules(LeastPrivilege.READER_ACL_RULES))
                .doesNotContainAnyElementsOf(List.of("set", "incr", "del", "pexpire", "hset", "hdel", "zadd", "zrem",
                        "zremrangebyrank", "zremrangebyscore", "spublish"));
    }

    @Test
    void aNamespacesRulesMatchItsOwnKeysAndChannelsOnly() {
        List<String> rules = LeastPrivilege.forNamespace(LeastPrivilege.READER_ACL_RULES, Namespace.of("prod"));

        assertThat(rules).contains("~lodestar:{prod}:*", "~lodestar:{prod:*", "&lodestar:{prod}:*", "&lodestar:{prod:*")
                .doesNotContain("~lodestar:*", "&lodestar:*");
    }

    /** The commands the scripts whose file name passes the filter call (lower case, as in an ACL rule). */
    private static Set<String> commands(Predicate<String> scripts) {
        Path directory = scriptDirectory();
        Set<String> commands = new TreeSet<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                String text = read(file);
                if (!scripts.test(name) || isIncludedHelper(directory, name)) {
                    continue;
                }
                Map<String, String> helpers = new HashMap<>();
                addIncluded(directory, text, helpers);
                String own = INCLUDE.matcher(text).replaceAll("");
                commands.addAll(calls(own, helpers, new HashSet<>()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return commands;
    }

    /** Adds the functions of the files a piece of Lua includes, and of the files those include, by name. */
    private static void addIncluded(Path directory, String lua, Map<String, String> helpers) {
        Matcher include = INCLUDE.matcher(lua);
        while (include.find()) {
            String included = read(directory.resolve(include.group(1)));
            addIncluded(directory, included, helpers);
            helpers.putAll(functions(included));
        }
    }

    /** What a piece of Lua calls, itself and through the helpers it names. */
    private static Set<String> calls(String lua, Map<String, String> helpers, Set<String> visited) {
        Set<String> commands = new TreeSet<>();
        Matcher call = CALL.matcher(lua);
        while (call.find()) {
            commands.add(call.group(1).toLowerCase(Locale.ROOT));
        }
        helpers.forEach((name, body) -> {
            if (Pattern.compile("\\b" + name + "\\(").matcher(lua).find() && visited.add(name)) {
                commands.addAll(calls(body, helpers, visited));
            }
        });
        return commands;
    }

    /** The top-level functions of an include file, by name (each runs to the next one). */
    private static Map<String, String> functions(String lua) {
        Map<String, String> functions = new HashMap<>();
        Matcher function = FUNCTION.matcher(lua);
        String name = null;
        int start = 0;
        while (function.find()) {
            if (name != null) {
                functions.put(name, lua.substring(start, function.start()));
            }
            name = function.group(1);
            start = function.end();
        }
        if (name != null) {
            functions.put(name, lua.substring(start));
        }
        return functions;
    }

    private static boolean isIncludedHelper(Path directory, String name) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.anyMatch(file -> read(file).contains("--#include " + name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> rules(List<String> rules) {
        Set<String> commands = new TreeSet<>();
        rules.stream().filter(rule -> rule.startsWith("+")).forEach(rule -> commands.add(rule.substring(1)));
        return commands;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> union = new TreeSet<>(a);
        union.addAll(b);
        return union;
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> difference = new TreeSet<>(a);
        difference.removeAll(b);
        return difference;
    }

    private static Path scriptDirectory() {
        try {
            return Path.of(LuaScript.class.getResource("scripts").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
