package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.StartupMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code lodestar console}: the web console, until interrupted. */
@Command(name = "console", description = {"Serve the web console: services, live instances, configs with history,"
        + " diff, rollback and edit.", "Binds to loopback unless told otherwise (beyond it, only with TLS); each"
        + " user's token and roles per namespace come from --users FILE; without one, the token printed at start"
        + " (or $" + ConsoleCommand.TOKEN_VARIABLE + ", --token-file) does everything and the read token ($"
        + ConsoleCommand.READ_TOKEN_VARIABLE + " or --read-token-file) reads."})
final class ConsoleCommand implements Callable<Integer> {
    static final String TOKEN_VARIABLE = "LODESTAR_CONSOLE_TOKEN";
    static final String READ_TOKEN_VARIABLE = "LODESTAR_CONSOLE_READ_TOKEN";
    /** How soon a change of the users file takes effect: a stat of it per second at most, on a request. */
    private static final Duration USERS_CHECK = Duration.ofSeconds(1);

    @ParentCommand
    LodestarCli root;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", defaultValue = "8080", paramLabel = "PORT",
            description = "TCP port (default: 8080; 0: any free port)")
    int port;

    @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
            description = "address to listen on (default: 127.0.0.1; 0.0.0.0 exposes the console to the network)")
    String bind;

    @Option(names = "--allow-host", paramLabel = "NAME",
            description = "a host name people reach the console by, beyond loopback names and the addresses it"
                    + " listens on (repeatable); requests for any other name are refused")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = "--read-token-file", paramLabel = "FILE", description = "a file holding the read token (only"
            + " its owner may read it); default: $" + READ_TOKEN_VARIABLE + ", else no read token")
    Path readTokenFile;

    @Option(names = "--token", paramLabel = "TOKEN", description = "the token that reads and writes (default: $"
            + TOKEN_VARIABLE + ", else a random one, printed at start); never printed when given. Other users of the"
            + " machine see a command line (ps): prefer $" + TOKEN_VARIABLE + " or --token-file")
    String token;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "a file holding the token that reads and writes (only its owner may read it)")
    Path tokenFile;

    @Option(names = "--read-only", description = "refuse every write")
    boolean readOnly;

    @Option(names = "--namespaces", split = ",", paramLabel = "NAME",
            description = "the namespaces to serve, comma-separated (default: --namespace alone); a page switches"
                    + " between those its user may see, starting at the first")
    List<String> namespaces = new ArrayList<>();

    @Option(names = "--users", paramLabel = "FILE", description = "a YAML file of users, each with a token (or its"
            + " sha256) and a role per namespace: read, write or admin (only its owner may read it); instead of the"
            + " shared tokens")
    Path usersFile;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "the console's certificate chain (PEM): serve"
            + " HTTPS; with --tls-key")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "the certificate's private key (PEM, PKCS#8,"
            + " unencrypted; only its owner may read it)")
    Path tlsKey;

    @Option(names = "--insecure-plain-http", description = "allow a bind beyond loopback without TLS (tokens then"
            + " cross the network in the clear: only behind a TLS proxy on the same machine or network)")
    boolean insecurePlainHttp;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) {
            throw new ExitCodes.UsageException("port must be between 0 and 65535, but was " + port);
        }
        if (token != null && tokenFile != null) {
            throw new ExitCodes.UsageException("give the token one way: --token or --token-file, not both");
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new ExitCodes.UsageException("TLS needs both --tls-cert and --tls-key, but only "
                    + (tlsCert != null ? "--tls-cert" : "--tls-key") + " was given");
        }
        InetAddress address = InetAddress.getByName(bind);
        if (!address.isLoopbackAddress() && tlsCert == null && !insecurePlainHttp) {
            throw new ExitCodes.UsageException("--bind " + bind + " listens beyond this machine, where tokens and"
                    + " configs must not cross the network in the clear: give --tls-cert and --tls-key, or"
                    + " --insecure-plain-http behind a TLS proxy");
        }
        SSLContext tls = tlsCert == null ? null : Tls.fromPem(tlsCert, tlsKey);
        AllowedHosts hosts = AllowedHosts.of(address, allowHosts);
        Tokens.Shared shared = usersFile == null ? sharedTokens() : null;
        if (usersFile != null) {
            refuseSharedTokens();
        }
        Users users = usersFile != null ? Users.watch(usersFile, USERS_CHECK, System.out)
                : Users.ofTokens(shared.writeToken(), shared.readToken());
        List<String> served = namespaces.isEmpty() ? List.of(root.namespace) : namespaces.stream().distinct().toList();
        CountDownLatch stop = new CountDownLatch(1);
        // OFFLINE: the console starts while Redis is down and shows how stale its view is until Redis is back.
        List<LodestarClient> clients = new ArrayList<>();
        ConsoleServer server;
        try {
            for (String namespace : served) {
                clients.add(root.connect(StartupMode.OFFLINE, namespace)); // a bad name is the SDK's clear refusal
            }
            server = new ConsoleServer(clients, new InetSocketAddress(address, port),
                    new RequestGuard.Access(users, readOnly, hosts), tls, System.out);
        } catch (IOException e) {
            clients.forEach(LodestarClient::close);
            throw new ExitCodes.UsageException("cannot listen on " + bind + ":" + port + ": " + e.getMessage());
        } catch (RuntimeException e) {
            clients.forEach(LodestarClient::close);
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            clients.forEach(LodestarClient::close);
            stop.countDown();
        }, "lodestar-console-shutdown"));
        server.start();
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        System.out.println("Lodestar console for " + (served.size() == 1 ? "namespace " : "namespaces ")
                + String.join(", ", served) + ": " + (tls == null ? "http" : "https") + "://" + host + ":"
                + server.port() + "/");
        if (readOnly) {
            System.out.println("Read-only: every write is refused.");
        }
        if (usersFile != null) {
            System.out.println(users.size() + " users from " + usersFile + "; each signs in with their own token.");
        } else {
            shared.describe(readOnly).forEach(System.out::println);
        }
        if (!address.isLoopbackAddress()) {
            System.out.println("Warning: listening on " + bind + ", not only on this machine"
                    + (tls == null ? ", in plain HTTP (--insecure-plain-http)" : "") + "; requests must name"
                    + (allowHosts.isEmpty() ? " one of its IP addresses (--allow-host adds names)"
                    : " one of its IP addresses or " + String.join(", ", allowHosts)) + ".");
        }
        System.out.println("Ctrl-C to stop.");
        System.out.flush();
        stop.await();
        return ExitCodes.OK;
    }

    /** The tokens of a console without a users file: given (never printed), or a random write token, printed. */
    private Tokens.Shared sharedTokens() {
        String given = checkLength("the token", token != null ? token : Tokens.read(tokenFile, TOKEN_VARIABLE));
        String readToken = checkLength("the read token", Tokens.read(readTokenFile, READ_TOKEN_VARIABLE));
        String source = token != null ? "--token" : tokenFile != null ? tokenFile.toString() : "$" + TOKEN_VARIABLE;
        String readSource = readTokenFile != null ? readTokenFile.toString() : "$" + READ_TOKEN_VARIABLE;
        return given == null ? new Tokens.Shared(newToken(), null, readToken, readSource)
                : new Tokens.Shared(given, source, readToken, readSource);
    }

    /** A users file says who may do what: a shared token beside it would be a user nobody listed. */
    private void refuseSharedTokens() {
        List<String> given = new ArrayList<>();
        if (token != null) {
            given.add("--token");
        }
        if (tokenFile != null) {
            given.add("--token-file");
        }
        if (readTokenFile != null) {
            given.add("--read-token-file");
        }
        for (String variable : List.of(TOKEN_VARIABLE, READ_TOKEN_VARIABLE)) {
            String value = System.getenv(variable);
            if (value != null && !value.isBlank()) {
                given.add("$" + variable);
            }
        }
        if (!given.isEmpty()) {
            throw new ExitCodes.UsageException("give either --users or shared tokens, not both, but "
                    + String.join(", ", given) + " " + (given.size() == 1 ? "was" : "were") + " given too");
        }
    }

    /** A token shorter than 8 characters is guessed too soon; the message never shows the token. */
    private static String checkLength(String name, String token) {
        if (token != null && token.length() < Users.MIN_TOKEN_LENGTH) {
            throw new ExitCodes.UsageException(name + " must be at least " + Users.MIN_TOKEN_LENGTH
                    + " characters long, but was " + token.length() + " characters long");
        }
        return token;
    }

    private static String newToken() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
