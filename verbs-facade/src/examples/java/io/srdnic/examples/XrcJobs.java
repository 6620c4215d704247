package io.srdnic.examples;

import io.srdnic.srd.transport.QpAttributes;
import io.srdnic.srd.transport.QpState;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.XrcDomain;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;

/**
 * XRC as rdma-core users know it, on srdnic's SRC queue pairs: one sender reaches every job of a
 * remote node through ONE send queue. Node b runs {@code JOBS} jobs, each with its own protection
 * domain, CQ and XRC SRQ in one XRC domain, behind one XRC_RECV QP; node a connects one XRC_SEND QP
 * to it and addresses each message to a job by that job's SRQ number. With RC, a would need one QP
 * per job of b. Both nodes live on a simulated network here; change the Device lines to run over
 * DPDK (the SRQ numbers and QP numbers then travel out of band, as in any verbs program).
 */
public final class XrcJobs {
    static final int JOBS = 4;
    static final int SIZE = 64;

    /** One job on node b: its own PD, memory, CQ and XRC SRQ; it only ever sees its own messages. */
    record Job(ProtectionDomain pd, MemoryRegion mr, CompletionQueue cq, SharedReceiveQueue srq) {
        static Job open(Context node, XrcDomain xrcd, Arena arena) {
            ProtectionDomain pd = node.allocPd();
            MemoryRegion mr = pd.registerMemory(arena.allocate(SIZE), Access.LOCAL_WRITE);
            CompletionQueue cq = node.createCq(16);
            SharedReceiveQueue srq = pd.createXrcSrq(xrcd, cq, 8, 1, 0);   // 2. an XRC SRQ: domain, CQ, and a number
            RecvWr r = new RecvWr().wrId(1);
            r.sge().set(mr, 0, SIZE);
            srq.postSrqRecv(r);                                              // its receive, in its own memory
            return new Job(pd, mr, cq, srq);
        }
    }

    public static void main(String[] args) {
        try (SimWorld world = new SimWorld(7); Arena arena = Arena.ofShared();
             Context a = Context.open(Device.sim(world)); Context b = Context.open(Device.sim(world))) {
            XrcDomain xrcd = b.openXrcDomain();                            // 1. node b: an XRC domain
            Job[] jobs = new Job[JOBS];
            for (int j = 0; j < JOBS; j++) {
                jobs[j] = Job.open(b, xrcd, arena);
            }
            QueuePair recv = xrcd.createRecvQueuePair();                   // 3. node b: one XRC_RECV QP for all jobs
            ProtectionDomain pdA = a.allocPd();                            // 4. node a: one XRC_SEND QP
            CompletionQueue cqA = a.createCq(16);
            QueuePair send = pdA.createXrcSendQueuePair(cqA, 16, 1, 0);
            MemoryRegion mrA = pdA.registerMemory(arena.allocate(SIZE), Access.LOCAL_WRITE);
            connect(send, recv, a, b);                                     // 5. connected as RC QPs are
            SendWr wr = new SendWr();
            for (int j = 0; j < JOBS; j++) {                               // 6. one send queue, every job
                mrA.segment().setString(0, "hello job " + j);
                wr.wrId(j).opcode(SendWr.OP_SEND).remoteSrqn(jobs[j].srq().srqNumber()).numSge(1).sge(0).set(mrA, 0, SIZE);
                send.postSend(wr);
                WorkCompletion[] wcs = CompletionQueue.array(1);
                if (cqA.await(wcs, 1, TimeUnit.SECONDS) != 1 || !wcs[0].ok()) {
                    throw new IllegalStateException("send to job " + j + " failed: " + wcs[0]);
                }
            }
            for (int j = 0; j < JOBS; j++) {                               // 7. each job polls its own CQ
                WorkCompletion[] wcs = CompletionQueue.array(1);
                if (jobs[j].cq().await(wcs, 1, TimeUnit.SECONDS) != 1 || !wcs[0].ok()) {
                    throw new IllegalStateException("job " + j + " got nothing");
                }
                System.out.println("job " + j + " (SRQ " + jobs[j].srq().srqNumber() + ") got: " + jobs[j].mr().segment().getString(0)
                    + " via QP " + wcs[0].qpNum());
            }
            System.out.println("1 XRC_SEND QP reached " + JOBS + " jobs (RC would need " + JOBS + " QPs)");
        }
    }

    /** The XRC moves: XRC_SEND takes XRC INI's attributes, XRC_RECV XRC TGT's (what each half needs, no more). */
    static void connect(QueuePair send, QueuePair recv, Context a, Context b) {
        int ahToB = a.allocPd().createAddressHandle(b.mac(), b.ip()).handle();
        int ahToA = b.allocPd().createAddressHandle(a.mac(), a.ip()).handle();
        QpAttributes x = new QpAttributes();
        send.modify(x.clear().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
        send.modify(x.clear().state(QpState.RTR).addressHandle(ahToB).pathMtu(4096).destQpn(recv.qpNum()).rqPsn(1));
        send.modify(x.clear().state(QpState.RTS).sqPsn(1).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
        recv.modify(x.clear().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
        recv.modify(x.clear().state(QpState.RTR).addressHandle(ahToA).pathMtu(4096).destQpn(send.qpNum()).rqPsn(1)
            .maxDestRdAtomic(1).minRnrTimer(1));
        recv.modify(x.clear().state(QpState.RTS).sqPsn(1).timeout(14));
    }
}
