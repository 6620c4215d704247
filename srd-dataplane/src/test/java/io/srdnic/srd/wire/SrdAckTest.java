package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every field of the ACK, its four SACK words and sixteen drop entries round-trip through an mbuf. */
class SrdAckTest {
    static {
        WireFrames.forbidNativeDpdk();
    }

    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 2, SimBufferPool.DEFAULT_DATA_ROOM);
    private final MbufBatch batch = new MbufBatch(arena, 2);
    private Mbuf m;

    @BeforeEach
    void setUp() {
        pool.allocate(batch, 1, 0);
        m = batch.get(0);
        m.frameLength(SRD_OFFSET + SrdAck.length(SrdAck.MAX_DROPS));
    }

    @AfterEach
    void tearDown() {
        pool.free(batch);
        arena.close();
    }

    @Test
    void shouldDescribeA72ByteAckWith8BytesPerDrop() {
        assertEquals(72, SrdAck.LENGTH);
        assertEquals(72, SrdAck.length(0));
        assertEquals(80, SrdAck.length(1));
        assertEquals(72 + 16 * 8, SrdAck.length(SrdAck.MAX_DROPS));
        assertEquals(16, SrdAck.MAX_DROPS);
        assertEquals(256, SrdAck.SACK_BITS);
        assertArrayEquals(new int[] {2, 4, 8, 12, 16, 20, 24, 32, 40, 72},
            new int[] {SrdAck.DROP_COUNT_OFFSET, SrdAck.SOURCE_CONTEXT_OFFSET, SrdAck.DESTINATION_CONTEXT_OFFSET,
                SrdAck.EPOCH_OFFSET, SrdAck.CUMULATIVE_PSN_OFFSET, SrdAck.ECHOED_EPOCH_OFFSET, SrdAck.TRIGGER_PSN_OFFSET,
                SrdAck.ECHOED_TIMESTAMP_OFFSET, SrdAck.SACK_OFFSET, SrdAck.DROPS_OFFSET});
        assertEquals(SrdAck.SOURCE_CONTEXT_OFFSET, SrdHeader.SOURCE_CONTEXT_OFFSET, "the first 16 bytes line up with the data header");
        assertEquals(SrdAck.DESTINATION_CONTEXT_OFFSET, SrdHeader.DESTINATION_CONTEXT_OFFSET);
        assertEquals(SrdAck.EPOCH_OFFSET, SrdHeader.EPOCH_OFFSET);
    }

    @Test
    void shouldRoundTripEveryFieldOfAFullAck() {
        SplittableRandom random = new SplittableRandom(72);
        for (int round = 0; round < 2_000; round++) {
            fillWithGarbage(random);
            int drops = round % (SrdAck.MAX_DROPS + 1);
            int[] v = {random.nextInt(), random.nextInt(), random.nextInt(), random.nextInt(), random.nextInt(), random.nextInt()};
            if (round < 4) {
                v = new int[] {round == 0 ? 0 : -1, Integer.MIN_VALUE, Integer.MAX_VALUE, round, -round, 0x8000_0000};
            }
            long ts = round == 1 ? Long.MIN_VALUE : round == 2 ? -1 : random.nextLong();
            long[] sack = {random.nextLong(), random.nextLong(), random.nextLong(), random.nextLong()};
            if (round == 3) {
                sack = new long[] {-1L, 0L, Long.MIN_VALUE, 1L};
            }
            int[] dropPsn = new int[drops];
            int[] dropReason = new int[drops];
            SrdHeader.versionAndType(m, PacketType.ACK);
            SrdHeader.flags(m, 0);
            SrdAck.dropCount(m, drops);
            SrdAck.sourceContext(m, v[0]);
            SrdAck.destinationContext(m, v[1]);
            SrdAck.epoch(m, v[2]);
            SrdAck.cumulativePsn(m, v[3]);
            SrdAck.echoedEpoch(m, v[4]);
            SrdAck.triggerPsn(m, v[5]);
            SrdAck.echoedTimestamp(m, ts);
            for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
                SrdAck.sackWord(m, w, sack[w]);
            }
            for (int i = 0; i < drops; i++) {
                dropPsn[i] = random.nextInt();
                dropReason[i] = i < 4 ? i + 1 : 1 + random.nextInt(4);
                SrdAck.drop(m, i, dropPsn[i], dropReason[i]);
            }

            assertEquals(PacketType.ACK, SrdHeader.type(m));
            assertEquals(SrdHeader.VERSION, SrdHeader.version(m));
            assertEquals(drops, SrdAck.dropCount(m));
            assertArrayEquals(v, new int[] {SrdAck.sourceContext(m), SrdAck.destinationContext(m), SrdAck.epoch(m),
                SrdAck.cumulativePsn(m), SrdAck.echoedEpoch(m), SrdAck.triggerPsn(m)});
            assertEquals(0, m.getIntBE(SRD_OFFSET + SrdAck.TRIGGER_PSN_OFFSET + 4), "the duplicate PSN is zeroed with the trigger PSN");
            assertFalse(SrdAck.hasDuplicate(m), "no duplicate reported unless set");
            SrdAck.duplicate(m, v[3] ^ round);
            assertTrue(SrdAck.hasDuplicate(m));
            assertEquals(v[3] ^ round, SrdAck.duplicatePsn(m));
            assertEquals(v[3] ^ round, m.getIntBE(SRD_OFFSET + 28), "the duplicate PSN at 28, big-endian");
            assertEquals(SrdHeader.FLAG_DUPLICATE, SrdHeader.flags(m), "the flag, and no other");
            assertEquals(ts, SrdAck.echoedTimestamp(m));
            for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
                assertEquals(sack[w], SrdAck.sackWord(m, w), "SACK word " + w);
                assertEquals(sack[w], m.getLongBE(SRD_OFFSET + 40 + 8 * w), "SACK word " + w + " big-endian at 40 + 8w");
            }
            for (int i = 0; i < drops; i++) {
                assertEquals(dropPsn[i], SrdAck.dropPsn(m, i), "drop " + i);
                assertEquals(dropReason[i], SrdAck.dropReason(m, i), "drop " + i);
                int at = SRD_OFFSET + 72 + 8 * i;
                assertEquals(dropPsn[i], m.getIntBE(at));
                assertEquals(dropReason[i] << 24, m.getIntBE(at + 4), "reason in the first byte, then three zero bytes");
            }
        }
    }

    @Test
    void shouldWriteDropCountBigEndianAfterTypeAndFlags() {
        SrdHeader.versionAndType(m, PacketType.ACK);
        SrdHeader.flags(m, 0);
        SrdAck.dropCount(m, 0x0102);
        assertArrayEquals(new byte[] {0x15, 0, 1, 2}, Arrays.copyOfRange(WireFrames.bytes(m, SRD_OFFSET + 4), SRD_OFFSET, SRD_OFFSET + 4));
    }

    @Test
    void shouldWriteOnlyTheLowByteOfADropReason() {
        SrdAck.drop(m, 15, 0xCAFE_BABE, 0x1_04);
        assertEquals(0xCAFE_BABE, SrdAck.dropPsn(m, 15));
        assertEquals(4, SrdAck.dropReason(m, 15));
    }

    private void fillWithGarbage(SplittableRandom random) {
        for (int i = SRD_OFFSET; i < SRD_OFFSET + SrdAck.length(SrdAck.MAX_DROPS); i += 8) {
            m.putLongBE(i, random.nextLong());
        }
    }
}
