package io.srdnic.pmd.pcap;

import static io.srdnic.ffm.rte_mbuf.NB_SEGS_OFFSET;
import static io.srdnic.ffm.rte_mbuf.NEXT_OFFSET;
import static io.srdnic.ffm.rte_mbuf.PKT_LEN_OFFSET;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapWriterTest {
    static {
        PcapFiles.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;

    @TempDir
    Path dir;

    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 8, SimBufferPool.DEFAULT_DATA_ROOM);
    private final MbufBatch batch = new MbufBatch(arena, 8);

    @AfterEach
    void tearDown() {
        arena.close();
    }

    @Test
    void shouldWriteNanosecondEthernetFileHeader() throws IOException {
        Path file = dir.resolve("empty.pcap");
        new PcapWriter(file).close();
        byte[] bytes = Files.readAllBytes(file);
        assertEquals(PcapWriter.FILE_HEADER_LENGTH, bytes.length);
        assertArrayEquals(new byte[] {0x4d, 0x3c, (byte) 0xb2, (byte) 0xa1}, Arrays.copyOf(bytes, 4), "magic a1b23c4d, little-endian");
        PcapFiles.Capture capture = PcapFiles.read(file);
        assertEquals(0xA1B23C4D, capture.magic());
        assertEquals(2, capture.versionMajor());
        assertEquals(4, capture.versionMinor());
        assertEquals(0, capture.zone());
        assertEquals(0, capture.sigfigs());
        assertEquals(65535, capture.snaplen());
        assertEquals(1, capture.linkType());
        assertTrue(capture.records().isEmpty());
    }

    @Test
    void shouldWriteEachFrameAsATimestampedRecord() throws IOException {
        Path file = dir.resolve("frames.pcap");
        long[] stamps = {0, 1, 999_999_999, 1_000_000_000, 1_234_567_890_123_456_789L};
        int[] lengths = {60, 61, 128, 1514, 4096};
        byte[][] sent = new byte[stamps.length][];
        try (PcapWriter writer = new PcapWriter(file)) {
            for (int i = 0; i < stamps.length; i++) {
                batch.clear();
                pool.allocate(batch, 1, 0);
                Mbuf m = batch.get(0);
                PcapFiles.writeUdp(m, MAC_B, MAC_A, 49152 + i, 21330, lengths[i], i);
                sent[i] = PcapFiles.bytes(m);
                assertTrue(writer.write(m, stamps[i]));
                pool.free(batch);
            }
            assertEquals(stamps.length, writer.framesWritten());
        }
        List<PcapFiles.Record> records = PcapFiles.read(file).records();
        assertEquals(stamps.length, records.size());
        for (int i = 0; i < stamps.length; i++) {
            PcapFiles.Record r = records.get(i);
            assertEquals(stamps[i] / 1_000_000_000L, r.seconds());
            assertEquals(stamps[i] % 1_000_000_000L, r.nanos());
            assertEquals(stamps[i], r.timestampNanos());
            assertEquals(lengths[i], r.includedLength());
            assertEquals(lengths[i], r.originalLength());
            assertArrayEquals(sent[i], r.data(), "frame " + i);
        }
    }

    @Test
    void shouldConcatenateTheSegmentsOfAChainedFrame() throws IOException {
        int[] lengths = {100, 1, 3000};
        Mbuf head = chain(lengths, 7);
        Path file = dir.resolve("chain.pcap");
        try (PcapWriter writer = new PcapWriter(file)) {
            writer.write(head, 42);
        }
        PcapFiles.Record r = PcapFiles.read(file).records().getFirst();
        int total = Arrays.stream(lengths).sum();
        assertEquals(total, r.includedLength());
        assertEquals(total, r.originalLength());
        for (int i = 0; i < total; i++) {
            assertEquals(PcapFiles.patternByte(7, i), r.data()[i], "byte " + i);
        }
        unchain();
    }

    @Test
    void shouldWalkNoMoreSegmentsThanTheHeadCounts() throws IOException {
        Mbuf head = chain(new int[] {200, 300}, 3);
        PcapFiles.NATIVE.set(ValueLayout.JAVA_SHORT_UNALIGNED, head.address() + NB_SEGS_OFFSET, (short) 1);
        Path file = dir.resolve("one-of-two.pcap");
        try (PcapWriter writer = new PcapWriter(file)) {
            writer.write(head, 0);
        }
        assertEquals(200, PcapFiles.read(file).records().getFirst().includedLength());
        unchain();
    }

    @Test
    void shouldCutAFrameLongerThanTheSnaplenKeepingItsOriginalLength() throws IOException {
        try (Arena big = Arena.ofConfined()) {
            SimBufferPool bigPool = new SimBufferPool(big, 2, 40_000);
            MbufBatch two = new MbufBatch(big, 2);
            bigPool.allocate(two, 2, 0);
            Mbuf head = two.get(0);
            PcapFiles.fillSegment(head, 40_000, 5, 0);
            PcapFiles.fillSegment(two.get(1), 40_000, 5, 40_000);
            link(head, two.address(1), 2, 80_000);
            Path file = dir.resolve("long.pcap");
            try (PcapWriter writer = new PcapWriter(file)) {
                writer.write(head, 0);
            }
            PcapFiles.Record r = PcapFiles.read(file).records().getFirst();
            assertEquals(PcapWriter.SNAPLEN, r.includedLength());
            assertEquals(80_000, r.originalLength());
            for (int i = 0; i < PcapWriter.SNAPLEN; i++) {
                assertEquals(PcapFiles.patternByte(5, i), r.data()[i], "byte " + i);
            }
            link(head, 0, 1, 40_000);
            bigPool.free(two);
        }
    }

    @Test
    void shouldWriteOutTheBufferWhenItFillsOrOnClose() throws IOException {
        Path file = dir.resolve("many.pcap");
        int frames = 500;
        int length = 4000;
        try (PcapWriter writer = new PcapWriter(file, PcapWriter.MIN_BUFFER_SIZE)) {
            pool.allocate(batch, 1, 0);
            Mbuf m = batch.get(0);
            for (int i = 0; i < frames; i++) {
                PcapFiles.writeUdp(m, MAC_B, MAC_A, 50000, 21330, length, i);
                writer.write(m, i * 1000L);
            }
            pool.free(batch);
            long before = Files.size(file);
            assertTrue(before > PcapWriter.FILE_HEADER_LENGTH, "a full buffer was written out before close");
            assertTrue(before < PcapWriter.FILE_HEADER_LENGTH + (long) frames * (PcapWriter.RECORD_HEADER_LENGTH + length),
                "the rest is still staged");
        }
        List<PcapFiles.Record> records = PcapFiles.read(file).records();
        assertEquals(frames, records.size());
        for (int i = 0; i < frames; i++) {
            PcapFiles.Record r = records.get(i);
            assertEquals(i * 1000L, r.timestampNanos());
            assertEquals(length, r.includedLength());
            assertEquals(i, ByteBuffer.wrap(r.data(), 42, 4).getInt(), "sequence");
        }
    }

    @Test
    void shouldFlushStagedRecordsOnRequest() throws IOException {
        Path file = dir.resolve("flush.pcap");
        try (PcapWriter writer = new PcapWriter(file)) {
            pool.allocate(batch, 1, 0);
            PcapFiles.writeUdp(batch.get(0), MAC_B, MAC_A, 50000, 21330, 100, 1);
            writer.write(batch.get(0), 5);
            pool.free(batch);
            assertEquals(0, Files.size(file), "staged, not yet written");
            writer.flush();
            assertEquals(PcapWriter.FILE_HEADER_LENGTH + PcapWriter.RECORD_HEADER_LENGTH + 100, Files.size(file));
        }
    }

    @Test
    void shouldCountFramesWrittenAfterCloseAsLost() throws IOException {
        Path file = dir.resolve("closed.pcap");
        PcapWriter writer = new PcapWriter(file);
        writer.close();
        writer.close();
        pool.allocate(batch, 1, 0);
        PcapFiles.writeUdp(batch.get(0), MAC_B, MAC_A, 50000, 21330, 100, 1);
        assertFalse(writer.write(batch.get(0), 0));
        pool.free(batch);
        assertEquals(1, writer.framesLost());
        assertEquals(0, writer.framesWritten());
        assertEquals(PcapWriter.FILE_HEADER_LENGTH, Files.size(file));
    }

    @Test
    void shouldRejectABufferThatCannotHoldOneSnaplenRecord() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new PcapWriter(dir.resolve("x.pcap"), PcapWriter.MIN_BUFFER_SIZE - 1));
        assertTrue(e.getMessage().contains(String.valueOf(PcapWriter.MIN_BUFFER_SIZE)), e.getMessage());
    }

    @Test
    void shouldNotAllocatePerFrame() throws IOException {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        Path file = dir.resolve("alloc.pcap");
        try (PcapWriter writer = new PcapWriter(file, PcapWriter.MIN_BUFFER_SIZE)) {
            pool.allocate(batch, 1, 0);
            Mbuf m = batch.get(0);
            PcapFiles.writeUdp(m, MAC_B, MAC_A, 50000, 21330, 1000, 1);
            for (int i = 0; i < 20_000; i++) {
                writer.write(m, i);
            }
            long tid = Thread.currentThread().threadId();
            long before = threads.getThreadAllocatedBytes(tid);
            int frames = 50_000;
            for (int i = 0; i < frames; i++) {
                writer.write(m, i);
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            pool.free(batch);
            assertTrue(allocated < frames / 10, allocated + " bytes allocated for " + frames + " frames");
        }
    }

    /** Allocates one buffer per length, fills them as one frame's consecutive bytes, and chains them. */
    private Mbuf chain(int[] lengths, int sequence) {
        batch.clear();
        pool.allocate(batch, lengths.length, 0);
        int offset = 0;
        for (int i = 0; i < lengths.length; i++) {
            PcapFiles.fillSegment(batch.get(i), lengths[i], sequence, offset);
            offset += lengths[i];
        }
        for (int i = 0; i < lengths.length - 1; i++) {
            PcapFiles.NATIVE.set(ValueLayout.JAVA_LONG_UNALIGNED, batch.address(i) + NEXT_OFFSET, batch.address(i + 1));
        }
        Mbuf head = batch.get(0);
        link(head, lengths.length > 1 ? batch.address(1) : 0, lengths.length, offset);
        return head;
    }

    private void unchain() {
        for (int i = 0; i < batch.count(); i++) {
            Mbuf m = batch.get(i);
            link(m, 0, 1, m.dataLength());
        }
        pool.free(batch);
    }

    private static void link(Mbuf head, long next, int segments, int packetLength) {
        PcapFiles.NATIVE.set(ValueLayout.JAVA_LONG_UNALIGNED, head.address() + NEXT_OFFSET, next);
        PcapFiles.NATIVE.set(ValueLayout.JAVA_SHORT_UNALIGNED, head.address() + NB_SEGS_OFFSET, (short) segments);
        PcapFiles.NATIVE.set(ValueLayout.JAVA_INT_UNALIGNED, head.address() + PKT_LEN_OFFSET, packetLength);
    }
}
