package io.srdnic.examples;

import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.XrcDomain;
import io.srdnic.verbs.XrcQpType;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * XRC as rdma-core users know it, on srdnic's SRC queue pairs: one sender reaches every job of a
 * remote node through ONE send queue. Node b runs {@code JOBS} jobs, each with its own protection
 * domain, CQ and XRC SRQ in one XRC domain, behind one XRC_RECV QP; node a connects one XRC_SEND QP
 * to it and addresses each message to a job by that job's SRQ number. With RC, a would need one QP
 * per job of b. The connection manager connects the two halves, as rdma_cm does for XRC
 * (RDMA_PS_IB), and b's accept carries the jobs' SRQ numbers in its private data: nothing travels
 * out of band. Both nodes live on a simulated network here; change the Device lines to run over
 * DPDK (`srdnic xrc-all-to-all --link memif` does, two processes of J jobs each).
 * {@code XrcJobs --attached DIR} runs the same code attached to the {@code srdnic dataplane} in DIR
 * (node a on its port 0, b on its port 1, the CM the dataplane's): only the line that opens the
 * contexts differs, which is why the memory comes from {@code allocateRegion}.
 */
public final class XrcJobs {
    static final int JOBS = 4;
    static final int SIZE = 64;
    static final int PORT = 7471;

    /** One job on node b: its own PD, memory, CQ and XRC SRQ; it only ever sees its own messages. */
    record Job(ProtectionDomain pd, MemoryRegion mr, CompletionQueue cq, SharedReceiveQueue srq) {
        static Job open(Context node, XrcDomain xrcd) {
            ProtectionDomain pd = node.allocPd();
            MemoryRegion mr = pd.allocateRegion(SIZE, Access.LOCAL_WRITE);
            CompletionQueue cq = node.createCq(16);
            SharedReceiveQueue srq = pd.createXrcSrq(xrcd, cq, 8, 1, 0);   // 2. an XRC SRQ: domain, CQ, and a number
            RecvWr r = new RecvWr().wrId(1);
            r.sge().set(mr, 0, SIZE);
            srq.postSrqRecv(r);                                              // its receive, in its own memory
            return new Job(pd, mr, cq, srq);
        }
    }

    public static void main(String[] args) {
        if (args.length > 1 && args[0].equals("--attached")) {
            Path dir = Path.of(args[1]);
            run(port -> Context.open(Device.attached(dir), new ContextConfig().attachedPort(port)));
            return;
        }
        try (SimWorld world = new SimWorld(7)) {
            run(port -> Context.open(Device.sim(world)));
        }
    }

    /** The jobs on node b ({@code open.apply(1)}) and their sender on node a ({@code open.apply(0)}). */
    static void run(IntFunction<Context> open) {
        try (Context a = open.apply(0); Context b = open.apply(1);
             EventChannel channel = new EventChannel()) {                  // one channel runs both nodes' CMs here
            XrcDomain xrcd = b.openXrcDomain();                            // 1. node b: an XRC domain
            Job[] jobs = new Job[JOBS];
            for (int j = 0; j < JOBS; j++) {
                jobs[j] = Job.open(b, xrcd);
            }
            QueuePair recv = xrcd.createRecvQueuePair();                   // 3. node b: one XRC_RECV QP for all jobs
            ProtectionDomain pdA = a.allocPd();                            // 4. node a: one XRC_SEND QP
            CompletionQueue cqA = a.createCq(16);
            QueuePair send = pdA.createQueuePair(QpInitAttributes.xrcSend(cqA).maxSendWr(16).build());
            MemoryRegion mrA = pdA.allocateRegion(SIZE, Access.LOCAL_WRITE);
            int[] srqNumbers = connect(channel, send, recv, a, b, jobs);   // 5. connected by the CM, SRQ numbers told
            System.out.println("connected by the CM; the accept told " + srqNumbers.length + " SRQ numbers");
            SendWr wr = new SendWr();
            for (int j = 0; j < JOBS; j++) {                               // 6. one send queue, every job
                mrA.segment().setString(0, "hello job " + j);
                wr.wrId(j).opcode(SendWr.OP_SEND).remoteSrqn(srqNumbers[j]).numSge(1).sge(0).set(mrA, 0, SIZE);
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

    /**
     * rdma_cm's XRC connection: b listens with an XRC_RECV id, a connects an XRC_SEND id with its QP
     * attached; the CM moves both QPs to RTS with the attributes each half needs (XRC INI, XRC TGT).
     * b accepts with its jobs' SRQ numbers as private data, which a reads from its ESTABLISHED event.
     */
    static int[] connect(EventChannel channel, QueuePair send, QueuePair recv, Context a, Context b, Job[] jobs) {
        CmId listener = CmId.create(channel, b, XrcQpType.XRC_RECV);
        listener.bind(PORT);
        listener.listen(1);
        CmId active = CmId.create(channel, a, XrcQpType.XRC_SEND);
        active.resolveAddr(b.ip(), PORT);
        next(channel, CmEventType.ADDR_RESOLVED);
        active.resolveRoute();
        next(channel, CmEventType.ROUTE_RESOLVED);
        active.attachQp(send);
        active.connect(new ConnParam());
        CmEvent request = next(channel, CmEventType.CONNECT_REQUEST);
        CmId passive = request.id();
        channel.ack(request);
        ByteBuffer numbers = ByteBuffer.allocate(4 * jobs.length);
        for (Job job : jobs) {
            numbers.putInt(job.srq().srqNumber());
        }
        passive.attachQp(recv);
        passive.accept(new ConnParam().privateData(numbers.array()));
        int[] srqNumbers = null;
        for (int established = 0; established < 2; established++) {  // one ESTABLISHED per side
            CmEvent up = next(channel, CmEventType.ESTABLISHED);
            if (up.id() == active) {
                ByteBuffer told = ByteBuffer.wrap(up.privateData(), 0, up.privateDataLength());
                srqNumbers = new int[jobs.length];
                for (int j = 0; j < jobs.length; j++) {
                    srqNumbers[j] = told.getInt();
                }
            }
            channel.ack(up);
        }
        return srqNumbers;
    }

    private static CmEvent next(EventChannel channel, CmEventType expected) {
        CmEvent e = channel.await(1, TimeUnit.SECONDS);
        if (e == null || e.type() != expected) {
            throw new IllegalStateException("expected " + expected + ", got " + e);
        }
        if (expected == CmEventType.ADDR_RESOLVED || expected == CmEventType.ROUTE_RESOLVED) {
            channel.ack(e);
        }
        return e;
    }
}
