package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The content hash of a plain config is computed by the writing client, not by set_config.lua (over a config's size
 * the SHA-1 was a sizeable part of the write's Redis time): it must be what Redis' own SHA-1 gives, and the script
 * must refuse a set without one, since an unchanged set is told by its hash.
 */
class ConfigContentHashIT extends NamespaceTest {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void theHashAClientStoresIsTheSha1RedisGivesForTheSameContent() {
        // given content with characters of one to four UTF-8 bytes
        String content = "greeting=grüße, 你好, 🚀\nplain=ascii";
        LodestarClient client = clients.connect();

        // when a client sets it
        ConfigEntry entry = client.config().set("app", content, ConfigFormat.PROPERTIES);

        // then the stored hash is Redis' SHA-1 of the content, in the current hash too
        String redisSha1 = redis().eval("return redis.sha1hex(ARGV[1])", ScriptOutputType.VALUE, new String[0],
                content);
        assertThat(entry.contentHash()).isEqualTo(redisSha1);
        assertThat(redis().hget(keys().config("app").current(), "hash")).isEqualTo(redisSha1);
    }

    @Test
    void aSetWithoutAContentHashIsRefusedAndWritesNothing() {
        // given an entry at version 1
        LodestarClient client = clients.connect();
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        Keys.ConfigKeys app = keys().config("app");

        // when set_config is run with other content and no hash, then it is refused
        assertThatThrownBy(() -> redis().eval(ConfigScripts.SET_CONFIG.body(), ScriptOutputType.MULTI, app.all(),
                "app", "a=2", "PROPERTIES", "10", "-1", "", "test", "test-host"))
                .hasMessageContaining("set_config needs the content hash");

        // and nothing was written
        assertThat(redis().hget(app.current(), "content")).isEqualTo("a=1");
        assertThat(redis().hget(app.current(), Keys.REVISION_FIELD)).isEqualTo("1");
        assertThat(redis().xlen(app.log())).isEqualTo(1);
    }
}
