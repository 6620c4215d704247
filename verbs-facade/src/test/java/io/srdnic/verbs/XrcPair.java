package io.srdnic.verbs;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Test fixture in the XRC shape: context a sends from one XRC_SEND QP; context b has an XRC domain,
 * one XRC_RECV QP connected to a's, and {@code jobs} jobs, each with its own PD, CQ, registered
 * memory and XRC SRQ in the domain, as J processes on one node would have.
 */
final class XrcPair implements AutoCloseable {
    final Arena arena = Arena.ofShared();
    final Context a;
    final Context b;
    final ProtectionDomain pdA;
    final CompletionQueue cqA;
    final QueuePair send;
    final MemoryRegion mrA;
    final XrcDomain xrcd;
    final QueuePair recv;
    final Job[] jobs;

    /** One job of b: its PD, CQ, memory (receive buffers, then RDMA room) and XRC SRQ. */
    static final class Job {
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion mr;
        SharedReceiveQueue srq;
    }

    XrcPair(Context a, Context b, int jobs, int receives, int size) {
        this.a = a;
        this.b = b;
        pdA = a.allocPd();
        cqA = a.createCq(4096);
        send = pdA.createQueuePair(QpInitAttributes.xrcSend(cqA).maxSendWr(1024).build());
        mrA = pdA.registerMemory(arena.allocate(16L * size + (1 << 20), 64), Access.LOCAL_WRITE);
        xrcd = b.openXrcDomain();
        recv = xrcd.createRecvQueuePair();
        this.jobs = new Job[jobs];
        for (int j = 0; j < jobs; j++) {
            Job job = new Job();
            job.pd = b.allocPd();
            job.cq = b.createCq(4096);
            job.mr = job.pd.registerMemory(arena.allocate((long) receives * size + (1 << 20), 64),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
            job.srq = job.pd.createXrcSrq(xrcd, job.cq, Math.max(1, receives), 1, 0);
            RecvWr r = new RecvWr();
            for (int i = 0; i < receives; i++) {
                r.wrId(1000L * j + i).sge().set(job.mr, (long) i * size, size);
                if (job.srq.postSrqRecv(r) != 0) {
                    throw new IllegalStateException("could not post receive " + i + " of job " + j);
                }
            }
            this.jobs[j] = job;
        }
        int access = QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC;
        AddressHandle toB = pdA.createAddressHandle(b.mac(), b.ip(), b.udpPort());
        AddressHandle toA = b.allocPd().createAddressHandle(a.mac(), a.ip(), a.udpPort());
        QpAttributes attr = new QpAttributes();
        // XRC_SEND: XRC INI's attributes (no maxDestRdAtomic, no minRnrTimer at RTR).
        send.modify(attr.clear().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
        send.modify(attr.clear().state(QpState.RTR).addressHandle(toB.handle()).pathMtu(4096).destQpn(recv.qpNum()).rqPsn(300));
        send.modify(attr.clear().state(QpState.RTS).sqPsn(700).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(4));
        // XRC_RECV: XRC TGT's (RTR -> RTS takes only timeout and sqPsn).
        recv.modify(attr.clear().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(access));
        recv.modify(attr.clear().state(QpState.RTR).addressHandle(toA.handle()).pathMtu(4096).destQpn(send.qpNum()).rqPsn(700)
            .maxDestRdAtomic(4).minRnrTimer(1));
        recv.modify(attr.clear().state(QpState.RTS).sqPsn(300).timeout(14));
    }

    /** Posts on a's XRC_SEND QP a SEND of {@code length} bytes at {@code offset} of a's memory to job {@code j}'s SRQ. */
    int sendTo(int j, long wrId, long offset, int length) {
        SendWr wr = new SendWr().wrId(wrId).opcode(SendWr.OP_SEND_WITH_IMM).immediate((int) wrId).remoteSrqn(jobs[j].srq.srqNumber())
            .numSge(1);
        wr.sge(0).set(mrA, offset, length);
        return send.postSend(wr);
    }

    /**
     * Waits (up to 10 s of wall time) for {@code n} completions of {@code cq}, running b's duty cycle
     * too: in INVOKER mode on a real link nobody else runs it (on the simulator it steps the world).
     */
    int await(CompletionQueue cq, WorkCompletion[] wcs, int n) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        int got = 0;
        WorkCompletion[] some = CompletionQueue.array(n);
        while (got < n && System.nanoTime() - deadline < 0) {
            b.progress();
            int k = cq.poll(some, n - got);
            System.arraycopy(some, 0, wcs, got, k);
            for (int i = 0; i < k; i++) {
                some[i] = new WorkCompletion(); // the copies keep theirs
            }
            got += k;
        }
        return got;
    }

    MemorySegment local() {
        return mrA.segment();
    }

    @Override
    public void close() {
        a.close();
        b.close();
        arena.close();
    }
}
