package io.srdnic.pmd.sim;

import static io.srdnic.ffm.rte_mbuf.BUF_ADDR_OFFSET;
import static io.srdnic.ffm.rte_mbuf.DATA_OFF_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NB_SEGS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.OL_FLAGS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.REFCNT_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.ffm.rte_mbuf;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimBufferPoolTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 8);
    private final MbufBatch batch = new MbufBatch(arena);

    @AfterEach
    void tearDown() {
        arena.close();
    }

    @Test
    void shouldLayOutEveryBufferAsAnRteMbufFollowedByItsBuffer() {
        assertEquals(4, pool.allocate(batch, 4, 3));
        Set<Long> addresses = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            Mbuf m = batch.get(i);
            long address = m.address();
            addresses.add(address);
            assertEquals(0, address % 64, "cache-line aligned");
            assertEquals(address + rte_mbuf.SIZE, SimFrames.NATIVE.get(ValueLayout.JAVA_LONG, address + BUF_ADDR_OFFSET));
            assertEquals(rte_mbuf.RTE_PKTMBUF_HEADROOM + SimBufferPool.DEFAULT_DATA_ROOM, m.bufferLength());
            assertEquals(rte_mbuf.RTE_PKTMBUF_HEADROOM, m.dataOffset());
            assertEquals(SimBufferPool.DEFAULT_DATA_ROOM, m.capacity());
            assertEquals(address + rte_mbuf.SIZE + rte_mbuf.RTE_PKTMBUF_HEADROOM, m.dataAddress());
            assertEquals(1, SimFrames.NATIVE.get(ValueLayout.JAVA_SHORT, address + REFCNT_OFFSET));
            assertEquals(1, m.segmentCount());
            assertEquals(0, m.next());
            assertEquals(0, m.dataLength());
            assertEquals(0, m.packetLength());
            assertEquals(3, m.port());
            assertTrue(pool.contains(address));
        }
        assertEquals(4, addresses.size());
        assertEquals(4, pool.inUse());
        pool.free(batch);
        assertEquals(0, batch.count());
        assertEquals(0, pool.inUse());
    }

    @Test
    void shouldAllocateAllOrNothing() {
        assertEquals(5, pool.allocate(batch, 5, 0));
        assertEquals(0, pool.allocate(batch, 4, 0), "only 3 free: nothing may be taken");
        assertEquals(5, batch.count());
        assertEquals(5, pool.inUse());
        assertEquals(3, pool.allocate(batch, 3, 0));
        assertEquals(8, pool.inUse());
        assertEquals(0, pool.available());
        pool.free(batch);
        assertEquals(0, pool.inUse());
    }

    @Test
    void shouldRejectAnAllocationThatDoesNotFitTheBatch() {
        MbufBatch small = new MbufBatch(arena, 2);
        assertThrows(IllegalArgumentException.class, () -> pool.allocate(small, 3, 0));
        assertEquals(0, pool.inUse());
    }

    @Test
    void shouldRejectDoubleFree() {
        pool.allocate(batch, 1, 0);
        long address = batch.address(0);
        pool.free(address);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.free(address));
        assertTrue(e.getMessage().contains("already free"), e.getMessage());
        assertEquals(0, pool.inUse());
    }

    @Test
    void shouldRejectAddressesThatAreNotItsBuffers() {
        pool.allocate(batch, 1, 0);
        long address = batch.address(0);
        assertThrows(IllegalArgumentException.class, () -> pool.free(address + 1));
        assertThrows(IllegalArgumentException.class, () -> pool.free(address - 4096L * 1024));
        assertFalse(pool.contains(address + 64));
        try (Arena other = Arena.ofConfined()) {
            SimBufferPool otherPool = new SimBufferPool(other, 2);
            MbufBatch otherBatch = new MbufBatch(other, 2);
            otherPool.allocate(otherBatch, 1, 0);
            assertThrows(IllegalArgumentException.class, () -> pool.free(otherBatch.address(0)));
            otherPool.free(otherBatch);
        }
        assertEquals(1, pool.inUse());
        pool.free(address);
    }

    @Test
    void shouldResetEveryHeaderFieldWhenABufferIsReused() {
        SimBufferPool one = new SimBufferPool(arena, 1, 2048);
        one.allocate(batch, 1, 1);
        Mbuf m = batch.get(0);
        long address = m.address();
        m.frameLength(100).offloadFlags(0xFFL);
        SimFrames.NATIVE.set(ValueLayout.JAVA_SHORT, address + DATA_OFF_OFFSET, (short) 64);
        SimFrames.NATIVE.set(ValueLayout.JAVA_SHORT, address + NB_SEGS_OFFSET, (short) 3);
        one.free(batch);

        one.allocate(batch, 1, 2);
        m = batch.get(0);
        assertEquals(address, m.address());
        assertEquals(0, m.dataLength());
        assertEquals(128, m.dataOffset());
        assertEquals(1, m.segmentCount());
        assertEquals(0, m.offloadFlags());
        assertEquals(0, SimFrames.NATIVE.get(ValueLayout.JAVA_LONG, address + OL_FLAGS_OFFSET));
        assertEquals(2, m.port());
        assertEquals(2048, m.capacity());
        one.free(batch);
    }

    @Test
    void shouldRejectADataRoomThatDoesNotFitBufLen() {
        assertThrows(IllegalArgumentException.class, () -> new SimBufferPool(arena, 1, SimBufferPool.MAX_DATA_ROOM + 1));
        assertThrows(IllegalArgumentException.class, () -> new SimBufferPool(arena, 0));
    }
}
