package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A transport's thread that was away (descheduled on a busy host, an application in INVOKER mode
 * that stopped polling, a GC pause) comes back to ACKs that waited in its RX ring: it must hear
 * them before its timers judge its packets lost, or every packet in flight goes again, each such
 * pause spends one transmission of every one from its retry budget, and a loaded host ends its
 * sends REMOTE_UNRESPONSIVE while the peer answered everything.
 */
class ThreadStallTest {
    static final long MS = 1_000_000;

    @Test
    void shouldHearTheAcksThatWaitedBeforeItsTimersTakeAnythingForLost() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            int messages = 4; // the initial congestion window: all leave in one cycle
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, messages, 64);
            MemorySegment msg = f.arena.allocate(64);
            for (int i = 0; i < messages; i++) {
                assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(i, msg, 0, 64).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
            }
            a.doWork(f.network.clock().now()); // A's last cycle before its thread goes away: the messages leave
            // A is away for 10 ms, far past its RTO (1 ms before any RTT sample); B receives, delivers and acknowledges all.
            f.runOnly(b, 10 * MS);
            assertEquals(messages, b.counters.rxData);
            assertTrue(b.counters.txAcks > 0, "B acknowledged what it received");

            a.doWork(f.network.clock().now()); // A's thread is back: one cycle

            assertEquals(0, a.counters.txRetransmits, "the ACKs in A's RX ring were heard before its timers ran");
            assertEquals(0, a.counters.rtoEvents);
            assertEquals(messages, qa.sendCq().size(), "every send completed in that cycle");
        }
    }

    @Test
    void shouldStillRetransmitAfterAStallWhenNoAckCame() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 1, 64);
            MemorySegment msg = f.arena.allocate(64);
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(1, msg, 0, 64).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
            a.doWork(f.network.clock().now());
            f.network.clock().advanceTo(f.network.clock().now() + 10 * MS); // both away: B never received, so no ACK waits

            a.doWork(f.network.clock().now());

            assertEquals(1, a.counters.txRetransmits, "hearing first does not hold back a retransmission that is due");
        }
    }
}
