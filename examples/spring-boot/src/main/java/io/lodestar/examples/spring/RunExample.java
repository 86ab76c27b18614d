package io.lodestar.examples.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.examples.spring.client.ClientServiceApplication;
import io.lodestar.examples.spring.greeting.GreetingServiceApplication;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the example in one JVM: three greeting-service instances (weights 1, 3 and 2; zones eu-1, eu-1, eu-2) and
 * client-service, shows the weighted split, a live template change and an instance stopped, then keeps the pair
 * running: curl it, or type a new template. An empty line (or Ctrl-D, or Ctrl-C) stops everything.
 *
 * <p>Uses {@code LODESTAR_REDIS_URI} when set; otherwise starts a private Redis (from PATH, or the binary shipped in
 * the embedded-redis artifact) that is stopped at the end. Ports: {@code -Dexample.port=8080} (client-service) and the
 * next three (greeting-service). Run it with:
 * {@code ./mvnw -q -Pdemo -DskipTests -pl examples/spring-boot -am verify}
 */
public final class RunExample {
    /** The config entry greeting-service imports ({@code spring.config.import=lodestar:greeting/template}). */
    static final String TEMPLATE_ID = "greeting/template";
    private static final String NAMESPACE = "example";

    private RunExample() {
    }

    /**
     * @param args ignored
     * @throws Exception if an application fails to start (a port in use, Redis unreachable)
     */
    public static void main(String[] args) throws Exception {
        String configured = System.getenv("LODESTAR_REDIS_URI");
        RedisServer started = configured == null ? TestRedis.startStandalone() : null;
        String uri = configured != null ? configured : started.uri();
        System.out.println("Redis: " + (started == null ? LodestarOptions.redact(uri)
                : uri + " (started for this example: " + TestRedis.describeSource() + ")"));
        List<ConfigurableApplicationContext> apps = new ArrayList<>();
        AtomicBoolean stopped = new AtomicBoolean();
        Runnable stop = () -> {
            if (stopped.compareAndSet(false, true)) {
                synchronized (apps) {
                    apps.forEach(ConfigurableApplicationContext::close); // drain, finish requests, deregister
                }
                if (started != null) {
                    started.close();
                }
                System.out.println("Stopped.");
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "example-stop"));
        try (LodestarClient operator = RedisLodestar.create(LodestarOptions.builder(uri).namespace(NAMESPACE).build())) {
            run(uri, operator, apps);
        } finally {
            stop.run();
        }
    }

    private static void run(String uri, LodestarClient operator, List<ConfigurableApplicationContext> apps)
            throws Exception {
        // Every run starts from the same template, also in a Redis of your own (namespace "example").
        operator.config().set(TEMPLATE_ID, "greeting.template=Hello, {name}!", ConfigFormat.PROPERTIES);
        int port = Integer.getInteger("example.port", 8080);
        List<Instance> instances = List.of(new Instance(port + 1, 1, "eu-1"), new Instance(port + 2, 3, "eu-1"),
                new Instance(port + 3, 2, "eu-2"));
        long startedAt = System.nanoTime();
        List<ConfigurableApplicationContext> greetings = new ArrayList<>();
        for (Instance instance : instances) {
            ConfigurableApplicationContext greeting = startGreetingService(uri, NAMESPACE, instance.port(),
                    instance.weight(), instance.zone());
            greetings.add(greeting);
            synchronized (apps) {
                apps.add(greeting);
            }
            System.out.printf("greeting-service on port %d: weight %d, zone %s%n", instance.port(), instance.weight(),
                    instance.zone());
        }
        ConfigurableApplicationContext client = startClientService(uri, NAMESPACE, port);
        synchronized (apps) {
            apps.add(client);
        }
        System.out.printf("client-service on port %d (all four started in %d ms)%n%n", port,
                (System.nanoTime() - startedAt) / 1_000_000);

        RestClient hello = RestClient.create("http://localhost:" + port);
        System.out.println("$ curl 'http://localhost:" + port + "/hello?name=Ada'");
        System.out.println(hello.get().uri("/hello?name=Ada").retrieve().body(String.class));

        System.out.println("\n600 calls to /hello, by the answer (weights 1 : 3 : 2 = 17 % : 50 % : 33 %):");
        printSplit(count(hello, 600));

        String template = "Bonjour, {name}!";
        String expected = template.replace("{name}", "Ada");
        long changedAt = System.nanoTime();
        operator.config().set(TEMPLATE_ID, "greeting.template=" + template, ConfigFormat.PROPERTIES);
        List<RestClient> direct = instances.stream()
                .map(instance -> RestClient.create("http://localhost:" + instance.port())).toList();
        long deadline = changedAt + 10_000_000_000L;
        boolean everyInstance;
        while (!(everyInstance = direct.stream().allMatch(greeting -> expected.equals(greeting.get()
                .uri("/greeting?name=Ada").retrieve().body(Answer.class).message())))
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        System.out.printf("%nTemplate set to '%s' in Redis; %s after %d ms, without a restart:%n", template,
                everyInstance ? "every instance answers with it" : "NOT every instance answers with it",
                (System.nanoTime() - changedAt) / 1_000_000);
        System.out.println(hello.get().uri("/hello?name=Ada").retrieve().body(String.class));

        ConfigurableApplicationContext heavy = greetings.get(1);
        heavy.close();
        System.out.printf("%nStopped the instance on port %d (weight 3); the next 300 calls:%n",
                instances.get(1).port());
        printSplit(count(hello, 300));

        System.out.printf("%nRunning. Try: curl 'http://localhost:%d/hello?name=Ada'%n"
                + "Type a new template (e.g. Hi {name}, from Redis!) and Enter to change it live; "
                + "an empty line stops.%n", port);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.isBlank(); line = in.readLine()) {
            long setAt = System.nanoTime();
            operator.config().set(TEMPLATE_ID, "greeting.template=" + line.strip(), ConfigFormat.PROPERTIES);
            String answer = awaitAnswer(hello, line.strip().replace("{name}", "Ada"), setAt + 10_000_000_000L);
            System.out.printf("Set in Redis; after %d ms: %s%n", (System.nanoTime() - setAt) / 1_000_000, answer);
        }
    }

