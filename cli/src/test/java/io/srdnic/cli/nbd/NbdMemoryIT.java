package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A memory export of 1 GiB written full and read back through {@code srdnic nbd} whose JVM has a
 * 128 MiB heap: the device's bytes must live outside the heap (a heap device died with
 * OutOfMemoryError half way). nbdcopy in and out, every byte compared; the server's resident set
 * shows the data is held in memory all the same.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NbdMemoryIT {
    static final long GIB = 1L << 30;

    @TempDir
    Path dir;

    /** {@code bytes} of seeded random data with a 64 MiB stretch of zeroes at 256 MiB, written in 1 MiB blocks. */
    static Path bigImage(Path dir, String name, long bytes, long seed) throws IOException {
        Path file = dir.resolve(name);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long at = 0; at < bytes; at += block.length) {
                boolean zero = at >= 256L << 20 && at < 320L << 20;
                for (int i = 0; i < block.length; i += 8) {
                    long v = zero ? 0 : random.nextLong();
                    for (int b = 0; b < 8; b++) {
                        block[i + b] = (byte) (v >>> (8 * b));
                    }
                }
                out.write(block);
            }
        }
        return file;
    }

    @Test
    void aGibibyteMemoryExportShouldBeWrittenFullAndReadBackInA128MiBHeap() throws Exception {
        Tools.require("nbdcopy");
        Path source = bigImage(dir, "source.img", GIB, 11);
        Path socket = dir.resolve("nbd.sock");
        try (NbdServerProcess server = NbdServerProcess.startWith(Map.of(), null, List.of("-Xmx128m", "-XX:+UseSerialGC"), "nbd", socket,
            dir.resolve("server.err"), "--export", "disk=mem:1G", "--socket", socket.toString())) {
            Tools.run(dir, 240, "nbdcopy", "--flush", source.toString(), server.uri("disk"));
            long rss = server.residentBytes();
            Path back = dir.resolve("back.img");
            Tools.run(dir, 240, "nbdcopy", server.uri("disk"), back.toString());
            assertEquals(-1, Files.mismatch(source, back), "1 GiB in and out, bit identical");
            assertTrue(server.process.isAlive(), "the server lives: " + NbdServerProcess.read(dir.resolve("server.err")));
            assertTrue(rss > 900L << 20, "960 MiB of data is resident in the server (outside its 128 MiB heap): VmRSS " + rss);
            System.out.printf("srdnic nbd, 1 GiB mem export written full with -Xmx128m: VmRSS %d MiB%n", rss >> 20);
        }
    }
}
