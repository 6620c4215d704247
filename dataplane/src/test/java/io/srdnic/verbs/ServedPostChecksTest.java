package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.attach.RecvRecord;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.CreateSrqRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.SrqRequest;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dataplane's lcore hands a client's send records to the transport's QP and its SRQ receive
 * records to the transport's SRQ itself ({@link EmbeddedObjects#postSend},
 * {@link EmbeddedObjects#postSrqReceive}), not through the verbs calls; the checks those calls
 * made are made on that path too. A client that does not use the verbs library ({@link
 * HostileClient}) writes records the library would have refused, and each is refused as verbs
 * refuses it: nothing reaches the wire or the SRQ.
 */
class ServedPostChecksTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;
    private AttachedWorld w;

    @BeforeEach
    void startTheDataplane() {
        w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot());
    }

    @AfterEach
    void stop() {
        w.close();
    }

    @Test
    void shouldRefuseASendRecordNamingAnAddressHandleOfAnotherProtectionDomain() throws Exception {
        long[] wc = sendWithOneHandleOfAnotherPd(11, true);
        // QueuePair.postSend throws for it ("another protection domain"): the dataplane completes it so
        assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, (int) wc[1], WcStatus.name((int) wc[1]));
        assertEquals(1, w.counter("work_requests_refused"));
    }

    /** A counter counts for good: the refusals of a client that has left stay in work_requests_refused. */
    @Test
    void shouldKeepCountingTheRefusalsOfAClientThatLeft() throws Exception {
        sendWithOneHandleOfAnotherPd(13, true); // the hostile client closes its socket on the way out
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (w.counter("clients_reclaimed") + w.counter("clients_closed") == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(1, w.counter("clients_reclaimed") + w.counter("clients_closed"), "the client is gone");
        assertEquals(1, w.counter("work_requests_refused"), "its refusal still counted");
    }

    @Test
    void shouldCompleteASendRecordWhoseSgeIsOfAnotherProtectionDomainsRegionWithAProtectionError() throws Exception {
        long[] wc = sendWithOneHandleOfAnotherPd(12, false);
        assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, (int) wc[1], WcStatus.name((int) wc[1]));
    }

    /**
     * A SEND of 64 bytes on an SRD QP of one PD of a hostile client, to port 1's host, its address
     * handle ({@code foreignAh}) or else its SGE's region of another PD of the same client; returns
     * its completion {wrId, status}.
     */
    private long[] sendWithOneHandleOfAnotherPd(long wrId, boolean foreignAh) throws Exception {
        Context peer = w.served(1);
        try (HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
            int pd = bad.allocPd();
            int otherPd = bad.allocPd();
            HandleReply cq = bad.createCq(64);
            HandleReply qp = bad.srdQp(pd, cq.handle(), 16, AttachedSrdTest.QKEY);
            int lkey = bad.register(foreignAh ? pd : otherPd, 0, 4096);
            int ah = bad.addressHandle(foreignAh ? otherPd : pd, peer);
            ShmRing sq = bad.sendRing(qp);
            HostileClient.sendRecord(sq, sq.claim(), wrId, ah, 2, AttachedSrdTest.QKEY, new long[] {0, 64, lkey});
            sq.publish();
            long[] wc = HostileClient.nextCompletion(bad.completionRing(cq));
            assertNotNull(wc, "the refused send completes");
            assertEquals(wrId, wc[0]);
            return wc;
        }
    }

    @Test
    void shouldRefuseAnSrqReceiveRecordOutsideTheSrqsProtectionDomainsRegions() throws Exception {
        try (HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
            int pd = bad.allocPd();
            int otherPd = bad.allocPd();
            int lkey = bad.register(pd, 0, 4096);
            int foreignLkey = bad.register(otherPd, 8192, 4096);
            HandleReply srq = bad.handle(new CreateSrqRequest(pd, 0, 0, 8, 1, 0));
            ShmRing ring = bad.ring(srq.firstRing(), srq.firstCapacity(), RecvRecord.BYTES);
            HostileClient.recvRecord(ring, ring.claim(), 21, 8192, 256, foreignLkey); // another PD's region
            ring.publish();
            HostileClient.recvRecord(ring, ring.claim(), 22, 4000, 256, lkey); // past its region's end
            ring.publish();
            HostileClient.recvRecord(ring, ring.claim(), 23, 0, 256, lkey); // a good one
            ring.publish();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (ring.free() < ring.capacity() && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // until the dataplane took all three records
            }
            assertEquals(ring.capacity(), ring.free(), "the dataplane took the three records");
            assertEquals(1, bad.handle(new SrqRequest(SrqRequest.POSTED, srq.handle(), 0)).state(), "receives in the SRQ");
            assertEquals(2, w.counter("work_requests_refused"));
        }
    }
}
