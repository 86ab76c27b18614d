package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.StartupMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code lodestar console}: the web console, until interrupted. */
@Command(name = "console", description = {"Serve the web console: services, live instances, configs with history,"
        + " diff, rollback and edit.", "Binds to loopback unless told otherwise; reads and writes need the token"
        + " printed at start (or $" + ConsoleCommand.TOKEN_VARIABLE + ", --token-file), reads alone also the read"
        + " token ($" + ConsoleCommand.READ_TOKEN_VARIABLE + " or --read-token-file)."})
final class ConsoleCommand implements Callable<Integer> {
    static final String TOKEN_VARIABLE = "LODESTAR_CONSOLE_TOKEN";
    static final String READ_TOKEN_VARIABLE = "LODESTAR_CONSOLE_READ_TOKEN";
    private static final int MIN_TOKEN_LENGTH = 8;

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

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) {
            throw new ExitCodes.UsageException("port must be between 0 and 65535, but was " + port);
        }
        if (token != null && tokenFile != null) {
            throw new ExitCodes.UsageException("give the token one way: --token or --token-file, not both");
        }
        String given = checkLength("the token", token != null ? token : Tokens.read(tokenFile, TOKEN_VARIABLE));
        String readToken = checkLength("the read token", Tokens.read(readTokenFile, READ_TOKEN_VARIABLE));
        boolean generated = given == null;
        String writeToken = generated ? newToken() : given;
        InetAddress address = InetAddress.getByName(bind);
        AllowedHosts hosts = AllowedHosts.of(address, allowHosts);
        CountDownLatch stop = new CountDownLatch(1);
        // OFFLINE: the console starts while Redis is down and shows how stale its view is until Redis is back.
        LodestarClient client = root.connect(StartupMode.OFFLINE);
        ConsoleServer server;
        try {
            server = new ConsoleServer(client, new InetSocketAddress(address, port),
                    new RequestGuard.Access(writeToken, readToken, readOnly, hosts), System.out);
        } catch (IOException e) {
            client.close();
            throw new ExitCodes.UsageException("cannot listen on " + bind + ":" + port + ": " + e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            client.close();
            stop.countDown();
        }, "lodestar-console-shutdown"));
        server.start();
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        System.out.println("Lodestar console for namespace " + root.namespace + ": http://" + host + ":"
                + server.port() + "/");
        if (readOnly) {
            System.out.println("Read-only: every write is refused.");
        }
        if (generated) {
            System.out.println("Token (paste it into the page; it reads" + (readOnly ? "" : " and writes") + "): "
                    + writeToken);
        } else {
            System.out.println((readOnly ? "Reads need" : "Reads and writes need") + " the token given ("
                    + (token != null ? "--token"
                    : tokenFile != null ? tokenFile : "$" + TOKEN_VARIABLE) + ").");
        }
        if (readToken != null) {
            System.out.println("The read token (from " + (readTokenFile != null ? readTokenFile
                    : "$" + READ_TOKEN_VARIABLE) + ") allows reads only.");
        }
        if (!address.isLoopbackAddress()) {
            System.out.println("Warning: listening on " + bind + ", not only on this machine; requests must name"
                    + (allowHosts.isEmpty() ? " one of its IP addresses (--allow-host adds names)"
                    : " one of its IP addresses or " + String.join(", ", allowHosts)) + ".");
        }
        System.out.println("Ctrl-C to stop.");
        System.out.flush();
        stop.await();
        return ExitCodes.OK;
    }

    /** A token shorter than 8 characters is guessed too soon; the message never shows the token. */
    private static String checkLength(String name, String token) {
        if (token != null && token.length() < MIN_TOKEN_LENGTH) {
            throw new ExitCodes.UsageException(name + " must be at least " + MIN_TOKEN_LENGTH
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
