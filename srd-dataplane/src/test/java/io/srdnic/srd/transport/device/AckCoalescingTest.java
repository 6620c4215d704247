package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.testing.DeliveryLedger;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.PacketType;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SRD ACK coalescing: the responder answers what one context received in a duty cycle with one ACK
 * (at most every {@code ackEvery} packets), and at once on a loss signal (a gap, a duplicate).
 * Frames of a burst arrive back to back here (links far faster than the frames), as they do at a
 * real NIC at line rate, so one RX burst holds many packets of one context.
 */
class AckCoalescingTest {
    static final long MS = 1_000_000;
    static final int SIZE = 64;
    /** A link whose serialisation time rounds to nothing: a burst's frames arrive in the same nanosecond. */
    static final LinkConfig FAST = LinkConfig.builder().bitsPerSecond(1_000_000_000_000_000L).build();
    static final LinkConfig FAST_HOSTILE = FAST.toBuilder().lossProbability(0.05).duplicateProbability(0.05)
        .reorderProbability(0.05).build();

    @Test
    void shouldAnswerABurstOfSendsWithFewerAcksThanPackets() {
        try (SimFabric f = new SimFabric(4, FAST, FAST, 1)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4));
            TransportDevice b = f.addHost(new TransportConfig().paths(4));
            int n = 128;
            exchange(f, a, b, n, 100 * MS);
            assertTrue(b.counters.txAcks < n / 2, "a burst is answered by few ACKs: " + b.counters.txAcks + " for " + n);
            assertEquals(b.counters.rxData, b.counters.srdAckedPackets, "every data packet answered by some ACK");
            assertEquals(b.counters.txAcks, b.counters.srdAcks);
            assertEquals(0, a.counters.txRetransmits, "coalescing delays no ACK into a retransmission");
        }
    }

    @Test
    void shouldAnswerAtMostAckEveryPacketsWithOneAck() {
        long[] acks = new long[2];
        int[] every = {4, 16};
        for (int k = 0; k < 2; k++) {
            try (SimFabric f = new SimFabric(4, FAST, FAST, 2)) {
                TransportDevice a = f.addHost(new TransportConfig().paths(4));
                TransportDevice b = f.addHost(new TransportConfig().paths(4).ackEvery(every[k]));
                exchange(f, a, b, 256, 100 * MS);
                assertTrue(b.counters.srdAckedPackets <= (long) every[k] * b.counters.srdAcks,
                    b.counters.srdAckedPackets + " packets in " + b.counters.srdAcks + " ACKs of at most " + every[k]);
                acks[k] = b.counters.srdAcks;
            }
        }
        assertTrue(acks[0] > acks[1], "a smaller ackEvery sends more ACKs: " + acks[0] + " against " + acks[1]);
    }

    @Test
    void shouldAnswerEveryPacketAloneWithAckEveryOne() {
        try (SimFabric f = new SimFabric(4, FAST, FAST, 2)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4));
            TransportDevice b = f.addHost(new TransportConfig().paths(4).ackEvery(1));
            exchange(f, a, b, 64, 100 * MS);
            assertEquals(b.counters.rxData, b.counters.txAcks);
        }
    }

    @Test
    void shouldRefuseAckEveryOutsideOneToTheWindow() {
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().ackEvery(0).conclude(9000));
        assertThrows(IllegalArgumentException.class, () -> new TransportConfig().window(64).ackEvery(65).conclude(9000));
        assertEquals(64, new TransportConfig().window(64).ackEvery(64).conclude(9000).ackEvery());
        assertEquals(8, new TransportConfig().set("ack-every", "8").ackEvery());
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23})
    void shouldDeliverEveryMessageExactlyOnceIntactUnderLossDuplicationAndReordering(long seed) {
        try (SimFabric f = new SimFabric(4, FAST, FAST_HOSTILE, seed)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4));
            TransportDevice b = f.addHost(new TransportConfig().paths(4));
            exchange(f, a, b, 600, 5_000 * MS);
            assertTrue(a.counters.txRetransmits > 0, "the faults cost retransmissions");
            assertTrue(b.counters.duplicates > 0, "and duplicates arrived");
            assertTrue(b.counters.txAcks < b.counters.rxData, "still fewer ACKs than data packets: " + b.counters.txAcks + " for "
                + b.counters.rxData);
        }
    }

    @Test
    void shouldAckAnArrivalPastAGapInTheCycleThatReceivedIt() {
        HoldFirstData[] hold = new HoldFirstData[1];
        try (SimFabric f = new SimFabric(4, FAST, FAST, 3)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4));
            TransportDevice b = f.addHost(new TransportConfig().paths(4), io -> hold[0] = new HoldFirstData(io));
            hold[0].transport = b;
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 8, SIZE);
            MemorySegment msg = f.arena.allocate(SIZE);
            int ah = f.ah(a, 1);
            for (int i = 0; i < 4; i++) {
                assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(i, msg, 0, SIZE).to(ah, qb.qpn(), SimFabric.QKEY)));
            }
            assertTrue(f.runUntil(() -> hold[0].acksBeforeGapCycle >= 0, MS), "packets past the held one arrived");
            assertTrue(b.counters.txAcks > hold[0].acksBeforeGapCycle, "the cycle that saw the gap acknowledged at once");
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 4, 10 * MS));
            assertTrue(qa.sends().stream().allMatch(w -> w.status() == WcStatus.SUCCESS));
            assertEquals(4, qb.receives().size());
        }
    }

    @Test
    void shouldKeepTheRttEstimateAtTheLinksRoundTripWhenAcksCoverManyPackets() {
        LinkConfig slow = FAST.toBuilder().delayNanos(20_000).build();
        try (SimFabric f = new SimFabric(4, FAST, slow, 4)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4));
            TransportDevice b = f.addHost(new TransportConfig().paths(4));
            exchange(f, a, b, 1, 10 * MS);
            long single = sender(a).rtt.srtt();
            assertTrue(single >= 2 * 20_000, "one message's RTT covers the fabric both ways: " + single);
            exchange(f, a, b, 400, 100 * MS);
            long srtt = sender(a).rtt.srtt();
            assertTrue(b.counters.srdAckedPackets > b.counters.srdAcks, "ACKs covered several packets");
            assertTrue(srtt >= single && srtt <= single + single / 4, "srtt " + srtt + " ns against one message's " + single);
            assertTrue(sender(a).rtt.minRtt() >= 2 * 20_000);
        }
    }

    private static ReliableSender sender(TransportDevice t) {
        return t.liveContexts().get(0).sender;
    }

    /**
     * Sends {@code n} messages from a to b posted at once, each carrying its number and a pattern of
     * it, and checks that every one completes once with SUCCESS and arrives once, intact.
     */
    private static void exchange(SimFabric f, TransportDevice a, TransportDevice b, int n, long maxNanos) {
        TestQp qa = f.qp(a, 0, 0);
        TestQp qb = f.qp(b, n, SIZE);
        MemorySegment msgs = f.arena.allocate((long) n * SIZE);
        for (int i = 0; i < n; i++) {
            DeliveryLedger.fill(msgs.asSlice((long) i * SIZE, SIZE), i);
        }
        int ah = f.ah(a, 1);
        for (int i = 0; i < n; i++) {
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(i, msgs, (long) i * SIZE, SIZE).to(ah, qb.qpn(), SimFabric.QKEY)));
        }
        assertTrue(f.runUntil(() -> qa.sendCq().size() == n && qb.recvCq().size() == n, maxNanos), "every message completed");
        f.runFor(10 * MS); // late duplicates and retransmissions have their chance to complete something twice
        DeliveryLedger sends = new DeliveryLedger(n, "completed");
        for (TestQp.Wc w : qa.sends()) {
            assertEquals(WcStatus.SUCCESS, w.status());
            sends.book(w.wrId());
        }
        sends.assertAllBooked();
        DeliveryLedger deliveries = new DeliveryLedger(n, "delivered");
        List<TestQp.Wc> receives = qb.receives();
        assertEquals(n, receives.size(), "one receive per message");
        for (TestQp.Wc w : receives) {
            assertEquals(SIZE, w.byteLength());
            MemorySegment got = qb.receiveBuffer().asSlice(w.wrId() * SIZE, SIZE);
            int which = DeliveryLedger.number(got);
            deliveries.book(which);
            DeliveryLedger.assertIntact(got, which);
        }
        assertEquals(0, a.requestsInUse());
    }

    /**
     * Holds back the first data frame the host receives and hands it over one receive after the
     * first one that brings later data: those arrive past a gap. Notes the host's ACK count as the
     * gap's cycle starts, so the test sees whether that cycle answered.
     */
    private static final class HoldFirstData extends ForwardingPacketIo {
        TransportDevice transport;
        long held;
        boolean released;
        long acksBeforeGapCycle = -1;

        HoldFirstData(PacketIo inner) {
            super(inner);
        }

        @Override
        public int receive(MbufBatch batch) {
            int n = inner.receive(batch);
            if (released) {
                return n;
            }
            if (acksBeforeGapCycle >= 0 && n < batch.capacity()) {
                batch.add(held); // the gap fills, a cycle late
                released = true;
                return n + 1;
            }
            for (int i = 0; i < batch.count(); i++) {
                if (!PacketType.isData(batch.get(i).getByte(FrameLayout.SRD_OFFSET) & 0x0F)) {
                    continue;
                }
                if (held == 0) {
                    held = batch.removeAt(i--);
                } else if (acksBeforeGapCycle < 0) {
                    acksBeforeGapCycle = transport.counters.txAcks;
                }
            }
            return batch.count();
        }
    }
}
