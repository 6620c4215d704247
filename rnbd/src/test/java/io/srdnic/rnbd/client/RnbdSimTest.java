package io.srdnic.rnbd.client;

import static io.srdnic.rnbd.client.RnbdSim.MS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Errno;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.protocol.RnbdErrno;
import io.srdnic.rnbd.server.ExportDirectory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SESS_INFO, OPEN, IO and CLOSE through RnbdDevice on the simulator, and every refusal a device sees. */
class RnbdSimTest {
    @TempDir
    Path dir;

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static int await(RnbdSim sim, Completion c) {
        assertTrue(sim.run(c::done, 2000 * MS), "completed");
        assertEquals(1, c.calls, "completed once");
        return c.error;
    }

    @Test
    void shouldOpenAMemoryDeviceWithItsGeometry() throws Exception {
        try (RnbdSim sim = new RnbdSim(1, 2, new ExportDirectory(null).memory("m0", 4 << 20))) {
            RnbdClient c = sim.connect("gw");
            assertEquals(1, c.sessions());
            RnbdDevice d = sim.open(c, "m0", Rnbd.ACCESS_RW);
            assertEquals(DeviceState.OPEN, d.state());
            assertEquals(4 << 20, d.size());
            assertEquals(0, d.id());
            assertEquals(512, d.geometry().logicalBlockSize());
            assertEquals(32, d.geometry().maxHwSectors(), "one 16 KiB chunk");
            assertEquals(1, sim.rnbd.openDevices("gw"));
        }
    }

