package io.lodestar.cli;

import io.lodestar.core.model.ConfigFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigFileTest {
    /** Contents a YAML writer or reader is tempted to change: chomping, indentation, line breaks, look-alikes. */
    private static final List<String> TRICKY = List.of(
            "", "\n", "\n\n\n", "a", "a\n", "a\n\n", "a\n\n\n", "  leading spaces\nsecond\n", "trailing spaces  \n",
            "tab\there\n", "\tstarts with a tab\n", "line\r\nwindows\r\n", "lone\rcarriage", "0x10", "true", "no",
            "~", "null", "1e3", "- a list?", "key: value", "# not a comment\n", "'quoted'", "\"double\"",
            "grüße\nこんにちは\n", "emoji 🚀 and ZWJ 👩‍💻\n", "nel\u0085line sep\u2028para sep\u2029end",
            "bom\uFEFF in the middle", "nul\u0000and bell\u0007", "{\"json\": [1, 2]}\n", "|\n>\n", "...\n---\n",
            " ", "\n leading newline then space", "very long line " + "x".repeat(5000) + "\n");

    @ParameterizedTest
    @EnumSource(ConfigFile.Format.class)
    void everyContentReadsBackExactlyAsWritten(ConfigFile.Format format) {
        // given every tricky content as a config of its own
        List<ConfigTransfer.Item> items = new ArrayList<>();
        for (int i = 0; i < TRICKY.size(); i++) {
            String content = TRICKY.get(i);
            items.add(new ConfigTransfer.Item("c" + i, ConfigFormat.TEXT, content, i + 1, ConfigFile.sha1(content)));
        }

        // when it is written and read back
        List<ConfigTransfer.Item> read = ConfigFile.read(ConfigFile.write(format, "dev", "", items), "export");

        // then each content, format, version and hash is what it was
        assertThat(read).isEqualTo(items);
    }

    @Test
    void anEditedContentWithItsOldHashIsRefused() {
        String text = ConfigFile.write(ConfigFile.Format.YAML, "dev", "", List.of(
                new ConfigTransfer.Item("app", ConfigFormat.YAML, "a: 1\n", 3, ConfigFile.sha1("a: 1\n"))));

        assertThatThrownBy(() -> ConfigFile.read(text.replace("a: 1", "a: 2"), "edited.yaml"))
                .isInstanceOf(ExitCodes.UsageException.class)
                .hasMessageContaining("edited.yaml: configs[0].contentHash must be the SHA-1 of the content");
    }

    @Test
    void aContentThatIsNotAStringIsRefusedNotConverted() {
        String text = "kind: lodestar-configs\nfileVersion: 1\nconfigs:\n- id: app\n  format: text\n  content: 0x10\n";

        assertThatThrownBy(() -> ConfigFile.read(text, "hand.yaml"))
                .hasMessageContaining("hand.yaml: configs[0].content must be a string").hasMessageContaining("16");
    }

    @Test
    void aFileOfANewerVersionIsRefused() {
        assertThatThrownBy(() -> ConfigFile.read("kind: lodestar-configs\nfileVersion: 2\nconfigs: []\n", "new.yaml"))
                .hasMessageContaining("new.yaml: fileVersion must be 1").hasMessageContaining("but was '2'");
    }

    @Test
    void aBadIdNamesTheEntry() {
        String text = "{\"kind\": \"lodestar-configs\", \"fileVersion\": 1, \"configs\": [{\"id\": \"a:b\","
                + " \"format\": \"text\", \"content\": \"x\"}]}";

        assertThatThrownBy(() -> ConfigFile.read(text, "bad.json"))
                .hasMessageContaining("bad.json: configs[0].id must be").hasMessageContaining("a:b");
    }

    @Test
    void aRepeatedIdIsRefused() {
        String text = "kind: lodestar-configs\nfileVersion: 1\nconfigs:\n"
                + "- {id: app, format: text, content: \"x\"}\n- {id: app, format: text, content: \"y\"}\n";

        assertThatThrownBy(() -> ConfigFile.read(text, "twice.yaml"))
                .hasMessageContaining("twice.yaml: configs[1].id must be unique in the file, but was 'app'");
    }
}
