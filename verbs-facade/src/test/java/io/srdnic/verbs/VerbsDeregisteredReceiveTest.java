package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A receive posted from a region that is deregistered before a message takes it: as in verbs (the
 * HCA refuses the SGE's lkey), the receive completes LOCAL_PROTECTION_ERROR and nothing lands in
 * its bytes, which the application may already use for something else. On SRD and UD the next
 * receive takes the next message.
 */
class VerbsDeregisteredReceiveTest {
    private static final int SIZE = 64;
    private static final String MARK = "the application's own bytes";

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"SRD", "UD", "RC"})
    void shouldFailAReceiveIntoADeregisteredRegion(QpType type) {
        try (SimWorld w = new SimWorld(7);
             VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), type, 0, SIZE)) {
            MemorySegment gone = p.arena.allocate(SIZE, 64);
            MemoryRegion goneMr = p.sb.pd.registerMemory(gone, Access.LOCAL_WRITE);
            RecvWr r = new RecvWr();
            r.wrId(1).sge().set(goneMr, 0, SIZE);
            assertEquals(0, p.sb.qp.postRecv(r)); // the QP holds one receive
            goneMr.deregister();
            gone.setString(0, MARK); // reused by the application once deregistered

            send(p, type, 11, "first");
            assertEquals(1, VerbsPair.await(p.sb.cq, p.sb.wcs, 1));
            assertEquals(1, p.sb.wcs[0].wrId());
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, p.sb.wcs[0].status(), p.sb.wcs[0].statusName());
            assertEquals(MARK, gone.getString(0), "the message landed in the deregistered region's bytes");
            assertEquals(1L, p.b.counters().get("receives_region_gone"));
            assertEquals(1, VerbsPair.await(p.sa.cq, p.sa.wcs, 1));
            assertEquals(11, p.sa.wcs[0].wrId());
            // UD hears nothing back; SRD and RC hear that the responder could not take the message.
            assertEquals(type == QpType.UD ? WcStatus.SUCCESS : WcStatus.REMOTE_OPERATION_ERROR, p.sa.wcs[0].status(),
                p.sa.wcs[0].statusName());

            if (type != QpType.RC) { // an RC requester that heard a NAK has failed, as in verbs
                r.wrId(2).sge().set(p.sb.mr, 0, SIZE);
                assertEquals(0, p.sb.qp.postRecv(r), "the failed receive left the queue");
                send(p, type, 12, "second");
                assertEquals(1, VerbsPair.await(p.sb.cq, p.sb.wcs, 1));
                assertEquals(2, p.sb.wcs[0].wrId());
                assertEquals(WcStatus.SUCCESS, p.sb.wcs[0].status(), p.sb.wcs[0].statusName());
                assertEquals("second", p.sb.mr.segment().getString(0));
            }
        }
    }

    /** RC: the receive a message's FIRST packet took is checked again for every later packet. */
    @Test
    void shouldStopAnRcMessageMidwayWhenItsReceiveRegionIsDeregistered() {
        int size = 16 * 4096; // 16 packets at the path MTU
        try (SimWorld w = new SimWorld(8);
             VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), QpType.RC, 0, SIZE)) {
            MemorySegment target = p.arena.allocate(size, 64);
            MemoryRegion targetMr = p.sb.pd.registerMemory(target, Access.LOCAL_WRITE);
            RecvWr r = new RecvWr();
            r.wrId(5).sge().set(targetMr, 0, size);
            assertEquals(0, p.sb.qp.postRecv(r));
            MemorySegment payload = p.arena.allocate(size, 64);
            payload.fill((byte) 0x5A);
            MemoryRegion payloadMr = p.sa.pd.registerMemory(payload, Access.LOCAL_WRITE);
            SendWr wr = new SendWr().wrId(21).flags(SendWr.SIGNALED);
            wr.sge(0).set(payloadMr, 0, size);
            assertEquals(0, p.sa.qp.postSend(wr.numSge(1)));
            for (int i = 0; i < 100_000 && p.b.counters().getOrDefault("rx_data", 0L) == 0; i++) {
                w.step();
            }
            long arrived = p.b.counters().getOrDefault("rx_data", 0L);
            assertTrue(arrived > 0 && arrived < 16, "the message's first packets only have arrived: " + arrived);
            targetMr.deregister();
            target.fill((byte) 0); // the application's again

            assertEquals(1, VerbsPair.await(p.sb.cq, p.sb.wcs, 1));
            assertEquals(5, p.sb.wcs[0].wrId());
            assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, p.sb.wcs[0].status(), p.sb.wcs[0].statusName());
            for (long at = 0; at < size; at++) {
                if (target.get(ValueLayout.JAVA_BYTE, at) != 0) {
                    throw new AssertionError("byte " + at + " of the deregistered region was written after the deregister");
                }
            }
            assertEquals(1, VerbsPair.await(p.sa.cq, p.sa.wcs, 1));
            assertEquals(WcStatus.REMOTE_OPERATION_ERROR, p.sa.wcs[0].status(), p.sa.wcs[0].statusName());
        }
    }

    private static void send(VerbsPair p, QpType type, long wrId, String text) {
        p.sa.mr.segment().setString(0, text);
        SendWr wr = new SendWr().wrId(wrId).flags(SendWr.SIGNALED);
        if (type != QpType.RC) {
            wr.destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY);
        }
        wr.sge(0).set(p.sa.mr, 0, text.length() + 1);
        assertEquals(0, p.sa.qp.postSend(wr.numSge(1)));
    }
}