    /** @return the first answer with this message, or the last one at the deadline */
    private static String awaitAnswer(RestClient hello, String message, long deadline) throws InterruptedException {
        while (true) {
            Answer answer = call(hello);
            if (answer.message().equals(message) || System.nanoTime() > deadline) {
                return hello.get().uri("/hello?name=Ada").retrieve().body(String.class);
            }
            Thread.sleep(5);
        }
    }

    /**
     * Starts one greeting-service instance registered from 127.0.0.1 (the example runs on one machine).
     *
     * @param redisUri  the Redis URI
     * @param namespace the Lodestar namespace
     * @param port      its port, 0 for any free one
     * @param weight    its registered weight
     * @param zone      its registered zone
     * @return the running application
     */
    static ConfigurableApplicationContext startGreetingService(String redisUri, String namespace, int port,
                                                               int weight, String zone) {
        return GreetingServiceApplication.application().run(common(redisUri, namespace, port,
                "--lodestar.registration.weight=" + weight, "--lodestar.registration.zone=" + zone));
    }

    /**
     * Starts client-service.
     *
     * @param redisUri  the Redis URI
     * @param namespace the Lodestar namespace
     * @param port      its port, 0 for any free one
     * @param more      more arguments, e.g. {@code --lodestar.loadbalancer.seed=7}
     * @return the running application
     */
    static ConfigurableApplicationContext startClientService(String redisUri, String namespace, int port,
                                                             String... more) {
        return ClientServiceApplication.application().run(common(redisUri, namespace, port, more));
    }

    /** Command-line arguments: they win over the applications' yml files. */
    private static String[] common(String redisUri, String namespace, int port, String... more) {
        List<String> args = new ArrayList<>(List.of("--server.port=" + port, "--lodestar.redis-uri=" + redisUri,
                "--lodestar.namespace=" + namespace, "--lodestar.registration.host=127.0.0.1",
                "--spring.main.banner-mode=off", "--logging.level.root=warn",
                "--spring.main.register-shutdown-hook=false", // RunExample closes them, before the Redis
                // Several applications in one JVM share HTTP client threads, which Tomcat takes for leaks.
                "--logging.level.org.apache.catalina.loader.WebappClassLoaderBase=error"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /**
     * @param app a running application
     * @return the port its web server listens on
     */
    static int port(ConfigurableApplicationContext app) {
        return ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    /**
     * @param hello a client of client-service
     * @return one answer of {@code GET /hello?name=Ada}
     */
    static Answer call(RestClient hello) {
        return hello.get().uri("/hello?name=Ada").retrieve().body(Answer.class);
    }

    private static Map<String, Integer> count(RestClient hello, int calls) {
        Map<String, Integer> byInstance = new TreeMap<>();
        for (int i = 0; i < calls; i++) {
            Answer answer = call(hello);
            byInstance.merge(answer.message() + " from " + answer.instance() + " (" + answer.zone() + ")", 1,
                    Integer::sum);
        }
        return byInstance;
    }

    private static void printSplit(Map<String, Integer> counts) {
        int total = counts.values().stream().mapToInt(Integer::intValue).sum();
        counts.forEach((answer, n) -> System.out.printf("  %4d  %3d %%  %s%n", n, Math.round(100.0 * n / total),
                answer));
    }

    private record Instance(int port, int weight, String zone) {
    }

    /**
     * client-service's answer.
     *
     * @param message  the greeting
     * @param instance the greeting-service instance that answered
     * @param zone     its zone
     */
    record Answer(String message, String instance, String zone) {
    }
}
