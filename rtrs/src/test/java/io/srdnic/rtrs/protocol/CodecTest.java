package io.srdnic.rtrs.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The codecs' byte layouts (as Linux's structs have them) and every reason each check refuses for. */
class CodecTest {
    private final MemorySegment s = Arena.ofAuto().allocate(1024);

    private int u8(long at) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, at));
    }

    @Test
    void conReqHasLinuxsLayout() {
        ConReq.write(s, 0, 3, 5, 7, 0x0102030405060708L, 0x090A0B0C0D0E0F10L, 0x1112131415161718L, 0x191A1B1C1D1E1F20L, true);
        assertEquals(0, u8(0), "__cma_version left 0 for cma.c");
        assertEquals(0xBD, u8(2), "magic 0x1BBD, little-endian");
        assertEquals(0x1B, u8(3));
        assertEquals(0x00, u8(4), "version 2.0: minor");
        assertEquals(0x02, u8(5), "major");
        assertEquals(3, u8(6));
        assertEquals(5, u8(8));
        assertEquals(7, u8(10));
        assertEquals(0x01, u8(12), "sess_uuid (the path's) in text order");
        assertEquals(0x11, u8(28), "paths_uuid (the session's)");
        assertEquals(1, u8(44), "first_conn");
        assertEquals(ConReq.OK, ConReq.check(s, 0, 56));
        assertEquals(ConReq.SHORT, ConReq.check(s, 0, 55));
    }

    @Test
    void conReqCheckRefusesEachMalformation() {
        ConReq.write(s, 0, 5, 5, 0, 0, 0, 0, 0, false);
        assertEquals(ConReq.BAD_CID, ConReq.check(s, 0, 56), "cid >= cid_num");
        ConReq.write(s, 0, 0, 4097, 0, 0, 0, 0, 0, false);
        assertEquals(ConReq.TOO_MANY_CONNECTIONS, ConReq.check(s, 0, 56));
        ConReq.write(s, 0, 0, 1, 0, 0, 0, 0, 0, false);
        s.set(ValueLayout.JAVA_BYTE, 5, (byte) 3);
        assertEquals(ConReq.BAD_MAJOR, ConReq.check(s, 0, 56));
        s.set(ValueLayout.JAVA_BYTE, 5, (byte) 2);
        s.set(ValueLayout.JAVA_BYTE, 4, (byte) 9);
        assertEquals(ConReq.OK, ConReq.check(s, 0, 56), "only the major is checked");
        s.set(ValueLayout.JAVA_BYTE, 2, (byte) 0xBE);
        assertEquals(ConReq.BAD_MAGIC, ConReq.check(s, 0, 56));
    }

    @Test
    void conRspCarriesTheLimitsOrANegatedErrno() {
        ConRsp.writeAccept(s, 0, 512, 128 * 1024 - 4096, 4096, 0);
        assertEquals(ConRsp.OK, ConRsp.check(s, 0, 56));
        assertEquals(0x00, u8(6), "queue depth 512, little-endian");
        assertEquals(0x02, u8(7));
        assertEquals(512, ConRsp.queueDepth(s, 0));
        assertEquals(124 * 1024, ConRsp.maxIoSize(s, 0));
        assertEquals(4096, ConRsp.maxHdrSize(s, 0));
        ConRsp.writeReject(s, 0, Errno.ECONNRESET);
        assertEquals(0x98, u8(4), "-104 as le16: 0xFF98");
        assertEquals(0xFF, u8(5));
        assertEquals(Errno.ECONNRESET, ConRsp.errno(s, 0));
        assertEquals(ConRsp.SHORT, ConRsp.check(s, 0, 20));
        s.set(ValueLayout.JAVA_BYTE, 3, (byte) 1);
        assertEquals(ConRsp.BAD_MAJOR, ConRsp.check(s, 0, 56));
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
        assertEquals(ConRsp.BAD_MAGIC, ConRsp.check(s, 0, 56));
    }

    @Test
    void infoReqCarriesANulTerminatedNameWithoutSlashOrDot() {
        InfoReq.write(s, 0, "clt-1".getBytes());
        assertEquals(272, InfoReq.LENGTH);
        assertEquals(InfoReq.OK, InfoReq.check(s, 0, 272));
        assertEquals("clt-1", InfoReq.name(s, 0));
        assertEquals(InfoReq.SHORT, InfoReq.check(s, 0, 271));
        s.set(ValueLayout.JAVA_BYTE, 4, (byte) '.');
        assertEquals(InfoReq.FORBIDDEN_CHARACTER, InfoReq.check(s, 0, 272));
        s.asSlice(2, 255).fill((byte) 'a');
        assertEquals(InfoReq.BAD_NAME, InfoReq.check(s, 0, 272), "no NUL inside name[255]");
        s.set(ValueLayout.JAVA_BYTE, 2, (byte) 0);
        assertEquals(InfoReq.BAD_NAME, InfoReq.check(s, 0, 272), "empty");
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        assertEquals(InfoReq.BAD_TYPE, InfoReq.check(s, 0, 272));
    }

    @Test
    void infoRspDescsMustCutIntoExactlyQueueDepthChunks() {
        InfoRsp.writeHeader(s, 0, 2);
        InfoRsp.writeDesc(s, 0, 0, 0x1000, 7, 3 * 8192);
        InfoRsp.writeDesc(s, 0, 1, 0x9000, 8, 8192);
        assertEquals(40, InfoRsp.length(2));
        assertEquals(InfoRsp.OK, InfoRsp.check(s, 0, 40, 4, 8192));
        assertEquals(InfoRsp.WRONG_CHUNK_COUNT, InfoRsp.check(s, 0, 40, 5, 8192));
        assertEquals(InfoRsp.BAD_LENGTH, InfoRsp.check(s, 0, 40, 4, 4096 * 3));
        assertEquals(InfoRsp.TRUNCATED, InfoRsp.check(s, 0, 39, 4, 8192));
        assertEquals(InfoRsp.SHORT, InfoRsp.check(s, 0, 7, 4, 8192));
        InfoRsp.writeHeader(s, 0, 0);
        assertEquals(InfoRsp.NO_DESC, InfoRsp.check(s, 0, 40, 4, 8192));
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
        assertEquals(InfoRsp.BAD_TYPE, InfoRsp.check(s, 0, 40, 4, 8192));
    }

    @Test
    void immediatesLayOutTheirFieldsAsLinux() {
        assertEquals(0x8000_0000, Imm.heartbeat(), "HB_MSG is type 8");
        assertEquals(0x9000_0000, Imm.heartbeatAck());
        assertEquals(19, Imm.memBits(512), "512 chunks take 9 bits: offsets get 19");
        assertEquals(27, Imm.memBits(2));
        assertEquals(0x0000_0000 | 511 << 19 | 0x1234, Imm.ioReq(511, 0x1234, 19));
        assertEquals(0x1000_0000 | 104 << 19 | 77, Imm.ioRsp(77, Errno.ECONNRESET, false));
        assertEquals(0x2000_0000 | 77, Imm.ioRsp(77, 0, true));
        assertEquals(Errno.ECONNRESET, Imm.errno(Imm.ioRsp(77, -Errno.ECONNRESET, false)), "abs(errno), as Linux");
    }

    @Test
    void ioRequestsAreCheckedAgainstTheirChunkBeforeAnythingIsRead() {
        int depth = 3; // ids take 2 bits: 3 is expressible and out of range
        int chunk = 256;
        int bits = Imm.memBits(depth);
        MemorySegment chunks = Arena.ofAuto().allocate(depth * chunk);
        MemorySegment c1 = chunks.asSlice(chunk, chunk);
        WriteMsg.write(c1, 100, 20);
        assertEquals(IoRequestCheck.OK, IoRequestCheck.check(Imm.ioReq(1, 100, bits), chunks, chunk, depth, bits));
        assertEquals(IoRequestCheck.BAD_CHUNK, IoRequestCheck.check(Imm.ioReq(3, 100, bits), chunks, chunk, depth, bits));
        assertEquals(IoRequestCheck.BAD_OFFSET, IoRequestCheck.check(Imm.ioReq(1, 255, bits), chunks, chunk, depth, bits));
        WriteMsg.write(c1, 10, 20);
        assertEquals(IoRequestCheck.BAD_HEADER_LENGTH, IoRequestCheck.check(Imm.ioReq(1, 10, bits), chunks, chunk, depth, bits));
        c1.set(Wire.LE16, 254, (short) MsgType.WRITE);
        assertEquals(IoRequestCheck.BAD_OFFSET, IoRequestCheck.check(Imm.ioReq(1, 254, bits), chunks, chunk, depth, bits),
            "the message would end past the chunk");
        ReadMsg.write(c1, 16, 16, 0, 0x1000, 9, 256);
        assertEquals(IoRequestCheck.OK, IoRequestCheck.check(Imm.ioReq(1, 16, bits), chunks, chunk, depth, bits));
        ReadMsg.write(c1, 16, 16, 0, 0x1000, 9, 257);
        assertEquals(IoRequestCheck.BAD_READ_LENGTH, IoRequestCheck.check(Imm.ioReq(1, 16, bits), chunks, chunk, depth, bits),
            "longer than the chunk it is sent from");
        ReadMsg.write(c1, 16, 16, 0, 0x1000, 9, 0);
        assertEquals(IoRequestCheck.BAD_READ_LENGTH, IoRequestCheck.check(Imm.ioReq(1, 16, bits), chunks, chunk, depth, bits));
        c1.set(Wire.LE16, 22, (short) 2);
        assertEquals(IoRequestCheck.BAD_DESC_COUNT, IoRequestCheck.check(Imm.ioReq(1, 16, bits), chunks, chunk, depth, bits));
        c1.set(Wire.LE16, 16, (short) 9);
        assertEquals(IoRequestCheck.BAD_TYPE, IoRequestCheck.check(Imm.ioReq(1, 16, bits), chunks, chunk, depth, bits));
    }
}
