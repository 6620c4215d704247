package io.srdnic.srd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The duty cycle on a real clock ({@link SrdTransport#doWork(LongSupplier)}) reads the clock only
 * when it needs it. Skipping the read (and the timers) on an empty poll must never delay what was
 * posted, what arrived, or a timer by more than {@link SrdTransport#IDLE_CYCLES_PER_CLOCK_READ} polls.
 * The clock here is the simulator's, counted.
 */
class LazyClockCycleTest {
    static final long MS = 1_000_000;

    /** The simulator's clock, counting its reads. */
    static final class CountingClock implements LongSupplier {
        final SimFabric fabric;
        int reads;

        CountingClock(SimFabric fabric) {
            this.fabric = fabric;
        }

        @Override
        public long getAsLong() {
            reads++;
            return fabric.network.clock().now();
        }
    }

    @Test
    void shouldReadTheClockOnceInEveryRoundOfIdleCycles() {
        try (SimFabric f = new SimFabric(1)) {
            SrdTransport a = f.addHost(new SrdConfig());
            CountingClock clock = new CountingClock(f);
            int cycles = 10 * SrdTransport.IDLE_CYCLES_PER_CLOCK_READ;
            for (int i = 0; i < cycles; i++) {
                assertEquals(0, a.doWork(clock));
            }
            assertEquals(10, clock.reads, "one read per " + SrdTransport.IDLE_CYCLES_PER_CLOCK_READ + " empty polls");
        }
    }

    @Test
    void shouldSendWhatWasPostedInTheVeryNextCycle() {
        try (SimFabric f = new SimFabric(1)) {
            SrdTransport a = f.addHost(new SrdConfig());
            SrdTransport b = f.addHost(new SrdConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 1, 64);
            CountingClock clock = new CountingClock(f);
            a.doWork(clock); // the first cycle reads; the next ones would not
            a.doWork(clock);
            MemorySegment msg = f.arena.allocate(64);
            assertEquals(SrdTransport.POST_OK, a.postSend(qa.qp(), f.ah(a, 1), qb.qpn(), SimFabric.QKEY, 7, msg, 0, 64, false, 0, true));
            int readsBefore = clock.reads;
            assertTrue(a.doWork(clock) > 0);
            assertEquals(1, a.counters.txData, "the post left in the cycle after it, not after the next clock read");
            assertEquals(readsBefore + 1, clock.reads, "and was stamped with the time it left");
        }
    }

    @Test
    void shouldHandleAFrameInTheCycleThatTakesItOffTheQueue() {
        try (SimFabric f = new SimFabric(1)) {
            SrdTransport a = f.addHost(new SrdConfig());
            SrdTransport b = f.addHost(new SrdConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 1, 64);
            CountingClock clock = new CountingClock(f);
            b.doWork(clock);
            b.doWork(clock); // b is now between clock reads
            MemorySegment msg = f.arena.allocate(64);
            assertEquals(SrdTransport.POST_OK, a.postSend(qa.qp(), f.ah(a, 1), qb.qpn(), SimFabric.QKEY, 7, msg, 0, 64, false, 0, true));
            a.doWork(f.network.clock().now());
            f.network.clock().advanceTo(f.network.clock().now() + MS); // every hop of the way is due: the frame waits in b's RX queue
            int readsBefore = clock.reads;
            assertTrue(b.doWork(clock) > 0);
            assertEquals(1, qb.recvCq().size(), "delivered by the cycle that received it");
            assertEquals(readsBefore + 1, clock.reads, "the frame was stamped with the clock read after the burst");
            assertTrue(b.hasPostedWork(), "and its ACK is owed to the next cycle");
        }
    }

    @Test
    void shouldRetransmitWithinARoundOfIdleCyclesOfTheTimeout() {
        try (SimFabric f = new SimFabric(1)) {
            SrdTransport a = f.addHost(new SrdConfig());
            SrdTransport b = f.addHost(new SrdConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 1, 64);
            CountingClock clock = new CountingClock(f);
            MemorySegment msg = f.arena.allocate(64);
            assertEquals(SrdTransport.POST_OK, a.postSend(qa.qp(), f.ah(a, 1), qb.qpn(), SimFabric.QKEY, 7, msg, 0, 64, false, 0, true));
            a.doWork(clock);
            assertEquals(1, a.counters.txData);
            // b never runs: no ACK comes. Spin a idle until just before its deadline, then past it.
            long due = a.nextDeadline();
            assertTrue(due > f.network.clock().now() && due < Long.MAX_VALUE);
            for (int i = 0; i < 3 * SrdTransport.IDLE_CYCLES_PER_CLOCK_READ; i++) {
                a.doWork(clock);
            }
            assertEquals(0, a.counters.txRetransmits, "nothing is due yet");
            f.network.clock().advanceTo(due);
            int cycles = 0;
            while (a.counters.txRetransmits == 0 && cycles < 10 * SrdTransport.IDLE_CYCLES_PER_CLOCK_READ) {
                a.doWork(clock);
                cycles++;
            }
            assertEquals(1, a.counters.txRetransmits);
            assertTrue(cycles <= SrdTransport.IDLE_CYCLES_PER_CLOCK_READ, "the timer ran within one round of idle cycles: took " + cycles);
        }
    }
}
