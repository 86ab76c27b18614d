package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The console's small HTTP vocabulary: query parameters, JSON bodies in and out, error bodies. */
final class Http {
    /** A write's body is a config's content at most: a megabyte is far above any config. */
    private static final int MAX_BODY = 1 << 20;

    private Http() {
    }

    static Map<String, String> query(URI uri) {
        Map<String, String> query = new LinkedHashMap<>();
        String raw = uri.getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                query.put(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return query;
    }

    /** @throws IllegalArgumentException when the parameter is absent or empty */
    static String required(Map<String, String> query, String name) {
        String value = query.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("the query parameter " + name + " is required");
        }
        return value;
    }

    /** @throws IllegalArgumentException when the body is not declared as JSON */
    static JsonNode body(HttpExchange exchange) throws IOException {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.startsWith("application/json")) {
            throw new IllegalArgumentException("Content-Type must be application/json");
        }
        try (InputStream in = exchange.getRequestBody()) {
            return Output.Mappers.JSON.readTree(in.readNBytes(MAX_BODY));
        }
    }

    /** @throws IllegalArgumentException when the field is absent or not a string */
    static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return value.asText();
    }

    /**
     * An object of strings; absent means empty.
     *
     * @throws IllegalArgumentException naming the field when it is not an object of strings
     */
    static Map<String, String> strings(JsonNode body, String field) {
        JsonNode value = body.get(field);
        Map<String, String> strings = new LinkedHashMap<>();
        if (value == null || value.isNull()) {
            return strings;
        }
        if (!value.isObject()) {
            throw new IllegalArgumentException(field + " must be an object of strings, but was " + value);
        }
        value.properties().forEach(entry -> {
            if (!entry.getValue().isTextual()) {
                throw new IllegalArgumentException(field + "." + entry.getKey() + " must be a string, but was "
                        + entry.getValue());
            }
            strings.put(entry.getKey(), entry.getValue().asText());
        });
        return strings;
    }

    /**
     * An array of strings; absent means empty.
     *
     * @throws IllegalArgumentException naming the field when it is not an array of strings
     */
    static List<String> stringList(JsonNode body, String field) {
        JsonNode value = body.get(field);
        List<String> strings = new ArrayList<>();
        if (value == null || value.isNull()) {
            return strings;
        }
        if (!value.isArray()) {
            throw new IllegalArgumentException(field + " must be an array of strings, but was " + value);
        }
        for (JsonNode item : value) {
            if (!item.isTextual()) {
                throw new IllegalArgumentException(field + " must hold strings only, but held " + item);
            }
            strings.add(item.asText());
        }
        return strings;
    }

    static Map<String, Object> error(String code, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code);
        body.put("message", message);
        return body;
    }

    static void reply(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] bytes = Output.Mappers.JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
