package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real {@code srdnic dataplane} process and the files it leaves, as an operator and a local
 * attacker see them: its run directory, pid file, control socket, counters files and memif socket
 * have the stated modes under umask 000 and 077; a run directory others may write in is refused
 * before anything starts; after kill -9 the next dataplane on the same directory sweeps what the
 * dead one left (its counters files, its client's shared file, EAL's runtime directory, its memif
 * socket) and starts. Root: EAL's runtime directory is under /var/run/dpdk, the socket's group is
 * set to nobody's (CI runs as root).
 */
class DataplaneFilesIT {
    private static final int NOBODY = 65534;

    @ParameterizedTest
    @ValueSource(strings = {"000", "077"})
    void shouldGiveItsFilesTheStatedModesWhateverTheUmask(String umask, @TempDir Path tmp) throws Exception {
        assumeTrue(CliRun.root(), "setting a socket's group to nobody's needs root");
        Path dir = tmp.resolve("run");
        try (Plane plane = Plane.start(umask, tmp.resolve("log"), "--port", "net_memif0,role=server", "--dir", dir.toString(),
            "--group", Integer.toString(NOBODY), "--shm-dir", tmp.toString())) {
            plane.awaitReady();
            assertEquals("rwxr-xr-x", mode(dir), "the run directory, made");
            assertEquals("rw-r--r--", mode(dir.resolve("dataplane.pid")));
            assertEquals("rw-rw----", mode(dir.resolve("control.sock")));
            assertEquals(NOBODY, (int) (Integer) Files.getAttribute(dir.resolve("control.sock"), "unix:gid", LinkOption.NOFOLLOW_LINKS));
            List<Path> counters = counters(dir);
            assertTrue(counters.size() >= 3, "the port's, the attach server's and the lcore's: " + counters);
            for (Path c : counters) {
                assertEquals("rw-r-----", mode(c), c.toString());
            }
            Path memif = dir.resolve("net_memif0.sock");
            assertEquals("rw-rw----", mode(memif), "the memif socket: a file in the run directory, not abstract");
            assertTrue(Files.readString(Path.of("/proc/net/unix")).contains(" " + memif + "\n"),
                    "bound by path (an abstract one shows as @...)");
        }
    }

    @Test
    void shouldRefuseARunDirectoryOthersMayWriteIn(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (Plane plane = Plane.start("022", tmp.resolve("log"), "--port", "net_memif0,role=server", "--dir", dir.toString())) {
            assertNotEquals(0, plane.exitStatus(60));
            assertTrue(plane.log().contains("group or others may write in it"), plane.log());
            assertFalse(Files.exists(dir.resolve("dataplane.pid")), "nothing written in it");
        }
    }

    @Test
    void shouldSweepWhatAKilledDataplaneLeftAtTheNextStart(@TempDir Path tmp) throws Exception {
        assumeTrue(CliRun.root(), "EAL's runtime directory is under /var/run/dpdk for root");
        Path dir = tmp.resolve("run");
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        String[] args = {"--port", "net_memif0,role=server", "--dir", dir.toString(), "--shm-dir", shm.toString()};
        long dead;
        try (Plane first = Plane.start("022", tmp.resolve("log1"), args)) {
            first.awaitReady();
            dead = first.pid();
            try (Context client = Context.open(Device.attached(dir))) {
                client.allocPd();
                assertEquals(1, shmFiles(shm, dead).size(), "the client's shared file");
                first.kill();
            }
        }
        Path eal = Path.of("/var/run/dpdk/srdnic-" + dead);
        assertTrue(Files.exists(eal), "EAL's runtime directory, left by kill -9");
        assertFalse(counters(dir).isEmpty(), "its counters files, left");
        assertEquals(1, shmFiles(shm, dead).size(), "its client's shared file, left");
        assertTrue(Files.exists(dir.resolve("net_memif0.sock")), "its memif socket, left");
        try (Plane second = Plane.start("022", tmp.resolve("log2"), args)) {
            second.awaitReady(); // the stale memif socket would have failed the port's start (memif binds without unlinking)
            assertFalse(Files.exists(eal), "EAL's runtime directory of the dead pid, swept");
            assertTrue(counters(dir).stream().noneMatch(p -> p.getFileName().toString().startsWith(dead + "-")),
                "its counters files, swept: " + counters(dir));
            assertEquals(0, shmFiles(shm, dead).size(), "its client's shared file, swept");
            assertEquals(second.pid() + "\n", Files.readString(dir.resolve("dataplane.pid")));
            assertTrue(second.log().contains("took over"), second.log()); // the stale pid file is taken over, not removed
        }
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static List<Path> counters(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".counters")).toList();
        }
    }

    private static List<Path> shmFiles(Path shm, long pid) throws IOException {
        try (Stream<Path> s = Files.list(shm)) {
            return s.filter(p -> p.getFileName().toString().startsWith("srdnic-" + pid + "-")).toList();
        }
    }

    /** {@code srdnic dataplane ARGS} in a new JVM started under {@code umask}, its stderr in {@code log}. */
    record Plane(Process process, Path logFile, BufferedReader out) implements AutoCloseable {
        static Plane start(String umask, Path log, String... args) throws IOException {
            return startWith(List.of(), umask, log, args);
        }

        /** As {@link #start}, with {@code jvmOptions} for the dataplane's JVM. */
        static Plane startWith(List<String> jvmOptions, String umask, Path log, String... args) throws IOException {
            List<String> command = new ArrayList<>(List.of("sh", "-c", "umask " + umask + " && exec \"$0\" \"$@\"",
                System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx512m"));
            command.addAll(jvmOptions);
            command.addAll(List.of("-cp", System.getProperty("srdnic.jar", System.getProperty("java.class.path")), "io.srdnic.cli.Srdnic",
                "dataplane"));
            command.addAll(List.of(args));
            Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
            return new Plane(p, log, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
        }

        long pid() {
            return process.pid();
        }

        void awaitReady() throws IOException {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.equals("ready")) {
                    return;
                }
            }
            throw new AssertionError("the dataplane ended before it was ready:\n" + log());
        }

        int exitStatus(int seconds) throws InterruptedException {
            assertTrue(process.waitFor(seconds, TimeUnit.SECONDS), "ended within " + seconds + " s");
            return process.exitValue();
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor();
        }

        String log() {
            try {
                return Files.readString(logFile);
            } catch (IOException e) {
                return e.toString();
            }
        }

        @Override
        public void close() throws Exception {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }
}
