package io.srdnic.rtrs.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Every RTRS codec against bytes a peer might send, two ways:
 * <ul>
 * <li>any bytes, the message at the very end of its segment (a read past it throws): each check
 * answers without reading past the received length, and whatever a check accepts reads back
 * inside it; an IO_REQ accepted by {@link IoRequestCheck} names only bytes of its chunk;</li>
 * <li>fields written from fuzzed values read back as written and pass the checks.</li>
 * </ul>
 */
class RtrsCodecFuzzTest {
    private static final Arena ARENA = Arena.ofShared();

    @FuzzTest(maxDuration = "6s")
    void codecsNeverReadOutsideTheMessageAndRoundTrip(FuzzedDataProvider data) {
        int which = data.consumeInt(0, 5);
        if (data.consumeBoolean()) {
            roundTrip(which, data);
            return;
        }
        byte[] bytes = data.consumeBytes(600);
        MemorySegment s = ARENA.allocate(Math.max(1, bytes.length));
        long at = s.byteSize() - bytes.length;
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, at, bytes.length);
        switch (which) {
            case 0 -> {
                if (ConReq.check(s, at, bytes.length) == ConReq.OK) {
                    assertTrue(ConReq.cid(s, at) < ConReq.cidNum(s, at));
                    assertTrue(ConReq.cidNum(s, at) <= Rtrs.MAX_CONNECTIONS);
                    ConReq.firstConn(s, at);
                    ConReq.sessionUuidLo(s, at);
                }
            }
            case 1 -> {
                if (ConRsp.check(s, at, bytes.length) == ConRsp.OK) {
                    ConRsp.errno(s, at);
                    ConRsp.flags(s, at);
                }
            }
            case 2 -> {
                if (InfoReq.check(s, at, bytes.length) == InfoReq.OK) {
                    String name = InfoReq.name(s, at);
                    assertTrue(!name.isEmpty() && name.indexOf('/') < 0 && name.indexOf('.') < 0, name);
                }
            }
            case 3 -> {
                int depth = data.consumeInt(1, 64);
                int chunk = data.consumeInt(1, 1 << 20);
                if (InfoRsp.check(s, at, bytes.length, depth, chunk) == InfoRsp.OK) {
                    long chunks = 0;
                    for (int i = 0; i < InfoRsp.descs(s, at); i++) {
                        InfoRsp.descAddress(s, at, i);
                        InfoRsp.descKey(s, at, i);
                        chunks += Integer.toUnsignedLong(InfoRsp.descLength(s, at, i)) / chunk;
                    }
                    assertEquals(depth, chunks);
                }
            }
            default -> ioRequest(data, bytes);
        }
    }

    /** A chunk pool of fuzzed bytes and a fuzzed immediate: accepted requests stay inside their chunk. */
    private static void ioRequest(FuzzedDataProvider data, byte[] bytes) {
        int depth = data.consumeInt(1, 8);
        int chunkSize = data.consumeInt(2, 256);
        MemorySegment chunks = ARENA.allocate((long) depth * chunkSize);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, chunks, 0, Math.min(bytes.length, chunks.byteSize()));
        int memBits = Imm.memBits(depth);
        int imm = data.consumeInt();
        if (IoRequestCheck.check(imm, chunks, chunkSize, depth, memBits) != IoRequestCheck.OK) {
            return;
        }
        int id = Imm.chunkId(imm, memBits);
        int off = Imm.offset(imm, memBits);
        assertTrue(id < depth);
        MemorySegment chunk = chunks.asSlice((long) id * chunkSize, chunkSize);
        int type = Short.toUnsignedInt(chunk.get(Wire.LE16, off));
        if (type == MsgType.WRITE) {
            assertTrue(off + WriteMsg.LENGTH <= chunkSize);
            assertTrue(WriteMsg.userHeaderLength(chunk, off) <= off, "the user header and data lie before the message");
        } else {
            assertEquals(MsgType.READ, type);
            assertTrue(ReadMsg.userHeaderLength(chunk, off) <= off);
            if (ReadMsg.descs(chunk, off) == 1) {
                int len = ReadMsg.length(chunk, off);
                assertTrue(len > 0 && len <= chunkSize, "the answer is RDMA-written from the chunk: no more than it holds");
            }
        }
    }

    private static void roundTrip(int which, FuzzedDataProvider data) {
        MemorySegment s = ARENA.allocate(600);
        switch (which) {
            case 0 -> {
                int cidNum = data.consumeInt(1, Rtrs.MAX_CONNECTIONS);
                int cid = data.consumeInt(0, cidNum - 1);
                int recon = data.consumeInt(0, 0xFFFF);
                long a = data.consumeLong();
                long b = data.consumeLong();
                long c = data.consumeLong();
                long d = data.consumeLong();
                boolean first = data.consumeBoolean();
                ConReq.write(s, 0, cid, cidNum, recon, a, b, c, d, first);
                assertEquals(ConReq.OK, ConReq.check(s, 0, ConReq.LENGTH));
                assertEquals(cid, ConReq.cid(s, 0));
                assertEquals(cidNum, ConReq.cidNum(s, 0));
                assertEquals(recon, ConReq.reconCnt(s, 0));
                assertEquals(a, ConReq.pathUuidHi(s, 0));
                assertEquals(b, ConReq.pathUuidLo(s, 0));
                assertEquals(c, ConReq.sessionUuidHi(s, 0));
                assertEquals(d, ConReq.sessionUuidLo(s, 0));
                assertEquals(first, ConReq.firstConn(s, 0));
            }
            case 1 -> {
                int depth = data.consumeInt(0, 0xFFFF);
                int io = data.consumeInt();
                int hdr = data.consumeInt();
                int flags = data.consumeInt();
                ConRsp.writeAccept(s, 0, depth, io, hdr, flags);
                assertEquals(ConRsp.OK, ConRsp.check(s, 0, ConRsp.LENGTH));
                assertEquals(0, ConRsp.errno(s, 0));
                assertEquals(depth, ConRsp.queueDepth(s, 0));
                assertEquals(io, ConRsp.maxIoSize(s, 0));
                assertEquals(hdr, ConRsp.maxHdrSize(s, 0));
                assertEquals(flags, ConRsp.flags(s, 0));
                int errno = data.consumeInt(1, 0x7FFF);
                ConRsp.writeReject(s, 0, errno);
                assertEquals(errno, ConRsp.errno(s, 0));
            }
            case 2 -> {
                byte[] name = data.consumeAsciiString(254).replace('\0', 'x').replace('/', 'x').replace('.', 'x').getBytes();
                if (name.length == 0) {
                    return;
                }
                InfoReq.write(s, 0, name);
                assertEquals(InfoReq.OK, InfoReq.check(s, 0, InfoReq.LENGTH));
                assertEquals(new String(name), InfoReq.name(s, 0));
            }
            case 3 -> {
                int chunk = data.consumeInt(1, 1 << 17);
                int descs = data.consumeInt(1, 30);
                int per = data.consumeInt(1, 16);
                InfoRsp.writeHeader(s, 0, descs);
                long address = data.consumeLong();
                int key = data.consumeInt();
                for (int i = 0; i < descs; i++) {
                    InfoRsp.writeDesc(s, 0, i, address + i, key ^ i, per * chunk);
                }
                assertEquals(InfoRsp.OK, InfoRsp.check(s, 0, InfoRsp.length(descs), descs * per, chunk));
                assertEquals(InfoRsp.TRUNCATED, InfoRsp.check(s, 0, InfoRsp.length(descs) - 1, descs * per, chunk));
                assertEquals(address + descs - 1, InfoRsp.descAddress(s, 0, descs - 1));
                assertEquals(key ^ (descs - 1), InfoRsp.descKey(s, 0, descs - 1));
            }
            case 4 -> {
                int depth = data.consumeInt(1, Rtrs.MAX_QUEUE_DEPTH);
                int memBits = Imm.memBits(depth);
                int id = data.consumeInt(0, depth - 1);
                int off = data.consumeInt(0, (1 << memBits) - 1);
                int imm = Imm.ioReq(id, off, memBits);
                assertEquals(Imm.IO_REQ, Imm.type(imm));
                assertEquals(id, Imm.chunkId(imm, memBits));
                assertEquals(off, Imm.offset(imm, memBits));
                int msgId = data.consumeInt(0, (1 << 19) - 1);
                int errno = data.consumeInt(0, 511);
                boolean inv = data.consumeBoolean();
                int rsp = Imm.ioRsp(msgId, errno, inv);
                assertEquals(inv ? Imm.IO_RSP_W_INV : Imm.IO_RSP, Imm.type(rsp));
                assertEquals(msgId, Imm.msgId(rsp));
                assertEquals(errno, Imm.errno(rsp));
            }
            default -> {
                int hdr = data.consumeInt(0, 0xFFFF);
                long address = data.consumeLong();
                int key = data.consumeInt();
                int length = data.consumeInt();
                ReadMsg.write(s, 8, hdr, ReadMsg.NEED_INVAL, address, key, length);
                assertEquals(hdr, ReadMsg.userHeaderLength(s, 8));
                assertEquals(1, ReadMsg.descs(s, 8));
                assertEquals(address, ReadMsg.address(s, 8));
                assertEquals(key, ReadMsg.key(s, 8));
                assertEquals(length, ReadMsg.length(s, 8));
                WriteMsg.write(s, 0, hdr);
                assertEquals(hdr, WriteMsg.userHeaderLength(s, 0));
            }
        }
    }
}
