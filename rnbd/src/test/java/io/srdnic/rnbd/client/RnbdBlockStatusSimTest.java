package io.srdnic.rnbd.client;

import static io.srdnic.rnbd.client.RnbdSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Extents;
import io.srdnic.block.local.FileBlockDevice;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.protocol.RnbdErrno;
import io.srdnic.rnbd.protocol.Wire;
import io.srdnic.rnbd.server.ExportDirectory;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The allocation map through RNBD (srdnic's BLOCK_STATUS message, docs/rnbd.md): a device's holes
 * and data as the server's device sees them, for a memory device (its page map) and a sparse file
 * (SEEK_DATA/SEEK_HOLE), a map longer than one answer holds given as a prefix the caller continues
 * from, a range that is not whole sectors described as allocated without asking, and a server
 * that does not know the message (Linux's) answered by calling the device allocated.
 */
class RnbdBlockStatusSimTest {
    private static final int HOLE = Extents.HOLE | Extents.ZERO;

    @TempDir
    Path dir;

    /** The extents the device reported, as {length, state} pairs, after its completion said 0. */
    private static List<List<Long>> map(RnbdSim sim, RnbdDevice d, long offset, long length) {
        List<List<Long>> got = new ArrayList<>();
        Completion c = new Completion();
        d.blockStatus(offset, length, (n, state) -> got.add(List.of(n, (long) state)), c);
        assertTrue(sim.run(c::done, 2000 * MS), "answered");
        assertEquals(1, c.calls, "completed once");
        assertEquals(0, c.error);
        return got;
    }

    private static void write(RnbdSim sim, RnbdDevice d, long offset, int length) {
        Completion w = new Completion();
        d.write(offset, ByteBuffer.allocate(length).put(0, (byte) 1), false, w);
        assertTrue(sim.run(w::done, 2000 * MS));
        assertEquals(0, w.error);
    }

    @Test
    void shouldDescribeAMemoryDevicesHolesAndDataAsTheServerSeesThem() throws Exception {
        try (RnbdSim sim = new RnbdSim(51, 2, new ExportDirectory(null).memory("m", 4 << 20))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m", Rnbd.ACCESS_RW);
            assertTrue(d.reportsAllocation());
            write(sim, d, 64 << 10, 8192);
            write(sim, d, 1 << 20, 4096);
            assertEquals(List.of(List.of(64L << 10, (long) HOLE), List.of(8192L, 0L), List.of((1L << 20) - (72 << 10), (long) HOLE),
                List.of(4096L, 0L), List.of((3L << 20) - 4096, (long) HOLE)), map(sim, d, 0, 4 << 20));
            assertEquals(List.of(List.of(4096L, (long) HOLE), List.of(8192L, 0L), List.of(4096L, (long) HOLE)),
                map(sim, d, 60 << 10, 16 << 10), "a range inside the device, never past it");
        }
    }

    @Test
    void shouldDescribeASparseFileAsItsFileSystemDoes() throws Exception {
        Path file = dir.resolve("disk.img");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(8 << 20);
            f.seek(3 << 20);
            f.write(new byte[1 << 20]); // written zeroes are data to the file system
            f.seek(6 << 20);
            f.write(1);
        }
        List<List<Long>> local = new ArrayList<>();
        try (FileBlockDevice direct = new FileBlockDevice(file, true)) {
            assertEquals(0, direct.blockStatus(0, 8 << 20, (n, state) -> local.add(List.of(n, (long) state))));
        }
        assertTrue(local.size() >= 3, "the file system here tells holes from data: " + local);
        try (RnbdSim sim = new RnbdSim(52, 1, new ExportDirectory(dir))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "disk.img", Rnbd.ACCESS_RO);
            assertEquals(local, map(sim, d, 0, 8 << 20));
        }
    }

    @Test
    void shouldAnswerAMapLongerThanOneReplyWithAPrefixThatTheCallerContinues() throws Exception {
        int pages = 4096;
        try (RnbdSim sim = new RnbdSim(53, 1, new ExportDirectory(null).memory("m", (long) pages * 4096))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m", Rnbd.ACCESS_RW);
            for (int p = 0; p < pages; p += 2) {
                write(sim, d, (long) p * 4096, 4096);
            }
            long at = 0;
            int answers = 0;
            List<List<Long>> all = new ArrayList<>();
            while (at < (long) pages * 4096) {
                List<List<Long>> part = map(sim, d, at, (long) pages * 4096 - at);
                assertTrue(!part.isEmpty(), "at least one extent per answer");
                for (List<Long> e : part) {
                    at += e.get(0);
                }
                all.addAll(part);
                answers++;
            }
            assertTrue(answers > 1, "one answer holds fewer than " + pages + " extents: " + answers);
            assertEquals(pages, all.size());
            for (int i = 0; i < pages; i++) {
                assertEquals(List.of(4096L, i % 2 == 0 ? 0L : (long) HOLE), all.get(i), "extent " + i);
            }
        }
    }

    @Test
    void shouldCallARangeThatIsNotWholeSectorsAllocatedWithoutAsking() throws Exception {
        try (RnbdSim sim = new RnbdSim(54, 1, new ExportDirectory(null).memory("m", 1 << 20))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m", Rnbd.ACCESS_RW);
            long reads = c.rtrs().stats(0).reads();
            assertEquals(List.of(List.of(100L, 0L)), map(sim, d, 4096 + 50, 100));
            assertEquals(reads, c.rtrs().stats(0).reads(), "nothing was sent");
        }
    }

    @Test
    void shouldCallTheDeviceAllocatedWhenTheServerDoesNotKnowTheMessageAndStopAsking() throws Exception {
        int[] refused = new int[1];
        try (RnbdSim sim = new RnbdSim(55, 1, new ExportDirectory(null).memory("m", 1 << 20), rnbd -> io -> {
            if (Wire.type(io.chunk(), io.headerOffset(), io.headerLength()) == Rnbd.MSG_BLOCK_STATUS) {
                refused[0]++;
                io.respond(RnbdErrno.EINVAL); // as Linux's rnbd-srv answers a type it does not know
            } else {
                rnbd.onRequest(io);
            }
        })) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m", Rnbd.ACCESS_RW);
            write(sim, d, 0, 4096);
            assertEquals(List.of(List.of(1L << 20, 0L)), map(sim, d, 0, 1 << 20));
            assertEquals(List.of(List.of(8192L, 0L)), map(sim, d, 4096, 8192));
            assertEquals(1, refused[0], "asked once, then no more");
        }
    }
}
