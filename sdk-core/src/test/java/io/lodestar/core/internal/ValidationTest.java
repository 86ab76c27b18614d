package io.lodestar.core.internal;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.InvalidArguments;
import io.lodestar.core.Violation;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class ValidationTest {

    /**
     * One identifier rule: its field name in messages, how to check a value, its length limit, the special
     * characters it allows after the first one, and characters it rejects.
     */
    record IdRule(String field, Consumer<String> check, int maxLength, String allowedSpecials, String charset,
                  List<String> disallowed) {
        @Override
        public String toString() {
            return field;
        }

        String rule() {
            return "1-" + maxLength + " characters of " + charset + ", starting with a letter or digit";
        }
    }

    // Characters every rule rejects: whitespace, braces, non-ASCII letters and symbols.
    private static final List<String> ALWAYS_REJECTED =
            List.of(" ", "\t", "\n", "{", "}", "é", "ß", "\u00a0", "😀", "*", "#", "?", "%", "\\", "\"", "'", ",");

    static Stream<IdRule> idRules() {
        return Stream.of(
                new IdRule("namespace", Validation::requireNamespace, Validation.MAX_NAMESPACE_LENGTH, "._-",
                        "[A-Za-z0-9._-]", with(":", "/", "@")),
                new IdRule("serviceId", Validation::requireServiceId, Validation.MAX_ID_LENGTH, "._-",
                        "[A-Za-z0-9._-]", with(":", "/", "@")),
                new IdRule("instanceId", Validation::requireInstanceId, Validation.MAX_ID_LENGTH, "._:@-",
                        "[A-Za-z0-9._:@-]", with("/")),
                new IdRule("configId", Validation::requireConfigId, Validation.MAX_ID_LENGTH, "._/-",
                        "[A-Za-z0-9._/-]", with(":", "@")),
                new IdRule("metadata key",
                        key -> Validation.collector().metadata("metadata", Map.of(key, "v")).throwIfInvalid(),
                        Validation.MAX_METADATA_KEY_LENGTH, "._/-", "[A-Za-z0-9._/-]", with(":", "@")));
    }

    private static List<String> with(String... more) {
        return Stream.concat(ALWAYS_REJECTED.stream(), Stream.of(more)).toList();
    }

    static Stream<Arguments> allowedSpecials() {
        return idRules().flatMap(rule -> rule.allowedSpecials().chars().mapToObj(c -> arguments(rule, (char) c)));
    }

    static Stream<Arguments> disallowedChars() {
        return idRules().flatMap(rule -> rule.disallowed().stream().map(c -> arguments(rule, c)));
    }

    @Nested
    class Identifiers {
        @ParameterizedTest(name = "{0}")
        @MethodSource("io.lodestar.core.internal.ValidationTest#idRules")
        void acceptsOneLetterOrOneDigit(IdRule rule) {
            assertThatCode(() -> rule.check().accept("a")).doesNotThrowAnyException();
            assertThatCode(() -> rule.check().accept("Z")).doesNotThrowAnyException();
            assertThatCode(() -> rule.check().accept("7")).doesNotThrowAnyException();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("io.lodestar.core.internal.ValidationTest#idRules")
        void acceptsTheMaximumLength(IdRule rule) {
            assertThatCode(() -> rule.check().accept("a".repeat(rule.maxLength()))).doesNotThrowAnyException();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("io.lodestar.core.internal.ValidationTest#idRules")
        void rejectsOneCharacterOverTheMaximum(IdRule rule) {
            String tooLong = "a".repeat(rule.maxLength() + 1);

            InvalidArgumentException e = InvalidArguments.thrownBy(() -> rule.check().accept(tooLong));

            assertThat(e.violations()).singleElement().satisfies(v -> {
                assertThat(v.field()).isEqualTo(rule.field());
                assertThat(v.rule()).isEqualTo(rule.rule());
                assertThat(v.value()).contains("(" + (rule.maxLength() + 1) + " chars)");
            });
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("io.lodestar.core.internal.ValidationTest#idRules")
        void rejectsEmpty(IdRule rule) {
            assertThatThrownBy(() -> rule.check().accept(""))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage(rule.field() + " must be " + rule.rule() + ", but was ''");
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("io.lodestar.core.internal.ValidationTest#idRules")
        void rejectsNull(IdRule rule) {
            // Map.of refuses null keys, so the metadata key rule is checked through a map that allows one.
            Consumer<String> check = rule.field().equals("metadata key")
                    ? key -> Validation.collector().metadata("metadata", nullKeyMap()).throwIfInvalid()
                    : rule.check();

            assertThatThrownBy(() -> check.accept(null))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage(rule.field() + " must be " + rule.rule() + ", but was null");
        }

        @ParameterizedTest(name = "{0} allows ''{1}''")
        @MethodSource("io.lodestar.core.internal.ValidationTest#allowedSpecials")
        void acceptsEachAllowedSpecialCharacterAfterTheFirst(IdRule rule, char special) {
            assertThatCode(() -> rule.check().accept("a" + special + "1")).doesNotThrowAnyException();
            assertThatCode(() -> rule.check().accept("a" + special)).doesNotThrowAnyException();
        }

        @ParameterizedTest(name = "{0} must not start with ''{1}''")
        @MethodSource("io.lodestar.core.internal.ValidationTest#allowedSpecials")
        void rejectsAnAllowedSpecialCharacterAtTheStart(IdRule rule, char special) {
            assertThatThrownBy(() -> rule.check().accept(special + "a"))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("starting with a letter or digit, but was '" + special + "a'");
        }

        @ParameterizedTest(name = "{0} rejects ''{1}''")
        @MethodSource("io.lodestar.core.internal.ValidationTest#disallowedChars")
        void rejectsADisallowedCharacter(IdRule rule, String disallowed) {
            String value = "a" + disallowed + "b";

            InvalidArgumentException e = InvalidArguments.thrownBy(() -> rule.check().accept(value));

            assertThat(e.violations()).containsExactly(new Violation(rule.field(), Validation.show(value),
                    rule.rule()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("io.lodestar.core.internal.ValidationTest#idRules")
        void acceptsMixedCaseLettersDigitsAndSpecials(IdRule rule) {
            String value = "Orders-2024" + rule.allowedSpecials() + "x";

            assertThatCode(() -> rule.check().accept(value)).doesNotThrowAnyException();
        }

        @Test
        void requireMethodsReturnTheValidValue() {
            assertThat(Validation.requireNamespace("prod")).isEqualTo("prod");
            assertThat(Validation.requireServiceId("orders")).isEqualTo("orders");
            assertThat(Validation.requireInstanceId("orders-1@10.0.0.1:8080")).isEqualTo("orders-1@10.0.0.1:8080");
            assertThat(Validation.requireConfigId("orders/db.yaml")).isEqualTo("orders/db.yaml");
        }

        private static Map<String, String> nullKeyMap() {
            Map<String, String> map = new HashMap<>();
            map.put(null, "v");
            return map;
        }
    }

    @Nested
    class ConfigContent {
        private static final int MIB = 1024 * 1024;

        @Test
        void acceptsEmptyContent() {
            assertThat(Validation.requireConfigContent("")).isEmpty();
        }

        @Test
        void acceptsExactlyOneMebibyteOfAscii() {
            String content = "a".repeat(MIB);

            assertThat(Validation.requireConfigContent(content)).isSameAs(content);
        }

        @Test
        void rejectsOneMebibytePlusOneByteOfAsciiWithoutPrintingTheContent() {
            String content = "a".repeat(MIB + 1);

            assertThatThrownBy(() -> Validation.requireConfigContent(content))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("content must be at most 1048576 bytes of UTF-8 as stored (JSON escapes included),"
                            + " but was '1048577 bytes'");
        }

        @ParameterizedTest(name = "{index}")
        @ValueSource(strings = {"\ud800", "a\udc00b", "\ude00\ud83d", "ok\ud83d"})
        void rejectsAnUnpairedSurrogateUtf8CannotStore(String content) {
            assertThatThrownBy(() -> Validation.requireConfigContent(content))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageStartingWith("content must be well-formed text (no unpaired surrogate: it cannot be"
                            + " stored as UTF-8), but was ");
        }

        @Test
        void acceptsPairedSurrogates() {
            assertThat(Validation.requireConfigContent("emoji \ud83d\ude00")).isEqualTo("emoji \ud83d\ude00");
        }

        @Test
        void rejectsAnUnpairedSurrogateInAMetadataValue() {
            assertThat(Validation.collector().metadata("metadata", Map.of("k", "a\ud800")).violations())
                    .extracting(Violation::field, Violation::rule)
                    .containsExactly(Tuple.tuple("metadata[k]",
                            "well-formed text (no unpaired surrogate: it cannot be stored as UTF-8)"));
        }

        @Test
        void countsJsonEscapesAsTheHistoryStoresThem() {
            String sixEach = "\u0001".repeat(MIB / 6);
            String twoEach = "\"\\/\n\t\r\b\f".repeat(MIB / 16);

            assertThatCode(() -> Validation.requireConfigContent(sixEach)).doesNotThrowAnyException();
            assertThatCode(() -> Validation.requireConfigContent(twoEach)).doesNotThrowAnyException();
            assertThatThrownBy(() -> Validation.requireConfigContent(sixEach + "\u007f"))
                    .hasMessageEndingWith("but was '" + (MIB / 6 * 6 + 6) + " bytes'");
            assertThatThrownBy(() -> Validation.requireConfigContent(twoEach + "///"))
                    .hasMessageEndingWith("but was '" + (MIB + 6) + " bytes'");
        }

        @Test
        void acceptsExactlyOneMebibyteOfTwoByteCharacters() {
            String content = "é".repeat(MIB / 2);

            assertThatCode(() -> Validation.requireConfigContent(content)).doesNotThrowAnyException();
        }

        @Test
        void rejectsTwoByteCharactersOverTheLimitInFewerCharactersThanTheLimit() {
            String content = "é".repeat(MIB / 2 + 1); // 524,289 characters, 1,048,578 bytes

            assertThat(content.length()).isLessThan(MIB);
            assertThatThrownBy(() -> Validation.requireConfigContent(content))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("but was '1048578 bytes'");
        }

        @Test
        void acceptsThreeByteCharactersJustUnderTheLimit() {
            String content = "€".repeat(MIB / 3); // 349,525 characters, 1,048,575 bytes

            assertThatCode(() -> Validation.requireConfigContent(content)).doesNotThrowAnyException();
        }

        @Test
        void rejectsThreeByteCharactersOverTheLimit() {
            String content = "€".repeat(MIB / 3 + 1); // 349,526 characters, 1,048,578 bytes

            assertThatThrownBy(() -> Validation.requireConfigContent(content))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("but was '1048578 bytes'");
        }

        @Test
        void countsASupplementaryCharacterAsFourBytes() {
            String content = "😀".repeat(MIB / 4 + 1); // 524,290 UTF-16 chars, 1,048,580 bytes

            assertThatThrownBy(() -> Validation.requireConfigContent(content))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("but was '1048580 bytes'");
        }

        @Test
        void rejectsNull() {
            assertThatThrownBy(() -> Validation.requireConfigContent(null))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("content must be non-null, but was null");
        }
    }

    @Nested
    class Show {
        @Test
        void showsNullAsNull() {
            assertThat(Validation.show(null)).isEqualTo("null");
        }

        @Test
        void quotesText() {
            assertThat(Validation.show("orders")).isEqualTo("'orders'");
            assertThat(Validation.show(new StringBuilder("sb"))).isEqualTo("'sb'");
        }

        @Test
        void showsOtherValuesUnquoted() {
            assertThat(Validation.show(65_536)).isEqualTo("65536");
            assertThat(Validation.show(Duration.ofMillis(999))).isEqualTo("PT0.999S");
        }

        @Test
        void keeps64Characters() {
            String text = "x".repeat(64);

            assertThat(Validation.show(text)).isEqualTo("'" + text + "'");
        }

        @Test
        void escapesWhatCouldForgeALogLineOrDriveATerminal() {
            String text = "a\nINFO forged\r\t\u0000\u001b[31m\u2028\\n\ud800b\ud83d\ude00";

            assertThat(Validation.show(text))
                    .isEqualTo("'a\\nINFO forged\\r\\t\\u0000\\u001b[31m\\u2028\\\\n\\ud800b\ud83d\ude00'");
        }

        @Test
        void escapesARightToLeftOverride() {
            assertThat(Validation.show("a\u202Eb")).isEqualTo("'a\\u202eb'");
        }

        @Test
        void escapesEveryCharacterThatDoesNotShowAsItself() {
            // C1 control, no-break space, zero-width space, word joiner, byte order mark, private use, and a tag
            // character (U+E0041, invisible, written as its surrogate pair)
            String text = "\u0085\u00a0\u200b\u2060\ufeff\ue000\udb40\udc41";

            assertThat(Validation.show(text))
                    .isEqualTo("'\\u0085\\u00a0\\u200b\\u2060\\ufeff\\ue000\\udb40\\udc41'");
        }

        @Test
        void keepsVisibleTextAsItIs() {
            String text = "Zürich 東京 café \ud83d\ude00 ok";

            assertThat(Validation.show(text)).isEqualTo("'" + text + "'");
        }

        @Test
        void escapesARightToLeftOverrideInsideAViolationMessage() {
            assertThatThrownBy(() -> Validation.requireServiceId("evil\u202Egnp.exe"))
                    .hasMessageEndingWith("but was 'evil\\u202egnp.exe'")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\u202E"));
        }

        @Test
        void escapesAMetadataKeyThatNamesTheField() {
            Map<String, String> metadata = new HashMap<>();
            metadata.put("zone\u202E", null);

            assertThatThrownBy(() -> Validation.collector().metadata("metadata", metadata).throwIfInvalid())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("metadata[zone\\u202e] must be non-null")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\u202E"));
        }

        @Test
        void escapesInsideEveryViolationMessage() {
            assertThatThrownBy(() -> Validation.requireServiceId("x\nERROR injected"))
                    .hasMessageEndingWith("but was 'x\\nERROR injected'")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }

        @Test
        void shortensLongerTextAndSaysHowLongItWas() {
            String text = "y".repeat(61) + "TAIL" + "z".repeat(1000);

            assertThat(Validation.show(text)).isEqualTo("'" + "y".repeat(61) + "...(1065 chars)'");
        }

        @Test
        void shortensLongValuesInExceptionMessages() {
            String longId = "s".repeat(200);

            assertThatThrownBy(() -> Validation.requireServiceId(longId))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("but was '" + "s".repeat(61) + "...(200 chars)'")
                    .hasMessageNotContaining(longId);
        }
    }

    @Nested
    class Collecting {
        @Test
        void reportsNothingWhenEveryCheckPasses() {
            Validation.Collector collector = Validation.collector()
                    .serviceId("serviceId", "orders")
                    .port("port", 8080)
                    .weight("weight", 1);

            assertThat(collector.violations()).isEmpty();
            assertThat(collector.throwIfInvalid("result")).isEqualTo("result");
        }

        @Test
        void reportsEveryViolationInTheOrderChecked() {
            Validation.Collector collector = Validation.collector()
                    .port("port", 0)
                    .serviceId("serviceId", "orders")
                    .weight("weight", -1)
                    .notNull("status", null);

            InvalidArgumentException e = InvalidArguments.thrownBy(collector::throwIfInvalid);

            assertThat(e.violations()).containsExactly(
                    new Violation("port", "0", "between 1 and 65535"),
                    new Violation("weight", "-1", "between 0 and 10000"),
                    new Violation("status", "null", "non-null"));
            assertThat(e).hasMessage("port must be between 1 and 65535, but was 0; "
                    + "weight must be between 0 and 10000, but was -1; status must be non-null, but was null");
        }

        @Test
        void violationsAreASnapshotThatCannotBeModified() {
            Validation.Collector collector = Validation.collector().port("port", 0);
            List<Violation> before = collector.violations();

            collector.port("port", -1);

            assertThat(before).hasSize(1);
            assertThat(collector.violations()).hasSize(2);
            assertThatThrownBy(() -> before.add(new Violation("f", "v", "r")))
                    .isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void addRecordsUnconditionallyAndShowsTheValue() {
            List<Violation> violations = Validation.collector().add("mode", "fast", "one of A, B").violations();

            assertThat(violations).containsExactly(new Violation("mode", "'fast'", "one of A, B"));
        }

        @Test
        void checkRecordsOnlyWhenTheRuleIsBroken() {
            List<Violation> violations = Validation.collector()
                    .check(true, "a", 1, "ok")
                    .check(false, "b", 2, "positive")
                    .violations();

            assertThat(violations).containsExactly(new Violation("b", "2", "positive"));
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(longs = {1, 5, 10})
        void rangeAcceptsBothBoundsAndBetween(long value) {
            assertThat(Validation.collector().range("n", value, 1, 10).violations()).isEmpty();
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(longs = {0, 11, Long.MIN_VALUE})
        void rangeRejectsOutside(long value) {
            assertThat(Validation.collector().range("n", value, 1, 10).violations())
                    .containsExactly(new Violation("n", Long.toString(value), "between 1 and 10"));
        }

        @Test
        void positiveAcceptsTheSmallestPositiveDuration() {
            assertThat(Validation.collector().positive("timeout", Duration.ofNanos(1)).violations()).isEmpty();
        }

        @Test
        void positiveRejectsZeroNegativeAndNull() {
            List<Violation> violations = Validation.collector()
                    .positive("a", Duration.ZERO)
                    .positive("b", Duration.ofMillis(-1))
                    .positive("c", null)
                    .violations();

            assertThat(violations).containsExactly(
                    new Violation("a", "PT0S", "positive"),
                    new Violation("b", "PT-0.001S", "positive"),
                    new Violation("c", "null", "positive"));
        }

        @Test
        void ttlRejectsNull() {
            assertThat(Validation.collector().ttl("ttl", null).violations())
                    .containsExactly(new Violation("ttl", "null", "between PT1S and PT24H in whole milliseconds"));
        }
    }

    @Nested
    class RequireNonNull {
        @Test
        void returnsTheValue() {
            Object value = new Object();

            assertThat(Validation.requireNonNull("listener", value)).isSameAs(value);
        }

        @Test
        void rejectsNullNamingTheField() {
            assertThatThrownBy(() -> Validation.requireNonNull("listener", null))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("listener must be non-null, but was null");
        }
    }

    /**
     * The host rule is checked by hand (no regex, no URI per call) but promises what the JDK's URI parser takes
     * as the host of {@code http://HOST:1}: compared on 200,000 random strings of the characters that matter.
     */
    @Test
    void aHostWithoutColonsPassesExactlyWhenTheJdksUriParserFindsItsHost() {
        Random random = new Random(17);
        String alphabet = "a1Z9.-0_2";
        for (int n = 0; n < 200_000; n++) {
            StringBuilder host = new StringBuilder();
            int length = 1 + random.nextInt(12);
            for (int i = 0; i < length; i++) {
                host.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String value = host.toString();
            boolean jdk;
            try {
                jdk = value.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '.' || c == '-')
                        && new URI("http://" + value + ":1").getHost() != null;
            } catch (URISyntaxException e) {
                jdk = false;
            }
            boolean ours = Validation.collector().host("host", value).violations().isEmpty();
            assertThat(ours).as(value).isEqualTo(jdk);
        }
        for (String value : List.of("10.0.0.7", "255.255.255.255", "256.1.1.1", "999.1.1.1", "1.2.3", "1.2.3.4.",
                "0001.2.3.4", "123", "123.", "a.b-c.d", "a..b", "-a", "a-", "a.1b", "1a.b2", "localhost.")) {
            boolean jdk;
            try {
                jdk = new URI("http://" + value + ":1").getHost() != null;
            } catch (URISyntaxException e) {
                jdk = false;
            }
            assertThat(Validation.collector().host("host", value).violations().isEmpty()).as(value).isEqualTo(jdk);
        }
    }
}
