package io.srdnic.pmd.sim;

import static io.srdnic.ffm.rte_mbuf.DATA_OFF_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NB_SEGS_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bad frames and full resources are counted and cost nothing; misuse of buffer ownership is a bug and throws. */
class SimBadInputTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final long MAC_NOBODY = 0x02_00_00_00_00_99L;

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena);
    private SimNetwork network;
    private SimPort a;
    private SimPort b;

    private void network(SimNetwork.Config.Builder config) {
        network = new SimNetwork(3, config.build());
        a = network.addHost(MAC_A);
        b = network.addHost(MAC_B);
    }

    @AfterEach
    void tearDown() {
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> { });
        assertEquals(0, network.pool().inUse(), "leaked buffers");
        network.close();
        arena.close();
    }

    @Test
    void shouldCountFramesShorterThanAnEthernetHeaderAsMalformed() {
        network(SimNetwork.Config.builder());
        a.allocate(batch, 3);
        SimFrames.writeUdp(batch.get(0), MAC_B, MAC_A, 1, 100, 0);
        batch.get(1).frameLength(13);
        batch.get(2).frameLength(0);
        assertEquals(1, a.transmit(batch));
        assertEquals(2, a.txDropped());
        assertEquals(2, a.counters().malformed());
        assertEquals(1, a.counters().txFrames());
        assertEquals(0, batch.count());
    }

    @Test
    void shouldCountMultiSegmentFramesAsMalformed() {
        network(SimNetwork.Config.builder());
        a.allocate(batch, 1);
        SimFrames.writeUdp(batch.get(0), MAC_B, MAC_A, 1, 100, 0);
        SimFrames.NATIVE.set(ValueLayout.JAVA_SHORT, batch.address(0) + NB_SEGS_OFFSET, (short) 2);
        assertEquals(0, a.transmit(batch));
        assertEquals(1, a.counters().malformed());
    }

    @Test
    void shouldCountFramesLongerThanTheDataRoomAsMalformed() {
        network(SimNetwork.Config.builder().dataRoom(1500));
        a.allocate(batch, 1);
        Mbuf m = batch.get(0);
        SimFrames.writeUdp(m, MAC_B, MAC_A, 1, 1500, 0);
        // Moving data_off into the headroom lets the length exceed the data room without leaving the buffer.
        SimFrames.NATIVE.set(ValueLayout.JAVA_SHORT, m.address() + DATA_OFF_OFFSET, (short) 0);
        m.frameLength(1501);
        assertEquals(1500, a.maxFrameLength());
        assertEquals(0, a.transmit(batch));
        assertEquals(1, a.counters().malformed());
    }

    @Test
    void shouldCountUnknownDestinationMac() {
        network(SimNetwork.Config.builder());
        assertEquals(4, SimFrames.send(a, batch, MAC_NOBODY, 1, 100, 0, 4), "the NIC sends it; the fabric drops it");
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> {
            throw new AssertionError("delivered to " + port);
        });
        assertEquals(4, a.counters().unknownDestination());
        assertEquals(0, a.txDropped());
    }

    @Test
    void shouldCountFramesArrivingAtAFullRxRing() {
        network(SimNetwork.Config.builder().rxRingCapacity(8));
        SimFrames.send(a, batch, MAC_B, 1, 100, 0, 20);
        network.clock().advanceTo(1_000_000);
        network.deliverDue();
        assertEquals(8, b.rxPending());
        assertEquals(12, b.counters().rxRingFull());
        assertEquals(8, b.counters().rxFrames());
        assertEquals(8, network.pool().inUse(), "only the ring's frames still hold buffers");
        assertEquals(8, b.receive(batch));
        for (int i = 0; i < 8; i++) {
            assertEquals(i, SimFrames.sequence(batch.get(i)), "the ring keeps the first frames");
        }
        b.free(batch);
    }

    @Test
    void shouldCountAnAllocationTheExhaustedPoolRefuses() {
        network(SimNetwork.Config.builder().poolSize(16));
        MbufBatch all = new MbufBatch(arena, 16);
        assertEquals(16, a.allocate(all, 16));
        assertEquals(0, a.allocate(batch, 1));
        assertEquals(0, batch.count());
        assertEquals(1, a.counters().poolExhausted());
        a.free(all);
        assertEquals(1, a.allocate(batch, 1));
        a.free(batch);
    }

    @Test
    void shouldCountDuplicatesTheExhaustedPoolCannotHold() {
        network(SimNetwork.Config.builder().poolSize(4).fabricPath(LinkConfig.builder().duplicateProbability(1.0).build()));
        assertEquals(4, SimFrames.send(a, batch, MAC_B, 1, 100, 0, 4));
        int[] received = {0};
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> received[0]++);
        assertEquals(4, received[0]);
        assertEquals(4, a.counters().poolExhausted());
        assertEquals(0, a.counters().duplicates());
    }

    @Test
    void shouldRejectTransmitOfABufferThatIsNotFromThisNetwork() {
        network(SimNetwork.Config.builder());
        try (Arena other = Arena.ofConfined()) {
            SimBufferPool foreign = new SimBufferPool(other, 1);
            MbufBatch foreignBatch = new MbufBatch(other, 1);
            foreign.allocate(foreignBatch, 1, 0);
            assertThrows(IllegalArgumentException.class, () -> a.transmit(foreignBatch));
        }
    }

    @Test
    void shouldRejectFreeingABufferThatWasTransmitted() {
        network(SimNetwork.Config.builder());
        a.allocate(batch, 1);
        long address = batch.address(0);
        SimFrames.writeUdp(batch.get(0), MAC_B, MAC_A, 1, 100, 0);
        a.transmit(batch);
        assertThrows(IllegalArgumentException.class, () -> network.pool().free(address));
        batch.add(address);
        assertThrows(IllegalArgumentException.class, () -> a.transmit(batch), "transmitting it twice");
        batch.clear();
    }
}
