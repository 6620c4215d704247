package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 7 of issue 25: a deregistered key is never revived. rdma-core's providers put a key byte
 * and a cycling index in every lkey/rkey, so a peer holding a revoked rkey cannot reach a region
 * registered after it (rxe's {@code rxe_mr.c} key byte). Here: a peer's WRITE through an rkey revoked thousands of registrations ago is
 * refused REMOTE_ACCESS_ERROR and changes no byte of the regions registered since.
 */
class MemoryKeyRevivalTest extends ConformanceCase {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final int CYCLES = 3000;

    @Test
    void shouldNeverHandARevokedRkeyToANewRegionSoAStaleWriteLandsNowhere() {
        try (RcConformancePair p = pair(2571, LinkConfig.DEFAULT, 64 * 1024)) {
            MemorySegment fresh = p.b.memory(4096);
            MemoryRegion revoked = p.b.pd.registerMemory(fresh, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            int staleRkey = revoked.rkey();
            revoked.deregister();
            MemoryRegion current = null;
            for (int i = 0; i < CYCLES; i++) {
                current = p.b.pd.registerMemory(fresh, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                assertNotEquals(staleRkey, current.rkey(), "registration " + i + " revived the revoked key");
                if (i < CYCLES - 1) {
                    current.deregister();
                }
            }
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).rdma(fresh.address(), staleRkey).numSge(1);
            p.a.mem.fill((byte) 0x5A);
            write.sge(0).set(p.a.mr, 0, 256);
            assertEquals(0, p.a.qp.postSend(write));
            List<WorkCompletion> wcs = RcConformancePair.await(p.a.cq, 1, 10);
            assertEquals(1, wcs.size());
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wcs.get(0).status(), wcs.get(0).statusName());
            assertEquals(-1, fresh.asSlice(0, 256).mismatch(p.arena.allocate(256)), "nothing landed through the revoked key");
            assertEquals(QpState.ERROR, p.b.qp.query().state());
        }
    }
}
