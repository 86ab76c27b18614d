package io.lodestar.spring;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** House rules every auto-configuration follows, so a new one cannot forget them. */
class AutoConfigurationConventionsTest {

    @Test
    void everyListedClassIsAnAutoConfigurationAndEveryBeanBacksOffForTheUsersOwn() throws Exception {
        List<Class<?>> autoConfigurations = listed();
        assertThat(autoConfigurations).hasSizeGreaterThanOrEqualTo(4);

        List<String> beansWithoutBackOff = new ArrayList<>();
        for (Class<?> type : autoConfigurations) {
            assertThat(type).as(type.getName()).hasAnnotation(AutoConfiguration.class);
            withNested(type).flatMap(c -> Arrays.stream(c.getDeclaredMethods()))
                    .filter(method -> method.isAnnotationPresent(Bean.class))
                    .filter(method -> !method.isAnnotationPresent(ConditionalOnMissingBean.class))
                    .map(Method::toString)
                    .forEach(beansWithoutBackOff::add);
        }

        assertThat(beansWithoutBackOff).as("@Bean methods without @ConditionalOnMissingBean").isEmpty();
    }

    private static Stream<Class<?>> withNested(Class<?> type) {
        return Stream.concat(Stream.of(type), Arrays.stream(type.getDeclaredClasses()).flatMap(
                AutoConfigurationConventionsTest::withNested));
    }

    private static List<Class<?>> listed() throws IOException, ClassNotFoundException {
        String imports = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";
        try (InputStream in = AutoConfigurationConventionsTest.class.getClassLoader().getResourceAsStream(imports)) {
            assertThat(in).as(imports).isNotNull();
            List<Class<?>> classes = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank()) {
                    classes.add(Class.forName(line.strip()));
                }
            }
            return classes;
        }
    }
}
