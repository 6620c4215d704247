package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzFrames.DATA_ROOM;
import static io.srdnic.srd.fuzz.FuzzFrames.MTU;
import static io.srdnic.srd.fuzz.FuzzFrames.PORT;
import static io.srdnic.srd.fuzz.FuzzFrames.SRD;
import static io.srdnic.srd.fuzz.FuzzFrames.s32;
import static io.srdnic.srd.fuzz.FuzzFrames.s64;
import static io.srdnic.srd.fuzz.FuzzFrames.u16;
import static io.srdnic.srd.fuzz.FuzzFrames.u8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.ParseError;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterAll;

/**
 * Write, then parse: an SRD data or probe packet written with {@link SrdHeader}'s setters, the
 * extended header of its type ({@link RdmaHeader} for RDMA_WRITE, RDMA_WRITE_WITH_IMM and RDMA_READ,
 * {@link ReadResponseHeader} for READ_RESPONSE, {@link AtomicHeader} for the two atomics) and {@link Ipv4UdpFrame#write} from fuzzed field
 * values (into an mbuf whose room holds fuzzed garbage first, so the writers must define every byte
 * they claim, reserved ones included) parses back as its type with every field as written, at the
 * offsets docs/wire-format.md gives, inside a frame of the documented length with valid checksums.
 * Values the parser must refuse — a QPN over 24 bits, a payload over the MTU, a payload length that
 * cuts the extended header — are refused with the documented error.
 */
class SrdHeaderRoundTripFuzzTest {
    private static final FuzzRun RUN = new FuzzRun("SrdHeaderRoundTripFuzzTest");
    private static final Mbuf M = FuzzFrames.oneMbuf();
    private static final int[] TYPES = {PacketType.SEND, PacketType.SEND_WITH_IMM, PacketType.RDMA_WRITE, PacketType.RDMA_READ,
        PacketType.PROBE, PacketType.PROBE_REPLY, PacketType.RDMA_WRITE_WITH_IMM, PacketType.READ_RESPONSE, PacketType.ATOMIC_CMP_SWAP,
        PacketType.ATOMIC_FETCH_ADD};

    @AfterAll
    static void report() {
        RUN.report();
    }

