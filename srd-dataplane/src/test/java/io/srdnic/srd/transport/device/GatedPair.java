package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.srd.SrdContext;
import java.lang.foreign.MemorySegment;

/**
 * Two SRD hosts on one simulated path, A sending to B, each behind a {@link FrameGate} a test
 * may close on the frames it sends: the harness of the tests of what a requester learns from late,
 * lost and duplicated answers.
 */
final class GatedPair implements AutoCloseable {
    static final long MS = 1_000_000;

    final SimFabric f;
    FrameGate gateA;
    FrameGate gateB;
    final TransportDevice a;
    final TransportDevice b;
    final TestQp qa;
    final TestQp qb;
    private final MemorySegment msg;
    private final WorkRequest wr = new WorkRequest();
    private final int ah;
    private int posted;

    /** Links of {@code link} everywhere; B posts receives of {@code size} bytes. */
    GatedPair(LinkConfig link, int size) {
        f = new SimFabric(1, link, link, 1);
        a = f.addHost(new TransportConfig(), io -> gateA = new FrameGate(io));
        b = f.addHost(new TransportConfig(), io -> gateB = new FrameGate(io));
        qa = f.qp(a, 0, 0);
        qb = f.qp(b, 4096, size);
        msg = f.arena.allocate(size);
        ah = f.ah(a, 1);
    }

    /** Posts {@code n} SENDs of {@code size} bytes from A to B, through the one post entry. */
    void post(int n, int size) {
        for (int i = 0; i < n; i++) {
            wr.clear();
            wr.wrId = posted++;
            wr.opcode = SendOpcode.SEND;
            wr.buffer = msg;
            wr.length = size;
            wr.signaled = true;
            wr.ah = ah;
            wr.destQpn = qb.qpn();
            wr.qkey = SimFabric.QKEY;
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), wr));
        }
    }

    boolean allCompleted() {
        return qa.sendCq().size() == posted;
    }

    /** 64 messages of 64 bytes, 8 at a time, each batch acknowledged before the next: A knows the RTT, its window has grown. */
    SrdContext warmUp() {
        for (int round = 0; round < 8; round++) {
            post(8, 64);
            assertTrue(f.runUntil(this::allCompleted, 10 * MS));
        }
        assertEquals(0, a.counters.txRetransmits, "a clean warm-up");
        return a.existingContext(SimFabric.flow(1));
    }

    /** B's thread stops for {@code nanos} while A runs on. */
    void stallB(long nanos) {
        f.runOnly(a, nanos);
    }

    @Override
    public void close() {
        f.close();
    }
}
