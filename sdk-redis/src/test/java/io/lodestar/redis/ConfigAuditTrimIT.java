package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigAudit;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRule;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A config's audit trail keeps about its newest 1000 records: trimmed by every hundredth version and by every gray
 * release write (see audit in config_common.lua), not checked on every write.
 */
class ConfigAuditTrimIT extends NamespaceTest {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void theTrailOfManyVersionsKeepsAboutTheNewestThousandRecords() {
        // given a config written 1,250 times
        LodestarClient client = clients.connect();
        for (int i = 1; i <= 1_250; i++) {
            client.config().set("app", "a=" + i, ConfigFormat.PROPERTIES);
        }

        // then its trail holds at least the newest 1000 records and at most 1000 + the 99 written since the last
        // trim + what Redis keeps of a partly trimmed block (100 records a block, by default)
        long records = redis().xlen(keys().config("app").log());
        assertThat(records).isBetween(1_000L, 1_199L);
        assertThat(client.config().log("app", 1)).extracting(ConfigAudit::version).containsExactly(1_250L);
    }

    @Test
    void aGrayReleaseWriteTrimsTheTrailAtAVersionThatDoesNot() {
        // given a config at version 1 whose trail another program grew to 1,500 records
        LodestarClient client = clients.connect();
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        String log = keys().config("app").log();
        for (int i = 0; i < 1_499; i++) {
            redis().xadd(log, Map.of("op", "set", "client", "other", "host", "h", "hash", "", "prev", "0",
                    "version", "1"));
        }

        // when a gray release starts (the version stays 1, which does not trim)
        client.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, GrayRule.metadata("zone", "eu-1"));

        // then the gray write trimmed the trail
        assertThat(redis().xlen(log)).isBetween(1_000L, 1_100L);
    }
}
