package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzFrames.ACK_HEADER;
import static io.srdnic.srd.fuzz.FuzzFrames.DATA_ROOM;
import static io.srdnic.srd.fuzz.FuzzFrames.MTU;
import static io.srdnic.srd.fuzz.FuzzFrames.PORT;
import static io.srdnic.srd.fuzz.FuzzFrames.SRD;
import static io.srdnic.srd.fuzz.FuzzFrames.SRD_HEADER;
import static io.srdnic.srd.fuzz.FuzzFrames.mac;
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
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.ParseError;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link SrdParser#parse} on arbitrary frames: it never throws, never reads past the end of the
 * frame (the mbuf's data room is cut to the frame, so such a read throws), answers a type 1..11 or a
 * ParseError code — exactly the answer of a reference parser written from the validation table of
 * docs/wire-format.md — and for an accepted frame every codec accessor reads what the documented
 * offset holds, within the frame: lengths agree with the frame, at most 16 drops with valid
 * reasons, QPNs within 24 bits, valid checksums.
 * <p>
 * Frames come four ways, so that the fuzzer gets past the L2-L4 checks: raw bytes; valid
 * Ethernet/IPv4/UDP headers to the SRD port around fuzzed SRD bytes (lengths and checksums made
 * right or not, as the input says); a valid frame with a few bytes overwritten; and a chained mbuf.
 */
class ParseFuzzTest {
    private static final FuzzRun RUN = new FuzzRun("ParseFuzzTest");
    private static final Mbuf M = FuzzFrames.oneMbuf();
    private static final byte[] FRAME = new byte[DATA_ROOM];

    @AfterAll
    static void report() {
        RUN.report();
    }

    @FuzzTest(maxDuration = "6s")
    void parserAnswersLikeTheSpecAndReadsOnlyTheFrame(FuzzedDataProvider data) {
        RUN.count();
        byte[] f = FRAME;
        Arrays.fill(f, (byte) 0);
        int mode = data.consumeInt(0, 3);
        int segments = mode == 3 ? data.consumeInt(0, 0xFFFF) : 1;
        int length = switch (mode) {
            case 0 -> raw(data, f);
            case 2 -> mutatedValid(data, f);
            default -> plausible(data, f);
        };
        check(f, length, segments);
    }

    /** Bytes as they come. */
    private static int raw(FuzzedDataProvider data, byte[] f) {
        byte[] b = data.consumeBytes(DATA_ROOM);
        System.arraycopy(b, 0, f, 0, b.length);
        return b.length;
    }

    /** Valid L2-L4 headers to the SRD port around fuzzed SRD bytes; the input picks which lengths and checksums are right. */
    private static int plausible(FuzzedDataProvider data, byte[] f) {
        int knobs = data.consumeInt();
        int srcIp = data.consumeInt();
        int dstIp = data.consumeInt();
        int trailer = (knobs & 0x20) != 0 ? data.consumeInt(0, 64) : 0;
        byte[] srd = data.consumeBytes(DATA_ROOM - SRD - trailer);
        int srdLength = srd.length;
        FuzzFrames.l2l4(f, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, srcIp, dstIp, 49152 + (knobs >>> 18), PORT, srdLength);
        System.arraycopy(srd, 0, f, SRD, srdLength);
        if (srdLength > 0 && (knobs & 0x1) != 0) {
            f[SRD] = (byte) (0x10 | (f[SRD] & 0x0F));                       // version 1
        }
        if (srdLength >= 4 && (knobs & 0x2) != 0) {                         // the SRD length fields agree
            int type = f[SRD] & 0x0F;
            if (type == PacketType.ACK) {
                FuzzFrames.put16(f, SRD + 2, Math.max(0, srdLength - ACK_HEADER) / 8);
            } else {
                FuzzFrames.put16(f, SRD + 2, Math.max(0, srdLength - SRD_HEADER));
            }
        }
        if ((knobs & 0x4) != 0 && srdLength >= SRD_HEADER) {                // QPNs in range
            f[SRD + 24] = 0;
            f[SRD + 28] = 0;
        }
        if ((knobs & 0x8) != 0 && srdLength >= ACK_HEADER) {                // drop reasons in range
            for (int at = SRD + ACK_HEADER + 4; at < SRD + srdLength; at += 8) {
                f[at] = (byte) (1 + (f[at] & 0xFF) % FuzzFrames.MAX_DROP_REASON);
            }
        }
        int length = SRD + srdLength + trailer;
        if ((knobs & 0x40) == 0) {
            FuzzFrames.fixIpChecksum(f);
        }
        if ((knobs & 0x80) != 0) {
            FuzzFrames.fixUdpChecksum(f, length);
        }
        return length;
    }

    /** A frame the codecs would send, with up to four bytes overwritten, checksums then repaired or not. */
    private static int mutatedValid(FuzzedDataProvider data, byte[] f) {
        int type = data.pickValue(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        int srdLength;
        if (type == PacketType.ACK) {
            int drops = data.consumeInt(0, 16);
            srdLength = ACK_HEADER + 8 * drops;
            for (int i = 0; i < drops; i++) {
                FuzzFrames.put32(f, SRD + ACK_HEADER + 8 * i, data.consumeInt());
                f[SRD + ACK_HEADER + 8 * i + 4] = (byte) data.consumeInt(1, FuzzFrames.MAX_DROP_REASON);
            }
            FuzzFrames.put16(f, SRD + 2, drops);
        } else {
            // An RDMA packet holds at least its extended header.
            int payload = PacketType.isData(type) ? data.consumeInt(FuzzFrames.extendedHeaderLength(type), MTU) : 0;
            srdLength = SRD_HEADER + payload;
            FuzzFrames.put16(f, SRD + 2, payload);
            FuzzFrames.put32(f, SRD + 24, data.consumeInt(0, FuzzFrames.MAX_QPN));
            FuzzFrames.put32(f, SRD + 28, data.consumeInt(0, FuzzFrames.MAX_QPN));
        }
        f[SRD] = (byte) (0x10 | type);
        FuzzFrames.l2l4(f, data.consumeLong() & 0xFFFF_FFFF_FFFFL, 0x02_00_00_00_00_02L, data.consumeInt(), data.consumeInt(),
            data.consumeInt(0, 0xFFFF), PORT, srdLength);
        int length = Math.max(60, SRD + srdLength);
        boolean udpChecksum = data.consumeBoolean();
        FuzzFrames.fixIpChecksum(f);
        if (udpChecksum) {
            FuzzFrames.fixUdpChecksum(f, length);
        }
        int mutations = data.consumeInt(0, 4);
        for (int i = 0; i < mutations; i++) {
            f[data.consumeInt(0, length - 1)] = data.consumeByte();
        }
        if (data.consumeBoolean()) {
            FuzzFrames.fixIpChecksum(f);
            if (udpChecksum) {
                FuzzFrames.fixUdpChecksum(f, length);
            }
        }
        return length;
    }

    private static void check(byte[] f, int length, int segments) {
        int expected = FuzzFrames.referenceParse(f, length, segments, PORT, MTU);
        FuzzFrames.load(M, f, length);
        FuzzFrames.segments(M, segments);
        try {
            int result = SrdParser.parse(M, PORT, MTU);
            assertTrue(result >= -ParseError.VALUES.length && result != 0 && result <= PacketType.MAX,
                "a type 1..11 or a ParseError code, was " + result);
            assertEquals(describe(expected), describe(result), "the answer of the spec's validation order");
            assertEquals(result, SrdParser.parse(M, PORT, MTU), "parsing again gives the same answer");
            if (result > 0) {
                checkAccepted(f, length, result);
            }
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nframe (" + length + " bytes, " + segments + " segments): "
                + HexFormat.of().formatHex(f, 0, Math.min(length, 160)), e);
        } finally {
            FuzzFrames.restore(M);
        }
    }

    private static String describe(int code) {
        return code > 0 ? PacketType.name(code) : Ipv4UdpFrame.error(code).name();
    }

    /** Every accessor of an accepted frame reads, inside the frame, what the documented offset holds. */
    private static void checkAccepted(byte[] f, int length, int type) {
        int srdLength = u16(f, FuzzFrames.UDP_LENGTH) - 8;
        assertTrue(14 + u16(f, FuzzFrames.IP_TOTAL_LENGTH) <= length, "the IPv4 packet lies inside the frame");
        assertEquals(srdLength, Ipv4UdpFrame.check(M, PORT));
        assertTrue(FuzzFrames.ipChecksumValid(f), "valid IPv4 checksum");
        assertTrue(FuzzFrames.udpChecksumValid(f, length), "valid (or no) UDP checksum");
        assertEquals(mac(f, 6), Ipv4UdpFrame.sourceMac(M));
        assertEquals(s32(f, FuzzFrames.IP_SRC), Ipv4UdpFrame.sourceIp(M));
        assertEquals(s32(f, FuzzFrames.IP_DST), Ipv4UdpFrame.destinationIp(M));
        assertEquals(u16(f, FuzzFrames.UDP_SRC_PORT), Ipv4UdpFrame.sourcePort(M));
        assertEquals(1, SrdHeader.version(M));
        assertEquals(type, SrdHeader.type(M));
        assertEquals(u8(f, SRD + 1), SrdHeader.flags(M));
        if (type == PacketType.ACK) {
            int drops = SrdAck.dropCount(M);
            assertEquals(u16(f, SRD + 2), drops);
            assertTrue(drops <= SrdAck.MAX_DROPS, "at most 16 drops");
            assertEquals(SrdAck.length(drops), srdLength, "the ACK fills the UDP datagram exactly");
            assertEquals(s32(f, SRD + 4), SrdAck.sourceContext(M));
            assertEquals(s32(f, SRD + 8), SrdAck.destinationContext(M));
            assertEquals(s32(f, SRD + 12), SrdAck.epoch(M));
            assertEquals(s32(f, SRD + 16), SrdAck.cumulativePsn(M));
            assertEquals(s32(f, SRD + 20), SrdAck.echoedEpoch(M));
            assertEquals(s32(f, SRD + 24), SrdAck.triggerPsn(M));
            assertEquals(s64(f, SRD + 32), SrdAck.echoedTimestamp(M));
            for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
                assertEquals(s64(f, SRD + 40 + 8 * w), SrdAck.sackWord(M, w));
            }
            for (int i = 0; i < drops; i++) {
                assertEquals(s32(f, SRD + ACK_HEADER + 8 * i), SrdAck.dropPsn(M, i));
                assertEquals(u8(f, SRD + ACK_HEADER + 8 * i + 4), SrdAck.dropReason(M, i));
                assertTrue(DropReason.isValid(SrdAck.dropReason(M, i)), "drop reasons 1..6");
            }
        } else {
            int payload = SrdHeader.payloadLength(M);
            assertEquals(u16(f, SRD + 2), payload);
            assertTrue(payload <= MTU, "payload within the MTU");
            assertEquals(SrdHeader.LENGTH + payload, srdLength, "header and payload fill the UDP datagram exactly");
            assertTrue(PacketType.isData(type) || payload == 0, "probes carry no payload");
            assertEquals(s32(f, SRD + 4), SrdHeader.sourceContext(M));
            assertEquals(s32(f, SRD + 8), SrdHeader.destinationContext(M));
            assertEquals(s32(f, SRD + 12), SrdHeader.epoch(M));
            assertEquals(s32(f, SRD + 16), SrdHeader.psn(M));
            assertEquals(s32(f, SRD + 20), SrdHeader.sendBase(M));
            assertEquals(s32(f, SRD + 24), SrdHeader.sourceQpn(M));
            assertEquals(s32(f, SRD + 28), SrdHeader.destinationQpn(M));
            assertTrue(Integer.compareUnsigned(SrdHeader.sourceQpn(M), SrdParser.MAX_QPN) <= 0, "source QPN within 24 bits");
            assertTrue(Integer.compareUnsigned(SrdHeader.destinationQpn(M), SrdParser.MAX_QPN) <= 0, "destination QPN within 24 bits");
            assertEquals(s32(f, SRD + 32), SrdHeader.qkey(M));
            assertEquals(s32(f, SRD + 36), SrdHeader.immediate(M));
            assertEquals(s64(f, SRD + 40), SrdHeader.timestamp(M));
            if (payload > 0) {
                assertEquals(f[SRD + SRD_HEADER + payload - 1], M.getByte(SrdHeader.PAYLOAD_OFFSET + payload - 1),
                        "the payload's last byte");
            }
            checkExtendedHeader(f, type, payload);
        }
    }

    /** An accepted RDMA packet holds its whole extended header, and the codec reads it at the documented offsets. */
    private static void checkExtendedHeader(byte[] f, int type, int payload) {
        int at = SRD + SRD_HEADER;
        if (type == PacketType.RDMA_WRITE || type == PacketType.RDMA_WRITE_WITH_IMM || type == PacketType.RDMA_READ) {
            assertTrue(payload >= FuzzFrames.RDMA_HEADER, "an RDMA packet holds its 24-byte header");
            assertEquals(s64(f, at), RdmaHeader.address(M));
            assertEquals(s32(f, at + 8), RdmaHeader.rkey(M));
            assertEquals(s32(f, at + 12), RdmaHeader.dmaLength(M));
            assertEquals(s32(f, at + 16), RdmaHeader.segmentOffset(M));
        } else if (type == PacketType.READ_RESPONSE) {
            assertTrue(payload >= FuzzFrames.READ_RESPONSE_HEADER, "a READ_RESPONSE holds its 16-byte header");
            assertEquals(s32(f, at), ReadResponseHeader.token(M));
            assertEquals(s32(f, at + 4), ReadResponseHeader.readOffset(M));
            assertEquals(s32(f, at + 8), ReadResponseHeader.readLength(M));
            assertEquals(u8(f, at + 12), ReadResponseHeader.status(M));
        } else if (type == PacketType.ATOMIC_CMP_SWAP || type == PacketType.ATOMIC_FETCH_ADD) {
            assertTrue(payload >= FuzzFrames.ATOMIC_HEADER, "an atomic request holds its 32-byte header");
            assertEquals(s64(f, at), AtomicHeader.address(M));
            assertEquals(s32(f, at + 8), AtomicHeader.rkey(M));
            assertEquals(s64(f, at + 16), AtomicHeader.swapOrAdd(M));
            assertEquals(s64(f, at + 24), AtomicHeader.compare(M));
        }
    }
}