    @FuzzTest(maxDuration = "6s")
    void whatIsWrittenParsesBackIdentically(FuzzedDataProvider data) {
        RUN.count();
        int type = data.pickValue(TYPES);
        int flags = data.consumeInt(0, 255);
        int extended = PacketType.extendedHeaderLength(type);
        boolean bigPayload = PacketType.isData(type) && data.consumeInt(0, 15) == 0;
        int dataLength = !PacketType.isData(type) ? 0
            : bigPayload ? data.consumeInt(0, DATA_ROOM - SRD - SrdHeader.LENGTH - extended) : data.consumeInt(0, 64);
        // Now and then a payload length that cuts the extended header short: the parser refuses it.
        boolean cutHeader = extended > 0 && data.consumeInt(0, 15) == 0;
        int payload = cutHeader ? data.consumeInt(0, extended - 1) : extended + dataLength;
        if (cutHeader) {
            dataLength = payload;
        }
        int srcContext = data.consumeInt();
        int dstContext = data.consumeInt();
        int epoch = data.consumeInt();
        int psn = data.consumeInt();
        int sendBase = data.consumeInt();
        boolean anyQpn = data.consumeInt(0, 7) == 0;
        int srcQpn = anyQpn ? data.consumeInt() : data.consumeInt(0, SrdParser.MAX_QPN);
        int dstQpn = anyQpn ? data.consumeInt() : data.consumeInt(0, SrdParser.MAX_QPN);
        int qkey = data.consumeInt();
        int imm = data.consumeInt();
        long timestamp = data.consumeLong();
        long srcMac = data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        long dstMac = data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        int srcIp = data.consumeInt();
        int dstIp = data.consumeInt();
        int srcPort = data.consumeInt(0, 0xFFFF);
        boolean udpChecksum = data.consumeBoolean();
        byte garbage = data.consumeByte();
        Extended x = new Extended(data.consumeLong(), data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(0, 255),
            data.consumeLong(), data.consumeLong());
        byte[] payloadBytes = new byte[dataLength];
        byte[] given = data.consumeRemainingAsBytes();
        for (int i = 0; i < dataLength; i++) {
            payloadBytes[i] = i < given.length ? given[i] : (byte) (i * 7 + 3);
        }
        int dataAt = SrdHeader.PAYLOAD_OFFSET + (cutHeader ? 0 : extended);

        FuzzFrames.restore(M);
        M.room().fill(garbage);
        M.copyFrom(MemorySegment.ofArray(payloadBytes), 0, dataAt, dataLength);
        if (!cutHeader) {
            x.write(M, type);
        }
        SrdHeader.versionAndType(M, type);
        SrdHeader.flags(M, flags);
        SrdHeader.payloadLength(M, payload);
        SrdHeader.sourceContext(M, srcContext);
        SrdHeader.destinationContext(M, dstContext);
        SrdHeader.epoch(M, epoch);
        SrdHeader.psn(M, psn);
        SrdHeader.sendBase(M, sendBase);
        SrdHeader.sourceQpn(M, srcQpn);
        SrdHeader.destinationQpn(M, dstQpn);
        SrdHeader.qkey(M, qkey);
        SrdHeader.immediate(M, imm);
        SrdHeader.timestamp(M, timestamp);
        int srdLength = SrdHeader.LENGTH + payload;
        Ipv4UdpFrame.write(M, srcMac, dstMac, srcIp, dstIp, srcPort, PORT, srdLength, udpChecksum);

        int length = M.dataLength();
        assertEquals(Math.max(60, SRD + srdLength), length, "frame length: headers + payload, padded to 60");
        byte[] f = FuzzFrames.bytes(M, length);
        FuzzFrames.load(M, f, length);                 // reads past the frame now throw
        int expected = Integer.compareUnsigned(srcQpn, SrdParser.MAX_QPN) > 0 || Integer.compareUnsigned(dstQpn, SrdParser.MAX_QPN) > 0
            ? FuzzFrames.code(ParseError.OUT_OF_RANGE) : type;
        if (cutHeader) {
            expected = FuzzFrames.code(ParseError.BAD_LENGTH);
        }
        if (payload > MTU) {
            expected = FuzzFrames.code(ParseError.OVERSIZED);
        } else if (payload < PacketType.extendedHeaderLength(type)) {
            expected = FuzzFrames.code(ParseError.BAD_LENGTH); // too short for the RDMA header it must hold
        }
        FuzzFrames.checkParsedFrame(M, f, length, expected, srcMac, dstMac, srcIp, dstIp, srcPort, srdLength, udpChecksum);

        // The SRD header through the codec and at the documented offsets.
        assertEquals(SrdHeader.VERSION, SrdHeader.version(M));
        assertEquals(0x10 | type, u8(f, SRD));
        assertEquals(type, SrdHeader.type(M));
        assertEquals(flags, SrdHeader.flags(M));
        assertEquals(flags, u8(f, SRD + 1));
        assertEquals(payload, SrdHeader.payloadLength(M));
        assertEquals(payload, u16(f, SRD + 2));
        assertEquals(srcContext, SrdHeader.sourceContext(M));
        assertEquals(srcContext, s32(f, SRD + 4));
        assertEquals(dstContext, SrdHeader.destinationContext(M));
        assertEquals(dstContext, s32(f, SRD + 8));
        assertEquals(epoch, SrdHeader.epoch(M));
        assertEquals(epoch, s32(f, SRD + 12));
        assertEquals(psn, SrdHeader.psn(M));
        assertEquals(psn, s32(f, SRD + 16));
        assertEquals(sendBase, SrdHeader.sendBase(M));
        assertEquals(sendBase, s32(f, SRD + 20));
        assertEquals(srcQpn, SrdHeader.sourceQpn(M));
        assertEquals(srcQpn, s32(f, SRD + 24));
        assertEquals(dstQpn, SrdHeader.destinationQpn(M));
        assertEquals(dstQpn, s32(f, SRD + 28));
        assertEquals(qkey, SrdHeader.qkey(M));
        assertEquals(qkey, s32(f, SRD + 32));
        assertEquals(imm, SrdHeader.immediate(M));
        assertEquals(imm, s32(f, SRD + 36));
        assertEquals(timestamp, SrdHeader.timestamp(M));
        assertEquals(timestamp, s64(f, SRD + 40));
        if (!cutHeader) {
            x.check(M, f, type);
        }
        for (int i = 0; i < dataLength; i++) {
            if (f[dataAt + i] != payloadBytes[i]) {
                throw new AssertionError("payload byte " + i + " changed");
            }
        }
        for (int i = SRD + srdLength; i < length; i++) {
            assertTrue(f[i] == 0, "padding to 60 bytes is zero");
        }
        FuzzFrames.restore(M);
    }

