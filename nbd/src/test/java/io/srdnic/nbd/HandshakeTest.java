package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.local.MemoryBlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every option of the handshake and every way of getting one wrong, over a real unix socket. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HandshakeTest {
    static final long SIZE = 1 << 20;
    TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(new Export("disk", new MemoryBlockDevice(SIZE, false)),
            new Export("ro", new MemoryBlockDevice(4096, true)));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    @Test
    void shouldGreetWithBothHandshakeFlags() throws IOException {
        try (RawClient c = new RawClient(server.address).greeting()) {
            assertEquals(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES, c.handshakeFlags);
        }
    }

    @Test
    void shouldHangUpOnUnknownClientFlags() throws IOException {
        try (RawClient c = new RawClient(server.address).greeting().clientFlags(Nbd.FLAG_C_FIXED_NEWSTYLE | 4)) {
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void shouldHangUpOnAnOptionWithoutMagic() throws IOException {
        try (RawClient c = server.client()) {
            c.out.writeLong(0x1234);
            c.out.writeInt(Nbd.OPT_LIST);
            c.out.writeInt(0);
            c.out.flush();
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void shouldListEveryExportInOrderThenAck() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_LIST, new byte[0]);
            List<String> names = new ArrayList<>();
            RawClient.OptionReply r;
            while ((r = c.optionReply()).type() == Nbd.REP_SERVER) {
                assertEquals(Nbd.OPT_LIST, r.option());
                ByteBuffer d = ByteBuffer.wrap(r.data());
                byte[] name = new byte[d.getInt()];
                d.get(name);
                names.add(new String(name, StandardCharsets.UTF_8));
            }
            assertEquals(Nbd.REP_ACK, r.type());
            assertEquals(List.of("disk", "ro"), names);
        }
    }

    @Test
    void shouldRefuseListWithDataThenCarryOn() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_LIST, new byte[] {1});
            assertEquals(Nbd.REP_ERR_INVALID, c.optionReply().type());
            assertEquals(Nbd.FLAG_HAS_FLAGS, c.go("disk", false) & Nbd.FLAG_HAS_FLAGS, "the session goes on");
        }
    }

    @Test
    void shouldCloseAfterAckingAbort() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_ABORT, new byte[0]);
            RawClient.OptionReply r = c.optionReply();
            assertEquals(Nbd.OPT_ABORT, r.option());
            assertEquals(Nbd.REP_ACK, r.type());
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void shouldAckStructuredReplies() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_STRUCTURED_REPLY, new byte[0]);
            RawClient.OptionReply r = c.optionReply();
            assertEquals(Nbd.OPT_STRUCTURED_REPLY, r.option());
            assertEquals(Nbd.REP_ACK, r.type());
        }
    }

    @Test
    void shouldRefuseStructuredRepliesAskedWithData() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_STRUCTURED_REPLY, new byte[] {0});
            assertEquals(Nbd.REP_ERR_INVALID, c.optionReply().type());
        }
    }

    @Test
    void shouldAnswerInfoWithEveryItemAsked() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_INFO, RawClient.infoData("disk", Nbd.INFO_NAME, Nbd.INFO_DESCRIPTION, Nbd.INFO_BLOCK_SIZE, 77));
            boolean export = false;
            boolean blockSize = false;
            boolean name = false;
            boolean description = false;
            RawClient.OptionReply r;
            while ((r = c.optionReply()).type() == Nbd.REP_INFO) {
                assertEquals(Nbd.OPT_INFO, r.option());
                ByteBuffer d = ByteBuffer.wrap(r.data());
                switch (d.getShort()) {
                    case Nbd.INFO_EXPORT -> {
                        export = true;
                        assertEquals(12, r.data().length);
                        assertEquals(SIZE, d.getLong());
                        int flags = d.getShort() & 0xFFFF;
                        int expected = Nbd.FLAG_HAS_FLAGS | Nbd.FLAG_SEND_FLUSH | Nbd.FLAG_SEND_FUA | Nbd.FLAG_SEND_TRIM
                            | Nbd.FLAG_SEND_WRITE_ZEROES | Nbd.FLAG_CAN_MULTI_CONN | Nbd.FLAG_SEND_FAST_ZERO;
                        assertEquals(expected, flags, "no SEND_DF before structured replies, no READ_ONLY; memory zeroes fast");
                    }
                    case Nbd.INFO_BLOCK_SIZE -> {
                        blockSize = true;
                        assertEquals(14, r.data().length);
                        assertEquals(1, d.getInt());
                        assertEquals(4096, d.getInt());
                        assertEquals(32 << 20, d.getInt());
                    }
                    case Nbd.INFO_NAME -> {
                        name = true;
                        assertEquals("disk", new String(r.data(), 2, r.data().length - 2, StandardCharsets.UTF_8));
                    }
                    case Nbd.INFO_DESCRIPTION -> {
                        description = true;
                        assertTrue(new String(r.data(), 2, r.data().length - 2, StandardCharsets.UTF_8).startsWith("memory"));
                    }
                    default -> throw new AssertionError("unexpected info type");
                }
            }
            assertEquals(Nbd.REP_ACK, r.type());
            assertTrue(export && blockSize && name && description);
        }
    }

    @Test
    void shouldStayInNegotiationAfterInfo() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_INFO, RawClient.infoData("disk", Nbd.INFO_NAME));
            RawClient.OptionReply r;
            do {
                r = c.optionReply();
            } while (r.type() == Nbd.REP_INFO);
            assertEquals(Nbd.REP_ACK, r.type());
            c.option(Nbd.OPT_LIST, new byte[0]);
            assertEquals(Nbd.REP_SERVER, c.optionReply().type(), "still negotiating after INFO");
        }
    }

    @Test
    void shouldSendExportAndBlockSizeUnaskedButNotTheName() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_INFO, RawClient.infoData("disk"));
            List<Integer> types = new ArrayList<>();
            RawClient.OptionReply r;
            while ((r = c.optionReply()).type() == Nbd.REP_INFO) {
                types.add((int) ByteBuffer.wrap(r.data()).getShort());
            }
            assertEquals(List.of(Nbd.INFO_EXPORT, Nbd.INFO_BLOCK_SIZE), types);
        }
    }

    @Test
    void shouldRefuseMalformedInfoOrGo() throws IOException {
        byte[] shortData = {0, 0, 0, 0, 0};
        byte[] nameTooLong = ByteBuffer.allocate(10).putInt(5).put(new byte[] {'d', 'i', 's', 'k'}).array();
        byte[] countTooBig = ByteBuffer.allocate(10).putInt(4).put("disk".getBytes(StandardCharsets.US_ASCII)).putShort((short) 1).array();
        byte[] trailing = ByteBuffer.allocate(11).putInt(4).put("disk".getBytes(StandardCharsets.US_ASCII)).putShort((short) 0).array();
        try (RawClient c = server.client()) {
            for (int option : new int[] {Nbd.OPT_INFO, Nbd.OPT_GO}) {
                for (byte[] data : new byte[][] {shortData, nameTooLong, countTooBig, trailing}) {
                    c.option(option, data);
                    RawClient.OptionReply r = c.optionReply();
                    assertEquals(option, r.option());
                    assertEquals(Nbd.REP_ERR_INVALID, r.type());
                }
            }
            c.go("disk", false);
        }
    }

    @Test
    void shouldAnswerUnknownExportWithErrUnknownCarryingAMessage() throws IOException {
        try (RawClient c = server.client()) {
            for (int option : new int[] {Nbd.OPT_INFO, Nbd.OPT_GO}) {
                c.option(option, RawClient.infoData("nope"));
                RawClient.OptionReply r = c.optionReply();
                assertEquals(Nbd.REP_ERR_UNKNOWN, r.type());
                assertTrue(r.text().contains("nope"), r.text());
            }
        }
    }

    @Test
    void shouldGoToTheDefaultExportForTheEmptyName() throws IOException {
        try (RawClient c = server.client()) {
            c.go("", false);
            c.request(0, Nbd.CMD_READ, 1, SIZE - 8, 8, null);
            assertEquals(0, c.reply(8).error(), "the first export (1 MiB) is the default");
        }
    }

    @Test
    void shouldSetSendDfOnlyWithStructuredReplies() throws IOException {
        try (RawClient c = server.client()) {
            assertEquals(Nbd.FLAG_SEND_DF, c.go("disk", true) & Nbd.FLAG_SEND_DF);
        }
        try (RawClient c = server.client()) {
            assertEquals(0, c.go("disk", false) & Nbd.FLAG_SEND_DF, "simple replies: no DF");
        }
    }

    @Test
    void shouldSetReadOnlyOnlyForReadOnlyExports() throws IOException {
        try (RawClient c = server.client()) {
            assertEquals(Nbd.FLAG_READ_ONLY, c.go("ro", false) & Nbd.FLAG_READ_ONLY);
        }
        try (RawClient c = server.client()) {
            assertEquals(0, c.go("disk", false) & Nbd.FLAG_READ_ONLY);
        }
    }

    @Test
    void shouldEnterTransmissionOnExportNameWithZeroesUnlessNoZeroes() throws IOException {
        try (RawClient c = new RawClient(server.address).greeting().clientFlags(Nbd.FLAG_C_FIXED_NEWSTYLE)) {
            c.option(Nbd.OPT_EXPORT_NAME, "disk".getBytes(StandardCharsets.UTF_8));
            assertEquals(SIZE, c.in.readLong());
            assertEquals(Nbd.FLAG_CAN_MULTI_CONN, c.in.readUnsignedShort() & Nbd.FLAG_CAN_MULTI_CONN);
            byte[] zeroes = new byte[124];
            c.in.readFully(zeroes);
            assertArrayEquals(new byte[124], zeroes);
            c.request(0, Nbd.CMD_READ, 9, 0, 4, null);
            RawClient.Reply r = c.reply(4);
            assertEquals(9, r.handle());
            assertEquals(0, r.error());
        }
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_EXPORT_NAME, "disk".getBytes(StandardCharsets.UTF_8));
            assertEquals(SIZE, c.in.readLong());
            c.in.readUnsignedShort();
            c.request(0, Nbd.CMD_READ, 10, 0, 4, null);
            assertEquals(10, c.reply(4).handle(), "no zeroes came before the reply");
        }
    }

    @Test
    void shouldHangUpOnExportNameOfAnUnknownExport() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_EXPORT_NAME, "nope".getBytes(StandardCharsets.UTF_8));
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void shouldAnswerUnsupportedOptionsWithErrUnsupAndSkipTheirData() throws IOException {
        try (RawClient c = server.client()) {
            for (int option : new int[] {Nbd.OPT_STARTTLS, 4, Nbd.OPT_EXTENDED_HEADERS, 0, 0x7FFF_FFFF}) {
                c.option(option, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
                RawClient.OptionReply r = c.optionReply();
                assertEquals(option, r.option());
                assertEquals(Nbd.REP_ERR_UNSUP, r.type());
            }
            c.go("disk", false);
        }
    }

    @Test
    void shouldRefuseOverlongOptionDataSkippingIt() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_GO, new byte[Nbd.MAX_OPTION_LENGTH + 1]);
            assertEquals(Nbd.REP_ERR_INVALID, c.optionReply().type());
            c.go("disk", false);
        }
    }

    @Test
    void shouldHangUpOnAnOverlongExportName() throws IOException {
        try (RawClient c = server.client()) {
            c.option(Nbd.OPT_EXPORT_NAME, new byte[Nbd.MAX_OPTION_LENGTH + 1]);
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void shouldCloseQuietlyWhenTheClientLeavesMidHandshake() throws IOException, InterruptedException {
        try (RawClient c = server.client()) {
            c.out.writeLong(Nbd.IHAVEOPT);
            c.out.flush();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.server.clientCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, server.server.clientCount());
    }
}
