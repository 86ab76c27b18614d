package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerInfoTest {

    @Test
    void parsesInfoFieldsAndSkipsSectionHeaders() {
        // given
        String info = "# Server\r\nredis_version:7.0.15\r\nprocess_id:4242\r\n\r\n# Cluster\r\ncluster_enabled:1\r\n";

        // when
        Map<String, String> fields = ServerInfo.parseInfo(info);

        // then
        assertThat(fields).containsEntry("redis_version", "7.0.15")
                .containsEntry("process_id", "4242")
                .containsEntry("cluster_enabled", "1")
                .hasSize(3);
    }
}
