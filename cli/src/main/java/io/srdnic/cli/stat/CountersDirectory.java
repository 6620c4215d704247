package io.srdnic.cli.stat;

import io.srdnic.srd.counters.Counter;
import io.srdnic.srd.counters.CountersLayout;
import io.srdnic.srd.counters.CountersReader;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The counters files in a directory, read afresh each time: a file that appears is picked up, one
 * that goes is dropped, one whose writer's process is gone is skipped, or with {@code all} shown
 * stale or closed (its last values stay readable).
 */
final class CountersDirectory {
    /** One file as read now: who writes it, whether it still does, and its counters (those the filter kept). */
    record FileSnapshot(String name, long pid, String writer, String status, long heartbeatAgeMillis, long refused, List<Counter> counters,
                        boolean writerRunning) {
    }

    private final Path dir;
    private final Pattern filter;
    private final boolean all;

    /** {@code filter} (null: everything) is searched for in each counter's label; only files whose writer still runs. */
    CountersDirectory(Path dir, Pattern filter) {
        this(dir, filter, false);
    }

    /** As above; {@code all}: the files of writers that are gone too (a killed dataplane's last counts, a finished run's final ones). */
    CountersDirectory(Path dir, Pattern filter, boolean all) {
        this.dir = dir;
        this.filter = filter;
        this.all = all;
    }

    Path dir() {
        return dir;
    }

    boolean exists() {
        return Files.isDirectory(dir);
    }

    /** Every counters file now, by name; none when the directory does not exist. */
    List<FileSnapshot> read() {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(dir, "*" + CountersLayout.FILE_SUFFIX)) {
            listing.forEach(files::add);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + dir + ": " + e.getMessage(), e);
        }
        files.sort(null);
        List<FileSnapshot> out = new ArrayList<>();
        for (Path file : files) {
            Optional<CountersReader> opened = CountersReader.open(file); // empty: gone meanwhile, or not finished
            if (opened.isEmpty()) {
                continue;
            }
            try (CountersReader r = opened.get()) {
                if (!all && !r.writerRunning()) {
                    continue; // a dead writer's file: not what is running now (--all shows it)
                }
                List<Counter> counters = r.counters().stream().filter(c -> filter == null || filter.matcher(c.label()).find()).toList();
                long age = Math.max(0, System.currentTimeMillis() - r.heartbeatMillis()); // now, not when the listing began
                out.add(new FileSnapshot(file.getFileName().toString(), r.pid(), r.writerName(), r.status(), age, r.refused(), counters,
                    r.writerRunning()));
            }
        }
        return out;
    }
}
