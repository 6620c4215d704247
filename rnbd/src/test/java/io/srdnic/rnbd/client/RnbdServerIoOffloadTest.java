package io.srdnic.rnbd.client;

import static io.srdnic.rnbd.client.RnbdSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.BlockSizes;
import io.srdnic.block.IoCompletion;
import io.srdnic.block.local.MemoryBlockDevice;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.server.ExportDirectory;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A device that waits (a file on a slow disk, an fsync) must not hold up the RTRS poll thread: the
 * server runs such IO on its IO workers and answers it from its poll, so IO on other devices, and
 * the session itself, move on meanwhile.
 */
class RnbdServerIoOffloadTest {

    /** A memory device whose reads wait until the test lets them go (at most 3 s, so old code ends too). */
    static final class StuckDevice implements BlockDevice {
        final MemoryBlockDevice memory = new MemoryBlockDevice(1 << 20, false);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean timedOut;

        @Override
        public long size() {
            return memory.size();
        }

        @Override
        public BlockSizes blockSizes() {
            return memory.blockSizes();
        }

        @Override
        public boolean readOnly() {
            return false;
        }

        @Override
        public boolean multiConnSafe() {
            return true;
        }

        @Override
        public void read(long offset, ByteBuffer dst, IoCompletion done) {
            try {
                timedOut = !release.await(3, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            memory.read(offset, dst, done);
        }

        @Override
        public void write(long offset, ByteBuffer src, boolean fua, IoCompletion done) {
            memory.write(offset, src, fua, done);
        }

        @Override
        public void flush(IoCompletion done) {
            memory.flush(done);
        }

        @Override
        public void trim(long offset, long length, boolean fua, IoCompletion done) {
            memory.trim(offset, length, fua, done);
        }

        @Override
        public void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
            memory.writeZeroes(offset, length, fua, mayPunch, done);
        }

        @Override
        public void close() {
            memory.close();
        }
    }

    @Test
    void shouldServeOtherDevicesWhileOneDeviceIsStuck() throws Exception {
        StuckDevice stuck = new StuckDevice();
        try (RnbdSim sim = new RnbdSim(43, 1, new ExportDirectory(null).memory("fast", 1 << 20).device("slow", stuck))) {
            RnbdClient c = sim.connect("gw");
            RnbdDevice slow = sim.open(c, "slow", Rnbd.ACCESS_RW);
            RnbdDevice fast = sim.open(c, "fast", Rnbd.ACCESS_RW);
            Completion slowRead = new Completion();
            slow.read(0, ByteBuffer.allocateDirect(4096), slowRead);
            // the stuck read reaches the server and its device first
            sim.run(() -> false, 5 * MS);
            assertFalse(slowRead.done());

            ByteBuffer data = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < 4096; i++) {
                data.put(i, (byte) (i * 7));
            }
            Completion write = new Completion();
            fast.write(8192, data, false, write);
            assertTrue(sim.run(write::done, 100 * MS), "a write to another device completes while the first device is stuck");
            assertEquals(0, write.error);
            Completion read = new Completion();
            ByteBuffer back = ByteBuffer.allocateDirect(4096);
            fast.read(8192, back, read);
            assertTrue(sim.run(read::done, 100 * MS));
            assertEquals(0, read.error);
            assertEquals(data.clear(), back.clear());
            assertFalse(slowRead.done(), "the stuck read is still on its device");

            stuck.release.countDown();
            assertTrue(sim.run(slowRead::done, 1000 * MS), "the stuck read is answered once its device returns");
            assertEquals(0, slowRead.error);
            assertFalse(stuck.timedOut, "the other device's IO went on before the stuck device was let go");
        }
    }
}
