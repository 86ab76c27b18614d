package io.lodestar.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.lodestar.core.Violation;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigFormat;
import org.yaml.snakeyaml.LoaderOptions;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The file {@code lodestar config export} writes and {@code import} reads, in YAML or JSON (Jackson, the CLI's JSON
 * and YAML library):
 * <pre>
 * kind: lodestar-configs
 * fileVersion: 1
 * namespace: dev        # where it came from (for people; import writes to --namespace)
 * prefix: orders.       # only when one was given
 * configs:
 * - id: orders.yaml
 *   format: yaml
 *   version: 7          # the version in the source namespace (for people; the target counts its own)
 *   contentHash: 3f7a…  # SHA-1 of the content's UTF-8 bytes: import checks it
 *   content: |
 *     …
 * </pre>
 * The content must come back exactly as it left, every character, trailing newlines and non-ASCII text included.
 * Strings are written quoted or as literal blocks, never plain (a plain {@code 0x10} would read back as a number),
 * and import checks each content against its hash, so a YAML reader that changed a single character (a hand edit,
 * another tool's re-indentation) is an error rather than a silent change. A content edited by hand on purpose needs
 * its {@code contentHash} line removed.
 */
final class ConfigFile {
    static final String KIND = "lodestar-configs";
    static final int FILE_VERSION = 1;
    /** A namespace export can hold many configs of up to 1 MiB each; SnakeYAML's default limit is 3 MB. */
    private static final int MAX_CODE_POINTS = 512 * 1024 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper YAML = yaml();

    /** How the file is written. */
    enum Format { YAML, JSON }

    private ConfigFile() {
    }

    private static ObjectMapper yaml() {
        LoaderOptions loading = new LoaderOptions();
        loading.setCodePointLimit(MAX_CODE_POINTS);
        return new ObjectMapper(YAMLFactory.builder().loaderOptions(loading)
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE).build());
    }

    /** The format a file name asks for: .json is JSON, anything else YAML. */
    static Format formatOf(String file) {
        return file != null && file.toLowerCase(Locale.ROOT).endsWith(".json") ? Format.JSON : Format.YAML;
    }

    static String write(Format format, String namespace, String prefix, List<ConfigTransfer.Item> items) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("kind", KIND);
        document.put("fileVersion", FILE_VERSION);
        document.put("namespace", namespace);
        if (!prefix.isEmpty()) {
            document.put("prefix", prefix);
        }
        List<Map<String, Object>> configs = new ArrayList<>();
        for (ConfigTransfer.Item item : items) {
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("id", item.id());
            config.put("format", item.format().name().toLowerCase(Locale.ROOT));
            config.put("version", item.version());
            config.put("contentHash", item.contentHash());
            config.put("content", item.content());
            configs.add(config);
        }
        document.put("configs", configs);
        try {
            String text = (format == Format.JSON ? JSON : YAML).writeValueAsString(document);
            return text.endsWith("\n") ? text : text + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write the export: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Reads a file {@link #write} wrote (or a person, by its rules). JSON is recognised by its opening brace.
     *
     * @param source the file's name, for messages
     * @throws ExitCodes.UsageException naming the field, the value and the rule when the file breaks one
     */
    static List<ConfigTransfer.Item> read(String text, String source) {
        JsonNode document;
        try {
            document = (text.stripLeading().startsWith("{") ? JSON : YAML).readTree(text);
        } catch (JsonProcessingException e) {
            throw new ExitCodes.UsageException(source + " must be a config export in YAML or JSON, but does not"
                    + " parse: " + e.getOriginalMessage());
        }
        if (document == null || !document.isObject()) {
            throw new ExitCodes.UsageException(source + " must hold a config export (kind: " + KIND
                    + "), but holds " + (document == null ? "nothing" : document.getNodeType().name().toLowerCase(
                    Locale.ROOT)));
        }
        require(KIND.equals(document.path("kind").asText(null)), source, "kind", document.get("kind"), KIND);
        JsonNode version = document.get("fileVersion");
        require(version != null && version.isInt() && version.intValue() == FILE_VERSION, source, "fileVersion",
                version, String.valueOf(FILE_VERSION) + " (a newer lodestar may write another)");
        JsonNode configs = document.get("configs");
        require(configs != null && configs.isArray(), source, "configs", configs, "a list");
        List<ConfigTransfer.Item> items = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < configs.size(); i++) {
            items.add(item(configs.get(i), source, "configs[" + i + "]", seen));
        }
        return items;
    }

    private static ConfigTransfer.Item item(JsonNode config, String source, String at, Set<String> seen) {
        require(config.isObject(), source, at, config, "a map with id, format and content");
        JsonNode id = config.get("id");
        require(id != null && id.isTextual(), source, at + ".id", id, "a config id");
        List<Violation> badId = Validation.collector().configId(at + ".id", id.asText()).violations();
        if (!badId.isEmpty()) {
            throw new ExitCodes.UsageException(source + ": " + badId.get(0).message());
        }
        require(seen.add(id.asText()), source, at + ".id", id, "unique in the file");
        JsonNode format = config.get("format");
        ConfigFormat parsed = null;
        if (format != null && format.isTextual()) {
            try {
                parsed = ConfigFormat.valueOf(format.asText().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException unknown) {
                parsed = null;
            }
        }
        require(parsed != null, source, at + ".format", format, "one of properties, yaml, json, text");
        JsonNode content = config.get("content");
        require(content != null && content.isTextual(), source, at + ".content", content,
                "a string (quote a value that looks like a number or a boolean)");
        JsonNode hash = config.get("contentHash");
        if (hash != null) {
            require(hash.isTextual() && hash.asText().equals(sha1(content.asText())), source, at + ".contentHash",
                    hash, "the SHA-1 of the content (" + sha1(content.asText()) + "); was the content edited?"
                            + " Remove contentHash to import an edited content");
        }
        JsonNode version = config.get("version");
        require(version == null || version.canConvertToLong() && version.asLong() >= 0, source, at + ".version",
                version, "a version number");
        return new ConfigTransfer.Item(id.asText(), parsed, content.asText(), version == null ? 0 : version.asLong(),
                sha1(content.asText()));
    }

    private static void require(boolean holds, String source, String field, JsonNode value, String rule) {
        if (!holds) {
            throw new ExitCodes.UsageException(source + ": " + field + " must be " + rule + ", but was "
                    + (value == null || value.isMissingNode() ? "missing" : Validation.show(value.isTextual()
                    ? value.asText() : value.toString())));
        }
    }

    /** What Redis computes as a config's content hash: SHA-1 of its UTF-8 bytes, lower-case hex. */
    static String sha1(String content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(content.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }
}
