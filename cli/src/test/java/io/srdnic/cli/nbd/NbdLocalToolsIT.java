package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole stack, driven by tools nobody here wrote: {@code srdnic nbd-local} with two paths (an
 * RNBD server in a second process, RTRS over two memif links, the NBD gateway here), then nbdinfo,
 * nbdcopy, qemu-img and fio against its socket, with paths taken down for real by
 * {@code srdnic rtrs path}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NbdLocalToolsIT {
    @TempDir
    Path dir;

    private NbdServerProcess start(String size, String... extra) throws IOException {
        Path socket = dir.resolve("nbd.sock");
        List<String> args = new ArrayList<>(List.of("--socket", socket.toString(), "--size", size, "--paths", "2"));
        args.addAll(List.of(extra));
        return NbdServerProcess.startCommand("nbd-local", socket, dir.resolve("nbd-local.err"), args.toArray(String[]::new));
    }

    private String srdnic(int seconds, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-jar", System.getProperty("srdnic.jar")));
        command.addAll(List.of(args));
        return Tools.run(dir, seconds, command.toArray(String[]::new));
    }



    @Test
    void nbdinfoNbdcopyAndQemuImgShouldRunUnmodifiedThroughTwoPathsBitIdentical() throws Exception {
        Tools.require("nbdinfo");
        Tools.require("nbdcopy");
        Tools.require("qemu-img");
        Path source = Tools.randomImage(dir, "source.img", 24 << 20, 1);
        Path raw = Tools.randomImage(dir, "disk.raw", 32 << 20, 3);
        Path qcow2 = dir.resolve("disk.qcow2");
        Tools.run(dir, 60, "qemu-img", "convert", "-f", "raw", "-O", "qcow2", raw.toString(), qcow2.toString());
        try (NbdServerProcess server = start("32M")) {
            String json = Tools.run(dir, 30, "nbdinfo", "--json", server.uri("disk"));
            Matcher size = Pattern.compile("\"export-size\"\\s*:\\s*(\\d+)").matcher(json);
            assertTrue(size.find(), json);
            assertEquals(32L << 20, Long.parseLong(size.group(1)));
            Path back = dir.resolve("back.img");
            Tools.run(dir, 60, "nbdcopy", "--flush", source.toString(), server.uri("disk"));
            Tools.run(dir, 60, "nbdcopy", server.uri("disk"), back.toString());
            byte[] copied = Files.readAllBytes(back);
            assertArrayEquals(Files.readAllBytes(source), Arrays.copyOf(copied, 24 << 20), "nbdcopy in and out");
            Tools.run(dir, 60, "qemu-img", "convert", "-n", "-f", "qcow2", "-O", "raw", qcow2.toString(), server.uri("disk"));
            Path backRaw = dir.resolve("back.raw");
            Tools.run(dir, 60, "qemu-img", "convert", "-f", "raw", "-O", "raw", server.uri("disk"), backRaw.toString());
            assertArrayEquals(Files.readAllBytes(raw), Files.readAllBytes(backRaw), "qcow2 image -> export -> raw file");
            String stats = srdnic(30, "rtrs", "stats", "--socket", server.socket.toString(), "--json");
            assertEquals(2, stats.split("\"state\":\"CONNECTED\"", -1).length - 1, stats);
            assertTrue(Pattern.compile("\"path\":0[^}]*\"writes\":[1-9]").matcher(stats).find(), "both paths carried IO: " + stats);
            assertTrue(Pattern.compile("\"path\":1[^}]*\"writes\":[1-9]").matcher(stats).find(), "both paths carried IO: " + stats);
        }
    }

    @Test
    void fioVerifyShouldBeCleanWithAPathTakenDownMidRunAndBackUp() throws Exception {
        Tools.require("fio");
        try (NbdServerProcess server = start("64M")) {
            Path out = dir.resolve("fio.json");
            Process fio = new ProcessBuilder("fio", "--name=verify", "--ioengine=nbd", "--uri=" + server.uri("disk"), "--rw=randwrite",
                "--bs=4k", "--size=32m", "--loops=1000000", "--iodepth=32", "--verify=crc32c", "--do_verify=1", "--verify_fatal=1",
                "--runtime=30", // passes back to back until then, however fast one is: IO runs through the whole outage
                "--verify_state_save=0", "--output-format=json").directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
            Thread.sleep(1500);
            assertTrue(fio.isAlive(), "fio still writing when the path goes: " + Files.readString(out));
            assertTrue(srdnic(30, "rtrs", "path", "--socket", server.socket.toString(), "--down", "0").contains("down"));
            Thread.sleep(12_000); // longer than RC's retry limit (~8.6 s): shorter outages are ridden through, not failed over
            srdnic(30, "rtrs", "path", "--socket", server.socket.toString(), "--up", "0");
            assertTrue(fio.isAlive(), "fio still writing when the path comes back: " + Files.readString(out));
            assertTrue(fio.waitFor(180, TimeUnit.SECONDS), "fio finished");
            String report = Files.readString(out);
            assertEquals(0, fio.exitValue(), report);
            Matcher error = Pattern.compile("\"error\"\\s*:\\s*(\\d+)").matcher(report);
            assertTrue(error.find(), report);
            assertEquals(0, Long.parseLong(error.group(1)), "zero verify errors: " + report);
            String stats = srdnic(30, "rtrs", "stats", "--socket", server.socket.toString(), "--json");
            assertTrue(Tools.sum(stats, "failovers") > 0, "in-flight IO failed over: " + stats);
            assertTrue(Tools.sum(stats, "reconnects_failed") > 0, "path 0 was down: " + stats);
            long end = System.currentTimeMillis() + 20_000;
            while (!stats.contains("\"path\":0,\"port\":\"net_memif0\",\"state\":\"CONNECTED\"") && System.currentTimeMillis() < end) {
                Thread.sleep(500);
                stats = srdnic(30, "rtrs", "stats", "--socket", server.socket.toString(), "--json");
            }
            assertTrue(stats.contains("\"path\":0,\"port\":\"net_memif0\",\"state\":\"CONNECTED\""), "path 0 reconnected: " + stats);
        }
    }

    @Test
    void ioShouldFailWithBothPathsDownAndRecoverWhenOneReturns() throws Exception {
        Tools.require("nbdcopy");
        Path source = Tools.randomImage(dir, "small.img", 4 << 20, 5);
        try (NbdServerProcess server = start("8M")) {
            String socket = server.socket.toString();
            srdnic(30, "rtrs", "path", "--socket", socket, "--down", "0");
            srdnic(30, "rtrs", "path", "--socket", socket, "--down", "1");
            Process copy = new ProcessBuilder("nbdcopy", source.toString(), server.uri("disk")).redirectErrorStream(true).start();
            assertTrue(copy.waitFor(60, TimeUnit.SECONDS), "the copy ends, failing: no path is left");
            String said = new String(copy.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertNotEquals(0, copy.exitValue(), said);
            assertTrue(said.contains("Input/output error"), "EIO: " + said);
            srdnic(30, "rtrs", "path", "--socket", socket, "--up", "1");
            long end = System.currentTimeMillis() + 30_000;
            String stats = "";
            while (!stats.contains("\"path\":1,\"port\":\"net_memif1\",\"state\":\"CONNECTED\"") && System.currentTimeMillis() < end) {
                Thread.sleep(500);
                stats = srdnic(30, "rtrs", "stats", "--socket", socket, "--json");
            }
            Thread.sleep(1000); // the session's SESS_INFO and the device's reopen follow the path
            Tools.run(dir, 60, "nbdcopy", source.toString(), server.uri("disk"));
            Path back = dir.resolve("back.img");
            Tools.run(dir, 60, "nbdcopy", server.uri("disk"), back.toString());
            assertArrayEquals(Files.readAllBytes(source), Arrays.copyOf(Files.readAllBytes(back), 4 << 20), "served again");
        }
    }
}
