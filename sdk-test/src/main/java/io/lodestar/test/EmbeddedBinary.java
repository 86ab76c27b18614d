package io.lodestar.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code redis-server} executables shipped as resources in the {@code org.signal:embedded-redis} jar
 * ({@code redis-server-7.0.15-linux-amd64}, {@code …-linux-arm64}, {@code …-linux-386}, {@code …-darwin-amd64},
 * {@code …-darwin-arm64}; statically linked). The kit uses only these resources, not the library's classes.
 */
final class EmbeddedBinary {

    /** A class that marks the embedded-redis jar on the class path. */
    static final String MARKER_CLASS = "redis/embedded/Redis.class";

    /** The version shipped in embedded-redis 0.9.1, tried when the jar cannot be listed. */
    private static final String KNOWN_VERSION = "7.0.15";

    private static final Pattern RESOURCE = Pattern.compile("redis-server-(\\d+\\.\\d+\\.\\d+)-([a-z]+)-([a-z0-9]+)");

    private static Path extracted;

    private EmbeddedBinary() {
    }

    /** The resource suffix for this machine ({@code linux-amd64}), or empty where embedded-redis has none. */
    static Optional<String> platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        String osPart;
        if (os.contains("linux")) {
            osPart = "linux";
        } else if (os.contains("mac") || os.contains("darwin")) {
            osPart = "darwin";
        } else {
            return Optional.empty();
        }
        String archPart;
        switch (arch) {
            case "amd64":
            case "x86_64":
                archPart = "amd64";
                break;
            case "aarch64":
            case "arm64":
                archPart = "arm64";
                break;
            case "x86":
            case "i386":
            case "i486":
            case "i586":
            case "i686":
                archPart = "386";
                break;
            default:
                return Optional.empty();
        }
        if (osPart.equals("darwin") && archPart.equals("386")) {
            return Optional.empty();
        }
        return Optional.of(osPart + "-" + archPart);
    }

    /**
     * Finds the resource for this platform and extracts it once per JVM to a private temporary directory that
     * is deleted at JVM exit.
     *
     * @param notes receives why nothing was found
     * @return the executable, or empty (with a note) if the jar is absent or has no binary for this platform
     * @throws UncheckedIOException if extracting fails
     */
    static synchronized Optional<Path> extract(ClassLoader loader, StringBuilder notes) {
        URL marker = loader.getResource(MARKER_CLASS);
        if (marker == null) {
            notes.append("org.signal:embedded-redis is not on the class path");
            return Optional.empty();
        }
        if (extracted != null && Files.isExecutable(extracted)) {
            return Optional.of(extracted);
        }
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        Optional<String> platform = platform(os, arch);
        if (platform.isEmpty()) {
            notes.append("org.signal:embedded-redis has no redis-server for ").append(os).append('/').append(arch)
                    .append(" (it ships linux and darwin, amd64 and arm64, and linux-386)");
            return Optional.empty();
        }
        List<String> names = resourceNames(marker);
        String resource = names.stream()
                .map(RESOURCE::matcher)
                .filter(Matcher::matches)
                .filter(m -> (m.group(2) + "-" + m.group(3)).equals(platform.get()))
                .max(Comparator.comparing(m -> RedisVersion.parse(m.group(1))))
                .map(Matcher::group)
                .orElse("redis-server-" + KNOWN_VERSION + "-" + platform.get());
        URL url = loader.getResource(resource);
        if (url == null) {
            notes.append("org.signal:embedded-redis has no resource ").append(resource)
                    .append(names.isEmpty() ? "" : " (it has " + names + ")");
            return Optional.empty();
        }
        try {
            Path dir = Files.createTempDirectory("lodestar-redis-bin-");
            Reaper.deleteAtExit(dir);
            Path target = dir.resolve(resource);
            try (InputStream in = url.openStream()) {
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
            if (!target.toFile().setExecutable(true, true)) {
                throw new IOException("cannot make " + target + " executable");
            }
            extracted = target;
            return Optional.of(target);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract " + resource + " from org.signal:embedded-redis", e);
        }
    }

    /** Lists the {@code redis-server-*} entries of the jar holding the marker class; empty if not a jar. */
    private static List<String> resourceNames(URL marker) {
        List<String> names = new ArrayList<>();
        try {
            URLConnection connection = marker.openConnection();
            if (connection instanceof JarURLConnection jar) {
                jar.setUseCaches(false);
                try (JarFile file = jar.getJarFile()) {
                    Enumeration<JarEntry> entries = file.entries();
                    while (entries.hasMoreElements()) {
                        String name = entries.nextElement().getName();
                        if (RESOURCE.matcher(name).matches()) {
                            names.add(name);
                        }
                    }
                }
            }
        } catch (IOException e) {
            // Fall back to the known resource name.
        }
        return names;
    }
}
