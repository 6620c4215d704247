package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.block.local.MemoryBlockDevice;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hot-path rule for the server: once warm, a request — read from the socket, checked, run on
 * the memory device, answered — allocates nothing on the connection's thread (under a byte per
 * request, so a one-off growth passes). Requests go 16 at a time, so several slots are in flight.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AllocationTest {
    static final int BATCH = 16;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldNotAllocatePerRequestOnceWarm(boolean structured) throws IOException {
        try (TestServer server = new TestServer(new Export("disk", new MemoryBlockDevice(1 << 20, false)));
             RawClient c = server.client()) {
            c.go("disk", structured);
            assertWarmThreadAllocatesNothing(c, "nbd-conn-");
        }
    }

    /**
     * Replies completed on the device's own thread (as RNBD's poll thread does) go through the
     * connection's reply writer: it allocates nothing per reply either. (The test device's hand-off
     * to its thread allocates on the connection's thread, so only the writer is measured here.)
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldNotAllocatePerReplyOnTheReplyWriterOnceWarm(boolean structured) throws IOException {
        try (TestServer server = new TestServer(new Export("disk", new PollThreadDevice(new MemoryBlockDevice(1 << 20, false))));
             RawClient c = server.client()) {
            c.go("disk", structured);
            assertWarmThreadAllocatesNothing(c, "nbd-reply-");
        }
    }

    private static void assertWarmThreadAllocatesNothing(RawClient c, String threadName) throws IOException {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        Thread thread = Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith(threadName)).findFirst().orElse(null);
        assertNotNull(thread, "the connection's " + threadName + " thread");
        byte[] block = new byte[4096];
        run(c, block, 3000);
        long[] perWindow = new long[3];
        int requests = 2000;
        for (int w = 0; w < perWindow.length; w++) {
            long before = threads.getThreadAllocatedBytes(thread.threadId());
            run(c, block, requests);
            perWindow[w] = threads.getThreadAllocatedBytes(thread.threadId()) - before;
        }
        Arrays.sort(perWindow);
        assertTrue(perWindow[1] < requests, threadName + " median window: " + perWindow[1] + " bytes allocated for "
                + requests + " requests");
    }

    /** Batches of writes, reads, write-zeroes and flushes of 4 KiB inside the first 256 KiB (pages made once). */
    private static void run(RawClient c, byte[] block, int requests) throws IOException {
        for (int done = 0; done < requests; done += BATCH) {
            for (int i = 0; i < BATCH; i++) {
                long offset = (long) ((done + i) % 64) * 4096;
                switch (i % 4) {
                    case 0 -> c.request(Nbd.CMD_FLAG_FUA, Nbd.CMD_WRITE, i, offset, block.length, block);
                    case 1, 3 -> c.request(0, Nbd.CMD_READ, i, offset, block.length, null);
                    default -> c.request(0, i % 8 == 2 ? Nbd.CMD_FLUSH : Nbd.CMD_WRITE_ZEROES, i,
                        i % 8 == 2 ? 0 : offset, i % 8 == 2 ? 0 : 512, null);
                }
            }
            for (int i = 0; i < BATCH; i++) {
                boolean read = i % 4 == 1 || i % 4 == 3; // the memory device completes at once: replies come in order
                RawClient.Reply r = c.reply(read ? block.length : 0);
                assertEquals(i, r.handle());
                assertEquals(0, r.error());
                if (r.structured() && r.type() == Nbd.REPLY_TYPE_OFFSET_DATA) {
                    assertEquals(8 + block.length, r.payload().length);
                }
            }
        }
    }
}
