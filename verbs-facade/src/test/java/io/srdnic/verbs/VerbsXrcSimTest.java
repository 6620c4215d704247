package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The XRC shape of SRC queue pairs through the verbs API on the simulated network: one XRC_SEND QP
 * reaches every job's XRC SRQ behind one XRC_RECV QP; each message lands in the SRQ it names and
 * completes on that job's CQ; RDMA is checked against that job's PD; what each XRC type lacks is
 * refused.
 */
class VerbsXrcSimTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final int JOBS = 3;
    private static final int SIZE = 20_000; // five 4096-byte packets each

    static void sendsReachEachJobsSrqOnItsOwnCq(XrcPair p, int perJob) {
        MemorySegment local = p.local();
        for (long i = 0; i < SIZE; i++) {
            local.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
        }
        int n = 0;
        for (int i = 0; i < perJob; i++) {
            for (int j = 0; j < JOBS; j++) {
                assertEquals(0, p.sendTo(j, n, 0, SIZE - n));
                n++;
            }
        }
        WorkCompletion[] wcs = CompletionQueue.array(n);
        assertEquals(n, p.await(p.cqA, wcs, n));
        for (int k = 0; k < n; k++) {
            assertEquals(k, wcs[k].wrId(), "send completions in post order");
            assertEquals(WcStatus.SUCCESS, wcs[k].status(), wcs[k].toString());
        }
        for (int j = 0; j < JOBS; j++) {
            XrcPair.Job job = p.jobs[j];
            WorkCompletion[] rx = CompletionQueue.array(perJob);
            assertEquals(perJob, p.await(job.cq, rx, perJob), "job " + j + "'s messages on job " + j + "'s CQ");
            for (int i = 0; i < perJob; i++) {
                int msg = i * JOBS + j;
                assertEquals(1000L * j + i, rx[i].wrId(), "job " + j + "'s receives in order");
                assertEquals(WcOpcode.RECV_WITH_IMM, rx[i].opcode());
                assertEquals(msg, rx[i].immediate());
                assertEquals(SIZE - msg, rx[i].byteLength());
                assertEquals(p.recv.qpNum(), rx[i].qpNum());
                assertEquals(p.send.qpNum(), rx[i].sourceQpn());
                assertEquals(-1, MemorySegment.mismatch(local, 0, SIZE - msg, job.mr.segment(), (long) i * SIZE,
                        (long) i * SIZE + SIZE - msg));
            }
        }
    }

    @Test
    void shouldReachEveryJobsXrcSrqThroughOneXrcSendQp() {
        try (SimWorld w = new SimWorld(61);
             XrcPair p = new XrcPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), JOBS, 4, SIZE)) {
            assertEquals(QpType.SRC, p.send.type());
            assertEquals(XrcQpType.XRC_SEND, p.send.xrcType());
            assertEquals(XrcQpType.XRC_RECV, p.recv.xrcType());
            assertEquals(QpState.RTS, p.recv.state());
            assertNotEquals(p.jobs[0].srq.srqNumber(), p.jobs[1].srq.srqNumber());
            assertEquals(SrqType.XRC, p.jobs[0].srq.srqType());
            sendsReachEachJobsSrqOnItsOwnCq(p, 4);
        }
    }

    @Test
    void shouldCheckRdmaAgainstTheNamedJobsProtectionDomain() {
        try (SimWorld w = new SimWorld(62);
             XrcPair p = new XrcPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), 2, 1, 64)) {
            XrcPair.Job job1 = p.jobs[1];
            long target = job1.mr.segment().address() + 4096;
            p.local().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x1122334455667788L);
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(target, job1.mr.rkey()).remoteSrqn(job1.srq.srqNumber())
                .numSge(1);
            write.sge(0).set(p.mrA, 0, 8);
            assertEquals(0, p.send.postSend(write));
            WorkCompletion[] wcs = CompletionQueue.array(1);
            assertEquals(1, p.await(p.cqA, wcs, 1));
            assertEquals(WcStatus.SUCCESS, wcs[0].status());
            assertEquals(0x1122334455667788L, job1.mr.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 4096));
            // Job 1's rkey named through job 0's SRQ: job 0's PD, refused.
            write.wrId(2).rdma(target + 8, job1.mr.rkey()).remoteSrqn(p.jobs[0].srq.srqNumber());
            assertEquals(0, p.send.postSend(write));
            assertEquals(1, p.await(p.cqA, wcs, 1));
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wcs[0].status());
            assertEquals(0L, job1.mr.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 4096 + 8));
        }
    }

    @Test
    void shouldRefuseWhatEachXrcObjectDoesNotHave() {
        try (SimWorld w = new SimWorld(63);
             XrcPair p = new XrcPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), 1, 1, 64)) {
            SendWr wr = new SendWr().wrId(1).numSge(1);
            wr.sge(0).set(p.mrA, 0, 8);
            VerbsException noSrqn = assertThrows(VerbsException.class, () -> p.send.postSend(wr));
            assertTrue(noSrqn.getMessage().contains("remoteSrqn"), noSrqn.getMessage());
            VerbsException recvSends = assertThrows(VerbsException.class, () -> p.recv.postSend(wr.remoteSrqn(5)));
            assertTrue(recvSends.getMessage().contains("XRC_RECV"), recvSends.getMessage());
            RecvWr r = new RecvWr();
            r.sge().set(p.mrA, 0, 8);
            assertTrue(assertThrows(VerbsException.class, () -> p.send.postRecv(r)).getMessage().contains("no receive queue"));
            SharedReceiveQueue basic = p.pdA.createSrq(4, 1, 0);
            assertEquals(SrqType.BASIC, basic.srqType());
            assertThrows(VerbsException.class, basic::srqNumber);
            VerbsException inUse = assertThrows(VerbsException.class, p.xrcd::close);
            assertTrue(inUse.getMessage().contains("still used"), inUse.getMessage());
            assertThrows(VerbsException.class, () -> p.pdA.createQueuePair(QpInitAttributes.builder(QpType.SRC).cq(p.cqA)
                .maxSendWr(4).maxRecvWr(4).build()));
        }
    }

    @Test
    void shouldCloseAnXrcDomainOnceItsSrqsAndQpsAreGone() {
        try (SimWorld w = new SimWorld(64);
             XrcPair p = new XrcPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), 1, 0, 64)) {
            p.recv.destroy();
            assertThrows(VerbsException.class, p.xrcd::close, "its SRQ still uses it");
            p.jobs[0].srq.destroy();
            p.xrcd.close();
            assertThrows(VerbsException.class, p.xrcd::createRecvQueuePair);
        }
    }
}