    @Test
    void shouldMoveDataBothWaysAcrossSeveralChunks() throws Exception {
        try (RnbdSim sim = new RnbdSim(1, 2, new ExportDirectory(null).memory("m0", 4 << 20))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "m0", Rnbd.ACCESS_RW);
            byte[] data = random(100 * 1024, 7); // 100 KiB: pieces of the 12 KiB max IO
            Completion w = new Completion();
            d.write(8192, ByteBuffer.wrap(data), true, w);
            assertEquals(0, await(sim, w));
            ByteBuffer back = ByteBuffer.allocate(data.length);
            Completion r = new Completion();
            d.read(8192, back, r);
            assertEquals(0, await(sim, r));
            assertArrayEquals(data, back.array());
            assertEquals(c.rtrs().stats(0).writes() + c.rtrs().stats(1).writes() >= 9, true, "split into RTRS IOs");
        }
    }

    @Test
    void shouldHonourFlushFuaDiscardAndWriteZeroesOnAFileAndSyncBeforeTheAck() throws Exception {
        Path f = dir.resolve("disk.img");
        Files.write(f, random(1 << 20, 3));
        try (RnbdSim sim = new RnbdSim(2, 1, new ExportDirectory(dir))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice d = sim.open(c, "disk.img", Rnbd.ACCESS_RW);
            assertEquals(1 << 20, d.size());
            Completion zero = new Completion();
            d.writeZeroes(4096, 8192, false, false, zero);
            assertEquals(0, await(sim, zero));
            Completion trim = new Completion();
            d.trim(65536, 4096, false, trim);
            assertEquals(0, await(sim, trim));
            Completion flush = new Completion();
            d.flush(flush);
            assertEquals(0, await(sim, flush));
            byte[] data = random(4096, 9);
            Completion fua = new Completion();
            d.write(0, ByteBuffer.wrap(data), true, fua);
            assertEquals(0, await(sim, fua));
            byte[] onDisk = Files.readAllBytes(f);
            assertArrayEquals(data, Arrays.copyOfRange(onDisk, 0, 4096), "on the file when acknowledged");
            assertArrayEquals(new byte[8192], Arrays.copyOfRange(onDisk, 4096, 12288), "zeroed");
        }
    }

    /** Three sessions (a, b, x) to a server with two memory devices (m, n); {@code a} has m open read-write. */
    private static void withWriterOnM(AccessCheck check) throws Exception {
        try (RnbdSim sim = new RnbdSim(3, 1, new ExportDirectory(null).memory("m", 1 << 20).memory("n", 1 << 20))) {
            RnbdClient a = sim.connect("a");
            RnbdClient b = sim.connect("b");
            RnbdClient x = sim.connect("x");
            assertEquals(DeviceState.OPEN, sim.open(a, "m", Rnbd.ACCESS_RW).state());
            check.run(sim, a, b, x);
        }
    }

    private interface AccessCheck {
        void run(RnbdSim sim, RnbdClient a, RnbdClient b, RnbdClient x) throws Exception;
    }

    @Test
    void shouldRefuseASecondReadWriteOpener() throws Exception {
        withWriterOnM((sim, a, b, x) -> {
            RnbdDevice second = sim.open(b, "m", Rnbd.ACCESS_RW);
            assertEquals(DeviceState.FAILED, second.state());
            assertEquals(RnbdErrno.EPERM, second.errno(), "one RW opener");
        });
    }

    @Test
    void shouldAllowTwoMigrationWritersAtMost() throws Exception {
        withWriterOnM((sim, a, b, x) -> {
            assertEquals(DeviceState.OPEN, sim.open(b, "m", Rnbd.ACCESS_MIGRATION).state(), "a migration target may join the writer");
            assertEquals(RnbdErrno.EPERM, sim.open(x, "m", Rnbd.ACCESS_MIGRATION).errno(), "at most two writers");
            assertEquals(DeviceState.OPEN, sim.open(a, "n", Rnbd.ACCESS_MIGRATION).state());
            assertEquals(DeviceState.OPEN, sim.open(b, "n", Rnbd.ACCESS_MIGRATION).state(), "two migration writers");
        });
    }

    @Test
    void shouldOpenForReadersWhoeverWrites() throws Exception {
        withWriterOnM((sim, a, b, x) -> {
            assertEquals(DeviceState.OPEN, sim.open(b, "m", Rnbd.ACCESS_MIGRATION).state());
            assertEquals(DeviceState.OPEN, sim.open(x, "m", Rnbd.ACCESS_RO).state(), "readers always, beside two writers");
        });
    }

    @Test
    void shouldLetASessionOpenADeviceOnce() throws Exception {
        withWriterOnM((sim, a, b, x) -> assertEquals(RnbdErrno.EEXIST, sim.open(a, "m", Rnbd.ACCESS_RO).errno()));
    }

    @Test
    void shouldRefuseToOpenAnUnknownDevice() throws Exception {
        try (RnbdSim sim = new RnbdSim(4, 1, new ExportDirectory(dir).memory("m", 1 << 20))) {
            RnbdClient c = sim.connect("gw");
            assertEquals(RnbdErrno.ENOENT, sim.open(c, "missing", Rnbd.ACCESS_RO).errno());
            assertEquals(RnbdErrno.EINVAL, sim.open(c, "../etc/passwd", Rnbd.ACCESS_RO).errno());
        }
    }

    @Test
    void shouldRefuseWritesThroughAReadOnlyOpen() throws Exception {
        try (RnbdSim sim = new RnbdSim(4, 1, new ExportDirectory(dir).memory("m", 1 << 20))) {
            RnbdDevice ro = sim.open(sim.connect("gw"), "m", Rnbd.ACCESS_RO);
            assertTrue(ro.readOnly());
            Completion w = new Completion();
            ro.write(0, ByteBuffer.allocate(512), false, w);
            assertEquals(Errno.EPERM, await(sim, w), "the server refuses a write on an RO open");
            Completion z = new Completion();
            ro.writeZeroes(0, 512, false, true, z);
            assertEquals(Errno.EPERM, await(sim, z));
            Completion r = new Completion();
            ro.read(0, ByteBuffer.allocate(512), r);
            assertEquals(0, await(sim, r), "it reads");
        }
    }

    @Test
    void shouldRefuseReadsOffSectorBoundsOrPastTheEnd() throws Exception {
        try (RnbdSim sim = new RnbdSim(4, 1, new ExportDirectory(dir).memory("m", 1 << 20))) {
            RnbdDevice ro = sim.open(sim.connect("gw"), "m", Rnbd.ACCESS_RO);
            Completion unaligned = new Completion();
            ro.read(100, ByteBuffer.allocate(512), unaligned);
            assertEquals(Errno.EINVAL, await(sim, unaligned), "sectors only");
            Completion past = new Completion();
            ro.read((1 << 20) - 512, ByteBuffer.allocate(1024), past);
            assertEquals(Errno.EINVAL, await(sim, past), "past the end");
        }
    }

    @Test
    void shouldFreeAClosedDeviceForAnotherWriter() throws Exception {
        try (RnbdSim sim = new RnbdSim(5, 1, new ExportDirectory(null).memory("m", 1 << 20))) {
            RnbdClient a = sim.connect("a");
            RnbdClient b = sim.connect("b");
            RnbdDevice d = sim.open(a, "m", Rnbd.ACCESS_RW);
            d.close();
            assertTrue(sim.run(() -> sim.rnbd.openDevices("a") == 0, 1000 * MS), "CLOSE reached the server");
            assertEquals(DeviceState.CLOSED, d.state());
            Completion after = new Completion();
            d.read(0, ByteBuffer.allocate(512), after);
            assertEquals(Errno.EIO, await(sim, after), "a closed device takes no IO");
            assertEquals(DeviceState.OPEN, sim.open(b, "m", Rnbd.ACCESS_RW).state(), "the writer left: another may come");
        }
    }
}
