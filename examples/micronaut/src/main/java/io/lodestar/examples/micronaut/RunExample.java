package io.lodestar.examples.micronaut;

import io.lodestar.core.Lodestar;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.examples.micronaut.client.ClientApplication;
import io.lodestar.examples.micronaut.client.Greeting;
import io.lodestar.examples.micronaut.greeting.GreetingApplication;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.inject.qualifiers.Qualifiers;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.scheduling.TaskExecutors;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;

/**
 * Runs the example in one JVM: two greeting-service instances (greeting-1: weight 1, zone eu-1; greeting-2:
 * weight 3, zone eu-2) on random ports and client-service on port 8080 ({@code -Dclient.port=...}), all against one
 * Redis, then takes commands on standard input until {@code quit}, end of input or Ctrl+C.
 *
 * <p>Uses {@code LODESTAR_REDIS_URI} when set; otherwise starts a private Redis that is stopped at the end. Run it
 * with: {@code ./mvnw -q -Pdemo -DskipTests -pl examples/micronaut -am verify}
 */
public final class RunExample {
    /** The Lodestar config greeting-service reads its template from (see bootstrap-greeting.properties). */
    public static final String TEMPLATE_CONFIG = "greeting/template";

    private final Map<String, EmbeddedServer> greetings = new LinkedHashMap<>();
    private EmbeddedServer client;

    private RunExample() {
    }

    /**
     * @param args unused
     * @throws IOException if standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        String configured = System.getenv("LODESTAR_REDIS_URI");
        RedisServer started = configured == null ? TestRedis.startStandalone() : null;
        String uri = configured != null ? configured : started.uri();
        System.out.println("Redis: " + (started == null ? LodestarOptions.redact(uri)
                : uri + " (started for this example: " + TestRedis.describeSource() + ")"));
        RunExample example = new RunExample();
        try (LodestarClient operator = Lodestar.connect(LodestarOptions.builder(uri).build())) {
            if (operator.config().get(TEMPLATE_CONFIG).isEmpty()) {
                operator.config().set(TEMPLATE_CONFIG, "greeting.template=Hello, {name}!", ConfigFormat.PROPERTIES);
            }
            example.start(uri);
            example.commands(operator);
        } finally {
            example.stopAll();
            if (started != null) {
                started.close();
            }
        }
    }

    private void start(String uri) {
        greetings.put("greeting-1", greeting(uri, "greeting-1", 1, "eu-1"));
        greetings.put("greeting-2", greeting(uri, "greeting-2", 3, "eu-2"));
        client = ClientApplication.builder().banner(false).properties(Map.of(
                "lodestar.redis-uri", uri,
                "micronaut.server.port", Integer.getInteger("client.port", 8080))).run(EmbeddedServer.class);
        greetings.forEach((name, server) -> System.out.printf("greeting-service %s: %s%n", name, server.getURL()));
        System.out.printf("client-service: %s%n", client.getURL());
        System.out.printf("""

                Try it:  curl '%s/hello?name=Ada'

                Commands (type one and press Enter):
                  count                      call /hello 40 times and show which instance answered (about 1:3)
                  template Bonjour, {name}!  store a new template in Lodestar: the answers change, no restart
                  stop greeting-2            stop an instance: the client stops choosing it
                  quit                       stop everything (so do Ctrl+C and end of input)
                """, client.getURL());
    }

    private static EmbeddedServer greeting(String uri, String name, int weight, String zone) {
        return GreetingApplication.builder().banner(false).properties(Map.of(
                "lodestar.redis-uri", uri,
                "micronaut.server.port", -1,
                "lodestar.registration.instance-id", name,
                "lodestar.registration.weight", weight,
                "lodestar.registration.zone", zone)).run(EmbeddedServer.class);
    }

    private void commands(LodestarClient operator) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String command = line.strip();
            try {
                if (command.equals("quit")) {
                    return;
                } else if (command.equals("count")) {
                    count();
                } else if (command.startsWith("template ")) {
                    String template = command.substring("template ".length());
                    long version = operator.config().set(TEMPLATE_CONFIG, "greeting.template=" + template,
                            ConfigFormat.PROPERTIES).version();
                    System.out.printf("stored %s version %d: greeting.template=%s%n", TEMPLATE_CONFIG, version,
                            template);
                } else if (command.startsWith("stop ")) {
                    String name = command.substring("stop ".length()).strip();
                    EmbeddedServer server = greetings.remove(name);
                    if (server == null) {
                        System.out.println("no running instance " + name + "; running: " + greetings.keySet());
                    } else {
                        stop(server);
                        System.out.println("stopped " + name + " (deregistered); running: " + greetings.keySet());
                    }
                } else if (!command.isEmpty()) {
                    System.out.println("unknown command: " + command);
                }
            } catch (RuntimeException e) {
                System.out.println("failed: " + e);
            }
        }
    }

    private void count() {
        Map<String, Integer> answered = new TreeMap<>();
        String last = null;
        try (HttpClient http = client.getApplicationContext().createBean(HttpClient.class, client.getURL())) {
            for (int i = 0; i < 40; i++) {
                Greeting greeting = http.toBlocking().retrieve(HttpRequest.GET("/hello?name=Ada"), Greeting.class);
                answered.merge(greeting.instance(), 1, Integer::sum);
                last = greeting.message();
            }
        }
        System.out.printf("40 calls: %s; last answer: %s%n", answered, last);
    }

    /** On Ctrl+C this does not run: Micronaut's shutdown hooks stop each application, the test kit stops Redis. */
    private void stopAll() {
        if (client != null) {
            stop(client);
            client = null;
        }
        greetings.values().forEach(RunExample::stop);
        greetings.clear();
    }

    /**
     * Stopping the server deregisters the instance; closing its context closes its Lodestar client. Micronaut 4.10
     * does not shut its IO executor down with the context: its idle threads (not daemons) would keep this JVM alive
     * for their 60 s keep-alive, so that is done here.
     */
    private static void stop(EmbeddedServer server) {
        ApplicationContext context = server.getApplicationContext();
        ExecutorService io = context.getBean(ExecutorService.class, Qualifiers.byName(TaskExecutors.IO));
        server.stop();
        if (context.isRunning()) {
            context.close();
        }
        io.shutdown();
    }
}
