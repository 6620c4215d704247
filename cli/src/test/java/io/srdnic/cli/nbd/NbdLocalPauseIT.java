package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Liveness that a pause cannot fake: fio crc32c verify through {@code srdnic nbd-local} while the
 * RNBD server process is stopped (SIGSTOP for 2 s, then SIGCONT) or held at a JVM safepoint (a
 * heap dump: every Java thread stopped, as in a long GC pause). Neither may cost an IO error or a
 * path: the RC retry limits and heartbeats are seconds. Then the proof the issue asks for: path 0
 * taken down and up twice under fio verify on a machine kept busy by a CPU hog on both cores.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NbdLocalPauseIT {
    @TempDir
    Path dir;

    private NbdServerProcess start(String size) throws IOException {
        Path socket = dir.resolve("nbd.sock");
        return NbdServerProcess.startCommand("nbd-local", socket, dir.resolve("nbd-local.err"), "--socket", socket.toString(), "--size",
            size, "--paths", "2");
    }

    private Process fio(NbdServerProcess server, Path out, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("fio", "--name=verify", "--ioengine=nbd", "--uri=" + server.uri("disk"),
            "--rw=randwrite", "--bs=4k", "--iodepth=32", "--verify=crc32c", "--do_verify=1", "--verify_fatal=1", "--verify_state_save=0",
            "--output-format=json"));
        args.addAll(List.of(extra));
        return new ProcessBuilder(args).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    /** fio ended within the time, exit 0, every job's error 0; returns the report. */
    private static String assertClean(Process fio, Path out, int seconds) throws Exception {
        assertTrue(fio.waitFor(seconds, TimeUnit.SECONDS), "fio finished");
        String report = Files.readString(out);
        assertEquals(0, fio.exitValue(), report);
        Matcher error = Pattern.compile("\"error\"\\s*:\\s*(\\d+)").matcher(report);
        int jobs = 0;
        while (error.find()) {
            assertEquals(0, Long.parseLong(error.group(1)), "zero errors: " + report);
            jobs++;
        }
        assertTrue(jobs > 0, report);
        return report;
    }

    private String srdnic(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-jar", System.getProperty("srdnic.jar")));
        command.addAll(List.of(args));
        return Tools.run(dir, 30, command.toArray(String[]::new));
    }


    private static void signal(ProcessHandle p, String signal) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor());
    }

    @Test
    void fioVerifyShouldRideThroughATwoSecondSigstopOfTheServerWithoutAnError() throws Exception {
        Tools.require("fio");
        try (NbdServerProcess server = start("64M")) {
            ProcessHandle child = NbdLocalSupervisionIT.serverChild(server.process);
            Path out = dir.resolve("fio.json");
            Process fio = fio(server, out, "--size=32m", "--loops=1000000", "--runtime=20"); // passes back to back until then
            Thread.sleep(1500);
            assertTrue(fio.isAlive(), "fio still writing when the server stops: " + Files.readString(out));
            signal(child, "STOP");
            Thread.sleep(2000);
            signal(child, "CONT");
            assertTrue(fio.isAlive(), "fio still writing when the server resumes: " + Files.readString(out));
            assertClean(fio, out, 180);
            String stats = srdnic("rtrs", "stats", "--socket", server.socket.toString(), "--json");
            assertEquals(0, Tools.sum(stats, "failovers") + Tools.sum(stats, "reconnects_ok") + Tools.sum(stats, "reconnects_failed"),
                "no path was given up: " + stats);
            assertEquals(2, stats.split("\"state\":\"CONNECTED\"", -1).length - 1, stats);
            assertFalse(NbdServerProcess.read(dir.resolve("nbd-local.err")).contains("disconnected"),
                NbdServerProcess.read(dir.resolve("nbd-local.err")));
        }
    }

    /**
     * A long stop-the-world pause of the server's JVM, forced: {@code jcmd GC.heap_dump -gz=L} holds
     * every Java thread at a safepoint for as long as it compresses the heap (-Xlog:safepoint says
     * how long). Level 7 held this server (a 64 MiB device on its heap) ~1.9 s; the level rises until
     * one pause lasted at least 1.5 s, three times the old ~0.5 s give-up.
     */
    @Test
    void fioVerifyShouldRideThroughALongStopTheWorldPauseOfTheServersJvm() throws Exception {
        Tools.require("fio");
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        assertTrue(Files.isExecutable(jcmd), "the JDK's jcmd");
        Path safepoints = dir.resolve("safepoint.log");
        Path socket = dir.resolve("nbd.sock");
        try (NbdServerProcess server = NbdServerProcess.startWith(Map.of("SRDNIC_PEER_JAVA_OPTS", "-Xlog:safepoint:file="
            + safepoints), null, List.of(), "nbd-local", socket, dir.resolve("nbd-local.err"), "--socket", socket.toString(),
                    "--size", "64M",
            "--paths", "2")) {
            ProcessHandle child = NbdLocalSupervisionIT.serverChild(server.process);
            Path out = dir.resolve("fio.json");
            Process fio = fio(server, out, "--size=32m", "--loops=1000000", "--runtime=60"); // passes back to back until then
            Thread.sleep(1500);
            long longest = 0;
            for (int level = 7; level <= 9 && longest < 1_500_000_000L; level++) {
                assertTrue(fio.isAlive(), "fio still writing when the pause comes: " + Files.readString(out));
                Path dump = dir.resolve("heap.hprof.gz");
                Tools.run(dir, 120, jcmd.toString(), Long.toString(child.pid()), "GC.heap_dump", "-gz=" + level, dump.toString());
                Files.deleteIfExists(dump);
                longest = Math.max(longest, longestHeapDumpSafepoint(safepoints));
                System.out.println("heap dump at gz level " + level + ": the server's JVM held at a safepoint for up to "
                        + longest / 1_000_000
                    + " ms");
            }
            assertTrue(longest >= 1_500_000_000L, "a pause of at least 1.5 s was forced: " + longest / 1_000_000 + " ms");
            assertTrue(fio.isAlive(), "fio still writing after the last pause: " + Files.readString(out));
            assertClean(fio, out, 180);
            String stats = srdnic("rtrs", "stats", "--socket", server.socket.toString(), "--json");
            assertEquals(0, Tools.sum(stats, "failovers") + Tools.sum(stats, "reconnects_failed"), "no path was given up: " + stats);
        }
    }

    /** The longest "HeapDumper" safepoint in a -Xlog:safepoint file, in ns. */
    private static long longestHeapDumpSafepoint(Path log) throws IOException {
        Matcher m = Pattern.compile("Safepoint \"HeapDumper\".*At safepoint: (\\d+) ns").matcher(Files.readString(log));
        long longest = 0;
        while (m.find()) {
            longest = Math.max(longest, Long.parseLong(m.group(1)));
        }
        return longest;
    }

    /**
     * The proof: fio crc32c verify through nbd-local while path 0 is taken down (its port stopped,
     * 12 s: longer than RC's ~8.6 s retry limit, so its IO really fails over) and up twice, on a
     * machine kept busy by a spinning process per core. fio runs back to back until the flaps are
     * over; every run must end clean. This is the short form for CI (~60 s); scripts/nbd-flap-proof
     * is the long one (iodepth 128, numjobs 4, larger devices). The proof.* system properties
     * (iodepth, numjobs, size per job, device, backing, downMs) change this one's shape.
     */
    @Test
    void fioVerifyShouldBeCleanWithPath0FlappedTwiceUnderACpuHogOnBothCores() throws Exception {
        Tools.require("fio");
        String iodepth = System.getProperty("proof.iodepth", "32");
        String numjobs = System.getProperty("proof.numjobs", "1");
        String size = System.getProperty("proof.size", "16m");
        long downMs = Long.getLong("proof.downMs", 12_000);
        List<String> args = new ArrayList<>(List.of("--socket", dir.resolve("nbd.sock").toString(), "--size",
            System.getProperty("proof.device", "64M"), "--paths", "2"));
        if (System.getProperty("proof.backing") != null) {
            args.addAll(List.of("--backing", System.getProperty("proof.backing")));
        }
        List<Process> hogs = new ArrayList<>();
        try (NbdServerProcess server = NbdServerProcess.startCommand("nbd-local", dir.resolve("nbd.sock"), dir.resolve("nbd-local.err"),
            args.toArray(String[]::new))) {
            int cores = Runtime.getRuntime().availableProcessors();
            for (int i = 0; i < cores; i++) {
                hogs.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
            }
            String socket = server.socket.toString();
            List<String> schedule = new CopyOnWriteArrayList<>();
            Thread flaps = Thread.ofPlatform().start(() -> {
                try {
                    for (int round = 0; round < 2; round++) {
                        Thread.sleep(3000);
                        schedule.add(srdnic("rtrs", "path", "--socket", socket, "--down", "0").strip());
                        Thread.sleep(downMs);
                        schedule.add(srdnic("rtrs", "path", "--socket", socket, "--up", "0").strip());
                    }
                    Thread.sleep(3000);
                } catch (Exception e) {
                    schedule.add("error: " + e);
                }
            });
            int runs = 0;
            long ios = 0;
            while (flaps.isAlive() || runs == 0) {
                Path out = dir.resolve("fio-" + runs + ".json");
                Process fio = fio(server, out, "--size=" + size, "--offset_increment=" + size, "--iodepth=" + iodepth, "--numjobs="
                    + numjobs, "--group_reporting=1", "--runtime=600"); // each job verifies its own region
                String report = assertClean(fio, out, 900);
                Matcher written = Pattern.compile("\"total_ios\"\\s*:\\s*(\\d+)").matcher(report);
                while (written.find()) {
                    ios += Long.parseLong(written.group(1));
                }
                runs++;
            }
            flaps.join();
            assertEquals(List.of("path 0 (net_memif0) down", "path 0 (net_memif0) up", "path 0 (net_memif0) down",
                    "path 0 (net_memif0) up"),
                schedule);
            String stats = srdnic("rtrs", "stats", "--socket", socket, "--json");
            String err = NbdServerProcess.read(dir.resolve("nbd-local.err"));
            System.out.println("proof: " + runs + " clean fio verify runs (iodepth " + iodepth + ", numjobs " + numjobs + ", " + size
                + " per job), " + ios + " IOs, path 0 down " + downMs + " ms twice, " + cores + " CPU hogs; stats " + stats);
            assertTrue(Tools.sum(stats, "failovers") > 0, "path 0's in-flight IO failed over: " + stats + "\n" + err);
            assertTrue(Pattern.compile("path 0 \\(to 10\\.0\\.0\\.1\\): disconnected: (RDMA failed: RETRY_EXCEEDED_ERROR|HB missed max "
                    + "reached)")
                .matcher(err).find(), err);
            assertTrue(err.contains("path 0 (to 10.0.0.1): failover of "), err);
            assertTrue(err.contains("path 0 (to 10.0.0.1): reconnecting (attempt "), err);
            assertTrue(err.contains("path 0 (to 10.0.0.1): reconnected after "), err);
            long end = System.currentTimeMillis() + 30_000;
            while (!stats.contains("\"path\":0,\"port\":\"net_memif0\",\"state\":\"CONNECTED\"") && System.currentTimeMillis() < end) {
                Thread.sleep(500);
                stats = srdnic("rtrs", "stats", "--socket", socket, "--json");
            }
            assertTrue(stats.contains("\"path\":0,\"port\":\"net_memif0\",\"state\":\"CONNECTED\""), "path 0 reconnected: " + stats);
        } finally {
            for (Process h : hogs) {
                h.destroyForcibly().waitFor();
            }
        }
    }
}
