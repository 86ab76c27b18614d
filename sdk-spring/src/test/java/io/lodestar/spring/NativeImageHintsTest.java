package io.lodestar.spring;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every class the starter lists in spring.factories can be created in a native image: Spring's own AOT registrars
 * give each a constructor hint, so the starter needs no registrar of its own (the auto-configurations and the
 * {@code lodestar.*} properties go through Boot's AOT processing; the Redis module ships its own metadata).
 */
class NativeImageHintsTest {

    @Test
    void everyClassListedInSpringFactoriesHasAConstructorHint() throws IOException {
        List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
                .forResourceLocation("META-INF/spring/aot.factories").load(RuntimeHintsRegistrar.class);
        RuntimeHints hints = new RuntimeHints();
        registrars.forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));

        List<String> listed = listedInSpringFactories();

        assertThat(listed).isNotEmpty();
        assertThat(listed).allSatisfy(type -> assertThat(RuntimeHintsPredicates.reflection().onType(
                TypeReference.of(type))
                .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(type).accepts(hints));
    }

    private List<String> listedInSpringFactories() throws IOException {
        Properties factories = new Properties();
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring.factories")) {
            factories.load(in);
        }
        return factories.values().stream().flatMap(value -> Arrays.stream(((String) value).split(",")))
                .map(String::strip).filter(type -> type.startsWith("io.lodestar.")).toList();
    }
}
