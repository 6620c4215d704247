package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** RDMA WRITE, WRITE_WITH_IMM and READ on SRD through the verbs API, on the simulated network. */
class VerbsRdmaSimTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final int SIZE = 256 * 1024;

    private static void fill(MemorySegment s, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    private static WorkCompletion one(CompletionQueue cq, WorkCompletion[] wcs) {
        int got = 0;
        for (int i = 0; i < 2000 && got == 0; i++) {
            got = cq.await(wcs, 1, TimeUnit.MILLISECONDS);
        }
        assertEquals(1, got, "one completion");
        return wcs[0];
    }

    @Test
    void shouldWriteThenReadBackARegionThroughTheApi() {
        try (SimWorld w = new SimWorld(21); VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)),
            QpType.SRD, 4, 64)) {
            MemorySegment src = p.arena.allocate(SIZE, 64);
            MemorySegment back = p.arena.allocate(SIZE, 64);
            MemorySegment target = p.arena.allocate(SIZE, 64);
            fill(src, 1);
            MemoryRegion srcMr = p.sa.pd.registerMemory(src, Access.LOCAL_WRITE);
            MemoryRegion backMr = p.sa.pd.registerMemory(back, Access.LOCAL_WRITE);
            MemoryRegion remote = p.sb.pd.registerMemory(target, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            assertTrue(p.a.queryDevice().rdmaWrite() && p.a.queryDevice().rdmaRead());
            assertTrue(p.a.queryDevice().maxRdmaSize() >= SIZE);

            SendWr wr = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE_WITH_IMM).immediate(0xABCD)
                .destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).rdma(target.address(), remote.rkey()).numSge(1);
            wr.sge(0).set(srcMr, 0, SIZE);
            assertEquals(0, p.sa.qp.postSend(wr));
            WorkCompletion sent = one(p.sa.cq, p.sa.wcs);
            assertEquals(WcStatus.SUCCESS, sent.status());
            assertEquals(WcOpcode.RDMA_WRITE, sent.opcode());
            WorkCompletion imm = one(p.sb.cq, p.sb.wcs);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, imm.opcode());
            assertEquals(0xABCD, imm.immediate());
            assertEquals(SIZE, imm.byteLength());
            assertEquals(-1, MemorySegment.mismatch(src, 0, SIZE, target, 0, SIZE), "the write landed whole");

            fill(target, 2); // the remote side changes its memory; the read must see the new bytes
            wr.wrId(2).opcode(SendWr.OP_RDMA_READ).sge(0).set(backMr, 0, SIZE);
            assertEquals(0, p.sa.qp.postSend(wr));
            WorkCompletion read = one(p.sa.cq, p.sa.wcs);
            assertEquals(WcStatus.SUCCESS, read.status());
            assertEquals(WcOpcode.RDMA_READ, read.opcode());
            assertEquals(-1, MemorySegment.mismatch(target, 0, SIZE, back, 0, SIZE), "the read brought the remote bytes");
        }
    }

    @Test
    void shouldRefuseRemoteAccessTheRegionDoesNotGrant() {
        try (SimWorld w = new SimWorld(22); VerbsPair p = srdPair(w)) {
            MemorySegment target = p.arena.allocate(4096, 64);
            MemoryRegion readOnly = p.sb.pd.registerMemory(target, Access.REMOTE_READ);
            MemoryRegion otherDomains = p.b.allocPd().registerMemory(target, Access.REMOTE_WRITE | Access.REMOTE_READ);
            byte[] before = target.toArray(ValueLayout.JAVA_BYTE);
            assertRemoteAccessError(p, rdma(p, SendWr.OP_RDMA_WRITE, 1, target, readOnly), "no REMOTE_WRITE");
            assertRemoteAccessError(p, rdma(p, SendWr.OP_RDMA_WRITE, 2, target, otherDomains), "a region of another PD");
            assertTrue(Arrays.equals(before, target.toArray(ValueLayout.JAVA_BYTE)), "remote memory unchanged");
        }
    }

    @Test
    void shouldRefuseRemoteAccessToADeregisteredRegion() {
        try (SimWorld w = new SimWorld(22); VerbsPair p = srdPair(w)) {
            MemorySegment target = p.arena.allocate(4096, 64);
            MemoryRegion writable = p.sb.pd.registerMemory(target, Access.REMOTE_WRITE);
            byte[] before = target.toArray(ValueLayout.JAVA_BYTE);
            writable.deregister();
            assertRemoteAccessError(p, rdma(p, SendWr.OP_RDMA_WRITE, 3, target, writable), "deregistered");
            assertTrue(Arrays.equals(before, target.toArray(ValueLayout.JAVA_BYTE)), "remote memory unchanged");
        }
    }

    @Test
    void shouldRefuseAReadIntoMemoryWithoutLocalWrite() {
        try (SimWorld w = new SimWorld(22); VerbsPair p = srdPair(w)) {
            MemorySegment target = p.arena.allocate(4096, 64);
            SendWr wr = rdma(p, SendWr.OP_RDMA_READ, 4, target, p.sb.pd.registerMemory(target, Access.REMOTE_READ));
            wr.sge(0).set(p.sa.pd.registerMemory(p.arena.allocate(100), 0), 0, 100);
            assertEquals(0, p.sa.qp.postSend(wr));
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, one(p.sa.cq, p.sa.wcs).status(), "a READ lands only in LOCAL_WRITE memory");
        }
    }

    private static VerbsPair srdPair(SimWorld w) {
        return new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), QpType.SRD, 4, 64);
    }

    /** An RDMA request of {@code opcode} for 100 bytes of A's region at {@code target} in B's {@code region}. */
    private static SendWr rdma(VerbsPair p, int opcode, long wrId, MemorySegment target, MemoryRegion region) {
        SendWr wr = new SendWr().opcode(opcode).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
        wr.sge(0).set(p.sa.mr, 0, 100);
        return wr.wrId(wrId).rdma(target.address(), region.rkey());
    }

    private static void assertRemoteAccessError(VerbsPair p, SendWr wr, String why) {
        assertEquals(0, p.sa.qp.postSend(wr));
        assertEquals(WcStatus.REMOTE_ACCESS_ERROR, one(p.sa.cq, p.sa.wcs).status(), why);
    }

    @Test
    void shouldRefuseRdmaOnUdQps() {
        try (SimWorld w = new SimWorld(23); VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)),
            QpType.UD, 4, 64)) {
            SendWr wr = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY)
                .rdma(0, 0).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 8);
            assertEquals(0, p.sa.qp.postSend(wr));
            assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, one(p.sa.cq, p.sa.wcs).status());
        }
    }
}
