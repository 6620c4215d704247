package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools nobody here wrote, unmodified, against {@code srdnic nbd}: nbdinfo, nbdcopy, qemu-img
 * and fio's nbd engine (all through libnbd or qemu's own NBD client).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NbdToolsIT {
    @TempDir
    Path dir;

    private NbdServerProcess start(String... exports) throws IOException {
        Path socket = dir.resolve("nbd.sock");
        String[] args = new String[exports.length * 2 + 2];
        for (int i = 0; i < exports.length; i++) {
            args[2 * i] = "--export";
            args[2 * i + 1] = exports[i];
        }
        args[args.length - 2] = "--socket";
        args[args.length - 1] = socket.toString();
        return NbdServerProcess.start(socket, dir.resolve("server.err"), args);
    }


    private static long jsonNumber(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*(\\d+)").matcher(json);
        assertTrue(m.find(), () -> field + " in " + json);
        return Long.parseLong(m.group(1));
    }

    @Test
    void nbdinfoShouldReportSizeBlockSizesAndMultiConn() throws Exception {
        Tools.require("nbdinfo");
        try (NbdServerProcess server = start("disk=mem:96M", "second=mem:1M")) {
            String json = Tools.run(dir, 30, "nbdinfo", "--json", server.uri("disk"));
            assertEquals(96L << 20, jsonNumber(json, "export-size"));
            assertEquals(1, jsonNumber(json, "block_size_minimum"));
            assertEquals(4096, jsonNumber(json, "block_size_preferred"));
            assertEquals(32L << 20, jsonNumber(json, "block_size_maximum"));
            assertTrue(json.matches("(?s).*\"can_multi_conn\"\\s*:\\s*true.*"), json);
            assertTrue(json.matches("(?s).*\"structured\"\\s*:\\s*true.*"), json);
            String list = Tools.run(dir, 30, "nbdinfo", "--list", server.uri(""));
            assertTrue(list.contains("export=\"disk\"") && list.contains("export=\"second\""), list);
        }
    }

    @Test
    void nbdcopyShouldCopyBothWaysBitIdenticalOnMemoryAndFile() throws Exception {
        Tools.require("nbdcopy");
        Path source = Tools.randomImage(dir, "source.img", 24 << 20, 1);
        Path backing = dir.resolve("backing.img");
        Files.write(backing, new byte[24 << 20]);
        try (NbdServerProcess server = start("mem=mem:24M", "file=file:" + backing)) {
            for (String export : new String[] {"mem", "file"}) {
                Path back = dir.resolve("back-" + export + ".img");
                Tools.run(dir, 60, "nbdcopy", "--flush", source.toString(), server.uri(export));
                Tools.run(dir, 60, "nbdcopy", server.uri(export), back.toString());
                assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(back), export + ": copied out and back");
            }
        }
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(backing), "the file export wrote its file");
    }

    @Test
    void nbdcopyShouldWorkOverLoopbackTcp() throws Exception {
        Tools.require("nbdcopy");
        Path source = Tools.randomImage(dir, "source.img", 8 << 20, 2);
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        try (NbdServerProcess server = NbdServerProcess.start(null, dir.resolve("server.err"),
            "--export", "d=mem:8M", "--port", Integer.toString(port))) {
            String uri = "nbd://127.0.0.1:" + port + "/d";
            Tools.run(dir, 60, "nbdcopy", source.toString(), uri);
            Path back = dir.resolve("back.img");
            Tools.run(dir, 60, "nbdcopy", uri, back.toString());
            assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(back));
        }
    }

    @Test
    void qemuImgShouldConvertAnImageToTheExportAndBackBitIdentical() throws Exception {
        Tools.require("qemu-img");
        Path raw = Tools.randomImage(dir, "disk.raw", 32 << 20, 3);
        Path qcow2 = dir.resolve("disk.qcow2");
        Tools.run(dir, 60, "qemu-img", "convert", "-f", "raw", "-O", "qcow2", raw.toString(), qcow2.toString());
        try (NbdServerProcess server = start("vm=mem:32M")) {
            Tools.run(dir, 60, "qemu-img", "convert", "-n", "-f", "qcow2", "-O", "raw", qcow2.toString(), server.uri("vm"));
            Path back = dir.resolve("back.raw");
            Tools.run(dir, 60, "qemu-img", "convert", "-f", "raw", "-O", "raw", server.uri("vm"), back.toString());
            assertArrayEquals(Files.readAllBytes(raw), Files.readAllBytes(back), "qcow2 image -> export -> raw file");
            Tools.run(dir, 60, "qemu-img", "compare", "-f", "raw", "-F", "raw", raw.toString(), server.uri("vm"));
        }
    }

    @Test
    void fioShouldVerifyRandomWritesAtIodepth32() throws Exception {
        Tools.require("fio");
        try (NbdServerProcess server = start("fio=mem:64M")) {
            String out = Tools.run(dir, 120, "fio", "--name=verify", "--ioengine=nbd", "--uri=" + server.uri("fio"),
                "--rw=randwrite", "--bs=4k", "--size=16m", "--iodepth=32", "--verify=crc32c", "--do_verify=1",
                "--verify_fatal=1", "--runtime=60", "--verify_state_save=0", "--output-format=json");
            assertEquals(0, jsonNumber(out, "error"), out);
            Matcher written = Pattern.compile("\"write\"\\s*:\\s*\\{\\s*\"io_bytes\"\\s*:\\s*(\\d+)").matcher(out);
            assertTrue(written.find(), out);
            assertEquals(16L << 20, Long.parseLong(written.group(1)), "every block written once, then read back and verified");
        }
    }

    @Test
    void shouldRefuseRnbdExportsWithoutLinks() throws Exception {
        Process p = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-jar", System.getProperty("srdnic.jar"), "nbd", "--export", "x=rnbd://server/dev", "--socket", dir.resolve("s").toString())
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertNotEquals(0, p.exitValue());
        assertTrue(out.contains("no link"), out);
        assertTrue(!Files.exists(dir.resolve("s")), "nothing listens");
    }
}
