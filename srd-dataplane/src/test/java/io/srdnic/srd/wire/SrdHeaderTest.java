package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every field of the 48-byte data/probe header round-trips through an mbuf at its documented offset. */
class SrdHeaderTest {
    static {
        WireFrames.forbidNativeDpdk();
    }

    static final int[] INTS = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x1234_5678, 0x8000_0001, 0xFF_FFFF, 0x100_0000};
    static final long[] LONGS = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102_0304_0506_0708L, 1_700_000_000_123_456_789L};

    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 2, SimBufferPool.DEFAULT_DATA_ROOM);
    private final MbufBatch batch = new MbufBatch(arena, 2);
    private Mbuf m;

    @BeforeEach
    void setUp() {
        pool.allocate(batch, 1, 0);
        m = batch.get(0);
        m.frameLength(SrdHeader.PAYLOAD_OFFSET);
    }

    @AfterEach
    void tearDown() {
        pool.free(batch);
        arena.close();
    }

    @Test
    void shouldDescribeA48ByteHeaderAfterUdp() {
        assertEquals(48, SrdHeader.LENGTH);
        assertEquals(42, SRD_OFFSET);
        assertEquals(90, SrdHeader.PAYLOAD_OFFSET);
        int[] offsets = {SrdHeader.VERSION_TYPE_OFFSET, SrdHeader.FLAGS_OFFSET, SrdHeader.PAYLOAD_LENGTH_OFFSET,
            SrdHeader.SOURCE_CONTEXT_OFFSET, SrdHeader.DESTINATION_CONTEXT_OFFSET, SrdHeader.EPOCH_OFFSET, SrdHeader.PSN_OFFSET,
            SrdHeader.SEND_BASE_OFFSET, SrdHeader.SOURCE_QPN_OFFSET, SrdHeader.DESTINATION_QPN_OFFSET, SrdHeader.QKEY_OFFSET,
            SrdHeader.IMMEDIATE_OFFSET, SrdHeader.TIMESTAMP_OFFSET};
        assertArrayEquals(new int[] {0, 1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40}, offsets);
    }

    @Test
    void shouldReadRcsMessageSequenceNumberFromTheFieldSrdReadsAsTheQkey() {
        for (int msn : INTS) {
            SrdHeader.write(m, PacketType.SEND, 0, 0, 0, 0, 1, 2, 3, 4, 5, msn, 6, 7L);
            assertEquals(msn, SrdHeader.msn(m));
            assertEquals(msn, m.getIntBE(SRD_OFFSET + 32), "bytes 32..35 of the header, big-endian");
            assertEquals(SrdHeader.qkey(m), SrdHeader.msn(m), "one field, two names");
        }
    }

    @Test
    void shouldRoundTripTheVersionWithEveryType() {
        for (int type = 0; type < 16; type++) {
            SrdHeader.versionAndType(m, type);
            assertEquals(SrdHeader.VERSION, SrdHeader.version(m));
            assertEquals(type, SrdHeader.type(m));
            assertEquals((byte) (0x10 | type), m.getByte(SRD_OFFSET), "version in the high nibble, type in the low");
        }
        SrdHeader.versionAndType(m, 0x25);                   // only the low four bits of the type are written
        assertEquals(5, SrdHeader.type(m));
        assertEquals(SrdHeader.VERSION, SrdHeader.version(m));
    }

    @Test
    void shouldRoundTripTheFlagsWithThePayloadLength() {
        for (int flags = 0; flags < 256; flags++) {
            SrdHeader.flags(m, flags);
            assertEquals(flags, SrdHeader.flags(m));
        }
        for (int length = 0; length <= 0xFFFF; length++) {
            SrdHeader.payloadLength(m, length);
            assertEquals(length, SrdHeader.payloadLength(m));
        }
        SrdHeader.payloadLength(m, 0x1234);
        assertEquals(0x12, m.getByte(SRD_OFFSET + 2));
        assertEquals(0x34, m.getByte(SRD_OFFSET + 3));
    }

    @Test
    void shouldRoundTripEveryIntFieldBigEndianAtItsOffset() {
        for (int value : INTS) {
            SrdHeader.sourceContext(m, value);
            assertEquals(value, SrdHeader.sourceContext(m));
            assertBigEndian(SrdHeader.SOURCE_CONTEXT_OFFSET, value);
            SrdHeader.destinationContext(m, value);
            assertEquals(value, SrdHeader.destinationContext(m));
            assertBigEndian(SrdHeader.DESTINATION_CONTEXT_OFFSET, value);
            SrdHeader.epoch(m, value);
            assertEquals(value, SrdHeader.epoch(m));
            assertBigEndian(SrdHeader.EPOCH_OFFSET, value);
            SrdHeader.psn(m, value);
            assertEquals(value, SrdHeader.psn(m));
            assertBigEndian(SrdHeader.PSN_OFFSET, value);
            SrdHeader.sendBase(m, value);
            assertEquals(value, SrdHeader.sendBase(m));
            assertBigEndian(SrdHeader.SEND_BASE_OFFSET, value);
            SrdHeader.sourceQpn(m, value);
            assertEquals(value, SrdHeader.sourceQpn(m));
            assertBigEndian(SrdHeader.SOURCE_QPN_OFFSET, value);
            SrdHeader.destinationQpn(m, value);
            assertEquals(value, SrdHeader.destinationQpn(m));
            assertBigEndian(SrdHeader.DESTINATION_QPN_OFFSET, value);
            SrdHeader.qkey(m, value);
            assertEquals(value, SrdHeader.qkey(m));
            assertBigEndian(SrdHeader.QKEY_OFFSET, value);
            SrdHeader.immediate(m, value);
            assertEquals(value, SrdHeader.immediate(m));
            assertBigEndian(SrdHeader.IMMEDIATE_OFFSET, value);
        }
    }

    @Test
    void shouldRoundTripTheTimestamp() {
        for (long value : LONGS) {
            SrdHeader.timestamp(m, value);
            assertEquals(value, SrdHeader.timestamp(m));
            for (int i = 0; i < 8; i++) {
                assertEquals((byte) (value >>> (56 - 8 * i)), m.getByte(SRD_OFFSET + SrdHeader.TIMESTAMP_OFFSET + i));
            }
        }
    }

    @Test
    void shouldKeepEveryFieldWhenAllAreSetTogether() {
        SplittableRandom random = new SplittableRandom(20);
        for (int round = 0; round < 1_000; round++) {
            byte[] guard = new byte[16];
            random.nextBytes(guard);
            for (int i = 0; i < 16; i++) {                    // bytes either side of the header must not change
                m.putByte(SRD_OFFSET - 16 + i, guard[i]);
            }
            m.putLongBE(SrdHeader.PAYLOAD_OFFSET, 0x5A5A_5A5A_5A5A_5A5AL);
            int type = random.nextInt(16);
            int flags = random.nextInt(256);
            int length = random.nextInt(0x10000);
            int[] v = new int[9];
            for (int i = 0; i < v.length; i++) {
                v[i] = random.nextInt();
            }
            long ts = random.nextLong();
            SrdHeader.versionAndType(m, type);
            SrdHeader.flags(m, flags);
            SrdHeader.payloadLength(m, length);
            SrdHeader.sourceContext(m, v[0]);
            SrdHeader.destinationContext(m, v[1]);
            SrdHeader.epoch(m, v[2]);
            SrdHeader.psn(m, v[3]);
            SrdHeader.sendBase(m, v[4]);
            SrdHeader.sourceQpn(m, v[5]);
            SrdHeader.destinationQpn(m, v[6]);
            SrdHeader.qkey(m, v[7]);
            SrdHeader.immediate(m, v[8]);
            SrdHeader.timestamp(m, ts);
            assertEquals(SrdHeader.VERSION, SrdHeader.version(m));
            assertEquals(type, SrdHeader.type(m));
            assertEquals(flags, SrdHeader.flags(m));
            assertEquals(length, SrdHeader.payloadLength(m));
            assertArrayEquals(v, new int[] {SrdHeader.sourceContext(m), SrdHeader.destinationContext(m), SrdHeader.epoch(m),
                SrdHeader.psn(m), SrdHeader.sendBase(m), SrdHeader.sourceQpn(m), SrdHeader.destinationQpn(m), SrdHeader.qkey(m),
                SrdHeader.immediate(m)});
            assertEquals(ts, SrdHeader.timestamp(m));
            byte[] bytes = WireFrames.bytes(m, SrdHeader.PAYLOAD_OFFSET + 8);
            assertArrayEquals(guard, Arrays.copyOfRange(bytes, SRD_OFFSET - 16, SRD_OFFSET), "bytes before the header");
            assertEquals(0x5A5A_5A5A_5A5A_5A5AL, m.getLongBE(SrdHeader.PAYLOAD_OFFSET), "bytes after the header");
        }
    }

    private void assertBigEndian(int fieldOffset, int value) {
        for (int i = 0; i < 4; i++) {
            assertEquals((byte) (value >>> (24 - 8 * i)), m.getByte(SRD_OFFSET + fieldOffset + i), "byte " + i
                    + " of field at " + fieldOffset);
        }
    }
}
