package io.lodestar.redis;

import io.lodestar.core.LodestarException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LuaScriptTest {

    @Test
    void helpersNoCodeCallsAreLeftOutWithThoseOnlyTheyCalled() {
        // given: a helper the script calls, one only an unused helper calls, and one only a comment names
        String script = String.join("\n",
                "-- helpers: see unused_one and in_a_comment",
                "local function used(x)",
                "  return x + 1",
                "end",
                "local function called_by_unused()",
                "  return 2",
                "end",
                "local function unused_one()",
                "  return called_by_unused() -- a comment naming used_too",
                "end",
                "local function in_a_comment()",
                "  return 3",
                "end",
                "local function used_too(y)",
                "  return used(y)",
                "end",
                "return used_too(1) -- in_a_comment");

        // when
        String pruned = LuaScript.withoutUnusedHelpers(script);

        // then
        assertThat(pruned).contains("local function used(x)", "local function used_too(y)", "return used_too(1)")
                .doesNotContain("local function called_by_unused", "local function unused_one",
                        "local function in_a_comment");
        assertThat(pruned.lines()).filteredOn("end"::equals).hasSize(2);
    }

    @Test
    void aHelperNamedOnlyInsideAnotherNameIsNotCalled() {
        String script = String.join("\n",
                "local function publish()",
                "  return 1",
                "end",
                "local function publish_gray()",
                "  return 2",
                "end",
                "return publish_gray()");

        assertThat(LuaScript.withoutUnusedHelpers(script)).doesNotContain("local function publish()")
                .contains("local function publish_gray()");
    }

    @Test
    void theShippedScriptsDefineTheHelpersTheyCallAndNotTheOthers() {
        // (a helper called but left out would fail the script at run time: every IT runs the scripts it relies on)
        assertThat(Scripts.REGISTER_INSTANCE.body()).contains("local function publish(", "local function read_service(")
                .doesNotContain("local function read_stamp(", "local function current_revision(");
        assertThat(ConfigScripts.SET_CONFIG.body()).contains("local function current_header(", "local function audit(")
                .doesNotContain("local function read_service(", "local function publish_gray(");
    }

    @Test
    void aHelperWithoutItsEndLineIsAnError() {
        assertThatThrownBy(() -> LuaScript.withoutUnusedHelpers("local function broken()\n  return 1\nreturn 2"))
                .isInstanceOf(LodestarException.class).hasMessageContaining("broken");
    }
}
