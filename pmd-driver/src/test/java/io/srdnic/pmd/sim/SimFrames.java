package io.srdnic.pmd.sim;

import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Test support: builds Ethernet/IPv4/UDP frames whose payload starts with a sequence number and
 * continues with a pattern derived from it, so a receiver can check every byte; drives a network
 * until nothing is in flight.
 */
final class SimFrames {
    /** A shim path that does not exist: any accidental load of DPDK in a sim test fails loudly. */
    static final String NO_SHIM = "/nonexistent/srdnic-sim-test/libsrdnic_shim.so";
    static final int ETHERNET = 14;
    static final int HEADERS = 14 + 20 + 8;
    static final int SEQUENCE_OFFSET = HEADERS;
    static final int MIN_FRAME = HEADERS + 4;
    static final int UDP_DESTINATION_PORT = 4791;
    /** All of native memory, for reading mbuf fields the flyweight does not expose. */
    @SuppressWarnings("restricted")
    static final MemorySegment NATIVE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SimFrames() {
    }

    /** Points the DPDK loader at nothing; called from every sim test class's static initializer. */
    static void forbidNativeDpdk() {
        System.setProperty("srdnic.shim.path", NO_SHIM);
    }

    /** Writes a whole UDP frame of {@code length} bytes carrying {@code sequence}; allocates nothing. */
    static void writeUdp(Mbuf m, long dstMac, long srcMac, int srcPort, int length, int sequence) {
        m.frameLength(length);
        m.putShortBE(0, (short) (dstMac >>> 32)).putIntBE(2, (int) dstMac);
        m.putShortBE(6, (short) (srcMac >>> 32)).putIntBE(8, (int) srcMac);
        m.putShortBE(12, (short) 0x0800);
        m.putByte(14, (byte) 0x45).putByte(15, (byte) 0).putShortBE(16, (short) (length - ETHERNET));
        m.putShortBE(18, (short) 0).putShortBE(20, (short) 0x4000).putByte(22, (byte) 64).putByte(23, (byte) 17);
        m.putShortBE(24, (short) 0).putIntBE(26, 0x0A000000 | (int) (srcMac & 0xFF)).putIntBE(30, 0x0A000000 | (int) (dstMac & 0xFF));
        m.putShortBE(34, (short) srcPort).putShortBE(36, (short) UDP_DESTINATION_PORT);
        m.putShortBE(38, (short) (length - ETHERNET - 20)).putShortBE(40, (short) 0);
        m.putIntBE(SEQUENCE_OFFSET, sequence);
        for (int i = SEQUENCE_OFFSET + 4; i < length; i++) {
            m.putByte(i, patternByte(sequence, i));
        }
    }

    static byte patternByte(int sequence, int offset) {
        return (byte) (sequence * 31 + offset * 7);
    }

    /** The bytes {@link #writeUdp} writes, built on the heap. */
    static byte[] expectedUdp(long dstMac, long srcMac, int srcPort, int length, int sequence) {
        byte[] bytes = new byte[length];
        MemorySegment s = MemorySegment.ofArray(bytes);
        ValueLayout.OfShort shortBe = SHORT_BE;
        ValueLayout.OfInt intBe = INT_BE;
        MacAddress.write(s, 0, dstMac);
        MacAddress.write(s, 6, srcMac);
        s.set(shortBe, 12, (short) 0x0800);
        bytes[14] = 0x45;
        s.set(shortBe, 16, (short) (length - ETHERNET));
        s.set(shortBe, 20, (short) 0x4000);
        bytes[22] = 64;
        bytes[23] = 17;
        s.set(intBe, 26, 0x0A000000 | (int) (srcMac & 0xFF));
        s.set(intBe, 30, 0x0A000000 | (int) (dstMac & 0xFF));
        s.set(shortBe, 34, (short) srcPort);
        s.set(shortBe, 36, (short) UDP_DESTINATION_PORT);
        s.set(shortBe, 38, (short) (length - ETHERNET - 20));
        s.set(intBe, SEQUENCE_OFFSET, sequence);
        for (int i = SEQUENCE_OFFSET + 4; i < length; i++) {
            bytes[i] = patternByte(sequence, i);
        }
        return bytes;
    }

    /** A copy of the frame's bytes. */
    static byte[] bytes(Mbuf m) {
        byte[] bytes = new byte[m.dataLength()];
        m.copyTo(0, MemorySegment.ofArray(bytes), 0, bytes.length);
        return bytes;
    }

    static int sequence(Mbuf m) {
        return m.getIntBE(SEQUENCE_OFFSET);
    }

    /**
     * Allocates {@code count} buffers from {@code port}, fills them with consecutive sequences from
     * {@code firstSequence}, transmits them.
     */
    static int send(SimPort port, MbufBatch batch, long dstMac, int srcPort, int length, int firstSequence, int count) {
        batch.clear();
        if (port.allocate(batch, count) != count) {
            throw new AssertionError("pool exhausted allocating " + count);
        }
        for (int i = 0; i < count; i++) {
            writeUdp(batch.get(i), dstMac, port.macAddress(), srcPort, length, firstSequence + i);
        }
        return port.transmit(batch);
    }

    /** Sees each received frame, with the virtual time it was received at; the frame is freed afterwards. */
    @FunctionalInterface
    interface FrameHandler {
        void onFrame(SimPort port, Mbuf frame, long nowNanos);
    }

    /**
     * Receives on every port at each event time, jumping the clock from event to event, until
     * nothing is in flight; every frame is freed after {@code handler} saw it.
     */
    static void runUntilIdle(SimNetwork network, MbufBatch batch, FrameHandler handler) {
        while (true) {
            for (int h = 0; h < network.hostCount(); h++) {
                SimPort port = network.port(h);
                while (port.receive(batch) > 0) {
                    for (int i = 0; i < batch.count(); i++) {
                        handler.onFrame(port, batch.get(i), network.clock().now());
                    }
                    port.free(batch);
                }
            }
            long next = network.nextEventTime();
            if (next == Long.MAX_VALUE) {
                return;
            }
            network.clock().advanceTo(next);
        }
    }

    /** Tolerance for a binomial count: {@code sigmas} standard deviations of Binomial(n, p). */
    static double binomialTolerance(int n, double p, double sigmas) {
        return sigmas * Math.sqrt(n * p * (1 - p));
    }
}
