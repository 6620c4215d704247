package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.local.MemoryBlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that stops reading its replies (a paused VM, fio under Ctrl-Z) must not delay anyone
 * else, even when every reply is written from one thread that serves every client (the gateway's
 * RNBD poll thread), and is hung up on once its replies have made no progress for the reply
 * timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowReaderTest {
    private static final long TIMEOUT_MILLIS = 3_000;
    /** What the well-behaved client's round trip may take while the other one stalls (a loaded 2-core machine). */
    private static final long ROUND_TRIP_BOUND_MILLIS = 1_000;
    private static final int READ = 256 << 10;

    private static ServerLimits limits() {
        return ServerLimits.defaults().withReplyTimeoutMillis(TIMEOUT_MILLIS);
    }

    /** 64 reads of 256 KiB in one write: 16 MiB of replies, far more than a socket buffer holds. */
    private static void stallWithUnreadReplies(RawClient stalled) throws IOException {
        stalled.go("d", false);
        ByteBuffer requests = ByteBuffer.allocate(Transmission.SLOTS * Nbd.REQUEST_LENGTH);
        for (int i = 0; i < Transmission.SLOTS; i++) {
            requests.putInt(Nbd.REQUEST_MAGIC).putShort((short) 0).putShort((short) Nbd.CMD_READ).putLong(i).putLong((long) i * READ)
                .putInt(READ);
        }
        stalled.out.write(requests.array());
        stalled.out.flush();
    }

    private static void roundTripsWithinBound(RawClient well, int count) throws IOException {
        byte[] block = new byte[4096];
        for (int i = 0; i < count; i++) {
            Arrays.fill(block, (byte) i);
            long start = System.nanoTime();
            well.request(0, Nbd.CMD_WRITE, 2 * i, 32L << 20, block.length, block);
            assertEquals(0, well.reply(0).error());
            well.request(0, Nbd.CMD_READ, 2 * i + 1, 32L << 20, block.length, null);
            RawClient.Reply r = well.reply(block.length);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(0, r.error());
            assertArrayEquals(block, r.payload());
            assertTrue(millis < ROUND_TRIP_BOUND_MILLIS, "round trip " + i + " took " + millis + " ms while another client stalled");
        }
    }

    @Test
    void shouldServeOtherClientsWhileOneStopsReadingRepliesCompletedOnASharedPollThread() throws Exception {
        try (TestServer server = new TestServer(limits(), new Export("d", new PollThreadDevice(new MemoryBlockDevice(64 << 20, false))));
             RawClient stalled = server.client(); RawClient well = server.client()) {
            stallWithUnreadReplies(stalled);
            Thread.sleep(300); // the poll thread is writing the stalled client's replies by now
            well.go("d", false);
            long start = System.nanoTime();
            roundTripsWithinBound(well, 50);
            assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS),
                "served before the stalled client's timeout, not because of it");
            awaitHungUp(server, stalled, 2);
            roundTripsWithinBound(well, 5);
        }
    }

    @Test
    void shouldHangUpOnAClientThatStopsReadingRepliesCompletedOnItsOwnThread() throws Exception {
        try (TestServer server = new TestServer(limits(), new Export("d", new MemoryBlockDevice(64 << 20, false)));
             RawClient stalled = server.client(); RawClient well = server.client()) {
            stallWithUnreadReplies(stalled);
            well.go("d", false);
            roundTripsWithinBound(well, 50);
            awaitHungUp(server, stalled, 2);
        }
    }

    /** Still connected at half the timeout, gone (and counted) by the timeout plus slack; its socket ends. */
    private static void awaitHungUp(TestServer server, RawClient stalled, int expectedClients) throws Exception {
        long start = System.nanoTime();
        Thread.sleep(TIMEOUT_MILLIS / 2);
        assertEquals(expectedClients, server.server.clientCount(), "not hung up on before the timeout");
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS + 3_000);
        while (server.server.clientCount() == expectedClients && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(expectedClients - 1, server.server.clientCount(), "the client that does not read is hung up on after the timeout");
        assertEquals(1, server.server.stalledClientsDisconnected(), "and counted");
        byte[] drain = new byte[1 << 16];
        while (stalled.in.read(drain) >= 0) {
            // what was in the socket before the hang-up, then the end of the stream
        }
    }
}
