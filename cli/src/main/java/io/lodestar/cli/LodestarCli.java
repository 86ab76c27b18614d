package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.ConfigKeys;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Registration;
import io.lodestar.core.StartupMode;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import io.lodestar.redis.RedisLodestar;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code lodestar} command: operator tools for a Lodestar namespace, built only on the public SDK. Options given
 * before or after the subcommand apply to it ({@link ScopeType#INHERIT}); the Redis URI is never printed, not even by
 * {@code --verbose}, except {@linkplain LodestarOptions#redact(String) redacted}.
 */
@Command(name = "lodestar", mixinStandardHelpOptions = true, versionProvider = LodestarCli.Version.class,
        description = "Operator tools for Lodestar: the registry and configs of a namespace, on Redis.",
        addMethodSubcommands = false, // the subcommands are in CommandTree, built as far as a command line needs
        exitCodeOnInvalidInput = ExitCodes.USAGE, exitCodeOnExecutionException = ExitCodes.SOFTWARE,
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:ok", "1:not found (service, instance, config or version)",
                "2:conflict (--if-version did not match, purge of a service with instances)",
                "3:Redis unavailable or timed out",
                "4:config who --wait-applied timed out (a live client runs another version)",
                "64:usage error (bad option or argument, not confirmed)", "70:any other failure"},
        footerHeading = "%nEnvironment:%n",
        footer = {"  LODESTAR_REDIS_URI   the Redis URI when --uri is not given (default redis://localhost:6379)",
                "  LODESTAR_NAMESPACE   the namespace when --namespace is not given (default: default)",
                "  LODESTAR_CONFIG_KEYSET   a Tink JSON keyset of encrypted configs, when --keyset-file is not given"})
public final class LodestarCli {
    static final String DEFAULT_URI = "redis://localhost:6379";
    static final String KEYSET_VARIABLE = "LODESTAR_CONFIG_KEYSET";

    @Option(names = "--uri", scope = ScopeType.INHERIT, paramLabel = "URI",
            description = "Redis URI (default: $LODESTAR_REDIS_URI, else " + DEFAULT_URI + "); never echoed")
    String uri;

    @Option(names = {"-n", "--namespace"}, scope = ScopeType.INHERIT, paramLabel = "NAME",
            defaultValue = "${env:LODESTAR_NAMESPACE:-default}",
            description = "Lodestar namespace (default: $LODESTAR_NAMESPACE, else default)")
    String namespace;

    @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, defaultValue = "table", paramLabel = "FORMAT",
            converter = Output.FormatConverter.class,
            description = "table, json or yaml (default: table)")
    Output.Format format;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, defaultValue = "5s", paramLabel = "DURATION",
            converter = DurationConverter.class, description = "Redis command timeout, e.g. 500ms, 5s (default: 5s)")
    Duration timeout;

    @Option(names = "--keyset-file", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = {"Tink JSON keyset of encrypted configs (default: the keyset in $LODESTAR_CONFIG_KEYSET,"
                    + " if set): configs are written encrypted and read in plain text.",
                    "Without keys an encrypted config shows as <encrypted: key K>."})
    Path keysetFile;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Say what is done (Redis URI redacted) and print stack traces of failures")
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        withoutFlightRecorderEvents();
        System.exit(run(args));
    }

    /**
     * Lettuce and Netty record their events for Java Flight Recorder when it is there, and making those event classes
     * costs a one-shot command about a tenth of its start (issue 34); nobody records a CLI run. A {@code -D} of the
     * user's ({@code LODESTAR_JAVA_OPTS}) still wins. Before any Lettuce or Netty class reads them.
     */
    private static void withoutFlightRecorderEvents() {
        for (String property : List.of("io.lettuce.core.jfr", "io.netty.jfr.enabled")) {
            if (System.getProperty(property) == null) {
                System.setProperty(property, "false");
            }
        }
    }

    /** Runs one command line; returns its exit code (see {@link ExitCodes}). */
    static int run(String... args) {
        return commandLine(args).execute(args);
    }

    /**
     * The command tree that runs these arguments: the branch down to the command they name when that branch takes
     * them as a command to run, else the whole tree (help, the version, usage errors; see {@link CommandTree}).
     */
    static CommandLine commandLine(String... args) {
        List<String> path = CommandTree.path(args);
        if (!path.isEmpty()) {
            CommandLine branch = configured(CommandTree.build(new LodestarCli(), path));
            if (CommandTree.runs(branch, args)) {
                return branch;
            }
        }
        return configured(CommandTree.build(new LodestarCli(), List.of()));
    }

    private static CommandLine configured(CommandLine cli) {
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionStrategy(parseResult -> {
            LodestarCli root = cli.getCommand();
            List<CommandLine> invoked = parseResult.asCommandLineList();
            Object leaf = invoked.get(invoked.size() - 1).getCommand();
            Logging.configure(root.verbose, leaf instanceof WatchCommand || leaf instanceof ConsoleCommand);
            return new CommandLine.RunLast().execute(parseResult);
        });
        // Every subcommand's usage errors exit with 64 (picocli's own default is 2, our "conflict").
        cli.setParameterExceptionHandler((failure, args) -> {
            PrintWriter err = failure.getCommandLine().getErr();
            String message = ExitCodes.Secrets.redactAll(String.valueOf(failure.getMessage()));
            Output.Format format = requestedFormat(args);
            if (format != Output.Format.TABLE) {
                printError(err, format, ExitCodes.USAGE, message); // no usage text: a script reads stderr
            } else {
                err.println("lodestar: " + message);
                if (!CommandLine.UnmatchedArgumentException.printSuggestions(failure, err)) {
                    failure.getCommandLine().usage(err);
                }
            }
            err.flush();
            return ExitCodes.USAGE;
        });
        cli.setExecutionExceptionHandler((failure, command, parseResult) -> {
            LodestarCli root = cli.getCommand();
            PrintWriter err = command.getErr();
            int code = ExitCodes.of(failure);
            if (root.format != null && root.format != Output.Format.TABLE) {
                printError(err, root.format, code, ExitCodes.describe(failure));
            } else {
                err.println("lodestar: " + ExitCodes.describe(failure));
            }
            if (root.verbose) {
                StringWriter trace = new StringWriter();
                failure.printStackTrace(new PrintWriter(trace));
                err.print(ExitCodes.Secrets.redactAll(trace.toString()));
            }
            err.flush();
            return code;
        });
        return cli;
    }

    /** A script asked for structured output: its errors are structured too, on stderr. */
    private static void printError(PrintWriter err, Output.Format format, int code, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("error", ExitCodes.name(code));
        error.put("exitCode", code);
        error.put("message", message);
        new Output(format, err).value(error);
    }

    /**
     * The output format the arguments ask for, read from them as they are: a parse error can come before picocli
     * has set {@code --output}. Table when none or an unknown one is asked for.
     */
    static Output.Format requestedFormat(String[] args) {
        for (int i = 0; i < args.length && !args[i].equals("--"); i++) {
            String arg = args[i];
            String value = arg.equals("-o") || arg.equals("--output") ? (i + 1 < args.length ? args[i + 1] : null)
                    : arg.startsWith("--output=") ? arg.substring("--output=".length())
                    : arg.startsWith("-o") ? arg.substring(2).replaceFirst("^=", "") : null;
            if (value != null) {
                try {
                    return new Output.FormatConverter().convert(value);
                } catch (CommandLine.TypeConversionException unknown) {
                    return Output.Format.TABLE;
                }
            }
        }
        return Output.Format.TABLE;
    }

    /** The URI to connect to: --uri, else $LODESTAR_REDIS_URI, else localhost. */
    String redisUri() {
        if (uri != null && !uri.isBlank()) {
            return uri;
        }
        String env = System.getenv("LODESTAR_REDIS_URI");
        return env == null || env.isBlank() ? DEFAULT_URI : env;
    }

    /**
     * Options for a client of the chosen namespace; {@code FAIL_FAST} for one-shot commands. An encrypted config
     * whose key the CLI does not hold reads as {@code <encrypted: key K>}, for people to see.
     */
    LodestarOptions options(StartupMode mode) {
        return options(mode, namespace);
    }

    /** Options for a client of another namespace (the console serves several). */
    LodestarOptions options(StartupMode mode, String namespace) {
        return optionsBuilder(redisUri(), namespace, mode, true).build();
    }

    /**
     * Options for a client of another Redis or namespace with this command's settings (copy's source and target),
     * strict as {@link #connectStrict}: what is read there is written back.
     */
    LodestarOptions options(String redisUri, String namespace, StartupMode mode) {
        return optionsBuilder(redisUri, namespace, mode, false).build();
    }

    /** The options of {@link #options}, for a command that adds its own (the regions it reads). */
    LodestarOptions.Builder optionsBuilder(StartupMode mode) {
        return optionsBuilder(mode, namespace);
    }

    /** The same, for a client of another namespace (the console serves several, each reading the regions). */
    LodestarOptions.Builder optionsBuilder(StartupMode mode, String namespace) {
        return optionsBuilder(redisUri(), namespace, mode, true);
    }

    private LodestarOptions.Builder optionsBuilder(String redisUri, String namespace, StartupMode mode,
                                                   boolean placeholders) {
        return LodestarOptions.builder(redisUri).namespace(namespace).commandTimeout(timeout)
                .clientName("lodestar-cli").startupMode(mode).configKeys(configKeys())
                .encryptedConfigPlaceholders(placeholders)
                .recordAppliedConfigs(false); // a tool's view of configs is not an application running them
    }

    /** --keyset-file, else $LODESTAR_CONFIG_KEYSET, else none. */
    ConfigKeys configKeys() {
        if (keysetFile != null) {
            return ConfigKeys.keysetFile(keysetFile);
        }
        String env = System.getenv(KEYSET_VARIABLE);
        return env == null || env.isBlank() ? null : ConfigKeys.environmentVariable(KEYSET_VARIABLE);
    }

    /**
     * A client that throws on an encrypted config it cannot decrypt, for commands that write back what they read
     * (a placeholder must never be written as content).
     */
    LodestarClient connectStrict() {
        return connect(options(redisUri(), namespace, StartupMode.FAIL_FAST));
    }

    /** A connected client; fails fast with {@code UnavailableException} when Redis cannot be reached. */
    LodestarClient connect() {
        return connect(StartupMode.FAIL_FAST);
    }

    LodestarClient connect(StartupMode mode) {
        return connect(mode, namespace);
    }

    LodestarClient connect(StartupMode mode, String namespace) {
        return connect(options(mode, namespace));
    }

    /** A connected client with these options; fails fast when they say so and Redis cannot be reached. */
    LodestarClient connect(LodestarOptions options) {
        verbose("connecting to %s, namespace %s, timeout %s", options.redactedRedisUri(), options.namespace(),
                timeout);
        return RedisLodestar.create(options);
    }

    void verbose(String format, Object... args) {
        if (verbose) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("lodestar: " + String.format(Locale.ROOT, format, args));
            err.flush();
        }
    }

    Output output() {
        return new Output(format, spec.commandLine().getOut());
    }

    @Command(name = "services", description = "List the services of the namespace: instances, UP instances, revision.")
    int services() {
        try (LodestarClient client = connect()) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (String service : client.directDiscovery().getServices().stream().sorted().toList()) {
                ServiceSnapshot snapshot = client.directDiscovery().getSnapshot(service);
                rows.add(Views.service(snapshot));
            }
            output().table(rows, Views.SERVICE_COLUMNS, "no services in namespace " + namespace);
            return ExitCodes.OK;
        }
    }

    @Command(name = "instances", description = "List the instances of a service (read from Redis, not a cache).")
    int instances(@Parameters(paramLabel = "SERVICE", description = "the service id") String service) {
        try (LodestarClient client = connect()) {
            ServiceSnapshot snapshot = client.directDiscovery().getSnapshot(service);
            Instances.requireSome(snapshot, namespace);
            Map<String, Duration> ttlLeft = client.registry().timeToLive(service);
            Output out = output();
            if (out.structured()) {
                out.value(Views.serviceDetail(snapshot, Instant.now(), ttlLeft));
            } else {
                out.table(Views.instances(snapshot, Instant.now(), ttlLeft), Views.INSTANCE_COLUMNS, "");
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "evict", description = {"Remove an instance another client registered, and keep it removed:",
            "its owner stops renewing it instead of registering it again. Asks first."})
    int evict(@Parameters(index = "0", paramLabel = "SERVICE") String service,
              @Parameters(index = "1", paramLabel = "INSTANCE") String instance,
              @Mixin Confirmation confirmation) {
        confirmation.require("evict " + service + "/" + instance + " in namespace " + namespace);
        try (LodestarClient client = connect()) {
            Instances.evict(client, service, instance);
            return removed("evicted", service, instance);
        }
    }

    @Command(name = "register", description = {"Register a persistent instance (a database, an external service):",
            "no TTL and no lease, it stays until deregistered. An instance with the same id is replaced."})
    int register(@Parameters(index = "0", paramLabel = "SERVICE") String service,
                 @Parameters(index = "1", paramLabel = "INSTANCE") String instance,
                 @Option(names = "--host", required = true, paramLabel = "HOST", description = "host name or IP")
                 String host,
                 @Option(names = "--port", required = true, paramLabel = "PORT", description = "1-65535") int port,
                 @Option(names = "--weight", paramLabel = "W", defaultValue = "100",
                         description = "relative share of traffic, 0-10000 (default: 100)") int weight,
                 @Option(names = "--metadata", paramLabel = "KEY=VALUE",
                         description = "a metadata entry (repeatable), e.g. --metadata zone=eu-1")
                 List<String> metadata,
                 @Option(names = "--secure", description = "it speaks TLS (https)") boolean secure,
                 @Option(names = "--status", paramLabel = "STATUS", defaultValue = "up",
                         converter = Converters.Status.class,
                         description = "up, down, out-of-service or starting (default: up)") InstanceStatus status) {
        ServiceInstance persistent = ServiceInstance.builder(service, instance).host(host).port(port).weight(weight)
                .metadata(Instances.metadata(metadata == null ? List.of() : metadata)).secure(secure).status(status)
                .persistent().build();
        try (LodestarClient client = connect()) {
            // Not closed: closing a registration deregisters it; closing the client leaves persistent ones be.
            Registration registration = client.registry().register(persistent);
            Map<String, Object> row = Views.instance(registration.instance(), registration.revision(), Instant.now(),
                    null);
            Output out = output();
            if (out.structured()) {
                out.value(row);
            } else {
                out.table(List.of(row), Views.INSTANCE_COLUMNS, "");
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "deregister", description = {"Remove an instance, e.g. one made with register; asks first.",
            "For an instance a running client registered, evict says what is meant."})
    int deregister(@Parameters(index = "0", paramLabel = "SERVICE") String service,
                   @Parameters(index = "1", paramLabel = "INSTANCE") String instance,
                   @Mixin Confirmation confirmation) {
        confirmation.require("deregister " + service + "/" + instance + " in namespace " + namespace);
        try (LodestarClient client = connect()) {
            Instances.deregister(client, service, instance);
            return removed("deregistered", service, instance);
        }
    }

    @Command(name = "purge", description = {"Remove what a service without instances left in Redis (its revision,",
            "digest, incarnation); registered again, it starts over at revision 1. Asks first."})
    int purge(@Parameters(paramLabel = "SERVICE") String service, @Mixin Confirmation confirmation) {
        confirmation.require("purge service " + service + " in namespace " + namespace);
        try (LodestarClient client = connect()) {
            Instances.purge(client, service);
            return removed("purged", service, null);
        }
    }

    /** What evict, deregister and purge report: the service (and instance) and what became of it. */
    private int removed(String outcome, String service, String instance) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("service", service);
        if (instance != null) {
            result.put("instance", instance);
        }
        result.put(outcome, true);
        output().message(result, outcome + " " + service + (instance == null ? "" : "/" + instance));
        return ExitCodes.OK;
    }

    @Command(name = "status", description = "Set an instance's status: up, down, out-of-service or starting.")
    int status(@Parameters(index = "0", paramLabel = "SERVICE") String service,
               @Parameters(index = "1", paramLabel = "INSTANCE") String instance,
               @Parameters(index = "2", paramLabel = "STATUS", converter = Converters.Status.class,
                       description = "up, down, out-of-service or starting") InstanceStatus status) {
        try (LodestarClient client = connect()) {
            ServiceInstance changed = client.registry().setStatus(service, instance, status);
            output().message(Views.instance(changed, 0, Instant.now(), null),
                    service + "/" + instance + " is now " + Views.statusName(changed.status()));
            return ExitCodes.OK;
        }
    }

    @Command(name = "weight", description = {"Set an instance's weight: its relative share of weighted load balancing,",
            "0-10000 (0: never picked). Its owner's renewals keep it; a re-registration restores the owner's."})
    int weight(@Parameters(index = "0", paramLabel = "SERVICE") String service,
               @Parameters(index = "1", paramLabel = "INSTANCE") String instance,
               @Parameters(index = "2", paramLabel = "WEIGHT", converter = Converters.Weight.class,
                       description = "0-10000") int weight) {
        try (LodestarClient client = connect()) {
            ServiceInstance changed = client.registry().setWeight(service, instance, weight);
            output().message(Views.instance(changed, 0, Instant.now(), null),
                    service + "/" + instance + " now has weight " + changed.weight());
            return ExitCodes.OK;
        }
    }

    /** {@code 500ms}, {@code 5s}, {@code 2m} or an ISO-8601 duration. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            try {
                if (v.startsWith("pt") || v.startsWith("p")) {
                    return Duration.parse(v.toUpperCase(Locale.ROOT));
                }
                if (v.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                }
                if (v.endsWith("s")) {
                    return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
                }
                if (v.endsWith("m")) {
                    return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
                }
            } catch (RuntimeException e) {
                // fall through to the message below
            }
            throw new CommandLine.TypeConversionException("duration must be like 500ms, 5s or 2m, but was "
                    + Validation.show(value));
        }
    }

    /**
     * The version the build wrote into {@code version.txt} (not the manifest: see the resources in cli/pom.xml).
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            try (InputStream in = LodestarCli.class.getResourceAsStream("version.txt")) {
                String version = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
                return new String[] {"lodestar " + (version.isEmpty() ? "(development build)" : version)};
            }
        }
    }

}
