package io.lodestar.redis;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lettuce.core.resource.ClientResources;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GraalVM reachability metadata shipped in the jar names everything native-image cannot see by itself: every
 * Lua script resource, the ServiceLoader provider's constructor and the dynamic proxy of an offline start. A new
 * script or proxy that the metadata misses fails here, not in a user's native build.
 */
class NativeImageMetadataTest {
    private static final String METADATA = "META-INF/native-image/io.lodestar/lodestar-redis/";

    @Test
    void everyLuaScriptIsARegisteredResource() throws IOException, URISyntaxException {
        List<Pattern> includes = includes();
        Path scripts = Path.of(LuaScript.class.getResource("scripts").toURI());

        try (Stream<Path> files = Files.list(scripts)) {
            List<String> resources = files.map(file -> "io/lodestar/redis/scripts/" + file.getFileName()).toList();
            assertThat(resources).isNotEmpty().allSatisfy(resource -> assertThat(includes)
                    .as(resource).anyMatch(include -> include.matcher(resource).matches()));
        }
    }

    @Test
    void theServiceLoaderProviderCanBeConstructedReflectively() throws IOException {
        String provider;
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/services/io.lodestar.core.LodestarClientFactory")) {
            provider = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }

        List<Object> reflected = JSON.std.listFrom(resource("reflect-config.json"));

        assertThat(reflected).anySatisfy(entry -> {
            assertThat(((Map<?, ?>) entry).get("name")).isEqualTo(provider);
            assertThat(((Map<?, ?>) entry).get("methods").toString()).contains("name=<init>");
        });
    }

    @Test
    void theOfflineStartProxyIsRegistered() throws IOException {
        List<Object> proxies = JSON.std.listFrom(resource("proxy-config.json"));
        RedisBackend offline = RedisBackend.connect(LodestarOptions.builder("redis://127.0.0.1:" + closedPort())
                .startupMode(StartupMode.OFFLINE).build(), ClientResources.create(), true);
        try {
            Object commands = offline.commands();

            assertThat(Proxy.isProxyClass(commands.getClass())).isTrue();
            List<String> interfaces = Arrays.stream(commands.getClass().getInterfaces()).map(Class::getName)
                    .toList();
            assertThat(proxies).anySatisfy(entry ->
                    assertThat(((Map<?, ?>) entry).get("interfaces")).isEqualTo(interfaces));
        } finally {
            offline.close();
        }
    }

    private static List<Pattern> includes() throws IOException {
        Map<String, Object> config = JSON.std.mapFrom(resource("resource-config.json"));
        List<?> includes = (List<?>) ((Map<?, ?>) config.get("resources")).get("includes");
        return includes.stream().map(include -> Pattern.compile((String) ((Map<?, ?>) include).get("pattern")))
                .toList();
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = NativeImageMetadataTest.class.getClassLoader().getResourceAsStream(METADATA + name)) {
            assertThat(in).as(METADATA + name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A port nothing listens on: taken, then released. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

}
