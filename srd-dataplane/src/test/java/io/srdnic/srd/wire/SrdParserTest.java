package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;
import static io.srdnic.srd.wire.WireFrames.MTU;
import static io.srdnic.srd.wire.WireFrames.PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link SrdParser#parse} accepts, and for each defect the one {@link ParseError} it reports.
 * Every rejected frame is otherwise well-formed: after an edit the checksums are recomputed (by the
 * test's own routine), so the edit is the only thing wrong with it.
 */
class SrdParserTest {
    static {
        WireFrames.forbidNativeDpdk();
    }

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
        WireFrames.segments(m, 1);
        pool.free(batch);
        arena.close();
    }

    private int parse() {
        return SrdParser.parse(m, PORT, MTU);
    }

    private void assertRejected(ParseError expected, String what) {
        int code = parse();
        assertEquals(expected, code < 0 ? Ipv4UdpFrame.error(code) : null, what + " (parse returned " + code + ")");
    }

    // ---- accepted --------------------------------------------------------------------------------

    @Test
    void shouldAcceptSendOfEveryPayloadSizeUpToTheMtu() {
        int[] sizes = {0, 1, 2, 3, 17, 47, 48, 1000, 1472 - 48, MTU - 1, MTU};
        for (boolean udpChecksum : new boolean[] {true, false}) {
            for (int size : sizes) {
                long seed = size * 7L + (udpChecksum ? 1 : 0);
                int length = WireFrames.writeData(m, PacketType.SEND, size, udpChecksum, seed);
                assertEquals(SrdHeader.PAYLOAD_OFFSET + size, length);
                assertEquals(PacketType.SEND, parse(), "SEND with " + size + " bytes, UDP checksum " + udpChecksum);
                assertEquals(size, SrdHeader.payloadLength(m));
                for (int i = 0; i < size; i++) {
                    assertEquals(WireFrames.payloadByte(seed, i), m.getByte(SrdHeader.PAYLOAD_OFFSET + i));
                }
            }
        }
    }

    @Test
    void shouldAcceptTheTypesWithExtendedHeaders() {
        WireFrames.writeData(m, PacketType.SEND_WITH_IMM, 12, true, 1);
        assertEquals(PacketType.SEND_WITH_IMM, parse());
        WireFrames.writeData(m, PacketType.SEND_WITH_IMM, 0, true, 2);
        assertEquals(PacketType.SEND_WITH_IMM, parse());
        WireFrames.writeData(m, PacketType.RDMA_WRITE, RdmaHeader.LENGTH + 64, true, 3);
        assertEquals(PacketType.RDMA_WRITE, parse());
        WireFrames.writeData(m, PacketType.RDMA_WRITE_WITH_IMM, RdmaHeader.LENGTH, true, 3);
        assertEquals(PacketType.RDMA_WRITE_WITH_IMM, parse());
        WireFrames.writeData(m, PacketType.RDMA_READ, RdmaHeader.LENGTH, true, 4);
        assertEquals(PacketType.RDMA_READ, parse());
        WireFrames.writeData(m, PacketType.READ_RESPONSE, ReadResponseHeader.LENGTH + 100, true, 4);
        assertEquals(PacketType.READ_RESPONSE, parse());
        WireFrames.writeData(m, PacketType.ATOMIC_CMP_SWAP, AtomicHeader.LENGTH, true, 4);
        assertEquals(PacketType.ATOMIC_CMP_SWAP, parse());
        WireFrames.writeData(m, PacketType.ATOMIC_FETCH_ADD, AtomicHeader.LENGTH, false, 4);
        assertEquals(PacketType.ATOMIC_FETCH_ADD, parse());
    }

    @Test
    void shouldRejectAnRdmaPacketTooShortForItsExtendedHeader() {
        for (int type : new int[] {PacketType.RDMA_WRITE, PacketType.RDMA_WRITE_WITH_IMM, PacketType.RDMA_READ, PacketType.READ_RESPONSE,
            PacketType.ATOMIC_CMP_SWAP, PacketType.ATOMIC_FETCH_ADD}) {
            WireFrames.writeData(m, type, PacketType.extendedHeaderLength(type) - 1, true, 5);
            assertRejected(ParseError.BAD_LENGTH, PacketType.name(type) + " one byte short of its extended header");
        }
    }

    @Test
    void shouldAcceptAcksWithZeroToSixteenDrops() {
        for (int drops = 0; drops <= SrdAck.MAX_DROPS; drops++) {
            for (boolean udpChecksum : new boolean[] {true, false}) {
                int length = WireFrames.writeAck(m, drops, udpChecksum, drops);
                assertEquals(SRD_OFFSET + 72 + 8 * drops, length);
                assertEquals(PacketType.ACK, parse(), drops + " drops");
                assertEquals(drops, SrdAck.dropCount(m));
            }
        }
        WireFrames.writeAck(m, 4, true, 99);
        for (int i = 0; i < 4; i++) {
            SrdAck.drop(m, i, 1000 + i, i + 1);              // every reason there is
        }
        WireFrames.refreshChecksums(m);
        assertEquals(PacketType.ACK, parse());
    }

    @Test
    void shouldAcceptBothProbeTypes() {
        WireFrames.writeData(m, PacketType.PROBE, 0, true, 5);
        assertEquals(PacketType.PROBE, parse());
        WireFrames.writeData(m, PacketType.PROBE_REPLY, 0, false, 6);
        assertEquals(PacketType.PROBE_REPLY, parse());
    }

    @Test
    void shouldAcceptTheLargestQpn() {
        WireFrames.writeData(m, PacketType.SEND, 8, true, 7);
        SrdHeader.sourceQpn(m, SrdParser.MAX_QPN);
        SrdHeader.destinationQpn(m, SrdParser.MAX_QPN);
        WireFrames.refreshChecksums(m);
        assertEquals(PacketType.SEND, parse());
    }

    @Test
    void shouldTakeAPayloadUpToTheGivenMtu() {
        WireFrames.writeData(m, PacketType.SEND, 1000, true, 8);
        assertEquals(PacketType.SEND, SrdParser.parse(m, PORT, 1000));
        assertEquals(ParseError.OVERSIZED, Ipv4UdpFrame.error(SrdParser.parse(m, PORT, 999)));
    }

    @Test
    void shouldTakeOnlyFramesToTheGivenPort() {
        WireFrames.writeData(m, PacketType.SEND, 1000, true, 8);
        assertEquals(ParseError.NOT_SRD_PORT, Ipv4UdpFrame.error(SrdParser.parse(m, 4791, MTU)));
        m.putShortBE(36, (short) 4791);
        WireFrames.refreshChecksums(m);
        assertEquals(PacketType.SEND, SrdParser.parse(m, 4791, MTU));
    }

    // ---- truncated -------------------------------------------------------------------------------

    @Test
    void shouldRejectAFrameCutShorterThanItsL2ToL4HeadersAsTruncated() {
        for (int kind = 0; kind < 7; kind++) {
            int length = WireFrames.writeValid(m, kind, true, kind);
            for (int cut = 0; cut < FrameLayout.L2_L4_LENGTH; cut++) {
                m.frameLength(cut);
                assertRejected(ParseError.TRUNCATED, "kind " + kind + " cut to " + cut + " bytes");
            }
            m.frameLength(length);
            assertEquals(SrdHeader.type(m), parse(), "kind " + kind + " whole again");
        }
    }

    @Test
    void shouldRejectEverySrdLengthBelowTheHeaderOfItsTypeAsTruncated() {
        int[] types = {PacketType.SEND, PacketType.SEND_WITH_IMM, PacketType.RDMA_WRITE, PacketType.RDMA_READ,
            PacketType.PROBE, PacketType.PROBE_REPLY, PacketType.ACK};
        for (int type : types) {
            int minimum = type == PacketType.ACK ? SrdAck.LENGTH : SrdHeader.LENGTH;
            for (int srdLength = 0; srdLength < minimum; srdLength++) {
                for (int i = 0; i < minimum; i++) {
                    m.putByte(SRD_OFFSET + i, (byte) 0);
                }
                SrdHeader.versionAndType(m, type);           // present only when srdLength >= 1
                Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP,
                    SrdPort.sourcePort(srdLength), PORT, srdLength, srdLength % 2 == 0);
                assertRejected(ParseError.TRUNCATED, PacketType.name(type) + " with " + srdLength + " SRD bytes");
            }
        }
    }

    @Test
    void shouldRejectAFrameShorterThanItsIpv4TotalLengthAsBadLength() {
        // Cut between the UDP header and the end of the IPv4 packet: the IPv4 total length disagrees
        // with the frame, which the parser reports as BAD_LENGTH (ParseError: "... disagree with
        // each other or the frame"), not TRUNCATED.
        for (int kind = 0; kind < 7; kind++) {
            int length = WireFrames.writeValid(m, kind, true, 100 + kind);
            for (int cut = FrameLayout.L2_L4_LENGTH; cut < length; cut++) {
                m.frameLength(cut);
                assertRejected(ParseError.BAD_LENGTH, "kind " + kind + " cut to " + cut + " of " + length + " bytes");
            }
        }
    }

    // ---- L2-L4 -----------------------------------------------------------------------------------

    @Test
    void shouldRejectAChainedMbuf() {
        WireFrames.writeData(m, PacketType.SEND, 100, true, 9);
        WireFrames.segments(m, 2);
        assertRejected(ParseError.CHAINED, "nb_segs 2");
        WireFrames.segments(m, 1);
        assertEquals(PacketType.SEND, parse());
    }

    @Test
    void shouldRejectOtherEtherTypes() {
        for (int etherType : new int[] {0x86DD, 0x0806, 0x8100, 0x88B5, 0x0000, 0x0801}) {
            WireFrames.writeData(m, PacketType.SEND, 10, true, 10);
            m.putShortBE(12, (short) etherType);
            assertRejected(ParseError.NOT_IPV4, "EtherType 0x" + Integer.toHexString(etherType));
        }
    }

    @Test
    void shouldRejectIpv4WithOptionsOrAnotherIpVersion() {
        for (int versionIhl : new int[] {0x46, 0x4F, 0x44, 0x40, 0x65, 0x55, 0x05}) {
            WireFrames.writeData(m, PacketType.SEND, 10, true, 11);
            m.putByte(14, (byte) versionIhl);
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.NOT_IPV4, "version/IHL byte 0x" + Integer.toHexString(versionIhl));
        }
    }

    @Test
    void shouldRejectFragments() {
        int[] flagsAndOffsets = {0x2000, 0x6000, 0x4001, 0x0001, 0x1FFF, 0x3FFF, 0x2000 | 185};
        for (int value : flagsAndOffsets) {
            WireFrames.writeData(m, PacketType.SEND, 10, true, 12);
            m.putShortBE(20, (short) value);
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.FRAGMENT, "flags/fragment offset 0x" + Integer.toHexString(value));
        }
        WireFrames.writeData(m, PacketType.SEND, 10, true, 12);
        m.putShortBE(20, (short) 0x0000);                    // DF clear is not a fragment
        WireFrames.refreshChecksums(m);
        assertEquals(PacketType.SEND, parse());
    }

    @Test
    void shouldRejectOtherIpProtocols() {
        for (int protocol : new int[] {6, 1, 0, 132, 136, 255}) {
            WireFrames.writeData(m, PacketType.SEND, 10, true, 13);
            m.putByte(23, (byte) protocol);
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.NOT_SRD_PORT, "IP protocol " + protocol);
        }
    }

    @Test
    void shouldRejectOtherDestinationPorts() {
        for (int port : new int[] {0, 4791, PORT - 1, PORT + 1, SrdPort.sourcePort(0), 0xFFFF}) {
            WireFrames.writeData(m, PacketType.SEND, 10, true, 14);
            m.putShortBE(36, (short) port);
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.NOT_SRD_PORT, "destination port " + port);
        }
    }

    @Test
    void shouldRejectABadIpv4HeaderChecksum() {
        for (int bit = 0; bit < 16; bit++) {
            WireFrames.writeData(m, PacketType.SEND, 10, true, 15);
            m.putShortBE(24, (short) (m.getShortBE(24) ^ (1 << bit)));
            assertRejected(ParseError.BAD_IP_CHECKSUM, "checksum bit " + bit + " flipped");
        }
        WireFrames.writeData(m, PacketType.SEND, 10, false, 15);
        m.putByte(22, (byte) 63);                            // TTL changed, checksum not updated
        assertRejected(ParseError.BAD_IP_CHECKSUM, "TTL changed");
    }

    @Test
    void shouldRejectABadUdpChecksumButNotWhenThereIsNone() {
        for (int offset : new int[] {SrdHeader.PAYLOAD_OFFSET, SrdHeader.PAYLOAD_OFFSET + 99, SRD_OFFSET + SrdHeader.PSN_OFFSET, 34}) {
            WireFrames.writeData(m, PacketType.SEND, 100, true, 16);
            m.putByte(offset, (byte) (m.getByte(offset) ^ 0x04));
            assertRejected(ParseError.BAD_UDP_CHECKSUM, "bit flipped at " + offset);
        }
        WireFrames.writeData(m, PacketType.SEND, 100, false, 16);
        m.putByte(SrdHeader.PAYLOAD_OFFSET + 99, (byte) (m.getByte(SrdHeader.PAYLOAD_OFFSET + 99) ^ 0x04));
        assertEquals(PacketType.SEND, parse(), "UDP checksum 0: nothing to check");
    }

    // ---- lengths ---------------------------------------------------------------------------------

    @Test
    void shouldRejectUdpLengthDisagreeingWithIpv4TotalLength() {
        for (int delta : new int[] {-1, 1, -8, 100}) {
            WireFrames.writeData(m, PacketType.SEND, 100, true, 17);
            m.putShortBE(38, (short) (Short.toUnsignedInt(m.getShortBE(38)) + delta));
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.BAD_LENGTH, "UDP length off by " + delta);
        }
    }

    @Test
    void shouldRejectIpv4TotalLengthBeyondTheFrame() {
        WireFrames.writeData(m, PacketType.SEND, 100, true, 18);
        m.putShortBE(16, (short) (Short.toUnsignedInt(m.getShortBE(16)) + 1));
        m.putShortBE(38, (short) (Short.toUnsignedInt(m.getShortBE(38)) + 1));
        WireFrames.refreshChecksums(m);
        assertRejected(ParseError.BAD_LENGTH, "IPv4 and UDP claim one byte more than the frame holds");
    }

    @Test
    void shouldRejectUdpLengthBelowItsHeader() {
        WireFrames.writeData(m, PacketType.SEND, 100, false, 19);
        m.putShortBE(16, (short) 27);                        // IPv4 20 + UDP 7
        m.putShortBE(38, (short) 7);
        WireFrames.refreshChecksums(m);
        assertRejected(ParseError.BAD_LENGTH, "UDP length 7");
        m.putShortBE(16, (short) 19);
        m.putShortBE(38, (short) 0xFFFF);                    // 19 - 20 as 16 bits
        WireFrames.refreshChecksums(m);
        assertRejected(ParseError.BAD_LENGTH, "IPv4 total length shorter than its header");
    }

    @Test
    void shouldRejectAnSrdPayloadLengthDisagreeingWithTheDatagram() {
        for (int delta : new int[] {-1, 1, -100, 1000}) {
            WireFrames.writeData(m, PacketType.SEND, 100, true, 20);
            SrdHeader.payloadLength(m, 100 + delta);
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.BAD_LENGTH, "payload length off by " + delta);
        }
    }

    @Test
    void shouldRejectAProbeCarryingAPayload() {
        for (int type : new int[] {PacketType.PROBE, PacketType.PROBE_REPLY}) {
            WireFrames.writeData(m, type, 4, true, 21);
            assertRejected(ParseError.BAD_LENGTH, PacketType.name(type) + " with 4 payload bytes");
        }
    }

    @Test
    void shouldRejectAnAckWhoseLengthDisagreesWithItsDropCount() {
        for (int delta : new int[] {-1, 1, 2}) {
            WireFrames.writeAck(m, 3, true, 22);
            SrdAck.dropCount(m, 3 + delta);
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.BAD_LENGTH, "drop count 3 + " + delta + " in an ACK with 3 entries");
        }
        WireFrames.writeAck(m, 0, true, 23);
        m.putByte(SRD_OFFSET + SrdAck.LENGTH, (byte) 0);
        m.putByte(SRD_OFFSET + SrdAck.LENGTH + 1, (byte) 0);
        m.putByte(SRD_OFFSET + SrdAck.LENGTH + 2, (byte) 0);
        m.putByte(SRD_OFFSET + SrdAck.LENGTH + 3, (byte) 0);
        Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP, 50000, PORT,
            SrdAck.LENGTH + 4, true);
        assertRejected(ParseError.BAD_LENGTH, "an ACK with half a drop entry");
    }

    // ---- SRD header --------------------------------------------------------------------------------

    @Test
    void shouldRejectOtherVersions() {
        for (int version : new int[] {0, 2, 3, 15}) {
            for (int kind = 0; kind < 7; kind++) {
                WireFrames.writeValid(m, kind, true, 24);
                m.putByte(SRD_OFFSET, (byte) ((version << 4) | SrdHeader.type(m)));
                WireFrames.refreshChecksums(m);
                assertRejected(ParseError.WRONG_VERSION, "version " + version + ", kind " + kind);
            }
        }
    }

    @Test
    void shouldRejectUnknownTypes() {
        for (int type : new int[] {0, 12, 13, 14, 15}) {
            for (int payload : new int[] {0, 24}) {
                WireFrames.writeData(m, PacketType.SEND, payload, true, 25);
                SrdHeader.versionAndType(m, type);
                WireFrames.refreshChecksums(m);
                assertRejected(ParseError.UNKNOWN_TYPE, "type " + type);
            }
            WireFrames.writeAck(m, 2, true, 26);
            SrdHeader.versionAndType(m, type);
            WireFrames.refreshChecksums(m);
            assertRejected(ParseError.UNKNOWN_TYPE, "type " + type + " in an ACK-sized packet");
        }
    }

    @Test
    void shouldRejectAPayloadOverTheMtu() {
        for (int type : new int[] {PacketType.SEND, PacketType.SEND_WITH_IMM}) {
            WireFrames.writeData(m, type, MTU + 1, true, 27);
            assertRejected(ParseError.OVERSIZED, PacketType.name(type) + " of MTU + 1 bytes");
        }
        WireFrames.writeData(m, PacketType.SEND, 100, true, 28);
        SrdHeader.payloadLength(m, 0xFFFF);
        WireFrames.refreshChecksums(m);
        assertRejected(ParseError.OVERSIZED, "a payload length of 65535 is over the MTU before it is inconsistent");
    }

    @Test
    void shouldRejectAnAckWithMoreThanSixteenDrops() {
        SrdHeader.versionAndType(m, PacketType.ACK);
        SrdAck.dropCount(m, 17);
        for (int i = 0; i < 17; i++) {
            SrdAck.drop(m, i, i, DropReason.RNR);
        }
        Ipv4UdpFrame.write(m, WireFrames.SRC_MAC, WireFrames.DST_MAC, WireFrames.SRC_IP, WireFrames.DST_IP, 50000, PORT,
            SrdAck.length(17), true);
        assertRejected(ParseError.OVERSIZED, "17 drops, length consistent");
        SrdAck.dropCount(m, 0xFFFF);
        WireFrames.refreshChecksums(m);
        assertRejected(ParseError.OVERSIZED, "65535 drops");
    }

    @Test
    void shouldRejectADropReasonThatDoesNotExist() {
        for (int reason : new int[] {0, DropReason.MAX + 1, 8, 255}) {
            for (int index : new int[] {0, 7, 15}) {
                WireFrames.writeAck(m, 16, true, 29);
                SrdAck.drop(m, index, 1234, reason);
                WireFrames.refreshChecksums(m);
                assertRejected(ParseError.OUT_OF_RANGE, "reason " + reason + " in drop " + index);
            }
        }
    }

    @Test
    void shouldRejectAQpnOver24Bits() {
        for (int type : new int[] {PacketType.SEND, PacketType.PROBE}) {
            for (int qpn : new int[] {SrdParser.MAX_QPN + 1, 0x7FFF_FFFF, -1, Integer.MIN_VALUE}) {
                WireFrames.writeData(m, type, 0, true, 30);
                SrdHeader.sourceQpn(m, qpn);
                WireFrames.refreshChecksums(m);
                assertRejected(ParseError.OUT_OF_RANGE, PacketType.name(type) + " from QPN 0x" + Integer.toHexString(qpn));
                WireFrames.writeData(m, type, 0, true, 31);
                SrdHeader.destinationQpn(m, qpn);
                WireFrames.refreshChecksums(m);
                assertRejected(ParseError.OUT_OF_RANGE, PacketType.name(type) + " to QPN 0x" + Integer.toHexString(qpn));
            }
        }
    }
}
