package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.WireFrames.u16;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.ffm.rte_mbuf;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Ethernet/IPv4/UDP headers: fields, checksums (checked independently), padding; the UDP checksum
 * handed to a NIC that offloads it, and a received frame judged by the NIC's verdict in its ol_flags
 * (RTE_MBUF_F_RX_L4_CKSUM_GOOD / BAD) when it gave one, else by software.
 */
class Ipv4UdpFrameTest {
    static {
        WireFrames.forbidNativeDpdk();
    }

    /**
     * A SEND of "hello" from 02:00:00:00:00:01 / 10.0.0.1 / 49159 to 02:00:00:00:00:02 / 10.0.0.2 /
     * 21330, built with Python's standard library (struct, and RFC 1071 summed by hand):
     * IPv4 checksum 0x269a (4500+0051+0000+4000+4011+0a00+0001+0a00+0002 = 0xd965, inverted), UDP
     * checksum 0xf8ac.
     */
    static final String KNOWN_SEND = "020000000002020000000001080045000051000040004011269a0a0000010a000002c0075352003df8ac"
        + "1100000501020304050607089abcdef0fffffffefffffff00000001100abcdef1111111100000000010203040506070868656c6c6f";

    private static final MemorySegment NATIVE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 2, SimBufferPool.DEFAULT_DATA_ROOM);
    private final MbufBatch batch = new MbufBatch(arena, 2);
    private Mbuf m;

    @BeforeEach
    void setUp() {
        pool.allocate(batch, 1, 0);
        m = batch.get(0);
    }

    @AfterEach
    void tearDown() {
        pool.free(batch);
        arena.close();
    }

    @Test
    void shouldMatchAFrameBuiltIndependently() {
        SrdHeader.versionAndType(m, PacketType.SEND);
        SrdHeader.flags(m, 0);
        SrdHeader.payloadLength(m, 5);
        SrdHeader.sourceContext(m, 0x0102_0304);
        SrdHeader.destinationContext(m, 0x0506_0708);
        SrdHeader.epoch(m, 0x9abc_def0);
        SrdHeader.psn(m, 0xffff_fffe);
        SrdHeader.sendBase(m, 0xffff_fff0);
        SrdHeader.sourceQpn(m, 0x11);
        SrdHeader.destinationQpn(m, 0xab_cdef);
        SrdHeader.qkey(m, 0x1111_1111);
        SrdHeader.immediate(m, 0);
        SrdHeader.timestamp(m, 0x0102_0304_0506_0708L);
        byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < hello.length; i++) {
            m.putByte(SrdHeader.PAYLOAD_OFFSET + i, hello[i]);
        }
        Ipv4UdpFrame.write(m, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, 0x0A00_0001, 0x0A00_0002,
            SrdPort.sourcePort(7), SrdPort.DEFAULT, SrdHeader.LENGTH + 5, true);
        assertEquals(HexFormat.of().formatHex(HexFormat.of().parseHex(KNOWN_SEND)), HexFormat.of().formatHex(WireFrames.bytes(m)));
        assertEquals(0x269a, Short.toUnsignedInt(m.getShortBE(24)));
        assertEquals(0xf8ac, Short.toUnsignedInt(m.getShortBE(40)));
        assertEquals(PacketType.SEND, SrdParser.parse(m, SrdPort.DEFAULT, WireFrames.MTU));
    }

    @Test
    void shouldMatchTheIndependentFrameWhenTheSrdHeaderIsSummedAsItIsWritten() {
        long headerSum = SrdHeader.write(m, PacketType.SEND, 0, 5, 0x0102_0304, 0x0506_0708, 0x9abc_def0, 0xffff_fffe, 0xffff_fff0,
            0x11, 0xab_cdef, 0x1111_1111, 0, 0x0102_0304_0506_0708L);
        byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < hello.length; i++) {
            m.putByte(SrdHeader.PAYLOAD_OFFSET + i, hello[i]);
        }
        Ipv4UdpFrame.write(m, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, 0x0A00_0001, 0x0A00_0002,
            SrdPort.sourcePort(7), SrdPort.DEFAULT, SrdHeader.LENGTH + 5, true, headerSum, SrdHeader.LENGTH);
        assertEquals(HexFormat.of().formatHex(HexFormat.of().parseHex(KNOWN_SEND)), HexFormat.of().formatHex(WireFrames.bytes(m)));
    }

    /**
     * The header's sum computed from its fields gives the frame, checksum included, that summing the
     * bytes read back gives: random fields (all bits, the ones above the 24-bit QPNs and a type's 4
     * bits included), payloads of every length 0..99 (odd ones too), both ways into the same mbuf.
     */
    @Test
    void shouldWriteTheSameFrameFromTheHeadersSumAsFromItsBytes() {
        SplittableRandom random = new SplittableRandom(28);
        for (int len = 0; len < 100; len++) {
            int[] f = new int[12];
            for (int i = 0; i < f.length; i++) {
                f[i] = random.nextInt();
            }
            long ts = random.nextLong();
            byte[] payload = new byte[len];
            random.nextBytes(payload);
            int srcPort = random.nextInt(0x1_0000);
            byte[][] frames = new byte[2][];
            for (int way = 0; way < 2; way++) {
                long sum = SrdHeader.write(m, f[0], f[1], len, f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], ts);
                m.copyFrom(MemorySegment.ofArray(payload), 0, SrdHeader.PAYLOAD_OFFSET, len);
                if (way == 0) {
                    Ipv4UdpFrame.write(m, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, f[11], ~f[11], srcPort, SrdPort.DEFAULT,
                        SrdHeader.LENGTH + len, true);
                } else {
                    Ipv4UdpFrame.write(m, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, f[11], ~f[11], srcPort, SrdPort.DEFAULT,
                        SrdHeader.LENGTH + len, true, sum, SrdHeader.LENGTH);
                }
                frames[way] = WireFrames.bytes(m);
            }
            assertEquals(HexFormat.of().formatHex(frames[0]), HexFormat.of().formatHex(frames[1]), "payload of " + len + " bytes");
            assertTrue(WireFrames.udpChecksumValid(frames[1]), "the UDP checksum verifies, payload of " + len);
        }
    }

    @Test
    void shouldWriteEveryHeaderFieldWithValidChecksums() {
        SplittableRandom random = new SplittableRandom(1071);
        for (int round = 0; round < 5_000; round++) {
            long srcMac = random.nextLong() >>> 16;
            long dstMac = random.nextLong() >>> 16;
            int srcIp = round == 0 ? -1 : random.nextInt();
            int dstIp = round == 0 ? -1 : random.nextInt();
            int srcPort = round == 1 ? 0xFFFF : random.nextInt(0x10000);
            int dstPort = random.nextInt(0x10000);
            int srdLength = round < 100 ? round : random.nextInt(WireFrames.MTU + SrdHeader.LENGTH + 1);
            for (int i = 0; i < srdLength; i++) {
                m.putByte(FrameLayout.SRD_OFFSET + i, (byte) random.nextInt());
            }
            Ipv4UdpFrame.write(m, srcMac, dstMac, srcIp, dstIp, srcPort, dstPort, srdLength, true);
            byte[] f = WireFrames.bytes(m);
            String where = "round " + round + ", SRD length " + srdLength;
            assertEquals(Math.max(60, 42 + srdLength), f.length, where);
            assertEquals(dstMac, readMac(f, 0), where);
            assertEquals(srcMac, readMac(f, 6), where);
            assertEquals(srcMac, Ipv4UdpFrame.sourceMac(m), where);
            assertEquals(0x0800, u16(f, 12), "EtherType IPv4");
            assertEquals(0x45, f[14] & 0xFF, "version 4, IHL 5");
            assertEquals(0, f[15], "DSCP 0, ECN 0");
            assertEquals(20 + 8 + srdLength, u16(f, 16), "IPv4 total length");
            assertEquals(0, u16(f, 18), "identification 0");
            assertEquals(0x4000, u16(f, 20), "DF set, no MF, fragment offset 0");
            assertEquals(64, f[22] & 0xFF, "TTL");
            assertEquals(17, f[23] & 0xFF, "UDP");
            assertEquals(srcIp, WireFrames.s32(f, 26));
            assertEquals(dstIp, WireFrames.s32(f, 30));
            assertEquals(srcPort, u16(f, 34));
            assertEquals(dstPort, u16(f, 36));
            assertEquals(8 + srdLength, u16(f, 38), "UDP length");
            assertTrue(WireFrames.ipChecksumValid(f), where);
            assertTrue(u16(f, 40) != 0, "UDP checksum present");
            assertTrue(WireFrames.udpChecksumValid(f), where);
            assertEquals(srcIp, Ipv4UdpFrame.sourceIp(m));
            assertEquals(dstIp, Ipv4UdpFrame.destinationIp(m));
            assertEquals(srcPort, Ipv4UdpFrame.sourcePort(m));
            assertEquals(srdLength, Ipv4UdpFrame.check(m, dstPort), where);
        }
    }

    @Test
    void shouldLeaveTheUdpChecksumZeroWhenNotAsked() {
        SplittableRandom random = new SplittableRandom(0);
        for (int round = 0; round < 500; round++) {
            int srdLength = random.nextInt(200);
            m.putShortBE(40, (short) 0x7777);
            Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, random.nextInt(), random.nextInt(),
                random.nextInt(0x10000), WireFrames.PORT, srdLength, false);
            byte[] f = WireFrames.bytes(m);
            assertEquals(0, u16(f, 40), "0 means no UDP checksum");
            assertTrue(WireFrames.ipChecksumValid(f));
            assertEquals(srdLength, Ipv4UdpFrame.check(m, WireFrames.PORT), "accepted without a UDP checksum");
        }
    }

    @Test
    void shouldSendAllOnesWhenTheUdpChecksumComesOutZero() {
        // Make the ones'-complement sum of pseudo-header + UDP + data 0xffff, whose checksum is 0:
        // the last payload word is chosen to complement the sum of everything else.
        int srdLength = 64;
        for (int i = 0; i < srdLength; i++) {
            m.putByte(FrameLayout.SRD_OFFSET + i, (byte) (i * 37));
        }
        m.putShortBE(FrameLayout.SRD_OFFSET + srdLength - 2, (short) 0);
        Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP, 50000,
            WireFrames.PORT, srdLength, false);
        byte[] f = WireFrames.bytes(m);
        int partial = WireFrames.checksum(f, 34, 8 + srdLength, WireFrames.pseudoHeader(f));  // ~sum, with the word 0
        m.putShortBE(FrameLayout.SRD_OFFSET + srdLength - 2, (short) partial);                 // sum + ~sum = 0xffff
        Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP, 50000,
            WireFrames.PORT, srdLength, true);
        f = WireFrames.bytes(m);
        assertEquals(0xFFFF, u16(f, 40), "a computed 0 goes on the wire as 0xffff (RFC 768)");
        assertTrue(WireFrames.udpChecksumValid(f));
        assertEquals(srdLength, Ipv4UdpFrame.check(m, WireFrames.PORT));
    }

    @Test
    void shouldPadShortFramesToSixtyBytesOfZerosThatStillParse() {
        for (int srdLength = 0; srdLength <= 18; srdLength++) {
            for (int i = 0; i < 64; i++) {
                m.putByte(i, (byte) 0xEE);                   // garbage where the padding goes
            }
            for (int i = 0; i < srdLength; i++) {
                m.putByte(FrameLayout.SRD_OFFSET + i, (byte) (0x10 + i));
            }
            Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP, 50000,
                WireFrames.PORT, srdLength, true);
            byte[] f = WireFrames.bytes(m);
            assertEquals(60, f.length, "SRD length " + srdLength);
            assertEquals(60, m.packetLength());
            for (int i = 42 + srdLength; i < 60; i++) {
                assertEquals(0, f[i], "padding byte " + i + " for SRD length " + srdLength);
            }
            assertEquals(28 + srdLength, u16(f, 16), "IPv4 total length counts no padding");
            assertTrue(WireFrames.udpChecksumValid(f), "UDP checksum over the datagram only");
            assertEquals(srdLength, Ipv4UdpFrame.check(m, WireFrames.PORT), "the IPv4 total length bounds the packet");
        }
        Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP, 50000,
            WireFrames.PORT, 19, true);
        assertEquals(61, m.dataLength(), "61 bytes need no padding");
    }

    @Test
    void shouldParsePaddedFramesByTheirIpv4TotalLength() {
        // A real SRD packet is never under 60 bytes, but a frame may still carry bytes after the IPv4
        // packet (a NIC or switch padding it): they are ignored by the checksums and the length checks.
        SplittableRandom random = new SplittableRandom(60);
        for (int round = 0; round < 200; round++) {
            int length = WireFrames.writeValid(m, round, round % 2 == 0, round);
            int expectedType = SrdHeader.type(m);
            int extra = 1 + random.nextInt(64);
            for (int i = 0; i < extra; i++) {
                m.putByte(length + i, (byte) random.nextInt());
            }
            m.frameLength(length + extra);
            assertEquals(expectedType, SrdParser.parse(m, WireFrames.PORT, WireFrames.MTU), "round " + round);
        }
        // Ethernet-level padding of a minimal-size frame: IPv4 says 28 + 1 bytes, the frame has 60.
        SrdHeader.versionAndType(m, PacketType.SEND);
        Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP, 50000,
            WireFrames.PORT, 1, true);
        assertEquals(1, Ipv4UdpFrame.check(m, WireFrames.PORT));
        assertEquals(ParseError.TRUNCATED, Ipv4UdpFrame.error(SrdParser.parse(m, WireFrames.PORT, WireFrames.MTU)),
            "1 byte of SRD is too short for a header, whatever the padding");
    }

    @Test
    void shouldMapEveryParseErrorToItsOwnNegativeCode() {
        for (ParseError e : ParseError.values()) {
            int code = Ipv4UdpFrame.fail(e);
            assertEquals(-(e.ordinal() + 1), code);
            assertTrue(code < 0);
            assertEquals(e, Ipv4UdpFrame.error(code));
        }
        assertArrayEquals(ParseError.values(), ParseError.VALUES);
    }

    private static long readMac(byte[] f, int at) {
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = (mac << 8) | (f[at + i] & 0xFF);
        }
        return mac;
    }

    // ---- the UDP checksum handed to a NIC that offloads it, and the NIC's verdict on a received frame

    /** {@link #KNOWN_SEND} without its UDP checksum. */
    private void knownSendWithoutChecksum() {
        byte[] known = HexFormat.of().parseHex(KNOWN_SEND);
        m.frameLength(known.length);
        for (int i = 0; i < known.length; i++) {
            m.putByte(i, known[i]);
        }
        m.putShortBE(40, (short) 0);
    }

    @Test
    void shouldHandTheNicThePseudoHeaderSumAndTheHeaderLengths() {
        knownSendWithoutChecksum();
        Ipv4UdpFrame.offloadUdpChecksum(m);
        // 0a00 + 0001 + 0a00 + 0002 + 0011 + 003d (UDP length 61): folded, not inverted
        assertEquals(0x1451, Short.toUnsignedInt(m.getShortBE(40)));
        long flags = rte_mbuf.RTE_MBUF_F_TX_IPV4 | rte_mbuf.RTE_MBUF_F_TX_UDP_CKSUM;
        assertEquals(flags, m.offloadFlags() & flags);
        assertEquals(14 | (20 << 7), NATIVE.get(ValueLayout.JAVA_LONG_UNALIGNED, m.address() + rte_mbuf.TX_OFFLOAD_OFFSET),
            "l2_len 14, l3_len 20");
        // What the NIC does: the ones'-complement sum from the UDP header on, the field included, inverted.
        m.putShortBE(40, (short) Checksums.finish(Checksums.sum(m, 34, 61, 0)));
        assertEquals(0xf8ac, Short.toUnsignedInt(m.getShortBE(40)), "the checksum Python computed for this frame");
    }

    @Test
    void shouldDropAFrameTheNicFoundBadEvenIfItsChecksumVerifiesInSoftware() {
        knownSendWithoutChecksum();
        m.putShortBE(40, (short) 0xf8ac);
        assertEquals(PacketType.SEND, SrdParser.parse(m, SrdPort.DEFAULT, WireFrames.MTU));
        m.offloadFlags(rte_mbuf.RTE_MBUF_F_RX_L4_CKSUM_BAD);
        assertEquals(ParseError.BAD_UDP_CHECKSUM, Ipv4UdpFrame.error(SrdParser.parse(m, SrdPort.DEFAULT, WireFrames.MTU)));
    }

    @Test
    void shouldTakeAFrameWithoutAChecksumWhateverVerdictTheNicGave() {
        knownSendWithoutChecksum(); // UDP checksum 0: none (RFC 768), as a peer with udp-checksum=false sends
        m.offloadFlags(rte_mbuf.RTE_MBUF_F_RX_L4_CKSUM_BAD); // a NIC that judges the 0 wrong
        assertEquals(PacketType.SEND, SrdParser.parse(m, SrdPort.DEFAULT, WireFrames.MTU));
    }

    @Test
    void shouldTakeTheNicsGoodVerdictAndCheckInSoftwareWithoutOne() {
        knownSendWithoutChecksum();
        m.putShortBE(40, (short) 0xf8ac);
        m.putByte(m.dataLength() - 1, (byte) 'O'); // "hellO": the checksum no longer matches
        assertEquals(ParseError.BAD_UDP_CHECKSUM, Ipv4UdpFrame.error(SrdParser.parse(m, SrdPort.DEFAULT, WireFrames.MTU)),
            "no verdict from the NIC: software finds it");
        m.offloadFlags(rte_mbuf.RTE_MBUF_F_RX_L4_CKSUM_GOOD);
        assertEquals(PacketType.SEND, SrdParser.parse(m, SrdPort.DEFAULT, WireFrames.MTU), "the NIC checked the wire's bytes: trusted");
    }
}
