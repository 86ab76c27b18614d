package io.lodestar.cli;

import io.lodestar.core.model.InstanceStatus;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OutputTest {
    @Test
    void aTableAlignsColumnsUnderCapitalisedHeaders() {
        Map<String, Object> first = new LinkedHashMap<>();
        first.put("id", "orders-1");
        first.put("updatedAt", "now");
        Map<String, Object> second = new LinkedHashMap<>();
        second.put("id", "o2");
        second.put("updatedAt", null);

        String table = Output.Table.render(List.of(first, second), List.of("id", "updatedAt"));

        assertThat(table).isEqualTo("""
                ID        UPDATED AT
                orders-1  now
                o2        -
                """);
    }

    @Test
    void durationsReadAtAGlance() {
        assertThat(Views.human(Duration.ofSeconds(42))).isEqualTo("42s");
        assertThat(Views.human(Duration.ofSeconds(192))).isEqualTo("3m12s");
        assertThat(Views.human(Duration.ofMinutes(125))).isEqualTo("2h05m");
        assertThat(Views.human(Duration.ofHours(76))).isEqualTo("3d04h");
    }

    @Test
    void durationOptionsTakeUnits() {
        LodestarCli.DurationConverter converter = new LodestarCli.DurationConverter();

        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(converter.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(converter.convert("PT1S")).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> converter.convert("soon")).isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessageContaining("duration must be like 500ms, 5s or 2m, but was 'soon'");
    }

    @Test
    void everyRedisUriInATextIsRedacted() {
        String text = "Cannot connect to redis://admin:hunter2@10.0.0.1:6379 nor rediss://:pw@h:6380/0";

        assertThat(ExitCodes.Secrets.redactAll(text)).doesNotContain("hunter2").doesNotContain(":pw@")
                .contains("10.0.0.1:6379");
    }

    @Test
    void outOfServiceIsWrittenAsOperatorsSayIt() {
        assertThat(new Converters.Status().convert("out-of-service"))
                .isEqualTo(InstanceStatus.OUT_OF_SERVICE);
        assertThat(Views.statusName(InstanceStatus.OUT_OF_SERVICE)).isEqualTo("out-of-service");
    }
}
