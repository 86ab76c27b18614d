package io.lodestar.cli;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AllowedHostsTest {
    private static AllowedHosts boundTo(String address, String... names) throws Exception {
        return AllowedHosts.of(InetAddress.getByName(address), List.of(names));
    }

    @Test
    void loopbackNamesAreAlwaysAllowedWithAnyPort() throws Exception {
        AllowedHosts hosts = boundTo("127.0.0.1");

        assertThat(hosts.allowsHostHeader("localhost:8080")).isTrue();
        assertThat(hosts.allowsHostHeader("LOCALHOST")).isTrue();
        assertThat(hosts.allowsHostHeader("127.0.0.1:8080")).isTrue();
        assertThat(hosts.allowsHostHeader("[::1]:8080")).isTrue();
        assertThat(hosts.allowsHostHeader("[0:0:0:0:0:0:0:1]")).isTrue();
    }

    @Test
    void anotherNameIsRefusedWhateverTheBind() throws Exception {
        assertThat(boundTo("127.0.0.1").allowsHostHeader("attacker.example")).isFalse();
        assertThat(boundTo("0.0.0.0").allowsHostHeader("attacker.example:8080")).isFalse();
        assertThat(boundTo("0.0.0.0").allowsHostHeader(null)).isFalse();
        assertThat(boundTo("0.0.0.0").allowsHostHeader("")).isFalse();
    }

    @Test
    void theAddressBoundToIsAllowed() throws Exception {
        assertThat(boundTo("127.0.0.2").allowsHostHeader("127.0.0.2:8080")).isTrue();
        assertThat(boundTo("127.0.0.2").allowsHostHeader("127.0.0.3:8080")).isFalse();
    }

    @Test
    void namesGivenAreAllowedInAnyCase() throws Exception {
        AllowedHosts hosts = boundTo("0.0.0.0", "Console.Internal");

        assertThat(hosts.allowsHostHeader("console.internal:443")).isTrue();
        assertThat(hosts.allowsHostHeader("console.internal.attacker.example")).isFalse();
    }

    @Test
    void anOriginMustBeAnHttpPageOfAnAllowedHost() throws Exception {
        AllowedHosts hosts = boundTo("127.0.0.1", "console.internal");

        assertThat(hosts.allowsOrigin("http://127.0.0.1:8080")).isTrue();
        assertThat(hosts.allowsOrigin("https://console.internal")).isTrue();
        assertThat(hosts.allowsOrigin("http://attacker.example")).isFalse();
        assertThat(hosts.allowsOrigin("null")).isFalse();
        assertThat(hosts.allowsOrigin("file:///tmp/x.html")).isFalse();
        assertThat(hosts.allowsOrigin("chrome-extension://abc")).isFalse();
    }

    @Test
    void aNameWithAPortOrSchemeIsAUsageError() {
        assertThatThrownBy(() -> boundTo("0.0.0.0", "console.internal:8080"))
                .isInstanceOf(ExitCodes.UsageException.class)
                .hasMessage("--allow-host must be a host name or IP address without port, but was"
                        + " 'console.internal:8080'");
        assertThatThrownBy(() -> boundTo("0.0.0.0", "http://console.internal"))
                .isInstanceOf(ExitCodes.UsageException.class);
    }
}
