package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static io.srdnic.srd.transport.device.Requests.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 25: both ends of a connection refuse at once. Each side READs from the other, then WRITEs
 * through a bad rkey, all posted in the same instant: each responder executes the peer's READ
 * (answers owed) and then refuses the peer's WRITE, so each defers its fatal NAK until its answers
 * are acknowledged (rule 2). Both QPs must end in ERROR with every request completed — the READs
 * SUCCESS, the WRITEs with their NAK or flushed (a QP that went to ERROR as responder first flushes
 * its own) — never waiting for each other for ever. With the local ACK timeout infinite (0), no
 * retry budget would break such a wait either.
 */
class RcBothEndsRefuseTest {
    @ParameterizedTest
    @ValueSource(ints = {10, 0})
    void shouldEndBothQpsInErrorWithEveryRequestCompletedWhenBothRefuseAtOnce(int timeout) {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 2571)) {
            p.timeout = timeout;
            p.connect();
            MemorySegment memA = p.random(4096, 1);
            MemorySegment memB = p.random(4096, 2);
            int keyA = p.a.regions().register(memA, 0, MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE | MemoryRegions.LOCAL_WRITE);
            int keyB = p.b.regions().register(memB, 0, MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE | MemoryRegions.LOCAL_WRITE);
            MemorySegment landA = p.f.arena.allocate(4096, 64);
            MemorySegment landB = p.f.arena.allocate(4096, 64);
            assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), request(1, SendOpcode.RDMA_READ, landA, 0, 512)
                .remote(memB.address(), keyB)));
            assertEquals(TransportDevice.POST_OK, p.a.post(p.qa.qp(), request(2, SendOpcode.RDMA_WRITE, memA, 0, 64)
                .remote(memB.address(), keyB ^ 0x5a5a)));
            assertEquals(TransportDevice.POST_OK, p.b.post(p.qb.qp(), request(1, SendOpcode.RDMA_READ, landB, 0, 512)
                .remote(memA.address(), keyA)));
            assertEquals(TransportDevice.POST_OK, p.b.post(p.qb.qp(), request(2, SendOpcode.RDMA_WRITE, memB, 0, 64)
                .remote(memA.address(), keyA ^ 0x5a5a)));
            List<TestQp.Wc> atA = RcPair.sendCompletions(p.f, p.qa, 2, 2_000 * MS);
            List<TestQp.Wc> atB = RcPair.sendCompletions(p.f, p.qb, 2, 2_000 * MS);
            for (List<TestQp.Wc> wcs : List.of(atA, atB)) {
                assertEquals(WcStatus.SUCCESS, wcs.get(0).status(), "the READ executed before the refusal: " + wcs);
                assertTrue(wcs.get(1).status() == WcStatus.REMOTE_ACCESS_ERROR || wcs.get(1).status() == WcStatus.WR_FLUSH_ERROR,
                    "the refused WRITE: its NAK, or flushed by its own QP's ERROR: " + wcs);
            }
            assertEquals(QpState.ERROR, p.qa.qp().state());
            assertEquals(QpState.ERROR, p.qb.qp().state());
        }
    }
}
