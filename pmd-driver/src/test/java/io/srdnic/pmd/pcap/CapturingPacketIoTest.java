package io.srdnic.pmd.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Captures through a simulated network, read back byte by byte and by tshark. */
class CapturingPacketIoTest {
    static {
        PcapFiles.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final int DST_PORT = 21330;
    static final int FRAMES = 24;
    static final int[] LENGTHS = {60, 64, 65, 128, 256, 1000, 1514, 4096};

    @TempDir
    Path dir;

    /** What one capture record should say. */
    record Expected(int length, long srcMac, int srcPort, int dstPort, long timeNanos, int sequence) {
    }

    static int length(int k) {
        return LENGTHS[k % LENGTHS.length];
    }

    static int srcPort(int k) {
        return 49152 + k * 677;
    }

    /** Sends FRAMES frames from A to B at spread-out virtual times; A captures TX, B captures RX. */
    private List<Expected> exchange(Path file, boolean captureReceivedAtB, List<byte[]> sentBytes) throws IOException {
        List<Expected> expected = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); SimNetwork network = new SimNetwork(11);
             PcapWriter writer = new PcapWriter(file)) {
            SimPort a = network.addHost(MAC_A);
            SimPort b = network.addHost(MAC_B);
            CapturingPacketIo capA = new CapturingPacketIo(a, writer, network.clock(), true);
            CapturingPacketIo capB = new CapturingPacketIo(b, writer, network.clock(), captureReceivedAtB);
            MbufBatch tx = new MbufBatch(arena, 4);
            MbufBatch rx = new MbufBatch(arena, 32);
            for (int k = 0; k < FRAMES; k++) {
                long sendAt = 1_000 + k * 250_003_333L;   // crosses whole seconds: both timestamp fields matter
                receiveUntil(network, capB, rx, sendAt, expected, captureReceivedAtB);
                network.clock().advanceTo(sendAt);
                tx.clear();
                assertEquals(1, capA.allocate(tx, 1));
                Mbuf m = tx.get(0);
                PcapFiles.writeUdp(m, MAC_B, MAC_A, srcPort(k), DST_PORT, length(k), k);
                sentBytes.add(PcapFiles.bytes(m));
                expected.add(new Expected(length(k), MAC_A, srcPort(k), DST_PORT, sendAt, k));
                assertEquals(1, capA.transmit(tx));
            }
            receiveUntil(network, capB, rx, Long.MAX_VALUE, expected, captureReceivedAtB);
            assertEquals(0, network.pool().inUse());
            assertEquals(expected.size(), writer.framesWritten());
            assertEquals(0, writer.framesLost());
        }
        return expected;
    }

    /** Receives on B at every event time up to {@code until}, noting each frame as captured at that time. */
    private static void receiveUntil(SimNetwork network, CapturingPacketIo b, MbufBatch rx, long until,
                                     List<Expected> expected, boolean captured) {
        for (long next = network.nextEventTime(); next != Long.MAX_VALUE && next <= until; next = network.nextEventTime()) {
            network.clock().advanceTo(next);
            while (b.receive(rx) > 0) {
                for (int i = 0; i < rx.count(); i++) {
                    Mbuf m = rx.get(i);
                    int sequence = m.getIntBE(42);
                    if (captured) {
                        expected.add(new Expected(m.dataLength(), MAC_A, srcPort(sequence), DST_PORT, network.clock().now(), sequence));
                    }
                    assertEquals(length(sequence), m.dataLength(), "delivered intact");
                }
                b.free(rx);
            }
        }
    }

    @Test
    void shouldCaptureFramesBothWaysWithVirtualTimestamps() throws IOException {
        Path file = dir.resolve("sim.pcap");
        List<byte[]> sent = new ArrayList<>();
        List<Expected> expected = exchange(file, true, sent);
        assertEquals(2 * FRAMES, expected.size());
        List<PcapFiles.Record> records = PcapFiles.read(file).records();
        assertEquals(expected.size(), records.size());
        for (int i = 0; i < records.size(); i++) {
            PcapFiles.Record r = records.get(i);
            Expected e = expected.get(i);
            assertEquals(e.timeNanos(), r.timestampNanos(), "record " + i);
            assertEquals(e.length(), r.includedLength());
            assertEquals(e.length(), r.originalLength());
            assertArrayEquals(sent.get(e.sequence()), r.data(), "record " + i + " carries frame " + e.sequence());
        }
        // Every received record is later than its transmitted one by at least the propagation delay.
        for (int k = 0; k < FRAMES; k++) {
            final int sequence = k;
            List<Expected> both = expected.stream().filter(x -> x.sequence() == sequence).toList();
            assertEquals(2, both.size());
            assertTrue(both.get(1).timeNanos() - both.get(0).timeNanos() >= 3 * 2_000, "three links of 2 us");
        }
    }

    @Test
    void shouldCaptureOnlyTransmittedFramesUnlessAsked() throws IOException {
        Path file = dir.resolve("tx-only.pcap");
        List<Expected> expected = exchange(file, false, new ArrayList<>());
        assertEquals(FRAMES, expected.size());
        assertEquals(FRAMES, PcapFiles.read(file).records().size());
    }

    @Test
    void shouldCaptureAFrameTheInnerPortRefuses() throws IOException {
        Path file = dir.resolve("refused.pcap");
        try (Arena arena = Arena.ofConfined(); SimNetwork network = new SimNetwork(1);
             PcapWriter writer = new PcapWriter(file)) {
            SimPort a = network.addHost(MAC_A);
            CapturingPacketIo cap = new CapturingPacketIo(a, writer, network.clock());
            MbufBatch tx = new MbufBatch(arena, 1);
            cap.allocate(tx, 1);
            tx.get(0).frameLength(10).putByte(0, (byte) 1);    // shorter than an Ethernet header: refused
            assertEquals(0, cap.transmit(tx));
            assertEquals(1, cap.txDropped());
            assertEquals(1, writer.framesWritten());
            assertEquals(MAC_A, cap.macAddress());
            assertEquals(a.maxFrameLength(), cap.maxFrameLength());
        }
        assertEquals(10, PcapFiles.read(file).records().getFirst().includedLength());
    }

    @Test
    void shouldNotAllocatePerCapturedFrame() throws IOException {
        ThreadMXBean threads =
            (ThreadMXBean) ManagementFactory.getThreadMXBean();
        Path file = dir.resolve("alloc.pcap");
        try (Arena arena = Arena.ofConfined(); SimNetwork network = new SimNetwork(3);
             PcapWriter writer = new PcapWriter(file, PcapWriter.MIN_BUFFER_SIZE)) {
            CapturingPacketIo a = new CapturingPacketIo(network.addHost(MAC_A), writer, network.clock(), true);
            CapturingPacketIo b = new CapturingPacketIo(network.addHost(MAC_B), writer, network.clock(), true);
            MbufBatch tx = new MbufBatch(arena, 32);
            MbufBatch rx = new MbufBatch(arena, 32);
            long tid = Thread.currentThread().threadId();
            long before = 0;
            int rounds = 3_000;
            for (int round = -1_000; round < rounds; round++) {
                if (round == 0) {
                    before = threads.getThreadAllocatedBytes(tid);
                }
                tx.clear();
                if (a.allocate(tx, 32) == 32) {
                    for (int i = 0; i < 32; i++) {
                        PcapFiles.writeUdp(tx.get(i), MAC_B, MAC_A, 49152 + i, DST_PORT, 200, round);
                    }
                    a.transmit(tx);
                }
                network.clock().advanceBy(10_000);
                while (b.receive(rx) > 0) {
                    b.free(rx);
                }
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            long frames = 2L * 32 * rounds;
            assertTrue(allocated < frames / 10, allocated + " bytes allocated for " + frames + " captured frames");
            assertEquals(2L * 32 * 4_000, writer.framesWritten());
        }
    }

    @Test
    void shouldReadBackInTsharkAsSent() throws IOException, InterruptedException {
        Path tshark = PcapFiles.tshark();
        Assumptions.assumeTrue(tshark != null, PcapFiles.NO_TSHARK);
        Path file = dir.resolve("tshark.pcap");
        List<Expected> expected = exchange(file, true, new ArrayList<>());
        List<String> lines = PcapFiles.runTshark(tshark, "-r", file.toString(), "-T", "fields", "-E", "separator=,",
            "-e", "frame.len", "-e", "eth.src", "-e", "udp.srcport", "-e", "udp.dstport", "-e", "frame.time_epoch",
            "-e", "frame.protocols");
        assertEquals(expected.size(), lines.size(), String.join("\n", lines));
        for (int i = 0; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",");
            Expected e = expected.get(i);
            String where = "tshark line " + (i + 1) + ": " + lines.get(i);
            assertEquals(e.length(), Integer.parseInt(f[0]), where);
            assertEquals(MacAddress.format(e.srcMac()), f[1], where);
            assertEquals(e.srcPort(), Integer.parseInt(f[2]), where);
            assertEquals(e.dstPort(), Integer.parseInt(f[3]), where);
            assertEquals(e.timeNanos(), new BigDecimal(f[4]).movePointRight(9).longValueExact(), where);
            assertNotNull(f[5]);
            assertTrue(f[5].startsWith("eth:ethertype:ip:udp"), where);
        }
    }
}
