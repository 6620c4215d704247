package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.TotalQuota;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.attach.SharedLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quotas over all clients together ({@link TotalQuota}): N clients each within its own quota
 * must not add up past what the host's memory and the dataplane's heap can give. A take past a total
 * is refused with an error naming it, the clients holding the rest carry on, and everything taken
 * is given back when a client goes (nothing leaks: mappings, descriptors, the totals' counts).
 */
class AttachedTotalQuotaTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final int POOL = 1 << 20;
    private static final int RINGS = 1 << 20;
    /** What one client of {@link #config()} holds of the shared memory: its header, rings and pool. */
    private static final long ONE_CLIENT = SharedLayout.HEADER_BYTES + SharedLayout.align(RINGS) + SharedLayout.align(POOL);

    @TempDir
    Path dir;

    private static ContextConfig config() {
        return new ContextConfig().attachedPoolBytes(POOL).attachedRingBytes(RINGS);
    }

    @Test
    void shouldRefuseAnAttachPastTheTotalPoolAndLetTheClientsWithinItCarryOn() throws Exception {
        TotalQuota totals = new TotalQuota(2 * ONE_CLIENT + ONE_CLIENT / 2, 1 << 20, 1 << 20);
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot(), null, 0, 1)) {
            w.server.totals(totals);
            Context a = Context.open(Device.attached(dir), config());
            Context b = Context.open(Device.attached(dir), config());
            assertEquals(2 * ONE_CLIENT, totals.poolBytesHeld());
            long mapped = AttachedMemoryLifecycleTest.mappings();
            long fds = AttachedMemoryLifecycleTest.descriptors();
            VerbsException e = assertThrows(VerbsException.class, () -> Context.open(Device.attached(dir), config()));
            assertTrue(e.getMessage().contains("over the dataplane's total quota: its clients hold " + 2 * ONE_CLIENT + " of the "
                + totals.poolBytes() + " bytes of shared memory") && e.getMessage().contains("(--total-quota pool-bytes)"),
                e.getMessage());
            assertEquals(2 * ONE_CLIENT, totals.poolBytesHeld(), "the refused attach took nothing");
            assertEquals(1, w.server.counters().get("total_quota_refusals"), "the refusal counted, as an operator reads it");
            assertEquals(0, w.server.counters().get("quota_refusals"), "no client's own quota was reached");
            assertEquals(mapped, AttachedMemoryLifecycleTest.mappings(), "no mapping made for the refused client");
            assertEquals(fds, AttachedMemoryLifecycleTest.descriptors(), "no descriptor kept for the refused client");
            // the two within the total carry on
            a.allocPd();
            b.createCq(64).destroy();
            a.close();
            await(totals::poolBytesHeld, ONE_CLIENT);
            try (Context c = Context.open(Device.attached(dir), config())) { // A's share given back: room for one more
                c.allocPd();
                assertEquals(2 * ONE_CLIENT, totals.poolBytesHeld());
            }
            b.close();
            await(totals::poolBytesHeld, 0);
            await(AttachedMemoryLifecycleTest::mappings, 0);
        }
    }

    @Test
    void shouldRefuseCqAndQpEntriesPastTheTotalsOverAllClientsAndGiveThemBackAtReclaim() throws Exception {
        TotalQuota totals = new TotalQuota(1L << 40, 1024 + 256, 512);
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot(), null, 0, 1)) {
            w.server.totals(totals);
            Context a = Context.open(Device.attached(dir), config());
            Context b = Context.open(Device.attached(dir), config());
            CompletionQueue cqA = a.createCq(1024);
            VerbsException e = assertThrows(VerbsException.class, () -> b.createCq(512));
            assertTrue(e.getMessage().contains("1024 of the 1280 CQ entries") && e.getMessage().contains("(--total-quota cq-entries)"),
                e.getMessage());
            CompletionQueue cqB = b.createCq(256); // what is left still serves
            assertEquals(1280, totals.cqEntriesHeld());
            ProtectionDomain pdA = a.allocPd();
            ProtectionDomain pdB = b.allocPd();
            pdA.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cqA).maxSendWr(128).maxRecvWr(128).build());
            pdB.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cqB).maxSendWr(128).maxRecvWr(128).build());
            e = assertThrows(VerbsException.class,
                () -> pdB.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cqB).maxSendWr(2).maxRecvWr(2).build()));
            assertTrue(e.getMessage().contains("(--total-quota qp-entries)"), e.getMessage());
            e = assertThrows(VerbsException.class, () -> pdB.createSrq(2, 1, 0));
            assertTrue(e.getMessage().contains("(--total-quota qp-entries)"), e.getMessage());
            assertEquals(512, totals.qpEntriesHeld(), "the refused creates took nothing");
            assertEquals(3, w.server.counters().get("total_quota_refusals"), "CQ, QP and SRQ refusals, each counted");
            a.close(); // in order: its objects destroyed one by one
            await(totals::cqEntriesHeld, 256);
            await(totals::qpEntriesHeld, 256);
            b.createCq(1024); // A's entries are free for B
            HostileClient gone = new HostileClient(dir, 0, POOL, RINGS);
            gone.allocPd();
            gone.close(); // dies holding its memory: reclaimed
            b.close();
            await(totals::cqEntriesHeld, 0);
            await(totals::qpEntriesHeld, 0);
            await(totals::poolBytesHeld, 0);
        }
    }

    /** The dataplane gives back at its next pass after a socket closes. */
    private static void await(Count value, long expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.get() != expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(expected, value.get());
    }

    private interface Count {
        long get() throws Exception;
    }
}
