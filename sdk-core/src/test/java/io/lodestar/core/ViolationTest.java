package io.lodestar.core;

import io.lodestar.core.internal.Validation;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ViolationTest {
    @Test
    void messageSaysFieldRuleAndValue() {
        Violation violation = new Violation("port", "0", "between 1 and 65535");

        assertThat(violation.message()).isEqualTo("port must be between 1 and 65535, but was 0");
    }

    @Test
    void toStringIsTheMessage() {
        Violation violation = new Violation("weight", "-1", "between 0 and 10000");

        assertThat(violation).hasToString(violation.message());
    }

    @Test
    void carriesFieldValueAndRuleAsData() {
        Violation violation = new Violation("metadata[zone]", "null", "non-null");

        assertThat(violation.field()).isEqualTo("metadata[zone]");
        assertThat(violation.value()).isEqualTo("null");
        assertThat(violation.rule()).isEqualTo("non-null");
    }

    @Test
    void keepsFieldAndValuePrintableWhoeverBuiltIt() {
        Violation violation = new Violation("attributes[a\u202Eb]", "x\ny\u200b", "non-null");

        assertThat(violation.message()).isEqualTo("attributes[a\\u202eb] must be non-null, but was x\\ny\\u200b");
    }

    @Test
    void leavesAValueShownByValidationAsItIs() {
        String shown = Validation.show("back\\slash \u202E");

        assertThat(new Violation("f", shown, "r").value()).isEqualTo(shown).isEqualTo("'back\\\\slash \\u202e'");
    }

    @Test
    void requiresEveryPart() {
        assertThatThrownBy(() -> new Violation(null, "v", "r")).isInstanceOf(NullPointerException.class)
                .hasMessage("field");
        assertThatThrownBy(() -> new Violation("f", null, "r")).isInstanceOf(NullPointerException.class)
                .hasMessage("value");
        assertThatThrownBy(() -> new Violation("f", "v", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("rule");
    }
}
