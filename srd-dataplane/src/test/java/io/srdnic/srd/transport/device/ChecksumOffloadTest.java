package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.ffm.rte_mbuf;
import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.wire.Checksums;
import io.srdnic.srd.wire.ParseError;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The UDP checksum end to end: a sender whose NIC offloads it leaves the field to the NIC (and the
 * receiver, checking in software, accepts every frame), and a payload corrupted on the way is a
 * counted drop that is sent again, whether it left by copy or from the sender's memory (zero-copy).
 */
class ChecksumOffloadTest {
    static final long MS = 1_000_000;
    static final int SIZE = 4000;

    /** {@code count} messages of {@code size} bytes, each starting with its number, the rest a pattern of it. */
    private static MemorySegment messages(SimFabric f, int count, int size) {
        MemorySegment m = f.arena.allocate((long) count * size, 64);
        for (int j = 0; j < count; j++) {
            for (int i = 0; i < size; i++) {
                m.set(ValueLayout.JAVA_BYTE, (long) j * size + i, (byte) (i * 29 + j * 7 + (i >>> 9)));
            }
            m.set(ValueLayout.JAVA_INT_UNALIGNED, (long) j * size, j);
        }
        return m;
    }

    /**
     * Sends {@code count} messages of {@code size} bytes from host 0 to host 1 and checks every one
     * arrives once and whole (SRD delivers in any order: receive k holds some message j).
     */
    private static void sendAll(SimFabric f, TransportDevice a, TransportDevice b, int count, int size) {
        TestQp qa = f.qp(a, 0, 0);
        TestQp qb = f.qp(b, count, size);
        MemorySegment payload = messages(f, count, size);
        for (int i = 0; i < count; i++) {
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), Sends.send(i, payload, i * size, size, f.ah(a, 1), qb.qpn())));
        }
        assertTrue(f.runUntil(() -> qa.sendCq().size() == count && qb.recvCq().size() == count, 2_000 * MS));
        assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
        boolean[] seen = new boolean[count];
        for (int k = 0; k < count; k++) {
            int j = qb.receiveBuffer().get(ValueLayout.JAVA_INT_UNALIGNED, (long) k * size);
            assertTrue(j >= 0 && j < count && !seen[j], "receive " + k + " holds message " + j);
            seen[j] = true;
            assertArrayEquals(payload.asSlice((long) j * size, size).toArray(ValueLayout.JAVA_BYTE),
                qb.receiveBuffer().asSlice((long) k * size, size).toArray(ValueLayout.JAVA_BYTE), "message " + j + " whole");
        }
    }

    @Test
    void shouldLeaveTheUdpChecksumToANicThatOffloadsItAndStillBeAcceptedByASoftwareChecker() {
        try (SimFabric f = new SimFabric(1)) {
            OffloadingNic[] nic = new OffloadingNic[1];
            TransportDevice a = f.addHost(new TransportConfig(), io -> nic[0] = new OffloadingNic(io));
            TransportDevice b = f.addHost(new TransportConfig());
            sendAll(f, a, b, 20, 64);
            sendAll(f, a, b, 20, SIZE);
            assertTrue(nic[0].completed >= 40, "the NIC filled in the checksum of every frame A sent: " + nic[0].completed);
            assertEquals(0, nic[0].notAsked, "A asked the NIC for every frame");
            assertEquals(nic[0].completed, a.counters.udpChecksumsOffloaded, "A counted each frame it left to the NIC");
            assertEquals(0, b.counters.udpChecksumsOffloaded, "B, on a port without the offload, summed its own");
            assertEquals(0, b.counters.parseErrorsTotal(), "B, checking in software, found every checksum right");
        }
    }

    @Test
    void shouldCountACorruptedPayloadAsADropAndDeliverItWholeWhenSentAgain() {
        LinkConfig corrupting = LinkConfig.builder().corruptProbability(0.1).build();
        try (SimFabric f = new SimFabric(1, corrupting, 9)) {
            // 4000 B leave from A's memory (zero-copy on the simulator): asked for, since by default a sender that sums the
            // checksum in software copies; the sum over the chained frame is what is checked here.
            TransportDevice a = f.addHost(new TransportConfig().zeroCopyMinBytes(TransportConfig.DEFAULT_ZERO_COPY_MIN_BYTES));
            TransportDevice b = f.addHost(new TransportConfig());
            sendAll(f, a, b, 100, SIZE);
            assertTrue(a.counters.zeroCopyPackets >= 100, "sent from A's memory: " + a.counters.zeroCopyPackets);
            assertTrue(b.counters.parseErrors[ParseError.BAD_UDP_CHECKSUM.ordinal()] > 0, "corrupted frames were counted and dropped");
            assertEquals(100, b.counters.delivered, "and every message delivered once, whole");
        }
    }

    /** A NIC that computes the UDP checksum of the frames that ask (the field holding the pseudo-header's sum). */
    static final class OffloadingNic extends ForwardingPacketIo {
        final Mbuf view = new Mbuf();
        int completed;
        int notAsked;

        OffloadingNic(PacketIo inner) {
            super(inner);
        }

        @Override
        public boolean offloadsUdpChecksum() {
            return true;
        }

        @Override
        public int transmit(MbufBatch batch) {
            for (int i = 0; i < batch.count(); i++) {
                Mbuf m = view.wrap(batch.address(i));
                if ((m.offloadFlags() & rte_mbuf.RTE_MBUF_F_TX_UDP_CKSUM) == 0) {
                    notAsked++;
                    continue;
                }
                int udp = 14 + 20;
                int udpLength = Short.toUnsignedInt(m.getShortBE(udp + 4));
                int c = Checksums.finish(Checksums.sum(m, udp, udpLength, 0));
                m.putShortBE(udp + 6, (short) (c == 0 ? 0xFFFF : c));
                m.offloadFlags(0);
                completed++;
            }
            return super.transmit(batch);
        }
    }
}
