package io.lodestar.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Closes everything the kit started when the JVM exits, newest first, so no {@code redis-server} outlives the
 * test JVM and no data directory is left behind. (A SIGKILLed JVM runs no hook: each process has its own
 * watchdog for that, see {@link ManagedRedisServer}.)
 */
final class Reaper {

    private static final Set<AutoCloseable> OPEN = new LinkedHashSet<>();
    private static boolean hookInstalled;

    private Reaper() {
    }

    /** Closes {@code resource} at JVM exit unless it was {@linkplain #forget forgotten} before. */
    static void closeAtExit(AutoCloseable resource) {
        synchronized (OPEN) {
            if (!hookInstalled) {
                Runtime.getRuntime().addShutdownHook(new Thread(Reaper::closeAll, "lodestar-test-reaper"));
                hookInstalled = true;
            }
            OPEN.add(resource);
        }
    }

    /** Deletes {@code dir} (recursively) at JVM exit unless it was forgotten before. */
    static AutoCloseable deleteAtExit(Path dir) {
        AutoCloseable deletion = new AutoCloseable() {
            @Override
            public void close() {
                deleteRecursively(dir);
            }

            @Override
            public String toString() {
                return "delete " + dir;
            }
        };
        closeAtExit(deletion);
        return deletion;
    }

    static void forget(AutoCloseable resource) {
        synchronized (OPEN) {
            OPEN.remove(resource);
        }
    }

    private static void closeAll() {
        List<AutoCloseable> all;
        synchronized (OPEN) {
            all = new ArrayList<>(OPEN);
            OPEN.clear();
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (Exception e) {
                System.err.println("[lodestar-test] could not close " + all.get(i) + " at exit: " + e);
            }
        }
    }

    /**
     * Deletes a directory tree; a missing directory is fine.
     *
     * @throws UncheckedIOException if something in it cannot be deleted
     */
    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null && !(e instanceof NoSuchFileException)) {
                        throw e;
                    }
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException ignored) {
            // Already gone.
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + dir, e);
        }
    }
}
