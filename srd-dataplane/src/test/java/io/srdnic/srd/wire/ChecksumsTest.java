package io.srdnic.srd.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Internet checksum against a reference written from RFC 1071 (16-bit big-endian words, an
 * odd byte padded with zero, end-around carry): the word-at-a-time sum over every length and
 * alignment of its tail, and the IPv4 header checksum computed from the header's fields.
 */
class ChecksumsTest {
    static {
        WireFrames.forbidNativeDpdk();
    }

    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 1, 16_384);
    private final MbufBatch batch = new MbufBatch(arena, 1);
    private Mbuf m;

    @BeforeEach
    void setUp() {
        pool.allocate(batch, 1, 0);
        m = new Mbuf().wrap(batch.address(0));
    }

    @AfterEach
    void tearDown() {
        pool.free(batch);
        arena.close();
    }

    /** RFC 1071, byte by byte: the folded (not inverted) sum of {@code length} bytes at {@code offset}. */
    private int reference(int offset, int length, long initial) {
        long sum = initial;
        for (int i = 0; i < length; i += 2) {
            int hi = m.getByte(offset + i) & 0xFF;
            int lo = i + 1 < length ? m.getByte(offset + i + 1) & 0xFF : 0;
            sum += (hi << 8) | lo;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    private static int fold(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    @Test
    void shouldSumAtEveryLengthOrOffsetAsRfc1071Does() {
        SplittableRandom random = new SplittableRandom(1071);
        for (int i = 0; i < 9_100; i++) {
            m.putByte(i, (byte) random.nextInt(256));
        }
        for (int offset = 0; offset < 8; offset++) {
            for (int length = 0; length <= 130; length++) {
                long initial = random.nextInt(1 << 20);
                assertEquals(reference(offset, length, initial), fold(Checksums.sum(m, offset, length, initial)),
                    "offset " + offset + " length " + length);
            }
        }
        assertEquals(reference(3, 9_001, 0), fold(Checksums.sum(m, 3, 9_001, 0)), "a jumbo frame's worth");
    }

    @Test
    void shouldFoldAFrameOfAllOnesWithoutLosingACarry() {
        for (int i = 0; i < 16_000; i++) {
            m.putByte(i, (byte) 0xFF);
        }
        for (int length : new int[] {2, 7, 8, 15, 4096, 16_000}) {
            assertEquals(reference(0, length, 0xFFFF), fold(Checksums.sum(m, 0, length, 0xFFFF)), "length " + length);
        }
    }

    @Test
    void shouldComputeTheIpv4HeaderChecksumFromItsFieldsAsTheHeaderBytesSumToIt() {
        SplittableRandom random = new SplittableRandom(791);
        for (int i = 0; i < 2_000; i++) {
            int srcIp = random.nextInt();
            int dstIp = random.nextInt();
            int srdLength = random.nextInt(9_000);
            Ipv4UdpFrame.write(m, 0x0200_0000_0001L, 0x0200_0000_0002L, srcIp, dstIp, 49_152, 21_330, srdLength, false);
            // The header with the checksum in it sums to 0xFFFF: it inverts the sum of the rest.
            assertEquals(0xFFFF, reference(FrameLayout.ETHERNET_LENGTH, 20, 0), "src " + srcIp + " dst " + dstIp + " length " + srdLength);
        }
    }
}
