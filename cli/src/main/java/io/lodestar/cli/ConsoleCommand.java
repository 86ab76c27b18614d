package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.StartupMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code lodestar console}: the web console, until interrupted. */
@Command(name = "console", description = {"Serve the web console: services, live instances, configs with history,"
        + " diff, rollback and edit.", "Binds to loopback unless told otherwise; writes need the token printed at"
        + " start (or --token)."})
final class ConsoleCommand implements Callable<Integer> {
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

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "the write token (default: a random one, printed at start); never printed when given")
    String token;

    @Option(names = "--read-only", description = "refuse every write")
    boolean readOnly;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) {
            throw new ExitCodes.UsageException("port must be between 0 and 65535, but was " + port);
        }
        if (token != null && token.length() < 8) {
            throw new ExitCodes.UsageException("token must be at least 8 characters long");
        }
        boolean generated = token == null;
        String writeToken = readOnly ? "" : generated ? newToken() : token;
        CountDownLatch stop = new CountDownLatch(1);
        // OFFLINE: the console starts while Redis is down and shows how stale its view is until Redis is back.
        LodestarClient client = root.connect(StartupMode.OFFLINE);
        ConsoleServer server;
        try {
            server = new ConsoleServer(client, new InetSocketAddress(InetAddress.getByName(bind), port), writeToken,
                    readOnly, System.out);
        } catch (java.io.IOException e) {
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
        } else if (generated) {
            System.out.println("Write token (paste it into the page to change configs): " + writeToken);
        } else {
            System.out.println("Writes need the token given with --token.");
        }
        if (!InetAddress.getByName(bind).isLoopbackAddress()) {
            System.out.println("Warning: listening on " + bind + ", not only on this machine; use a long --token.");
        }
        System.out.println("Ctrl-C to stop.");
        System.out.flush();
        stop.await();
        return ExitCodes.OK;
    }

    private static String newToken() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
