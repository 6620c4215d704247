package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * When ACKs leave: with {@code delayedAck} (the default) the cycle that receives data owes its ACK
 * to the next cycle, which sends it after that cycle's own data; without it, the ACK leaves in the
 * cycle that received. Either way every data packet is acknowledged once and nothing is retransmitted.
 */
class DelayedAckTest {
    static final long MS = 1_000_000;

    @Test
    void shouldOweTheAckToTheNextCycleAsDueNow() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig());
            TransportDevice b = f.addHost(new TransportConfig());
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 1, 64);
            MemorySegment msg = f.arena.allocate(64);
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(1, msg, 0, 64).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
            assertTrue(f.runUntil(() -> b.counters.rxData == 1, MS));
            long now = f.network.clock().now();
            assertEquals(0, b.counters.txAcks, "the cycle that delivered did not send the ACK");
            assertTrue(b.hasPostedWork());
            assertEquals(now, b.nextDeadline(), "an owed ACK is due at once: a simulator must not jump past it");
            b.doWork(now);
            assertEquals(1, b.counters.txAcks, "the next cycle sent it");
            assertTrue(b.nextDeadline() > now);
            assertTrue(f.runUntil(() -> qa.sendCq().size() > 0, MS));
            assertEquals(0, a.counters.txRetransmits);
        }
    }

    @Test
    void shouldAckInTheSameCycleWhenNotDelayed() {
        try (SimFabric f = new SimFabric(1)) {
            TransportDevice a = f.addHost(new TransportConfig().delayedAck(false));
            TransportDevice b = f.addHost(new TransportConfig().delayedAck(false));
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 1, 64);
            MemorySegment msg = f.arena.allocate(64);
            assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(1, msg, 0, 64).to(f.ah(a, 1), qb.qpn(), SimFabric.QKEY)));
            assertTrue(f.runUntil(() -> b.counters.rxData == 1, MS));
            assertEquals(1, b.counters.txAcks);
            assertTrue(!b.hasPostedWork());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldAckEveryMessageOfAPingPongOnceWithoutRetransmitting(boolean delayed) {
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig().delayedAck(delayed));
            TransportDevice b = f.addHost(new TransportConfig().delayedAck(delayed));
            int rounds = 200;
            TestQp qa = f.qp(a, rounds, 64);
            TestQp qb = f.qp(b, rounds, 64);
            MemorySegment msg = f.arena.allocate(64);
            int ab = f.ah(a, 1);
            int ba = f.ah(b, 0);
            for (int i = 0; i < rounds; i++) {
                assertEquals(TransportDevice.POST_OK, a.post(qa.qp(), send(i, msg, 0, 64).to(ab, qb.qpn(), SimFabric.QKEY)
                    .signaled(false)));
                int expected = i + 1;
                assertTrue(f.runUntil(() -> qb.recvCq().size() >= expected, MS), "ping " + i);
                assertEquals(TransportDevice.POST_OK, b.post(qb.qp(), send(i, msg, 0, 64).to(ba, qa.qpn(), SimFabric.QKEY)
                    .signaled(false)));
                assertTrue(f.runUntil(() -> qa.recvCq().size() >= expected, MS), "pong " + i);
            }
            assertTrue(f.runUntil(() -> a.requestsInUse() == 0 && b.requestsInUse() == 0, MS), "every message acknowledged");
            assertEquals(rounds, b.counters.txAcks);
            assertEquals(rounds, a.counters.txAcks);
            assertEquals(0, a.counters.txRetransmits + b.counters.txRetransmits);
            assertEquals(0, a.counters.duplicates + b.counters.duplicates);
        }
    }
}
