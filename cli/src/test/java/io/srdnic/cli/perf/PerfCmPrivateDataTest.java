package io.srdnic.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * perf over RC and SRC tells the RDMA region each side's peer names (and SRC's SRQ number) in the
 * connection manager's private data, as RTRS does, not on its side channel: the INFO lines carry
 * none, and the SENDs, WRITEs and READs that follow land where they should (both sides' regions
 * checked, byte by byte).
 */
class PerfCmPrivateDataTest {

    @ParameterizedTest
    @CsvSource({"rc,lat,write", "rc,bw,write", "rc,lat,read", "src,lat,write", "src,bw,read", "src,lat,send"})
    void shouldTellTheRegionInTheCmsPrivateDataNotOnTheSideChannel(String transport, String mode, String op) {
        PerfParams p = new PerfParams(PerfParams.Mode.valueOf(mode), PerfParams.Op.valueOf(op), PerfParams.Transport.valueOf(transport),
            20_000, 200, 0,
            0, 2, 8, Long.MAX_VALUE, false, false, 7, Long.MAX_VALUE, false, 0);
        try (SimWorld world = new SimWorld(5, 16, LinkConfig.builder().build())) {
            Context serverCtx = Context.open(Device.sim(world), SideConfig.withSettings(new ContextConfig().seed(41), Map.of()));
            Context clientCtx = Context.open(Device.sim(world), SideConfig.withSettings(new ContextConfig().seed(42), Map.of()));
            try (PerfEndpoint server = new PerfEndpoint(serverCtx, p, 1, false);
                    PerfEndpoint client = new PerfEndpoint(clientCtx, p, 2, true)) {
                PerfEndpoint.connectInOneThread(server, client, System.nanoTime() + 60_000_000_000L);
                assertFalse(server.info().line().contains("raddr"), server.info().line());
                assertFalse(client.info().line().contains("rkey"), client.info().line());
                LongSupplier clock = world.network().clock()::now;
                Responder responder = new Responder(server, clock);
                PerfClient agent = p.latency() ? new LatencyClient(client, clock) : new BandwidthClient(client, clock);
                long spins = 0;
                while (!agent.done() && ++spins < 50_000_000L) {
                    agent.doWork();
                    responder.doWork();
                }
                assertTrue(agent.done(), "stuck at " + agent.progress());
                assertEquals(0, agent.errors(), agent.firstError());
                assertEquals(0, responder.errors(), responder.firstError());
                PayloadCheck landed = op.equals("read") ? client.checkPayload() : server.checkPayload();
                assertNull(landed.failure("the region the requests named"), landed.text("the region"));
                if (mode.equals("lat") && !op.equals("read")) {
                    assertNull(client.checkPayload().failure("the client's region the server's WRITEs named"));
                }
            }
        }
    }
}
