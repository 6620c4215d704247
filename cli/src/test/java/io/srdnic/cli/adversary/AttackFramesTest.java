package io.srdnic.cli.adversary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.SimBufferPool;
import io.srdnic.srd.testing.FrameForger;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.ParseError;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every attack class builds what it says, from what the tap sniffed of a stream: malformed frames
 * fail the parser, the others parse and carry the forged field their class names, and none is a
 * frame a correct transport would have to deliver. Every frame carries the attacker's mark.
 */
class AttackFramesTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/srdnic-test/libsrdnic_shim.so");
    }

    private static final long VICTIM_MAC = 0x02_00_00_00_00_02L;
    private static final long PEER_MAC = 0x02_00_00_00_00_01L;
    private static final int VICTIM_IP = 0x0A00_0002;
    private static final int PEER_IP = 0x0A00_0001;
    private static final int VICTIM_QPN = 7;
    private static final int PEER_QPN = 9;
    private static final int VICTIM_QKEY = 0x1111;
    private static final int PEER_QKEY = 0x2222;
    private static final int MTU = 4096;
    private static final int PEER_CONTEXT = 0x0001_0001;
    private static final int VICTIM_CONTEXT = 0x0001_0002;
    private static final int PEER_EPOCH = 0x5EED_0001;
    private static final int VICTIM_EPOCH = 0x5EED_0002;
    private static final int PEER_PSN = 1_000_000;
    private static final int VICTIM_PSN = -5; // wraps: PSNs are compared modulo 2^32

    private final Arena arena = Arena.ofShared();
    private final SimBufferPool pool = new SimBufferPool(arena, 8, 8192);
    private final MbufBatch batch = new MbufBatch(arena, 4);
    private final Mbuf m = new Mbuf();
    private WireTap tap;
    private AttackFrames frames;

    @BeforeEach
    void sniffAStream() {
        tap = new WireTap(new OnePort(), VICTIM_IP, PEER_IP, SrdPort.DEFAULT);
        // The peer's data and its ACK come in; the victim's data goes out.
        pool.allocate(batch, 2, 0);
        FrameForger peer = stream(PEER_MAC, PEER_IP, VICTIM_MAC, VICTIM_IP, PEER_CONTEXT, VICTIM_CONTEXT, PEER_EPOCH);
        writeData(peer, batch.get(0), PEER_PSN, PEER_PSN - 3, PEER_QPN, VICTIM_QPN, VICTIM_QKEY);
        peer.cumulativePsn = VICTIM_PSN - 2;
        peer.echoedEpoch = VICTIM_EPOCH;
        peer.writeAck(batch.get(1));
        tap.receive(batch);
        pool.free(batch);
        pool.allocate(batch, 1, 0);
        writeData(stream(VICTIM_MAC, VICTIM_IP, PEER_MAC, PEER_IP, VICTIM_CONTEXT, PEER_CONTEXT, VICTIM_EPOCH), batch.get(0),
            VICTIM_PSN, VICTIM_PSN - 2, VICTIM_QPN, PEER_QPN, PEER_QKEY);
        tap.transmit(batch);
        // The victim acknowledges the peer's data: the incarnation its responder follows.
        transmitVictimAck(PEER_EPOCH, PEER_CONTEXT);
        frames = new AttackFrames(new AttackTarget(VICTIM_MAC, VICTIM_IP, VICTIM_QPN, VICTIM_QKEY, PEER_MAC, PEER_IP, PEER_QPN, PEER_QKEY,
            SrdPort.DEFAULT, MTU, MTU + 256), tap, arena);
        pool.allocate(batch, 1, 0);
        m.wrap(batch.address(0));
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    @Test
    void shouldLearnTheStreamFromTheFramesItSees() {
        Sniffed s = tap.sniffed();
        assertTrue(s.knowsPeerSide() && s.knowsVictimSide() && s.knownPeerAck());
        assertEquals(PEER_CONTEXT, s.peerContext());
        assertEquals(VICTIM_CONTEXT, s.victimContext());
        assertEquals(PEER_EPOCH, s.peerEpoch());
        assertEquals(VICTIM_EPOCH, s.victimEpoch());
        assertEquals(PEER_PSN, s.peerPsn());
        assertEquals(VICTIM_PSN, s.victimPsn());
        assertEquals(VICTIM_QKEY, s.victimQkey());
        assertEquals(PEER_QKEY, s.peerQkey());
    }

    @Test
    void shouldIgnoreTheAttackersOwnFramesComingThroughThePort() {
        // A frame built by the attacker, as it comes back through the victim's port (af_xdp).
        int length = frames.build(Attack.STALE_EPOCH, new SplittableRandom(1));
        MbufBatch in = new MbufBatch(arena, 1);
        pool.allocate(in, 1, 0);
        in.get(0).copyFrom(frames.frame(length), 0, 0, length).frameLength(length);
        tap.receive(in);
        assertEquals(PEER_EPOCH, tap.sniffed().peerEpoch(), "the forged epoch was not learned");
        pool.free(in);
    }

    @Test
    void shouldMakeMalformedFramesThatFailTheParser() {
        for (Attack a : new Attack[] {Attack.TRUNCATED, Attack.OVERSIZED, Attack.BAD_CHECKSUM, Attack.BAD_VERSION}) {
            SplittableRandom r = new SplittableRandom(a.ordinal());
            for (int i = 0; i < 300; i++) {
                int type = parse(a, r);
                assertTrue(type < 0, a + " frame " + i + " parsed as type " + type);
            }
        }
        SplittableRandom r = new SplittableRandom(5);
        Set<Integer> rdma = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            int parsed = parse(Attack.BAD_TYPE, r);
            int written = SrdHeader.type(m);
            if (PacketType.extendedHeaderLength(written) == 0) {
                assertEquals(ParseError.UNKNOWN_TYPE, Ipv4UdpFrame.error(parsed), "bad-type: an undefined type " + written);
                continue;
            }
            // The RDMA ones are well-formed, from another address, and name nothing the victim has.
            assertEquals(written, parsed, "a well-formed " + PacketType.name(written) + ", not " + parsed);
            assertTrue(isOtherAddress(), "bad-type RDMA comes from another address");
            int data = SrdHeader.payloadLength(m) - PacketType.extendedHeaderLength(written);
            if (written == PacketType.READ_RESPONSE) {
                assertEquals(data, ReadResponseHeader.readLength(m), "a whole read's worth of data");
                assertEquals(0, ReadResponseHeader.status(m));
            } else {
                if (written == PacketType.RDMA_READ) {
                    assertEquals(0, data, "a READ carries no data");
                } else {
                    assertEquals(data, RdmaHeader.dmaLength(m), "a WRITE carries all of its data");
                }
                assertEquals(0, RdmaHeader.segmentOffset(m));
                assertTrue(RdmaHeader.dmaLength(m) > 0);
            }
            rdma.add(written);
        }
        assertEquals(Set.of(PacketType.RDMA_WRITE, PacketType.RDMA_WRITE_WITH_IMM, PacketType.RDMA_READ, PacketType.READ_RESPONSE), rdma,
            "every RDMA type");
    }

    @Test
    void shouldForgeTheLiveStreamsFieldsEachClassNames() {
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < 300; i++) {
            assertTrue(PacketType.isData(parse(Attack.FAR_PSN, r)));
            assertRealPeerContext();
            int d = SrdHeader.psn(m) - PEER_PSN;
            assertTrue(Math.abs(d) >= 1 << 16, "far-psn: " + d);

            assertTrue(PacketType.isData(parse(Attack.FAR_SEND_BASE, r)));
            assertRealPeerContext();
            assertTrue(SrdHeader.sendBase(m) - (PEER_PSN - 3) >= 1 << 13, "far-send-base");

            assertEquals(PacketType.ACK, parse(Attack.FORGED_ACK, r));
            assertRealAckIds();
            int ahead = SrdAck.cumulativePsn(m) - VICTIM_PSN;
            assertTrue(ahead >= 1 << 20 || ahead < 0, "forged-ack acknowledges PSNs never sent: " + ahead);

            assertEquals(PacketType.ACK, parse(Attack.FORGED_DROP, r));
            assertRealAckIds();
            assertTrue(SrdAck.dropCount(m) >= 1);
            for (int k = 0; k < SrdAck.dropCount(m); k++) {
                assertTrue(SrdAck.dropPsn(m, k) - VICTIM_PSN >= 1 << 16, "forged-drop: a PSN never sent");
            }

            assertEquals(PacketType.SEND_WITH_IMM, parse(Attack.STALE_EPOCH, r));
            assertEquals(PEER_CONTEXT, SrdHeader.sourceContext(m));
            assertNotEquals(PEER_EPOCH, SrdHeader.epoch(m));
            assertNotEquals(VICTIM_QKEY, SrdHeader.qkey(m));

            assertEquals(PacketType.SEND_WITH_IMM, parse(Attack.WRONG_QKEY, r));
            assertTrue(isOtherAddress());
            assertTrue(SrdHeader.qkey(m) != VICTIM_QKEY || SrdHeader.destinationQpn(m) != VICTIM_QPN);

            assertEquals(PacketType.SEND_WITH_IMM, parse(Attack.SPOOF_PEER, r));
            assertEquals(PEER_IP, Ipv4UdpFrame.sourceIp(m));
            assertNotEquals(VICTIM_QKEY, SrdHeader.qkey(m));

            assertEquals(PacketType.SEND_WITH_IMM, parse(Attack.SPOOF_SOURCE, r));
            int src = Ipv4UdpFrame.sourceIp(m);
            assertTrue(src == 0 || src == -1 || src == 0x7F00_0001 || src == 0xE000_0001 || src == VICTIM_IP, Integer.toHexString(src));

            int type = parse(Attack.FORGED_CONTEXT, r);
            assertTrue(type > 0);
            if (PacketType.isData(type)) {
                assertNotEquals(VICTIM_QKEY, SrdHeader.qkey(m), "forged-context data is never deliverable");
            }
        }
    }

    /**
     * The peer's latest data names an incarnation the victim has not answered yet (its first packets
     * refused, say): forged under that one, a frame would be the peer's first packet as far as anyone
     * can tell. The classes that forge "the real ids" use the incarnation the victim's ACKs answer.
     */
    @Test
    void shouldForgeTheRealIdsUnderTheIncarnationTheVictimFollows() {
        receivePeerData(PEER_CONTEXT + 5, PEER_PSN + 100);
        transmitVictimAck(PEER_EPOCH ^ 0x77, PEER_CONTEXT + 9); // the victim answering a forged incarnation
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 50; i++) {
            assertTrue(PacketType.isData(parse(Attack.FAR_SEND_BASE, r)));
            assertRealPeerContext();
        }
        transmitVictimAck(PEER_EPOCH, PEER_CONTEXT + 5); // now it follows the new one
        assertTrue(PacketType.isData(parse(Attack.FAR_SEND_BASE, r)));
        assertEquals(PEER_CONTEXT + 5, SrdHeader.sourceContext(m));
    }

    @Test
    void shouldNotForgeTheRealIdsBeforeTheVictimFollowsAnyIncarnation() {
        tap = new WireTap(new OnePort(), VICTIM_IP, PEER_IP, SrdPort.DEFAULT);
        receivePeerData(PEER_CONTEXT, PEER_PSN);
        frames = new AttackFrames(new AttackTarget(VICTIM_MAC, VICTIM_IP, VICTIM_QPN, VICTIM_QKEY, PEER_MAC, PEER_IP, PEER_QPN, PEER_QKEY,
            SrdPort.DEFAULT, MTU, MTU + 256), tap, arena);
        SplittableRandom r = new SplittableRandom(7);
        assertEquals(0, frames.build(Attack.FAR_SEND_BASE, r), "nothing to forge under yet");
        assertEquals(0, frames.build(Attack.FAR_PSN, r));
    }

    @Test
    void shouldFloodFromThousandsOfAddresses() {
        SplittableRandom r = new SplittableRandom(7);
        Set<Integer> sources = new HashSet<>();
        for (int i = 0; i < 5000; i++) {
            assertEquals(PacketType.SEND_WITH_IMM, parse(Attack.FLOOD, r));
            assertEquals(AttackFrames.FLOOD_NET, Ipv4UdpFrame.sourceIp(m) & 0xFFFF_0000);
            assertNotEquals(VICTIM_QKEY, SrdHeader.qkey(m));
            sources.add(Ipv4UdpFrame.sourceIp(m));
        }
        assertTrue(sources.size() > 4500, "distinct sources: " + sources.size());
    }

    @Test
    void shouldReplayAFrameTheVictimReceived() {
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < 20; i++) {
            assertEquals(PacketType.SEND_WITH_IMM, parse(Attack.REPLAY, r));
            assertEquals(PEER_PSN, SrdHeader.psn(m));
            assertEquals(PEER_EPOCH, SrdHeader.epoch(m));
            assertEquals(VICTIM_QKEY, SrdHeader.qkey(m));
        }
    }

    /** Builds a frame of {@code a}, checks the attacker's mark, copies it into {@link #m} and parses it. */
    private int parse(Attack a, SplittableRandom r) {
        int length = frames.build(a, r);
        assertTrue(length >= FrameLayout.ETHERNET_LENGTH, a + " built " + length + " bytes");
        m.copyFrom(frames.frame(length), 0, 0, length).frameLength(length);
        if (length >= FrameLayout.IPV4_OFFSET + 6) {
            assertNotEquals(0, m.getShortBE(FrameLayout.IPV4_OFFSET + 4), a + ": the attacker's mark");
        }
        return SrdParser.parse(m, SrdPort.DEFAULT, MTU);
    }

    private boolean isOtherAddress() {
        int src = Ipv4UdpFrame.sourceIp(m);
        return src != PEER_IP && src != VICTIM_IP;
    }

    private void assertRealPeerContext() {
        assertEquals(PEER_IP, Ipv4UdpFrame.sourceIp(m));
        assertEquals(PEER_CONTEXT, SrdHeader.sourceContext(m));
        assertEquals(PEER_EPOCH, SrdHeader.epoch(m));
    }

    private void assertRealAckIds() {
        assertEquals(PEER_IP, Ipv4UdpFrame.sourceIp(m));
        assertEquals(PEER_CONTEXT, SrdAck.sourceContext(m));
        assertEquals(VICTIM_CONTEXT, SrdAck.destinationContext(m));
        assertEquals(VICTIM_EPOCH, SrdAck.echoedEpoch(m));
    }

    /** The frames of one direction of the sniffed stream: SEND_WITH_IMM data and ACKs from one host to the other. */
    private void transmitVictimAck(int echoedEpoch, int peerContext) {
        MbufBatch out = new MbufBatch(arena, 1);
        pool.allocate(out, 1, 0);
        FrameForger victim = stream(VICTIM_MAC, VICTIM_IP, PEER_MAC, PEER_IP, VICTIM_CONTEXT, peerContext, VICTIM_EPOCH);
        victim.cumulativePsn = PEER_PSN;
        victim.echoedEpoch = echoedEpoch;
        victim.writeAck(out.get(0));
        tap.transmit(out);
    }

    private void receivePeerData(int context, int psn) {
        MbufBatch in = new MbufBatch(arena, 1);
        pool.allocate(in, 1, 0);
        writeData(stream(PEER_MAC, PEER_IP, VICTIM_MAC, VICTIM_IP, context, VICTIM_CONTEXT, PEER_EPOCH), in.get(0), psn, psn, PEER_QPN,
            VICTIM_QPN, VICTIM_QKEY);
        tap.receive(in);
        pool.free(in);
    }

    private static FrameForger stream(long srcMac, int srcIp, long dstMac, int dstIp, int srcContext, int dstContext, int epoch) {
        FrameForger f = new FrameForger().addresses(srcMac, srcIp, dstMac, dstIp);
        f.srcPort = SrdPort.sourcePort(1);
        f.type = PacketType.SEND_WITH_IMM;
        f.srcContext = srcContext;
        f.dstContext = dstContext;
        f.epoch = epoch;
        return f;
    }

    /** A SEND_WITH_IMM of 32 bytes of this stream. */
    private static void writeData(FrameForger f, Mbuf m, int psn, int sendBase, int srcQpn, int dstQpn, int qkey) {
        f.psn = psn;
        f.sendBase = sendBase;
        f.srcQpn = srcQpn;
        f.dstQpn = dstQpn;
        f.qkey = qkey;
        f.writeData(m, 32, i -> 0);
    }

    /** A port that receives what the test put in the batch already and drops what it is given. */
    private final class OnePort implements PacketIo {
        @Override
        public int receive(MbufBatch b) {
            return b.count();
        }

        @Override
        public int transmit(MbufBatch b) {
            int n = b.count();
            pool.free(b);
            return n;
        }

        @Override
        public int allocate(MbufBatch b, int n) {
            return pool.allocate(b, n, 0);
        }

        @Override
        public void free(MbufBatch b) {
            pool.free(b);
        }

        @Override
        public int maxFrameLength() {
            return pool.dataRoom();
        }

        @Override
        public long macAddress() {
            return VICTIM_MAC;
        }

        @Override
        public long txDropped() {
            return 0;
        }
    }
}
