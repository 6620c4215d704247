package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.send;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** A path the engine's PathSet avoided is used again once it heals: through the transport, on the simulator. */
class PathRecoveryTest {

    @Test
    void shouldUseADeadPathAgainOnceItHeals() {
        try (SimFabric f = new SimFabric(4)) {
            TransportDevice a = f.addHost(new TransportConfig().paths(4).pathAvoidNanos(200_000));
            TransportDevice b = f.addHost(new TransportConfig().paths(4));
            TestQp qa = f.qp(a, 0, 0);
            TestQp qb = f.qp(b, 4096, 8);
            MemorySegment msg = f.arena.allocate(8);
            int ah = f.ah(a, 1);
            f.network.blackhole(1, true);
            for (int i = 0; i < 400; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 400, 100_000_000));
            assertTrue(qa.sends().stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
            String during = a.contextReport().get(0);
            assertTrue(during.contains("[1 avoided"), during);
            f.network.blackhole(1, false);
            f.runFor(5_000_000); // avoidance ends, the probe is answered
            for (int i = 0; i < 400; i++) {
                a.post(qa.qp(), send(i, msg, 0, 8).to(ah, qb.qpn(), SimFabric.QKEY));
            }
            assertTrue(f.runUntil(() -> qa.sendCq().size() == 400, 100_000_000));
            String after = a.contextReport().get(0);
            assertFalse(after.contains("avoided"), after);
            assertTrue(a.counters().txProbes > 0);
        }
    }
}
