package io.srdnic.pmd.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Injected frames reach the receiver after the port's own, in order, byte for byte, in mbufs of the port's pool. */
class InjectingPacketIoTest {
    static {
        // No DPDK in this test: the port is a stub over rte_mbuf-shaped buffers.
        System.setProperty("srdnic.shim.path", "/nonexistent/srdnic-test/libsrdnic_shim.so");
    }

    private static final int ROOM = 256;
    private final Arena arena = Arena.ofShared();
    private final SimBufferPool pool = new SimBufferPool(arena, 64, ROOM);
    private final StubPort port = new StubPort(pool);

    @AfterEach
    void tearDown() {
        assertEquals(0, pool.inUse(), "every mbuf went back to the pool");
        arena.close();
    }

    @Test
    void shouldAppendInjectedFramesAfterTheFramesThePortReceived() {
        InjectingPacketIo io = new InjectingPacketIo(port, 8);
        port.arriving.add(frame(1, 60));
        port.arriving.add(frame(2, 61));
        assertTrue(io.inject(segment(frame(3, 42)), 42));
        assertTrue(io.inject(segment(frame(4, 100)), 100));
        MbufBatch batch = new MbufBatch(arena, 32);
        assertEquals(4, io.receive(batch));
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(frame(i + 1, new int[] {60, 61, 42, 100}[i]), bytes(batch.get(i)), "frame " + i);
        }
        assertEquals(2, io.injected());
        assertEquals(0, io.refused());
        io.free(batch);
        assertEquals(0, io.receive(batch), "each injected frame is received once");
    }

    @Test
    void shouldLeaveWhatDoesNotFitTheBatchForTheNextReceive() {
        InjectingPacketIo io = new InjectingPacketIo(port, 8);
        for (int i = 0; i < 3; i++) {
            port.arriving.add(frame(i, 60));
            assertTrue(io.inject(segment(frame(10 + i, 70)), 70));
        }
        MbufBatch batch = new MbufBatch(arena, 4);
        assertEquals(4, io.receive(batch));
        assertArrayEquals(frame(10, 70), bytes(batch.get(3)), "the port's frames first, then the oldest injected one");
        io.free(batch);
        assertEquals(2, io.receive(batch));
        assertArrayEquals(frame(11, 70), bytes(batch.get(0)));
        assertArrayEquals(frame(12, 70), bytes(batch.get(1)));
        assertEquals(3, io.injected());
        io.free(batch);
    }

    @Test
    void shouldRefuseFramesWhenTheQueueIsFullOrTheFrameDoesNotFitAnMbuf() {
        InjectingPacketIo io = new InjectingPacketIo(port, 2);
        MemorySegment big = arena.allocate(ROOM + 1);
        assertFalse(io.inject(big, ROOM + 1), "longer than the port's frames");
        assertFalse(io.inject(big, 0), "empty");
        assertFalse(io.inject(segment(frame(1, 60)), 61), "longer than the segment given");
        assertTrue(io.inject(big, ROOM));
        assertTrue(io.inject(segment(frame(2, 60)), 60));
        assertFalse(io.inject(segment(frame(3, 60)), 60), "the queue holds two");
        assertEquals(4, io.refused());
        MbufBatch batch = new MbufBatch(arena, 32);
        assertEquals(2, io.receive(batch));
        assertEquals(ROOM, batch.get(0).dataLength());
        io.free(batch);
        assertTrue(io.inject(segment(frame(3, 60)), 60), "room again once received");
        assertEquals(1, io.receive(batch));
        io.free(batch);
    }

    @Test
    void shouldKeepFramesQueuedWhileThePoolHasNoMbufs() {
        InjectingPacketIo io = new InjectingPacketIo(port, 8);
        MbufBatch hog = new MbufBatch(arena, 64);
        assertEquals(64, pool.allocate(hog, 64, 0));
        assertTrue(io.inject(segment(frame(7, 80)), 80));
        MbufBatch batch = new MbufBatch(arena, 32);
        assertEquals(0, io.receive(batch));
        assertEquals(0, io.injected());
        pool.free(hog);
        assertEquals(1, io.receive(batch));
        assertArrayEquals(frame(7, 80), bytes(batch.get(0)));
        io.free(batch);
    }

    @Test
    void shouldTakeInjectionsFromAnotherThreadInOrder() throws InterruptedException {
        InjectingPacketIo io = new InjectingPacketIo(port, 16);
        int frames = 20_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        Thread producer = new Thread(() -> {
            try (Arena local = Arena.ofConfined()) {
                MemorySegment f = local.allocate(ROOM);
                for (int i = 0; i < frames && !stop.get(); i++) {
                    MemorySegment.copy(frame(i, 60 + i % 150), 0, f, ValueLayout.JAVA_BYTE, 0, 60 + i % 150);
                    while (!io.inject(f, 60 + i % 150) && !stop.get()) {
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        producer.start();
        MbufBatch batch = new MbufBatch(arena, 32);
        int next = 0;
        // Gives up only after 30 s without a frame: on a machine busy with other work the two threads
        // may get little CPU, which makes the test slow, not wrong.
        long deadline = System.nanoTime() + 30_000_000_000L;
        try {
            while (next < frames && System.nanoTime() < deadline && failure.get() == null) {
                int n = io.receive(batch);
                for (int i = 0; i < n; i++, next++) {
                    assertArrayEquals(frame(next, 60 + next % 150), bytes(batch.get(i)), "frame " + next);
                }
                io.free(batch);
                if (n > 0) {
                    deadline = System.nanoTime() + 30_000_000_000L;
                }
            }
        } finally {
            stop.set(true); // else a producer facing a full queue spins for ever and join() never returns
            producer.join();
        }
        assertEquals(null, failure.get());
        assertEquals(frames, next);
        assertEquals(frames, io.injected());
    }

    /** A frame of {@code length} bytes whose content is derived from {@code k}. */
    private static byte[] frame(int k, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (k * 131 + i * 7 + (k >>> 8));
        }
        return b;
    }

    private MemorySegment segment(byte[] b) {
        return arena.allocate(b.length).copyFrom(MemorySegment.ofArray(b));
    }

    private static byte[] bytes(Mbuf m) {
        return m.data().toArray(ValueLayout.JAVA_BYTE);
    }

    /** A port whose received frames are those in {@link #arriving}, in buffers of a simulated pool. */
    static final class StubPort implements PacketIo {
        final Deque<byte[]> arriving = new ArrayDeque<>();
        private final SimBufferPool pool;

        StubPort(SimBufferPool pool) {
            this.pool = pool;
        }

        @Override
        public int receive(MbufBatch batch) {
            batch.clear();
            while (!arriving.isEmpty() && !batch.isFull() && pool.allocate(batch, 1, 0) == 1) {
                byte[] f = arriving.poll();
                Mbuf m = batch.get(batch.count() - 1);
                m.copyFrom(MemorySegment.ofArray(f), 0, 0, f.length);
                m.frameLength(f.length);
            }
            return batch.count();
        }

        @Override
        public int transmit(MbufBatch batch) {
            pool.free(batch);
            return 0;
        }

        @Override
        public int allocate(MbufBatch batch, int n) {
            return pool.allocate(batch, n, 0);
        }

        @Override
        public void free(MbufBatch batch) {
            pool.free(batch);
        }

        @Override
        public int maxFrameLength() {
            return pool.dataRoom();
        }

        @Override
        public long macAddress() {
            return 0x02_00_00_00_00_01L;
        }

        @Override
        public long txDropped() {
            return 0;
        }
    }
}
