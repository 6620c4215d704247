package io.srdnic.pmd.lcore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The software hand-off on simulated ports: host B sends to host A, whose port is steered by
 * IPv4 destination address to two lanes (lane 0 on the receiving lcore, lane 1 on another); every
 * frame reaches its owner or is a counted drop, and every mbuf comes back to the pool once
 * (the sim pool throws on a double free and counts what is out).
 */
class PortDispatcherTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/srdnic-lcore-test/libsrdnic_shim.so"); // no DPDK here
    }

    private static final long MAC_A = 0x02_00_00_00_00_0AL;
    private static final long MAC_B = 0x02_00_00_00_00_0BL;
    /** The two lanes' addresses on A: 10.0.0.1 (lane 0) and 192.168.0.2 (lane 1); ports are SRD's one UDP port. */
    private static final int IP_0 = 0x0A00_0001;
    private static final int IP_1 = 0xC0A8_0002; // 192.168.0.2: negative as an int, which the key must not mind
    private static final int SRD_PORT = 4791;

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena);
    private final SimNetwork network = new SimNetwork(7);
    private final SimPort a = network.addHost(MAC_A);
    private final SimPort b = network.addHost(MAC_B);
    private final HandoffCounts receiverCounts = new HandoffCounts();
    private final HandoffCounts otherCounts = new HandoffCounts();

    @AfterEach
    void tearDown() {
        network.close();
        arena.close();
    }

    private PortDispatcher dispatcher(int ringCapacity) {
        return new PortDispatcher(a, new int[] {IP_0, IP_1}, 0, new HandoffCounts[] {receiverCounts, otherCounts}, ringCapacity, arena);
    }

    @Test
    void shouldGiveEachLaneTheFramesForItsAddressWhateverTheSourcePort() {
        PortDispatcher d = dispatcher(64);
        send(b, IP_0, 1000, 1, 2, 3);
        send(b, IP_1, 2000, 10, 11);
        send(b, IP_1, 2001, 12); // another source port (path entropy): the same owner
        send(b, IP_0, 1001, 4);
        deliver();

        assertEquals(7, d.poll());
        assertEquals(List.of(1, 2, 3, 4), receive(d.lane(0)));
        assertEquals(List.of(10, 11, 12), receive(d.lane(1)));
        assertEquals(3, receiverCounts.framesOut(), "three frames crossed to the other lcore");
        assertEquals(3, otherCounts.framesIn(), "and it took them");
        assertEquals(0, otherCounts.framesOut());
        assertEquals(0, network.pool().inUse(), "every received mbuf freed once");
    }

    @Test
    void shouldCountTheFramesNoLaneOwnsAsDropped() {
        PortDispatcher d = dispatcher(64);
        send(b, 0x0A00_0009, 1000, 1, 2);
        send(b, IP_1, 1000, 3);
        sendNotIpv4(b);
        deliver();

        d.poll();
        assertEquals(3, receiverCounts.noOwnerDrops(), "two to an address nobody has, one not IPv4");
        assertEquals(List.of(), receive(d.lane(0)));
        assertEquals(List.of(3), receive(d.lane(1)));
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldCountWhatAFullRingCannotTakeAsDroppedLeakingNoMbuf() {
        PortDispatcher d = dispatcher(4);
        send(b, IP_1, 1000, 1, 2, 3, 4, 5, 6);
        deliver();

        d.poll();
        assertEquals(2, receiverCounts.ringFullDrops(), "lane 1's ring holds four");
        assertEquals(4, receiverCounts.framesOut());
        assertEquals(4, network.pool().inUse(), "the four on the ring, nothing else");
        assertEquals(List.of(1, 2, 3, 4), receive(d.lane(1)));
        assertEquals(4, otherCounts.takeOccupancyMax(), "the drain found the ring full");
        assertEquals(0, otherCounts.takeOccupancyMax(), "reset once taken");
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldSendTheReceiversOwnFramesDirectly() {
        PortDispatcher d = dispatcher(4);
        send(d.lane(1), MAC_B, IP_1, 1, 2, 3);
        send(d.lane(0), MAC_B, IP_0, 4);
        deliver();
        assertEquals(List.of(4), receiveAll(b), "the receiver's own lane sends at once, before lane 1's queued three");
        assertEquals(3, d.drain(), "lane 1's three still wait for the receiver's poll");
    }

    @Test
    void shouldSendAnotherLanesFramesFromTheReceiversPoll() {
        PortDispatcher d = dispatcher(4);
        send(d.lane(1), MAC_B, IP_1, 1, 2, 3);
        assertEquals(3, otherCounts.framesOut(), "lane 1 queued its frames for the receiver");
        deliver();
        assertEquals(List.of(), receiveAll(b), "nothing leaves before the receiver polls");

        d.poll();
        deliver();
        assertEquals(List.of(1, 2, 3), receiveAll(b), "lane 1's, sent by the receiver's poll, in order");
        assertEquals(3, receiverCounts.framesIn());
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldCountTheFramesAFullOutboundRingDrops() {
        PortDispatcher d = dispatcher(4);
        send(d.lane(1), MAC_B, IP_1, 5, 6, 7, 8, 9, 10);
        assertEquals(2, d.lane(1).txDropped(), "a full outbound ring frees and counts, never blocks");
        assertEquals(2, otherCounts.ringFullDrops());
        d.poll();
        deliver();
        assertEquals(List.of(5, 6, 7, 8), receiveAll(b));
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldFreeWhatIsLeftInTheRingsWhenDrained() {
        PortDispatcher d = dispatcher(8);
        send(b, IP_1, 1000, 1, 2, 3);
        deliver();
        d.poll();
        send(d.lane(1), MAC_B, IP_1, 4, 5);
        assertEquals(5, network.pool().inUse());
        assertEquals(5, d.drain(), "three received and two to send, never taken");
        assertEquals(0, network.pool().inUse());
        assertEquals(0, d.drain());
    }

    @Test
    void shouldRefuseTwoLanesOnOneAddress() {
        assertThrows(IllegalArgumentException.class,
            () -> new PortDispatcher(a, new int[] {IP_0, IP_0}, 0, new HandoffCounts[] {receiverCounts, otherCounts}, 4, arena));
    }

    @Test
    void shouldLeaveTheFrameBytesAsTheyWereSent() {
        PortDispatcher d = dispatcher(8);
        send(b, IP_1, 1234, 77);
        deliver();
        d.poll();
        PacketIo lane = d.lane(1);
        assertEquals(1, lane.receive(batch));
        Mbuf m = batch.get(0);
        byte[] got = new byte[m.dataLength()];
        m.copyTo(0, MemorySegment.ofArray(got), 0, got.length);
        byte[] expected = new byte[got.length];
        writeFrame(MemorySegment.ofArray(expected), MAC_A, MAC_B, 1234, IP_1, 77);
        assertArrayEquals(expected, got);
        lane.free(batch);
        assertEquals(0, network.pool().inUse());
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static final int LENGTH = 64;

    /** Sends one frame per sequence from {@code from} to {@code dstIp} on A, from UDP {@code srcPort} to SRD's port. */
    private void send(SimPort from, int dstIp, int srcPort, int... sequences) {
        batch.clear();
        assertEquals(sequences.length, from.allocate(batch, sequences.length));
        for (int i = 0; i < sequences.length; i++) {
            Mbuf m = batch.get(i);
            m.frameLength(LENGTH);
            writeFrame(m.room(), MAC_A, from.macAddress(), srcPort, dstIp, sequences[i]);
        }
        from.transmit(batch);
    }

    /** Sends through a lane, as a context on that lane's lcore would. */
    private void send(PacketIo lane, long dstMac, int dstIp, int... sequences) {
        batch.clear();
        assertEquals(sequences.length, lane.allocate(batch, sequences.length));
        for (int i = 0; i < sequences.length; i++) {
            Mbuf m = batch.get(i);
            m.frameLength(LENGTH);
            writeFrame(m.room(), dstMac, lane.macAddress(), 1000, dstIp, sequences[i]);
        }
        lane.transmit(batch);
    }

    private void sendNotIpv4(SimPort from) {
        batch.clear();
        assertEquals(1, from.allocate(batch, 1));
        Mbuf m = batch.get(0);
        m.frameLength(LENGTH);
        writeFrame(m.room(), MAC_A, from.macAddress(), 1, IP_0, 0);
        m.putShortBE(12, (short) 0x0806); // ARP's EtherType
        from.transmit(batch);
    }

    /** Ethernet, IPv4 (IHL 5), UDP to SRD's port, then the sequence number: what the steering reads and the test checks. */
    private static void writeFrame(MemorySegment s, long dstMac, long srcMac, int srcPort, int dstIp, int sequence) {
        var be16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        var be32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        s.set(be16, 0, (short) (dstMac >>> 32));
        s.set(be32, 2, (int) dstMac);
        s.set(be16, 6, (short) (srcMac >>> 32));
        s.set(be32, 8, (int) srcMac);
        s.set(be16, 12, (short) 0x0800);
        s.set(ValueLayout.JAVA_BYTE, 14, (byte) 0x45);
        s.set(be16, 16, (short) (LENGTH - 14));
        s.set(be16, 20, (short) 0x4000);
        s.set(ValueLayout.JAVA_BYTE, 22, (byte) 64);
        s.set(ValueLayout.JAVA_BYTE, 23, (byte) 17);
        s.set(be32, 26, 0x0A000002);
        s.set(be32, 30, dstIp);
        s.set(be16, 34, (short) srcPort);
        s.set(be16, 36, (short) SRD_PORT);
        s.set(be16, 38, (short) (LENGTH - 34));
        s.set(be32, 42, sequence);
    }

    private void deliver() {
        for (long t; (t = network.nextEventTime()) != Long.MAX_VALUE; ) {
            network.clock().advanceTo(t);
            network.deliverDue();
        }
    }

    /** The sequences one receive on {@code io} gives; the mbufs are freed. */
    private List<Integer> receive(PacketIo io) {
        List<Integer> got = new ArrayList<>();
        int n = io.receive(batch);
        for (int i = 0; i < n; i++) {
            got.add(batch.get(i).getIntBE(42));
        }
        io.free(batch);
        return got;
    }

    private List<Integer> receiveAll(PacketIo io) {
        List<Integer> got = new ArrayList<>();
        List<Integer> some;
        while (!(some = receive(io)).isEmpty()) {
            got.addAll(some);
        }
        return got;
    }
}
