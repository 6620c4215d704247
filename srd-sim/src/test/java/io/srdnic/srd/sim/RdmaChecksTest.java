package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sim's RDMA checks catch what a broken transport would do: a write that completes SUCCESS
 * without its bytes in place, a read whose bytes are not the remote ones, a write with immediate
 * whose receive completes before the write has landed; and excuse only a slot an earlier, failed
 * write may still reach.
 */
class RdmaChecksTest {
    static final int SIZE = 100;
    static final int SENDER = 0;
    static final int RECEIVER = 1;

    private final Arena arena = Arena.ofConfined();
    private final Scenario scenario = Scenario.basic(8, SIZE, 1);
    private final Ledger ledger = new Ledger(SIZE, 0);
    private final RdmaChecks checks = new RdmaChecks(ledger, scenario);
    private final SimRegion region = new SimRegion(arena, RECEIVER, SIZE, 1);
    private final MemorySegment local = arena.allocate(SIZE * 8L);

    RdmaChecksTest() {
        ledger.expect(SENDER, 8);
        checks.expect(SENDER, 8);
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    /** Posts message {@code seq} of {@code kind} from send slot {@code slot}; returns where it goes in the region. */
    private long post(long seq, byte kind, int slot) {
        ledger.posted(SENDER, seq, kind, 7);
        checks.posted(SENDER, seq, slot);
        RdmaChecks.prepare(kind, local, (long) slot * SIZE, SIZE, seq, SENDER);
        return checks.remoteOffset(kind, region, SENDER, seq, slot);
    }

    private void complete(long seq, int status, int slot, long remote) {
        ledger.completed(SENDER, seq, status);
        checks.completed(SENDER, seq, status, local, (long) slot * SIZE, region, remote);
    }

    /** What the transport does for a write: copies the sender's bytes into the region. */
    private void land(int slot, long remote) {
        MemorySegment.copy(local, (long) slot * SIZE, region.memory, remote, SIZE);
    }

    @Test
    void shouldCountAWriteAsDeliveredOnlyWhenItsBytesLanded() {
        long at = post(0, Ledger.RDMA_WRITE, 2);
        land(2, at);
        complete(0, WcStatus.SUCCESS, 2, at);
        long other = post(1, Ledger.RDMA_WRITE, 3);
        land(3, other);
        region.memory.set(ValueLayout.JAVA_BYTE, other + SIZE - 1, (byte) 0x5A); // one byte lost
        complete(1, WcStatus.SUCCESS, 3, other);
        long never = post(2, Ledger.RDMA_WRITE, 4);
        complete(2, WcStatus.SUCCESS, 4, never);
        assertEquals(2, ledger.corrupt, "a damaged write and one that never landed: " + ledger.notes);
        assertEquals(1, ledger.totals(Set.of(), false).delivered);
    }

    @Test
    void shouldCheckThatAReadBroughtBackTheRemoteBytes() {
        long at = post(0, Ledger.RDMA_READ, 0);
        assertFalse(local.asSlice(0, SIZE).mismatch(region.bytes(at, SIZE)) < 0, "the buffer is poisoned before the read");
        MemorySegment.copy(region.memory, at, local, 0, SIZE);
        complete(0, WcStatus.SUCCESS, 0, at);
        long wrong = post(1, Ledger.RDMA_READ, 1);
        MemorySegment.copy(region.memory, wrong + 1, local, SIZE, SIZE); // one byte off
        complete(1, WcStatus.SUCCESS, 1, wrong);
        assertEquals(1, ledger.corrupt, ledger.notes.toString());
        assertEquals(1, ledger.totals(Set.of(), false).delivered);
    }

    @Test
    void shouldRefuseAWriteWithImmediateWhoseReceiveCameBeforeItsBytes() {
        long early = post(0, Ledger.RDMA_WRITE_IMM, 0);
        checks.writeWithImmediateReceived(RECEIVER, 7, region, SimHost.ip(SENDER), true, 0, SIZE);
        assertEquals(1, ledger.corrupt, "the receive completed with the write not in place: " + ledger.notes);
        long held = post(1, Ledger.RDMA_WRITE_IMM, 1);
        land(1, held);
        checks.writeWithImmediateReceived(RECEIVER, 7, region, SimHost.ip(SENDER), true, 1, SIZE);
        complete(1, WcStatus.SUCCESS, 1, held);
        assertEquals(1, ledger.corrupt, ledger.notes.toString());
        assertTrue(early != held);
        assertEquals(1, ledger.totals(Set.of(WcStatus.REMOTE_UNRESPONSIVE), false).delivered, "the held one, by its receive");
    }

    @Test
    void shouldExcuseOnlyASlotAFailedWriteMayStillReach() {
        long at = post(0, Ledger.RDMA_WRITE, 5);
        complete(0, WcStatus.WR_FLUSH_ERROR, 5, at);
        long again = post(1, Ledger.RDMA_WRITE, 5);
        complete(1, WcStatus.SUCCESS, 5, again); // its bytes are not there: the failed write's late packet may have overwritten them
        assertEquals(0, ledger.corrupt, ledger.notes.toString());
        assertEquals(1, checks.overwritten);
        long clean = post(2, Ledger.RDMA_WRITE, 6);
        complete(2, WcStatus.SUCCESS, 6, clean);
        assertEquals(1, ledger.corrupt, "another slot is not excused");
    }

    @Test
    void shouldTellMessagesApartByEveryByte() {
        MemorySegment m = arena.allocate(64);
        for (int length : new int[] {0, 1, 7, 8, 9, 63, 64}) {
            RdmaChecks.fill(m, 0, length, 41, 3);
            assertTrue(RdmaChecks.holds(m, 0, length, 41, 3));
            if (length > 0) {
                assertFalse(RdmaChecks.holds(m, 0, length, 42, 3), "another message");
                assertFalse(RdmaChecks.holds(m, 0, length, 41, 4), "another sender");
                m.set(ValueLayout.JAVA_BYTE, length - 1, (byte) (m.get(ValueLayout.JAVA_BYTE, length - 1) + 1));
                assertFalse(RdmaChecks.holds(m, 0, length, 41, 3), "one byte changed");
            }
        }
    }
}
