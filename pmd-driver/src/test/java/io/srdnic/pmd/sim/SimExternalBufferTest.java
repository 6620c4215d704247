package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.ExternalBuffers;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A frame whose payload is the sender's own memory (an external buffer chained behind the
 * headers): the simulated NIC copies it into the frame at transmit, as net_memif does, and frees
 * the external segment — which is what releases the sender's hold on that memory, through the
 * shared info's done mark.
 */
class SimExternalBufferTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final int HEADERS = 64;

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena);
    private final List<Integer> released = new ArrayList<>();
    private final ExternalBuffers.Released record = released::add;
    private SimNetwork network;
    private ExternalBuffers tickets;

    @BeforeEach
    void setUp() {
        network = new SimNetwork(7);
        tickets = new ExternalBuffers(arena, 16, 0);
    }

    @AfterEach
    void tearDown() {
        network.close();
        arena.close();
    }

    /** A frame of {@code length} bytes as SimFrames writes it, its bytes from HEADERS on in {@code memory} and attached, not copied. */
    private void queueChained(SimPort from, MemorySegment memory, int length, int sequence, int owner) {
        batch.clear();
        assertEquals(2, from.allocate(batch, 2));
        Mbuf head = batch.get(0);
        SimFrames.writeUdp(head, MAC_B, MAC_A, 1000, length, sequence);
        head.copyTo(HEADERS, memory, 0, length - HEADERS);
        head.frameLength(HEADERS);
        long tail = batch.address(1);
        int bytes = length - HEADERS;
        new Mbuf().wrap(tail).attachExternal(memory.address(), bytes, tickets.acquire(owner, memory.address(), bytes));
        head.chain(tail);
        batch.count(1);
    }

    @Test
    void shouldDeliverTheExternalBytesInOneSegmentAndReleaseThemAtTransmit() {
        SimPort a = network.addHost(MAC_A);
        SimPort b = network.addHost(MAC_B);
        int length = 4000;
        MemorySegment memory = arena.allocate(length);
        queueChained(a, memory, length, 5, 42);
        assertEquals(1, tickets.outstanding());
        assertEquals(1, a.transmit(batch));
        assertEquals(1, tickets.poll(record), "freed at transmit, as net_memif frees after its copy");
        assertEquals(List.of(42), released);

        List<byte[]> got = new ArrayList<>();
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> {
            assertEquals(1, frame.segmentCount());
            got.add(SimFrames.bytes(frame));
        });
        assertEquals(1, got.size());
        assertArrayEquals(SimFrames.expectedUdp(MAC_B, MAC_A, 1000, length, 5), got.get(0));
        assertEquals(0, network.pool().inUse(), "both segments back in the pool");
        assertEquals(0, b.txDropped());
    }

    @Test
    void shouldHoldTheMemoryUntilTheLazyNicFreesTheSegment() {
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        a.holdTransmitted(4);
        int length = 1500;
        MemorySegment first = arena.allocate(length);
        MemorySegment second = arena.allocate(length);
        queueChained(a, first, length, 1, 1);
        a.transmit(batch);
        queueChained(a, second, length, 2, 2);
        a.transmit(batch);
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> { });
        assertEquals(0, tickets.poll(record), "delivered, but the NIC has not freed the segments: the memory is still held");
        assertEquals(2, a.heldTransmitted());
        assertEquals(2, network.pool().inUse());

        a.reclaimTransmitted();
        assertEquals(2, tickets.poll(record));
        assertEquals(List.of(1, 2), released, "released oldest first");
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldRefuseAChainTooLongForOneFrameAndStillReleaseItsMemory() {
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        int length = SimBufferPool.DEFAULT_DATA_ROOM + 100;
        MemorySegment memory = arena.allocate(length);
        batch.clear();
        assertEquals(2, a.allocate(batch, 2));
        Mbuf head = batch.get(0);
        SimFrames.writeUdp(head, MAC_B, MAC_A, 1000, HEADERS + 100, 9);
        head.frameLength(HEADERS + 100);
        long tail = batch.address(1);
        int bytes = length - HEADERS - 100;
        new Mbuf().wrap(tail).attachExternal(memory.address(), bytes, tickets.acquire(3, memory.address(), bytes));
        head.chain(tail);
        batch.count(1);

        assertEquals(0, a.transmit(batch));
        assertEquals(1, a.txDropped());
        assertEquals(1, tickets.poll(record), "a refused frame's memory is released too");
        assertEquals(0, network.pool().inUse());
        assertTrue(released.contains(3));
    }
}
