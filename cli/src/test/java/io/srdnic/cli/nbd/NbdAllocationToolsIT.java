package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Holes and zeroes through tools nobody here wrote, on a memory and a file export of
 * {@code srdnic nbd}: {@code nbdinfo --map} and {@code qemu-img map} read base:allocation, nbdcopy
 * reads only the data (holes are skipped, not read as zeroes: the server sends ~1 MiB, not 64 MiB),
 * TRIM punches a hole in the file,
 * and both exports advertise fast zero.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NbdAllocationToolsIT {
    static final int SIZE = 64 << 20;
    static final int DATA_AT = 8 << 20;
    static final int DATA_LENGTH = 1 << 20;

    @TempDir
    Path dir;

    private NbdServerProcess start(Path backing) throws IOException {
        Path socket = dir.resolve("nbd.sock");
        return NbdServerProcess.start(socket, dir.resolve("server.err"), "--export", "mem=mem:64M", "--export", "file=file:" + backing,
            "--socket", socket.toString());
    }

    /** 64 MiB of zeroes with 1 MiB of random data at 8 MiB. */
    private Path image() throws IOException {
        byte[] data = new byte[SIZE];
        byte[] random = new byte[DATA_LENGTH];
        new Random(21).nextBytes(random);
        System.arraycopy(random, 0, data, DATA_AT, DATA_LENGTH);
        return Files.write(dir.resolve("source.img"), data);
    }

    private Path sparseFile(String name) throws IOException {
        Path file = dir.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(SIZE);
        }
        return file;
    }

    /** nbdinfo --map as {offset, length, type} rows (type: 0 data, 3 hole+zero). */
    private List<long[]> map(NbdServerProcess server, String export) throws Exception {
        String out = Tools.run(dir, 30, "nbdinfo", "--map", server.uri(export));
        List<long[]> rows = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)").matcher(out);
        while (m.find()) {
            rows.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
        }
        assertTrue(!rows.isEmpty(), out);
        return rows;
    }

    @Test
    void nbdinfoMapAndQemuImgMapShouldShowTheDataAndTheHolesOfMemoryAndFileExports() throws Exception {
        Tools.require("nbdinfo");
        Tools.require("nbdcopy");
        Tools.require("qemu-img");
        Path source = image();
        try (NbdServerProcess server = start(sparseFile("backing.img"))) {
            for (String export : new String[] {"mem", "file"}) {
                Tools.run(dir, 60, "nbdcopy", "--flush", source.toString(), server.uri(export));
                List<long[]> rows = map(server, export);
                List<long[]> expected = List.of(new long[] {0, DATA_AT, 3}, new long[] {DATA_AT, DATA_LENGTH, 0},
                    new long[] {DATA_AT + DATA_LENGTH, SIZE - DATA_AT - DATA_LENGTH, 3});
                assertEquals(expected.size(), rows.size(), export + ": " + rows.stream().map(Arrays::toString).toList());
                for (int i = 0; i < rows.size(); i++) {
                    assertArrayEquals(expected.get(i), rows.get(i), export + " row " + i);
                }
                String qemu = Tools.run(dir, 30, "qemu-img", "map", "--output=json", "-f", "raw", server.uri(export));
                assertTrue(qemu.matches("(?s).*\"start\":\\s*" + DATA_AT + ",\\s*\"length\":\\s*" + DATA_LENGTH
                        + ",[^}]*\"data\":\\s*true.*"), qemu);
                assertTrue(qemu.matches("(?s).*\"start\":\\s*0,\\s*\"length\":\\s*" + DATA_AT
                        + ",[^}]*\"zero\":\\s*true,\\s*\"data\":\\s*false.*"), qemu);
                String info = Tools.run(dir, 30, "nbdinfo", "--json", server.uri(export));
                assertTrue(info.matches("(?s).*\"can_fast_zero\"\\s*:\\s*true.*"), export + ": " + info);
            }
        }
    }

    @Test
    void nbdcopyShouldReadOnlyTheDataAndSkipTheHoles() throws Exception {
        Tools.require("nbdcopy");
        Path source = image();
        try (NbdServerProcess server = start(sparseFile("backing.img"))) {
            for (String export : new String[] {"mem", "file"}) {
                Tools.run(dir, 60, "nbdcopy", source.toString(), server.uri(export));
                long before = socketBytesWritten(server);
                Tools.run(dir, 60, "nbdcopy", server.uri(export), "null:");
                long sent = socketBytesWritten(server) - before;
                assertTrue(sent >= DATA_LENGTH && sent <= 2 * DATA_LENGTH,
                    export + ": the server sent " + sent + " bytes to copy a 64 MiB export holding 1 MiB of data");
                Path back = dir.resolve("back-" + export + ".img");
                Tools.run(dir, 60, "nbdcopy", server.uri(export), back.toString());
                assertEquals(-1, Files.mismatch(source, back), export + ": the holes still read as zeroes");
            }
        }
    }

    /**
     * The allocation map through the gateway (RNBD's BLOCK_STATUS, docs/rnbd.md): nbd-local over a
     * sparse backing file (1 MiB of data at 8 MiB, holes elsewhere) and over a memory device the
     * same image was copied into. nbdinfo --map shows the server's holes and data, and nbdcopy out
     * of the gateway reads ~1 MiB through RNBD, not 64 MiB (before: no base:allocation through the
     * gateway, so nbdinfo --map failed and a copy read every zero).
     */
    @Test
    void nbdinfoMapAndNbdcopyThroughNbdLocalShouldSeeTheServersHolesAndReadOnlyTheData() throws Exception {
        Tools.require("nbdinfo");
        Tools.require("nbdcopy");
        Path source = image();
        Path backing = sparseFile("gateway.img");
        try (RandomAccessFile f = new RandomAccessFile(backing.toFile(), "rw")) {
            f.seek(DATA_AT);
            f.write(Files.readAllBytes(source), DATA_AT, DATA_LENGTH);
        }
        for (String device : new String[] {"file", "memory"}) {
            Path socket = dir.resolve("local-" + device + ".sock");
            String[] args = device.equals("file") ? new String[] {"--socket", socket.toString(), "--backing", backing.toString(),
                "--paths", "2"} : new String[] {"--socket", socket.toString(), "--size", "64M", "--paths", "2"};
            try (NbdServerProcess server = NbdServerProcess.startCommand("nbd-local", socket, dir.resolve("nbd-local-" + device + ".err"),
                args)) {
                if (device.equals("memory")) {
                    Tools.run(dir, 60, "nbdcopy", source.toString(), server.uri("disk"));
                }
                List<long[]> rows = map(server, "disk");
                List<long[]> expected = List.of(new long[] {0, DATA_AT, 3}, new long[] {DATA_AT, DATA_LENGTH, 0},
                    new long[] {DATA_AT + DATA_LENGTH, SIZE - DATA_AT - DATA_LENGTH, 3});
                assertEquals(expected.size(), rows.size(), device + ": " + rows.stream().map(Arrays::toString).toList());
                for (int i = 0; i < rows.size(); i++) {
                    assertArrayEquals(expected.get(i), rows.get(i), device + " row " + i);
                }
                long before = Tools.sum(gatewayStats(server), "read_bytes");
                Path back = dir.resolve("back-gateway-" + device + ".img");
                Tools.run(dir, 60, "nbdcopy", server.uri("disk"), back.toString());
                long read = Tools.sum(gatewayStats(server), "read_bytes") - before;
                assertTrue(read >= DATA_LENGTH && read <= 2 * DATA_LENGTH,
                    device + ": the gateway read " + read + " bytes through RNBD to copy 64 MiB holding 1 MiB of data");
                assertEquals(-1, Files.mismatch(source, back), device + ": the holes still read as zeroes");
            }
        }
    }

    private String gatewayStats(NbdServerProcess server) throws Exception {
        return Tools.run(dir, 30, System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
            System.getProperty("srdnic.jar"), "rtrs", "stats", "--socket", server.socket.toString(), "--json");
    }

    /**
     * What the server process has written with write(2) and friends ({@code wchar} of /proc/PID/io):
     * its replies on the sockets, read data included, and a few log lines. What a copy costs the
     * server, measured where nbdcopy cannot hide it.
     */
    private static long socketBytesWritten(NbdServerProcess server) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + server.process.pid() + "/io"))) {
            if (line.startsWith("wchar:")) {
                return Long.parseLong(line.substring(6).strip());
            }
        }
        throw new IOException("no wchar in /proc/" + server.process.pid() + "/io");
    }

    @Test
    void trimShouldPunchAHoleInTheBackingFile() throws Exception {
        Tools.require("qemu-io");
        Path backing = fullFile("full.img");
        long before = allocatedBytes(backing);
        try (NbdServerProcess server = start(backing)) {
            Tools.run(dir, 60, "qemu-io", "-f", "raw", "-c", "discard 0 32M", server.uri("file"));
        }
        assertFirstHalfPunched(backing, before, "TRIM on a file export");
    }

    @Test
    void trimThroughNbdLocalShouldPunchAHoleInItsBackingFile() throws Exception {
        Tools.require("qemu-io");
        Path backing = fullFile("backing-full.img");
        long before = allocatedBytes(backing);
        Path socket = dir.resolve("local.sock");
        try (NbdServerProcess server = NbdServerProcess.startCommand("nbd-local", socket, dir.resolve("nbd-local.err"),
            "--socket", socket.toString(), "--backing", backing.toString(), "--paths", "2")) {
            Tools.run(dir, 60, "qemu-io", "-f", "raw", "-c", "discard 0 32M", server.uri("disk"));
            String info = Tools.run(dir, 30, "nbdinfo", "--json", server.uri("disk"));
            assertTrue(info.matches("(?s).*\"export-size\"\\s*:\\s*" + SIZE + "\\b.*"), "served at the file's own size: " + info);
        }
        assertFirstHalfPunched(backing, before, "TRIM through the gateway, RNBD and the server's file device");
    }

    /** A 64 MiB file of ones, every block allocated. */
    private Path fullFile(String name) throws IOException {
        byte[] ones = new byte[SIZE];
        Arrays.fill(ones, (byte) 1);
        return Files.write(dir.resolve(name), ones);
    }

    /** After a discard of the first 32 MiB: that much less allocated, zeroes there, ones after. */
    private static void assertFirstHalfPunched(Path file, long before, String what) throws Exception {
        long after = allocatedBytes(file);
        assertTrue(before >= SIZE && after <= before - (32 << 20), what + ": allocated " + before + " bytes before, " + after + " after");
        byte[] back = Files.readAllBytes(file);
        assertEquals(0, back[0]);
        assertEquals(1, back[32 << 20]);
    }

    /** st_blocks × 512 (what du counts): how much of the file the file system holds. */
    private static long allocatedBytes(Path file) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
        String[] out = new String(p.getInputStream().readAllBytes()).trim().split(" ");
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return Long.parseLong(out[0]) * Long.parseLong(out[1]);
    }
}
