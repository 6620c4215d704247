package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.Errno;
import io.srdnic.block.local.MemoryBlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every command and every refusal of the transmission phase, simple and structured replies. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TransmissionTest {
    static final long SIZE = 4 << 20;
    MemoryBlockDevice disk;
    TestServer server;

    @BeforeEach
    void start() {
        disk = new MemoryBlockDevice(SIZE, false);
        server = new TestServer(new Export("disk", disk), new Export("ro", new MemoryBlockDevice(SIZE, true)));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private RawClient open(String export, boolean structured) throws IOException {
        RawClient c = server.client();
        c.go(export, structured);
        return c;
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A request that carries no data and gets a status-only reply; returns its error. */
    private static int status(RawClient c, int flags, int type, long offset, long length) throws IOException {
        c.request(flags, type, 77, offset, length, null);
        RawClient.Reply r = c.reply(0);
        assertEquals(77, r.handle());
        return r.error();
    }

    private static byte[] read(RawClient c, long offset, int length) throws IOException {
        c.request(0, Nbd.CMD_READ, 5, offset, length, null);
        RawClient.Reply r = c.reply(length);
        assertEquals(0, r.error());
        return r.payload();
    }

    @Test
    void shouldWriteThenReadBackAcrossPagesWithSimpleReplies() throws IOException {
        try (RawClient c = open("disk", false)) {
            byte[] data = random(200_000, 1);
            c.request(0, Nbd.CMD_WRITE, 1, 65_000, data.length, data);
            RawClient.Reply w = c.reply(0);
            assertEquals(1, w.handle());
            assertEquals(0, w.error());
            assertArrayEquals(data, read(c, 65_000, data.length));
            assertArrayEquals(new byte[100], read(c, SIZE - 100, 100), "never written: zeroes");
        }
    }

    @Test
    void shouldCarryRequestsLargerThanASlotBuffer() throws IOException {
        try (RawClient c = open("disk", true)) {
            byte[] data = random(3 << 20, 2);
            c.request(Nbd.CMD_FLAG_FUA, Nbd.CMD_WRITE, 1, 4096, data.length, data);
            assertEquals(0, c.reply(0).error());
            c.request(0, Nbd.CMD_READ, 2, 4096, data.length, null);
            RawClient.Reply r = c.reply(0);
            assertEquals(4096, ByteBuffer.wrap(r.payload()).getLong(), "the chunk's offset");
            assertArrayEquals(data, Arrays.copyOfRange(r.payload(), 8, r.payload().length));
        }
    }

    @Test
    void shouldAnswerStructuredReadsWithOneDoneDataChunk() throws IOException {
        try (RawClient c = open("disk", true)) {
            byte[] data = random(4096, 3);
            c.request(0, Nbd.CMD_WRITE, 1, 8192, data.length, data);
            RawClient.Reply w = c.reply(0);
            assertEquals(0, w.error());
            c.request(Nbd.CMD_FLAG_DF, Nbd.CMD_READ, 0xABCDEF, 8192, 4096, null);
            RawClient.Reply r = c.reply(0);
            assertTrue(r.structured());
            assertEquals(0xABCDEF, r.handle());
            assertEquals(Nbd.REPLY_FLAG_DONE, r.flags());
            assertEquals(Nbd.REPLY_TYPE_OFFSET_DATA, r.type());
            ByteBuffer p = ByteBuffer.wrap(r.payload());
            assertEquals(8192, p.getLong());
            byte[] back = new byte[4096];
            p.get(back);
            assertArrayEquals(data, back);
        }
    }

    @Test
    void shouldAnswerStructuredReadErrorsWithAnErrorChunk() throws IOException {
        try (RawClient c = open("disk", true)) {
            c.request(0, Nbd.CMD_READ, 3, SIZE - 1, 2, null);
            RawClient.Reply r = c.reply(0);
            assertTrue(r.structured());
            assertEquals(3, r.handle());
            assertEquals(Nbd.REPLY_TYPE_ERROR, r.type());
            assertEquals(Nbd.REPLY_FLAG_DONE, r.flags());
            assertEquals(6, r.payload().length);
            assertEquals(Errno.EINVAL, r.error());
        }
    }

    @Test
    void shouldAcceptFuaOnEveryCommand() throws IOException {
        try (RawClient c = open("disk", false)) {
            assertEquals(0, status(c, 0, Nbd.CMD_FLUSH, 0, 0));
            assertEquals(0, status(c, Nbd.CMD_FLAG_FUA, Nbd.CMD_FLUSH, 0, 0));
            assertEquals(0, status(c, Nbd.CMD_FLAG_FUA, Nbd.CMD_TRIM, 0, 4096));
            assertEquals(0, status(c, Nbd.CMD_FLAG_FUA, Nbd.CMD_WRITE_ZEROES, 0, 4096));
            c.request(Nbd.CMD_FLAG_FUA, Nbd.CMD_READ, 1, 0, 16, null);
            assertEquals(0, c.reply(16).error());
        }
    }

    /** Writes 256 KiB of random bytes at 0 (64 pages of 4 KiB); returns them. */
    private byte[] write256KiB(RawClient c) throws IOException {
        byte[] data = random(256 << 10, 4);
        c.request(0, Nbd.CMD_WRITE, 1, 0, data.length, data);
        assertEquals(0, c.reply(0).error());
        assertEquals(64, disk.allocatedPages(), "256 KiB of 4 KiB pages");
        return data;
    }

    @Test
    void shouldZeroInPlaceForWriteZeroesWithNoHole() throws IOException {
        try (RawClient c = open("disk", false)) {
            write256KiB(c);
            assertEquals(0, status(c, Nbd.CMD_FLAG_NO_HOLE, Nbd.CMD_WRITE_ZEROES, 0, 64 << 10));
            assertEquals(64, disk.allocatedPages(), "NO_HOLE: zeroed, still allocated");
            assertArrayEquals(new byte[64 << 10], read(c, 0, 64 << 10));
        }
    }

    @Test
    void shouldDropTheWholePagesOfAWriteZeroesWithoutNoHole() throws IOException {
        try (RawClient c = open("disk", false)) {
            write256KiB(c);
            assertEquals(0, status(c, 0, Nbd.CMD_WRITE_ZEROES, 64 << 10, 64 << 10));
            assertEquals(48, disk.allocatedPages(), "without NO_HOLE the whole pages are dropped");
            assertArrayEquals(new byte[64 << 10], read(c, 64 << 10, 64 << 10));
        }
    }

    @Test
    void shouldDropOnlyTheWholePagesOfATrim() throws IOException {
        try (RawClient c = open("disk", false)) {
            byte[] data = write256KiB(c);
            assertEquals(0, status(c, 0, Nbd.CMD_TRIM, 128 << 10, (64 << 10) + 100));
            assertEquals(48, disk.allocatedPages(), "the partly trimmed page is kept");
            assertArrayEquals(new byte[(64 << 10) + 100], read(c, 128 << 10, (64 << 10) + 100));
            assertArrayEquals(Arrays.copyOfRange(data, (192 << 10) + 100, data.length),
                read(c, (192 << 10) + 100, (64 << 10) - 100), "the rest of a partly trimmed page is kept");
        }
    }

    @Test
    void shouldRefuseUnknownCommandsWithEinval() throws IOException {
        try (RawClient c = open("disk", true)) {
            for (int type : new int[] {Nbd.CMD_CACHE, Nbd.CMD_BLOCK_STATUS, 8, 99, 0xFFFF}) {
                assertEquals(Errno.EINVAL, status(c, 0, type, 0, 4096), "command " + type);
            }
        }
    }

    @Test
    void shouldRefuseFlagsNotDocumentedForTheCommandWithEinval() throws IOException {
        try (RawClient c = open("disk", false)) {
            assertEquals(Errno.EINVAL, status(c, Nbd.CMD_FLAG_NO_HOLE, Nbd.CMD_TRIM, 0, 4096));
            assertEquals(Errno.EINVAL, status(c, Nbd.CMD_FLAG_REQ_ONE, Nbd.CMD_FLUSH, 0, 0));
            assertEquals(Errno.EINVAL, status(c, Nbd.CMD_FLAG_FAST_ZERO, Nbd.CMD_TRIM, 0, 4096), "FAST_ZERO is for WRITE_ZEROES only");
            assertEquals(Errno.EINVAL, status(c, 0x8000, Nbd.CMD_WRITE_ZEROES, 0, 4096));
            assertEquals(Errno.EINVAL, status(c, Nbd.CMD_FLAG_DF, Nbd.CMD_READ, 0, 4096), "DF without structured replies");
            byte[] payload = random(4096, 5);
            c.request(Nbd.CMD_FLAG_NO_HOLE, Nbd.CMD_WRITE, 6, 0, payload.length, payload);
            assertEquals(Errno.EINVAL, c.reply(0).error());
            assertArrayEquals(new byte[16], read(c, 0, 16), "the refused write's payload was skipped, not written or parsed");
        }
    }

    @Test
    void shouldRefuseWritesToReadOnlyExportsWithEperm() throws IOException {
        try (RawClient c = open("ro", false)) {
            byte[] payload = random(512, 6);
            c.request(0, Nbd.CMD_WRITE, 1, 0, payload.length, payload);
            assertEquals(Errno.EPERM, c.reply(0).error());
            assertEquals(Errno.EPERM, status(c, 0, Nbd.CMD_TRIM, 0, 512));
            assertEquals(Errno.EPERM, status(c, 0, Nbd.CMD_WRITE_ZEROES, 0, 512));
            assertArrayEquals(new byte[512], read(c, 0, 512), "nothing was written");
        }
    }

    @Test
    void shouldServeReadsAndFlushOnReadOnlyExports() throws IOException {
        try (RawClient c = open("ro", false)) {
            assertEquals(0, status(c, 0, Nbd.CMD_FLUSH, 0, 0));
            c.request(0, Nbd.CMD_READ, 2, 0, 512, null);
            assertEquals(0, c.reply(512).error());
        }
    }

    @Test
    void shouldRefuseWritesPastTheEndWithEnospc() throws IOException {
        try (RawClient c = open("disk", false)) {
            byte[] payload = random(4096, 7);
            c.request(0, Nbd.CMD_WRITE, 1, SIZE - 4095, payload.length, payload);
            assertEquals(Errno.ENOSPC, c.reply(0).error());
            assertEquals(Errno.ENOSPC, status(c, 0, Nbd.CMD_WRITE_ZEROES, SIZE, 1));
        }
    }

    @Test
    void shouldRefuseOtherRangesPastTheEndWithEinval() throws IOException {
        try (RawClient c = open("disk", false)) {
            assertEquals(Errno.EINVAL, status(c, 0, Nbd.CMD_TRIM, SIZE - 1, 2));
            c.request(0, Nbd.CMD_READ, 2, SIZE + 4096, 1, null);
            assertEquals(Errno.EINVAL, c.reply(0).error());
            c.request(0, Nbd.CMD_READ, 3, -4096L, 4096, null);
            assertEquals(Errno.EINVAL, c.reply(0).error(), "an offset that wraps around is past the end");
            c.request(0, Nbd.CMD_READ, 4, SIZE - 1, 1, null);
            assertEquals(0, c.reply(1).error(), "the last byte is inside");
        }
    }

    @Test
    void shouldRefuseZeroLengthsWithEinval() throws IOException {
        try (RawClient c = open("disk", false)) {
            for (int type : new int[] {Nbd.CMD_READ, Nbd.CMD_TRIM, Nbd.CMD_WRITE_ZEROES, Nbd.CMD_WRITE}) {
                assertEquals(Errno.EINVAL, status(c, 0, type, 0, 0), "zero-length command " + type);
            }
        }
    }

    @Test
    void shouldRefuseAFlushWithARangeWithEinval() throws IOException {
        try (RawClient c = open("disk", false)) {
            assertEquals(Errno.EINVAL, status(c, 0, Nbd.CMD_FLUSH, 1, 0));
            assertEquals(Errno.EINVAL, status(c, 0, Nbd.CMD_FLUSH, 0, 1));
        }
    }

    @Test
    void shouldRefusePayloadsOverTheMaximumSkippingTheWriteData() throws IOException {
        try (RawClient c = open("disk", false)) {
            long tooBig = (32 << 20) + 1;
            c.request(0, Nbd.CMD_READ, 1, 0, tooBig, null);
            assertEquals(Errno.EINVAL, c.reply(0).error());
            byte[] payload = new byte[(int) tooBig];
            Arrays.fill(payload, (byte) 0x5A);
            c.request(0, Nbd.CMD_WRITE, 2, 0, tooBig, payload);
            assertEquals(Errno.EINVAL, c.reply(0).error());
            assertArrayEquals(new byte[16], read(c, 0, 16), "the refused write's payload was skipped, not written or parsed");
        }
    }

    @Test
    void shouldPutNoMaximumOnWriteZeroes() throws IOException {
        try (RawClient c = open("disk", false)) {
            assertEquals(0, status(c, 0, Nbd.CMD_WRITE_ZEROES, 0, SIZE), "write-zeroes carries no payload: no maximum");
        }
    }

    @Test
    void shouldHangUpOnARequestWithoutMagic() throws IOException {
        try (RawClient c = open("disk", false)) {
            c.out.writeInt(0x12345678);
            c.out.write(new byte[24]);
            c.out.flush();
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void shouldCloseWithoutReplyOnDisconnect() throws IOException {
        try (RawClient c = open("disk", false)) {
            c.request(0, Nbd.CMD_READ, 1, 0, 8, null);
            c.request(0, Nbd.CMD_DISC, 2, 0, 0, null);
            assertEquals(1, c.reply(8).handle(), "the request before DISC is answered");
            assertTrue(c.closedByServer(), "and nothing answers DISC itself");
        }
    }
}
