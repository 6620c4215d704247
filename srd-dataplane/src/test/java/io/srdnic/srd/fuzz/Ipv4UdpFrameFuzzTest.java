package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzFrames.DATA_ROOM;
import static io.srdnic.srd.fuzz.FuzzFrames.PORT;
import static io.srdnic.srd.fuzz.FuzzFrames.SRD;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.wire.Checksums;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link Ipv4UdpFrame#check} and {@link Checksums} against the spec, three ways:
 * <ul>
 * <li>check on Ethernet/IPv4/UDP headers with fuzzed fields (each either right or fuzzed, as the
 * input says, checksums repaired or not, on a fuzzed port, sometimes chained) answers exactly what
 * the reference check from docs/wire-format.md answers, and reads nothing past the frame;</li>
 * <li>the ones'-complement sum over any offset and length of any bytes, from any start value,
 * finishes to the value of an independent byte-at-a-time RFC 1071 sum (odd offsets and lengths
 * included);</li>
 * <li>a frame written by {@link Ipv4UdpFrame#write} for any SRD length, addresses and ports checks
 * back to that SRD length with the header fields as documented.</li>
 * </ul>
 */
class Ipv4UdpFrameFuzzTest {
    private static final FuzzRun RUN = new FuzzRun("Ipv4UdpFrameFuzzTest");
    private static final Mbuf M = FuzzFrames.oneMbuf();
    private static final byte[] FRAME = new byte[DATA_ROOM];

    @AfterAll
    static void report() {
        RUN.report();
    }

    @FuzzTest(maxDuration = "6s")
    void checkAndChecksumsAnswerLikeTheSpec(FuzzedDataProvider data) {
        RUN.count();
        switch (data.consumeInt(0, 2)) {
            case 0 -> headers(data);
            case 1 -> checksum(data);
            default -> writeThenCheck(data);
        }
    }

    private static void headers(FuzzedDataProvider data) {
        byte[] f = FRAME;
        Arrays.fill(f, (byte) 0);
        int knobs = data.consumeInt();
        int port = (knobs & 0x1) != 0 ? data.consumeInt(0, 0xFFFF) : PORT;
        int segments = (knobs & 0x2) != 0 ? data.consumeInt(0, 0xFFFF) : 1;
        int srdLength = data.consumeInt(0, 600);
        FuzzFrames.l2l4(f, data.consumeLong() & 0xFFFF_FFFF_FFFFL, 0x02_00_00_00_00_02L, data.consumeInt(), data.consumeInt(),
            data.consumeInt(0, 0xFFFF), PORT, srdLength);
        if ((knobs & 0x4) != 0) {
            FuzzFrames.put16(f, FuzzFrames.ETHERTYPE, data.consumeInt(0, 0xFFFF));
        }
        if ((knobs & 0x8) != 0) {
            f[FuzzFrames.IP] = data.consumeByte();
        }
        if ((knobs & 0x10) != 0) {
            FuzzFrames.put16(f, FuzzFrames.IP_FLAGS, data.consumeInt(0, 0xFFFF));
        }
        if ((knobs & 0x20) != 0) {
            f[FuzzFrames.IP_PROTOCOL] = data.consumeByte();
        }
        if ((knobs & 0x40) != 0) {
            FuzzFrames.put16(f, FuzzFrames.UDP_DST_PORT, data.consumeInt(0, 0xFFFF));
        }
        if ((knobs & 0x80) != 0) {
            FuzzFrames.put16(f, FuzzFrames.IP_TOTAL_LENGTH, data.consumeInt(0, 0xFFFF));
        }
        if ((knobs & 0x100) != 0) {
            FuzzFrames.put16(f, FuzzFrames.UDP_LENGTH, data.consumeInt(0, 0xFFFF));
        }
        int length = (knobs & 0x200) != 0 ? data.consumeInt(0, DATA_ROOM) : Math.max(60, SRD + srdLength);
        byte[] srd = data.consumeBytes(Math.max(0, Math.min(srdLength, length - SRD)));
        System.arraycopy(srd, 0, f, SRD, srd.length);
        if ((knobs & 0x400) == 0) {
            FuzzFrames.fixIpChecksum(f);
        }
        if ((knobs & 0x800) != 0 && length >= SRD) {
            FuzzFrames.fixUdpChecksum(f, length);
        }
        if ((knobs & 0x1000) != 0 && length >= SRD) {
            FuzzFrames.put16(f, FuzzFrames.UDP_CHECKSUM, data.consumeInt(0, 0xFFFF));
        }
        int expected = FuzzFrames.referenceCheck(f, length, segments, port);
        FuzzFrames.load(M, f, length);
        FuzzFrames.segments(M, segments);
        try {
            int checked = Ipv4UdpFrame.check(M, port);
            assertEquals(describe(expected), describe(checked), "the answer of the spec's validation order");
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nframe (" + length + " bytes, " + segments + " segments, port " + port + "): "
                + HexFormat.of().formatHex(f, 0, Math.min(length, 80)), e);
        } finally {
            FuzzFrames.restore(M);
        }
    }

    private static String describe(int code) {
        return code >= 0 ? "SRD length " + code : Ipv4UdpFrame.error(code).name();
    }

    private static void checksum(FuzzedDataProvider data) {
        long initial = data.consumeLong(0, 0xFFFF_FFFFL);
        byte[] b = data.consumeBytes(DATA_ROOM);
        int offset = data.consumeInt(0, b.length);
        int length = data.consumeInt(0, b.length - offset);
        FuzzFrames.load(M, b, b.length);
        try {
            long sum = Checksums.sum(M, offset, length, initial);
            assertEquals(FuzzFrames.checksum(b, offset, length, initial), Checksums.finish(sum),
                "RFC 1071 over " + length + " bytes at offset " + offset + " from " + initial);
        } finally {
            FuzzFrames.restore(M);
        }
    }

    private static void writeThenCheck(FuzzedDataProvider data) {
        int srdLength = data.consumeInt(0, DATA_ROOM - SRD);
        long srcMac = data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        long dstMac = data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        int srcIp = data.consumeInt();
        int dstIp = data.consumeInt();
        int srcPort = data.consumeInt(0, 0xFFFF);
        int dstPort = data.consumeInt(1, 0xFFFF);
        boolean udpChecksum = data.consumeBoolean();
        byte garbage = data.consumeByte();
        byte[] srd = data.consumeRemainingAsBytes();
        FuzzFrames.restore(M);
        M.room().fill(garbage);
        M.copyFrom(MemorySegment.ofArray(srd), 0, SRD, Math.min(srd.length, srdLength));
        Ipv4UdpFrame.write(M, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength, udpChecksum);
        int length = M.dataLength();
        assertEquals(Math.max(60, SRD + srdLength), length, "frame length: headers + SRD bytes, padded to 60");
        byte[] f = FuzzFrames.bytes(M, length);
        FuzzFrames.load(M, f, length);
        try {
            assertEquals(srdLength, Ipv4UdpFrame.check(M, dstPort), "a written frame checks back to its SRD length");
            FuzzFrames.checkL2L4(f, length, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength, udpChecksum);
            for (int i = SRD + srdLength; i < length; i++) {
                assertEquals(0, f[i], "padding to 60 bytes is zero");
            }
        } finally {
            FuzzFrames.restore(M);
        }
    }
}
