package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.sun.management.ThreadMXBean;
import io.srdnic.block.Errno;
import io.srdnic.block.local.MemoryBlockDevice;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Metadata contexts on the wire: NBD_OPT_LIST/SET_META_CONTEXT for base:allocation, then
 * NBD_CMD_BLOCK_STATUS answered with one BLOCK_STATUS chunk describing holes and data; and
 * NBD_FLAG_SEND_FAST_ZERO with NBD_CMD_FLAG_FAST_ZERO on write-zeroes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BlockStatusTest {
    static final int HOLE = Nbd.STATE_HOLE | Nbd.STATE_ZERO;
    TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(new Export("disk", new MemoryBlockDevice(1 << 20, false)),
            new Export("other", new MemoryBlockDevice(1 << 20, false)));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    /** LIST or SET data: export name, then queries. */
    private static byte[] contextData(String export, String... queries) {
        ByteBuffer b = ByteBuffer.allocate(1024);
        byte[] name = export.getBytes(StandardCharsets.UTF_8);
        b.putInt(name.length).put(name).putInt(queries.length);
        for (String q : queries) {
            byte[] bytes = q.getBytes(StandardCharsets.UTF_8);
            b.putInt(bytes.length).put(bytes);
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    private static void structured(RawClient c) throws IOException {
        c.option(Nbd.OPT_STRUCTURED_REPLY, new byte[0]);
        assertEquals(Nbd.REP_ACK, c.optionReply().type());
    }

    /** Sends a context option, returns the context ids and names replied before the ACK. */
    private static List<String> contexts(RawClient c, int option, byte[] data) throws IOException {
        c.option(option, data);
        List<String> got = new ArrayList<>();
        RawClient.OptionReply r;
        while ((r = c.optionReply()).type() == Nbd.REP_META_CONTEXT) {
            ByteBuffer d = ByteBuffer.wrap(r.data());
            int id = d.getInt();
            got.add(id + ":" + StandardCharsets.UTF_8.decode(d));
        }
        assertEquals(Nbd.REP_ACK, r.type(), r.text());
        return got;
    }

    /** The descriptors of a BLOCK_STATUS reply as {length, state} pairs, after checking the chunk. */
    private static int[][] blockStatus(RawClient c, int flags, long offset, long length) throws IOException {
        c.request(flags, Nbd.CMD_BLOCK_STATUS, 77, offset, length, null);
        RawClient.Reply r = c.reply(0);
        assertEquals(0, r.error());
        assertEquals(77, r.handle());
        assertEquals(Nbd.REPLY_TYPE_BLOCK_STATUS, r.type());
        assertEquals(Nbd.REPLY_FLAG_DONE, r.flags());
        ByteBuffer d = ByteBuffer.wrap(r.payload());
        assertEquals(Nbd.CONTEXT_BASE_ALLOCATION_ID, d.getInt());
        int[][] out = new int[d.remaining() / 8][];
        for (int i = 0; i < out.length; i++) {
            out[i] = new int[] {d.getInt(), d.getInt()};
        }
        return out;
    }

    @Test
    void shouldNegotiateOnlyTheBaseAllocationContext() throws IOException {
        try (RawClient c = server.client()) {
            structured(c);
            assertEquals(List.of("0:base:allocation"), contexts(c, Nbd.OPT_LIST_META_CONTEXT, contextData("disk")));
            assertEquals(List.of("0:base:allocation"), contexts(c, Nbd.OPT_LIST_META_CONTEXT, contextData("disk", "base:")));
            assertEquals(List.of(), contexts(c, Nbd.OPT_LIST_META_CONTEXT, contextData("disk", "qemu:dirty-bitmap:x")));
            assertEquals(List.of("1:base:allocation"),
                contexts(c, Nbd.OPT_SET_META_CONTEXT, contextData("disk", "x-other:thing", "base:allocation")));
        }
    }

    @Test
    void shouldDescribeWhereAMemoryExportHoldsData() throws IOException {
        try (RawClient c = server.client()) {
            structured(c);
            contexts(c, Nbd.OPT_SET_META_CONTEXT, contextData("disk", "base:allocation"));
            int flags = c.go("disk", false);
            assertNotEquals(0, flags & Nbd.FLAG_SEND_FAST_ZERO, "memory zeroes fast");
            byte[] data = new byte[8192];
            Arrays.fill(data, (byte) 1);
            c.request(0, Nbd.CMD_WRITE, 1, 64 << 10, data.length, data);
            assertEquals(0, c.reply(0).error());
            assertArrayEquals(new int[][] {{64 << 10, HOLE}, {8192, 0}, {(1 << 20) - (72 << 10), HOLE}}, blockStatus(c, 0, 0, 1 << 20));
            assertArrayEquals(new int[][] {{4096, HOLE}}, blockStatus(c, Nbd.CMD_FLAG_REQ_ONE, 60 << 10, (1 << 20) - (60 << 10)),
                "REQ_ONE: one descriptor");
            assertArrayEquals(new int[][] {{100, 0}}, blockStatus(c, 0, (64 << 10) + 50, 100), "never past the request");
            c.request(Nbd.CMD_FLAG_FAST_ZERO, Nbd.CMD_WRITE_ZEROES, 2, 64 << 10, 4096, null);
            assertEquals(0, c.reply(0).error());
            assertArrayEquals(new int[][] {{68 << 10, HOLE}, {4096, 0}, {(1 << 20) - (72 << 10), HOLE}}, blockStatus(c, 0, 0, 1 << 20),
                "a fast zero punched the page");
            c.request(0, Nbd.CMD_BLOCK_STATUS, 3, 1 << 20, 1, null);
            assertEquals(Errno.EINVAL, c.reply(0).error(), "past the end");
        }
    }

    @Test
    void shouldRefuseBlockStatusWhenTheContextWasSetForAnotherExport() throws IOException {
        try (RawClient c = server.client()) {
            structured(c);
            contexts(c, Nbd.OPT_SET_META_CONTEXT, contextData("other", "base:allocation"));
            c.go("disk", false);
            c.request(0, Nbd.CMD_BLOCK_STATUS, 1, 0, 4096, null);
            assertEquals(Errno.EINVAL, c.reply(0).error());
        }
    }

    @Test
    void shouldRefuseContextOptionsBeforeStructuredReplies() throws IOException {
        try (RawClient c = server.client()) {
            for (int option : new int[] {Nbd.OPT_LIST_META_CONTEXT, Nbd.OPT_SET_META_CONTEXT}) {
                c.option(option, contextData("disk", "base:allocation"));
                assertEquals(Nbd.REP_ERR_INVALID, c.optionReply().type());
            }
            c.go("disk", false);
        }
    }

    @Test
    void shouldRefuseAContextOptionWhoseExportNameIsWrong() throws IOException {
        try (RawClient c = server.client()) {
            structured(c);
            c.option(Nbd.OPT_SET_META_CONTEXT, contextData("nope", "base:allocation"));
            assertEquals(Nbd.REP_ERR_UNKNOWN, c.optionReply().type(), "no such export");
            c.option(Nbd.OPT_SET_META_CONTEXT, new byte[] {0, 0, 0, 4, 'd', 'i', 's'});
            assertEquals(Nbd.REP_ERR_INVALID, c.optionReply().type(), "a name longer than the option");
            c.go("disk", false);
        }
    }

    @Test
    void shouldNotAllocatePerBlockStatusRequestOnceWarm() throws IOException {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (RawClient c = server.client()) {
            structured(c);
            contexts(c, Nbd.OPT_SET_META_CONTEXT, contextData("disk", "base:allocation"));
            c.go("disk", false);
            for (int page = 0; page < 256; page += 2) { // every other page written: 128 extents of each kind
                c.request(0, Nbd.CMD_WRITE, page, (long) page * 4096, 4096, new byte[4096]);
                assertEquals(0, c.reply(0).error());
            }
            Thread connection = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("nbd-conn-")).findFirst().orElseThrow();
            statusBatches(c, 200);
            long[] windows = new long[3];
            for (int w = 0; w < windows.length; w++) {
                long before = threads.getThreadAllocatedBytes(connection.threadId());
                statusBatches(c, 125);
                windows[w] = threads.getThreadAllocatedBytes(connection.threadId()) - before;
            }
            Arrays.sort(windows);
            assertEquals(true, windows[1] < 2000, "median window: " + windows[1] + " bytes allocated for 2000 BLOCK_STATUS requests");
        }
    }

    /** Batches of 16 BLOCK_STATUS requests over the whole MiB (256 descriptors each), replies read after each batch. */
    private static void statusBatches(RawClient c, int batches) throws IOException {
        for (int b = 0; b < batches; b++) {
            for (int i = 0; i < 16; i++) {
                c.request(0, Nbd.CMD_BLOCK_STATUS, i, 0, 1 << 20, null);
            }
            for (int i = 0; i < 16; i++) {
                RawClient.Reply r = c.reply(0);
                assertEquals(0, r.error());
                assertEquals(4 + 8 * 256, r.payload().length);
            }
        }
    }
}
