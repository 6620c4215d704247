package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.local.MemoryBlockDevice;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Clients that go away in the middle of a write's payload: each connection's thread(s) must end
 * and its slots and buffers come back, whether the write was being taken, refused (its payload
 * skipped), small (a slot's buffer) or large (the large buffer); the server keeps serving.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DisconnectMidRequestTest {
    private static final int DISCONNECTS = 100;

    private static int threads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    @Test
    void shouldEndEveryConnectionAndItsThreadsWhenClientsLeaveMidPayload() throws Exception {
        for (BlockDevice device : new BlockDevice[] {new MemoryBlockDevice(64 << 20, false),
                new PollThreadDevice(new MemoryBlockDevice(64 << 20, false))}) {
            try (TestServer server = new TestServer(new Export("d", device))) {
                try (RawClient warm = server.client()) {
                    warm.go("d", false);
                    warm.request(0, Nbd.CMD_FLUSH, 1, 0, 0, null);
                    warm.reply(0);
                }
                awaitNoClients(server);
                int before = threads();
                for (int i = 0; i < DISCONNECTS; i++) {
                    try (RawClient c = server.client()) {
                        c.go("d", false);
                        // small, large, refused (past the end: the payload is skipped), and after a completed request
                        int length = switch (i % 4) {
                            case 0 -> 64 << 10;
                            case 1 -> 1 << 20;
                            default -> 128 << 10;
                        };
                        long offset = i % 4 == 2 ? (64L << 20) - 4096 : 0;
                        if (i % 4 == 3) {
                            c.request(0, Nbd.CMD_WRITE, 0, 0, 4096, new byte[4096]);
                            assertEquals(0, c.reply(0).error());
                        }
                        c.request(0, Nbd.CMD_WRITE, 1, offset, length, new byte[length / 3]); // header and a third of the payload
                    }
                }
                awaitNoClients(server);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (threads() > before + 2 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                int after = threads();
                assertTrue(after <= before + 2, "threads before " + before + ", after " + DISCONNECTS + " mid-write disconnects " + after
                    + " (" + device.getClass().getSimpleName() + ")");
                stillServes(server);
            }
        }
    }

    private static void awaitNoClients(TestServer server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.server.clientCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, server.server.clientCount(), "every connection ended");
    }

    /** Large and small writes, read back, on a fresh connection. */
    private static void stillServes(TestServer server) throws Exception {
        byte[] data = new byte[1 << 20];
        new Random(7).nextBytes(data);
        try (RawClient c = server.client()) {
            c.go("d", true);
            c.request(0, Nbd.CMD_WRITE, 1, 1 << 20, data.length, data);
            assertEquals(0, c.reply(0).error());
            c.request(0, Nbd.CMD_READ, 2, 1 << 20, data.length, null);
            RawClient.Reply r = c.reply(data.length);
            assertEquals(0, r.error());
            byte[] payload = Arrays.copyOfRange(r.payload(), 8, r.payload().length); // offset, then data
            assertArrayEquals(data, payload);
        }
    }
}
