package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.BlockSizes;
import io.srdnic.block.Errno;
import io.srdnic.block.IoCompletion;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many requests in flight on one connection, answered in the order the device completes them
 * (as an RNBD device does, from its own threads), and the limit on how many the server takes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InFlightTest {

    /** Holds every operation until the test completes it; reads fill the buffer with the offset's low byte. */
    static class HeldDevice implements BlockDevice {
        record Held(long offset, ByteBuffer buffer, IoCompletion done) {
        }

        final LinkedBlockingDeque<Held> held = new LinkedBlockingDeque<>();

        @Override
        public long size() {
            return 1 << 20;
        }

        @Override
        public BlockSizes blockSizes() {
            return BlockSizes.DEFAULT;
        }

        @Override
        public boolean readOnly() {
            return false;
        }

        @Override
        public boolean multiConnSafe() {
            return false;
        }

        @Override
        public void read(long offset, ByteBuffer dst, IoCompletion done) {
            held.add(new Held(offset, dst, done));
        }

        @Override
        public void write(long offset, ByteBuffer src, boolean fua, IoCompletion done) {
            held.add(new Held(offset, src, done));
        }

        @Override
        public void flush(IoCompletion done) {
            held.add(new Held(-1, null, done));
        }

        @Override
        public void trim(long offset, long length, boolean fua, IoCompletion done) {
            held.add(new Held(offset, null, done));
        }

        @Override
        public void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
            held.add(new Held(offset, null, done));
        }

        @Override
        public void close() {
        }

        Held next() throws InterruptedException {
            return held.poll(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldStartManyRequestsAndAnswerThemInCompletionOrderFromAnotherThread() throws Exception {
        HeldDevice device = new HeldDevice();
        try (TestServer server = new TestServer(new Export("held", device)); RawClient c = server.client()) {
            int flags = c.go("held", false);
            assertEquals(0, flags & Nbd.FLAG_CAN_MULTI_CONN, "a device that is not multi-connection safe does not say so");
            int n = 32;
            for (int i = 0; i < n; i++) {
                c.request(0, Nbd.CMD_READ, 1000 + i, i * 4096L, 512, null);
            }
            List<HeldDevice.Held> started = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                started.add(device.next());
            }
            assertEquals(n, started.size(), "all requests started before any completed");
            Thread completer = Thread.ofPlatform().start(() -> {
                for (int i = n - 1; i >= 0; i--) { // newest first
                    HeldDevice.Held h = started.get(i);
                    byte fill = (byte) (h.offset() / 4096);
                    while (h.buffer().hasRemaining()) {
                        h.buffer().put(fill);
                    }
                    h.done().complete(0);
                }
            });
            for (int i = n - 1; i >= 0; i--) {
                RawClient.Reply r = c.reply(512);
                assertEquals(1000 + i, r.handle(), "replies in completion order");
                byte[] expected = new byte[512];
                Arrays.fill(expected, (byte) i);
                assertArrayEquals(expected, r.payload(), "each reply carries its own request's data");
            }
            completer.join();
        }
    }

    @Test
    void shouldTakeNoMoreThanItsSlotsAndCarryOnAsTheyFree() throws Exception {
        HeldDevice device = new HeldDevice();
        try (TestServer server = new TestServer(new Export("held", device)); RawClient c = server.client()) {
            c.go("held", false);
            int n = Transmission.SLOTS + 10;
            for (int i = 0; i < n; i++) {
                c.request(0, Nbd.CMD_FLUSH, i, 0, 0, null);
            }
            List<HeldDevice.Held> first = new ArrayList<>();
            for (int i = 0; i < Transmission.SLOTS; i++) {
                first.add(device.next());
            }
            assertTrue(device.held.poll(300, TimeUnit.MILLISECONDS) == null, "no more than SLOTS requests in flight");
            first.getFirst().done().complete(Errno.EIO);
            assertEquals(Errno.EIO, c.reply(0).error(), "a device error reaches the client");
            HeldDevice.Held next = device.next();
            assertTrue(next != null, "a freed slot takes the next request");
            next.done().complete(0);
            for (HeldDevice.Held h : first.subList(1, first.size())) {
                h.done().complete(0);
            }
            for (int i = 0; i < 9; i++) {
                device.next().done().complete(0);
            }
            for (int i = 1; i < n; i++) {
                assertEquals(0, c.reply(0).error());
            }
        }
    }

    @Test
    void shouldPassTheLargeBufferFromOneBigRequestToTheNextWhenAnotherThreadCompletes() throws Exception {
        HeldDevice device = new HeldDevice();
        try (TestServer server = new TestServer(new Export("held", device)); RawClient c = server.client()) {
            c.go("held", false);
            int big = Transmission.SLOT_BUFFER_MAX + 1;
            c.request(0, Nbd.CMD_READ, 1, 0, big, null);
            c.request(0, Nbd.CMD_READ, 2, 0, big, null);
            HeldDevice.Held first = device.next();
            assertTrue(device.held.poll(300, TimeUnit.MILLISECONDS) == null, "one large request at a time");
            Thread completer = Thread.ofPlatform().start(() -> first.done().complete(0)); // blocks writing until we read
            assertEquals(1, c.reply(big).handle());
            completer.join();
            HeldDevice.Held second = device.next();
            assertTrue(second != null, "the second starts once the first gave the buffer back");
            completer = Thread.ofPlatform().start(() -> second.done().complete(0));
            assertEquals(2, c.reply(big).handle());
            completer.join();
        }
    }

    @Test
    void shouldAnswerEioWhenTheDeviceThrowsThenCarryOn() throws Exception {
        HeldDevice device = new HeldDevice() {
            @Override
            public void trim(long offset, long length, boolean fua, IoCompletion done) {
                throw new IllegalStateException("a broken device");
            }
        };
        try (TestServer server = new TestServer(new Export("held", device)); RawClient c = server.client()) {
            c.go("held", false);
            c.request(0, Nbd.CMD_TRIM, 1, 0, 512, null);
            assertEquals(Errno.EIO, c.reply(0).error());
            c.request(0, Nbd.CMD_FLUSH, 2, 0, 0, null);
            device.next().done().complete(0);
            assertEquals(2, c.reply(0).handle());
            c.request(0, Nbd.CMD_DISC, 3, 0, 0, null);
            assertTrue(c.closedByServer(), "and it closes on DISC: no request is left waiting");
        }
    }
}
