package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static io.srdnic.srd.transport.device.RcPair.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.RcInternals;
import io.srdnic.srd.wire.RdmaHeader;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Zero-copy transmit on RC, as {@link ZeroCopySendTest} checks it on SRD: a SEND, RDMA WRITE or
 * READ_RESPONSE packet with at least {@code zero-copy-min-bytes} of payload leaves from registered
 * memory (an external buffer behind the headers), and until the driver frees it the request must
 * not complete nor its slot be reused, nor its memory go. The pair's path MTU is 1024 (1000 bytes of
 * WRITE data a packet), so the threshold here is 512; {@link SimPort#holdTransmitted} makes the
 * sender's port free late, as a NIC cleaning its TX ring at a later burst does.
 */
class RcZeroCopyTest {
    static final int SIZE = 64 * 1024;
    /** 64 KiB of WRITE (or READ_RESPONSE) data in packets of 1000 bytes: 65 full ones and a last of 536, all over the threshold. */
    static final int PACKETS = (SIZE + 1023 - RdmaHeader.LENGTH) / (1024 - RdmaHeader.LENGTH);

    private static TransportConfig zeroCopy() {
        return new TransportConfig().zeroCopyMinBytes(512);
    }

    /** A connected pair whose host a sees its port through {@code driver} and frees transmitted frames late. */
    private static RcPair lazy(UnaryOperator<PacketIo> driver) {
        RcPair p = new RcPair(LinkConfig.DEFAULT, 1, driver, zeroCopy()).connect();
        p.f.ports.get(0).holdTransmitted(1024);
        return p;
    }

    /** A 64 KiB RDMA WRITE posted from a's {@code local} (seeded random bytes) into b's {@code remote} (region {@code rkey}). */
    private record Write(MemorySegment local, MemorySegment remote, int rkey) {
        static Write post(RcPair p, long wrId) {
            MemorySegment remote = p.f.arena.allocate(SIZE, 64);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE);
            MemorySegment local = p.random(SIZE, wrId);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, wrId, local, 0, SIZE, remote.address(), rkey, 0));
            return new Write(local, remote, rkey);
        }

        void landed() {
            assertArrayEquals(bytes(local, 0, SIZE), bytes(remote, 0, SIZE), "the write landed whole");
        }
    }

    /** Whether a's peer has acknowledged every packet a sent (and at least one ACK came). */
    private static boolean acknowledged(RcPair p) {
        return p.a.counters.rxAcks > 0 && RcInternals.sender(p.qa.qp()).inflight == 0;
    }

    @Test
    void shouldSendWriteAndSendPacketsOfAtLeastTheThresholdFromTheirMemoryAndSmallerOnesByCopy() {
        RcPair p = new RcPair(LinkConfig.DEFAULT, 1, io -> io, zeroCopy()).connect();
        try {
            MemorySegment message = p.random(3000, 2);
            MemorySegment small = p.random(100, 3);
            MemorySegment received = p.receives(2, 4096);
            Write w = Write.post(p, 1);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 2, message, 0, 3000, 0, 0, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 3, small, 0, 100, 0, 0, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(3, 100 * MS);
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS), wcs.stream().map(TestQp.Wc::status).toList());
            assertTrue(p.f.runUntil(() -> p.qb.recvCq().size() == 2, 100 * MS));
            w.landed();
            assertArrayEquals(bytes(message, 0, 3000), bytes(received, 0, 3000), "the 3000-byte SEND arrived whole");
            assertArrayEquals(bytes(small, 0, 100), bytes(received, 4096, 100));
            // The WRITE's 66 packets and the SEND's three (1024, 1024, 952 bytes); not the 100-byte SEND.
            assertEquals(PACKETS + 3, p.a.counters.zeroCopyPackets);
            assertEquals(0, p.b.counters.parseErrorsTotal(), "the UDP checksum over the chained frames verifies");
            for (TransportDevice t : p.f.hosts) {
                t.close();
            }
            p.f.hosts.clear();
            assertEquals(0, p.f.network.pool().inUse(), "no mbuf leaked, the external buffers' included");
        } finally {
            p.close();
        }
    }

    @Test
    void shouldDeliverWritesWholeFromTheirMemoryOverALinkThatLosesDuplicatesAndReorders() {
        try (RcPair p = new RcPair(RcPair.HOSTILE, 31, io -> io, zeroCopy()).connect()) {
            MemorySegment remote = p.f.arena.allocate(4L * SIZE, 64);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE);
            MemorySegment local = p.random(4L * SIZE, 31);
            for (int i = 0; i < 4; i++) {
                assertEquals(TransportDevice.POST_OK,
                    p.post(SendOpcode.RDMA_WRITE, i, local, (long) i * SIZE, SIZE, remote.address() + (long) i * SIZE, rkey, 0));
            }
            List<TestQp.Wc> wcs = p.sendCompletions(4, 20_000 * MS);
            assertEquals(List.of(0L, 1L, 2L, 3L), wcs.stream().map(TestQp.Wc::wrId).toList());
            assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), wcs.toString());
            assertArrayEquals(bytes(local, 0, 4L * SIZE), bytes(remote, 0, 4L * SIZE));
            assertTrue(p.a.counters.txRetransmits > 0, "the link lost some");
            assertEquals(p.a.counters.txData, p.a.counters.zeroCopyPackets, "every transmission, first or again, from the memory");
        }
    }

    @Test
    void shouldCompleteAWriteOnlyOnceTheNicHasFreedItsPacketsEvenWhenTheAckCameFirst() {
        try (RcPair p = lazy(io -> io)) {
            Write w = Write.post(p, 5);
            assertTrue(p.f.runUntil(() -> acknowledged(p), 100 * MS), "b acknowledged every packet");
            p.f.runFor(20 * MS); // past several local ACK timeouts: a request waiting only for the driver is not probed
            w.landed();
            assertEquals(0, p.qa.sendCq().size(), "acknowledged, but the NIC still reads the memory: no completion yet");
            assertEquals(QpState.RTS, p.qa.qp().state, "nor was it given up on");

            p.f.ports.get(0).reclaimTransmitted(); // the NIC cleans its TX ring
            p.a.doWork(p.f.network.clock().now());
            List<TestQp.Wc> sends = p.qa.sends();
            assertEquals(1, sends.size());
            assertEquals(WcStatus.SUCCESS, sends.get(0).status());
        }
    }

    @Test
    void shouldSendAgainFromMemoryTheNicStillReadsButCompleteOnlyOnceItLetsGoOfEveryCopy() {
        try (RcPair p = lazy(io -> io)) {
            Write w = Write.post(p, 6);
            // b does not run: no ACK comes, and a goes back and sends again from the memory its NIC still reads.
            p.f.runOnly(p.a, 10 * MS);
            assertTrue(p.a.counters.txRetransmits > 0, "sent again");
            assertEquals(p.a.counters.txData, p.a.counters.zeroCopyPackets, "every transmission, first or again, from the memory");
            assertTrue(p.f.runUntil(() -> acknowledged(p), 200 * MS), "b acknowledged the write");
            p.f.runFor(5 * MS);
            assertEquals(0, p.qa.sendCq().size(), "acknowledged, but the NIC still reads the memory: no completion yet");

            p.f.ports.get(0).reclaimTransmitted();
            List<TestQp.Wc> sends = p.sendCompletions(1, 100 * MS);
            assertEquals(WcStatus.SUCCESS, sends.get(0).status());
            w.landed();
        }
    }

    @Test
    void shouldAskTheNicToFreeBeforeARegionGoesAndRefuseIfItCannot() {
        try (RcPair p = lazy(NoReclaim::new)) {
            Write w = Write.post(p, 7);
            int key = p.a.regions().register(w.local(), 0, MemoryRegions.LOCAL_WRITE);
            assertTrue(p.f.runUntil(() -> acknowledged(p), 100 * MS));

            IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.a.regions().deregister(key));
            assertTrue(e.getMessage().contains("still read by the NIC"), e.getMessage());
            assertTrue(p.a.regions().isLive(key), "the region stays while the NIC reads it");

            p.f.ports.get(0).reclaimTransmitted();
            p.a.regions().deregister(key);
            assertFalse(p.a.regions().isLive(key));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 10 * MS).get(0).status());
        }
    }

    /**
     * A 64 KiB WRITE {@code wrId}, acknowledged while the NIC still reads it, then a 64-byte WRITE
     * {@code wrId + 1} into the same region, its rkey XORed with {@code rkeyFlip}.
     */
    private static void heldWriteThenSmallOne(RcPair p, long wrId, int rkeyFlip) {
        Write w = Write.post(p, wrId);
        assertTrue(p.f.runUntil(() -> acknowledged(p), 100 * MS));
        MemorySegment small = p.random(64, wrId + 1);
        assertEquals(TransportDevice.POST_OK,
            p.post(SendOpcode.RDMA_WRITE, wrId + 1, small, 0, 64, w.remote().address(), w.rkey() ^ rkeyFlip, 0));
    }

    /** The NIC lets go: the statuses of a's two completions, checked to be {@code wrId} then {@code wrId + 1}. */
    private static List<Integer> completedOnceFreed(RcPair p, long wrId) {
        p.f.ports.get(0).reclaimTransmitted();
        List<TestQp.Wc> wcs = p.sendCompletions(2, 10 * MS);
        assertEquals(List.of(wrId, wrId + 1), wcs.stream().map(TestQp.Wc::wrId).toList(), "in post order");
        return wcs.stream().map(TestQp.Wc::status).toList();
    }

    @Test
    void shouldFlushARequestTheNicStillReadsOnlyOnceItLetsGo() {
        try (RcPair p = lazy(NoReclaim::new)) {
            heldWriteThenSmallOne(p, 8, 0);
            p.qa.qp().modify(new QpAttributes().state(QpState.ERROR));
            assertEquals(0, p.qa.sendCq().size(), "the write the NIC reads is flushed only once it lets go, the one after it then");

            assertEquals(List.of(WcStatus.WR_FLUSH_ERROR, WcStatus.WR_FLUSH_ERROR), completedOnceFreed(p, 8));
        }
    }

    @Test
    void shouldCompleteAnAcknowledgedWriteTheNicStillReadsWithSuccessWhenALaterRequestFailsTheQp() {
        try (RcPair p = lazy(NoReclaim::new)) {
            heldWriteThenSmallOne(p, 12, 1); // the second with a bad rkey
            assertTrue(p.f.runUntil(() -> p.qa.qp().state == QpState.ERROR, 100 * MS), "the bad rkey's NAK failed the QP");
            assertEquals(0, p.qa.sendCq().size(), "the write the NIC reads, and the one after it, wait for it");

            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.REMOTE_ACCESS_ERROR), completedOnceFreed(p, 12),
                "the acknowledged write succeeded; the refused one carries the NAK");
        }
    }

    @Test
    void shouldDropTheCompletionOfAQpDestroyedWhileTheNicReadsItsMemoryAndTakeTheLateReleaseSafely() {
        try (RcPair p = lazy(NoReclaim::new)) {
            Write.post(p, 10);
            assertTrue(p.f.runUntil(() -> acknowledged(p), 100 * MS));
            SimPort port = p.f.ports.get(0);
            assertTrue(port.heldTransmitted() >= PACKETS, "the NIC holds the packets sent from the memory");

            p.qa.qp().destroy();
            port.reclaimTransmitted(); // the NIC lets go after the QP is gone
            p.a.doWork(p.f.network.clock().now());
            assertEquals(0, p.a.tx.heldExternalBuffers(), "every ticket came back");
            assertEquals(0, p.qa.sendCq().size(), "a destroyed QP's work completes silently");
        }
    }

    @Test
    void shouldAnswerAReadFromTheRespondersRegisteredMemory() {
        RcPair p = new RcPair(LinkConfig.DEFAULT, 1, io -> io, zeroCopy()).connect();
        try {
            MemorySegment remote = p.random(SIZE, 11);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_READ);
            MemorySegment into = p.f.arena.allocate(SIZE, 64);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 11, into, 0, SIZE, remote.address(), rkey, 0));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 100 * MS).get(0).status());
            assertArrayEquals(bytes(remote, 0, SIZE), bytes(into, 0, SIZE));
            assertEquals(PACKETS, p.b.counters.zeroCopyPackets, "the responder's READ_RESPONSE packets left from its memory");
        } finally {
            p.close();
        }
    }

    @Test
    void shouldAllocateNothingPerWriteSentFromItsMemory() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 1, io -> io, zeroCopy()).connect()) {
            Write w = Write.post(p, 0);
            p.sendCompletions(1, 100 * MS);
            WorkRequest wr = Requests.request(0, SendOpcode.RDMA_WRITE, w.local(), 0, SIZE).remote(w.remote().address(), w.rkey());
            ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
            int n = 16;
            long fewest = Long.MAX_VALUE;
            long total = 0;
            for (int round = 0; round < 12; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < n; i++) {
                    wr.wrId = i;
                    assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), wr));
                }
                long deadline = p.f.network.clock().now() + 100 * MS;
                while (p.qa.sendCq().size() < n && p.f.network.clock().now() < deadline) {
                    long now = p.f.network.clock().now();
                    if (p.a.doWork(now) + p.b.doWork(now) == 0) {
                        long next = Math.min(p.f.network.nextEventTime(), Math.min(p.a.nextDeadline(), p.b.nextDeadline()));
                        p.f.network.clock().advanceTo(Math.min(deadline, Math.max(now + 1, next)));
                    }
                }
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                if (round >= 4) { // the first rounds load classes and compile
                    fewest = Math.min(fewest, allocated);
                    total += allocated;
                }
                assertEquals(n, p.qa.sendCq().size(), "round " + round + " completed");
                p.qa.sends();
            }
            assertTrue(p.a.counters.zeroCopyPackets >= 12L * n * PACKETS);
            // A compilation now and then allocates a little in some round; a write never does (as ZeroCopySendTest judges SRD's).
            assertTrue(total < 16L * n * PACKETS * 8, total + " bytes over " + 8 * n + " writes");
            assertEquals(0, fewest, "bytes allocated by " + n + " writes sent from their memory, acknowledged and completed");
        }
    }
}
