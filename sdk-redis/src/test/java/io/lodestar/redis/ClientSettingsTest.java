package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClientSettingsTest {

    @Test
    void aLettuceOlderThanTheSupportedOneFailsNamingBothVersionsAndTheFix() {
        assertThatThrownBy(() -> ClientSettings.requireSupportedLettuce("6.7.1.RELEASE/4b2c1f3"))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("lettuce-core on the classpath must be 6.8 or newer")
                .hasMessageContaining("pin io.lettuce:lettuce-core")
                .hasMessageContaining("but was 6.7.1.RELEASE/4b2c1f3");
        assertThatThrownBy(() -> ClientSettings.requireSupportedLettuce("5.3.7.RELEASE"))
                .isInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void theSupportedVersionsPass() {
        assertThatCode(() -> ClientSettings.requireSupportedLettuce("6.8.1.RELEASE")).doesNotThrowAnyException();
        assertThatCode(() -> ClientSettings.requireSupportedLettuce("7.5.2.RELEASE")).doesNotThrowAnyException();
        assertThatCode(() -> ClientSettings.requireSupportedLettuce("7.7.0.RELEASE/1960d49"))
                .doesNotThrowAnyException();
    }

    @Test
    void theLettuceOnThisClasspathIsFoundByItsOwnMetadataAndPasses() {
        // its own manifest says e.g. 7.7.0.RELEASE/1960d49; a shaded jar's manifest would say the application's
        assertThat(RedisClient.class.getPackage().getImplementationVersion()).startsWith(ClientSettings.lettuceVersion());
        assertThatCode(() -> ClientSettings.requireSupportedLettuce(ClientSettings.lettuceVersion()))
                .doesNotThrowAnyException();
    }

    @Test
    void aLettuceThatDoesNotSayItsVersionIsTakenAsItIs() {
        assertThatCode(() -> ClientSettings.requireSupportedLettuce(null)).doesNotThrowAnyException();
        assertThatCode(() -> ClientSettings.requireSupportedLettuce("custom-build")).doesNotThrowAnyException();
    }
}
