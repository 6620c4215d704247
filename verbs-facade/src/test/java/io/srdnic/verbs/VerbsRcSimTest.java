package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** RC queue pairs through the verbs API on the simulated network: connected sends, RDMA, completions in order, a failed connection. */
class VerbsRcSimTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldKeepAWriteAheadOfTheSendPostedAfterIt() {
        int size = 256 * 1024;
        try (SimWorld w = new SimWorld(31); VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)),
            QpType.RC, 2, 4096)) {
            MemorySegment src = p.arena.allocate(size, 64);
            for (int i = 0; i < size; i += 8) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, ~i * 31L);
            }
            MemorySegment target = p.arena.allocate(size, 64);
            MemoryRegion srcMr = p.sa.pd.registerMemory(src, Access.LOCAL_WRITE);
            MemoryRegion remote = p.sb.pd.registerMemory(target, Access.REMOTE_WRITE);
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(target.address(), remote.rkey()).numSge(1);
            write.sge(0).set(srcMr, 0, size);
            SendWr send = new SendWr().wrId(2).opcode(SendWr.OP_SEND).numSge(1);
            send.sge(0).set(srcMr, 0, 100);
            assertEquals(0, p.sa.qp.postSend(write));
            assertEquals(0, p.sa.qp.postSend(send));
            WorkCompletion[] wcs = CompletionQueue.array(2);
            assertEquals(2, VerbsPair.await(p.sa.cq, wcs, 2));
            assertEquals(1, wcs[0].wrId(), "the write first, as posted");
            assertEquals(WcOpcode.RDMA_WRITE, wcs[0].opcode());
            assertEquals(2, wcs[1].wrId());
            assertEquals(WcStatus.SUCCESS, wcs[1].status());
            WorkCompletion[] rx = CompletionQueue.array(1);
            assertEquals(1, VerbsPair.await(p.sb.cq, rx, 1));
            assertEquals(100, rx[0].byteLength());
            assertEquals(-1, MemorySegment.mismatch(src, 0, size, target, 0, size),
                    "RC is ordered: the write landed before the send's receive");
        }
    }

    @Test
    void shouldFlushTheNextPostOnceARemoteAccessErrorPutTheQpInError() {
        try (SimWorld w = new SimWorld(32); VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)),
            QpType.RC, 1, 4096)) {
            MemorySegment src = p.arena.allocate(4096, 64);
            MemoryRegion srcMr = p.sa.pd.registerMemory(src, Access.LOCAL_WRITE);
            MemoryRegion readOnly = p.sb.pd.registerMemory(p.arena.allocate(4096, 64), Access.REMOTE_READ);
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(readOnly.segment().address(), readOnly.rkey()).numSge(1);
            write.sge(0).set(srcMr, 0, 4096);
            assertEquals(0, p.sa.qp.postSend(write));
            WorkCompletion[] wcs = CompletionQueue.array(1);
            assertEquals(1, VerbsPair.await(p.sa.cq, wcs, 1));
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wcs[0].status());
            assertEquals(QpState.ERROR, p.sa.qp.query().state());
            assertEquals(0, p.sa.qp.postSend(write.wrId(2)), "taken, as verbs takes a post in ERROR");
            WorkCompletion flushed = null;
            while (flushed == null && VerbsPair.await(p.sa.cq, wcs, 1) == 1) {
                flushed = wcs[0].wrId() == 2 ? wcs[0] : null; // the CQ also gets the QP's receives, flushed
            }
            assertNotNull(flushed, "the post completed");
            assertEquals(WcStatus.WR_FLUSH_ERROR, flushed.status(), flushed.statusName());
        }
    }
}
