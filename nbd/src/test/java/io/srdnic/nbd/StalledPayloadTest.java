package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.local.MemoryBlockDevice;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that sends a large write's header (and part of its payload) and then goes quiet holds a
 * slot and one of the server's large buffers while the server waits for the rest. With a single
 * large buffer every other client's large request waits for it: the stalled client must be hung
 * up on after the reply timeout, its buffer given back, and the other client's large write served.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StalledPayloadTest {
    private static final long TIMEOUT_MILLIS = 2_000;
    private static final int LARGE = 1 << 20;

    @Test
    void shouldHangUpOnAClientThatStopsSendingALargeWritesPayload() throws Exception {
        ServerLimits limits = ServerLimits.defaults().withReplyTimeoutMillis(TIMEOUT_MILLIS).withLargeRequests(1);
        try (TestServer server = new TestServer(limits, new Export("d", new MemoryBlockDevice(64 << 20, false)));
             RawClient stalled = server.client(); RawClient well = server.client()) {
            stalled.go("d", false);
            well.go("d", false);
            stalled.request(0, Nbd.CMD_WRITE, 1, 0, LARGE, new byte[4096]); // the header and 4 KiB of 1 MiB, then silence
            Thread.sleep(200); // the server has taken the large buffer and waits for the payload

            long start = System.nanoTime();
            byte[] block = new byte[LARGE];
            Arrays.fill(block, (byte) 0x5A);
            well.request(0, Nbd.CMD_WRITE, 2, 8L << 20, LARGE, block);
            assertEquals(0, well.reply(0).error(), "the other client's large write completes");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis >= TIMEOUT_MILLIS / 2, "served only once the stalled client was hung up on, not before (" + millis + " ms)");

            assertTrue(stalled.closedByServer(), "the client that stopped sending is hung up on");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((server.server.clientCount() != 1 || server.server.stalledClientsDisconnected() == 0) && System.nanoTime() < deadline) {
                Thread.sleep(20); // the watchdog counts just after it closes the socket
            }
            assertEquals(1, server.server.stalledClientsDisconnected(), "and counted");
            assertEquals(1, server.server.clientCount(), "its connection has ended");

            // The large buffer came back: another large write and a read of what was written.
            well.request(0, Nbd.CMD_WRITE, 3, 16L << 20, LARGE, block);
            assertEquals(0, well.reply(0).error());
            well.request(0, Nbd.CMD_READ, 4, 8L << 20, LARGE, null);
            RawClient.Reply r = well.reply(LARGE);
            assertEquals(0, r.error());
            assertArrayEquals(block, r.payload());
        }
    }
}
