package io.srdnic.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.SimWorld;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code perf --rc-ack-timeout} reaches the QPs on both sides: the client sets it on its requests,
 * the server (which takes it from the client's PARAMS line) on its accepts, each through its CM.
 */
class PerfCmAckTimeoutTest {

    private static int[] timeouts(int code) {
        PerfParams p = new PerfParams(PerfParams.Mode.lat, PerfParams.Op.send, PerfParams.Transport.rc, 64, 10, 0, 0, 2, 8, Long.MAX_VALUE,
            false, false, 7, Long.MAX_VALUE, false, code);
        try (SimWorld world = new SimWorld(5, 16, LinkConfig.builder().build())) {
            Context serverCtx = Context.open(Device.sim(world), SideConfig.withSettings(new ContextConfig().seed(41), Map.of()));
            Context clientCtx = Context.open(Device.sim(world), SideConfig.withSettings(new ContextConfig().seed(42), Map.of()));
            try (PerfEndpoint server = new PerfEndpoint(serverCtx, p, 1, false);
                    PerfEndpoint client = new PerfEndpoint(clientCtx, p, 2, true)) {
                PerfEndpoint.connectInOneThread(server, client, System.nanoTime() + 60_000_000_000L);
                int[] out = new int[4];
                int i = 0;
                for (PerfEndpoint side : new PerfEndpoint[] {client, server}) {
                    for (QueuePair qp : new QueuePair[] {side.qps[0], side.qps[1]}) {
                        out[i++] = qp.query().timeout();
                    }
                }
                return out;
            }
        }
    }

    @Test
    void shouldSetTheAskedAckTimeoutOnEveryQpOfBothSides() {
        int[] asked = timeouts(18);
        for (int t : asked) {
            assertEquals(18, t, "client's QPs, then the server's");
        }
        int[] defaults = timeouts(0);
        for (int t : defaults) {
            assertEquals(14, t, "0 leaves the CM's default");
        }
    }
}
