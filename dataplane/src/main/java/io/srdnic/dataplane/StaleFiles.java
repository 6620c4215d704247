package io.srdnic.dataplane;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.srd.counters.CountersLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What dataplanes killed before they could clean up left behind, swept at start (with DIR's pid
 * lock held, so no live dataplane owns DIR): each file is named by its writer's pid, and is removed
 * only when that pid is verifiably dead (no such process) and the file is this uid's — a pid that
 * is running again (reused) keeps its files, a file of another uid is not ours to judge.
 * <ul>
 * <li>counters files {@code DIR/<pid>-*.counters} (and their half-made {@code .tmp-<pid>} copies) and res files {@code DIR/<pid>-*.res};
 * <li>clients' shared files {@code SHM_DIR/srdnic-<pid>-<client>} (gone from /dev/shm they free its memory);
 * <li>EAL's runtime directory {@code /var/run/dpdk/srdnic-<pid>} (the dataplane's file prefix);
 * <li>the control sockets of lcores this dataplane does not run ({@code DIR/lcore-k}, k ≥ lcores):
 * sockets carry no pid, but DIR's lock proves their dataplane gone. Lcores it runs replace theirs.
 * </ul>
 */
final class StaleFiles {
    private static final System.Logger LOG = System.getLogger(StaleFiles.class.getName());
    private static final Pattern COUNTERS = Pattern.compile("(\\d+)-.*(" + Pattern.quote(CountersLayout.FILE_SUFFIX)
            + "(\\.tmp-\\d+)?|\\.res(\\.tmp)?)");
    private static final Pattern SHM = Pattern.compile("srdnic-(\\d+)-\\d+");
    private static final Pattern EAL = Pattern.compile("srdnic-(\\d+)");
    private static final Pattern LCORE = Pattern.compile("lcore-(\\d+)");
    /** Where EAL keeps its runtime directories when run as root (as the dataplane is on a NIC host). */
    static final Path EAL_RUNTIME = Path.of("/var/run/dpdk");

    private StaleFiles() {
    }

    /** Sweeps DIR, SHM_DIR (when given) and {@code ealRuntime}; returns what it removed (each also logged). */
    static List<Path> sweep(Path dir, Path shmDir, Path ealRuntime, int lcores) {
        List<Path> removed = new ArrayList<>();
        for (Path f : list(dir)) {
            String name = f.getFileName().toString();
            Matcher m = COUNTERS.matcher(name);
            if (m.matches() && deadAndOurs(f, m.group(1))) {
                remove(f, removed);
            }
            Matcher l = LCORE.matcher(name);
            if (l.matches() && Integer.parseInt(l.group(1)) >= lcores && Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
                remove(f.resolve(AttachServer.SOCKET), removed);
            }
        }
        for (Path f : shmDir == null ? List.<Path>of() : list(shmDir)) { // null: clients' memory is sealed memfds, no files to sweep
            Matcher m = SHM.matcher(f.getFileName().toString());
            if (m.matches() && deadAndOurs(f, m.group(1))) {
                remove(f, removed);
            }
        }
        for (Path d : list(ealRuntime)) {
            Matcher m = EAL.matcher(d.getFileName().toString());
            if (m.matches() && deadAndOurs(d, m.group(1))) {
                removeTree(d, removed);
            }
        }
        return removed;
    }

    /** Whether process {@code pid} no longer exists and {@code f} (not followed) belongs to this uid. */
    static boolean deadAndOurs(Path f, String pid) {
        long p;
        try {
            p = Long.parseLong(pid);
        } catch (NumberFormatException e) {
            return false;
        }
        if (p == ProcessHandle.current().pid() || ProcessHandle.of(p).isPresent()) {
            return false;
        }
        try {
            return (Integer) Files.getAttribute(f, "unix:uid", LinkOption.NOFOLLOW_LINKS) == AllowRule.ownUid();
        } catch (IOException e) {
            return false;
        }
    }

    /** The entries of {@code dir}; none when it is null (no --shm-dir: sealed memfds, nothing left behind to sweep). */
    private static List<Path> list(Path dir) {
        List<Path> out = new ArrayList<>();
        if (dir == null) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(out::add);
        } catch (NoSuchFileException e) {
            return out;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot list {0} to sweep stale files: {1}", dir, e.getMessage());
        }
        return out;
    }

    private static void remove(Path f, List<Path> removed) {
        try {
            if (Files.deleteIfExists(f)) {
                removed.add(f);
                LOG.log(System.Logger.Level.INFO, "removed {0}, left by a dataplane that is gone", f);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot remove the stale {0}: {1}", f, e.getMessage());
        }
    }

    private static void removeTree(Path d, List<Path> removed) {
        try (Stream<Path> walk = Files.walk(d)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
            removed.add(d);
            LOG.log(System.Logger.Level.INFO, "removed EAL's runtime directory {0}, left by a process that is gone", d);
        } catch (IOException | UncheckedIOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot remove the stale {0}: {1}", d, e.getMessage());
        }
    }
}
