package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.AttachedSrdTest.App;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long-lived attached application makes and destroys QPs, CQs and regions for as long as it
 * runs (a reconnecting client, a buffer per request). Its shared file is fixed at open, so what
 * it gives back must be handed out again — and a ring handed out again must start empty.
 */
class AttachedReuseTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    private Context smallContext(int port) {
        return Context.open(Device.attached(dir), new ContextConfig().attachedPort(port).attachedPoolBytes(1 << 16)
            .attachedRingBytes(1 << 16));
    }

    @Test
    void shouldHandOutTheRingsOfDestroyedQueuesAgain() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App b = new App(dir, 1, 4);
             Context a = smallContext(0)) {
            ProtectionDomain pd = a.allocPd();
            MemoryRegion mr = pd.allocateRegion(256, Access.LOCAL_WRITE);
            CompletionQueue cq = null;
            QueuePair qp = null;
            RecvWr stale = new RecvWr();
            // each round's rings take ~20 KiB of the 64 KiB ring area; each round's QP takes receives the dataplane pumps
            for (int round = 0; round < 50; round++) {
                if (qp != null) {
                    // the pass that handles this destroy has already taken the receives posted before it
                    qp.destroy();
                    cq.destroy();
                }
                cq = a.createCq(64);
                qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(64).maxRecvWr(64).build());
                qp.modify(QpState.INIT, AttachedSrdTest.QKEY);
                for (int i = 0; i < 3; i++) {
                    stale.wrId(1000 + round * 10 + i).sge().set(mr, 128, 64);
                    assertEquals(0, qp.postRecv(stale));
                }
            }
            // the last QP's rings lie where earlier ones' did: they started empty, or the dataplane took stale records
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            mr.segment().setString(0, "reused");
            SendWr wr = new SendWr().wrId(77).flags(SendWr.SIGNALED).destination(pd.createAddressHandle(b.ctx.mac(), b.ctx.ip(),
                b.ctx.udpPort()), b.qp.qpNum(), AttachedSrdTest.QKEY);
            wr.sge(0).set(mr, 0, 7);
            assertEquals(0, qp.postSend(wr.numSge(1)));
            WorkCompletion recv = b.await();
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertEquals("reused", b.mr.segment().getString(1024 + (recv.wrId() - 100) * 256));
            WorkCompletion[] wcs = CompletionQueue.array(4);
            assertEquals(1, cq.await(wcs, 1, TimeUnit.SECONDS), "exactly the one send completes");
            assertEquals(77, wcs[0].wrId());
            // B answers: the receive it lands in is one the last QP was given, not a record of an earlier ring
            b.mr.segment().setString(0, "back");
            SendWr answer = new SendWr().wrId(78).destination(b.pd.createAddressHandle(a.mac(), a.ip(), a.udpPort()), qp.qpNum(),
                    AttachedSrdTest.QKEY);
            answer.sge(0).set(b.mr, 0, 5);
            assertEquals(0, b.qp.postSend(answer.numSge(1)));
            assertEquals(1, cq.await(wcs, 1, TimeUnit.SECONDS));
            assertEquals(WcStatus.SUCCESS, wcs[0].status());
            assertEquals(1000 + 49 * 10, wcs[0].wrId(), "the receive that took the message was posted to the last QP");
            assertEquals(0, cq.poll(wcs), "no stale completion from an earlier CQ's ring");
        }
    }

    /** A CQ a QP still completes into cannot be destroyed (EBUSY in verbs): its ring would be handed out while still written. */
    @Test
    void shouldRefuseToDestroyACqAQpStillCompletesInto() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot()); Context a = smallContext(0)) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue cq = a.createCq(16);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(16).maxRecvWr(16).build());
            VerbsException e = Assertions.assertThrows(VerbsException.class, cq::destroy);
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
            qp.destroy();
            cq.destroy(); // once nothing completes into it
        }
    }

    /**
     * A receive the dataplane took into a region that is then deregistered completes
     * LOCAL_PROTECTION_ERROR when a message comes for it, and nothing lands in the old bytes or in
     * a region allocated after (the pool is not recycled: a key drawn again could still pass).
     */
    @Test
    void shouldNotLetAMessageForADeregisteredRegionLandInANewOne() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App b = new App(dir, 1, 4);
             Context a = smallContext(0)) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue cq = a.createCq(16);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(16).maxRecvWr(16).build());
            qp.modify(QpState.INIT, AttachedSrdTest.QKEY);
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            MemoryRegion old = pd.allocateRegion(4096, Access.LOCAL_WRITE);
            RecvWr recv = new RecvWr();
            recv.wrId(1).sge().set(old, 0, 4096);
            assertEquals(0, qp.postRecv(recv));
            // the dataplane has taken the receive once a later control call is answered (its pass pumps the rings first)
            a.allocPd();
            old.deregister();
            MemoryRegion fresh = pd.allocateRegion(4096, Access.LOCAL_WRITE);
            fresh.segment().setString(0, "mine");
            b.mr.segment().setString(0, "INTRUDER");
            SendWr wr = new SendWr().wrId(2).destination(b.pd.createAddressHandle(a.mac(), a.ip(), a.udpPort()), qp.qpNum(),
                AttachedSrdTest.QKEY);
            wr.sge(0).set(b.mr, 0, 9);
            assertEquals(0, b.qp.postSend(wr.numSge(1)));
            WorkCompletion[] wcs = CompletionQueue.array(4);
            assertEquals(1, cq.await(wcs, 1, TimeUnit.SECONDS), "the receive taken before the deregister completed");
            assertEquals(1, wcs[0].wrId());
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, wcs[0].status(), wcs[0].statusName());
            assertEquals("mine", fresh.segment().getString(0), "a message for the deregistered region landed in the new one");
            assertTrue(!old.segment().getString(0).startsWith("INTRUDER"), "the message landed in the deregistered region's bytes");
        }
    }
}
