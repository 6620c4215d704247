package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;
import static io.srdnic.srd.wire.WireFrames.MTU;
import static io.srdnic.srd.wire.WireFrames.PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SrdParser#parse} on hostile input: it never throws, returns a packet type or a negative
 * ParseError code, reads nothing past the end of the frame, and when it accepts a frame every
 * accessor of that type reads inside it.
 * <p>
 * "Nothing past the end of the frame" is enforced, not sampled: before each parse the mbuf's raw
 * {@code buf_len} is cut so that the flyweight's bounds-checked data room ends exactly where the
 * frame does, so any read beyond it throws IndexOutOfBoundsException and fails the test.
 */
class SrdParserFuzzTest {
    static {
        WireFrames.forbidNativeDpdk();
    }

    static final int DATA_ROOM = SimBufferPool.DEFAULT_DATA_ROOM;
    static final int RANDOM_ITERATIONS = 300_000;
    static final int MUTATION_ITERATIONS = 400_000;

    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 2, DATA_ROOM);
    private final MbufBatch batch = new MbufBatch(arena, 2);
    private final byte[] frame = new byte[DATA_ROOM];
    private final int[] typeCounts = new int[16];
    private final int[] errorCounts = new int[ParseError.VALUES.length];
    private Mbuf m;

    @BeforeEach
    void setUp() {
        pool.allocate(batch, 1, 0);
        m = batch.get(0);
    }

    @AfterEach
    void tearDown() {
        WireFrames.dataRoom(m, DATA_ROOM);
        pool.free(batch);
        arena.close();
    }

    @Test
    void shouldFailAnyReadPastTheFrameOnceTheDataRoomIsCut() {
        int length = WireFrames.writeData(m, PacketType.SEND, 10, true, 1);
        WireFrames.dataRoom(m, length);
        assertEquals(length, m.capacity());
        assertEquals(PacketType.SEND, SrdParser.parse(m, PORT, MTU));
        m.getByte(length - 1);
        assertThrows(IndexOutOfBoundsException.class, () -> m.getByte(length));
        assertThrows(IndexOutOfBoundsException.class, () -> m.getLongBE(length - 7));
        WireFrames.dataRoom(m, DATA_ROOM);
    }

    @Test
    void shouldNeverThrowOnRandomBytesOfRandomLengths() {
        SplittableRandom random = new SplittableRandom(0x5EED_0001L);
        for (int i = 0; i < RANDOM_ITERATIONS; i++) {
            int mode = random.nextInt(10);
            int length = mode < 4 ? random.nextInt(0, 160) : random.nextInt(0, DATA_ROOM + 1);
            fillRandom(random, length);
            if (mode >= 7 && length >= SRD_OFFSET) {
                plausibleHeaders(random, length);            // random SRD bytes behind valid L2-L4 headers
            }
            parseAndCheck(length, "random " + i);
        }
        assertTrue(errorCounts[ParseError.TRUNCATED.ordinal()] > 0);
        assertTrue(errorCounts[ParseError.NOT_IPV4.ordinal()] > 0);
        assertTrue(errorCounts[ParseError.WRONG_VERSION.ordinal()] > 0, "random SRD bytes reached the SRD checks");
        report("random");
    }

    @Test
    void shouldNeverThrowOnValidPacketsWithOneToThreeMutatedBytes() {
        SplittableRandom random = new SplittableRandom(0x5EED_0002L);
        int corpusSize = 1024;
        byte[][] corpus = new byte[corpusSize][];
        for (int k = 0; k < corpusSize; k++) {
            int length = WireFrames.writeValid(m, k, k % 3 != 0, k);
            assertTrue(SrdParser.parse(m, PORT, MTU) > 0, "corpus frame " + k + " is valid");
            corpus[k] = WireFrames.bytes(m, length);
        }
        for (int i = 0; i < MUTATION_ITERATIONS; i++) {
            byte[] original = corpus[random.nextInt(corpusSize)];
            int length = original.length;
            System.arraycopy(original, 0, frame, 0, length);
            int mutations = 1 + random.nextInt(3);
            for (int j = 0; j < mutations; j++) {
                int at = switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(length);                                   // anywhere
                    case 1 -> random.nextInt(SRD_OFFSET);                               // Ethernet/IPv4/UDP
                    default -> SRD_OFFSET + random.nextInt(Math.min(length, SRD_OFFSET + SrdAck.length(SrdAck.MAX_DROPS)) - SRD_OFFSET);
                };
                frame[at] = random.nextInt(4) == 0 ? (byte) (frame[at] ^ (1 << random.nextInt(8))) : (byte) random.nextInt(256);
            }
            boolean repair = random.nextBoolean();               // so that mutations get past the checksums
            WireFrames.dataRoom(m, DATA_ROOM);
            m.frameLength(length);
            m.copyFrom(MemorySegment.ofArray(frame), 0, 0, length);
            if (repair) {
                WireFrames.refreshChecksums(m);
                m.copyTo(0, MemorySegment.ofArray(frame), 0, length);
            }
            parseAndCheck(length, "mutation " + i);
        }
        Set<ParseError> seen = EnumSet.noneOf(ParseError.class);
        for (ParseError e : ParseError.VALUES) {
            if (errorCounts[e.ordinal()] > 0) {
                seen.add(e);
            }
        }
        // Every error a byte mutation can cause (CHAINED is in the rte_mbuf header, not the frame).
        assertEquals(EnumSet.complementOf(EnumSet.of(ParseError.CHAINED)), seen, "errors reached");
        for (int type = PacketType.SEND; type <= PacketType.PROBE_REPLY; type++) {
            assertTrue(typeCounts[type] > 0, PacketType.name(type) + " accepted after a harmless mutation");
        }
        report("mutation");
    }

    /** Copies frame[0..length) into the mbuf, limits its data room to the frame, parses, and checks the result. */
    private void parseAndCheck(int length, String what) {
        WireFrames.dataRoom(m, DATA_ROOM);
        m.frameLength(length);
        m.copyFrom(MemorySegment.ofArray(frame), 0, 0, length);
        WireFrames.dataRoom(m, length);
        int result;
        try {
            result = SrdParser.parse(m, PORT, MTU);
            assertEquals(result, SrdParser.parse(m, PORT, MTU), "parsing again gives the same answer");
            if (result >= 0) {
                checkAccepted(result, length);
            }
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError(what + ": " + e + "\nframe (" + length + " bytes): "
                + HexFormat.of().formatHex(frame, 0, Math.min(length, 256)), e);
        }
        if (result < 0) {
            assertTrue(result >= -ParseError.VALUES.length, what + ": code " + result);
            errorCounts[-result - 1]++;
        } else {
            typeCounts[result]++;
        }
    }

    private void checkAccepted(int type, int length) {
        assertTrue(type >= PacketType.SEND && type <= PacketType.MAX, "type " + type);
        assertEquals(type, SrdHeader.type(m));
        assertEquals(SrdHeader.VERSION, SrdHeader.version(m));
        byte[] f = WireFrames.bytes(m, length);
        assertTrue(WireFrames.ipChecksumValid(f), "accepted frames have a valid IPv4 checksum");
        assertTrue(WireFrames.udpChecksumValid(f), "accepted frames have a valid (or no) UDP checksum");
        int ipEnd = FrameLayout.ETHERNET_LENGTH + WireFrames.u16(f, 16);
        assertTrue(ipEnd <= length);
        int srdLength = ipEnd - SRD_OFFSET;
        long sink = Ipv4UdpFrame.sourceMac(m) ^ Ipv4UdpFrame.sourceIp(m) ^ Ipv4UdpFrame.destinationIp(m) ^ Ipv4UdpFrame.sourcePort(m);
        if (type == PacketType.ACK) {
            int drops = SrdAck.dropCount(m);
            assertTrue(drops <= SrdAck.MAX_DROPS);
            assertEquals(SrdAck.length(drops), srdLength);
            sink ^= SrdAck.sourceContext(m) ^ SrdAck.destinationContext(m) ^ SrdAck.epoch(m) ^ SrdAck.cumulativePsn(m)
                ^ SrdAck.echoedEpoch(m) ^ SrdAck.triggerPsn(m) ^ SrdAck.echoedTimestamp(m);
            for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
                sink ^= SrdAck.sackWord(m, w);
            }
            for (int i = 0; i < drops; i++) {
                sink ^= SrdAck.dropPsn(m, i);
                assertTrue(DropReason.isValid(SrdAck.dropReason(m, i)));
            }
        } else {
            int payload = SrdHeader.payloadLength(m);
            assertTrue(payload <= MTU);
            assertEquals(SrdHeader.LENGTH + payload, srdLength);
            if (!PacketType.isData(type)) {
                assertEquals(0, payload, "probes carry no payload");
            }
            assertTrue(payload >= PacketType.extendedHeaderLength(type), "RDMA packets hold their extended header");
            assertTrue(Integer.compareUnsigned(SrdHeader.sourceQpn(m), SrdParser.MAX_QPN) <= 0);
            assertTrue(Integer.compareUnsigned(SrdHeader.destinationQpn(m), SrdParser.MAX_QPN) <= 0);
            sink ^= SrdHeader.flags(m) ^ SrdHeader.sourceContext(m) ^ SrdHeader.destinationContext(m) ^ SrdHeader.epoch(m)
                ^ SrdHeader.psn(m) ^ SrdHeader.sendBase(m) ^ SrdHeader.qkey(m) ^ SrdHeader.immediate(m) ^ SrdHeader.timestamp(m);
            for (int i = 0; i < payload; i++) {
                sink ^= m.getByte(SrdHeader.PAYLOAD_OFFSET + i);
            }
        }
        if (sink == 0x1234_5678_9ABC_DEF0L) {
            typeCounts[0]++;                                // keeps the reads from being optimised away
        }
    }

    private void fillRandom(SplittableRandom random, int length) {
        for (int i = 0; i < length; i += 8) {
            long bits = random.nextLong();
            for (int j = 0; j < 8 && i + j < length; j++) {
                frame[i + j] = (byte) (bits >>> (8 * j));
            }
        }
    }

    /** Valid Ethernet/IPv4/UDP headers to the SRD port, for a random datagram length within the frame. */
    private void plausibleHeaders(SplittableRandom random, int length) {
        int srdLength = random.nextInt(0, length - SRD_OFFSET + 1);
        frame[12] = 0x08;
        frame[13] = 0x00;
        frame[14] = 0x45;
        setU16(16, 28 + srdLength);
        setU16(20, 0x4000);
        frame[23] = 17;
        setU16(24, 0);
        setU16(24, WireFrames.checksum(frame, 14, 20, 0));
        setU16(36, PORT);
        setU16(38, 8 + srdLength);
        setU16(40, 0);
        if (srdLength > 0 && random.nextInt(4) != 0) {
            frame[SRD_OFFSET] = (byte) (0x10 | (frame[SRD_OFFSET] & 0x0F));   // mostly version 1
        }
    }

    private void setU16(int at, int value) {
        frame[at] = (byte) (value >>> 8);
        frame[at + 1] = (byte) value;
    }

    private void report(String name) {
        StringBuilder sb = new StringBuilder(name).append(" fuzz:");
        for (int type = 1; type < 8; type++) {
            sb.append(' ').append(PacketType.name(type)).append('=').append(typeCounts[type]);
        }
        for (ParseError e : ParseError.VALUES) {
            sb.append(' ').append(e).append('=').append(errorCounts[e.ordinal()]);
        }
        System.out.println(sb);
    }
}