    /**
     * The fuzzed fields of an extended header, whichever the type has: an RDMA header's address,
     * rkey, length and segment offset, a READ_RESPONSE's token, offset, length and status, or an
     * atomic's address, rkey and its two operands.
     */
    private record Extended(long address, int first, int second, int third, int status, long swapOrAdd, long compare) {
        void write(Mbuf m, int type) {
            if (PacketType.extendedHeaderLength(type) == RdmaHeader.LENGTH) {
                RdmaHeader.write(m, address, first, second, third);
            } else if (type == PacketType.READ_RESPONSE) {
                ReadResponseHeader.write(m, first, second, third, status);
            } else if (PacketType.extendedHeaderLength(type) == AtomicHeader.LENGTH) {
                AtomicHeader.write(m, address, first, swapOrAdd, compare);
            }
        }

        /** Read back through the codec and at the documented offsets (SRD + 48 on), reserved bytes zero. */
        void check(Mbuf m, byte[] f, int type) {
            int at = SRD + SrdHeader.LENGTH;
            if (PacketType.extendedHeaderLength(type) == RdmaHeader.LENGTH) {
                assertEquals(address, RdmaHeader.address(m));
                assertEquals(address, s64(f, at));
                assertEquals(first, RdmaHeader.rkey(m));
                assertEquals(first, s32(f, at + 8));
                assertEquals(second, RdmaHeader.dmaLength(m));
                assertEquals(second, s32(f, at + 12));
                assertEquals(third, RdmaHeader.segmentOffset(m));
                assertEquals(third, s32(f, at + 16));
                assertEquals(0, s32(f, at + 20), "the RDMA header's reserved word");
            } else if (type == PacketType.READ_RESPONSE) {
                assertEquals(first, ReadResponseHeader.token(m));
                assertEquals(first, s32(f, at));
                assertEquals(second, ReadResponseHeader.readOffset(m));
                assertEquals(second, s32(f, at + 4));
                assertEquals(third, ReadResponseHeader.readLength(m));
                assertEquals(third, s32(f, at + 8));
                assertEquals(status, ReadResponseHeader.status(m));
                assertEquals(status, u8(f, at + 12));
                assertTrue(u8(f, at + 13) == 0 && u16(f, at + 14) == 0, "the READ_RESPONSE header's reserved 24 bits");
            } else if (PacketType.extendedHeaderLength(type) == AtomicHeader.LENGTH) {
                assertEquals(address, AtomicHeader.address(m));
                assertEquals(address, s64(f, at));
                assertEquals(first, AtomicHeader.rkey(m));
                assertEquals(first, s32(f, at + 8));
                assertEquals(0, s32(f, at + 12), "the atomic header's reserved word");
                assertEquals(swapOrAdd, AtomicHeader.swapOrAdd(m));
                assertEquals(swapOrAdd, s64(f, at + 16));
                assertEquals(compare, AtomicHeader.compare(m));
                assertEquals(compare, s64(f, at + 24));
            }
        }
    }
}
